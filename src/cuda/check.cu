/* Inputs and result checks on the GPU: the fill kernel writes each rank's inputs for one
 * iteration's seed (inputs.h), the check kernel compares every element with the closed-form sum
 * for the same seed and counts the wrong ones. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "inputs.h"
#include "kernels.h"
#include "transport.h"

template <typename T> __device__ __forceinline__ T from_int(int v);
template <> __device__ __forceinline__ float from_int<float>(int v) { return (float)v; }
template <> __device__ __forceinline__ __nv_bfloat16 from_int<__nv_bfloat16>(int v) {
  return __int2bfloat16_rn(v);
}
template <> __device__ __forceinline__ __half from_int<__half>(int v) { return __int2half_rn(v); }

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }

/* Writes rank's inputs for the iteration's seed (grid-stride). */
template <typename T>
__global__ void fill_kernel(T *data, size_t nelem, int rank, unsigned long long seed) {
  uint64_t key = ar_input_key(rank, seed);
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < nelem; i += stride)
    data[i] = from_int<T>(ar_input_at(key, i));
}

/* Counts mismatches with the seed's sums per block, then one atomic per block. */
template <typename T>
__global__ void check_kernel(const T *data, size_t nelem, int nranks, unsigned long long seed,
                             unsigned long long *wrong) {
  __shared__ unsigned long long block_wrong;
  __shared__ uint64_t key[AR_MAX_GPUS]; /* each rank's key, once per block */
  if (threadIdx.x == 0) block_wrong = 0;
  if ((int)threadIdx.x < nranks) key[threadIdx.x] = ar_input_key((int)threadIdx.x, seed);
  __syncthreads();
  unsigned long long mine = 0;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < nelem; i += stride) {
    int sum = 0; /* ar_expected_value(nranks, i, seed) with the keys hoisted */
    for (int r = 0; r < nranks; r++) sum += ar_input_at(key[r], i);
    mine += to_float(data[i]) != (float)sum;
  }
  for (int off = 16; off > 0; off /= 2) mine += __shfl_down_sync(0xffffffffu, mine, off);
  if ((threadIdx.x & 31) == 0 && mine) atomicAdd(&block_wrong, mine);
  __syncthreads();
  if (threadIdx.x == 0 && block_wrong) atomicAdd(wrong, block_wrong);
}

/* Blocks for a grid-stride loop over nelem elements: enough to fill the GPU, no more. */
static unsigned grid_for(size_t nelem, int threads) {
  size_t b = (nelem + threads - 1) / threads;
  if (b > 132 * 16) b = 132 * 16;
  return b ? (unsigned)b : 1u;
}

extern "C" ar_status ar_fill_launch(void *data, size_t nelem, int dtype, int rank,
                                    unsigned long long seed, cudaStream_t s) {
  const int t = 256;
  switch (dtype) {
  case AR_DT_F32:
    fill_kernel<<<grid_for(nelem, t), t, 0, s>>>((float *)data, nelem, rank, seed);
    break;
  case AR_DT_BF16:
    fill_kernel<<<grid_for(nelem, t), t, 0, s>>>((__nv_bfloat16 *)data, nelem, rank, seed);
    break;
  case AR_DT_F16:
    fill_kernel<<<grid_for(nelem, t), t, 0, s>>>((__half *)data, nelem, rank, seed);
    break;
  default: return AR_ERR_INVALID;
  }
  CUDA_CHECK(cudaGetLastError());
  return AR_OK;
}

extern "C" ar_status ar_check_launch(const void *data, size_t nelem, int dtype, int nranks,
                                     unsigned long long seed, unsigned long long *wrong,
                                     cudaStream_t s) {
  const int t = 256; /* >= AR_MAX_GPUS: the first threads load the keys */
  if (nranks < 1 || nranks > AR_MAX_GPUS) return AR_ERR_INVALID;
  switch (dtype) {
  case AR_DT_F32:
    check_kernel<<<grid_for(nelem, t), t, 0, s>>>((const float *)data, nelem, nranks, seed, wrong);
    break;
  case AR_DT_BF16:
    check_kernel<<<grid_for(nelem, t), t, 0, s>>>((const __nv_bfloat16 *)data, nelem, nranks, seed,
                                                  wrong);
    break;
  case AR_DT_F16:
    check_kernel<<<grid_for(nelem, t), t, 0, s>>>((const __half *)data, nelem, nranks, seed, wrong);
    break;
  default: return AR_ERR_INVALID;
  }
  CUDA_CHECK(cudaGetLastError());
  return AR_OK;
}
