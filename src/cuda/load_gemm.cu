/* The gemm load: C = A B with cuBLASLt (opened at the first GEMM: lt_open; bf16 A and B, fp32 accumulation, bf16 C, column-major,
 * its heuristic's first algorithm with a 32 MiB workspace), as a training step's layers run
 * beside the gradients' AllReduce. A and B hold small integers with a period of 7 along k, so
 * every element of C has a closed form of seven terms: the check compares all of C with it
 * (within bf16's rounding of the exact fp32 sum), and C is NaN before each launch. */
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

#include "load_int.h"
#include "transport.h"

#define GEMM_WORKSPACE (32u << 20)

/* cuBLASLt, opened at the first GEMM rather than linked: linked, its 540 MB library is mapped
 * and relocated at every start of arbench (about 200 MB of memory for `arbench --list` or a
 * model run that never computes). Its entry points, by name: */
#define LT_FUNCS(X)                                                                        \
  X(cublasLtCreate) X(cublasLtDestroy) X(cublasLtGetStatusString) X(cublasLtMatmul)        \
  X(cublasLtMatmulAlgoGetHeuristic) X(cublasLtMatmulDescCreate) X(cublasLtMatmulDescDestroy) \
  X(cublasLtMatmulPreferenceCreate) X(cublasLtMatmulPreferenceDestroy)                    \
  X(cublasLtMatmulPreferenceSetAttribute) X(cublasLtMatrixLayoutCreate)                   \
  X(cublasLtMatrixLayoutDestroy)
static struct {
#define LT_PTR(f) decltype(&::f) f;
  LT_FUNCS(LT_PTR)
#undef LT_PTR
  char why[320]; /* why it cannot be used ("": it can) */
} lt;
static pthread_once_t lt_once = PTHREAD_ONCE_INIT;

#ifndef AR_CUBLASLT_PATH
#define AR_CUBLASLT_PATH "/usr/local/cuda/lib64/libcublasLt.so"
#endif
/* Opens cuBLASLt (the loader's search, then the toolkit's folder the build knew) into lt. */
static void lt_open(void) {
  static const char *const names[] = {"libcublasLt.so", "libcublasLt.so.13", "libcublasLt.so.12",
                                      AR_CUBLASLT_PATH};
  void *h = NULL;
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !h; i++) h = dlopen(names[i], RTLD_NOW);
  if (!h) {
    snprintf(lt.why, sizeof(lt.why), "cannot open cuBLASLt (libcublasLt.so of the CUDA toolkit; "
             "LD_LIBRARY_PATH may name its folder): %s", dlerror());
    return;
  }
#define LT_SYM(f)                                                                          \
  if (!(lt.f = (decltype(lt.f))dlsym(h, #f)) && !lt.why[0])                                \
    snprintf(lt.why, sizeof(lt.why), "cuBLASLt has no %s", #f);
  LT_FUNCS(LT_SYM)
#undef LT_SYM
}

struct gemm {
  cublasLtHandle_t lt;
  cublasLtMatmulDesc_t op;
  cublasLtMatrixLayout_t la, lb, lc;
  cublasLtMatmulAlgo_t algo;
  void *ws;
  __nv_bfloat16 *a, *b, *c;
  size_t cap_a, cap_b, cap_c; /* elements each holds */
  int m, n, k;
};

/* The inputs: a(i, k) and b(k, j) in -3..3, both periodic in k with period 7 (i, j, k below
 * 65536: no overflow). */
__device__ __forceinline__ int gemm_a(int i, int k) { return (3 * i + 5 * k) % 7 - 3; }
__device__ __forceinline__ int gemm_b(int k, int j) { return (5 * k + 3 * j) % 7 - 3; }

__global__ void gemm_fill(__nv_bfloat16 *a, __nv_bfloat16 *b, int m, int n, int k) {
  size_t na = (size_t)m * k, nb = (size_t)k * n, stride = (size_t)gridDim.x * blockDim.x;
  for (size_t x = blockIdx.x * (size_t)blockDim.x + threadIdx.x; x < na + nb; x += stride) {
    if (x < na) a[x] = __int2bfloat16_rn(gemm_a((int)(x % m), (int)(x / m)));
    else b[x - na] = __int2bfloat16_rn(gemm_b((int)((x - na) % k), (int)((x - na) / k)));
  }
}

/* Every element of C against sum_k a(i, k) b(k, j), taken over one period of k: the count(r)
 * k < K with k = r (mod 7) each contribute a(i, r) b(r, j). A block per column at a time (C is
 * column-major: its threads read it in order). */
__global__ void gemm_check(const __nv_bfloat16 *c, int m, int n, int k, unsigned long long *wrong) {
  __shared__ unsigned long long block_wrong;
  if (threadIdx.x == 0) block_wrong = 0;
  __syncthreads();
  unsigned long long mine = 0;
  for (int j = blockIdx.x; j < n; j += gridDim.x) {
    int wb[7]; /* count(r) b(r, j) */
    for (int r = 0; r < 7; r++) wb[r] = (k / 7 + (r < k % 7)) * gemm_b(r, j);
    for (int i = threadIdx.x; i < m; i += blockDim.x) {
      int e = 0;
      for (int r = 0; r < 7; r++) e += wb[r] * gemm_a(i, r);
      float v = __bfloat162float(c[(size_t)j * m + i]), d = fabsf(v - (float)e);
      mine += !(d <= fabsf((float)e) / 128 + 0.5f); /* NaN: wrong */
    }
  }
  for (int off = 16; off > 0; off /= 2) mine += __shfl_down_sync(0xffffffffu, mine, off);
  if ((threadIdx.x & 31) == 0 && mine) atomicAdd(&block_wrong, mine);
  __syncthreads();
  if (threadIdx.x == 0 && block_wrong) atomicAdd(wrong, block_wrong);
}

/* A cuBLASLt call: on failure, why names it and the status. */
#define LT_CHECK(call)                                                                     \
  do {                                                                                     \
    cublasStatus_t s_ = (call);                                                            \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                     \
      snprintf(why, len, "cuBLASLt: %s: %s", #call, lt.cublasLtGetStatusString(s_));          \
      return s_ == CUBLAS_STATUS_ALLOC_FAILED ? AR_ERR_OOM : AR_ERR_CUDA;                  \
    }                                                                                      \
  } while (0)

static ar_status gemm_create(void **impl, char *why, size_t len) {
  pthread_once(&lt_once, lt_open);
  if (lt.why[0]) {
    snprintf(why, len, "%s", lt.why);
    return AR_ERR_CUDA;
  }
  struct gemm *g = (struct gemm *)calloc(1, sizeof(*g));
  if (!g) return AR_ERR_NOMEM;
  *impl = g; /* gemm_destroy undoes what exists */
  LT_CHECK(lt.cublasLtCreate(&g->lt));
  LT_CHECK(lt.cublasLtMatmulDescCreate(&g->op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cudaError_t e = cudaMalloc(&g->ws, GEMM_WORKSPACE);
  if (e != cudaSuccess) {
    snprintf(why, len, "cuBLASLt's workspace: %s", cudaGetErrorString(e));
    cudaGetLastError();
    return AR_ERR_OOM;
  }
  return AR_OK;
}

/* Grows *p to hold `need` bf16 elements; AR_OK or AR_ERR_OOM with why. */
static ar_status grow(__nv_bfloat16 **p, size_t *cap, size_t need, const char *what, char *why,
                      size_t len) {
  if (need <= *cap) return AR_OK;
  cudaFree(*p);
  *p = NULL;
  *cap = 0;
  cudaError_t e = cudaMalloc((void **)p, need * sizeof(**p));
  if (e != cudaSuccess) {
    snprintf(why, len, "gemm: %s of %zu bf16 elements: %s", what, need, cudaGetErrorString(e));
    cudaGetLastError();
    *p = NULL;
    return AR_ERR_OOM;
  }
  *cap = need;
  return AR_OK;
}

static ar_status gemm_resize(void *impl, const struct ar_compute *c, cudaStream_t s, char *why,
                             size_t len) {
  struct gemm *g = (struct gemm *)impl;
  ar_status st = grow(&g->a, &g->cap_a, (size_t)c->m * c->k, "A", why, len);
  if (st == AR_OK) st = grow(&g->b, &g->cap_b, (size_t)c->k * c->n, "B", why, len);
  if (st == AR_OK) st = grow(&g->c, &g->cap_c, (size_t)c->m * c->n, "C", why, len);
  if (st != AR_OK) return st;
  if (g->m == c->m && g->n == c->n && g->k == c->k) return AR_OK;
  g->m = g->n = g->k = 0; /* until the plan is whole */
  gemm_fill<<<1024, 256, 0, s>>>(g->a, g->b, c->m, c->n, c->k);
  CUDA_CHECK(cudaGetLastError());
  if (g->la) lt.cublasLtMatrixLayoutDestroy(g->la);
  if (g->lb) lt.cublasLtMatrixLayoutDestroy(g->lb);
  if (g->lc) lt.cublasLtMatrixLayoutDestroy(g->lc);
  g->la = g->lb = g->lc = NULL;
  LT_CHECK(lt.cublasLtMatrixLayoutCreate(&g->la, CUDA_R_16BF, c->m, c->k, c->m));
  LT_CHECK(lt.cublasLtMatrixLayoutCreate(&g->lb, CUDA_R_16BF, c->k, c->n, c->k));
  LT_CHECK(lt.cublasLtMatrixLayoutCreate(&g->lc, CUDA_R_16BF, c->m, c->n, c->m));
  cublasLtMatmulPreference_t pref = NULL;
  uint64_t ws = GEMM_WORKSPACE;
  cublasLtMatmulHeuristicResult_t h;
  int found = 0;
  LT_CHECK(lt.cublasLtMatmulPreferenceCreate(&pref));
  cublasStatus_t r = lt.cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws));
  if (r == CUBLAS_STATUS_SUCCESS)
    r = lt.cublasLtMatmulAlgoGetHeuristic(g->lt, g->op, g->la, g->lb, g->lc, g->lc, pref, 1, &h,
                                       &found);
  lt.cublasLtMatmulPreferenceDestroy(pref);
  LT_CHECK(r);
  if (!found) {
    snprintf(why, len, "cuBLASLt has no algorithm for a bf16 GEMM of %dx%dx%d", c->m, c->n, c->k);
    return AR_ERR_CUDA;
  }
  g->algo = h.algo;
  g->m = c->m, g->n = c->n, g->k = c->k;
  return AR_OK;
}

static ar_status gemm_prepare(void *impl, cudaStream_t s) {
  struct gemm *g = (struct gemm *)impl;
  CUDA_CHECK(cudaMemsetAsync(g->c, 0xff, (size_t)g->m * g->n * sizeof(*g->c), s)); /* NaN */
  return AR_OK;
}

static ar_status gemm_launch(void *impl, cudaStream_t s) {
  struct gemm *g = (struct gemm *)impl;
  const float one = 1, zero = 0;
  cublasStatus_t r = lt.cublasLtMatmul(g->lt, g->op, &one, g->a, g->la, g->b, g->lb, &zero, g->c,
                                    g->lc, g->c, g->lc, &g->algo, g->ws, GEMM_WORKSPACE, s);
  if (r != CUBLAS_STATUS_SUCCESS) {
    ar_log(AR_LOG_WARN, "cublasLtMatmul (%dx%dx%d): %s", g->m, g->n, g->k,
           lt.cublasLtGetStatusString(r));
    return AR_ERR_CUDA;
  }
  return AR_OK;
}

static ar_status gemm_check_launch(void *impl, cudaStream_t s, unsigned long long *wrong) {
  struct gemm *g = (struct gemm *)impl;
  gemm_check<<<1024, 256, 0, s>>>(g->c, g->m, g->n, g->k, wrong);
  CUDA_CHECK(cudaGetLastError());
  return AR_OK;
}

static void gemm_destroy(void *impl) {
  struct gemm *g = (struct gemm *)impl;
  if (!g) return;
  if (g->la) lt.cublasLtMatrixLayoutDestroy(g->la);
  if (g->lb) lt.cublasLtMatrixLayoutDestroy(g->lb);
  if (g->lc) lt.cublasLtMatrixLayoutDestroy(g->lc);
  if (g->op) lt.cublasLtMatmulDescDestroy(g->op);
  if (g->lt) lt.cublasLtDestroy(g->lt);
  cudaFree(g->ws);
  cudaFree(g->a);
  cudaFree(g->b);
  cudaFree(g->c);
  free(g);
}

const struct load_ops load_gemm_ops = {gemm_create, gemm_resize, gemm_prepare, gemm_launch,
                                       gemm_check_launch, gemm_destroy};
