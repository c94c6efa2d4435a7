/* The simulated GPU's stream clocks (tests/sim/fake_gpu.c's opening comment): each stream has
 * a clock (us, struct CUstream_st in fake_gpu.h) that work moves on; a captured CUDA graph holds
 * the clock time of what it captured; an event is a stamp of a clock, an interprocess one in the
 * job's file under AR_SIM_SHM (fake_mem.c). */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_gpu.h"

/* ---- streams ---- */

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
  if (s && s->capturing) { /* as CUDA: not allowed while capturing, and the capture is lost */
    s->cap_bad = 1;
    return cudaErrorStreamCaptureUnsupported;
  }
  return cudaSuccess;
}

/* ---- CUDA graphs: stream capture (timing.mode=graph) ---- */

/* A captured graph and its executable: the clock time of what was captured. The work itself
 * ran at capture (this fake runs everything at once); a launch adds its time to the stream. */
struct CUgraph_st {
  double span;
};
struct CUgraphExec_st {
  double span;
  int launched; /* a second launch is refused: the harness captures each batch anew */
  int uploaded; /* AR_SIM_GRAPH_LOG=FILE: each launch appends "launch uploaded|not uploaded" */
};

cudaError_t cudaStreamBeginCapture(cudaStream_t s, enum cudaStreamCaptureMode mode) {
  (void)mode;
  if (s->capturing) return cudaErrorIllegalState;
  s->capturing = 1;
  s->cap_bad = 0;
  s->cap_t0 = s->clock;
  return cudaSuccess;
}
cudaError_t cudaStreamIsCapturing(cudaStream_t s, enum cudaStreamCaptureStatus *st) {
  *st = !s->capturing ? cudaStreamCaptureStatusNone
        : s->cap_bad  ? cudaStreamCaptureStatusInvalidated
                      : cudaStreamCaptureStatusActive;
  return cudaSuccess;
}
cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *g) {
  if (!s->capturing) return cudaErrorIllegalState;
  double span = s->clock - s->cap_t0;
  s->clock = s->cap_t0; /* nothing captured has run on the stream's time yet */
  s->capturing = 0;
  *g = NULL;
  if (s->cap_bad) return cudaErrorStreamCaptureInvalidated;
  if (!(*g = calloc(1, sizeof(**g)))) return cudaErrorMemoryAllocation;
  (*g)->span = span;
  return cudaSuccess;
}
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *x, cudaGraph_t g, unsigned long long flags) {
  (void)flags;
  if (!g || !(*x = calloc(1, sizeof(**x)))) return cudaErrorInvalidValue;
  (*x)->span = g->span;
  return cudaSuccess;
}
cudaError_t cudaGraphUpload(cudaGraphExec_t x, cudaStream_t s) {
  if (!x || s->capturing) return cudaErrorInvalidValue;
  x->uploaded = 1;
  return cudaSuccess;
}
cudaError_t cudaGraphLaunch(cudaGraphExec_t x, cudaStream_t s) {
  if (!x || s->capturing) return cudaErrorInvalidValue;
  if (x->launched++) {
    fprintf(stderr, "fake_gpu: a graph launched twice (its flags' sequence numbers would "
                    "repeat)\n");
    return cudaErrorInvalidValue;
  }
  s->clock += x->span;
  const char *log = getenv("AR_SIM_GRAPH_LOG");
  FILE *f = log && *log ? fopen(log, "a") : NULL;
  if (f) fprintf(f, "launch %s\n", x->uploaded ? "uploaded" : "not uploaded"), fclose(f);
  return cudaSuccess;
}
cudaError_t cudaGraphDestroy(cudaGraph_t g) {
  free(g);
  return cudaSuccess;
}
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t x) {
  free(x);
  return cudaSuccess;
}

/* ---- events: stamps of stream clocks; interprocess ones in the file ---- */

struct CUevent_st {
  double own;            /* the stamp of an event of this process */
  double *t;             /* where its stamp is: &own, or in the shared file (interprocess) */
  unsigned long long at; /* interprocess, in the file: the stamp's offset (0: not there) */
  size_t span;           /* and the bytes taken there (0: another process's, opened) */
};

cudaError_t cudaEventCreate(cudaEvent_t *e) {
  *e = calloc(1, sizeof(**e));
  if (*e) (*e)->t = &(*e)->own;
  return *e ? cudaSuccess : cudaErrorMemoryAllocation;
}
/* cudaEventInterprocess (with cudaEventDisableTiming, as CUDA requires): the stamp in the
 * file under AR_SIM_SHM (cudaIpcGetEventHandle), the process's own without it. */
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags) {
  if ((flags & cudaEventInterprocess) && !(flags & cudaEventDisableTiming))
    return cudaErrorInvalidValue;
  cudaError_t r = cudaEventCreate(e);
  if (r != cudaSuccess || !(flags & cudaEventInterprocess) || !sim_shared())
    return r;
  size_t at = 0, span = 0;
  pthread_mutex_lock(&sim_mem.mu);
  unsigned char *t = sim_take(sizeof(double), &at, &span);
  pthread_mutex_unlock(&sim_mem.mu);
  if (!t) {
    free(*e);
    return cudaErrorMemoryAllocation;
  }
  (*e)->t = (double *)t;
  (*e)->at = at;
  (*e)->span = span;
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t e) {
  if (e && e->span) {
    pthread_mutex_lock(&sim_mem.mu);
    sim_give(e->at, e->span);
    pthread_mutex_unlock(&sim_mem.mu);
  }
  free(e);
  return cudaSuccess;
}
cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t *h, cudaEvent_t e) {
  if (!sim_shared()) return cudaErrorNotSupported;
  if (!e->span) return cudaErrorInvalidResourceHandle; /* not interprocess, or opened */
  struct sim_ipc x = {SIM_IPC_MAGIC, sim_mem.region, e->at, sizeof(double)};
  memset(h, 0, sizeof(*h));
  memcpy(h->reserved, &x, sizeof(x));
  return cudaSuccess;
}
/* Another process's event: its stamp, read and written in the file. */
cudaError_t cudaIpcOpenEventHandle(cudaEvent_t *e, cudaIpcEventHandle_t h) {
  struct sim_ipc x;
  memcpy(&x, h.reserved, sizeof(x));
  *e = NULL;
  if (!sim_shared()) return cudaErrorNotSupported;
  if (x.magic != SIM_IPC_MAGIC || !x.at) return cudaErrorInvalidResourceHandle;
  if (x.region == sim_mem.region) return cudaErrorDeviceUninitialized;
  cudaError_t r = cudaEventCreate(e);
  if (r == cudaSuccess) (*e)->t = (double *)(sim_mem.base + x.at);
  return r;
}
/* Sets e's stamp to t (us). */
void sim_stamp(cudaEvent_t e, double t) { __atomic_store(e->t, &t, __ATOMIC_SEQ_CST); }
/* e's stamp (us). */
static double sim_stamp_of(cudaEvent_t e) {
  double t;
  __atomic_load(e->t, &t, __ATOMIC_SEQ_CST);
  return t;
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  sim_stamp(e, s->clock);
  return cudaSuccess;
}
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags) {
  (void)flags;
  double t = sim_stamp_of(e);
  if (t > s->clock) s->clock = t;
  return cudaSuccess;
}
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) {
  *ms = (float)((sim_stamp_of(b) - sim_stamp_of(a)) / 1000);
  return cudaSuccess;
}
