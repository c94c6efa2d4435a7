/* NVTX ranges in the domain "arbench": sizes, iterations, injected delays,
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

/* ---- the collective's precondition range, for the harness (bench.c, phases.c) ---- */

/* The calling thread enters a collective whose first nprecond rounds are the precondition (0:
 * none here). While inside, nvtx.c opens a "precondition" range at the first "round %d" range
 * with a round < nprecond and closes it at the first one >= nprecond; when the transport
 * marked no rounds in the job's previous collective on this thread, the range covers the
 * whole collective instead, named "precondition (whole collective)". */
void ar_nvtx_collective_begin(int nprecond);
/* Leaves the collective: closes a precondition range still open. */
void ar_nvtx_collective_end(void);
/* A new job on the calling thread: forget whether its transport marks rounds. */
void ar_nvtx_job_reset(void);
/* 1 when a tool listens to the NVTX ranges (an injection library created the domain). */
int ar_nvtx_active(void);

#ifdef __cplusplus
}
#endif
#endif
