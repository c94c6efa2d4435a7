/* Executing a schedule on GPUs. The harness owns devices, communicators, data buffers and
 * streams; a transport turns one schedule into work on each rank's stream. */
#ifndef TRANSPORT_H
#define TRANSPORT_H

#include <cuda_runtime.h>
#include <nccl.h>

#include "ar.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AR_MAX_GPUS 16

enum ar_dtype { AR_DT_F32 = 0, AR_DT_BF16 = 1, AR_DT_F16 = 2 };
size_t ar_dtype_size(int dtype);
const char *ar_dtype_name(int dtype);

/* What the harness gives a transport. Every pair of devices has peer access enabled. */
struct tp_world {
  int n;
  int dev[AR_MAX_GPUS];         /* CUDA ordinal of each rank */
  ncclComm_t comm[AR_MAX_GPUS]; /* one communicator per rank, made by that rank's thread */
  void *data[AR_MAX_GPUS];      /* each rank's in-place AllReduce buffer */
  size_t data_bytes;            /* capacity of each data buffer */
};

/* One (schedule, size) to execute repeatedly. */
struct tp_job {
  const struct ar_schedule *sched;
  size_t nelem;  /* elements per rank; chunk c is [ar_chunk_begin(nelem, nchunks, c), ...) */
  int dtype;     /* enum ar_dtype; the reduction is a sum */
  int pipeline;  /* mini-batches per transfer (1: none); honoured where the transport pipelines */
};

struct tp_ctx; /* a transport's private state for one job */

struct tp_ops {
  const char *name;
  /* Prepares a job on every rank (scratch, events, flags). Called from ONE thread while the
   * rank threads wait; may cudaSetDevice freely. AR_ERR_OOM when scratch does not fit,
   * AR_ERR_UNSUPPORTED (with *reason set) when this transport cannot run the schedule. */
  ar_status (*setup)(const struct tp_world *w, const struct tp_job *job, struct tp_ctx **ctx,
                     char *reason, size_t reason_len);
  /* Enqueues one whole AllReduce of `rank` onto `stream` (that rank's device is current).
   * Called concurrently by every rank's thread, once per iteration, iterations in the same
   * order on every rank. Must be race-free without any host ordering between threads: a
   * rank may enqueue iteration i+1 before a peer has enqueued iteration i. */
  ar_status (*enqueue)(struct tp_ctx *ctx, int rank, cudaStream_t stream);
  /* Frees everything; called from one thread once every stream is idle. */
  void (*teardown)(struct tp_ctx *ctx);
};

extern const struct tp_ops tp_nccl_p2p, tp_ce, tp_sm;
const struct tp_ops *tp_find(const char *name); /* "nccl-p2p", "ce", "sm" */

/* reduce.cu: dst[i] += src[i] for i < nelem, on stream. */
ar_status ar_reduce_launch(void *dst, const void *src, size_t nelem, int dtype, cudaStream_t s);

#define CUDA_CHECK(call)                                                                 \
  do {                                                                                   \
    cudaError_t e_ = (call);                                                             \
    if (e_ != cudaSuccess) {                                                             \
      ar_log(AR_LOG_WARN, "%s:%d: %s: %s", __FILE__, __LINE__, #call,                    \
             cudaGetErrorString(e_));                                                    \
      return e_ == cudaErrorMemoryAllocation ? AR_ERR_OOM : AR_ERR_CUDA;                 \
    }                                                                                    \
  } while (0)
#define NCCL_CHECK(call)                                                                 \
  do {                                                                                   \
    ncclResult_t r_ = (call);                                                            \
    if (r_ != ncclSuccess) {                                                             \
      ar_log(AR_LOG_WARN, "%s:%d: %s: %s", __FILE__, __LINE__, #call,                    \
             ncclGetErrorString(r_));                                                    \
      return AR_ERR_NCCL;                                                                \
    }                                                                                    \
  } while (0)

#ifdef __cplusplus
}
#endif
#endif
