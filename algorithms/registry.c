/* The table of algorithms: lookup by name, and building a schedule from one. Each generator
 * file defines its own entry (`ar_algo_<name>`); adding an algorithm is its file and one line
 * here (two in the table below and its extern). */
#include <string.h>

#include "ar.h"

extern const struct ar_algo ar_algo_nccl, ar_algo_ring, ar_algo_rhd, ar_algo_rd,
    ar_algo_swing_bw, ar_algo_swing_lat, ar_algo_swing_mp, ar_algo_bucket, ar_algo_direct,
    ar_algo_bcast, ar_algo_stragglar, ar_algo_optcc, ar_algo_optcc_multi, ar_algo_optcc_ring, ar_algo_optcc_switch,
    ar_algo_async_ring,
    ar_algo_oneshot, ar_algo_rd_torus, ar_algo_rhd_torus, ar_algo_swing_lat_torus,
    ar_algo_bucket_sync, ar_algo_ring_ham, ar_algo_ring_rails, ar_algo_r2ccl;

static const struct ar_algo *const table[] = {
    &ar_algo_nccl,   &ar_algo_ring,      &ar_algo_rhd,       &ar_algo_rd,
    &ar_algo_swing_bw, &ar_algo_swing_lat, &ar_algo_swing_mp, &ar_algo_bucket,
    &ar_algo_direct, &ar_algo_oneshot, &ar_algo_bcast,     &ar_algo_stragglar, &ar_algo_optcc,
    &ar_algo_optcc_multi, &ar_algo_optcc_ring, &ar_algo_optcc_switch, &ar_algo_async_ring,
    /* the papers' forms on their own networks (issue #24) */
    &ar_algo_rd_torus, &ar_algo_rhd_torus, &ar_algo_swing_lat_torus, &ar_algo_bucket_sync,
    &ar_algo_ring_ham, &ar_algo_ring_rails, &ar_algo_r2ccl,
};

const struct ar_algo *const *ar_algo_all(size_t *count) {
  *count = sizeof(table) / sizeof(table[0]);
  return table;
}

const struct ar_algo *ar_algo_find(const char *name) {
  for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
    if (!strcmp(table[i]->name, name)) return table[i];
  return NULL;
}

/* ar_build, with the transfers going to sink when it is not NULL. */
static ar_status build(const struct ar_algo *a, const struct ar_params *p, struct ar_schedule *s,
                       ar_status (*sink)(void *, const struct ar_schedule *,
                                         const struct ar_xfer *),
                       void *ctx) {
  memset(s, 0, sizeof(*s));
  if (!a->build) {
    snprintf(s->reason, sizeof(s->reason), "%s has no schedule (native call)", a->name);
    return AR_ERR_UNSUPPORTED;
  }
  struct ar_params q = *p;
  if ((a->flags & AR_ALGO_STRAGGLER_AWARE) && q.straggler < 0) q.straggler = q.nranks - 1;
  if (q.straggler >= q.nranks) {
    snprintf(s->reason, sizeof(s->reason), "straggler rank %d >= ranks %d", q.straggler,
             q.nranks);
    return AR_ERR_INVALID;
  }
  sched_stream_begin(s, sink, ctx);
  ar_status st = a->build(&q, s);
  sched_stream_end();
  s->traits = a->traits; /* the lowering and the model read them from the schedule */
  if (st == AR_OK) st = sched_finish(s);
  if (st != AR_OK) {
    sched_free(s);
    if (!s->reason[0]) snprintf(s->reason, sizeof(s->reason), "%s", ar_status_str(st));
  }
  return st;
}

ar_status ar_build(const struct ar_algo *a, const struct ar_params *p, struct ar_schedule *s) {
  return build(a, p, s, NULL, NULL);
}

ar_status ar_build_stream(const struct ar_algo *a, const struct ar_params *p,
                          struct ar_schedule *s,
                          ar_status (*sink)(void *, const struct ar_schedule *,
                                            const struct ar_xfer *),
                          void *ctx) {
  return build(a, p, s, sink, ctx);
}
