/* The loads' private shape (load.cu, load_gemm.cu): one set of operations per kind. */
#ifndef AR_LOAD_INT_H
#define AR_LOAD_INT_H

#include "load.h"

struct load_ops {
  ar_status (*create)(void **impl, char *why, size_t len);
  ar_status (*resize)(void *impl, const struct ar_compute *c, cudaStream_t s, char *why, size_t len);
  ar_status (*prepare)(void *impl, cudaStream_t s);
  ar_status (*launch)(void *impl, cudaStream_t s);
  ar_status (*check)(void *impl, cudaStream_t s, unsigned long long *wrong);
  void (*destroy)(void *impl);
};

/* load_gemm.cu: cuBLASLt's bf16 GEMM */
extern const struct load_ops load_gemm_ops;

#endif
