/* The harness's own kernels: inputs and result checks (check.cu), the straggler's delay and
 * the launch gate (delay.cu). extern "C" launchers so the harness stays plain C. */
#ifndef AR_KERNELS_H
#define AR_KERNELS_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "ar.h"

#ifdef __cplusplus
extern "C" {
#endif

/* data[i] = ar_input_value(rank, i, seed) for i < nelem, as dtype (enum ar_dtype). The harness
 * passes a new seed every iteration (inputs.h says why). */
ar_status ar_fill_launch(void *data, size_t nelem, int dtype, int rank, unsigned long long seed,
                         cudaStream_t s);
/* *wrong += the number of i < nelem with data[i] != ar_expected_value(nranks, i, seed), seed
 * being the one the iteration's inputs were filled with; AR_ERR_INVALID for nranks outside
 * 1..AR_MAX_GPUS. */
ar_status ar_check_launch(const void *data, size_t nelem, int dtype, int nranks,
                          unsigned long long seed, unsigned long long *wrong, cudaStream_t s);
/* A one-thread kernel that spins on %globaltimer for `us` microseconds (straggler delay). */
ar_status ar_delay_launch(double us, cudaStream_t s);
/* A one-thread kernel that spins until *flag >= target (flag: mapped pinned host memory the
 * host raises once it has enqueued the work behind the gate), or until timeout_us has passed,
 * then adds 1 to *expired. It keeps host launch overhead out of the timed region. */
ar_status ar_gate_launch(const volatile unsigned long long *flag, unsigned long long target,
                         double timeout_us, unsigned *expired, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
