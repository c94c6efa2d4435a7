/* TODO: generator stub, to be written. */
#include "ar.h"

static ar_status build_optcc(const struct ar_params *p, struct ar_schedule *s) {
  (void)p;
  return sched_fail(s, AR_ERR_UNSUPPORTED, "optcc is not implemented yet");
}

const struct ar_algo ar_algo_optcc = {
    .name = "optcc",
    .ranks = "n >= 3, one degraded GPU",
    .desc = "OPTCC: four patterns pipelined over k segments",
    .paper = "optcc.txt s4, App. C",
    .build = build_optcc,
    .flags = AR_ALGO_DEGRADE_AWARE,
};

static ar_status build_optcc_multi(const struct ar_params *p, struct ar_schedule *s) {
  (void)p;
  return sched_fail(s, AR_ERR_UNSUPPORTED, "optcc-multi is not implemented yet");
}

const struct ar_algo ar_algo_optcc_multi = {
    .name = "optcc-multi",
    .ranks = "n >= 3, m degraded GPUs",
    .desc = "OPTCC for m > 1 degraded GPUs",
    .paper = "optcc.txt App. D",
    .build = build_optcc_multi,
    .flags = AR_ALGO_DEGRADE_AWARE,
};
