/* The sm transport's low-latency path for the one-round `oneshot` schedule (small sizes):
 * one plain kernel per rank pushes its buffer into every peer's receive slots as 16-byte lines
 * that carry their own flag next to the data (8 bytes: 4 of data, 4 of flag), so a receiver
 * knows a line landed by reading the line itself; no separate flag, no barrier, no grid sync:
 * one NVLink crossing per AllReduce. Half of each line is flag, so it pays only where latency,
 * not bandwidth, sets the time (up to TP_LL_MAX_BYTES). */
#ifndef TP_LL_H
#define TP_LL_H

#include "transport.h"

#ifdef __cplusplus
extern "C" {
#endif

/* the default ceiling is TP_LL_MAX_BYTES / (n - 1) (each rank sends n - 1 copies, at half
 * the link's rate): 4 x H200: 7.3 us vs nccl's 12.3 at 1 KiB, even at 256 KiB, 1.5x slower at
 * 1 MiB; AR_LL_MAX_BYTES in the environment overrides it (experiments) */
#define TP_LL_MAX_BYTES (1u << 20)

struct tp_ll;

/* 1 when the job can run on the low-latency path: the oneshot structure (one round, one
 * chunk, every rank reduces every other rank's buffer), no degraded-link emulation, at most
 * TP_LL_MAX_BYTES / (n - 1) per rank. */
int tp_ll_eligible(const struct tp_world *w, const struct tp_job *job);
/* Allocates every rank's receive slots (zeroed); AR_ERR_OOM when they do not fit. */
ar_status tp_ll_setup(const struct tp_world *w, const struct tp_job *job, struct tp_ll **out);
/* Enqueues one AllReduce of rank on stream (that rank's device is current). */
ar_status tp_ll_enqueue(struct tp_ll *ll, int rank, cudaStream_t stream);
void tp_ll_teardown(struct tp_ll *ll);

#ifdef __cplusplus
}
#endif
#endif
