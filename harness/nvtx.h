/* NVTX ranges in the domain "arbench" (SPEC.md s5): sizes, iterations, injected delays,
 * preconditions and rounds show up as named ranges in Nsight Systems. Each call costs next to
 * nothing when no tool is attached. Pure C interface, callable from .c and .cu files. */
#ifndef AR_NVTX_H
#define AR_NVTX_H

#ifdef __cplusplus
extern "C" {
#endif

/* Pushes a range on the calling thread, named by printf-style fmt; ranges nest per thread. */
void ar_nvtx_push(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Pops the calling thread's innermost range. */
void ar_nvtx_pop(void);
/* Names the calling OS thread (e.g. "rank 3"). */
void ar_nvtx_name_thread(const char *name);
/* Names a CUDA stream (pass the cudaStream_t cast to void *). */
void ar_nvtx_name_stream(void *stream, const char *name);

#ifdef __cplusplus
}
#endif
#endif
