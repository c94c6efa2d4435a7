/* The benchmark's inputs, shared by the GPU kernels (check.cu), the CPU tests and the simulated
 * GPU (tests/sim/fake_kernels.c): rank r's element i in the iteration with seed s holds a small
 * integer in [-4, 4] drawn from a hash of (r, i, s), so inputs differ per rank, per position
 * and per iteration, and every partial sum over up to 16 ranks is an integer of magnitude
 * <= 64: exact in float32, bf16 (integers to 256) and fp16 (to 2048) whatever the order.
 * The seed changes every iteration (bench.c): a transport that reads a peer's data or a
 * scratch slot before this iteration's data has landed sums the last iteration's values and
 * the check sees it; with the same inputs every iteration it would not. */
#ifndef AR_INPUTS_H
#define AR_INPUTS_H

#include <stdint.h>

#ifdef __CUDACC__
#define AR_HD static __host__ __device__ __forceinline__
#else
#define AR_HD static inline
#endif

/* splitmix64's finaliser: a bijection of 64-bit words that mixes every input bit into every
 * output bit (no short period in the element index, no linear relation between ranks). */
AR_HD uint64_t ar_input_mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

/* The key of rank r's inputs in the iteration with seed s (computed once per thread). */
AR_HD uint64_t ar_input_key(int rank, uint64_t seed) {
  return ar_input_mix(ar_input_mix(seed + 0x632be59bd9b4e019ull) +
                      (uint64_t)(rank + 1) * 0x9e3779b97f4a7c15ull);
}

/* The input at element i under a key: an integer in [-4, 4] (the high 32 bits scaled to 0..8:
 * no 64-bit division on the GPU). */
AR_HD int ar_input_at(uint64_t key, uint64_t i) {
  uint64_t x = ar_input_mix(i * 0xd1b54a32d192ed03ull + key);
  return (int)(((x >> 32) * 9u) >> 32) - 4;
}

/* Rank r's input at element i in the iteration with seed s: an integer in [-4, 4]. */
AR_HD int ar_input_value(int rank, uint64_t i, uint64_t seed) {
  return ar_input_at(ar_input_key(rank, seed), i);
}

/* The AllReduce's expected result at element i for seed s: the sum of every rank's input. */
AR_HD int ar_expected_value(int nranks, uint64_t i, uint64_t seed) {
  int sum = 0;
  for (int r = 0; r < nranks; r++) sum += ar_input_value(r, i, seed);
  return sum;
}

#endif
