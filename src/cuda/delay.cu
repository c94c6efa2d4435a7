/* Spin kernels on %globaltimer (ns): the straggler's delay, and the launch gate that holds a
 * stream until the host has enqueued everything behind it. */
#include "kernels.h"
#include "transport.h"

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

extern "C" ar_status ar_delay_launch(double us, cudaStream_t s) {
  if (!(us > 0)) return AR_OK;
  delay_kernel<<<1, 1, 0, s>>>((unsigned long long)(us * 1e3));
  CUDA_CHECK(cudaGetLastError());
  return AR_OK;
}

extern "C" ar_status ar_gate_launch(const volatile unsigned long long *flag,
                                    unsigned long long target, double timeout_us,
                                    unsigned *expired, cudaStream_t s) {
  gate_kernel<<<1, 1, 0, s>>>(flag, target, (unsigned long long)(timeout_us * 1e3), expired);
  CUDA_CHECK(cudaGetLastError());
  return AR_OK;
}
