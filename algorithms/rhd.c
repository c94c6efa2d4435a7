/* TODO: generator stub, to be written. */
#include "ar.h"

static ar_status build_rhd(const struct ar_params *p, struct ar_schedule *s) {
  (void)p;
  return sched_fail(s, AR_ERR_UNSUPPORTED, "rhd is not implemented yet");
}

const struct ar_algo ar_algo_rhd = {
    .name = "rhd",
    .ranks = "any n >= 2 (non-powers of 2 fold in)",
    .desc = "recursive halving/doubling (Rabenseifner), 2 log2 n rounds",
    .paper = "stragglar.txt s4.1; swing.txt s2.3.3",
    .build = build_rhd,
    .flags = 0,
};
