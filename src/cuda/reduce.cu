/* Reduction kernels: dst += src, vectorised, for float, bf16 and fp16; and the transport table. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <string.h>

#include "transport.h"

template <typename T> __device__ __forceinline__ T add(T a, T b) { return a + b; }

/* Grid-stride sum; 16-byte vectors where both pointers are aligned, scalars for the rest. */
template <typename T> __global__ void reduce_kernel(T *dst, const T *src, size_t nelem) {
  size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  const size_t per_vec = 16 / sizeof(T);
  size_t nvec = (((uintptr_t)dst | (uintptr_t)src) % 16 == 0) ? nelem / per_vec : 0;
  for (size_t v = tid; v < nvec; v += stride) {
    uint4 a = reinterpret_cast<const uint4 *>(dst)[v];
    uint4 b = reinterpret_cast<const uint4 *>(src)[v];
    T *pa = reinterpret_cast<T *>(&a);
    const T *pb = reinterpret_cast<const T *>(&b);

    for (size_t k = 0; k < per_vec; k++) pa[k] = add(pa[k], pb[k]);
    reinterpret_cast<uint4 *>(dst)[v] = a;
  }
  for (size_t i = nvec * per_vec + tid; i < nelem; i += stride) dst[i] = add(dst[i], src[i]);
}

extern "C" ar_status ar_reduce_launch(void *dst, const void *src, size_t nelem, int dtype,
                                      cudaStream_t s) {
  if (!nelem) return AR_OK;
  size_t bytes = nelem * ar_dtype_size(dtype);
  int threads = 512;
  size_t blocks = (bytes / 16 + threads - 1) / threads;
  if (blocks > 132 * 8) blocks = 132 * 8;
  if (blocks < 1) blocks = 1;
  switch (dtype) {
  case AR_DT_F32: reduce_kernel<<<blocks, threads, 0, s>>>((float *)dst, (const float *)src, nelem); break;
  case AR_DT_BF16:
    reduce_kernel<<<blocks, threads, 0, s>>>((__nv_bfloat16 *)dst, (const __nv_bfloat16 *)src, nelem);
    break;
  case AR_DT_F16: reduce_kernel<<<blocks, threads, 0, s>>>((__half *)dst, (const __half *)src, nelem); break;
  default: return AR_ERR_INVALID;
  }
  CUDA_CHECK(cudaGetLastError());
  return AR_OK;
}

extern "C" size_t ar_dtype_size(int dtype) { return dtype == AR_DT_F32 ? 4 : 2; }
extern "C" const char *ar_dtype_name(int dtype) {
  return dtype == AR_DT_F32 ? "float32" : dtype == AR_DT_BF16 ? "bf16" : "fp16";
}

extern "C" const struct tp_ops *tp_find(const char *name) {
  static const struct tp_ops *const all[] = {&tp_nccl_p2p, &tp_ce, &tp_sm};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
    if (!strcmp(all[i]->name, name)) return all[i];
  return NULL;
}
