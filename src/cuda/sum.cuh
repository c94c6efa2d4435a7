/* Device helpers shared by reduce.cu (ce's sum kernel), tp_sm.cu (the persistent kernel) and
 * degrade.cu: an n-way elementwise sum with 16-byte vectors, flag words at system scope,
 * the global timer. */
#ifndef TP_SUM_CUH
#define TP_SUM_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "exec_prog.h"

#define TP_SUM_UNROLL 4 /* 16-byte vectors per source in flight per thread */

struct tp_srcs {
  const void *p[TP_MAX_SUM];
};

/* Flags a sum waits for in its own kernel (ar_sum_wait_launch): *p[i] >= v[i], cyclically. */
struct tp_waits {
  const uint32_t *p[TP_MAX_WAITS];
  uint32_t v[TP_MAX_WAITS];
  int n;
};

template <typename T> __device__ __forceinline__ float tp_to_f(T v);
template <> __device__ __forceinline__ float tp_to_f<float>(float v) {
  return v;
}
template <> __device__ __forceinline__ float tp_to_f<__half>(__half v) {
  return __half2float(v);
}
template <> __device__ __forceinline__ float tp_to_f<__nv_bfloat16>(__nv_bfloat16 v) {
  return __bfloat162float(v);
}
template <typename T> __device__ __forceinline__ T tp_from_f(float v);
template <> __device__ __forceinline__ float tp_from_f<float>(float v) {
  return v;
}
template <> __device__ __forceinline__ __half tp_from_f<__half>(float v) {
  return __float2half_rn(v);
}
template <> __device__ __forceinline__ __nv_bfloat16 tp_from_f<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

/* Adds the elements of a 16-byte vector into acc (converted to float). */
template <typename T> __device__ __forceinline__ void tp_vec_add(float *acc, uint4 v, bool first) {
  const T *e = reinterpret_cast<const T *>(&v);
#pragma unroll
  for (int i = 0; i < (int)(16 / sizeof(T)); i++)
    acc[i] = first ? tp_to_f(e[i]) : acc[i] + tp_to_f(e[i]);
}

/* Packs float acc back into a 16-byte vector of T. */
template <typename T> __device__ __forceinline__ uint4 tp_vec_pack(const float *acc) {
  uint4 v;
  T *e = reinterpret_cast<T *>(&v);
#pragma unroll
  for (int i = 0; i < (int)(16 / sizeof(T)); i++)
    e[i] = tp_from_f<T>(acc[i]);
  return v;
}

/* dst[i] = sum over s of src[s][i] for i < nelem, by thread `tid` of `nth`; accumulates in
 * float and rounds once. Loads and stores go through L2 only (.cg): sources may be peer
 * memory or data another block wrote earlier in a persistent kernel, so L1 must not serve
 * stale lines. dst may alias src[0] (each element is read before it is written by the same
 * thread). Vectors when every pointer shares dst's address modulo 16. */
template <typename T>
__device__ __forceinline__ void tp_sum_range(T *dst, const tp_srcs &a, int nsrc, size_t nelem,
                                             size_t tid, size_t nth) {
  const int pv = 16 / sizeof(T);
  uintptr_t mis = 0;
  for (int s = 0; s < nsrc; s++)
    mis |= ((uintptr_t)a.p[s] ^ (uintptr_t)dst) & 15;
  size_t head = mis ? nelem : ((16 - ((uintptr_t)dst & 15)) & 15) / sizeof(T);
  if (head > nelem) head = nelem;
  size_t nvec = (nelem - head) / pv, tail0 = head + nvec * pv;
  for (size_t i = tid; i < head + (nelem - tail0); i += nth) { /* scalar head and tail */
    size_t e = i < head ? i : tail0 + (i - head);
    float acc = 0.f;
    for (int s = 0; s < nsrc; s++)
      acc += tp_to_f(__ldcg((const T *)a.p[s] + e));
    __stcg(dst + e, tp_from_f<T>(acc));
  }
  uint4 *vd = reinterpret_cast<uint4 *>(dst + head);
  for (size_t v0 = tid; v0 < nvec; v0 += nth * TP_SUM_UNROLL) {
    float acc[TP_SUM_UNROLL][16 / sizeof(T)];
    for (int s = 0; s < nsrc; s++) {
      const uint4 *vs = reinterpret_cast<const uint4 *>((const T *)a.p[s] + head);
      uint4 ld[TP_SUM_UNROLL];
#pragma unroll
      for (int u = 0; u < TP_SUM_UNROLL; u++) /* all loads first: memory-level parallelism */
        if (v0 + u * nth < nvec) ld[u] = __ldcg(vs + v0 + u * nth);
#pragma unroll
      for (int u = 0; u < TP_SUM_UNROLL; u++)
        if (v0 + u * nth < nvec) tp_vec_add<T>(acc[u], ld[u], s == 0);
    }
#pragma unroll
    for (int u = 0; u < TP_SUM_UNROLL; u++)
      if (v0 + u * nth < nvec) __stcg(vd + v0 + u * nth, tp_vec_pack<T>(acc[u]));
  }
}

#define TP_SPIN_TIMEOUT_NS 60000000000ull /* a wait this long is a bug: trap, do not hang */

/* Returns the nanosecond global timer. */
__device__ __forceinline__ uint64_t tp_globaltimer(void) {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/* Spins until the global timer reaches t (a pace of the degraded-link emulation); a target
 * further away than the spin timeout is a bug: trap rather than hang. */
__device__ __forceinline__ void tp_spin_until(uint64_t t) {
  if (t > tp_globaltimer() + TP_SPIN_TIMEOUT_NS) __trap();
  while (tp_globaltimer() < t) {
  }
}

/* One 16-byte store and load, each a single access that nothing caches (the low-latency
 * paths: a reader trusts a 16-byte line, or 8 bytes of it, to arrive whole). */
__device__ __forceinline__ void tp_store16_volatile(void *p, uint4 v) {
  asm volatile("st.volatile.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y),
               "r"(v.z), "r"(v.w)
               : "memory");
}

__device__ __forceinline__ uint4 tp_load16_volatile(const void *p) {
  uint4 v;
  asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p)
               : "memory");
  return v;
}

/* Returns the flag word with acquire semantics at system scope. */
__device__ __forceinline__ uint32_t tp_flag_load(const uint32_t *p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

/* Stores a flag word with release semantics at system scope (peer memory allowed). */
__device__ __forceinline__ void tp_flag_store(uint32_t *p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

/* Spins until (int32_t)(*p - v) >= 0, the cyclic comparison the stream memops use. */
__device__ __forceinline__ void tp_flag_spin(const uint32_t *p, uint32_t v) {
  if ((int32_t)(tp_flag_load(p) - v) >= 0) return;
  uint64_t t0 = tp_globaltimer();
  while ((int32_t)(tp_flag_load(p) - v) < 0)
    if (tp_globaltimer() - t0 > TP_SPIN_TIMEOUT_NS) __trap();
}

#endif
