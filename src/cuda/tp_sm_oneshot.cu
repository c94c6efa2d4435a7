/* The sm transport's low-latency oneshot path (see tp_sm_oneshot.h).
 *
 * Rank r's receive area holds 2 parities x n slots x `lines` lines of 16 bytes: line L of
 * slot s carries payload words 2L and 2L+1 of rank s's buffer as {word, seq, word, seq}.
 * Iteration i (seq = i + 1, never 0: the areas start zeroed) writes parity i % 2. Each 8-byte
 * half is written by one store and read by one load, so a half whose flag reads seq holds this
 * iteration's word (the 16-byte store and load are single instructions; 8-byte halves are the
 * unit the check relies on).
 * Why two parities suffice: rank r writes parity p again in iteration i + 2 only after its
 * iteration i + 1 finished, which needed q's iteration i + 1 lines, which q writes only after
 * its iteration i kernel (same stream) finished reading parity p. Nobody reads r's data: each
 * rank sums its own buffer and its received lines and writes its own buffer, so in-place is safe.
 * Every rank sums in rank order, so all ranks hold bit-identical results.
 * Under MPI (transport.h) each process allocates its own ranks' areas and shares them
 * (tp_share), as it unshares them in teardown: one collective each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvtx.h"
#include "tp_sm_oneshot.h"
#include "exec_prog.h"
#include "sum.cuh"

#define LL_THREADS 256
#define LL_BATCH 2 /* lines whose loads a thread issues before their stores (when it has several) */
#define LL_PRE 8 /* peers (rank order, ourselves included) whose lines are loaded up front */

struct ll_args {
  uint32_t *data;                      /* this rank's buffer, as 32-bit payload words */
  uint4 *out[AR_MAX_GPUS];             /* our slot of this parity in each peer's area */
  const uint4 *in[AR_MAX_GPUS];        /* each rank's slot of this parity in our area */
  int n, rank;
  size_t words;                        /* payload words (the last may be half full) */
  int half_tail;                       /* the last word holds one 2-byte element only */
  uint32_t seq;
};

struct tp_oneshot {
  struct tp_world w;
  int dtype;
  size_t nelem, words, lines;
  int half_tail;
  uint4 *area[AR_MAX_GPUS]; /* 2 * n * lines lines per rank, in that rank's memory (shared:
                             * a remote rank's is mapped into this process) */
  int blocks;
  const void *kernel; /* ll_kernel_line's instance or ll_kernel's */
  uint32_t iter[AR_MAX_GPUS];
};

/* Payload word w of our buffer (0 past the end; a half-full last word reads 2 bytes only). */
__device__ __forceinline__ uint32_t ll_word(const ll_args &a, size_t w) {
  if (w >= a.words) return 0;
  if (a.half_tail && w == a.words - 1) return *(const uint16_t *)(a.data + w);
  return a.data[w];
}

/* Adds the elements packed in word into acc (float accumulation, as tp_sum_range). */
template <typename T> __device__ __forceinline__ void ll_add(float *acc, uint32_t word) {
  const T *e = reinterpret_cast<const T *>(&word);
#pragma unroll
  for (int i = 0; i < (int)(4 / sizeof(T)); i++)
    acc[i] += tp_to_f(e[i]);
}

/* Stores acc's elements as payload word w of our buffer. */
template <typename T> __device__ __forceinline__ void ll_put(const ll_args &a, size_t w, const float *acc) {
  if (w >= a.words) return;
  uint32_t word;
  T *e = reinterpret_cast<T *>(&word);
#pragma unroll
  for (int i = 0; i < (int)(4 / sizeof(T)); i++)
    e[i] = tp_from_f<T>(acc[i]);
  if (a.half_tail && w == a.words - 1) *(uint16_t *)(a.data + w) = (uint16_t)word;
  else a.data[w] = word;
}

/* One rank's oneshot: push our lines to every peer, then per line wait for every peer's line,
 * sum all n contributions in rank order and write the result into our buffer. It runs where
 * ll_kernel_line does not: more than 8 ranks, or threads with several lines (a grid capped by
 * what stays resident, as co-located ranks' is); then each batch's loads are all issued
 * before its stores, so no load waits behind a store. */
template <typename T> __global__ void __launch_bounds__(LL_THREADS) ll_kernel(ll_args a) {
  size_t lines = (a.words + 1) / 2;
  size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x, step = (size_t)gridDim.x * blockDim.x;
  uint32_t own[LL_BATCH][2]; /* our first batch's words, for the sums */
  for (size_t L0 = first; L0 < lines; L0 += LL_BATCH * step) { /* every store
                                                                           * before any wait */
    uint32_t w[LL_BATCH][2];
#pragma unroll
    for (int j = 0; j < LL_BATCH; j++) {
      size_t L = L0 + j * step;
      w[j][0] = ll_word(a, 2 * L), w[j][1] = ll_word(a, 2 * L + 1);
      if (L0 == first) own[j][0] = w[j][0], own[j][1] = w[j][1];
    }
#pragma unroll
    for (int j = 0; j < LL_BATCH; j++) {
      size_t L = L0 + j * step;
      if (L >= lines) break;
      uint4 v = make_uint4(w[j][0], a.seq, w[j][1], a.seq);
      for (int q = 0; q < a.n; q++)
        if (q != a.rank) tp_store16_volatile(a.out[q] + L, v);
    }
  }
  int k = 0;
  for (size_t L = first; L < lines; L += step, k++) {
    const int pe = 4 / sizeof(T);
    float acc0[pe], acc1[pe];
    for (int i = 0; i < pe; i++) acc0[i] = acc1[i] = 0.f;
    uint4 pre[LL_PRE]; /* the first peers' lines, all loads in flight before any wait */
#pragma unroll
    for (int q = 0; q < LL_PRE; q++)
      if (q < a.n && q != a.rank) pre[q] = tp_load16_volatile(a.in[q] + L);
    for (int q = 0; q < a.n; q++) {
      uint32_t w0, w1;
      if (q == a.rank) {
        w0 = w1 = 0;
        if (k < LL_BATCH) {
#pragma unroll
          for (int j = 0; j < LL_BATCH; j++) /* registers, as pre below */
            if (j == k) w0 = own[j][0], w1 = own[j][1];
        } else {
          w0 = ll_word(a, 2 * L), w1 = ll_word(a, 2 * L + 1);
        }
      } else {
        uint4 v = make_uint4(0, 0, 0, 0);
#pragma unroll
        for (int j = 0; j < LL_PRE; j++) /* registers, not a local array indexed at run time */
          if (j == q) v = pre[j];
        if (q >= LL_PRE) v = tp_load16_volatile(a.in[q] + L);
        while (v.y != a.seq || v.w != a.seq)
          v = tp_load16_volatile(a.in[q] + L);
        w0 = v.x, w1 = v.z;
      }
      ll_add<T>(acc0, w0);
      ll_add<T>(acc1, w1);
    }
    ll_put<T>(a, 2 * L, acc0);
    ll_put<T>(a, 2 * L + 1, acc1);
  }
}

/* Our two payload words of line L (an 8-byte load where both are whole). */
__device__ __forceinline__ uint2 ll_words(const ll_args &a, size_t L) {
  if (2 * L + 2 <= a.words - (size_t)a.half_tail && ((uintptr_t)a.data & 7) == 0)
    return *(const uint2 *)(a.data + 2 * L);
  return make_uint2(ll_word(a, 2 * L), ll_word(a, 2 * L + 1));
}

/* ll_kernel for N ranks known when compiled and a grid with a thread per line: the same
 * protocol and sums in half the instructions (peers' pointers at fixed parameter offsets, every
 * peer's line in a register, no loop over lines), since at 1-16 KiB one thread's chain of
 * dependent instructions is a visible part of the AllReduce: 0.45-0.55 us of about 7.5 on
 * 4 x H200 (runs/reference/h200x4-oneshot-line). */
template <typename T, int N> __global__ void __launch_bounds__(LL_THREADS) ll_kernel_line(ll_args a) {
  size_t L = (size_t)blockIdx.x * LL_THREADS + threadIdx.x;
  if (L >= (a.words + 1) / 2) return;
  uint2 own = ll_words(a, L);
  uint4 v = make_uint4(own.x, a.seq, own.y, a.seq);
#pragma unroll
  for (int q = 0; q < N; q++)
    if (q != a.rank) tp_store16_volatile(a.out[q] + L, v);
  uint4 got[N];
#pragma unroll
  for (int q = 0; q < N; q++)
    if (q != a.rank) got[q] = tp_load16_volatile(a.in[q] + L);
  const int pe = 4 / sizeof(T);
  float acc0[pe], acc1[pe];
  for (int i = 0; i < pe; i++) acc0[i] = acc1[i] = 0.f;
#pragma unroll
  for (int q = 0; q < N; q++) { /* rank order, as ll_kernel */
    uint32_t w0 = own.x, w1 = own.y;
    if (q != a.rank) {
      while (got[q].y != a.seq || got[q].w != a.seq)
        got[q] = tp_load16_volatile(a.in[q] + L);
      w0 = got[q].x, w1 = got[q].z;
    }
    ll_add<T>(acc0, w0);
    ll_add<T>(acc1, w1);
  }
  ll_put<T>(a, 2 * L, acc0);
  ll_put<T>(a, 2 * L + 1, acc1);
}

/* Returns the general kernel for a dtype. */
static const void *ll_kernel_for(int dtype) {
  switch (dtype) {
  case AR_DT_F32: return (const void *)ll_kernel<float>;
  case AR_DT_BF16: return (const void *)ll_kernel<__nv_bfloat16>;
  case AR_DT_F16: return (const void *)ll_kernel<__half>;
  default: return NULL;
  }
}

template <int N> static const void *ll_kernel_line_n(int dtype) {
  switch (dtype) {
  case AR_DT_F32: return (const void *)ll_kernel_line<float, N>;
  case AR_DT_BF16: return (const void *)ll_kernel_line<__nv_bfloat16, N>;
  case AR_DT_F16: return (const void *)ll_kernel_line<__half, N>;
  default: return NULL;
  }
}

/* ll_kernel_line's instance for n ranks and a dtype, or NULL (more than 8 ranks: ll_kernel). */
static const void *ll_kernel_line_for(int n, int dtype) {
  switch (n) {
  case 2: return ll_kernel_line_n<2>(dtype);
  case 3: return ll_kernel_line_n<3>(dtype);
  case 4: return ll_kernel_line_n<4>(dtype);
  case 5: return ll_kernel_line_n<5>(dtype);
  case 6: return ll_kernel_line_n<6>(dtype);
  case 7: return ll_kernel_line_n<7>(dtype);
  case 8: return ll_kernel_line_n<8>(dtype);
  default: return NULL;
  }
}

/* Blocks of LL_THREADS of kernel that stay resident on one SM (1 if it cannot be asked). */
static int ll_per_sm(const void *kernel) {
  int per_sm = 1;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, LL_THREADS, 0) != cudaSuccess ||
      per_sm < 1) {
    (void)cudaGetLastError();
    per_sm = 1;
  }
  return per_sm;
}

int tp_oneshot_eligible(const struct tp_world *w, const struct tp_job *job,
                        const struct lower_settings *set) {
  return ll_kernel_for(job->dtype) &&
         lower_sm_oneshot(job->sched, w->n, job->nelem * ar_dtype_size(job->dtype),
                          job->degrade.n > 0, set);
}

/* Zeroed receive areas for this process's ranks, waited for (zero before any peer writes). */
static ar_status alloc_areas(struct tp_oneshot *ll, size_t area) {
  for (int r = 0; r < ll->w.n; r++) {
    if (ll->w.remote[r]) continue;
    cudaError_t e = cudaSetDevice(ll->w.dev[r]);
    if (e == cudaSuccess) e = cudaMalloc((void **)&ll->area[r], area);
    if (e == cudaSuccess) e = cudaMemset(ll->area[r], 0, area);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      return e == cudaErrorMemoryAllocation ? AR_ERR_OOM : AR_ERR_CUDA;
    }
  }
  return AR_OK;
}

ar_status tp_oneshot_setup(const struct tp_world *w, const struct tp_job *job, ar_status st,
                      struct tp_oneshot **out) {
  *out = NULL;
  struct tp_oneshot *ll = (struct tp_oneshot *)calloc(1, sizeof(*ll));
  if (!ll) { /* the share all the same, then its unshare, as teardown would */
    void *none[AR_MAX_GPUS] = {0};
    st = tp_share(w, none, AR_ERR_NOMEM);
    tp_unshare(w, none);
    return st;
  }
  ll->w = *w;
  ll->dtype = job->dtype;
  ll->nelem = job->nelem;
  size_t bytes = job->nelem * ar_dtype_size(job->dtype);
  ll->words = (bytes + 3) / 4;
  ll->half_tail = (bytes % 4) != 0;
  ll->lines = (ll->words + 1) / 2;
  size_t area = 2 * (size_t)w->n * (ll->lines ? ll->lines : 1) * sizeof(uint4);
  if (st == AR_OK) st = alloc_areas(ll, area);
  st = tp_share(w, (void **)ll->area, st);
  /* a line per thread (more lines per thread cost a latency each at 4-16 KiB), as many
   * blocks as stay resident at once (every block spins): co-located, one per SM of the
   * share. Grids may differ between processes: every thread sends before it waits. */
  size_t blocks = (ll->lines + LL_THREADS - 1) / LL_THREADS;
  const void *line = ll_kernel_line_for(w->n, job->dtype);
  int per_sm = ll_per_sm(ll_kernel_for(job->dtype)), line_per_sm = line ? ll_per_sm(line) : per_sm;
  if (line_per_sm < per_sm) per_sm = line_per_sm; /* resident whichever kernel runs */
  for (int r = 0; r < w->n; r++) {
    if (w->remote[r]) continue;
    size_t most = (size_t)tp_wait_sms(w, r) * (tp_colocated(w, r) ? 1 : per_sm);
    if (blocks > most) blocks = most;
  }
  ll->blocks = blocks < 1 ? 1 : (int)blocks;
  /* a thread per line: the specialised kernel where n has one */
  ll->kernel = line && ll->lines <= (size_t)ll->blocks * LL_THREADS ? line : ll_kernel_for(job->dtype);
  if (st != AR_OK) {
    tp_oneshot_teardown(ll);
    return st;
  }
  *out = ll;
  return AR_OK;
}

const char *tp_oneshot_describe(const struct tp_oneshot *ll, char *buf, size_t len) {
  if (ll->kernel == ll_kernel_for(ll->dtype))
    snprintf(buf, len, "%d blocks, the general kernel", ll->blocks);
  else
    snprintf(buf, len, "%d blocks, a thread per line (the kernel for %d ranks)", ll->blocks, ll->w.n);
  return buf;
}

ar_status tp_oneshot_enqueue(struct tp_oneshot *ll, int rank, cudaStream_t stream) {
  if (!ll->lines) return AR_OK;
  uint32_t it = ll->iter[rank]++;
  int n = ll->w.n, par = it & 1;
  ll_args a;
  memset(&a, 0, sizeof(a));
  a.data = (uint32_t *)ll->w.data[rank];
  for (int q = 0; q < n; q++) {
    a.out[q] = ll->area[q] + ((size_t)par * n + rank) * ll->lines;
    a.in[q] = ll->area[rank] + ((size_t)par * n + q) * ll->lines;
  }
  a.n = n;
  a.rank = rank;
  a.words = ll->words;
  a.half_tail = ll->half_tail;
  a.seq = it + 1;
  void *args[] = {(void *)&a};
  ar_nvtx_push("oneshot ll");
  cudaError_t e = cudaLaunchKernel(ll->kernel, dim3(ll->blocks), dim3(LL_THREADS),
                                   args, 0, stream);
  ar_nvtx_pop();
  CUDA_CHECK(e);
  return AR_OK;
}

void tp_oneshot_teardown(struct tp_oneshot *ll) {
  if (!ll) return;
  tp_unshare(&ll->w, (void **)ll->area);
  for (int r = 0; r < ll->w.n; r++)
    if (!ll->w.remote[r] && ll->area[r] && cudaSetDevice(ll->w.dev[r]) == cudaSuccess)
      cudaFree(ll->area[r]);
  free(ll);
}
