/* TODO: generator stub, to be written. */
#include "ar.h"

static ar_status build_swing_bw(const struct ar_params *p, struct ar_schedule *s) {
  (void)p;
  return sched_fail(s, AR_ERR_UNSUPPORTED, "swing-bw is not implemented yet");
}

const struct ar_algo ar_algo_swing_bw = {
    .name = "swing-bw",
    .ranks = "any n >= 2",
    .desc = "Swing bandwidth-optimal: pi(r,s) peers, reduce-scatter + allgather",
    .paper = "swing.txt s3",
    .build = build_swing_bw,
    .flags = 0,
};

static ar_status build_swing_lat(const struct ar_params *p, struct ar_schedule *s) {
  (void)p;
  return sched_fail(s, AR_ERR_UNSUPPORTED, "swing-lat is not implemented yet");
}

const struct ar_algo ar_algo_swing_lat = {
    .name = "swing-lat",
    .ranks = "any n >= 2",
    .desc = "Swing latency-optimal: whole vector per step",
    .paper = "swing.txt s3.1.2",
    .build = build_swing_lat,
    .flags = 0,
};

static ar_status build_swing_mp(const struct ar_params *p, struct ar_schedule *s) {
  (void)p;
  return sched_fail(s, AR_ERR_UNSUPPORTED, "swing-mp is not implemented yet");
}

const struct ar_algo ar_algo_swing_mp = {
    .name = "swing-mp",
    .ranks = "torus given by --torus",
    .desc = "multiport Swing on a logical torus, plain + mirrored per port",
    .paper = "swing.txt s4",
    .build = build_swing_mp,
    .flags = AR_ALGO_TORUS,
};

static ar_status build_bucket(const struct ar_params *p, struct ar_schedule *s) {
  (void)p;
  return sched_fail(s, AR_ERR_UNSUPPORTED, "bucket is not implemented yet");
}

const struct ar_algo ar_algo_bucket = {
    .name = "bucket",
    .ranks = "torus given by --torus",
    .desc = "bucket: one ring per torus dimension",
    .paper = "swing.txt s2.3.4",
    .build = build_bucket,
    .flags = AR_ALGO_TORUS,
};
