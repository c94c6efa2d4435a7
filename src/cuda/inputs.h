/* The benchmark's inputs, shared by the GPU kernels (check.cu) and the CPU tests: rank r's
 * element i holds a small integer in [-4, 4] drawn from a hash of (r, i), so inputs differ per
 * rank and per position, and every partial sum over up to 16 ranks is an integer of magnitude
 * <= 64: exact in float32, bf16 (integers to 256) and fp16 (to 2048) whatever the order. */
#ifndef AR_INPUTS_H
#define AR_INPUTS_H

#include <stdint.h>

#ifdef __CUDACC__
#define AR_HD static __host__ __device__ __forceinline__
#else
#define AR_HD static inline
#endif

/* Rank r's input at element i: an integer in [-4, 4]. */
AR_HD int ar_input_value(int rank, uint64_t i) {
  uint64_t x = i * 0x9e3779b97f4a7c15ull + (uint64_t)(rank + 1) * 0xd1b54a32d192ed03ull;
  x ^= x >> 32;
  x *= 0xd6e8feb86659fd93ull;
  x ^= x >> 32;
  return (int)(x % 9u) - 4;
}

/* The AllReduce's expected result at element i: the sum of every rank's input. */
AR_HD int ar_expected_value(int nranks, uint64_t i) {
  int sum = 0;
  for (int r = 0; r < nranks; r++) sum += ar_input_value(r, i);
  return sum;
}

#endif
