/* TODO: generator stub, to be written. */
#include "ar.h"

static ar_status build_stragglar(const struct ar_params *p, struct ar_schedule *s) {
  (void)p;
  return sched_fail(s, AR_ERR_UNSUPPORTED, "stragglar is not implemented yet");
}

const struct ar_algo ar_algo_stragglar = {
    .name = "stragglar",
    .ranks = "even n >= 2",
    .desc = "StragglAR: ReduceScatter during the delay, then n+log2 n-2 rounds",
    .paper = "stragglar.txt s3, App. B, C",
    .build = build_stragglar,
    .flags = AR_ALGO_STRAGGLER_AWARE,
};
