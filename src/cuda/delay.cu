/* Spin kernels on %globaltimer (ns): the straggler's delay (calibrated per device, see
 * delay.h), and the launch gate that holds a stream until the host has enqueued everything
 * behind it. */
#include "delay.h"
#include "kernels.h"
#include "transport.h"

/* Per device ordinal: the fixed cost of a kernel between two events, us. Each rank's thread
 * writes only its own device's slot, before any delay of that device is launched. */
#define DELAY_MAX_DEVICES 64
static double delay_bias_us[DELAY_MAX_DEVICES];

/* The global timer in ns. */
__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/* Spins for ns nanoseconds from its own start. */
__global__ void delay_kernel(unsigned long long ns) {
  unsigned long long t0 = global_ns();
  while (global_ns() - t0 < ns) {
  }
}

/* Spins until *flag >= target, or counts an expiry after timeout_ns. */
__global__ void gate_kernel(const volatile unsigned long long *flag, unsigned long long target,
                            unsigned long long timeout_ns, unsigned *expired) {
  unsigned long long t0 = global_ns();
  while (*flag < target) {
    if (global_ns() - t0 > timeout_ns) {
      atomicAdd(expired, 1u);
      return;
    }
    __nanosleep(200);
  }
}

/* The slot of the current device, or -1. */
static int bias_slot() {
  int d = -1;
  if (cudaGetDevice(&d) != cudaSuccess) return -1;
  return d >= 0 && d < DELAY_MAX_DEVICES ? d : -1;
}

extern "C" void ar_delay_set_bias(double us) {
  int d = bias_slot();
  if (d >= 0) delay_bias_us[d] = us > 0 ? us : 0;
}

extern "C" double ar_delay_bias(void) {
  int d = bias_slot();
  return d >= 0 ? delay_bias_us[d] : 0;
}

extern "C" ar_status ar_delay_launch_raw(double us, cudaStream_t s) {
  delay_kernel<<<1, 1, 0, s>>>(us > 0 ? (unsigned long long)(us * 1e3 + 0.5) : 0ull);
  CUDA_CHECK(cudaGetLastError());
  return AR_OK;
}

extern "C" ar_status ar_delay_launch(double us, cudaStream_t s) {
  if (!(us > 0)) return AR_OK;
  double spin = us - ar_delay_bias(); /* the kernel's own fixed cost makes up the rest */
  return ar_delay_launch_raw(spin > 0 ? spin : 0, s);
}

extern "C" ar_status ar_delay_measure(double us, int raw, int reps, cudaStream_t s,
                                      double *median_us) {
  cudaEvent_t e0, e1;
  double v[64];
  if (reps < 1) reps = 1;
  if (reps > 64) reps = 64;
  CUDA_CHECK(cudaEventCreate(&e0));
  ar_status st = AR_OK;
  cudaError_t ce = cudaEventCreate(&e1);
  if (ce != cudaSuccess) {
    cudaEventDestroy(e0);
    CUDA_CHECK(ce);
  }
  for (int i = -1; i < reps && st == AR_OK; i++) { /* i = -1: warm-up, not kept */
    float ms = 0;
    st = ar_delay_launch_raw(200, s); /* keeps the stream busy while the host enqueues */
    if (st == AR_OK && (ce = cudaEventRecord(e0, s)) != cudaSuccess) st = AR_ERR_CUDA;
    if (st == AR_OK) st = raw ? ar_delay_launch_raw(us, s) : ar_delay_launch(us, s);
    if (st == AR_OK && (ce = cudaEventRecord(e1, s)) != cudaSuccess) st = AR_ERR_CUDA;
    if (st == AR_OK && (ce = cudaEventSynchronize(e1)) != cudaSuccess) st = AR_ERR_CUDA;
    if (st == AR_OK && (ce = cudaEventElapsedTime(&ms, e0, e1)) != cudaSuccess) st = AR_ERR_CUDA;
    if (st == AR_OK && i >= 0) v[i] = ms * 1e3;
  }
  if (ce != cudaSuccess)
    ar_log(AR_LOG_WARN, "delay measurement: %s", cudaGetErrorString(ce));
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  if (st != AR_OK) return st;
  for (int i = 1; i < reps; i++) /* insertion sort: at most 64 values */
    for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
      double t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
  *median_us = reps % 2 ? v[reps / 2] : (v[reps / 2 - 1] + v[reps / 2]) / 2;
  return AR_OK;
}

extern "C" ar_status ar_delay_calibrate(cudaStream_t s, double *bias_us) {
  double m = 0;
  ar_delay_set_bias(0);
  *bias_us = 0;
  AR_CHECK(ar_delay_measure(0, 1, 20, s, &m));
  if (!(m >= 0 && m <= 20)) {
    ar_log(AR_LOG_WARN, "delay calibration: a 0 us spin took %.1f us; not compensated", m);
    return AR_ERR_CUDA;
  }
  ar_delay_set_bias(m);
  *bias_us = m;
  return AR_OK;
}

extern "C" ar_status ar_gate_launch(const volatile unsigned long long *flag,
                                    unsigned long long target, double timeout_us,
                                    unsigned *expired, cudaStream_t s) {
  gate_kernel<<<1, 1, 0, s>>>(flag, target, (unsigned long long)(timeout_us * 1e3), expired);
  CUDA_CHECK(cudaGetLastError());
  return AR_OK;
}
