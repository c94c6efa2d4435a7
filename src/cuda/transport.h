/* Executing a schedule on GPUs. The harness owns devices, communicators, data buffers and
 * streams; a transport turns one schedule into work on each rank's stream. */
#ifndef TRANSPORT_H
#define TRANSPORT_H

#include <cuda_runtime.h>
#include <nccl.h>

#include "ar.h"
#include "lower/lower.h"
#include "settings.h"
#include "round_marks.h"

#ifdef __cplusplus
extern "C" {
#endif



/* The other processes of an MPI job (harness/procs/procs.h), as the harness lends them to
 * transports. Every call is collective: exactly one thread of every process makes it, and
 * every process makes the same calls in the same order, whatever went wrong locally (a
 * process that skipped one would leave the others waiting). */
struct tp_peers {
  void *ctx;
  /* ptr[r], for every rank r of this process: the base of a cudaMalloc'd allocation, or NULL;
   * st: this process's status so far. Returns the worst status over all processes; only on
   * AR_OK is ptr[q] of every rank q of another process set: that rank's allocation mapped
   * into this process (CUDA IPC), or NULL where its owner passed NULL or q is on another
   * host (out of reach: only nccl-p2p runs across hosts, and it maps nothing). */
  ar_status (*share)(void *ctx, void **ptr, ar_status st);
  /* Unmaps what share mapped into ptr (the other processes' ranks, set to NULL), then waits
   * for every process: after it, each owner may free its allocations. */
  void (*unshare)(void *ctx, void **ptr);
  /* Copies len bytes at buf from the process of rank `root` to buf in every process. */
  ar_status (*bcast)(void *ctx, void *buf, size_t len, int root);
};

/* What the harness gives a transport. Every pair of distinct devices has peer access enabled;
 * ranks may share a device (co-located), and then reach each other by plain device copies.
 * Under MPI (peers != NULL) some ranks live in other processes (remote[r] = 1): their dev and
 * comm mean nothing here, data[r] is their buffer mapped into this process, and gpu[] says
 * which ranks share a physical GPU (tp_same_gpu); a transport allocates only for its own
 * ranks and reaches the others' memory through tp_share. */
struct tp_world {
  int n;
  int dev[AR_MAX_GPUS];         /* CUDA ordinal of each rank (may repeat) */
  int sms[AR_MAX_GPUS];         /* the SMs rank r's kernels that wait on peers may occupy: the
                                 * device's, divided among the ranks on it (placement.h); every
                                 * such kernel keeps to one resident block per SM of it, so all
                                 * co-located ranks' waiting blocks fit the GPU at once */
  ncclComm_t comm[AR_MAX_GPUS]; /* one communicator per rank, made by that rank's thread */
  void *data[AR_MAX_GPUS];      /* each rank's in-place AllReduce buffer */
  size_t data_bytes;            /* capacity of each data buffer */
  const struct tp_peers *peers; /* NULL: every rank is in this process */
  unsigned char remote[AR_MAX_GPUS]; /* rank r runs in another process (peers != NULL) */
  int gpu[AR_MAX_GPUS];         /* with peers: one number per physical GPU of the job */
};

/* 1 when ranks a and b run on one physical GPU. */
int tp_same_gpu(const struct tp_world *w, int a, int b);
/* w->peers->share, or st itself in a one-process world (world.cu). */
ar_status tp_share(const struct tp_world *w, void **ptr, ar_status st);
/* w->peers->unshare; nothing in a one-process world. */
void tp_unshare(const struct tp_world *w, void **ptr);
/* w->peers->bcast; AR_OK at once in a one-process world. */
ar_status tp_bcast(const struct tp_world *w, void *buf, size_t len, int root);

/* One (schedule, size) to execute repeatedly. */
struct tp_job {
  const struct ar_schedule *sched;
  size_t nelem;  /* elements per rank; chunk c is [ar_chunk_begin(nelem, nchunks, c), ...) */
  int dtype;     /* enum ar_dtype; the reduction is a sum */
  int pipeline;  /* mini-batches per transfer (1: none, 0: the transport chooses); honoured
                  * where the transport pipelines (ce), read as 1 elsewhere */
  struct tp_degrade degrade; /* zero: healthy links (no emulation) */
  /* Optional hooks; zero (the default) leaves every stream operation as it was without them.
   * pipeline_used: NULL, or where setup stores the mini-batches per transfer it uses (the most
   * any transfer is split into; 1 where the transport does not pipeline).
   * marks: NULL, or an array of n pointers (--phases): each enqueue of a rank reads marks[rank]
   * (written only by that rank's thread, between its enqueues): NULL for an iteration without
   * marks, else where to mark the end of each round (round_marks.h). Setup, seeing a non-NULL
   * array, prepares what the marks need (sm: a marked kernel, loaded before any timing). */
  int *pipeline_used;
  struct tp_marks *const *marks;
  /* The scenario's --set values (settings.h) the executor and its lowering read, as arguments:
   * no executor reads process-wide settings. NULL: every default. */
  const struct ar_settings *settings;
};

struct tp_ctx; /* a transport's private state for one job */

/* A transport's executor; tp_ops_of(id) is the one of enum ar_tp id (src/transports.h), whose
 * descriptor says its name and what it can do. */
struct tp_ops {
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

/* executors.cu: the executors, indexed by enum ar_tp (every transport of AR_TRANSPORT_LIST). */
const struct tp_ops *tp_ops_of(int id);
/* The executor of the transport named `name`, or NULL. */
const struct tp_ops *tp_find(const char *name);

/* degrade.cu: the healthy bandwidth the emulation divides: the median of `reps` pushes of
 * `bytes` from device src to device dst by the copy engine (cudaMemcpyAsync on a stream of
 * src, as the ce transport copies), after one untimed copy. Enables peer access both ways
 * (harmless if already enabled) and frees what it allocated. *bw in bytes/s. */
ar_status tp_degrade_measure_bw(int src, int dst, size_t bytes, int reps, double *bw);
/* degrade.cu: `arbench run --self-test degrade` on the first ndev (<= 4) devices: 1, 2 and
 * 3 peers sending to, receiving from, and both at once, a GPU degraded by `factor` (256 MiB per
 * peer and direction), on every transport; prints requested (healthy / factor) vs measured
 * rates to `out`; the transports take `settings` (--set; NULL: the defaults). Returns 0 when
 * every measured rate is within 5% of the request, 1 if not. */
int tp_degrade_selftest(const int *dev, int ndev, double factor,
                        const struct ar_settings *settings, FILE *out);

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
