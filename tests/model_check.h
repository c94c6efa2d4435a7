/* What the model's suites (tests/test_model.c, test_model_rounds.c, test_model_closed.c) share:
 * a tolerance, building and pricing a named schedule (a generator that is still a stub prints
 * "skipped: generator missing" and counts nothing) and the pricer's thread count. */
#ifndef MODEL_CHECK_H
#define MODEL_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ar.h"
#include "model.h"
#include "settings.h"
#include "test.h"

/* |a - b| <= tol * |b| */
static inline int near(double a, double b, double tol) {
  return fabs(a - b) <= tol * fabs(b);
}

/* Builds the named schedule; returns AR_OK, or prints a skip line for a missing generator and
 * returns AR_ERR_UNSUPPORTED (other failures are checked by the caller). */
static inline ar_status build(const char *name, const struct ar_params *p, struct ar_schedule *s) {
  const struct ar_algo *a = ar_algo_find(name);
  if (!a) {
    memset(s, 0, sizeof(*s));
    snprintf(s->reason, sizeof(s->reason), "not implemented (not registered)");
    printf("skipped: generator missing: %s is not registered\n", name);
    return AR_ERR_UNSUPPORTED;
  }
  ar_status st = ar_build(a, p, s);
  if (st == AR_ERR_UNSUPPORTED && strstr(s->reason, "not implemented")) {
    printf("skipped: generator missing: %s (%s)\n", name, s->reason);
    return st;
  }
  return st;
}

/* Builds and prices a schedule; returns 1 when priced, 0 when skipped or failed (checked). */
static inline int price(const char *name, const struct ar_params *p, int topology,
                        struct model_price *pr) {
  struct ar_schedule s;
  ar_status st = build(name, p, &s);
  if (st == AR_ERR_UNSUPPORTED && strstr(s.reason, "not implemented")) return 0;
  CHECK(st == AR_OK, "%s n=%d: %s", name, p->nranks, s.reason);
  if (st != AR_OK) return 0;
  struct model_net net;
  CHECK_INT(model_net_init(&net, topology, p), ==, AR_OK);
  CHECK_INT(model_price_schedule(&s, &net, pr), ==, AR_OK);
  sched_free(&s);
  return 1;
}

/* Pricing with model.threads = k (the setting; 0: chosen). */
static inline void set_threads(int k) {
  struct ar_settings s;
  memset(&s, 0, sizeof(s));
  s.given[AR_SET_MODEL_THREADS] = k > 0;
  s.value[AR_SET_MODEL_THREADS] = k;
  ar_settings_apply(&s);
}

#endif
