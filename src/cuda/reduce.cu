/* Reduction kernels: dst = src0 + src1 + ... (n-way, float accumulation), 16-byte vectors,
 * for float, bf16 and fp16. */
#include <string.h>

#include "exec_prog.h"
#include "sum.cuh"

#define SUM_THREADS 512


/* Grid-wide n-way sum (tp_sum_range does the work), after the flags w (if any) reach their
 * values: each block's first thread spins on them (acquire loads), then the block goes on. */
template <typename T>
__global__ void __launch_bounds__(SUM_THREADS)
    sum_kernel(T *dst, tp_srcs a, int nsrc, size_t nelem, tp_waits w) {
  if (w.n) {
    if (threadIdx.x == 0)
      for (int i = 0; i < w.n; i++)
        tp_flag_spin(w.p[i], w.v[i]);
    __syncthreads();
  }
  tp_sum_range<T>(dst, a, nsrc, nelem, blockIdx.x * (size_t)blockDim.x + threadIdx.x,
                  (size_t)gridDim.x * blockDim.x);
}

/* Blocks of a sum of nelem elements: enough that each thread has TP_SUM_UNROLL vectors, at most
 * 4 per SM and max_blocks. */
static size_t sum_blocks(size_t nelem, int dtype, int max_blocks) {
  size_t vecs = nelem * ar_dtype_size(dtype) / 16;
  size_t blocks = (vecs / TP_SUM_UNROLL + SUM_THREADS - 1) / SUM_THREADS;
  size_t most = (size_t)tp_sm_count() * 4;
  if (blocks > most) blocks = most;
  if (max_blocks > 0 && blocks > (size_t)max_blocks) blocks = max_blocks;
  return blocks < 1 ? 1 : blocks;
}

/* At most half the rank's SMs (tp_wait_sms): a sum block can fill an SM's registers, and with a block spinning on
 * every SM the kernels that write the flags found none (the flow program with 132 sum blocks
 * hung on 4 x H200, runs/reference/h200x4-issue4-all, midsize_call1.log). */
extern "C" int ar_sum_can_wait(size_t nelem, int dtype, int max_blocks, int sms) {
  return sum_blocks(nelem, dtype, max_blocks) <= (size_t)sms / 2;
}

extern "C" ar_status ar_sum_launch(void *dst, const void *const *srcs, int nsrc, size_t nelem,
                                   int dtype, int max_blocks, cudaStream_t s) {
  return ar_sum_wait_launch(dst, srcs, nsrc, nelem, dtype, max_blocks, NULL, NULL, 0, s);
}

extern "C" ar_status ar_sum_wait_launch(void *dst, const void *const *srcs, int nsrc,
                                        size_t nelem, int dtype, int max_blocks,
                                        const uint32_t *const *wait, const uint32_t *val, int nwait,
                                        cudaStream_t s) {
  if (!nelem) return AR_OK;
  if (nsrc < 1 || nsrc > TP_MAX_SUM || nwait < 0 || nwait > TP_MAX_WAITS) return AR_ERR_INVALID;
  tp_waits w;
  memset(&w, 0, sizeof(w));
  w.n = nwait;
  for (int i = 0; i < nwait; i++) {
    w.p[i] = wait[i];
    w.v[i] = val[i];
  }
  tp_srcs a;
  memset(&a, 0, sizeof(a));
  for (int i = 0; i < nsrc; i++)
    a.p[i] = srcs[i];
  size_t blocks = sum_blocks(nelem, dtype, max_blocks);
  switch (dtype) {
  case AR_DT_F32:
    sum_kernel<float><<<blocks, SUM_THREADS, 0, s>>>((float *)dst, a, nsrc, nelem, w);
    break;
  case AR_DT_BF16:
    sum_kernel<__nv_bfloat16><<<blocks, SUM_THREADS, 0, s>>>((__nv_bfloat16 *)dst, a, nsrc, nelem, w);
    break;
  case AR_DT_F16:
    sum_kernel<__half><<<blocks, SUM_THREADS, 0, s>>>((__half *)dst, a, nsrc, nelem, w);
    break;
  default: return AR_ERR_INVALID;
  }
  CUDA_CHECK(cudaGetLastError());
  return AR_OK;
}

extern "C" ar_status ar_reduce_launch(void *dst, const void *src, size_t nelem, int dtype,
                                      cudaStream_t s) {
  const void *srcs[2] = {dst, src};
  return ar_sum_launch(dst, srcs, 2, nelem, dtype, 0, s);
}
