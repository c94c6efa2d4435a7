/* TODO: generator stub, to be written. */
#include "ar.h"

static ar_status build_rd(const struct ar_params *p, struct ar_schedule *s) {
  (void)p;
  return sched_fail(s, AR_ERR_UNSUPPORTED, "rd is not implemented yet");
}

const struct ar_algo ar_algo_rd = {
    .name = "rd",
    .ranks = "any n >= 2",
    .desc = "latency-optimal recursive doubling, whole vector each step",
    .paper = "swing.txt s2.3.2",
    .build = build_rd,
    .flags = 0,
};
