/* The nccl-p2p transport: each round of a schedule is one NCCL group of this rank's
 * ncclSend/ncclRecv (receives into scratch), then reduce kernels (REDUCE) or copies (COPY)
 * from scratch into the data buffer on the same stream. Because every receive of a round lands
 * in scratch and is applied only after the group, a rank may send a chunk it also receives in
 * that round: round-snapshot semantics. A copy into a range the rank does not send that round
 * is received in place (no scratch, no extra copy). Sends and receives are issued in the
 * schedule's order on both sides, which is how NCCL matches several messages between one pair.
 * The pipeline option is not used (each round is one group; pipeline_used is 1). Degraded
 * links (--degrade): a stamp at a round's start and a pace after its group where
 * p2p_hold.h says so. --phases marks: an event after each round's applies.
 * Under MPI (transport.h) NCCL reaches the other processes' ranks itself: setup plans every
 * rank (the holds need every plan), allocates for this process's ranks only and ends with one
 * collective, tp_agree, so that all processes fail together; teardown has none. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvtx.h"
#include "lower/p2p_plan.h"
#include "degrade.h"
#include "lower/p2p_hold.h"
#include "world.h"

struct tp_ctx {
  int n, dtype;
  size_t esize;
  ncclDataType_t nccl_type;
  int dev[AR_MAX_GPUS];
  ncclComm_t comm[AR_MAX_GPUS];
  char *data[AR_MAX_GPUS];
  char *scratch[AR_MAX_GPUS];
  struct p2p_plan plan[AR_MAX_GPUS];
  /* degraded-link emulation (p2p_hold.h): per plan round, how long after its start the
   * rank's stream is held once the group is done (NULL: never), and the stamp word */
  uint64_t *hold_ns[AR_MAX_GPUS];
  uint64_t *stamp[AR_MAX_GPUS];
  struct tp_marks *const *marks; /* job->marks: --phases, or NULL */
};

/* NCCL's type for an enum ar_dtype. */
static ncclDataType_t nccl_type_of(int dtype) {
  return dtype == AR_DT_F32 ? ncclFloat32 : dtype == AR_DT_BF16 ? ncclBfloat16 : ncclFloat16;
}

/* Frees every rank's scratch and plan (this process's ranks have scratch). */
static void teardown(struct tp_ctx *c) {
  if (!c) return;
  for (int r = 0; r < c->n; r++) {
    if (c->scratch[r] || c->stamp[r]) {
      cudaSetDevice(c->dev[r]);
      cudaFree(c->scratch[r]);
      cudaFree(c->stamp[r]);
    }
    p2p_plan_free(&c->plan[r]);
    free(c->hold_ns[r]);
  }
  free(c);
}

/* Rank r's scratch (of this process); AR_ERR_OOM when it does not fit. */
static ar_status alloc_scratch(struct tp_ctx *c, int r, char *reason, size_t reason_len) {
  cudaSetDevice(c->dev[r]);
  cudaError_t e = cudaMalloc((void **)&c->scratch[r], c->plan[r].scratch * c->esize);
  if (e == cudaSuccess) return AR_OK;
  cudaGetLastError(); /* an allocation failure is not sticky: clear it */
  c->scratch[r] = NULL;
  snprintf(reason, reason_len, "rank %d: scratch of %zu bytes: %s", r,
           c->plan[r].scratch * c->esize, cudaGetErrorString(e));
  return e == cudaErrorMemoryAllocation ? AR_ERR_OOM : AR_ERR_CUDA;
}

/* Rank r's holds and stamp word (degraded-link emulation, this process's ranks). */
static ar_status setup_holds(struct tp_ctx *c, const struct tp_degrade *dg, int r, char *reason,
                             size_t reason_len) {
  ar_status st = p2p_holds(c->plan, c->n, c->esize, dg, r, &c->hold_ns[r]);
  if (st == AR_OK && c->hold_ns[r]) { /* a first launch now loads the kernels */
    cudaError_t e = cudaSetDevice(c->dev[r]);
    if (e == cudaSuccess) e = cudaMalloc((void **)&c->stamp[r], sizeof(uint64_t));
    if (e == cudaSuccess) e = cudaMemset(c->stamp[r], 0, sizeof(uint64_t));
    if (e == cudaSuccess) st = tp_stamp_launch(c->stamp[r], 0);
    if (e == cudaSuccess && st == AR_OK) st = tp_pace_launch(c->stamp[r], 0, NULL, 0, NULL, 0);
    if (e == cudaSuccess && st == AR_OK) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) st = e == cudaErrorMemoryAllocation ? AR_ERR_OOM : AR_ERR_CUDA;
  }
  if (st != AR_OK)
    snprintf(reason, reason_len, "rank %d: degraded-link emulation: %s", r, ar_status_str(st));
  return st;
}

/* Plans every rank and allocates this process's ranks' scratch; AR_ERR_OOM when scratch does
 * not fit. Every process reaches the final tp_agree, whatever failed in it. */
static ar_status setup(const struct tp_world *w, const struct tp_job *job, struct tp_ctx **ctx,
                       char *reason, size_t reason_len) {
  const struct ar_schedule *s = job->sched;
  *ctx = NULL;
  if (s->nranks != w->n) {
    snprintf(reason, reason_len, "schedule for %d ranks, world of %d", s->nranks, w->n);
    return AR_ERR_UNSUPPORTED;
  }
  size_t esize = ar_dtype_size(job->dtype);
  if (job->nelem * esize > w->data_bytes) {
    snprintf(reason, reason_len, "%zu elements do not fit the data buffer", job->nelem);
    return AR_ERR_OOM;
  }
  struct tp_ctx *c = (struct tp_ctx *)calloc(1, sizeof(*c));
  if (!c) return tp_agree(w, AR_ERR_NOMEM);
  c->n = w->n;
  c->dtype = job->dtype;
  c->esize = esize;
  c->nccl_type = nccl_type_of(job->dtype);
  c->marks = job->marks;
  size_t align = 16 / c->esize; /* keeps scratch slots 16-byte aligned for the vector path */
  ar_status st = AR_OK;
  for (int r = 0; r < c->n && st == AR_OK; r++) {
    c->dev[r] = w->dev[r];
    c->comm[r] = w->comm[r];
    c->data[r] = (char *)w->data[r];
    st = p2p_plan_build(s, r, job->nelem, align, &c->plan[r]);
    if (st == AR_OK && !w->remote[r] && c->plan[r].scratch)
      st = alloc_scratch(c, r, reason, reason_len);
  }
  if (st == AR_OK && job->degrade.n > 0 && !(job->degrade.bw > 0)) {
    snprintf(reason, reason_len, "degraded links: the healthy bandwidth is not known");
    st = AR_ERR_UNSUPPORTED;
  }
  for (int r = 0; st == AR_OK && job->degrade.n > 0 && r < c->n; r++)
    if (!w->remote[r]) st = setup_holds(c, &job->degrade, r, reason, reason_len);
  st = tp_agree(w, st);
  if (st != AR_OK) {
    teardown(c);
    return st;
  }
  if (job->pipeline_used) *job->pipeline_used = 1;
  *ctx = c;
  return AR_OK;
}

/* Enqueues plan round k of `rank`: one group of sends and receives (held by the degraded-link
 * emulation where it applies), then the applies. */
static ar_status enqueue_round(struct tp_ctx *c, int rank, int k, cudaStream_t stream) {
  const struct p2p_round *R = &c->plan[rank].rounds[k];
  char *data = c->data[rank], *scratch = c->scratch[rank];
  size_t es = c->esize;
  uint64_t hold = c->hold_ns[rank] ? c->hold_ns[rank][k] : 0;
  if (hold) AR_CHECK(tp_stamp_launch(c->stamp[rank], stream)); /* the round's start */
  NCCL_CHECK(ncclGroupStart());
  for (int i = 0; i < R->nsend; i++) {
    const struct p2p_op *o = &R->send[i];
    ncclResult_t nr = ncclSend(data + o->off * es, o->cnt, c->nccl_type, o->peer,
                               c->comm[rank], stream);
    if (nr != ncclSuccess) {
      ncclGroupEnd();
      NCCL_CHECK(nr);
    }
  }
  for (int i = 0; i < R->nrecv; i++) {
    const struct p2p_op *o = &R->recv[i];
    char *dst = o->direct ? data + o->off * es : scratch + o->soff * es;
    ncclResult_t nr = ncclRecv(dst, o->cnt, c->nccl_type, o->peer, c->comm[rank], stream);
    if (nr != ncclSuccess) {
      ncclGroupEnd();
      NCCL_CHECK(nr);
    }
  }
  NCCL_CHECK(ncclGroupEnd());
  if (hold) AR_CHECK(tp_pace_launch(c->stamp[rank], hold, NULL, 0, NULL, stream));
  for (int i = 0; i < R->nrecv; i++) { /* apply after the group: round snapshot */
    const struct p2p_op *o = &R->recv[i];
    if (o->direct) continue;
    if (o->op == AR_REDUCE)
      AR_CHECK(ar_reduce_launch(data + o->off * es, scratch + o->soff * es, o->cnt, c->dtype,
                                stream));
    else
      CUDA_CHECK(cudaMemcpyAsync(data + o->off * es, scratch + o->soff * es, o->cnt * es,
                                 cudaMemcpyDeviceToDevice, stream));
  }
  return AR_OK;
}

/* Enqueues every round of `rank` (an NVTX range each): one group of sends and receives, then
 * the applies; with marks for this iteration (--phases), an event after each round. */
static ar_status enqueue(struct tp_ctx *c, int rank, cudaStream_t stream) {
  const struct p2p_plan *p = &c->plan[rank];
  struct tp_marks *mk = c->marks ? c->marks[rank] : NULL;
  if (mk) {
    memset(mk->have, 0, (size_t)mk->nrounds);
    mk->in_ns = 0;
  }
  for (int k = 0; k < p->nrounds; k++) {
    int round = p->rounds[k].round;
    ar_nvtx_push("round %d", round);
    ar_status st = enqueue_round(c, rank, k, stream);
    ar_nvtx_pop();
    AR_CHECK(st);
    if (mk && round < mk->nrounds) {
      CUDA_CHECK(cudaEventRecord(mk->ev[round], stream));
      mk->have[round] = 1;
    }
  }
  return AR_OK;
}

extern "C" const struct tp_ops tp_nccl_p2p = {setup, enqueue, teardown};
