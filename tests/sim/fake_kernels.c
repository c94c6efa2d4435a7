/* The simulated GPU's harness kernels and the data they work on (tests/sim/fake_gpu.c's
 * opening comment: "Data"): the fill writes a rank's inputs on real buffers, the check counts
 * the elements that differ from the sums, and sim_allreduce leaves every AllReduce's sum (NCCL's
 * in fake_nccl_comm.c, the transports' in fake_transports.c); the delay kernel moves the clock. */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/degrade.h"
#include "cuda/delay.h"
#include "cuda/inputs.h"
#include "cuda/kernels.h"
#include "fake_gpu.h"

/* ---- data: inputs, sums and checks on the real buffers ---- */

/* Element i of a buffer of dtype dt, as an int. */
static int sim_get(const void *d, int dt, size_t i) {
  return dt == AR_DT_F32 ? (int)((const float *)d)[i] : ((const int16_t *)d)[i];
}
/* Sets element i of a buffer of dtype dt to v. */
static void sim_put(void *d, int dt, size_t i, int v) {
  if (dt == AR_DT_F32) ((float *)d)[i] = (float)v;
  else ((int16_t *)d)[i] = (int16_t)v;
}
/* The copy of the inputs beside a real buffer d of `bytes` bytes: its last fill's, or with
 * `prev` the fill's before (see "Data"). */
static unsigned char *sim_inputs(const void *d, size_t bytes, int prev) {
  return (unsigned char *)d + bytes * (prev ? 2 : 1);
}

/* 1 when the comma-separated list in AR_SIM_BAD_SUM names algo. */
int sim_bad_sum(const char *algo) {
  const char *l = getenv("AR_SIM_BAD_SUM");
  for (size_t k = strlen(algo); l && *l; l += strcspn(l, ",") + (l[strcspn(l, ",")] == ','))
    if (strcspn(l, ",") == k && !strncmp(l, algo, k)) return 1;
  return 0;
}

/* Rank `rank`'s AllReduce of n ranks: leaves in its buffer buf[rank] (nelem elements of dt)
 * the sum of every rank's inputs, read beside each rank's buffer buf[q] of bytes[q] bytes;
 * with `stale`, the peers' inputs of the fill before (what a transport that reads a slot
 * before this iteration's data landed would add). A buffer too small to read (a token, a
 * wrong mapping) adds nothing; nothing happens on a token of its own. */
void sim_allreduce(int rank, int n, void *const *buf, const size_t *bytes, size_t nelem,
                   int dt, int stale, int bad) {
  size_t len = nelem * ar_dtype_size(dt);
  if (rank < 0 || rank >= n || n > AR_MAX_GPUS || nelem == 0 || len > bytes[rank]) return;
  const unsigned char *in[AR_MAX_GPUS];
  for (int q = 0; q < n; q++)
    in[q] = buf[q] && len <= bytes[q] ? sim_inputs(buf[q], bytes[q], stale && q != rank) : NULL;
  for (size_t i = 0; i < nelem; i++) {
    int v = 0;
    for (int q = 0; q < n; q++)
      if (in[q]) v += sim_get(in[q], dt, i);
    sim_put(buf[rank], dt, i, v + (bad && i == 0)); /* AR_SIM_BAD_SUM: one element off */
  }
}

/* ---- the harness's kernels ---- */

const char *sim_wrong_algo; /* set by the transport's setup for AR_SIM_WRONG */

/* Writes rank's inputs into d and the copy beside it (the last copy moves to the one before),
 * and registers d as rank's buffer (struct sim_head). */
ar_status ar_fill_launch(void *d, size_t n, int dt, int rank, unsigned long long seed,
                         cudaStream_t s) {
  (void)s;
  if (n == 0 || rank < 0 || rank >= AR_MAX_GPUS) return AR_OK; /* loading the kernel */
  size_t bytes = sim_real_bytes(d), len = n * ar_dtype_size(dt);
  if (len > bytes) return AR_OK; /* a token */
  uint64_t key = ar_input_key(rank, seed);
  for (size_t i = 0; i < n; i++) sim_put(d, dt, i, ar_input_at(key, i));
  memcpy(sim_inputs(d, bytes, 1), sim_inputs(d, bytes, 0), len);
  memcpy(sim_inputs(d, bytes, 0), d, len);
  struct sim_head *h = sim_head();
  h->buf[rank].at = sim_name(d);
  h->buf[rank].bytes = bytes;
  return AR_OK;
}
ar_status ar_check_launch(const void *d, size_t n, int dt, int nranks, unsigned long long seed,
                          unsigned long long *wrong, cudaStream_t s) {
  (void)s;
  if (nranks < 1 || nranks > AR_MAX_GPUS) return AR_ERR_INVALID;
  if (n > 0 && sim_wrong_algo) *wrong += 1;
  if (n == 0 || n * ar_dtype_size(dt) > sim_real_bytes(d)) return AR_OK;
  uint64_t key[AR_MAX_GPUS];
  for (int r = 0; r < nranks; r++) key[r] = ar_input_key(r, seed);
  for (size_t i = 0; i < n; i++) {
    int sum = 0;
    for (int r = 0; r < nranks; r++) sum += ar_input_at(key[r], i);
    *wrong += sim_get(d, dt, i) != sum;
  }
  return AR_OK;
}
ar_status ar_delay_launch(double us, cudaStream_t s) {
  if (us > 0) s->clock += us;
  return AR_OK;
}
/* timing.start_skew's stamp (cuda/degrade.h): the stream's clock in ns. */
ar_status tp_stamp_launch(uint64_t *slot, cudaStream_t s) {
  if (sim_real_left(slot) >= sizeof(*slot)) *slot = (uint64_t)(s->clock * 1e3);
  return AR_OK;
}
ar_status ar_gate_launch(const volatile unsigned long long *flag, unsigned long long target,
                         double timeout_us, unsigned *expired, cudaStream_t s) {
  (void)flag, (void)target, (void)timeout_us, (void)expired, (void)s;
  return AR_OK;
}
ar_status ar_delay_calibrate(cudaStream_t s, double *bias_us) {
  (void)s;
  *bias_us = 0;
  return AR_OK;
}
ar_status ar_delay_measure(double us, int raw, int reps, cudaStream_t s, double *median_us) {
  (void)raw, (void)reps, (void)s;
  *median_us = us;
  return AR_OK;
}
