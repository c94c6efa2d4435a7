/* The GPU benchmark (SPEC.md section 3). One pthread per GPU owns its device, stream, events,
 * data buffer and NCCL communicator; all threads walk the same list of jobs (size x algorithm x
 * transport) in lockstep, separated by a barrier, and rank 0's thread does the single-threaded
 * parts (transport setup and teardown, statistics, the CSV row) while the others wait.
 *
 * One iteration on rank r's stream:
 *   [gate] wait on every rank's `finished` (of the last iteration), fill inputs, record ready
 *   | barrier | wait on every rank's ready, record start, [straggler delay], the AllReduce,
 *   record end, check, record finished | barrier | rank 0 opens the gates
 * The inputs of every iteration, warm-up included, come from a seed of their own (a counter
 * over the whole process, cuda/inputs.h), and every iteration's result is checked against
 * the sums for that seed: a transport that reads data of an earlier iteration (a scratch
 * slot or a peer's buffer read before this iteration's data landed) sums other values and
 * is counted wrong, in a warm-up iteration as in a timed one.
 * The gate (timed iterations only) holds the stream until every rank's host has enqueued the
 * whole iteration, so host launch overhead never lands between the start and end events; the
 * cross-GPU waits align the start events; the fill and the check sit outside them. The
 * iteration time is the largest (end - start) over the ranks: with a straggler, from the
 * non-stragglers' entry (every rank's start event, aligned) to the last rank's finish; the
 * straggler-aware schedules' precondition runs at once on the others' streams (dataflow), so
 * it overlaps the delay, while every other schedule waits for the straggler's data.
 *
 * Jobs come from a list (the size sweep) or, with --find-critical, from the critical-delay
 * search (critical.c), which picks each next (size, algorithm, transport, delay) from the
 * times measured so far. */
#include "bench.h"

#include <cuda_runtime.h>
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

#include "critical.h"
#include "cuda/delay.h"
#include "cuda/kernels.h"
#include "cuda/transport.h"
#include "model.h"
#include "nvtx.h"
#include "phases.h"
#include "profile.h"

_Static_assert(HX_MAX_DEVS == AR_MAX_GPUS, "one rank per GPU slot");
_Static_assert((int)HX_DT_F32 == (int)AR_DT_F32 && (int)HX_DT_BF16 == (int)AR_DT_BF16 &&
                   (int)HX_DT_F16 == (int)AR_DT_F16,
               "dtype numbering");

/* ---- a spinning barrier that also agrees on "did anyone fail" ---- */

struct hx_barrier {
  int n;
  atomic_int count, gen;
  atomic_int err[2]; /* per generation parity: OR of the errors brought to it */
};

/* Waits for all n threads; returns nonzero on every thread when any of them passed err != 0. */
static int barrier_wait(struct hx_barrier *b, int err) {
  int gen = atomic_load(&b->gen);
  if (err) atomic_store(&b->err[gen & 1], 1);
  if (atomic_fetch_add(&b->count, 1) == b->n - 1) {
    atomic_store(&b->err[(gen + 1) & 1], 0); /* nobody can be in the next generation yet */
    atomic_store(&b->count, 0);
    atomic_store(&b->gen, gen + 1);
  } else {
    for (long spins = 0; atomic_load(&b->gen) == gen; spins++) {
      if (spins > 20000) usleep(20); /* a long phase (a big size): stop burning a core */
      else if (spins > 200) sched_yield();
    }
  }
  return atomic_load(&b->err[gen & 1]);
}

/* ---- state ---- */

enum job_state { JOB_RUN, JOB_NA, JOB_OOM, JOB_ERROR };

struct job_desc { /* one row to measure */
  int size_idx, algo_idx;
  const char *tname; /* "nccl" for the native algorithm, else the transport's name */
  double delay_us;   /* >= 0: the first straggler's delay (critical search); < 0: its spec */
};

const char hx_delays_header[] =
    "scenario,algorithm,transport,bytes,iteration,straggler_rank,delay_us,time_us";
const char hx_critical_header[] =
    "bytes,algorithm,baseline,critical_delay_us,model_critical_delay_us,n_gpus,straggler_rank,"
    "transport,status,probes,scenario,note";

/* The critical-delay search of one scenario (rank 0's thread only). */
struct crit_state {
  int on, size, started;
  int ncand;
  int cand_algo[CRIT_MAX_CAND];
  const char *cand_tname[CRIT_MAX_CAND];
  unsigned char cand_target[CRIT_MAX_CAND];
  const struct model_price *cand_price[CRIT_MAX_CAND]; /* NULL: the model has none */
  struct model_price price[HX_MAX_ALGOS];
  struct crit_search cs;
  struct job_desc desc; /* the job being measured */
  int rows;             /* rows written for the current size */
  double seconds;       /* their estimated seconds */
  int live_t, live_b, dead; /* candidates, as the plan counts them */
};

struct bench;

struct rank {
  struct bench *b;
  int rank, dev, straggler_k; /* straggler_k: index in --straggler, -1 when none */
  pthread_t th;
  cudaStream_t stream;
  cudaEvent_t ready, *start, *end;
  cudaEvent_t finished; /* the end of the rank's last iteration (after its check) */
  unsigned long long *d_wrong; /* one counter per iteration of a job */
  unsigned *d_expired;         /* gates that timed out */
  unsigned long long gate_seq; /* gate targets used so far (equal on every rank) */
  ncclComm_t comm;
  void *data;
  size_t cap; /* bytes of data this rank could allocate */
  struct hx_phase_rank ph; /* NVTX ranges and --phases events */
  char err[512];
};

struct job {
  int index;
  unsigned long long seed0; /* the inputs' seed of iteration 0; iteration it uses seed0 + it */
  const struct job_desc *d;
  const struct ar_algo *algo;
  uint64_t bytes; /* payload: nelem * element size */
  size_t nelem;
  const struct tp_ops *tp;
  struct tp_ctx *ctx;
  int state;
  int pipeline_used; /* --pipeline, until the transport's setup says what it uses */
  int profiling;     /* --profile: CUPTI records this job (hx_profile_begin) */
  char reason[512];
};

struct bench {
  const struct hx_bench_cfg *cfg;
  const struct run_opts *o;
  int colocated;      /* some GPU hosts several ranks: no NCCL communicator */
  char placement[64]; /* the placement column */
  char settings[512];  /* the settings column (--set; empty: every default) */
  int n, total; /* total = warmup + iters */
  int esize;
  struct hx_barrier bar;
  ncclUniqueId id;
  struct tp_world world;
  struct rank rk[HX_MAX_DEVS];
  volatile unsigned long long *gate_host; /* mapped pinned memory seen by every GPU */
  size_t cap;                             /* bytes every rank's data buffer holds */
  struct ar_schedule sched[HX_MAX_ALGOS];
  ar_status sched_st[HX_MAX_ALGOS];
  int sched_k[HX_MAX_ALGOS]; /* OPTCC: the k sched[a] was asked for, per size (0: not yet) */
  int njobs, next; /* jobs[next] is the next job of the size sweep */
  struct job_desc *jobs;
  struct crit_state crit;
  int have_job;
  struct job job;
  double *times;            /* [rank][iters], us */
  unsigned long long *wrong; /* [rank][total] */
  unsigned expired[HX_MAX_DEVS];
  double *delays; /* [straggler][total], us */
  int failed;     /* a row had wrong elements or an error */
  char st_text[AR_MAX_STRAGGLERS * 40]; /* the current row's `stragglers` column */
  char dg_text[AR_MAX_DEGRADED * 40];   /* and its `degraded` column */
  unsigned char na_said[HX_MAX_ALGOS][HX_MAX_TRANSPORTS + 1];
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
};

/* Monotonic seconds. */
static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Records a rank's first error message (printf-style); returns 1 for `err |= fail(...)`. */
static int rank_fail(struct rank *R, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int rank_fail(struct rank *R, const char *fmt, ...) {
  if (!R->err[0]) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(R->err, sizeof(R->err), fmt, ap);
    va_end(ap);
  }
  return 1;
}

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

/* NCCL's type for an HX_DT_* dtype. */
static ncclDataType_t nccl_type(int dt) {
  return dt == HX_DT_F32 ? ncclFloat32 : dt == HX_DT_BF16 ? ncclBfloat16 : ncclFloat16;
}

/* ---- the watchdog ---- */

/* Starts the deadline of a phase; row (may be NULL) is written with status timeout if it hangs. */
static void wd_begin(struct bench *b, const char *label, const struct hx_csv_row *row) {
  pthread_mutex_lock(&b->wd_mu);
  snprintf(b->wd_label, sizeof(b->wd_label), "%s", label);
  b->wd_row_ok = row != NULL;
  if (row) b->wd_row = *row;
  for (int r = 0; r < b->n; r++) atomic_store(&b->done[r], 0);
  b->wd_t0 = now_s();
  b->wd_active = 1;
  pthread_mutex_unlock(&b->wd_mu);
}

/* Ends the deadline of the current phase. */
static void wd_end(struct bench *b) {
  pthread_mutex_lock(&b->wd_mu);
  b->wd_active = 0;
  pthread_mutex_unlock(&b->wd_mu);
}

/* The monitor thread: names the phase and the ranks that did not finish, keeps the CSV,
 * exits 1 (hung GPU work cannot be cancelled). */
static void *wd_main(void *arg) {
  struct bench *b = arg;
  for (;;) {
    usleep(50 * 1000);
    pthread_mutex_lock(&b->wd_mu);
    if (b->wd_stop) {
      pthread_mutex_unlock(&b->wd_mu);
      return NULL;
    }
    if (b->wd_active && now_s() - b->wd_t0 > b->o->timeout_s) {
      char ranks[256] = "";
      size_t len = 0;
      for (int r = 0; r < b->n; r++)
        if (!atomic_load(&b->done[r]) && len < sizeof(ranks) - 8)
          len += (size_t)snprintf(ranks + len, sizeof(ranks) - len, " %d", r);
      fflush(stdout);
      fprintf(stderr,
              "arbench: timeout: %s did not finish within %d s (-T); ranks not finished:%s\n",
              b->wd_label, b->o->timeout_s, len ? ranks : " (none: stuck on the host)");
      printf("# timeout: %s; ranks not finished:%s\n", b->wd_label, len ? ranks : " none");
      fflush(stdout);
      if (b->wd_row_ok) {
        char ts[32];
        b->wd_row.timestamp = hx_utc_iso(ts, sizeof(ts));
        b->wd_row.status = "timeout";
        hx_csv_append(b->cfg->csv, &b->wd_row);
      }
      fflush(NULL);
      _exit(1);
    }
    pthread_mutex_unlock(&b->wd_mu);
  }
}

/* ---- per-rank setup and teardown ---- */

/* Device, peer access, stream, events, communicator and buffers of one rank; 0 or 1. */
static int rank_init(struct rank *R) {
  struct bench *b = R->b;
  int err = 0, n = b->n;
  if (RK_CUDA(R, cudaSetDevice(R->dev))) return 1;
  for (int q = 0; q < n; q++) {
    if (q == R->rank || b->rk[q].dev == R->dev) continue; /* co-located: plain device copies */
    int can = 0;
    if (RK_CUDA(R, cudaDeviceCanAccessPeer(&can, R->dev, b->rk[q].dev))) return 1;
    if (!can) {
      ar_log(AR_LOG_WARN, "rank %d: GPU %d cannot access GPU %d directly", R->rank, R->dev,
             b->rk[q].dev);
      continue;
    }
    cudaError_t e = cudaDeviceEnablePeerAccess(b->rk[q].dev, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();
    else if (RK_CUDA(R, e)) return 1;
  }
  err |= RK_CUDA(R, cudaStreamCreateWithFlags(&R->stream, cudaStreamNonBlocking));
  err |= RK_CUDA(R, cudaEventCreateWithFlags(&R->ready, cudaEventDisableTiming));
  err |= RK_CUDA(R, cudaEventCreateWithFlags(&R->finished, cudaEventDisableTiming));
  R->start = calloc((size_t)b->o->iters, sizeof(cudaEvent_t));
  R->end = calloc((size_t)b->o->iters, sizeof(cudaEvent_t));
  if (!R->start || !R->end) return rank_fail(R, "rank %d: out of host memory", R->rank);
  for (int i = 0; i < b->o->iters && !err; i++) {
    err |= RK_CUDA(R, cudaEventCreate(&R->start[i]));
    err |= RK_CUDA(R, cudaEventCreate(&R->end[i]));
  }
  err |= RK_CUDA(R, cudaMalloc((void **)&R->d_wrong, (size_t)b->total * sizeof(*R->d_wrong)));
  err |= RK_CUDA(R, cudaMalloc((void **)&R->d_expired, sizeof(*R->d_expired)));
  /* load the harness's kernels now, while nothing spins (see job_run) */
  err |= RK_AR(R, ar_fill_launch(R->d_wrong, 0, b->o->dtype, R->rank, 0, R->stream));
  err |= RK_AR(R, ar_check_launch(R->d_wrong, 0, b->o->dtype, n, 0, R->d_wrong, R->stream));
  err |= RK_AR(R, ar_delay_launch(0.001, R->stream));
  err |= RK_AR(R, ar_gate_launch(b->gate_host, 0, 1e3, R->d_expired, R->stream));
  err |= RK_CUDA(R, cudaStreamSynchronize(R->stream));
  if (err) return 1;
  /* the delay kernel's fixed cost on this device, taken off every delay (delay.h) */
  double bias = 0;
  if (ar_delay_calibrate(R->stream, &bias) == AR_OK)
    ar_log(AR_LOG_INFO, "rank %d: delay kernel fixed cost %.2f us (subtracted from delays)",
           R->rank, bias);
  if (RK_CUDA(R, cudaGetLastError())) return 1;
  /* the communicator before the big buffer, so NCCL gets its memory first; NCCL refuses two
   * ranks on one GPU, so co-located runs have none (their nccl rows are n/a) */
  if (!b->colocated && RK_NCCL(R, ncclCommInitRank(&R->comm, n, b->id, R->rank))) return 1;
  /* the largest size; if it does not fit, halve: bigger sizes become oom rows */
  size_t want = 0;
  for (int s = 0; s < b->o->nsizes; s++) {
    size_t bytes = sweep_nelem(b->o->sizes[s], b->esize) * (size_t)b->esize;
    if (bytes > want) want = bytes;
  }
  for (size_t sz = want; sz >= (size_t)b->esize; sz = sz / 2 / b->esize * b->esize) {
    if (cudaMalloc(&R->data, sz) == cudaSuccess) {
      R->cap = sz;
      break;
    }
    cudaGetLastError(); /* an allocation failure is not sticky */
    R->data = NULL;
  }
  if (R->cap < want)
    ar_log(AR_LOG_WARN, "rank %d: data buffer of %zu bytes did not fit; using %zu", R->rank,
           want, R->cap);
  return 0;
}

/* Destroys what rank_init made (whatever part of it exists). */
static void rank_free(struct rank *R) {
  struct bench *b = R->b;
  cudaSetDevice(R->dev);
  if (R->comm) ncclCommDestroy(R->comm);
  for (int i = 0; R->start && i < b->o->iters; i++) {
    if (R->start[i]) cudaEventDestroy(R->start[i]);
    if (R->end[i]) cudaEventDestroy(R->end[i]);
  }
  free(R->start);
  free(R->end);
  if (R->ready) cudaEventDestroy(R->ready);
  if (R->finished) cudaEventDestroy(R->finished);
  cudaFree(R->data);
  cudaFree(R->d_wrong);
  cudaFree(R->d_expired);
  hx_phase_rank_free(&R->ph);
  if (R->stream) cudaStreamDestroy(R->stream);
}

/* ---- rows ---- */

/* Writes v with 3 decimals, trailing zeros (and a bare point) dropped, into buf; returns buf. */
static char *num_text(char *buf, size_t len, double v) {
  snprintf(buf, len, "%.3f", v);
  if (strchr(buf, '.')) {
    size_t k = strlen(buf);
    while (k > 0 && buf[k - 1] == '0') buf[--k] = 0;
    if (k > 0 && buf[k - 1] == '.') buf[--k] = 0;
  }
  return buf;
}

/* Rank 0: the current job's `stragglers` and `degraded` columns into b->st_text and
 * b->dg_text: every straggler as RANK:DELAY (us, the mean over the timed iterations, as
 * delay_us) and every degraded GPU as RANK:FACTOR, in the order given, joined by ';'. The
 * SPEC columns straggler_rank and degraded_rank name only the first of each. */
static void row_lists(struct bench *b) {
  const struct run_opts *o = b->o;
  size_t k = 0;
  char v[48];
  b->st_text[0] = b->dg_text[0] = 0;
  for (int s = 0; s < o->nst && k < sizeof(b->st_text); s++) {
    double sum = 0;
    for (int it = o->warmup; it < b->total; it++) sum += b->delays[s * b->total + it];
    k += (size_t)snprintf(b->st_text + k, sizeof(b->st_text) - k, "%s%d:%s", s ? ";" : "",
                          o->st[s].rank, num_text(v, sizeof(v), sum / o->iters));
  }
  k = 0;
  for (int g = 0; g < o->dg.n && k < sizeof(b->dg_text); g++)
    k += (size_t)snprintf(b->dg_text + k, sizeof(b->dg_text) - k, "%s%d:%g", g ? ";" : "",
                          o->dg.rank[g], o->dg.factor[g]);
}

/* The CSV row of the current job with every measured field empty. */
static void row_base(struct bench *b, struct hx_csv_row *row, char *ts, size_t tslen) {
  const struct hx_meta *m = b->cfg->meta;
  const struct job *J = &b->job;
  memset(row, 0, sizeof(*row));
  row->run_id = b->cfg->run_id;
  row->timestamp = hx_utc_iso(ts, tslen);
  row->host = m->host;
  row->gpu = m->gpu;
  row->n_gpus = b->n;
  row->driver = m->driver;
  row->cuda = m->cuda;
  row->nccl = m->nccl;
  row->source = "gpu";
  row->algorithm = J->algo->name;
  row->transport = J->d->tname;
  row->pipeline = J->tp ? J->pipeline_used : 1; /* the count used (--pipeline 0: chosen) */
  if (J->tp && (J->algo->flags & AR_ALGO_DEGRADE_AWARE)) /* OPTCC: the k segments it built */
    row->pipeline = b->sched[J->d->algo_idx].segments;
  row->dtype = sweep_dtype_name(b->o->dtype);
  row->bytes = J->bytes;
  row->straggler_rank = b->o->nst ? b->o->st[0].rank : -1;
  row->delay_us = 0;
  row->degraded_rank = b->o->dg.n ? b->o->dg.rank[0] : -1;
  row->factor = b->o->dg.n ? b->o->dg.factor[0] : 1;
  row->iters = b->o->iters;
  row->t.n = 0;
  row->time_after_arrival_us = row->algbw_gbps = row->busbw_gbps = row->model_time_us = NAN;
  row->wrong = -1;
  row->status = "error";
  row->lower_bound_us = sweep_lower_bound_us(b->o, b->n, J->bytes); /* NaN unless degraded */
  row->scenario = b->o->scenario; /* empty for a plain command line */
  row_lists(b);
  row->stragglers = b->st_text;
  row->degraded = b->dg_text;
  row->placement = b->placement;
  row->settings = b->settings;
}

/* Prints the stdout table's header. */
static void table_header(struct bench *b) {
  if (b->colocated)
    printf("#\n# co-located ranks (%s): these timings measure one GPU's memory system, not "
           "NVLink;\n# use them for correctness and smoke runs, not to compare algorithms\n",
           b->placement);
  printf("#\n#%12s %12s %8s %12s %10s %10s %8s %8s %7s %7s%s\n", "size", "count", "type",
         "algorithm", "transport", "time", "algbw", "busbw", "#wrong", "status",
         b->o->nst ? "      delay      after" : "");
  printf("#%12s %12s %8s %12s %10s %10s %8s %8s %7s %7s%s\n", "(B)", "(elements)", "", "", "",
         "(us)", "(GB/s)", "(GB/s)", "", "", b->o->nst ? "       (us)       (us)" : "");
  fflush(stdout);
}

/* Prints one table line for a row. */
static void table_row(struct bench *b, const struct hx_csv_row *row) {
  char wrong[32] = "-";
  if (row->wrong >= 0) snprintf(wrong, sizeof(wrong), "%lld", row->wrong);
  printf(" %12llu %12zu %8s %12s %10s", (unsigned long long)row->bytes, b->job.nelem, row->dtype,
         row->algorithm, row->transport);
  if (row->t.n > 0)
    printf(" %10.2f %8.2f %8.2f", row->t.median, row->algbw_gbps, row->busbw_gbps);
  else
    printf(" %10s %8s %8s", "-", "-", "-");
  printf(" %7s %7s", wrong, row->status);
  if (b->o->nst && row->t.n > 0) printf(" %10.1f %10.2f", row->delay_us, row->time_after_arrival_us);
  printf("\n");
  fflush(stdout);
}

/* Rank 0: shows the progress line for the row about to start (see struct hx_progress). */
static void progress_show(struct bench *b, const char *label) {
  struct hx_progress *p = b->cfg->progress;
  if (!p || !p->on) return;
  double now = now_s();
  if (!p->tty && p->done > 0 && now - p->last < 10) return;
  char line[512], lab[400];
  snprintf(lab, sizeof(lab), "%s%s%s", b->o->scenario, b->o->scenario[0] ? ": " : "", label);
  hx_progress_format(line, sizeof(line), p, now, lab);
  if (p->tty) fprintf(stderr, "\r%-119.119s", line);
  else fprintf(stderr, "%s\n", line);
  p->last = now;
}

/* Clears a terminal's progress line before stdout writes over it. */
static void progress_clear(struct bench *b) {
  struct hx_progress *p = b->cfg->progress;
  if (p && p->on && p->tty) fprintf(stderr, "\r%119s\r", "");
}

/* ---- one job: prepared and finished by rank 0, measured by all ---- */

/* Index of a transport name in the options (the native algorithm uses the spare last slot). */
static int transport_slot(struct bench *b, const char *name) {
  for (int t = 0; t < b->o->ntransports; t++)
    if (!strcmp(b->o->transports[t], name)) return t;
  return HX_MAX_TRANSPORTS;
}

/* The inputs' seed of the next job's first iteration: a counter over the whole process (every
 * scenario of a run), so that no two iterations of a run share their inputs. Rank 0's thread
 * only (job_prepare). */
static unsigned long long seed_next = 1;

/* The job runs NCCL's own AllReduce. */
static int native_job(const struct job *J) { return (J->algo->flags & AR_ALGO_NATIVE) != 0; }

/* Rank 0: resolves a job (schedule, memory, transport setup) into b->job. */
static void job_prepare(struct bench *b, const struct job_desc *d) {
  const struct run_opts *o = b->o;
  struct job *J = &b->job;
  memset(J, 0, sizeof(*J));
  J->pipeline_used = o->pipeline;
  J->index = d->size_idx; /* uniform delay draws depend on the size only: fair to every algorithm */
  J->d = d;
  J->algo = o->algos[J->d->algo_idx];
  J->nelem = sweep_nelem(o->sizes[J->d->size_idx], b->esize);
  J->bytes = (uint64_t)J->nelem * (uint64_t)b->esize;
  J->state = JOB_RUN;
  J->seed0 = seed_next;
  seed_next += (unsigned long long)b->total;
  sweep_size_schedule(o, b->n, d->algo_idx, J->bytes, &b->sched[d->algo_idx],
                      &b->sched_st[d->algo_idx], &b->sched_k[d->algo_idx]); /* OPTCC's k */
  /* every straggler's delay of every iteration, before the row (its stragglers column) */
  for (int k = 0; k < o->nst; k++)
    for (int it = 0; it < b->total; it++)
      b->delays[k * b->total + it] =
          k == 0 && d->delay_us >= 0 ? d->delay_us : sweep_delay_us(o, k, J->index, it);

  char label[256], ts[32], dl[48] = "";
  if (d->delay_us >= 0) snprintf(dl, sizeof(dl), ", delay %.1f ms", d->delay_us / 1000);
  snprintf(label, sizeof(label), "size %llu B, algorithm %s, transport %s%s",
           (unsigned long long)J->bytes, J->algo->name, J->d->tname, dl);
  struct hx_csv_row row;
  row_base(b, &row, ts, sizeof(ts));
  wd_begin(b, label, &row);
  ar_log(AR_LOG_INFO, "job %d: %s", b->cfg->progress ? b->cfg->progress->done + 1 : 0, label);
  progress_show(b, label);

  const char *na = sweep_row_na(o, J->d->algo_idx, b->sched, b->sched_st);
  if (na) {
    ar_status st = b->sched_st[J->d->algo_idx];
    J->state = st == AR_ERR_UNSUPPORTED ? JOB_NA : JOB_ERROR;
    snprintf(J->reason, sizeof(J->reason), "%s", na);
    return;
  }
  if (b->colocated && (native_job(J) || !strcmp(J->d->tname, "nccl-p2p"))) {
    J->state = JOB_NA;
    snprintf(J->reason, sizeof(J->reason), "NCCL cannot run two ranks on one GPU (%s)",
             b->placement);
    return;
  }
  if (J->bytes > b->cap) {
    J->state = JOB_OOM;
    snprintf(J->reason, sizeof(J->reason), "%llu bytes do not fit the data buffer (%zu)",
             (unsigned long long)J->bytes, b->cap);
    return;
  }
  if (!(J->algo->flags & AR_ALGO_NATIVE)) {
    J->tp = tp_find(J->d->tname);
    if (!J->tp) {
      J->state = JOB_ERROR;
      snprintf(J->reason, sizeof(J->reason), "no transport named %s", J->d->tname);
      return;
    }
    struct tp_job tj = {.sched = &b->sched[J->d->algo_idx], .nelem = J->nelem,
                        .dtype = o->dtype, .pipeline = o->pipeline,
                        .pipeline_used = &J->pipeline_used,
                        .marks = o->phases ? (struct tp_marks *const *)b->marks : NULL};
    tj.degrade.n = o->dg.n; /* degraded-link emulation (transport.h); 0: healthy */
    tj.degrade.bw = o->degrade_bw;
    for (int g = 0; g < o->dg.n; g++) {
      tj.degrade.rank[g] = o->dg.rank[g];
      tj.degrade.factor[g] = o->dg.factor[g];
    }
    b->world.data_bytes = b->cap;
    ar_status st = J->tp->setup(&b->world, &tj, &J->ctx, J->reason, sizeof(J->reason));
    cudaSetDevice(b->rk[0].dev); /* setup may have moved this thread to another device */
    if (st != AR_OK) {
      J->ctx = NULL;
      J->state = st == AR_ERR_UNSUPPORTED ? JOB_NA : st == AR_ERR_OOM ? JOB_OOM : JOB_ERROR;
      if (!J->reason[0]) snprintf(J->reason, sizeof(J->reason), "setup: %s", ar_status_str(st));
    }
  }
  /* --profile: every GPU is idle and the setup's own copies are done */
  if (J->state == JOB_RUN && o->profile) J->profiling = hx_profile_begin((unsigned)o->profile) == 0;
}

/* Rank 0: writes every timed iteration's delays and time of the finished job to delays.csv. */
static void write_delays(struct bench *b, const double *t) {
  FILE *f = b->cfg->delays_csv;
  const struct job *J = &b->job;
  if (!f || !t) return;
  for (int i = 0; i < b->o->iters; i++)
    for (int k = 0; k < b->o->nst; k++) {
      hx_csv_field(f, b->o->scenario);
      fputc(',', f);
      hx_csv_field(f, J->algo->name);
      fprintf(f, ",%s,%llu,%d,%d,%.3f,%.3f\n", J->d->tname, (unsigned long long)J->bytes, i,
              b->o->st[k].rank, b->delays[k * b->total + b->o->warmup + i], t[i]);
    }
  fflush(f);
}

/* Rank 0: writes every rank's phases of the job's last timed iteration to phases.csv. */
static void write_phases(struct bench *b) {
  const struct job *J = &b->job;
  const struct hx_phase_rank *ph[HX_MAX_DEVS];
  double dmax = 0;
  if (!b->cfg->phases_csv) return;
  for (int r = 0; r < b->n; r++) ph[r] = &b->rk[r].ph;
  for (int k = 0; k < b->o->nst; k++) dmax = fmax(dmax, b->delays[(k + 1) * b->total - 1]);
  struct hx_phase_job pj = {b->cfg->run_id, b->o->scenario, J->algo->name, J->d->tname,
                            J->bytes, b->o->iters - 1, dmax};
  if (hx_phase_write(b->cfg->phases_csv, &pj, ph, b->n))
    ar_log(AR_LOG_WARN, "could not write phases.csv");
}

/* Rank 0, every rank idle: --profile's figures of the finished job into the row's overlap
 * columns and overlap.csv, and with timeline its records into timeline.csv (nothing when the
 * job was not profiled or CUPTI failed). */
static void job_overlap(struct bench *b, struct hx_csv_row *row) {
  struct job *J = &b->job;
  struct hx_overlap ov[HX_MAX_DEVS];
  if (!J->profiling) return;
  J->profiling = 0;
  /* a rank failed: the process ends at once (a flush could wait on a faulted GPU) */
  for (int r = 0; r < b->n; r++)
    if (b->rk[r].err[0]) return;
  if (hx_profile_end(b->cfg->dev, b->n, b->total, ov)) return;
  row->profiled = 1;
  hx_overlap_mean(ov, b->n, &row->overlap_reduce_pct, &row->overlap_delay_pct);
  struct hx_overlap_job oj = {b->cfg->run_id, J->algo->name, J->d->tname, b->o->scenario,
                              J->bytes, b->total};
  if (hx_overlap_write(b->overlap_csv, &oj, ov, b->n))
    ar_log(AR_LOG_WARN, "could not write overlap.csv");
  if (hx_profile_timeline(b->timeline_csv, &oj, b->cfg->dev, b->n))
    ar_log(AR_LOG_WARN, "could not write timeline.csv");
}

/* Rank 0, every rank idle: statistics, check results, the row; ends the process on a fault. */
static void job_finish(struct bench *b) {
  const struct run_opts *o = b->o;
  struct job *J = &b->job;
  char ts[32];
  struct hx_csv_row row;
  row_base(b, &row, ts, sizeof(ts));
  int fatal = 0;
  progress_clear(b);
  job_overlap(b, &row); /* CUPTI stops recording here, whatever becomes of the row */
  if (J->state == JOB_RUN) {
    for (int r = 0; r < b->n; r++)
      if (b->rk[r].err[0]) {
        fprintf(stderr, "arbench: %s (size %llu B, %s/%s)\n", b->rk[r].err,
                (unsigned long long)J->bytes, J->algo->name, J->d->tname);
        fatal = 1;
      }
  }
  if (J->state == JOB_RUN && !fatal) {
    int it = o->iters, w = o->warmup;
    double *t = malloc((size_t)it * sizeof(double)), *after = malloc((size_t)it * sizeof(double));
    double delay_sum = 0;
    long long worst = 0;
    int worst_it = -1, nbad = 0; /* iterations counted over warm-up and timed ones */
    for (int i = 0; i < it; i++) {
      double tmax = 0, dmax = 0;
      for (int r = 0; r < b->n; r++) tmax = fmax(tmax, b->times[r * it + i]);
      for (int k = 0; k < o->nst; k++) dmax = fmax(dmax, b->delays[k * b->total + w + i]);
      if (t) t[i] = tmax;
      if (after) after[i] = tmax - dmax;
      delay_sum += dmax;
    }
    for (int i = 0; i < b->total; i++) { /* a wrong warm-up fails the row as well */
      long long wr = 0;
      for (int r = 0; r < b->n; r++) wr += (long long)b->wrong[r * b->total + i];
      nbad += wr > 0;
      if (wr > worst) worst = wr, worst_it = i;
    }
    write_delays(b, t);
    write_phases(b);
    struct hx_stats sa;
    if (!t || !after || hx_stats_compute(t, it, &row.t) || hx_stats_compute(after, it, &sa)) {
      fprintf(stderr, "arbench: out of host memory\n");
      fatal = 1;
    } else {
      row.delay_us = delay_sum / it;
      row.time_after_arrival_us = sa.median;
      row.algbw_gbps = hx_algbw((double)J->bytes, row.t.median);
      row.busbw_gbps = hx_busbw(row.algbw_gbps, b->n);
      row.wrong = o->check ? worst : -1;
      row.status = worst > 0 ? "error" : "ok";
      if (worst > 0) {
        b->failed = 1;
        fprintf(stderr, "arbench: %s/%s size %llu B: %lld wrong elements in %s iteration %d "
                "(%d of %d iterations wrong, warm-up included):", J->algo->name, J->d->tname,
                (unsigned long long)J->bytes, worst, worst_it < w ? "warm-up" : "timed",
                worst_it < w ? worst_it : worst_it - w, nbad, b->total);
        for (int r = 0; r < b->n; r++)
          fprintf(stderr, " rank %d: %llu", r, b->wrong[r * b->total + worst_it]);
        fprintf(stderr, "\n");
      }
      for (int r = 0; r < b->n; r++)
        if (b->expired[r])
          ar_log(AR_LOG_WARN, "rank %d: %u launch gates timed out (%s/%s, %llu B): host enqueue "
                 "was slow; those iterations may include launch overhead", r, b->expired[r],
                 J->algo->name, J->d->tname, (unsigned long long)J->bytes);
    }
    free(t);
    free(after);
  } else if (J->state == JOB_NA) {
    row.status = "n/a";
    int slot = transport_slot(b, J->d->tname);
    if (!b->na_said[J->d->algo_idx][slot]) {
      b->na_said[J->d->algo_idx][slot] = 1;
      printf("n/a: %s (%s): %s\n", J->algo->name, J->d->tname, J->reason);
    }
  } else if (J->state == JOB_OOM) {
    row.status = "oom";
    ar_log(AR_LOG_INFO, "oom: %s/%s: %s", J->algo->name, J->d->tname, J->reason);
  } else {
    row.status = "error";
    b->failed = 1;
    fprintf(stderr, "arbench: %s/%s size %llu B: %s\n", J->algo->name, J->d->tname,
            (unsigned long long)J->bytes, J->reason);
  }
  if (fatal) row.status = "error";
  if (J->ctx && !fatal) J->tp->teardown(J->ctx); /* a faulted GPU could block a cudaFree */
  J->ctx = NULL;
  if (hx_csv_append(b->cfg->csv, &row)) ar_log(AR_LOG_WARN, "could not write results.csv");
  if (row.t.n > 0 || J->state == JOB_OOM || J->state == JOB_ERROR || fatal) table_row(b, &row);
  double est = J->state == JOB_RUN ? sweep_row_seconds(o, J->bytes, row.delay_us) : 0;
  if (b->cfg->progress) {
    b->cfg->progress->done++;
    b->cfg->progress->done_s += est;
  }
  if (b->crit.on) { /* the search decides on the median of ok rows only */
    crit_feed(&b->crit.cs, !fatal && !strcmp(row.status, "ok") ? row.t.median : NAN);
    b->crit.rows++;
    b->crit.seconds += est;
  }
  if (fatal) { /* the GPUs may be in any state: keep what was measured and stop */
    fflush(NULL);
    _exit(1);
  }
  wd_end(b);
}

/* Every rank: warm-up and timed iterations of the current job, then the results. 0 or 1. */
static int job_run(struct rank *R) {
  struct bench *b = R->b;
  const struct run_opts *o = b->o;
  struct job *J = &b->job;
  int err = 0, n = b->n, native = (J->algo->flags & AR_ALGO_NATIVE) != 0;
  cudaStream_t s = R->stream;
  err |= RK_CUDA(R, cudaSetDevice(R->dev));
  if (J->tp && !err) /* --phases: the rounds' marks (nothing without it) */
    err |= RK_CUDA(R, hx_phase_job_rounds(&R->ph, b->sched[J->d->algo_idx].nrounds));
  err |= RK_CUDA(R, cudaMemsetAsync(R->d_wrong, 0, (size_t)b->total * sizeof(*R->d_wrong), s));
  err |= RK_CUDA(R, cudaMemsetAsync(R->d_expired, 0, sizeof(*R->d_expired), s));
  double gate_us = fmin(o->timeout_s, 30) * 1e6;
  int it;
  for (it = 0; it < b->total; it++) {
    int timed = it >= o->warmup, i = it - o->warmup;
    /* a job's first iteration runs ungated: it may connect peers on the host and load
     * kernels lazily, and a lazy load can wait for a running kernel (the gate) to end */
    if (timed && it > 0 && !err)
      err |= RK_AR(R, ar_gate_launch(b->gate_host, R->gate_seq + 1, gate_us, R->d_expired, s));
    /* refill only once every rank is done with the last iteration: a peer may still be
     * reading this rank's data (its `finished` event was recorded before the last barrier) */
    for (int q = 0; q < n && !err; q++)
      if (q != R->rank) err |= RK_CUDA(R, cudaStreamWaitEvent(s, b->rk[q].finished, 0));
    if (!err) /* this iteration's own inputs (see the file comment) */
      err |= RK_AR(R, ar_fill_launch(R->data, J->nelem, o->dtype, R->rank, J->seed0 + it, s));
    if (!err) err |= RK_CUDA(R, cudaEventRecord(R->ready, s));
    if (barrier_wait(&b->bar, err)) break;
    hx_phase_iter_begin(&R->ph, timed, timed ? i : it, timed && it == b->total - 1);
    for (int q = 0; q < n && !err; q++)
      if (q != R->rank) err |= RK_CUDA(R, cudaStreamWaitEvent(s, b->rk[q].ready, 0));
    if (timed && !err) err |= RK_CUDA(R, cudaEventRecord(R->start[i], s));
    if (R->straggler_k >= 0 && !err) {
      double delay = b->delays[R->straggler_k * b->total + it];
      err |= RK_CUDA(R, hx_phase_open(&R->ph, s, "delay %.0f us", delay));
      if (!err) err |= RK_AR(R, ar_delay_launch(delay, s));
      err |= RK_CUDA(R, hx_phase_close(&R->ph, s));
    }
    if (!err) /* the collective's range: the transport's rounds nest inside */
      err |= RK_CUDA(R, hx_phase_open(&R->ph, s, "allreduce %s%s%s", J->algo->name,
                                      native ? "" : "/", native ? "" : J->d->tname));
    if (!err) {
      if (native)
        err |= RK_NCCL(R, ncclAllReduce(R->data, R->data, J->nelem, nccl_type(o->dtype), ncclSum,
                                        R->comm, s));
      else {
        b->marks[R->rank] = hx_phase_marks(&R->ph); /* NULL but in a timed --phases iteration */
        err |= RK_AR(R, J->tp->enqueue(J->ctx, R->rank, s));
        b->marks[R->rank] = NULL;
      }
    }
    if (R->ph.sp) err |= RK_CUDA(R, hx_phase_close(&R->ph, s));
    if (timed && !err) err |= RK_CUDA(R, cudaEventRecord(R->end[i], s));
    if (o->check && !err)
      err |= RK_AR(R, ar_check_launch(R->data, J->nelem, o->dtype, n, J->seed0 + it,
                                      R->d_wrong + it, s));
    if (!err) err |= RK_CUDA(R, cudaEventRecord(R->finished, s));
    hx_phase_iter_end(&R->ph);
    if (barrier_wait(&b->bar, err)) break;
    if (timed) {
      R->gate_seq++;
      if (R->rank == 0) __atomic_store_n(b->gate_host, R->gate_seq, __ATOMIC_SEQ_CST);
    }
  }
  if (it < b->total) { /* someone failed: the gates stay shut, nothing more is enqueued */
    if (!err) rank_fail(R, "rank %d: stopped because another rank failed", R->rank);
    return 1;
  }
  if (RK_CUDA(R, cudaStreamSynchronize(s))) return 1;
  atomic_store(&b->done[R->rank], 1);
  for (int i = 0; i < o->iters; i++) {
    float ms = 0;
    err |= RK_CUDA(R, cudaEventElapsedTime(&ms, R->start[i], R->end[i]));
    b->times[R->rank * o->iters + i] = ms * 1e3;
  }
  if (R->ph.nev) err |= RK_CUDA(R, hx_phase_collect(&R->ph, R->start[o->iters - 1]));
  err |= RK_CUDA(R, cudaMemcpy(b->wrong + (size_t)R->rank * b->total, R->d_wrong,
                               (size_t)b->total * sizeof(*R->d_wrong), cudaMemcpyDeviceToHost));
  err |= RK_CUDA(R, cudaMemcpy(&b->expired[R->rank], R->d_expired, sizeof(unsigned),
                               cudaMemcpyDeviceToHost));
  return err;
}

static int next_job(struct bench *b);

/* A rank's thread: set up, walk every job in lockstep, tear down. */
static void *rank_main(void *arg) {
  struct rank *R = arg;
  struct bench *b = R->b;
  char name[16];
  snprintf(name, sizeof(name), "rank %d", R->rank);
  pthread_setname_np(pthread_self(), name);
  ar_nvtx_name_thread(name);
  int err = rank_init(R);
  if (!err) err = RK_CUDA(R, hx_phase_rank_init(&R->ph, b->o->phases));
  if (!err) ar_nvtx_name_stream(R->stream, name);
  if (err) fprintf(stderr, "arbench: %s (initialisation)\n", R->err); /* peers may hang now */
  else atomic_store(&b->done[R->rank], 1);
  if (barrier_wait(&b->bar, err)) {
    if (R->rank == 0) b->failed = 2;
    rank_free(R);
    return NULL;
  }
  if (R->rank == 0) {
    wd_end(b);
    b->cap = b->rk[0].cap;
    for (int r = 0; r < b->n; r++) {
      if (b->rk[r].cap < b->cap) b->cap = b->rk[r].cap;
      b->world.comm[r] = b->rk[r].comm;
      b->world.data[r] = b->rk[r].data;
    }
    b->world.data_bytes = b->cap;
    table_header(b);
  }
  for (;;) {
    if (R->rank == 0) b->have_job = next_job(b);
    barrier_wait(&b->bar, 0);
    if (!b->have_job) break;
    if (b->job.state == JOB_RUN) {
      const struct job *J = &b->job; /* the straggler takes no part in the precondition */
      const struct ar_schedule *sc = J->tp ? &b->sched[J->d->algo_idx] : NULL;
      hx_phase_job_begin(&R->ph, J->bytes, J->algo->name, J->d->tname,
                         sc && sc->straggler != R->rank ? sc->nprecond : 0);
      job_run(R);
      hx_phase_job_end(&R->ph);
    }
    barrier_wait(&b->bar, 0);
    if (R->rank == 0) job_finish(b);
  }
  barrier_wait(&b->bar, 0);
  rank_free(R);
  return NULL;
}

/* Builds each algorithm's schedule once (they do not depend on the size). */
static void build_schedules(struct bench *b) {
  sweep_build_schedules(b->o, b->n, b->sched, b->sched_st);
}

/* Rank 0: the critical-delay search's candidates (every algorithm on one side, on each
 * transport; nccl once) and the model's price of each schedule. */
static void crit_setup(struct bench *b) {
  const struct run_opts *o = b->o;
  struct crit_state *c = &b->crit;
  struct ar_params p;
  struct model_net net;
  args_fill_params(&p, b->n, o->st, o->nst, &o->dg, o->torus_ndims, o->torus);
  int have_net = model_net_init(&net, MODEL_SWITCH, &p) == AR_OK;
  c->on = 1;
  for (int a = 0; a < o->nalgos; a++) {
    int side = sweep_crit_side(o, a), native = (o->algos[a]->flags & AR_ALGO_NATIVE) != 0;
    if (side < 0) continue;
    int priced = !native && b->sched_st[a] == AR_OK && have_net &&
                 model_price_schedule(&b->sched[a], &net, &c->price[a]) == AR_OK;
    int na = sweep_row_na(o, a, b->sched, b->sched_st) != NULL;
    for (int t = 0; t < (native ? 1 : o->ntransports) && c->ncand < CRIT_MAX_CAND; t++) {
      c->cand_algo[c->ncand] = a;
      c->cand_tname[c->ncand] = native ? "nccl" : o->transports[t];
      c->cand_target[c->ncand] = side == 1;
      c->cand_price[c->ncand] = priced ? &c->price[a] : NULL;
      c->ncand++;
      if (na) c->dead++;
      else if (side == 1) c->live_t++;
      else c->live_b++;
    }
  }
}

/* A candidate's name for critical.csv: "nccl" or "algorithm/transport"; returns buf. */
static char *cand_label(const struct bench *b, int k, char *buf, size_t len) {
  const struct crit_state *c = &b->crit;
  const char *name = b->o->algos[c->cand_algo[k]]->name;
  if (!strcmp(c->cand_tname[k], "nccl")) snprintf(buf, len, "%s", name);
  else snprintf(buf, len, "%s/%s", name, c->cand_tname[k]);
  return buf;
}

/* A delay for critical.csv: "%.1f" when found, "inf" when never, else empty; returns buf. */
static char *crit_value(int outcome, double us, char *buf, size_t len) {
  if (outcome == CRIT_FOUND) snprintf(buf, len, "%.1f", us);
  else snprintf(buf, len, "%s", outcome == CRIT_NEVER ? "inf" : "");
  return buf;
}

/* Rank 0: one size's search is over: its line in critical.csv and on stdout, and the
 * progress estimate trimmed to what the search actually took. */
static void crit_report(struct bench *b) {
  const struct run_opts *o = b->o;
  struct crit_state *c = &b->crit;
  const struct crit_search *cs = &c->cs;
  uint64_t bytes = sweep_nelem(o->sizes[c->size], b->esize) * (uint64_t)b->esize;
  struct model_hw hw;
  double model_us;
  crit_model_hw(&hw);
  int mo = crit_model(c->cand_price, c->cand_target, c->ncand, &hw, (double)bytes,
                      o->crit_max_us, &model_us);
  char base[96] = "", tgt[96], cv[32], mv[32], note[512];
  snprintf(tgt, sizeof(tgt), "%s", o->crit_algo->name);
  if (cs->best_base >= 0) cand_label(b, cs->best_base, base, sizeof(base));
  if (cs->best_target >= 0) cand_label(b, cs->best_target, tgt, sizeof(tgt));
  const char *tname = cs->best_target >= 0 ? c->cand_tname[cs->best_target] : "";
  switch (cs->outcome) {
  case CRIT_FOUND:
    snprintf(note, sizeof(note), "%s %.1f us vs %s %.1f us at %.1f ms", tgt, cs->t_target, base,
             cs->t_base, cs->decided_at_us / 1000);
    break;
  case CRIT_NEVER:
    snprintf(note, sizeof(note), "did not win up to %.1f ms (%s %.1f us vs %s %.1f us there)",
             cs->decided_at_us / 1000, tgt, cs->t_target, base, cs->t_base);
    break;
  case CRIT_FAILED:
    snprintf(note, sizeof(note), "a row failed at delay %.1f ms", cs->decided_at_us / 1000);
    break;
  default: {
    int a = -1; /* the first algorithm of the missing side, for its reason */
    for (int k = 0; k < c->ncand && a < 0; k++)
      if (c->cand_target[k] == (cs->outcome == CRIT_NO_TARGET)) a = c->cand_algo[k];
    const char *why = a >= 0 ? sweep_row_na(o, a, b->sched, b->sched_st) : NULL;
    snprintf(note, sizeof(note), "no %s row could be measured at delay 0%s%s",
             cs->outcome == CRIT_NO_TARGET ? o->crit_algo->name : "baseline", why ? ": " : "",
             why ? why : " (see the n/a and error lines)");
  }
  }
  FILE *f = b->cfg->critical_csv;
  if (f) {
    fprintf(f, "%llu,", (unsigned long long)bytes);
    hx_csv_field(f, o->crit_algo->name);
    fputc(',', f);
    hx_csv_field(f, base);
    fprintf(f, ",%s,%s,%d,%d,%s,%s,%d,", crit_value(cs->outcome, cs->critical_us, cv, sizeof(cv)),
            crit_value(mo, model_us, mv, sizeof(mv)), b->n, o->st[0].rank, tname,
            crit_outcome_name(cs->outcome), cs->probes);
    hx_csv_field(f, o->scenario);
    fputc(',', f);
    hx_csv_field(f, note);
    fputc('\n', f);
    fflush(f);
  }
  progress_clear(b);
  printf("# critical delay, %llu B: %s%s; model %s%s; %s\n", (unsigned long long)bytes,
         cs->outcome == CRIT_FOUND ? cv : crit_outcome_name(cs->outcome),
         cs->outcome == CRIT_FOUND ? " us" : "", mo == CRIT_FOUND ? mv : crit_outcome_name(mo),
         mo == CRIT_FOUND ? " us" : "", note);
  fflush(stdout);
  struct hx_progress *p = b->cfg->progress;
  if (p) { /* the plan counted this size at its longest */
    int rows;
    double secs;
    sweep_crit_bound(o, bytes, c->live_t, c->live_b, c->dead, &rows, &secs);
    p->total -= rows - c->rows;
    p->total_s -= secs - c->seconds;
  }
}

/* Rank 0: prepares the next job into b->job; returns 0 when there is none left. */
static int next_job(struct bench *b) {
  if (!b->crit.on) {
    if (b->next >= b->njobs) return 0;
    job_prepare(b, &b->jobs[b->next++]);
    return 1;
  }
  struct crit_state *c = &b->crit;
  while (c->size < b->o->nsizes) {
    if (!c->started) {
      crit_init(&c->cs, c->ncand, c->cand_target, b->o->crit_max_us);
      c->started = 1;
      c->rows = 0;
      c->seconds = 0;
    }
    int k;
    double d;
    if (crit_next(&c->cs, &k, &d)) {
      c->desc = (struct job_desc){c->size, c->cand_algo[k], c->cand_tname[k], d};
      job_prepare(b, &c->desc);
      return 1;
    }
    crit_report(b);
    c->size++;
    c->started = 0;
  }
  return 0;
}

/* The jobs in order: size, then algorithm, then transport (one job for nccl). */
static int build_jobs(struct bench *b) {
  const struct run_opts *o = b->o;
  b->jobs = calloc((size_t)o->nsizes * o->nalgos * (o->ntransports + 1), sizeof(*b->jobs));
  if (!b->jobs) return -1;
  for (int s = 0; s < o->nsizes; s++)
    for (int a = 0; a < o->nalgos; a++) {
      if (o->algos[a]->flags & AR_ALGO_NATIVE) {
        b->jobs[b->njobs++] = (struct job_desc){s, a, "nccl", -1};
        continue;
      }
      for (int t = 0; t < o->ntransports; t++)
        b->jobs[b->njobs++] = (struct job_desc){s, a, o->transports[t], -1};
    }
  return 0;
}

/* The SMs each rank's waiting kernels may occupy (transport.h): its GPU's, shared evenly by
 * the ranks on it; 0, or -1 when a GPU cannot be asked. */
static int share_sms(struct bench *b) {
  for (int r = 0; r < b->n; r++) {
    int sms = 0;
    cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, b->rk[r].dev);
    if (e != cudaSuccess) {
      fprintf(stderr, "arbench: GPU %d: cudaDeviceGetAttribute: %s\n", b->rk[r].dev,
              cudaGetErrorString(e));
      return -1;
    }
    if (sms < b->cfg->place.share[r]) { /* a rank without an SM of its own could starve */
      fprintf(stderr, "arbench: GPU %d has %d SMs, fewer than the %d ranks placed on it "
              "(--gpus/--ranks)\n", b->rk[r].dev, sms, b->cfg->place.share[r]);
      return -1;
    }
    b->world.sms[r] = ar_place_sms(&b->cfg->place, r, sms);
  }
  return 0;
}

/* Prints the devices block that opens the table. */
static void print_devices(struct bench *b) {
  const struct run_opts *o = b->o;
  char detail[256];
  printf("# placement: %s (%s)", b->placement, ar_place_detail(&b->cfg->place, detail,
                                                              sizeof(detail)));
  if (b->colocated) {
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, b->rk[0].dev);
    printf("; each rank's waiting kernels on %d of GPU %d's %d SMs", b->world.sms[0],
           b->rk[0].dev, sms);
  }
  printf("\n");
  if (b->settings[0]) printf("# settings: %s (--set; the rest at their defaults)\n", b->settings);
  printf("# arbench: %d ranks, %s, sizes %llu..%llu B (%d), iters %d, warmup %d, check %d\n",
         b->n, sweep_dtype_name(o->dtype), (unsigned long long)o->sizes[0],
         (unsigned long long)o->sizes[o->nsizes - 1], o->nsizes, o->iters, o->warmup, o->check);
  printf("# driver %s, CUDA runtime %s, NCCL %s, run %s\n", b->cfg->meta->driver,
         b->cfg->meta->cuda, b->cfg->meta->nccl, b->cfg->run_id);
  for (int r = 0; r < b->n; r++) {
    struct cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, b->rk[r].dev) == cudaSuccess)
      printf("#  rank %2d device %2d [%04x:%02x:%02x] %s\n", r, b->rk[r].dev, p.pciDomainID,
             p.pciBusID, p.pciDeviceID, p.name);
  }
  fflush(stdout);
}

int hx_bench_run(const struct hx_bench_cfg *cfg) {
  struct bench *b = calloc(1, sizeof(*b));
  if (!b) return 1;
  const struct run_opts *o = cfg->o;
  b->cfg = cfg;
  b->o = o;
  b->n = cfg->n;
  b->total = o->warmup + o->iters;
  b->esize = sweep_dtype_size(o->dtype);
  b->bar.n = b->n;
  b->world.n = b->n;
  b->colocated = ar_place_colocated(&cfg->place);
  ar_place_text(&cfg->place, b->placement, sizeof(b->placement));
  ar_settings_text(&o->settings, b->settings, sizeof(b->settings));
  ar_settings_apply(&o->settings); /* what the lowering and the transports read */
  pthread_mutex_init(&b->wd_mu, NULL);
  setenv("NCCL_NVLS_ENABLE", "0", 1); /* NVLink multicast can take a shared host's GPUs down */
  int rc = 1;
  b->times = calloc((size_t)b->n * o->iters, sizeof(*b->times));
  b->wrong = calloc((size_t)b->n * b->total, sizeof(*b->wrong));
  b->delays = calloc((size_t)(o->nst ? o->nst : 1) * b->total, sizeof(*b->delays));
  if (!b->times || !b->wrong || !b->delays || build_jobs(b)) {
    fprintf(stderr, "arbench: out of host memory\n");
    goto out;
  }
  for (int r = 0; r < b->n; r++) {
    struct rank *R = &b->rk[r];
    R->b = b;
    R->rank = r;
    R->dev = cfg->dev[r];
    R->straggler_k = -1;
    for (int k = 0; k < o->nst; k++)
      if (o->st[k].rank == r) R->straggler_k = k;
    b->world.dev[r] = R->dev;
  }
  if (share_sms(b)) goto out;
  build_schedules(b);
  if (o->find_critical) crit_setup(b);
  if (o->profile && cfg->csv) b->overlap_csv = hx_overlap_csv(cfg->csv->path);
  if ((o->profile & HX_PROFILE_TIMELINE) && cfg->csv)
    b->timeline_csv = hx_timeline_csv(cfg->csv->path);
  print_devices(b);
  ncclResult_t nr = ncclGetUniqueId(&b->id);
  if (nr != ncclSuccess) {
    fprintf(stderr, "arbench: ncclGetUniqueId: %s\n", ncclGetErrorString(nr));
    goto out;
  }
  cudaError_t ce = cudaSetDevice(cfg->dev[0]);
  void *gate = NULL;
  if (ce == cudaSuccess)
    ce = cudaHostAlloc(&gate, sizeof(unsigned long long), cudaHostAllocMapped | cudaHostAllocPortable);
  if (ce != cudaSuccess) {
    fprintf(stderr, "arbench: GPU %d: cudaHostAlloc (launch gate): %s\n", cfg->dev[0],
            cudaGetErrorString(ce));
    goto out;
  }
  b->gate_host = gate;
  *b->gate_host = 0;
  for (int r = 0; r < b->n; r++) b->rk[r].gate_seq = 0;
  if (pthread_create(&b->wd_th, NULL, wd_main, b)) goto out;
  wd_begin(b, "initialisation (peer access, ncclCommInitRank, buffers)", NULL);
  int started = 0;
  for (int r = 0; r < b->n; r++, started++)
    if (pthread_create(&b->rk[r].th, NULL, rank_main, &b->rk[r])) {
      fprintf(stderr, "arbench: cannot start the thread of rank %d\n", r);
      fflush(NULL);
      _exit(1); /* the started threads wait in ncclCommInitRank for the missing one */
    }
  for (int r = 0; r < started; r++) pthread_join(b->rk[r].th, NULL);
  pthread_mutex_lock(&b->wd_mu);
  b->wd_stop = 1;
  pthread_mutex_unlock(&b->wd_mu);
  pthread_join(b->wd_th, NULL);
  progress_clear(b);
  rc = b->failed ? 1 : 0;
  cudaFreeHost(gate);
out:
  for (int a = 0; a < o->nalgos; a++) sched_free(&b->sched[a]);
  free(b->jobs);
  free(b->times);
  free(b->wrong);
  free(b->delays);
  free(b);
  return rc;
}

int hx_selftest_delay(int dev) {
  static const double req[] = {100, 1000, 8000};
  cudaStream_t s;
  struct cudaDeviceProp prop;
  cudaError_t e = cudaSetDevice(dev);
  if (e == cudaSuccess) e = cudaGetDeviceProperties(&prop, dev);
  if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  if (e != cudaSuccess) {
    fprintf(stderr, "arbench: self-test delay: GPU %d: %s\n", dev, cudaGetErrorString(e));
    return 1;
  }
  printf("# self-test delay on GPU %d (%s): CUDA events around the %%globaltimer spin kernel,\n"
         "# median of 20, the stream kept busy while the host enqueues (as in a timed "
         "iteration)\n", dev, prop.name);
  double bias = 0;
  int fail = ar_delay_calibrate(s, &bias) != AR_OK;
  printf("# fixed cost of a kernel between two events: %.2f us, subtracted from every delay%s\n",
         bias, fail ? " (calibration FAILED)" : "");
  printf("%12s %12s %10s %12s %7s\n", "requested_us", "measured_us", "error_%", "uncorr_us",
         "result");
  for (size_t i = 0; i < sizeof(req) / sizeof(req[0]); i++) {
    double m = 0, raw = 0;
    if (ar_delay_measure(req[i], 0, 20, s, &m) != AR_OK ||
        ar_delay_measure(req[i], 1, 20, s, &raw) != AR_OK) {
      fprintf(stderr, "arbench: self-test delay: GPU %d: the measurement failed\n", dev);
      fail = 1;
      break;
    }
    double err = 100 * (m - req[i]) / req[i];
    int ok = fabs(err) <= 1.0; /* SPEC.md s4: within 1% at >= 100 us */
    fail |= !ok;
    printf("%12.1f %12.2f %10.3f %12.2f %7s\n", req[i], m, err, raw, ok ? "pass" : "FAIL");
  }
  printf("self-test delay: %s\n", fail ? "FAIL" : "pass");
  fflush(stdout);
  cudaStreamDestroy(s);
  return fail;
}
