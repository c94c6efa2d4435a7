/* TODO: generator stub, to be written. */
#include "ar.h"

static ar_status build_bcast(const struct ar_params *p, struct ar_schedule *s) {
  (void)p;
  return sched_fail(s, AR_ERR_UNSUPPORTED, "bcast is not implemented yet");
}

const struct ar_algo ar_algo_bcast = {
    .name = "bcast",
    .ranks = "any n >= 2",
    .desc = "straggler-aware broadcast baseline",
    .paper = "stragglar.txt s4.1",
    .build = build_bcast,
    .flags = AR_ALGO_STRAGGLER_AWARE,
};
