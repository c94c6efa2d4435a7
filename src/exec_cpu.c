/* CPU reference executor: runs a schedule on host buffers, round by round. Every transfer of
 * a round reads the state at the round's start (a snapshot), as the verifier assumes. */
#include <stdlib.h>
#include <string.h>

#include "ar.h"

ar_status sched_exec_cpu(const struct ar_schedule *s, float **bufs, size_t nelem) {
  int n = s->nranks;
  float *snap = malloc((size_t)n * nelem * sizeof(float) + 1);
  if (!snap) return AR_ERR_NOMEM;
  for (size_t lo = 0; lo < s->nxfers;) {
    size_t hi = lo;
    while (hi < s->nxfers && s->xfers[hi].round == s->xfers[lo].round) hi++;
    for (int r = 0; r < n; r++) memcpy(snap + (size_t)r * nelem, bufs[r], nelem * sizeof(float));
    for (size_t i = lo; i < hi; i++) {
      const struct ar_xfer *x = &s->xfers[i];
      size_t b = ar_chunk_begin(nelem, s->nchunks, x->chunk);
      size_t e = ar_chunk_begin(nelem, s->nchunks, x->chunk + x->count);
      const float *src = snap + (size_t)x->src * nelem;
      float *dst = bufs[x->dst];
      if (x->op == AR_COPY)
        memcpy(dst + b, src + b, (e - b) * sizeof(float));
      else
        for (size_t k = b; k < e; k++) dst[k] += src[k];
    }
    lo = hi;
  }
  free(snap);
  return AR_OK;
}
