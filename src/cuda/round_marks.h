/* Per-round marks of one rank for one iteration (--phases, harness/profile/phases.c): where a
 * transport's enqueue says when each schedule round's work ended on that rank. Its own header,
 * plain C with the CUDA runtime only, so that the harness's phases.h can hold one without
 * NCCL's headers. The caller owns every array; enqueue fills what its transport can:
 *   ce, nccl-p2p: ev[k] is recorded on the harness's stream right after round k's last work on
 *     that stream, which (ce) has by then joined the copy streams and waited for every copy
 *     into this rank of the round; nccl-p2p: after the round's group and its applies.
 *   sm: the persistent kernel writes %globaltimer stamps instead (one kernel, no stream point
 *     between rounds): ns[0] when block 0 starts, ns[1 + k] when the last block is past round k
 *     (an atomic max: the caller zeroes ns once, before its first use; later iterations only
 *     write later times). The caller places them from its event before the launch. */
#ifndef TP_MARKS_H
#define TP_MARKS_H

#include <cuda_runtime.h>

struct tp_marks {
  int nrounds;             /* the schedule's rounds: entries of ev and have; ns holds 1 + nrounds */
  cudaEvent_t *ev;         /* timing events on the rank's device */
  unsigned long long *ns;  /* device memory of the rank */
  unsigned char *have;     /* set by enqueue: 1 for each round it marked (a rank that sits a
                            * round out, e.g. the straggler during the precondition, marks none) */
  int in_ns;               /* set by enqueue: the marks are in ns (sm), not in ev */
};

#endif
