/* The compute loads of `arbench run --compute` on a GPU (compute.h says what each is): made
 * once per rank, sized per row, then per iteration prepared (outside the timed window), launched
 * on the rank's load stream and checked, so that a load that did nothing fails its row. extern
 * "C" so the harness stays plain C; the fake GPU (tests/sim/fake_load.c) has its own. */
#ifndef AR_LOAD_H
#define AR_LOAD_H

#include <cuda_runtime.h>
#include <stddef.h>

#include "ar.h"
#include "compute.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ar_load;

/* A load of c's kind on the current device, with no size yet (cuBLASLt's handle for a GEMM);
 * AR_OK, or an error with why. */
ar_status ar_load_create(const struct ar_compute *c, struct ar_load **out, char *why, size_t len);
/* Makes l the size of c (of l's kind) on the current device: buffers grown as needed (never
 * shrunk), a GEMM's inputs written on s and its plan chosen; AR_ERR_OOM when they do not fit,
 * AR_ERR_CUDA otherwise, with why. */
ar_status ar_load_resize(struct ar_load *l, const struct ar_compute *c, cudaStream_t s,
                         char *why, size_t len);
/* Before each launch, on s: the result the launch writes set to what no launch leaves (NaN, or
 * values it never computes), so that a launch that did nothing is counted wrong. */
ar_status ar_load_prepare(struct ar_load *l, cudaStream_t s);
/* The load itself, on s: a GEMM, membw's passes, sm's kernel. */
ar_status ar_load_launch(struct ar_load *l, cudaStream_t s);
/* On s, after the launch: *wrong (device memory) += the wrong elements of its result (a GEMM's
 * C against its closed form, membw's buffer, sm's per-thread values). */
ar_status ar_load_check(struct ar_load *l, cudaStream_t s, unsigned long long *wrong);
void ar_load_destroy(struct ar_load *l);

#ifdef __cplusplus
}
#endif
#endif
