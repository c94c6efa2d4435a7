/* A simulated GPU machine for the harness's CPU tests (tests/test_sim.sh): the CUDA runtime,
 * NCCL, the harness kernels and the transports, replaced by stream clocks. Linked with the
 * real harness objects it makes `arbench-sim`, which runs `arbench run` end to end (threads,
 * barriers, jobs, the critical-delay search, the CSVs, plots/) with no GPU.
 *
 * Each stream has a clock (us). Recording an event stamps the clock; waiting on an event moves
 * the clock up to its stamp; the straggler's delay kernel adds the delay; a transport's
 * AllReduce adds the model's time (alpha 3 us, 450 GB/s: crit_model_hw), where a
 * straggler-aware schedule's precondition runs on the other ranks only. With the harness's
 * aligned start events and its max over ranks, an iteration then takes exactly the model's
 * max(delay, precondition) + the rest, so a search's answer must equal the model's.
 * Environment: AR_SIM_GPUS (default 4), AR_SIM_MEM (bytes one cudaMalloc may take; default
 * unlimited), AR_SIM_WRONG=ALGO (every check of that algorithm finds one wrong element),
 * AR_SIM_STALE=ALGO (that algorithm's transports read stale data on every odd iteration of a
 * row: the peers' inputs of the iteration before, as a scratch slot read before this
 * iteration's data landed would hold; see "data" below),
 * AR_SIM_SCALE=X (every transport's time times X: a regression to find), AR_SIM_NO_BW=1 (the
 * healthy bandwidth of --degrade cannot be measured), AR_SIM_ROUNDS=1 (the transports mark
 * their rounds for --phases, struct tp_marks: ce and nccl-p2p by events, sm by clock stamps in
 * "device" memory; the precondition's rounds split its time evenly, the other rounds the
 * rest's; without it no transport marks, and phases.csv has no round lines). Degraded jobs
 * are priced with the model's slow ports, and the healthy bandwidth "measured" is the model's.
 * The pipeline count a transport reports using (struct tp_job's pipeline_used): ce the one
 * asked for, or for 0 (and async-ring's 1) tp_prog.cu's rule on one chunk (8 MiB a batch, 1
 * to 8); sm and nccl-p2p 1.
 *
 * Data: buffers under 1 MiB are real memory (bigger ones are tokens: a sweep up to 8 GiB costs
 * nothing). On real buffers the harness kernels do what the GPU's do: the fill writes rank r's
 * inputs for the iteration's seed (cuda/inputs.h), the check counts the elements that differ
 * from the closed-form sums for its seed, and every AllReduce (transports and nccl) leaves
 * the sum of every rank's inputs in each rank's buffer: its own buffer plus the peers' inputs
 * for the seeds they last filled with (their buffers are not read: they may be summing too).
 * bf16 and fp16 are kept as 16-bit integers (the inputs and sums are small integers). */
#include <cuda_runtime.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>

#include "critical.h"
#include "cuda/delay.h"
#include "cuda/inputs.h"
#include "cuda/kernels.h"
#include "cuda/transport.h"
#include "model.h"
#include "nvtx.h"

struct CUstream_st {
  double clock;
};
struct CUevent_st {
  double t;
};
struct ncclComm {
  int rank, n;
};

static __thread int cur_dev;

/* ---- the CUDA runtime ---- */

cudaError_t cudaGetDeviceCount(int *count) {
  const char *e = getenv("AR_SIM_GPUS");
  *count = e ? atoi(e) : 4;
  return *count > 0 ? cudaSuccess : cudaErrorNoDevice;
}
cudaError_t cudaSetDevice(int device) {
  cur_dev = device;
  return cudaSuccess;
}
cudaError_t cudaDeviceCanAccessPeer(int *can, int a, int b) {
  *can = a != b;
  return cudaSuccess;
}
cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned flags) {
  (void)flags;
  return peer == cur_dev ? cudaErrorInvalidDevice : cudaSuccess; /* as CUDA: not to itself */
}
/* SMs per simulated GPU: AR_SIM_SMS (default 132, as an H100 SXM or H200) */
static int sim_sms(void) {
  const char *e = getenv("AR_SIM_SMS");
  return e && atoi(e) > 0 ? atoi(e) : 132;
}
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int dev) {
  memset(p, 0, sizeof(*p));
  snprintf(p->name, sizeof(p->name), "Simulated GPU");
  p->pciBusID = 0x10 + dev;
  p->multiProcessorCount = sim_sms();
  return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int *v, enum cudaDeviceAttr a, int dev) {
  (void)dev;
  *v = a == cudaDevAttrMultiProcessorCount ? sim_sms() : 0;
  return cudaSuccess;
}
cudaError_t cudaDriverGetVersion(int *v) {
  *v = 13000;
  return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int *v) {
  *v = 13000;
  return cudaSuccess;
}
const char *cudaGetErrorString(cudaError_t e) { return e ? "simulated error" : "no error"; }
cudaError_t cudaGetLastError(void) { return cudaSuccess; }
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags) {
  (void)flags;
  *s = calloc(1, sizeof(**s));
  return *s ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaStreamDestroy(cudaStream_t s) {
  free(s);
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  (void)s;
  return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t *e) {
  *e = calloc(1, sizeof(**e));
  return *e ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags) {
  (void)flags;
  return cudaEventCreate(e);
}
cudaError_t cudaEventDestroy(cudaEvent_t e) {
  free(e);
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  e->t = s->clock;
  return cudaSuccess;
}
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags) {
  (void)flags;
  if (e->t > s->clock) s->clock = e->t;
  return cudaSuccess;
}
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) {
  *ms = (float)((b->t - a->t) / 1000);
  return cudaSuccess;
}
/* The real allocations (pointer and bytes), so that the kernels know what they may touch. */
static struct {
  void *p;
  size_t bytes;
} sim_real[256];
static pthread_mutex_t sim_real_mu = PTHREAD_MUTEX_INITIALIZER;

/* Bytes of real memory at p (a pointer cudaMalloc returned), 0 for a token or unknown. */
static size_t sim_real_bytes(const void *p) {
  size_t bytes = 0;
  pthread_mutex_lock(&sim_real_mu);
  for (size_t k = 0; k < sizeof(sim_real) / sizeof(sim_real[0]) && p; k++)
    if (sim_real[k].p == p) bytes = sim_real[k].bytes;
  pthread_mutex_unlock(&sim_real_mu);
  return bytes;
}

/* Real memory for buffers under 1 MiB (the harness's own, small data buffers); a token for the
 * big data buffers. */
cudaError_t cudaMalloc(void **p, size_t bytes) {
  const char *cap = getenv("AR_SIM_MEM");
  if (cap && bytes > strtoull(cap, NULL, 10)) return cudaErrorMemoryAllocation;
  int real = bytes < (1u << 20);
  *p = calloc(1, real ? bytes : 1);
  if (!*p) return cudaErrorMemoryAllocation;
  pthread_mutex_lock(&sim_real_mu);
  for (size_t k = 0; k < sizeof(sim_real) / sizeof(sim_real[0]) && real; k++)
    if (!sim_real[k].p) { /* a full table leaves it a token: never touched */
      sim_real[k].p = *p;
      sim_real[k].bytes = bytes;
      break;
    }
  pthread_mutex_unlock(&sim_real_mu);
  return cudaSuccess;
}
cudaError_t cudaFree(void *p) {
  pthread_mutex_lock(&sim_real_mu);
  for (size_t k = 0; k < sizeof(sim_real) / sizeof(sim_real[0]) && p; k++)
    if (sim_real[k].p == p) sim_real[k].p = NULL;
  pthread_mutex_unlock(&sim_real_mu);
  free(p);
  return cudaSuccess;
}
cudaError_t cudaHostAlloc(void **p, size_t bytes, unsigned flags) {
  (void)flags;
  *p = calloc(1, bytes);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaFreeHost(void *p) {
  free(p);
  return cudaSuccess;
}
cudaError_t cudaMemset(void *p, int v, size_t bytes) {
  memset(p, v, bytes);
  return cudaSuccess;
}
cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }
cudaError_t cudaMemsetAsync(void *p, int v, size_t bytes, cudaStream_t s) {
  (void)s;
  memset(p, v, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind k) {
  (void)k;
  memcpy(dst, src, bytes);
  return cudaSuccess;
}

/* ---- data: inputs, sums and checks on the real buffers ---- */

/* The seeds of each rank's last two fills (cur: this iteration's; prev: the one before). A
 * rank's fill comes before the harness's barrier and the peers read them after it. */
static unsigned long long sim_seed_cur[AR_MAX_GPUS], sim_seed_prev[AR_MAX_GPUS];

/* Element i of a buffer of dtype dt, as an int. */
static int sim_get(const void *d, int dt, size_t i) {
  return dt == AR_DT_F32 ? (int)((const float *)d)[i] : ((const int16_t *)d)[i];
}
/* Sets element i of a buffer of dtype dt to v. */
static void sim_put(void *d, int dt, size_t i, int v) {
  if (dt == AR_DT_F32) ((float *)d)[i] = (float)v;
  else ((int16_t *)d)[i] = (int16_t)v;
}
/* 1 when nelem elements of dtype dt at d are real memory the fake may touch. */
static int sim_touchable(const void *d, size_t nelem, int dt) {
  return nelem > 0 && nelem * ar_dtype_size(dt) <= sim_real_bytes(d);
}

/* Rank `rank`'s AllReduce of n ranks on its buffer d: its own inputs (in d) plus every peer's
 * inputs for the seed it last filled with, or with `stale` the seed before (what a transport
 * that reads a slot before this iteration's data landed would add). Nothing on a token. */
static void sim_allreduce(int rank, int n, void *d, size_t nelem, int dt, int stale) {
  if (!sim_touchable(d, nelem, dt) || n > AR_MAX_GPUS) return;
  uint64_t key[AR_MAX_GPUS];
  for (int q = 0; q < n; q++)
    key[q] = ar_input_key(q, stale ? sim_seed_prev[q] : sim_seed_cur[q]);
  for (size_t i = 0; i < nelem; i++) {
    int v = sim_get(d, dt, i);
    for (int q = 0; q < n; q++)
      if (q != rank) v += ar_input_at(key[q], i);
    sim_put(d, dt, i, v);
  }
}

/* ---- NCCL: the native AllReduce as a bulk-synchronous ring at 300 GB/s ---- */

ncclResult_t ncclGetVersion(int *v) {
  *v = 22803;
  return ncclSuccess;
}
const char *ncclGetErrorString(ncclResult_t r) { return r ? "simulated error" : "no error"; }
ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
  memset(id, 0, sizeof(*id));
  return ncclSuccess;
}
/* The device of each live communicator's rank: NCCL refuses two ranks on one GPU. */
static pthread_mutex_t comm_mu = PTHREAD_MUTEX_INITIALIZER;
static int comm_dev[64] = {[0 ... 63] = -1};
ncclResult_t ncclCommInitRank(ncclComm_t *c, int n, ncclUniqueId id, int rank) {
  (void)id;
  int dup = 0;
  pthread_mutex_lock(&comm_mu);
  for (int q = 0; q < 64 && rank >= 0 && rank < 64; q++) dup |= q != rank && comm_dev[q] == cur_dev;
  if (!dup && rank >= 0 && rank < 64) comm_dev[rank] = cur_dev;
  pthread_mutex_unlock(&comm_mu);
  if (dup) return ncclInvalidUsage;
  *c = calloc(1, sizeof(**c));
  (*c)->rank = rank;
  (*c)->n = n;
  return ncclSuccess;
}
ncclResult_t ncclCommDestroy(ncclComm_t c) {
  pthread_mutex_lock(&comm_mu);
  if (c && c->rank >= 0 && c->rank < 64) comm_dev[c->rank] = -1;
  pthread_mutex_unlock(&comm_mu);
  free(c);
  return ncclSuccess;
}
ncclResult_t ncclAllReduce(const void *a, void *b, size_t count, ncclDataType_t t,
                           ncclRedOp_t op, ncclComm_t c, cudaStream_t s) {
  (void)a, (void)op;
  int dt = t == ncclFloat32 ? AR_DT_F32 : t == ncclBfloat16 ? AR_DT_BF16 : AR_DT_F16;
  sim_allreduce(c->rank, c->n, b, count, dt, 0); /* in place: a == b */
  double bytes = count * 4.0;
  s->clock += 2.0 * (c->n - 1) * 5 + bytes * 2 * (c->n - 1) / c->n / 300e3;
  return ncclSuccess;
}

/* ---- the harness's kernels ---- */

static const char *wrong_algo; /* set by the transport's setup for AR_SIM_WRONG */

ar_status ar_fill_launch(void *d, size_t n, int dt, int rank, unsigned long long seed,
                         cudaStream_t s) {
  (void)s;
  if (n == 0 || rank < 0 || rank >= AR_MAX_GPUS) return AR_OK; /* loading the kernel */
  sim_seed_prev[rank] = sim_seed_cur[rank];
  sim_seed_cur[rank] = seed;
  if (!sim_touchable(d, n, dt)) return AR_OK;
  uint64_t key = ar_input_key(rank, seed);
  for (size_t i = 0; i < n; i++) sim_put(d, dt, i, ar_input_at(key, i));
  return AR_OK;
}
ar_status ar_check_launch(const void *d, size_t n, int dt, int nranks, unsigned long long seed,
                          unsigned long long *wrong, cudaStream_t s) {
  (void)s;
  if (nranks < 1 || nranks > AR_MAX_GPUS) return AR_ERR_INVALID;
  if (n > 0 && wrong_algo) *wrong += 1;
  if (!sim_touchable(d, n, dt)) return AR_OK;
  uint64_t key[AR_MAX_GPUS];
  for (int r = 0; r < nranks; r++) key[r] = ar_input_key(r, seed);
  for (size_t i = 0; i < n; i++) {
    int sum = 0;
    for (int r = 0; r < nranks; r++) sum += ar_input_at(key[r], i);
    *wrong += sim_get(d, dt, i) != sum;
  }
  return AR_OK;
}
ar_status ar_delay_launch(double us, cudaStream_t s) {
  if (us > 0) s->clock += us;
  return AR_OK;
}
ar_status ar_gate_launch(const volatile unsigned long long *flag, unsigned long long target,
                         double timeout_us, unsigned *expired, cudaStream_t s) {
  (void)flag, (void)target, (void)timeout_us, (void)expired, (void)s;
  return AR_OK;
}
ar_status ar_delay_calibrate(cudaStream_t s, double *bias_us) {
  (void)s;
  *bias_us = 0;
  return AR_OK;
}
ar_status ar_delay_measure(double us, int raw, int reps, cudaStream_t s, double *median_us) {
  (void)raw, (void)reps, (void)s;
  *median_us = us;
  return AR_OK;
}

/* ---- the transports: the model's times ---- */

enum { SIM_P2P, SIM_CE, SIM_SM }; /* the transport a context is for */

struct tp_ctx {
  double pre_us, main_us;
  int straggler, has_pre;
  int nrounds, nprecond; /* for the NVTX round ranges (tests/test_nvtx.sh) */
  int kind;              /* SIM_P2P, SIM_CE or SIM_SM */
  struct tp_marks *const *marks;
  unsigned char *part; /* [rank * nrounds + k]: the rank sends or receives in round k */
  int n, dtype, stale; /* stale: AR_SIM_STALE names this algorithm */
  size_t nelem;
  void *data[AR_MAX_GPUS];
  int calls[AR_MAX_GPUS]; /* enqueues per rank so far: the iteration of the row */
};

/* The mini-batches per transfer the transport of `kind` uses for job (see the file comment). */
static int sim_pipeline_used(int kind, const struct tp_job *job) {
  const struct ar_schedule *s = job->sched;
  if (kind != SIM_CE) return 1;
  if (job->pipeline > 0 && !((ar_sched_traits(s) & AR_TRAIT_PIPELINED) && job->pipeline == 1))
    return job->pipeline;
  double chunk = (double)job->nelem * ar_dtype_size(job->dtype) / (s->nchunks ? s->nchunks : 1);
  if (ar_sched_traits(s) & AR_TRAIT_PIPELINED) { /* the dataflow ring: ~256 MiB batches, 4..64 */
    int nb = (int)(chunk / (256 << 20));
    return nb < 4 ? 4 : nb > 64 ? 64 : nb;
  }
  int nb = (int)(chunk / (8 << 20));
  return nb < 1 ? 1 : nb > 8 ? 8 : nb;
}

static ar_status sim_setup(const struct tp_world *w, const struct tp_job *job,
                           struct tp_ctx **ctx, char *reason, size_t len, int kind) {
  const struct ar_schedule *s = job->sched;
  /* co-located ranks: their waiting kernels' SM shares must fit the GPU together, and no rank
   * may be left without one (transport.h's sms) */
  for (int r = 0; r < w->n; r++) {
    int sum = 0;
    for (int q = 0; q < w->n; q++) sum += w->dev[q] == w->dev[r] ? w->sms[q] : 0;
    if (w->sms[r] < 1 || sum > sim_sms()) {
      snprintf(reason, len, "simulated: GPU %d's ranks wait on %d SMs of %d (rank %d: %d)",
               w->dev[r], sum, sim_sms(), r, w->sms[r]);
      return AR_ERR_INVALID;
    }
  }
  if ((ar_sched_traits(s) & AR_TRAIT_PIPELINED) && w->n > 2) {
    snprintf(reason, len, "simulated: pipelined schedules are not simulated");
    return AR_ERR_UNSUPPORTED;
  }
  struct ar_params p;
  ar_params_init(&p, w->n);
  if (job->degrade.n && !(job->degrade.bw > 0)) {
    snprintf(reason, len, "degraded links: the healthy bandwidth is not known");
    return AR_ERR_UNSUPPORTED;
  }
  for (int i = 0; i < job->degrade.n; i++) { /* degraded links: the model's slow ports */
    p.degraded[p.ndegraded] = job->degrade.rank[i];
    p.factor[p.ndegraded++] = job->degrade.factor[i];
  }
  struct model_net net;
  struct model_price pr;
  struct model_hw hw;
  crit_model_hw(&hw);
  if (model_net_init(&net, MODEL_SWITCH, &p) != AR_OK ||
      model_price_schedule(s, &net, &pr) != AR_OK)
    return AR_ERR_INVALID;
  struct tp_ctx *c = calloc(1, sizeof(*c));
  if (!c) return AR_ERR_NOMEM;
  double bytes = (double)job->nelem * ar_dtype_size(job->dtype);
  const char *scale = getenv("AR_SIM_SCALE");
  double x = scale ? atof(scale) : 1;
  c->pre_us = x * model_cost_us(&pr.pre, &hw, bytes);
  c->main_us = x * model_cost_us(&pr.main, &hw, bytes);
  c->has_pre = pr.pre.rounds > 0;
  c->straggler = s->straggler;
  c->nrounds = s->nrounds;
  c->nprecond = s->nprecond;
  c->kind = kind;
  c->marks = job->marks;
  c->part = calloc((size_t)w->n * (s->nrounds ? s->nrounds : 1), 1);
  if (!c->part) {
    free(c);
    return AR_ERR_NOMEM;
  }
  for (size_t i = 0; i < s->nxfers; i++) {
    const struct ar_xfer *x = &s->xfers[i];
    c->part[(size_t)x->src * s->nrounds + x->round] = 1;
    c->part[(size_t)x->dst * s->nrounds + x->round] = 1;
  }
  if (job->pipeline_used) *job->pipeline_used = sim_pipeline_used(kind, job);
  const char *bad = getenv("AR_SIM_WRONG");
  wrong_algo = bad && !strcmp(bad, s->algo) ? bad : NULL;
  const char *stale = getenv("AR_SIM_STALE");
  c->stale = stale && !strcmp(stale, s->algo);
  c->n = w->n;
  c->dtype = job->dtype;
  c->nelem = job->nelem;
  for (int r = 0; r < w->n && r < AR_MAX_GPUS; r++) c->data[r] = w->data[r];
  *ctx = c;
  return AR_OK;
}

static ar_status sim_setup_p2p(const struct tp_world *w, const struct tp_job *job,
                               struct tp_ctx **ctx, char *reason, size_t len) {
  return sim_setup(w, job, ctx, reason, len, SIM_P2P);
}
static ar_status sim_setup_ce(const struct tp_world *w, const struct tp_job *job,
                              struct tp_ctx **ctx, char *reason, size_t len) {
  return sim_setup(w, job, ctx, reason, len, SIM_CE);
}
static ar_status sim_setup_sm(const struct tp_world *w, const struct tp_job *job,
                              struct tp_ctx **ctx, char *reason, size_t len) {
  return sim_setup(w, job, ctx, reason, len, SIM_SM);
}

/* AR_SIM_ROUNDS=1: marks the end of each round `rank` takes part in, the collective having
 * started at t0 (us) with a precondition of pre us: the precondition's rounds share pre evenly,
 * the others the main part. */
static void sim_mark(struct tp_ctx *c, int rank, struct tp_marks *mk, double t0, double pre) {
  memset(mk->have, 0, (size_t)mk->nrounds);
  mk->in_ns = c->kind == SIM_SM;
  int npre = c->nprecond, nmain = c->nrounds - c->nprecond;
  if (mk->in_ns) mk->ns[0] = (unsigned long long)(t0 * 1e3);
  for (int k = 0; k < c->nrounds && k < mk->nrounds; k++) {
    if (!c->part[(size_t)rank * c->nrounds + k]) continue;
    double end = k < npre ? t0 + pre * (k + 1) / npre
                          : t0 + pre + c->main_us * (k - npre + 1) / (nmain > 0 ? nmain : 1);
    if (mk->in_ns) mk->ns[1 + k] = (unsigned long long)(end * 1e3);
    else mk->ev[k]->t = end;
    mk->have[k] = 1;
  }
}

static ar_status sim_enqueue(struct tp_ctx *c, int rank, cudaStream_t s) {
  /* the sums (real buffers only); AR_SIM_STALE: the peers' last inputs on odd iterations */
  int it = c->calls[rank]++;
  sim_allreduce(rank, c->n, c->data[rank], c->nelem, c->dtype, c->stale && it % 2 == 1);
  /* the precondition runs among the others at once; the straggler joins for the rest */
  double t0 = s->clock, pre = c->has_pre && rank != c->straggler ? c->pre_us : 0;
  s->clock += pre + c->main_us;
  struct tp_marks *mk = c->marks ? c->marks[rank] : NULL;
  const char *marking = getenv("AR_SIM_ROUNDS");
  if (mk && marking && atoi(marking) == 1) sim_mark(c, rank, mk, t0, pre);
  /* a range per round, as the real transports mark them (the straggler skips the precondition) */
  for (int k = rank == c->straggler ? c->nprecond : 0; k < c->nrounds; k++) {
    ar_nvtx_push("round %d", k);
    ar_nvtx_pop();
  }
  return AR_OK;
}

static void sim_teardown(struct tp_ctx *c) {
  wrong_algo = NULL;
  if (c) free(c->part);
  free(c);
}

static const struct tp_ops sim_ops[3] = {
    {"nccl-p2p", sim_setup_p2p, sim_enqueue, sim_teardown},
    {"ce", sim_setup_ce, sim_enqueue, sim_teardown},
    {"sm", sim_setup_sm, sim_enqueue, sim_teardown},
};

const struct tp_ops *tp_find(const char *name) {
  for (int i = 0; i < 3; i++)
    if (!strcmp(sim_ops[i].name, name)) return &sim_ops[i];
  return NULL;
}

/* ---- the degraded-link emulation: the fake's links run at the model's bandwidth ---- */

ar_status tp_degrade_measure_bw(int src, int dst, size_t bytes, int reps, double *bw) {
  (void)src, (void)dst, (void)bytes, (void)reps;
  struct model_hw hw;
  crit_model_hw(&hw);
  *bw = 1e6 / hw.beta;
  return getenv("AR_SIM_NO_BW") ? AR_ERR_CUDA : AR_OK;
}

int tp_degrade_selftest(const int *dev, int ndev, double factor, FILE *out) {
  fprintf(out, "# self-test degrade: GPU %d degraded x%g, %d peers (simulated: nothing measured)\n",
          dev[0], factor, ndev - 1);
  fprintf(out, "self-test degrade: pass\n");
  return 0;
}
