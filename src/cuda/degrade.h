/* The spin kernels of the degraded-link emulation (transport.h, struct tp_degrade): a stamp
 * records the GPU's %globaltimer into a device word when the stream reaches it; a pace holds
 * the stream until a time relative to one or two stamps of the same GPU. One thread each, like
 * the straggler's delay kernel (delay.cu); launched only for degraded jobs. */
#ifndef TP_DEGRADE_H
#define TP_DEGRADE_H

#include <stdint.h>

#include "transport.h"

#ifdef __cplusplus
extern "C" {
#endif

/* *slot = the GPU time in ns when stream s reaches the kernel. */
ar_status tp_stamp_launch(uint64_t *slot, cudaStream_t s);
/* Holds stream s until the GPU time reaches *a + na and, when b is not NULL, *b + nb; then
 * *out = that time, or the time the stream reached the kernel if later, when out is not NULL. */
ar_status tp_pace_launch(const uint64_t *a, uint64_t na, const uint64_t *b, uint64_t nb,
                         uint64_t *out, cudaStream_t s);

/* The flow program's RESERVE (exec_prog.h): a flow that starts when the stream gets here takes
 * ns_out of the sender's egress budget (out_clk, this GPU's memory) and ns_in of the
 * receiver's ingress budget (in_clk, the receiver's memory; off = the receiver's GPU time
 * minus this GPU's), either NULL for none; *rel = when both have passed, in this GPU's time. */
ar_status tp_reserve_launch(unsigned long long *out_clk, uint64_t ns_out,
                            unsigned long long *in_clk, uint64_t ns_in, int64_t off,
                            uint64_t *rel, cudaStream_t s);

/* The self-test's schedule (tp_degrade_selftest): one round among ranks 0 (the degraded GPU)
 * .. k; dir 0 "in": peer p copies chunk p-1 to rank 0; 1 "out": rank 0 copies chunk k+p-1 to
 * peer p; 2 "both". 2k chunks, ports k. Not an AllReduce: the transports run it as they run
 * any schedule. Returns the status (s->reason set). */
ar_status tp_degrade_selftest_schedule(int k, int dir, struct ar_schedule *s);

#ifdef __cplusplus
}
#endif
#endif
