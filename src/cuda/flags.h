/* Cross-GPU flag operations enqueued on a stream: write a 32-bit sequence number into a
 * (possibly peer) flag word, or make the stream wait until a local flag word reaches one.
 * Two implementations: stream memory operations (cuStreamWaitValue32 on local memory; a remote
 * write is cuStreamWriteValue32 into a local staging word then a 4-byte cudaMemcpyAsync to the
 * peer, the pattern of NCCL's copy-engine collectives; the driver calls are found through
 * cudaGetDriverEntryPointByVersion so the binary does not link libcuda) and one-thread kernels
 * (a fallback, and AR_FLAGS=kernel). */
#ifndef TP_FLAGS_H
#define TP_FLAGS_H

#include <stdint.h>

#include "transport.h"

#ifdef __cplusplus
extern "C" {
#endif

enum tp_flag_mode { TP_FLAGS_MEMOP = 0, TP_FLAGS_KERNEL = 1 };

/* Returns the mode to use: kernels where s (a scenario's settings, NULL: the defaults) says
 * flags=kernel, else memops when the driver provides them, else kernels. */
struct ar_settings;
int tp_flags_mode(const struct ar_settings *s);
const char *tp_flags_name(int mode);
/* staging: a device word of the stream's own GPU that no other stream uses (memops only). */
ar_status tp_flag_write(int mode, cudaStream_t s, uint32_t *addr, uint32_t val, uint32_t *staging);
ar_status tp_flag_wait(int mode, cudaStream_t s, const uint32_t *addr, uint32_t val);

#ifdef __cplusplus
}
#endif
#endif
