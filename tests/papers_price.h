/* What the papers' suites (tests/test_papers.c, test_papers_optcc.c, test_papers_async.c) price
 * with: an algorithm on a network, streamed where it can, its failure checked; and a priced
 * form's time at one size. */
#ifndef PAPERS_PRICE_H
#define PAPERS_PRICE_H

#include "ar.h"
#include "model.h"
#include "test.h"

/* Prices algo on the net (streamed where it can) with p; returns 1 when priced. */
static inline int price(const char *algo, const struct ar_params *p, const struct model_net *net,
                        struct model_price *pr) {
  char why[192] = "no such algorithm";
  const struct ar_algo *a = ar_algo_find(algo);
  ar_status st = a ? model_price_algo(a, p, net, pr, why, sizeof(why)) : AR_ERR_INVALID;
  CHECK(st == AR_OK, "%s n=%d: %s", algo, p->nranks, why);
  return st == AR_OK;
}

/* Returns the time of one named priced form at one size. */
static inline double time_of(const struct model_price *pr, const struct model_hw *hw,
                             double bytes) {
  struct model_times t;
  model_times(pr, hw, bytes, 0, &t);
  return t.time_us;
}

#endif
