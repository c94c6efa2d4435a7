/* Flag writes and waits on streams: stream memory operations or one-thread kernels. */
#include <cuda.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "settings.h"
#include "flags.h"
#include "sum.cuh"

typedef CUresult (*tp_write_fn)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
typedef CUresult (*tp_wait_fn)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static tp_write_fn write_fn;
static tp_wait_fn wait_fn;
static int chosen = TP_FLAGS_KERNEL;

/* Resolves the driver's stream memory operations once (the CUDA 12 ABI, i.e. the _v2 calls). */
static void resolve(void) {
  cudaDriverEntryPointQueryResult q1 = cudaDriverEntryPointSymbolNotFound, q2 = q1;
  void *w = NULL, *v = NULL;
  if (cudaGetDriverEntryPointByVersion("cuStreamWriteValue32", &w, 12000, cudaEnableDefault, &q1) !=
          cudaSuccess ||
      cudaGetDriverEntryPointByVersion("cuStreamWaitValue32", &v, 12000, cudaEnableDefault, &q2) !=
          cudaSuccess ||
      q1 != cudaDriverEntryPointSuccess || q2 != cudaDriverEntryPointSuccess || !w || !v) {
    (void)cudaGetLastError();
    ar_log(AR_LOG_INFO, "flags: stream memory operations unavailable, using flag kernels");
  } else {
    write_fn = (tp_write_fn)w;
    wait_fn = (tp_wait_fn)v;
    chosen = TP_FLAGS_MEMOP;
  }
}

/* The flags setting (settings.h): auto and memop take stream memory operations where the driver
 * has them, kernel always the one-thread kernels. */
extern "C" int tp_flags_mode(const struct ar_settings *s) {
  pthread_once(&once, resolve);
  return ar_setting_value(s, AR_SET_FLAGS) == 2 ? TP_FLAGS_KERNEL : chosen;
}

extern "C" const char *tp_flags_name(int mode) {
  return mode == TP_FLAGS_MEMOP ? "memop" : "kernel";
}

/* Releases the stream's earlier work to whoever waits on *p. */
static __global__ void flag_write_kernel(uint32_t *p, uint32_t v) {
  __threadfence_system();
  tp_flag_store(p, v);
}

/* Holds the stream until *p reaches v. */
static __global__ void flag_wait_kernel(const uint32_t *p, uint32_t v) {
  tp_flag_spin(p, v);
  __threadfence_system();
}

extern "C" ar_status tp_flag_write(int mode, cudaStream_t s, uint32_t *addr, uint32_t val,
                                   uint32_t *staging) {
  if (mode == TP_FLAGS_MEMOP && write_fn && staging) {
    /* the value lands in our own memory, then the copy engine carries it to the peer: the
     * memop has a memory barrier for the stream's earlier work, the copy is stream-ordered */
    CUresult r = write_fn((CUstream)s, (CUdeviceptr)(uintptr_t)staging, val, 0);
    if (r != CUDA_SUCCESS) {
      ar_log(AR_LOG_WARN, "cuStreamWriteValue32 failed (%d)", (int)r);
      return AR_ERR_CUDA;
    }
    if (addr != staging)
      CUDA_CHECK(cudaMemcpyAsync(addr, staging, sizeof(uint32_t), cudaMemcpyDeviceToDevice, s));
    return AR_OK;
  }
  flag_write_kernel<<<1, 1, 0, s>>>(addr, val);
  CUDA_CHECK(cudaGetLastError());
  return AR_OK;
}

extern "C" ar_status tp_flag_wait(int mode, cudaStream_t s, const uint32_t *addr, uint32_t val) {
  if (mode == TP_FLAGS_MEMOP && wait_fn) {
    CUresult r = wait_fn((CUstream)s, (CUdeviceptr)(uintptr_t)addr, val, CU_STREAM_WAIT_VALUE_GEQ);
    if (r != CUDA_SUCCESS) {
      ar_log(AR_LOG_WARN, "cuStreamWaitValue32 failed (%d)", (int)r);
      return AR_ERR_CUDA;
    }
    return AR_OK;
  }
  flag_wait_kernel<<<1, 1, 0, s>>>(addr, val);
  CUDA_CHECK(cudaGetLastError());
  return AR_OK;
}
