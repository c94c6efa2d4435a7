/* The sm transport's low-latency path for the one-round `oneshot` schedule (small sizes):
 * one plain kernel per rank pushes its buffer into every peer's receive slots as 16-byte lines
 * that carry their own flag next to the data (8 bytes: 4 of data, 4 of flag), so a receiver
 * knows a line landed by reading the line itself; no separate flag, no barrier, no grid sync:
 * one NVLink crossing per AllReduce. Half of each line is flag, so it pays only where latency,
 * not bandwidth, sets the time (up to LOWER_LL_MAX_BYTES, src/lower/lower.h). */
#ifndef TP_SM_ONESHOT_H
#define TP_SM_ONESHOT_H

#include "transport.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tp_oneshot;

/* 1 when the job can run on the low-latency path (lower_sm_oneshot, src/lower/lower.h). */
int tp_oneshot_eligible(const struct tp_world *w, const struct tp_job *job,
                        const struct lower_settings *set);
/* Allocates the receive slots (zeroed) of this process's ranks and shares them (tp_share, a
 * collective: made whatever st, the caller's status so far, and whatever fails here). Returns
 * everyone's status (AR_ERR_OOM when slots do not fit); on failure *out stays NULL, with
 * everything unshared and freed. */
ar_status tp_oneshot_setup(const struct tp_world *w, const struct tp_job *job, ar_status st,
                      struct tp_oneshot **out);
/* The grid and which kernel runs (a thread per line for 2-8 ranks, else the general one), in
 * buf; returns buf. */
const char *tp_oneshot_describe(const struct tp_oneshot *ll, char *buf, size_t len);
/* Enqueues one AllReduce of rank on stream (that rank's device is current). */
ar_status tp_oneshot_enqueue(struct tp_oneshot *ll, int rank, cudaStream_t stream);
/* Unshares the slots (collective) and frees this process's; nothing for NULL. */
void tp_oneshot_teardown(struct tp_oneshot *ll);

#ifdef __cplusplus
}
#endif
#endif
