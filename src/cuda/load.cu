/* The compute loads that need no library: membw (passes over two buffers past the L2, each
 * element read, incremented and written to the other buffer: HBM busy) and sm (one block of
 * 1024 threads on each of N SMs, integer steps in registers: issue slots busy, no memory
 * traffic); and ar_load_*, which pick a kind's operations (the GEMM's: load_gemm.cu). Each
 * result has a closed form the check kernels compare with. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "load_int.h"
#include "transport.h"

struct ar_load {
  struct ar_compute c;
  const struct load_ops *ops;
  void *impl;
};

/* Counts one block's mismatches, then one atomic per block (as check.cu's check). */
__device__ __forceinline__ void count_wrong(unsigned long long mine, unsigned long long *wrong) {
  __shared__ unsigned long long block_wrong;
  if (threadIdx.x == 0) block_wrong = 0;
  __syncthreads();
  for (int off = 16; off > 0; off /= 2) mine += __shfl_down_sync(0xffffffffu, mine, off);
  if ((threadIdx.x & 31) == 0 && mine) atomicAdd(&block_wrong, mine);
  __syncthreads();
  if (threadIdx.x == 0 && block_wrong) atomicAdd(wrong, block_wrong);
}

/* Blocks for a grid-stride loop: a few per SM of the current device. */
static unsigned grid_of(size_t items, int threads) {
  int dev = 0, sms = 132;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
    cudaGetLastError();
  size_t b = (items + threads - 1) / threads, cap = (size_t)sms * 4;
  return (unsigned)(b < 1 ? 1 : b > cap ? cap : b);
}

/* ---- membw ---- */

struct membw {
  float4 *buf[2];
  size_t cap;    /* bytes of each buffer */
  size_t n4;     /* float4s in use */
  int passes;
};

/* buf0 = each element's base value (its index mod 1024), buf1 = NaN. */
__global__ void membw_reset(float4 *b0, float4 *b1, size_t n4) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += stride) {
    float v = (float)((4 * i) & 1023);
    b0[i] = make_float4(v, v + 1, v + 2, v + 3);
    b1[i] = make_float4(NAN, NAN, NAN, NAN);
  }
}

/* One pass: dst = src + 1. */
__global__ void membw_pass(const float4 *__restrict__ src, float4 *__restrict__ dst, size_t n4) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += stride) {
    float4 v = src[i];
    dst[i] = make_float4(v.x + 1, v.y + 1, v.z + 1, v.w + 1);
  }
}

/* After p passes the buffer written last holds base + p. */
__global__ void membw_check(const float *out, size_t n, int p, unsigned long long *wrong) {
  unsigned long long mine = 0;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
    mine += out[i] != (float)((i & 1023) + p);
  count_wrong(mine, wrong);
}

static ar_status membw_create(void **impl, char *why, size_t len) {
  (void)why, (void)len;
  *impl = calloc(1, sizeof(struct membw));
  return *impl ? AR_OK : AR_ERR_NOMEM;
}

static ar_status membw_resize(void *impl, const struct ar_compute *c, cudaStream_t s, char *why,
                              size_t len) {
  struct membw *m = (struct membw *)impl;
  (void)s;
  if (c->bytes > m->cap) {
    cudaFree(m->buf[0]);
    cudaFree(m->buf[1]);
    m->buf[0] = m->buf[1] = NULL;
    m->cap = 0;
    cudaError_t e = cudaMalloc((void **)&m->buf[0], c->bytes);
    if (e == cudaSuccess) e = cudaMalloc((void **)&m->buf[1], c->bytes);
    if (e != cudaSuccess) {
      snprintf(why, len, "membw: two buffers of %llu bytes: %s", (unsigned long long)c->bytes,
               cudaGetErrorString(e));
      cudaGetLastError();
      return e == cudaErrorMemoryAllocation ? AR_ERR_OOM : AR_ERR_CUDA;
    }
    m->cap = c->bytes;
  }
  m->n4 = c->bytes / sizeof(float4);
  m->passes = c->passes;
  return AR_OK;
}

static ar_status membw_prepare(void *impl, cudaStream_t s) {
  struct membw *m = (struct membw *)impl;
  membw_reset<<<grid_of(m->n4, 512), 512, 0, s>>>(m->buf[0], m->buf[1], m->n4);
  CUDA_CHECK(cudaGetLastError());
  return AR_OK;
}

static ar_status membw_launch(void *impl, cudaStream_t s) {
  struct membw *m = (struct membw *)impl;
  unsigned g = grid_of(m->n4, 512);
  for (int p = 0; p < m->passes; p++)
    membw_pass<<<g, 512, 0, s>>>(m->buf[p % 2], m->buf[(p + 1) % 2], m->n4);
  CUDA_CHECK(cudaGetLastError());
  return AR_OK;
}

static ar_status membw_check_launch(void *impl, cudaStream_t s, unsigned long long *wrong) {
  struct membw *m = (struct membw *)impl;
  size_t n = 4 * m->n4;
  membw_check<<<grid_of(n, 512), 512, 0, s>>>((const float *)m->buf[m->passes % 2], n,
                                               m->passes, wrong);
  CUDA_CHECK(cudaGetLastError());
  return AR_OK;
}

static void membw_destroy(void *impl) {
  struct membw *m = (struct membw *)impl;
  if (!m) return;
  cudaFree(m->buf[0]);
  cudaFree(m->buf[1]);
  free(m);
}

static const struct load_ops membw_ops = {membw_create, membw_resize, membw_prepare,
                                          membw_launch, membw_check_launch, membw_destroy};

/* ---- sm ---- */

#define SM_THREADS 1024
#define SM_SEED 0x5eed1234u

struct smload {
  uint32_t *out;  /* a value per thread */
  int blocks;     /* the SMs kept busy */
  size_t cap;     /* values out holds */
  unsigned long long steps;
  int smem;       /* dynamic shared memory per block: over half an SM's, so one block an SM */
  uint32_t expect[2]; /* the value of an even and of an odd thread */
};

/* One dependent step: a multiply-add, a shift, an exclusive or (no closed form to fold). */
__host__ __device__ __forceinline__ uint32_t busy_step(uint32_t x) {
  x = x * 1664525u + 1013904223u;
  return x ^ (x >> 15);
}

/* What a thread of parity `odd` computes in `steps` steps: four chains at once, so that each
 * warp has independent work for the issue slots. */
__host__ __device__ __forceinline__ uint32_t busy_seed(int odd, int chain) {
  return SM_SEED + (uint32_t)odd + 0x9e3779b9u * (uint32_t)chain;
}

__global__ void __launch_bounds__(SM_THREADS) sm_busy(uint32_t *out, unsigned long long steps) {
  int odd = threadIdx.x & 1; /* not warp-uniform: every lane does its own work */
  uint32_t a = busy_seed(odd, 0), b = busy_seed(odd, 1), c = busy_seed(odd, 2),
           d = busy_seed(odd, 3);
  for (unsigned long long i = 0; i < steps; i++) {
    a = busy_step(a);
    b = busy_step(b);
    c = busy_step(c);
    d = busy_step(d);
  }
  out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = a ^ b ^ c ^ d;
}

__global__ void sm_check(const uint32_t *out, size_t n, uint32_t even, uint32_t odd,
                         unsigned long long *wrong) {
  unsigned long long mine = 0;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
    mine += out[i] != ((i & 1) ? odd : even);
  count_wrong(mine, wrong);
}

static ar_status sm_create(void **impl, char *why, size_t len) {
  int dev = 0, per_sm = 0, optin = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  CUDA_CHECK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
  CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  struct smload *m = (struct smload *)calloc(1, sizeof(*m));
  if (!m) return AR_ERR_NOMEM;
  m->smem = per_sm / 2 + 1024 < optin ? per_sm / 2 + 1024 : optin;
  cudaError_t e = cudaFuncSetAttribute(sm_busy, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       m->smem);
  if (e != cudaSuccess) {
    snprintf(why, len, "sm: %d bytes of shared memory a block: %s", m->smem, cudaGetErrorString(e));
    cudaGetLastError();
    free(m);
    return AR_ERR_CUDA;
  }
  *impl = m;
  return AR_OK;
}

static ar_status sm_resize(void *impl, const struct ar_compute *c, cudaStream_t s, char *why,
                           size_t len) {
  struct smload *m = (struct smload *)impl;
  (void)s;
  size_t need = (size_t)c->sms * SM_THREADS;
  if (need > m->cap) {
    cudaFree(m->out);
    m->cap = 0;
    cudaError_t e = cudaMalloc((void **)&m->out, need * sizeof(uint32_t));
    if (e != cudaSuccess) {
      snprintf(why, len, "sm: %zu values: %s", need, cudaGetErrorString(e));
      cudaGetLastError();
      m->out = NULL;
      return AR_ERR_OOM;
    }
    m->cap = need;
  }
  m->blocks = c->sms;
  if (m->steps != c->steps) { /* the closed form, on the host once a size (steps >= 16) */
    for (int odd = 0; odd < 2; odd++) {
      uint32_t x = 0;
      for (int ch = 0; ch < 4; ch++) {
        uint32_t v = busy_seed(odd, ch);
        for (unsigned long long i = 0; i < c->steps; i++) v = busy_step(v);
        x ^= v;
      }
      m->expect[odd] = x;
    }
  }
  m->steps = c->steps;
  return AR_OK;
}

static ar_status sm_prepare(void *impl, cudaStream_t s) {
  struct smload *m = (struct smload *)impl;
  /* a byte that is neither value's lowest: never what a thread computes */
  unsigned poison = ~m->expect[0] & 0xffu;
  if (poison == (m->expect[1] & 0xffu)) poison ^= 1;
  CUDA_CHECK(cudaMemsetAsync(m->out, (int)poison, (size_t)m->blocks * SM_THREADS * sizeof(uint32_t),
                             s));
  return AR_OK;
}

static ar_status sm_launch(void *impl, cudaStream_t s) {
  struct smload *m = (struct smload *)impl;
  sm_busy<<<m->blocks, SM_THREADS, m->smem, s>>>(m->out, m->steps);
  CUDA_CHECK(cudaGetLastError());
  return AR_OK;
}

static ar_status sm_check_launch(void *impl, cudaStream_t s, unsigned long long *wrong) {
  struct smload *m = (struct smload *)impl;
  size_t n = (size_t)m->blocks * SM_THREADS;
  sm_check<<<grid_of(n, 512), 512, 0, s>>>(m->out, n, m->expect[0], m->expect[1], wrong);
  CUDA_CHECK(cudaGetLastError());
  return AR_OK;
}

static void sm_destroy(void *impl) {
  struct smload *m = (struct smload *)impl;
  if (!m) return;
  cudaFree(m->out);
  free(m);
}

static const struct load_ops sm_ops = {sm_create, sm_resize, sm_prepare, sm_launch,
                                       sm_check_launch, sm_destroy};

/* ---- the loads ---- */

extern "C" ar_status ar_load_create(const struct ar_compute *c, struct ar_load **out, char *why,
                                    size_t len) {
  const struct load_ops *ops = c->kind == AR_COMPUTE_MEMBW ? &membw_ops
                               : c->kind == AR_COMPUTE_SM  ? &sm_ops
                               : c->kind == AR_COMPUTE_GEMM ? &load_gemm_ops
                                                            : NULL;
  *out = NULL;
  if (len) why[0] = 0;
  if (!ops) return AR_ERR_INVALID;
  struct ar_load *l = (struct ar_load *)calloc(1, sizeof(*l));
  if (!l) return AR_ERR_NOMEM;
  l->c = *c;
  l->ops = ops;
  ar_status st = ops->create(&l->impl, why, len);
  if (st != AR_OK) {
    if (l->impl) ops->destroy(l->impl);
    free(l);
    return st;
  }
  *out = l;
  return AR_OK;
}

extern "C" ar_status ar_load_resize(struct ar_load *l, const struct ar_compute *c, cudaStream_t s,
                                    char *why, size_t len) {
  if (len) why[0] = 0;
  if (c->kind != l->c.kind) return AR_ERR_INVALID;
  ar_status st = l->ops->resize(l->impl, c, s, why, len);
  if (st == AR_OK) l->c = *c;
  return st;
}

extern "C" ar_status ar_load_prepare(struct ar_load *l, cudaStream_t s) {
  return l->ops->prepare(l->impl, s);
}

extern "C" ar_status ar_load_launch(struct ar_load *l, cudaStream_t s) {
  return l->ops->launch(l->impl, s);
}

extern "C" ar_status ar_load_check(struct ar_load *l, cudaStream_t s, unsigned long long *wrong) {
  return l->ops->check(l->impl, s, wrong);
}

extern "C" void ar_load_destroy(struct ar_load *l) {
  if (!l) return;
  l->ops->destroy(l->impl);
  free(l);
}
