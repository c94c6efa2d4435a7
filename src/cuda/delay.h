/* The straggler delay's calibration (delay.cu). ar_delay_launch (kernels.h) holds a stream for
 * the requested time: the spin kernel is shortened by the device's fixed cost of a kernel
 * between two events (launch from a queued stream, exit), measured once per device by
 * ar_delay_calibrate, so that a requested 100 us shows as 100 us between the events around
 * it (within 1% at >= 100 us). */
#ifndef AR_DELAY_H
#define AR_DELAY_H

#include <cuda_runtime.h>

#include "ar.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The spin kernel for exactly `us` (0 included: a kernel that returns at once). */
ar_status ar_delay_launch_raw(double us, cudaStream_t s);
/* Sets the current device's fixed cost in us, subtracted from every ar_delay_launch. */
void ar_delay_set_bias(double us);
/* The current device's fixed cost in us (0 until set). */
double ar_delay_bias(void);
/* Median over `reps` of the time between two events around ar_delay_launch(us) on stream s
 * (raw = 1: ar_delay_launch_raw), in us. A 200 us spin ahead of each keeps the stream busy
 * while the host enqueues, so host launch latency stays out, as in the harness's iterations.
 * The current device must own s. */
ar_status ar_delay_measure(double us, int raw, int reps, cudaStream_t s, double *median_us);
/* Measures the fixed cost (a raw 0 us spin between events, median of 20) and sets it as the
 * current device's bias; returns it in *bias_us. A cost over 20 us is not believed: the bias
 * is left at 0 and AR_ERR_CUDA returned. */
ar_status ar_delay_calibrate(cudaStream_t s, double *bias_us);

#ifdef __cplusplus
}
#endif
#endif
