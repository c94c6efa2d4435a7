/* The GPUs' clocks: the ce flow program's budgets (degrade.h, RESERVE) compare
 * %globaltimer values of different GPUs, so setup measures each GPU's offset from rank 0's by a
 * ping-pong of one-thread kernels (gpu_clock.cu). */
#ifndef TP_CLOCK_H
#define TP_CLOCK_H

#include <stdint.h>

#include "transport.h"

#ifdef __cplusplus
extern "C" {
#endif

/* *off = GPU b's %globaltimer minus GPU a's, in ns, from the fastest of 64 ping-pongs
 * (rtt_ns, may be NULL: its round trip, the offset's error bound being half of it).
 * Both devices in this process. Enables peer access both ways. */
ar_status tp_clock_offset(int a, int b, int64_t *off, double *rtt_ns);
/* off[r] = rank r's GPU time minus rank 0's, for every rank of w (0 on rank 0's physical
 * GPU), in every process. One process: tp_clock_offset per rank, as ever. An MPI job: a
 * collective, tp_share, tp_bcast (only if the share gave AR_OK), tp_unshare, whatever st (the
 * caller's status so far; nothing is measured unless AR_OK); rank 0's process pings the ranks
 * of other processes on other GPUs through shared words while theirs answer, then broadcasts
 * the offsets. Returns this process's status, not yet agreed (tp_agree). */
ar_status tp_clock_world(const struct tp_world *w, int64_t *off, ar_status st);

#ifdef __cplusplus
}
#endif
#endif
