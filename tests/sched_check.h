/* Helpers for the suites that check schedules: real data through the CPU executor. */
#ifndef SCHED_CHECK_H
#define SCHED_CHECK_H

#include <stdlib.h>

#include "ar.h"

/* Inputs differ per rank and per element with no short period (a misplaced chunk changes the
 * values); small integers so float sums are exact. */
static inline float check_input(int rank, size_t i) {
  uint32_t h = (uint32_t)i * 2654435761u ^ (uint32_t)(rank + 1) * 40503u;
  h ^= h >> 15;
  h *= 2246822519u;
  h ^= h >> 13;
  return (float)((int)(h % 17) - 8);
}

/* Runs s on the CPU with nelem elements per rank; returns the number of wrong elements (-1:
 * the executor failed). */
static inline long run_cpu(const struct ar_schedule *s, size_t nelem) {
  int n = s->nranks;
  float **bufs = malloc(sizeof(float *) * n);
  for (int r = 0; r < n; r++) {
    bufs[r] = malloc(sizeof(float) * (nelem + 1));
    for (size_t i = 0; i < nelem; i++) bufs[r][i] = check_input(r, i);
  }
  long wrong = sched_exec_cpu(s, bufs, nelem) == AR_OK ? 0 : -1;
  for (size_t i = 0; wrong >= 0 && i < nelem; i++) {
    float want = 0;
    for (int r = 0; r < n; r++) want += check_input(r, i);
    for (int r = 0; r < n; r++) wrong += bufs[r][i] != want;
  }
  for (int r = 0; r < n; r++) free(bufs[r]);
  free(bufs);
  return wrong;
}

/* Returns the greatest common divisor of a and b. */
static inline int check_gcd(int a, int b) {
  return b ? check_gcd(b, a % b) : a;
}

#endif
