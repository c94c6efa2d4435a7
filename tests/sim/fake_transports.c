/* The transports on the simulated GPU (tests/sim/fake_gpu.c's opening comment): each
 * transport's setup, enqueue and teardown at the model's times (alpha 3 us, 450 GB/s; ll 2 us a
 * round), refusing what the real ones refuse, sharing a word per rank as they do, and marking
 * rounds for --phases; then src/cuda/world.cu's helpers and the degraded-link emulation, whose
 * links run at the model's bandwidth. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/critical.h"
#include "cuda/degrade.h"
#include "cuda/transport.h"
#include "fake_gpu.h"
#include "model.h"
#include "nvtx.h"

#define SIM_LL_ALPHA_US 2.0 /* ll's cost per round: one crossing, no handshake */

struct tp_ctx {
  double pre_us, main_us;
  int straggler, has_pre;
  int nrounds, nprecond; /* for the NVTX round ranges (tests/test_nvtx.sh) */
  const struct ar_transport *tp; /* the transport it is for (src/transports.h) */
  struct tp_marks *const *marks;
  unsigned char *part; /* [rank * nrounds + k]: the rank sends or receives in round k */
  int n, dtype, stale; /* stale: AR_SIM_STALE names this algorithm */
  int bad_sum;         /* AR_SIM_BAD_SUM names it */
  size_t nelem;
  struct tp_world w;       /* the world it was set up in (data[]: every rank's buffer here) */
  void *word[AR_MAX_GPUS]; /* every rank's shared word (sim_word): its own or a mapping */
  int shared;              /* tp_share gave the words: teardown unshares them */
  int calls[AR_MAX_GPUS];  /* enqueues per rank so far: the iteration of the row */
  size_t slot_bytes[AR_MAX_GPUS]; /* ll: each rank's receive slots (sim_ll_plan) */
  void *slot[AR_MAX_GPUS];        /* ll: this process's ranks' slots (sim_ll_alloc) */
};

/* 1 when rank r runs in this process. */
static int sim_local(const struct tp_world *w, int r) { return !w->peers || !w->remote[r]; }
/* The value of rank r's shared word. */
static unsigned sim_word(int r) { return 0x5e1f0000u + 7919u * (unsigned)r; }

/* The mini-batches per transfer transport tp uses for job (see fake_gpu.c's opening comment). */
static int sim_pipeline_used(const struct ar_transport *tp, const struct tp_job *job) {
  const struct ar_schedule *s = job->sched;
  if (!tp->pipelines) return 1;
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

/* ll: the real lowering's ll program for job (its reason where it refuses one: a degraded
 * job) and each rank's receive slots as the real transport allocates them: the program's
 * scratch, two parities. */
static ar_status sim_ll_plan(const struct ar_transport *tp, const struct tp_job *job,
                             size_t *slot_bytes, char *reason, size_t len) {
  struct tp_prog *prog = NULL;
  struct lower_settings set;
  lower_settings_of(&set, job->settings);
  struct lower_job lj = {tp->id, job->sched, job->nelem, (int)ar_dtype_size(job->dtype),
                         job->pipeline, &job->degrade};
  ar_status st = lower_job(&lj, &set, &prog, NULL, reason, len);
  if (st != AR_OK) return st;
  for (int r = 0; r < prog->n && r < AR_MAX_GPUS; r++)
    slot_bytes[r] = 2 * prog->rank[r].scratch_bytes;
  lower_prog_free(prog);
  return AR_OK;
}

/* The model's plan of a job for this process's ranks, in a new *ctx; AR_ERR_UNSUPPORTED or
 * AR_ERR_INVALID with the reason when the real transports would refuse it. */
static ar_status sim_plan(const struct tp_world *w, const struct tp_job *job,
                          struct tp_ctx **ctx, char *reason, size_t len,
                          const struct ar_transport *tp) {
  const struct ar_schedule *s = job->sched;
  /* co-located ranks: their waiting kernels' SM shares must fit the GPU together, and no rank
   * may be left without one (transport.h's sms) */
  for (int r = 0; r < w->n; r++) {
    if (!sim_local(w, r)) continue;
    int sum = 0;
    for (int q = 0; q < w->n; q++) sum += tp_same_gpu(w, q, r) ? w->sms[q] : 0;
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
  size_t slot_bytes[AR_MAX_GPUS] = {0};
  if (tp->lowering == AR_LOWER_LL) { /* before the degraded links' checks: ll has no emulation */
    ar_status st = sim_ll_plan(tp, job, slot_bytes, reason, len);
    if (st != AR_OK) return st;
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
  if (tp->lowering == AR_LOWER_LL) hw.alpha_us = SIM_LL_ALPHA_US;
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
  c->tp = tp;
  c->marks = job->marks;
  memcpy(c->slot_bytes, slot_bytes, sizeof(slot_bytes));
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
  if (job->pipeline_used) *job->pipeline_used = sim_pipeline_used(tp, job);
  const char *bad = getenv("AR_SIM_WRONG");
  sim_wrong_algo = bad && !strcmp(bad, s->algo) ? bad : NULL;
  const char *stale = getenv("AR_SIM_STALE");
  c->stale = stale && !strcmp(stale, s->algo);
  c->bad_sum = sim_bad_sum(s->algo);
  c->n = w->n;
  c->dtype = job->dtype;
  c->nelem = job->nelem;
  c->w = *w;
  *ctx = c;
  return AR_OK;
}

/* The real transports' share path: a word per rank of this process (sim_word's value),
 * shared with every process by tp_share (collective: called once by every process's setup,
 * whatever st is); each enqueue reads every rank's word (sim_enqueue). The worst status of
 * all processes; on AR_OK c->word[] holds every rank's. */
static ar_status sim_share_words(const struct tp_world *w, struct tp_ctx *c, ar_status st) {
  void *word[AR_MAX_GPUS] = {0};
  for (int r = 0; r < w->n && r < AR_MAX_GPUS && st == AR_OK; r++) {
    unsigned v = sim_word(r);
    if (!sim_local(w, r)) continue;
    if (cudaMalloc(&word[r], sizeof(v)) != cudaSuccess) st = AR_ERR_OOM;
    else cudaMemcpy(word[r], &v, sizeof(v), cudaMemcpyHostToDevice);
  }
  st = tp_share(w, word, st);
  if (st == AR_OK) {
    memcpy(c->word, word, sizeof(word));
    c->shared = 1;
    return AR_OK;
  }
  for (int r = 0; r < w->n && r < AR_MAX_GPUS; r++)
    if (sim_local(w, r)) cudaFree(word[r]);
  return st;
}

/* ll: this process's ranks' receive slots (zeroed, as cudaMalloc's here are); AR_ERR_OOM with
 * the real transport's reason when one does not fit (AR_SIM_MEM). */
static ar_status sim_ll_alloc(const struct tp_world *w, struct tp_ctx *c, char *reason,
                              size_t len) {
  for (int r = 0; r < w->n && r < AR_MAX_GPUS; r++) {
    if (!sim_local(w, r)) continue;
    if (cudaMalloc(&c->slot[r], c->slot_bytes[r] ? c->slot_bytes[r] : 16) != cudaSuccess) {
      snprintf(reason, len, "ll: receive slots do not fit in GPU memory");
      return AR_ERR_OOM;
    }
  }
  return AR_OK;
}

static void sim_teardown(struct tp_ctx *c);

static ar_status sim_setup(const struct tp_world *w, const struct tp_job *job,
                           struct tp_ctx **ctx, char *reason, size_t len, int id) {
  struct tp_ctx *c = NULL;
  const struct ar_transport *tp = ar_transport_at(id);
  if (len) reason[0] = 0;
  ar_status st = sim_plan(w, job, &c, reason, len, tp);
  if (st == AR_OK && tp->lowering == AR_LOWER_LL) st = sim_ll_alloc(w, c, reason, len);
  st = sim_share_words(w, c, st);
  if (st != AR_OK) {
    if (len && !reason[0])
      snprintf(reason, len, "simulated: the job's setup failed elsewhere: %s", ar_status_str(st));
    sim_teardown(c);
    return st;
  }
  *ctx = c;
  return AR_OK;
}

/* A setup per transport of the table (AR_TRANSPORT_LIST), each the fake's for its id. */
#define SIM_SETUP_(id, ops)                                                                \
  static ar_status sim_setup_##ops(const struct tp_world *w, const struct tp_job *job,      \
                                   struct tp_ctx **ctx, char *reason, size_t len) {         \
    return sim_setup(w, job, ctx, reason, len, id);                                        \
  }
AR_TRANSPORT_LIST(SIM_SETUP_)
#undef SIM_SETUP_

/* AR_SIM_ROUNDS=1: marks the end of each round `rank` takes part in, the collective having
 * started at t0 (us) with a precondition of pre us: the precondition's rounds share pre evenly,
 * the others the main part. */
static void sim_mark(struct tp_ctx *c, int rank, struct tp_marks *mk, double t0, double pre) {
  memset(mk->have, 0, (size_t)mk->nrounds);
  /* the kernels of the transports with a kernel program stamp the clock */
  mk->in_ns = c->tp->lowering == AR_LOWER_SM || c->tp->lowering == AR_LOWER_LL;
  int npre = c->nprecond, nmain = c->nrounds - c->nprecond;
  if (mk->in_ns) mk->ns[0] = (unsigned long long)(t0 * 1e3);
  for (int k = 0; k < c->nrounds && k < mk->nrounds; k++) {
    if (!c->part[(size_t)rank * c->nrounds + k]) continue;
    double end = k < npre ? t0 + pre * (k + 1) / npre
                          : t0 + pre + c->main_us * (k - npre + 1) / (nmain > 0 ? nmain : 1);
    if (mk->in_ns) mk->ns[1 + k] = (unsigned long long)(end * 1e3);
    else sim_stamp(mk->ev[k], end);
    mk->have[k] = 1;
  }
}

/* Rank `rank`'s AllReduce (a rank of this process): every rank's shared word read through its
 * mapping (a wrong one fails the enqueue; another host's must not be mapped), the sums read
 * through the world's data[] (another host's inputs as the network would bring them: where its
 * last fill registered them), the model's time on the stream. */
static ar_status sim_enqueue(struct tp_ctx *c, int rank, cudaStream_t s) {
  if (rank < 0 || rank >= c->n || !sim_local(&c->w, rank)) {
    ar_log(AR_LOG_WARN, "simulated: enqueue of rank %d, not a rank of this process", rank);
    return AR_ERR_INVALID;
  }
  int k = sim_failure_hooks(rank);
  const char *nocap = getenv("AR_SIM_NO_CAPTURE");
  if (s->capturing && nocap && !strcmp(nocap, c->tp->name)) {
    s->cap_bad = 1; /* as a host-driven step would: CUDA refuses it under capture */
    return AR_ERR_CUDA;
  }
  int host = sim_host_of(rank, c->n);
  for (int q = 0; q < c->n; q++) {
    unsigned v = 0;
    if (sim_host_of(q, c->n) != host) { /* out of reach: nothing may be mapped */
      if (!c->word[q] && !c->w.data[q]) continue;
      ar_log(AR_LOG_WARN, "simulated: rank %d has rank %d's memory mapped across hosts", rank, q);
      return AR_ERR_CUDA;
    }
    if (c->word[q] && sim_real_bytes(c->word[q]) >= sizeof(v)) memcpy(&v, c->word[q], sizeof(v));
    if (v != sim_word(q)) {
      ar_log(AR_LOG_WARN, "simulated: rank %d reads rank %d's shared word as %#x, not %#x", rank,
             q, v, sim_word(q));
      return AR_ERR_CUDA;
    }
  }
  /* the sums (real buffers only); AR_SIM_STALE: the peers' last inputs on odd iterations */
  int it = c->calls[rank]++;
  size_t bytes[AR_MAX_GPUS];
  void *buf[AR_MAX_GPUS];
  struct sim_head *h = sim_head();
  for (int q = 0; q < c->n; q++) {
    int away = sim_host_of(q, c->n) != host;
    buf[q] = away ? sim_at(h->buf[q].at) : c->w.data[q];
    bytes[q] = away ? h->buf[q].bytes : sim_real_bytes(c->w.data[q]);
  }
  int bad = c->bad_sum || (sim_beside_load(s) && getenv("AR_SIM_BESIDE_BAD"));
  sim_allreduce(rank, c->n, buf, bytes, c->nelem, c->dtype, c->stale && it % 2 == 1, bad);
  /* the precondition runs among the others at once; the straggler joins for the rest */
  double t0 = s->clock, pre = c->has_pre && rank != c->straggler ? c->pre_us : 0;
  sim_run(s, (pre + c->main_us) * sim_jitter(rank, k));
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

/* Unshares the words (collective, as tp_unshare), frees this process's. */
static void sim_teardown(struct tp_ctx *c) {
  sim_wrong_algo = NULL;
  if (!c) return;
  if (c->shared) tp_unshare(&c->w, c->word);
  for (int r = 0; r < c->n && c->shared; r++)
    if (sim_local(&c->w, r)) cudaFree(c->word[r]);
  for (int r = 0; r < c->n && r < AR_MAX_GPUS; r++)
    if (sim_local(&c->w, r)) cudaFree(c->slot[r]); /* ll's; NULL for the others */
  free(c->part);
  free(c);
}

/* The fake's executors, indexed by enum ar_tp as src/cuda/executors.cu's. */
#define SIM_OPS_(id, ops) [id] = {sim_setup_##ops, sim_enqueue, sim_teardown},
static const struct tp_ops sim_ops[AR_NTRANSPORTS] = {AR_TRANSPORT_LIST(SIM_OPS_)};
#undef SIM_OPS_

const struct tp_ops *tp_ops_of(int id) {
  return id >= 0 && id < AR_NTRANSPORTS ? &sim_ops[id] : NULL;
}

const struct tp_ops *tp_find(const char *name) {
  const struct ar_transport *t = ar_transport_find(name);
  return t ? tp_ops_of(t->id) : NULL;
}

/* ---- the job's world: src/cuda/world.cu's helpers (the simulator links no CUDA) ---- */

int tp_same_gpu(const struct tp_world *w, int a, int b) {
  return w->peers ? w->gpu[a] == w->gpu[b] : w->dev[a] == w->dev[b];
}
ar_status tp_share(const struct tp_world *w, void **ptr, ar_status st) {
  return w->peers ? w->peers->share(w->peers->ctx, ptr, st) : st;
}
void tp_unshare(const struct tp_world *w, void **ptr) {
  if (w->peers) w->peers->unshare(w->peers->ctx, ptr);
}
ar_status tp_bcast(const struct tp_world *w, void *buf, size_t len, int root) {
  return w->peers ? w->peers->bcast(w->peers->ctx, buf, len, root) : AR_OK;
}

/* ---- the degraded-link emulation: the fake's links run at the model's bandwidth ---- */

ar_status tp_degrade_measure_bw(int src, int dst, size_t bytes, int reps, double *bw) {
  (void)src, (void)dst, (void)bytes, (void)reps;
  struct model_hw hw;
  crit_model_hw(&hw);
  *bw = 1e6 / hw.beta;
  return getenv("AR_SIM_NO_BW") ? AR_ERR_CUDA : AR_OK;
}

int tp_degrade_selftest(const int *dev, int ndev, double factor,
                        const struct ar_settings *settings, FILE *out) {
  (void)settings;
  fprintf(out, "# self-test degrade: GPU %d degraded x%g, %d peers (simulated: nothing measured)\n",
          dev[0], factor, ndev - 1);
  fprintf(out, "self-test degrade: pass\n");
  return 0;
}
