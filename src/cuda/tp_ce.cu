/* The ce transport: data moves only by copy engines (cudaMemcpyAsync on peer pointers, pushed
 * by the sender from its own streams into the receiver's scratch or data), sums by reduce
 * kernels, and ranks synchronise through sequence numbers in device flag words (flags.h),
 * never through the host and never through cross-GPU events: enqueue() runs concurrently on
 * every rank with no host ordering, so a peer's event might not be recorded yet for this
 * iteration, while a flag that must reach a value cannot be stale. Every flag wait is on local
 * memory and every copy is issued by the GPU whose data it reads.
 *
 * The program comes from the lowering (src/lower/, lower_job: the flow, dataflow ring,
 * dataflow direct or per-round push program, chosen per job); this file only executes it:
 * every op on its stream in program order (a co-located rank: all on the harness's stream),
 * flag waits before a sum folded into the sum's kernel. --phases marks (job->marks): an event
 * recorded on the harness's stream after each round's last op there (the dataflow ring: its
 * last apply).
 * Under MPI (transport.h) setup allocates for this process's ranks only and shares the flags,
 * scratch and budgets that peers' ops touch (tp_share: always these three, in this order, and
 * teardown unshares them in the same order), then, for the flow program, measures the clocks
 * (tp_clock_world) and agrees on the status. */
#include <stdlib.h>
#include <string.h>

#include "settings.h"

#include "nvtx.h"
#include "gpu_clock.h"
#include "degrade.h"
#include "flags.h"
#include "exec_prog.h"

struct tp_ctx {
  struct tp_world w;
  struct tp_job job;
  struct tp_prog *prog;
  int flag_mode;
  int sum_blocks_max; /* ce.sum_blocks: the most blocks a sum kernel takes (0: no cap) */
  int sum_wait;       /* ce.sum_wait: a sum's flag waits fold into its kernel */
  int one_stream[AR_MAX_GPUS]; /* co-located rank: its program in order on one stream */
  /* shared (tp_share): a remote rank's are mapped into this process */
  uint32_t *flags[AR_MAX_GPUS]; /* 2n words per rank, in that rank's memory, then one
                                 * staging word per stream (memop flag writes) */
  void *scratch[AR_MAX_GPUS];
  uint64_t *stamps[AR_MAX_GPUS];      /* degraded-link emulation: nstamps words, or NULL */
  /* the flow program's budgets (RESERVE): per rank its egress and ingress clocks, in its
   * memory, and its GPU time minus rank 0's */
  unsigned long long *budget[AR_MAX_GPUS];
  int64_t clock_off[AR_MAX_GPUS];
  cudaStream_t *streams[AR_MAX_GPUS]; /* copy streams 1..nstreams-1 (index 0 unused) */
  cudaEvent_t *events[AR_MAX_GPUS];
  size_t *mark_at[AR_MAX_GPUS]; /* --phases: lower_prog_round_ends per rank, or NULL */
  uint32_t iter[AR_MAX_GPUS];   /* touched only by that rank's thread */
};

/* Unshares the shared arrays (collective: every process, whatever setup did), then frees
 * whatever setup managed to create for this process's ranks; c itself stays. */
static void release(struct tp_ctx *c) {
  tp_unshare(&c->w, (void **)c->flags);
  tp_unshare(&c->w, c->scratch);
  tp_unshare(&c->w, (void **)c->budget);
  for (int r = 0; r < c->w.n; r++) {
    if (c->w.remote[r] || cudaSetDevice(c->w.dev[r]) != cudaSuccess) continue;
    const struct tp_rank_prog *rp = c->prog ? &c->prog->rank[r] : NULL;
    if (c->streams[r] && rp)
      for (int i = 1; i < rp->nstreams; i++)
        if (c->streams[r][i]) cudaStreamDestroy(c->streams[r][i]);
    if (c->events[r] && rp)
      for (int i = 0; i < rp->nevents; i++)
        if (c->events[r][i]) cudaEventDestroy(c->events[r][i]);
    free(c->streams[r]);
    free(c->events[r]);
    free(c->mark_at[r]);
    cudaFree(c->flags[r]);
    cudaFree(c->scratch[r]);
    cudaFree(c->stamps[r]);
    cudaFree(c->budget[r]);
  }
  lower_prog_free(c->prog);
}

static void teardown(struct tp_ctx *c) {
  if (!c) return;
  release(c);
  free(c);
}

/* Allocates rank r's flags, scratch, streams and events; AR_ERR_OOM when memory runs out. */
static ar_status setup_rank(struct tp_ctx *c, int r) {
  const struct tp_rank_prog *rp = &c->prog->rank[r];
  CUDA_CHECK(cudaSetDevice(c->w.dev[r]));
  size_t fbytes = (size_t)(c->prog->nslots + rp->nstreams) * sizeof(uint32_t);
  CUDA_CHECK(cudaMalloc((void **)&c->flags[r], fbytes));
  CUDA_CHECK(cudaMemset(c->flags[r], 0, fbytes));
  if (rp->scratch_bytes) {
    cudaError_t e = cudaMalloc(&c->scratch[r], rp->scratch_bytes);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      c->scratch[r] = NULL;
      ar_log(AR_LOG_INFO, "ce: rank %d: %zu bytes of scratch do not fit", r, rp->scratch_bytes);
      return AR_ERR_OOM;
    }
  }
  c->streams[r] = (cudaStream_t *)calloc(rp->nstreams, sizeof(cudaStream_t));
  c->events[r] = (cudaEvent_t *)calloc(rp->nevents ? rp->nevents : 1, sizeof(cudaEvent_t));
  if (!c->streams[r] || !c->events[r]) return AR_ERR_NOMEM;
  /* co-located ranks run their whole program in order on the harness's stream (copy streams
   * stay NULL): the streams of ranks that share a GPU also share its hardware queues, where a
   * flag wait of one rank can hold up the flag write of another queued behind it, and streams
   * made per job land on queues the other ranks' streams already use. One stream per rank is
   * the order tp_check sim runs as "every stream of a rank squeezed into one FIFO". */
  for (int i = 1; i < rp->nstreams && !c->one_stream[r]; i++)
    CUDA_CHECK(cudaStreamCreateWithFlags(&c->streams[r][i], cudaStreamNonBlocking));
  for (int i = 0; i < rp->nevents; i++)
    CUDA_CHECK(cudaEventCreateWithFlags(&c->events[r][i], cudaEventDisableTiming));
  if (c->job.marks) { /* --phases: where each round ends in the program */
    c->mark_at[r] = (size_t *)calloc(c->prog->nrounds ? c->prog->nrounds : 1, sizeof(size_t));
    if (!c->mark_at[r]) return AR_ERR_NOMEM;
    lower_prog_round_ends(c->prog, r, c->mark_at[r]);
  }
  if (rp->nstamps) { /* degraded-link emulation; a first launch now loads the kernels */
    CUDA_CHECK(cudaMalloc((void **)&c->stamps[r], rp->nstamps * sizeof(uint64_t)));
    CUDA_CHECK(cudaMemset(c->stamps[r], 0, rp->nstamps * sizeof(uint64_t)));
    AR_CHECK(tp_stamp_launch(c->stamps[r], 0));
    AR_CHECK(tp_pace_launch(c->stamps[r], 0, NULL, 0, NULL, 0));
  }
  if (c->prog->reserves) {
    CUDA_CHECK(cudaMalloc((void **)&c->budget[r], 2 * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(c->budget[r], 0, 2 * sizeof(unsigned long long)));
    if (c->stamps[r]) AR_CHECK(tp_reserve_launch(NULL, 0, NULL, 0, 0, c->stamps[r], 0));
  }
  return AR_OK;
}

/* Returns the device address of a program reference. */
static void *resolve(const struct tp_ctx *c, const struct tp_ref *x) {
  char *base = (char *)(x->buf == TP_BUF_DATA ? c->w.data[x->rank] : c->scratch[x->rank]);
  return base + x->off;
}

/* A sum op's most blocks: its program's, capped by ce.sum_blocks (0: no cap, or none). */
static int sum_blocks(const struct tp_ctx *c, const struct tp_op *o) {
  int most = c->sum_blocks_max;
  return most > 0 && (o->blocks <= 0 || o->blocks > most) ? most : o->blocks;
}

/* Shares what peers' ops touch (flags, scratch, budgets: always these, in this order) with
 * this process's status so far; returns the worst over all processes. */
static ar_status share(struct tp_ctx *c, ar_status st) {
  st = tp_share(&c->w, (void **)c->flags, st);
  st = tp_share(&c->w, c->scratch, st);
  return tp_share(&c->w, (void **)c->budget, st);
}

static ar_status setup(const struct tp_world *w, const struct tp_job *job, struct tp_ctx **ctx,
                       char *reason, size_t reason_len) {
  *ctx = NULL;
  const struct ar_schedule *s = job->sched;
  AR_CHECK(tp_job_check(w, job, reason, reason_len));
  /* from here on every process makes the same collective calls, whatever fails in it: a
   * failure goes into st, which the shares make everyone's */
  ar_status st = AR_OK;
  struct tp_ctx spare, *c = (struct tp_ctx *)tp_ctx_alloc(sizeof(spare), &spare, &st);
  c->w = *w;
  c->job = *job;
  c->flag_mode = tp_flags_mode(job->settings);
  const char *kind = NULL;
  c->sum_blocks_max = (int)ar_setting_value(job->settings, AR_SET_CE_SUM_BLOCKS);
  c->sum_wait = (int)ar_setting_value(job->settings, AR_SET_CE_SUM_WAIT);
  struct lower_settings set;
  lower_settings_of(&set, job->settings);
  struct lower_job lj = {AR_TP_CE, s, job->nelem, (int)ar_dtype_size(job->dtype), job->pipeline,
                         &job->degrade};
  if (st == AR_OK) st = lower_job(&lj, &set, &c->prog, &kind, reason, reason_len);
  for (int r = 0; st == AR_OK && r < w->n; r++) {
    c->one_stream[r] = tp_colocated(w, r);
    if (!w->remote[r]) st = setup_rank(c, r);
  }
  for (int r = 0; st == AR_OK && r < w->n; r++) { /* the flag memsets are done before use */
    if (w->remote[r]) continue;
    if (cudaSetDevice(w->dev[r]) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess)
      st = AR_ERR_CUDA;
  }
  st = share(c, st);
  /* the program, hence reserves, is the same in every process */
  if (st == AR_OK && c->prog->reserves) st = tp_agree(w, tp_clock_world(w, c->clock_off, st));
  if (st != AR_OK) {
    if (st == AR_ERR_OOM) snprintf(reason, reason_len, "ce scratch does not fit in GPU memory");
    release(c);
    if (c != &spare) free(c);
    return st;
  }
  if (job->pipeline_used) *job->pipeline_used = c->prog->batches_max;
  ar_log(AR_LOG_INFO,
         "ce: %s, %zu elements: %s, flags by %s, up to %d mini-batches, scratch %zu bytes, "
         "%d streams", s->algo, job->nelem, kind, tp_flags_name(c->flag_mode),
         c->prog->batches_max, c->prog->rank[0].scratch_bytes, c->prog->rank[0].nstreams);
  if (ar_log_level() >= AR_LOG_TRACE)
    for (int r = 0; r < w->n; r++)
      lower_prog_print(c->prog, r, stderr);
  *ctx = c;
  return AR_OK;
}

/* Enqueues one program op of rank on stream st (iteration base `base`). */
static ar_status enqueue_op(struct tp_ctx *c, int rank, const struct tp_op *o, cudaStream_t st,
                            uint32_t base) {
  switch (o->kind) {
  case TP_OP_WRITE_FLAG:
    AR_CHECK(tp_flag_write(o->kflag ? TP_FLAGS_KERNEL : c->flag_mode, st, c->flags[o->peer] + o->slot, base + o->val,
                           c->flags[rank] + c->prog->nslots + o->stream));
    break;
  case TP_OP_WAIT_FLAG:
    AR_CHECK(tp_flag_wait(c->flag_mode, st, c->flags[rank] + o->slot, base + o->val));
    break;
  case TP_OP_COPY:
    CUDA_CHECK(cudaMemcpyAsync(resolve(c, &o->dst), resolve(c, &o->src[0]), o->bytes,
                               cudaMemcpyDeviceToDevice, st));
    break;
  case TP_OP_SUM: {
    const void *srcs[TP_MAX_SUM];
    for (int q = 0; q < o->nsrc; q++)
      srcs[q] = resolve(c, &o->src[q]);
    AR_CHECK(ar_sum_launch(resolve(c, &o->dst), srcs, o->nsrc, o->bytes / c->prog->esize,
                           c->job.dtype, sum_blocks(c, o), st));
    break;
  }
  case TP_OP_RECORD: CUDA_CHECK(cudaEventRecord(c->events[rank][o->event], st)); break;
  case TP_OP_WAIT_EVENT: CUDA_CHECK(cudaStreamWaitEvent(st, c->events[rank][o->event], 0)); break;
  case TP_OP_STAMP: AR_CHECK(tp_stamp_launch(c->stamps[rank] + o->tslot[0], st)); break;
  case TP_OP_PACE:
    AR_CHECK(tp_pace_launch(c->stamps[rank] + o->tslot[0], o->ns[0],
                            o->tslot[1] >= 0 ? c->stamps[rank] + o->tslot[1] : NULL, o->ns[1],
                            o->tout >= 0 ? c->stamps[rank] + o->tout : NULL, st));
    break;
  case TP_OP_RESERVE:
    AR_CHECK(tp_reserve_launch(o->ns[0] ? c->budget[rank] : NULL, o->ns[0],
                               o->ns[1] ? c->budget[o->peer] + 1 : NULL, o->ns[1],
                               c->clock_off[o->peer] - c->clock_off[rank],
                               c->stamps[rank] + o->tout, st));
    break;
  default: return AR_ERR_INVALID;
  }
  return AR_OK;
}

/* Flag waits held back to go into the next sum on their stream (ar_sum_wait_launch). */
struct held_waits {
  const uint32_t *p[TP_MAX_WAITS];
  uint32_t v[TP_MAX_WAITS];
  int n;
};
#define HELD_STREAMS 8

/* Enqueues the waits held for stream st as they were (memops or kernels). */
static ar_status release_waits(struct tp_ctx *c, struct held_waits *h, cudaStream_t st) {
  for (int i = 0; i < h->n; i++)
    AR_CHECK(tp_flag_wait(c->flag_mode, st, h->p[i], h->v[i]));
  h->n = 0;
  return AR_OK;
}

/* Enqueues o, folding the flag waits just before a sum on the same stream into the sum's kernel
 * (a memop wait there let the sum start up to 80 us after its flags landed: exec_prog.h); an
 * event wait between them stays where it is (both hold the stream until the sum). */
static ar_status enqueue_folding(struct tp_ctx *c, int rank, const struct tp_op *o, cudaStream_t st,
                                 uint32_t base, struct held_waits *held) {
  if (!held || o->stream >= HELD_STREAMS) return enqueue_op(c, rank, o, st, base);
  struct held_waits *h = &held[o->stream];
  if (o->kind == TP_OP_WAIT_FLAG) {
    if (h->n == TP_MAX_WAITS) AR_CHECK(release_waits(c, h, st));
    h->p[h->n] = c->flags[rank] + o->slot;
    h->v[h->n++] = base + o->val;
    return AR_OK;
  }
  if (o->kind == TP_OP_WAIT_EVENT || !h->n) return enqueue_op(c, rank, o, st, base);
  size_t nelem = o->bytes / c->prog->esize;
  if (o->kind == TP_OP_SUM && nelem &&
      ar_sum_can_wait(nelem, c->job.dtype, sum_blocks(c, o), tp_wait_sms(&c->w, rank))) {
    const void *srcs[TP_MAX_SUM];
    for (int q = 0; q < o->nsrc; q++)
      srcs[q] = resolve(c, &o->src[q]);
    int nw = h->n;
    h->n = 0;
    return ar_sum_wait_launch(resolve(c, &o->dst), srcs, o->nsrc, nelem, c->job.dtype,
                              sum_blocks(c, o), h->p, h->v, nw, st);
  }
  AR_CHECK(release_waits(c, h, st));
  return enqueue_op(c, rank, o, st, base);
}

/* Interprets rank's program: every op goes on its stream in program order, an NVTX range
 * around each round's ops; with marks for this iteration (--phases), an event on the harness's
 * stream where each round ends (lower_prog_round_ends). */
static ar_status enqueue(struct tp_ctx *c, int rank, cudaStream_t stream) {
  const struct tp_rank_prog *rp = &c->prog->rank[rank];
  uint32_t base = c->iter[rank]++ * c->prog->span;
  struct tp_marks *mk = c->job.marks && c->mark_at[rank] ? c->job.marks[rank] : NULL;
  const size_t *at = c->mark_at[rank];
  if (mk) {
    memset(mk->have, 0, (size_t)mk->nrounds);
    mk->in_ns = 0;
  }
  int round = -1;
  ar_status res = AR_OK;
  struct held_waits held[HELD_STREAMS];
  memset(held, 0, sizeof(held));
  for (size_t i = 0; i < rp->nops && res == AR_OK; i++) {
    const struct tp_op *o = &rp->ops[i];
    if (o->round != round) {
      if (round >= 0) ar_nvtx_pop();
      round = o->round;
      ar_nvtx_push("round %d", round);
    }
    cudaStream_t st = o->stream && !c->one_stream[rank] ? c->streams[rank][o->stream] : stream;
    /* one stream: no wait moves past another stream's ops (program order, as simulated) */
    res = enqueue_folding(c, rank, o, st, base, c->sum_wait && !c->one_stream[rank] ? held : NULL);
    if (mk && res == AR_OK && o->round < mk->nrounds && at[o->round] == i + 1) {
      res = release_waits(c, &held[0], stream); /* a mark must follow stream 0's waits */
      if (res != AR_OK) break;
      cudaError_t e = cudaEventRecord(mk->ev[o->round], stream);
      if (e != cudaSuccess) {
        ar_log(AR_LOG_WARN, "ce: rank %d: round %d mark: %s", rank, o->round,
               cudaGetErrorString(e));
        res = AR_ERR_CUDA;
      }
      mk->have[o->round] = 1;
    }
  }
  for (int k = 0; k < HELD_STREAMS && k < rp->nstreams && res == AR_OK; k++)
    res = release_waits(c, &held[k], k && !c->one_stream[rank] ? c->streams[rank][k] : stream);
  if (round >= 0) ar_nvtx_pop();
  return res;
}

extern "C" const struct tp_ops tp_ce = {setup, enqueue, teardown};
