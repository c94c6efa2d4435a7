/* The GPU benchmark: one pthread per GPU, a barrier between phases, NCCL communicators, data
 * buffers, GPU-aligned per-iteration timing, result checks, the watchdog, CSV rows. */
#ifndef HX_BENCH_H
#define HX_BENCH_H

#include <signal.h>
#include <stdio.h>

#include "record/csv.h"
#include "record/meta.h"
#include "placement.h"
#include "plan/sweep.h"

struct hx_bench_cfg {
  const struct run_opts *o; /* one scenario */
  int n;                    /* ranks */
  int dev[HX_MAX_DEVS];     /* CUDA ordinal of each rank (on its own host) */
  int first, nlocal;        /* the ranks of this process (MPI; one process: 0, n) */
  int gpu[HX_MAX_DEVS];     /* several processes: one number per physical GPU of the job */
  int host[HX_MAX_DEVS];    /* the host of each rank, numbered from 0 (one process: all 0) */
  int nhosts;
  struct ar_placement place; /* the same, with which ranks share a GPU */
  struct hx_csv *csv;       /* NULL in every process but the first (MPI) */
  const struct hx_meta *meta;
  const char *run_id;
  FILE *critical_csv;            /* critical.csv (header written), or NULL: no search */
  FILE *delays_csv;              /* delays.csv (header written), or NULL: no stragglers */
  FILE *phases_csv;              /* phases.csv (header written), or NULL: no --phases */
  struct hx_progress *progress;  /* shared by the scenarios of a run; may be NULL */
};

/* SIGINT or SIGTERM once received (0: none): the run stops at the next row boundary (set by
 * run.c's handler, read by rank 0 before each row). */
extern volatile sig_atomic_t hx_stop_signal;
/* Set when a stop left rows of a scenario unmeasured (not when it came after the last). */
extern int hx_stopped_early;
/* Called by the watchdog, after the timed-out row is written and before the hung job ends
 * (status 1), with what did not finish: run.c marks the folder FAILED and INCOMPLETE and
 * writes summary.md. NULL: nothing to do (no run folder). */
extern void (*hx_on_timeout)(const char *what);

/* The header of delays.csv: every timed iteration's drawn delay, per straggler. */
extern const char hx_delays_header[];
/* The header of critical.csv (docs/csv.md; its first four columns are fixed). */
extern const char hx_critical_header[];

/* Measures every (size, algorithm, transport) of cfg->o and writes one CSV row each; with
 * --find-critical, runs the critical-delay search instead (its rows to results.csv, one line
 * per size to critical.csv). Returns the exit status: 0 when every row is ok, n/a or oom; 1
 * when a row had wrong elements or an error (a timeout or a fault during a measurement ends
 * the process with 1). */
int hx_bench_run(const struct hx_bench_cfg *cfg);

/* `arbench run --self-test delay` on CUDA device dev: requested vs measured straggler delay
 * (events around the spin kernel) at 100 us, 1 ms and 8 ms. Returns 0 when each is within 1%,
 * else 1. */
int hx_selftest_delay(int dev);

#endif
