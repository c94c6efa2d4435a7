/* TODO: generator stub, to be written. */
#include "ar.h"

static ar_status build_direct(const struct ar_params *p, struct ar_schedule *s) {
  (void)p;
  return sched_fail(s, AR_ERR_UNSUPPORTED, "direct is not implemented yet");
}

const struct ar_algo ar_algo_direct = {
    .name = "direct",
    .ranks = "any n >= 2",
    .desc = "one-shot: reduce-scatter directly with every rank, then allgather",
    .paper = "stragglar.txt App. E",
    .build = build_direct,
    .flags = 0,
};
