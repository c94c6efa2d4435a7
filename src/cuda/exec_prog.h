/* What the ce and sm transports share beyond the programs (src/lower/lower.h): the sum
 * kernels, each transport's choice of program; and, through world.h, the world helpers
 * (co-located ranks, their SM shares, the status all processes agree on). */
#ifndef TP_PROG_H
#define TP_PROG_H

#include <stddef.h>
#include <stdint.h>

#include "lower/lower.h"
#include "transport.h"
#include "world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* reduce.cu: dst = srcs[0] + ... + srcs[nsrc-1] for nelem elements (dst may equal srcs[0]);
 * 16-byte vectors where every pointer shares dst's alignment. nsrc <= TP_MAX_SUM. At most
 * max_blocks blocks when > 0 (else 4 per SM; the ce transport caps it by ce.sum_blocks). */
ar_status ar_sum_launch(void *dst, const void *const *srcs, int nsrc, size_t nelem, int dtype,
                        int max_blocks, cudaStream_t s);
/* ar_sum_launch after the nwait flags wait[i] reach val[i] (cyclic comparison), spun on inside
 * the kernel: a stream memop wait before a sum let it start up to 80 us after its last flag
 * landed on 4 x H200 (runs/reference/h200x4-timetable). nwait <= TP_MAX_WAITS. Only for sums
 * that ar_sum_can_wait: their spinning blocks leave most of the GPU to the kernels that write
 * the flags (a full GPU of spinning blocks could wait on itself). */
#define TP_MAX_WAITS 8
ar_status ar_sum_wait_launch(void *dst, const void *const *srcs, int nsrc, size_t nelem, int dtype,
                             int max_blocks, const uint32_t *const *wait, const uint32_t *val,
                             int nwait, cudaStream_t s);
int ar_sum_can_wait(size_t nelem, int dtype, int max_blocks, int sms);


/* executors.cu: checks that a job matches the world (ranks, buffer size); AR_ERR_INVALID with
 * *reason set otherwise. Shared by the transports' setups. */
ar_status tp_job_check(const struct tp_world *w, const struct tp_job *job, char *reason,
                       size_t reason_len);

#ifdef __cplusplus
}
#endif
#endif
