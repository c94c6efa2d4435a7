/* `arbench run` options: parsing and validation (no GPU), the list of sizes, straggler delays.
 * Pure C so the CPU tests can check every rule; run.c adds what needs the devices. */
#ifndef HX_SWEEP_H
#define HX_SWEEP_H

#include <stdint.h>

#include "args.h"

#define HX_MAX_SIZES 1024
#define HX_MAX_ALGOS 64
#define HX_MAX_TRANSPORTS 3
#define HX_MAX_DEVS 16 /* AR_MAX_GPUS of transport.h */

/* Values of enum ar_dtype (src/cuda/transport.h); run.c asserts they agree. */
enum { HX_DT_F32 = 0, HX_DT_BF16 = 1, HX_DT_F16 = 2 };

struct run_opts {
  uint64_t min_bytes, max_bytes, step_bytes; /* step 0: geometric by factor */
  int factor;
  int nsizes;
  uint64_t sizes[HX_MAX_SIZES]; /* requested bytes, before rounding to the element size */
  int nalgos;
  const struct ar_algo *algos[HX_MAX_ALGOS];
  int ntransports;
  const char *transports[HX_MAX_TRANSPORTS]; /* "nccl-p2p", "ce", "sm" */
  int ngpus;                                 /* 0: every visible GPU */
  int gpus[HX_MAX_DEVS];
  int iters, warmup, timeout_s, dtype, pipeline, check;
  char out[1024]; /* empty: runs/<UTC time>_<host> */
  int nst;
  struct straggler_spec st[AR_MAX_STRAGGLERS];
  double *delays[AR_MAX_STRAGGLERS]; /* per-iteration delays read from a @FILE, or NULL */
  int ndelays[AR_MAX_STRAGGLERS];
  int torus_ndims, torus[AR_MAX_TORUS_DIMS];
  char torus_text[64];
};

/* Parses argv (argv[0] is the subcommand or program name). Returns 0 when the options are
 * good, 1 when --help was printed, -1 after printing one line naming the bad flag and value. */
int run_opts_parse(int argc, char **argv, struct run_opts *o);
/* Frees what parsing allocated (delay lists). */
void run_opts_free(struct run_opts *o);
/* Checks the options that depend on the number of ranks n (stragglers, torus); 0 or -1. */
int run_opts_check_ranks(const struct run_opts *o, int n);
void run_opts_usage(void);

/* The sizes min, min*factor, ... (or min, min+step, ... when step > 0) up to and including
 * max where a step lands on it. Returns the count, or -1 when there would be more than cap. */
int sweep_sizes(uint64_t min, uint64_t max, int factor, uint64_t step, uint64_t *out, int cap);
/* Elements for a requested size: bytes / esize rounded down, at least 1. */
uint64_t sweep_nelem(uint64_t bytes, int esize);

/* Straggler sp's delay in us for iteration `it` of the job numbered `job` (a fixed value, a
 * uniform draw that depends only on (job, it, rank), or the file's it-th line, cycling). */
double sweep_delay_us(const struct run_opts *o, int k, int job, int it);

/* The names of the dtypes, indexed by HX_DT_*. */
const char *sweep_dtype_name(int dt);
int sweep_dtype_size(int dt);

#endif
