/* The GPU benchmark: one pthread per GPU, a barrier between phases, NCCL communicators, data
 * buffers, GPU-aligned per-iteration timing, result checks, the watchdog, CSV rows. */
#ifndef HX_BENCH_H
#define HX_BENCH_H

#include "csv.h"
#include "meta.h"
#include "sweep.h"

struct hx_bench_cfg {
  const struct run_opts *o;
  int n;                /* ranks */
  int dev[HX_MAX_DEVS]; /* CUDA ordinal of each rank */
  struct hx_csv *csv;
  const struct hx_meta *meta;
  const char *run_id;
};

/* Measures every (size, algorithm, transport) of cfg->o and writes one CSV row each.
 * Returns the exit status: 0 when every row is ok, n/a or oom; 1 when a row had wrong
 * elements or an error (a timeout or a fault during a measurement ends the process with 1). */
int hx_bench_run(const struct hx_bench_cfg *cfg);

#endif
