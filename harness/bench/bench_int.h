/* The benchmark's private state, shared by bench.c (the run and its threads), bench_rank.c
 * (a rank's GPU work), bench_row.c (a job's preparation and row), bench_crit.c (the
 * critical-delay search) and bench_sync.c (barrier, watchdog). Not for other modules. */
#ifndef HX_BENCH_INT_H
#define HX_BENCH_INT_H

#include "bench/bench.h"

#include <cuda_runtime.h>
#include <limits.h>
#include <math.h>
#include <nccl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "plan/critical.h"
#include "plan/plan.h"
#include "cuda/delay.h"
#include "cuda/kernels.h"
#include "cuda/load.h"
#include "cuda/degrade.h"
#include "cuda/transport.h"
#include "model.h"
#include "nvtx.h"
#include "profile/phases.h"
#include "profile/profile.h"

_Static_assert(HX_MAX_DEVS == AR_MAX_GPUS, "one rank per GPU slot");

/* ---- a spinning barrier that also agrees on "did anyone fail" ---- */

struct hx_barrier {
  int n;     /* this process's ranks */
  int procs; /* several processes: the last thread to arrive also waits for the others */
  atomic_int count, gen;
  atomic_int err[2]; /* per generation parity: OR of the errors brought to it */
};

/* Waits for all n threads; returns nonzero on every thread when any of them passed err != 0. */

/* ---- state ---- */

enum job_state { JOB_RUN, JOB_NA, JOB_OOM, JOB_ERROR };

struct job_desc { /* one row to measure */
  int row;         /* the plan's row (struct plan_row) */
  double delay_us; /* >= 0: the first straggler's delay (critical search); < 0: its spec */
};

/* The critical-delay search of one scenario (rank 0's thread only). */
struct crit_state { /* candidate k of size s: the plan's row size_row[s] + k */
  int on, size, started;
  int ncand;
  unsigned char cand_target[CRIT_MAX_CAND];
  const struct model_price *cand_price[CRIT_MAX_CAND]; /* NULL: the model has none */
  struct model_price price[HX_MAX_ALGOS];
  struct crit_search cs;
  struct job_desc desc; /* the job being measured */
  int rows;             /* rows written for the current size */
  double seconds;       /* their estimated seconds */
};

struct bench;

struct rank {
  struct bench *b;
  int rank, dev, straggler_k; /* straggler_k: index in --straggler, -1 when none */
  int remote; /* in another process: data and events are mapped here (bench_peers.c), dev is
               * its ordinal there, and it has no thread, stream or communicator here */
  int host;   /* its host's number: only ranks of one host reach each other's memory */
  float *d_sync; /* several hosts: the start barrier's element (job_run) */
  uint64_t *d_starts; /* timing.start_skew: %globaltimer after each timed start event */
  pthread_t th;
  cudaStream_t stream;
  cudaEvent_t ready, *start, *end;
  cudaEvent_t finished; /* the end of the rank's last iteration (after its check) */
  cudaEvent_t wstart, wend; /* --row-budget: around the last warm-up iteration's AllReduce */
  unsigned long long *d_wrong; /* one counter per iteration of a job */
  unsigned *d_expired;         /* gates that timed out */
  unsigned long long gate_seq; /* gate targets used so far (equal on every rank) */
  ncclComm_t comm;
  void *data;
  size_t cap;     /* bytes of data this rank could allocate */
  int nccl_mem;   /* data came from ncclMemAlloc (nccl.registration: bench_buf.c) */
  void *reg;      /* its registration handle or window, NULL when not registered */
  char reg_why[320]; /* why this rank's nccl rows cannot have the registration mode; "" */
  struct hx_phase_rank ph; /* NVTX ranges and --phases events */
  char graph_why[256];     /* timing.mode=graph: why this rank's capture failed; "" */
  /* --compute (bench_load.c): the load, its stream, the events that start and end it */
  struct ar_load *load;         /* made at the first row (NULL: none yet) */
  cudaStream_t lstream;
  cudaEvent_t lgo, ldone;       /* its start (recorded on stream), a warm-up's end */
  cudaEvent_t *lend;            /* [-n]: each timed iteration's load end */
  unsigned long long *d_lwrong; /* [3 total]: the AllReduce beside it, the load alone, beside */
  char err[512];
};

/* A --compute row's three lanes, measured in turn; a row without a load has the first only. */
enum job_lane { LANE_ALLREDUCE, LANE_LOAD, LANE_BOTH };

struct job {
  int index;
  unsigned long long seed0; /* the inputs' seed of iteration 0; iteration it uses seed0 + it */
  const struct job_desc *d;
  const struct plan_row *row; /* d's row of the plan */
  const struct ar_transport *ex; /* its executor (row->ex) */
  const struct ar_schedule *sched; /* its schedule at its size; NULL for the native one */
  const struct ar_algo *algo;
  uint64_t bytes; /* payload: nelem * element size */
  size_t nelem;
  const struct tp_ops *tp;
  struct tp_ctx *ctx;
  int state;
  int warmup, iters, total; /* its warm-up and timed iterations and their sum (b->total at
                             * most; --row-budget cuts iters after the warm-up, stats.ci_target
                             * adds to them; timing.mode=host: -w, -n and b->total) */
  int samples;      /* the row's samples so far: iters, or timing.mode=host batches */
  int budget_limit; /* the samples --row-budget allows (hx_budget_cap; INT_MAX: no budget) */
  int stop;         /* why it took no more: enum hx_repeat_stop (repeat_stop) */
  int pipeline_used; /* --pipeline, until the transport's setup says what it uses */
  int profiling;     /* --profile: CUPTI records this job (hx_profile_begin) */
  int lane;          /* enum job_lane: what its iterations run now */
  struct ar_compute load; /* --compute: the load as sized for this row */
  double load_target_us;  /* the AllReduce alone's median, which the load is sized to */
  char reason[512];
};

struct bench {
  const struct hx_bench_cfg *cfg;
  const struct run_opts *o;
  int colocated;      /* some GPU hosts several ranks: no NCCL communicator */
  char placement[64]; /* the placement column */
  char settings[512];  /* the settings column (--set; empty: every default) */
  int n, total; /* iterations with inputs and a check: warmup + iters (timing.mode=host:
                 * warmup + the one after the batches); the stride of per-iteration arrays,
                 * a job's own count is job.total */
  int host_timing; /* timing.mode=host or graph: times[] holds batches, not iterations */
  int graph_timing; /* timing.mode=graph: each batch's AllReduces captured into a CUDA graph */
  int nccl_rotate;  /* nccl.rotate=on: the nccl rows' AllReduce i of a batch on slice i */
  int graph_upload; /* timing.graph_upload=on: each batch's graph uploaded before its launch */
  double graph_failed[HX_MAX_DEVS]; /* timing.mode=graph: rank r could not capture (1) */
  int nsamp;       /* time samples per rank in times[] (the stride): iters, or
                    * timing.host_batches; with stats.ci_target, stats.max_iters if more */
  int step;        /* a row's first samples, and each step's more: iters, or host_batches */
  double target;   /* stats.ci_target (0: off, every row takes -n samples) */
  int max_iters;   /* stats.max_iters */
  double *row_t;   /* [nsamp]: the row's samples (row_samples) */
  char nccl_na[352]; /* why nccl rows are n/a in this registration mode (bench_buf.c); "" */
  int first, nlocal; /* this process's ranks: first .. first + nlocal - 1 (all of them, and
                      * first 0, in a one-process run); rank `first`'s thread leads here */
  int procs;         /* several processes (MPI) */
  struct tp_peers peers; /* the transports' way to the other processes' memory */
  int esize;
  struct hx_barrier bar;
  ncclUniqueId id;
  struct tp_world world;
  struct rank rk[HX_MAX_DEVS];
  volatile unsigned long long *gate_host; /* mapped pinned memory seen by every GPU */
  size_t cap;                             /* bytes every rank's data buffer holds */
  struct plan plan;       /* the scenario's rows (plan.h), built before any GPU work */
  int next;               /* the sweep's next row */
  struct job_desc sweep_job; /* the sweep's current job */
  struct crit_state crit;
  struct job_desc sent; /* several processes: the job process 0 chose */
  int have_job;
  struct job job;
  double *times;            /* [rank][nsamp], us per AllReduce (job.samples of them used) */
  double warm_us[HX_MAX_DEVS]; /* --row-budget: each rank's last warm-up AllReduce, us */
  unsigned long long *wrong; /* [rank][total] */
  unsigned long long *starts; /* timing.start_skew: [rank][nsamp] ns, else NULL */
  unsigned expired[HX_MAX_DEVS];
  double *delays; /* [straggler][total], us */
  int failed;     /* a row had wrong elements or an error */
  char st_text[AR_MAX_STRAGGLERS * 40]; /* the current row's `stragglers` column */
  char dg_text[AR_MAX_DEGRADED * 40];   /* and its `degraded` column */
  unsigned char na_said[HX_MAX_ALGOS][AR_NEXECUTORS];
  /* watchdog */
  pthread_t wd_th;
  pthread_mutex_t wd_mu;
  int wd_active, wd_stop, wd_row_ok;
  double wd_t0;
  char wd_label[256];
  struct hx_csv_row wd_row;
  atomic_int done[HX_MAX_DEVS];
  struct tp_marks *marks[HX_MAX_DEVS]; /* --phases: each rank's round marks while it enqueues
                                        * its timed iteration (struct tp_job's marks) */
  FILE *overlap_csv;  /* --profile: overlap.csv (NULL when off or not writable) */
  FILE *timeline_csv; /* --profile timeline: timeline.csv (NULL when off or not writable) */
  /* --compute (bench_load.c) */
  double *ltimes;  /* [3][rank][nsamp] us: the load alone, the AllReduce and the load beside */
  unsigned long long *lwrong; /* [rank][3 total]: as rank's d_lwrong */
  double *lrow;    /* [4][nsamp]: the row's samples of the three and of the span */
  double probe_us[HX_MAX_DEVS]; /* each rank's time of the load being sized */
  char lrow_text[96];           /* the row's compute column */
};

/* CUDA call on a rank: records "rank R: call: error" and yields 1 on failure, else 0. */
#define RK_CUDA(R, call)                                                                   \
  __extension__({                                                                          \
    cudaError_t e_ = (call);                                                               \
    e_ == cudaSuccess ? 0                                                                  \
                      : rank_fail((R), "rank %d (GPU %d): %s: %s", (R)->rank, (R)->dev,    \
                                  #call, cudaGetErrorString(e_));                          \
  })
#define RK_NCCL(R, call)                                                                   \
  __extension__({                                                                          \
    ncclResult_t r_ = (call);                                                              \
    r_ == ncclSuccess ? 0                                                                  \
                      : rank_fail((R), "rank %d (GPU %d): %s: %s", (R)->rank, (R)->dev,    \
                                  #call, ncclGetErrorString(r_));                          \
  })
#define RK_AR(R, call)                                                                     \
  __extension__({                                                                          \
    ar_status s_ = (call);                                                                 \
    s_ == AR_OK ? 0                                                                        \
                : rank_fail((R), "rank %d (GPU %d): %s: %s", (R)->rank, (R)->dev, #call,   \
                            ar_status_str(s_));                                            \
  })

/* Rank r's thread does this process's single-threaded parts; process 0's lead writes rows. */
#define IS_LEAD(R) ((R)->rank == (R)->b->first)
#define IS_ROOT(b) ((b)->first == 0)

double bench_now_s(void);
/* bench_buf.c: a rank's data buffer: allocated (the largest of want that fits, halving; cap
 * says how much), registered with the communicator in the nccl.registration mode (every rank
 * with the same bytes, at once: a window's registration is collective; 0, or 1 with reg_why
 * set), deregistered (before the communicator is destroyed) and freed */
void data_alloc(struct rank *R, size_t want);
int data_register(struct rank *R, size_t bytes);
void data_deregister(struct rank *R);
void data_free(struct rank *R);
/* bench_peers.c: the other processes' ranks (MPI), by the lead thread */
int peers_open(struct bench *b);
void peers_close(struct bench *b);
int peers_gather(struct bench *b, unsigned long long *failed);
int peers_times(struct bench *b);
/* bench_row.c: the current row's samples into t (job.samples of them); by a lead, with every
 * rank's times here. repeat_step: a lead's decision, with every rank's times of the samples so
 * far, whether the row takes more (stats.ci_target): job.samples, iters, total and stop. */
void row_samples(const struct bench *b, double *t);
void repeat_step(struct bench *b);
int barrier_wait(struct hx_barrier *b, int err);
int job_run(struct rank *R);
/* bench_rank.c: iteration `it` of the job's current lane (bench.c has its shape); timed: a
 * timed iteration's events; returns 1 when a barrier said some rank failed, else 0 */
int job_iteration(struct rank *R, int it, int timed, int err);
/* bench_load.c: --compute. load_bench_init: the run's arrays (0, or -1 out of memory);
 * load_rank_init: a rank's stream, events and counters (0 or 1); load_before: before the
 * iteration's start, the load's result reset on the rank's stream; load_start: at the start,
 * the load launched on its own stream; load_end: its end recorded, waited for and checked;
 * load_lanes: every rank, after the AllReduce alone: the load sized, alone, then beside the
 * AllReduce (1 when a barrier said some rank failed); load_row: process 0's lead, the row's
 * compute columns (row->t already the AllReduce alone's) and table line; err bits as RK_* */
int load_bench_init(struct bench *b);
void load_bench_free(struct bench *b);
int load_rank_init(struct rank *R);
void load_rank_free(struct rank *R);
int load_before(struct rank *R);
int load_start(struct rank *R);
int load_end(struct rank *R, int it, int timed);
int load_lanes(struct rank *R, int err);
void load_row(struct bench *b, struct hx_csv_row *row, struct hx_csv_compute *c);
void load_table(const struct hx_csv_row *row);
int rank_fail(struct rank *R, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int rank_init(struct rank *R);
ncclDataType_t nccl_type(int dt);
void crit_report(struct bench *b);
void crit_setup(struct bench *b);
void job_finish(struct bench *b);
void job_prepare(struct bench *b, const struct job_desc *d);
void progress_clear(struct bench *b);
void rank_free(struct rank *R);
void table_header(struct bench *b);
void wd_begin(struct bench *b, const char *label, const struct hx_csv_row *row);
void wd_end(struct bench *b);
void *wd_main(void *arg);

#endif
