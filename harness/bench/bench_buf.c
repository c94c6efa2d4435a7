/* A rank's data buffer and the nccl baseline's registration modes (the nccl.registration
 * setting). none: cudaMalloc, as ever. registered: ncclMemAlloc, then ncclCommRegister with the
 * rank's communicator (nccl-tests' -R 1). symmetric: ncclMemAlloc, then a window of
 * ncclCommWindowRegister with NCCL_WIN_COLL_SYMMETRIC (NCCL 2.27+; nccl-tests' -R 2), which
 * lets NCCL pick its symmetric kernels. Every transport's rows use the same buffer: peer
 * access to ncclMemAlloc's memory is granted to every GPU that can reach it, so ce and sm read
 * and write it as they read cudaMalloc's (checked on 2 x H200 up to 1 GiB); nccl-p2p's rows are
 * n/a (the plan says so: plan/plan.c). A mode that cannot be had (no communicator, an NCCL too old, a
 * refused call) is never replaced by another: the nccl rows say n/a and why. */
#include "bench/bench_int.h"

/* The library may predate windows (2.27): then these stay NULL and are never called. */
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
#pragma weak ncclCommWindowRegister
#pragma weak ncclCommWindowDeregister
#endif

enum { REG_NONE, REG_LOCAL, REG_SYMMETRIC }; /* nccl.registration's choices, in order */


/* The scenario's mode. */
static int reg_mode(const struct rank *R) {
  return (int)ar_setting_value(&R->b->o->settings, AR_SET_NCCL_REGISTRATION);
}

/* Allocates bytes of device memory for R's data: ncclMemAlloc when the buffer will be
 * registered, else cudaMalloc; 0 on success. A failure is not sticky (the caller halves). */
static int alloc_once(struct rank *R, size_t bytes) {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 19, 0)
  if (R->nccl_mem) return ncclMemAlloc(&R->data, bytes) != ncclSuccess;
#endif
  if (cudaMalloc(&R->data, bytes) == cudaSuccess) return 0;
  cudaGetLastError();
  return 1;
}

void data_alloc(struct rank *R, size_t want) {
  struct bench *b = R->b;
  /* no communicator (co-located ranks): nothing to register with, the nccl rows are n/a */
  R->nccl_mem = reg_mode(R) != REG_NONE && R->comm != NULL;
#if NCCL_VERSION_CODE < NCCL_VERSION(2, 19, 0)
  R->nccl_mem = 0; /* data_register says why */
#endif
  for (size_t sz = want; sz >= (size_t)b->esize; sz = sz / 2 / b->esize * b->esize) {
    if (!alloc_once(R, sz)) {
      R->cap = sz;
      break;
    }
    R->data = NULL;
  }
  if (R->cap < want)
    ar_log(AR_LOG_WARN, "rank %d: data buffer of %zu bytes did not fit; using %zu", R->rank,
           want, R->cap);
}

/* Records why R's nccl rows cannot have the mode; returns 1. */
static int reg_fail(struct rank *R, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int reg_fail(struct rank *R, const char *fmt, ...) {
  va_list ap;
  char mode[32];
  ar_setting_text(&R->b->o->settings, AR_SET_NCCL_REGISTRATION, mode, sizeof(mode));
  int k = snprintf(R->reg_why, sizeof(R->reg_why), "nccl.registration=%s: ", mode);
  va_start(ap, fmt);
  if (k > 0 && (size_t)k < sizeof(R->reg_why))
    vsnprintf(R->reg_why + k, sizeof(R->reg_why) - (size_t)k, fmt, ap);
  va_end(ap);
  return 1;
}

int data_register(struct rank *R, size_t bytes) {
  int mode = reg_mode(R), v = 0;
  R->reg_why[0] = 0;
  if (mode == REG_NONE || !R->comm) return 0; /* co-located: job_prepare says n/a */
  /* the same answer on every rank: a window's registration is collective */
  if (!bytes) return reg_fail(R, "no data buffer fits");
  if (!R->nccl_mem)
    return reg_fail(R, "built against NCCL %d.%d, which has no ncclMemAlloc (2.19 or later)",
                    NCCL_MAJOR, NCCL_MINOR);
  ncclResult_t r = ncclGetVersion(&v);
  if (r != ncclSuccess) return reg_fail(R, "ncclGetVersion: %s", ncclGetErrorString(r));
  if (mode == REG_LOCAL) {
    r = ncclCommRegister(R->comm, R->data, bytes, &R->reg);
    if (r != ncclSuccess) {
      R->reg = NULL;
      return reg_fail(R, "rank %d: ncclCommRegister: %s", R->rank, ncclGetErrorString(r));
    }
    return 0;
  }
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
  if (v < NCCL_VERSION(2, 27, 0) || !ncclCommWindowRegister)
    return reg_fail(R, "NCCL %d.%d.%d has no symmetric windows (2.27 or later)", v / 10000,
                    v / 100 % 100, v % 100);
  ncclWindow_t win = NULL;
  r = ncclCommWindowRegister(R->comm, R->data, bytes, &win, NCCL_WIN_COLL_SYMMETRIC);
  if (r != ncclSuccess)
    return reg_fail(R, "rank %d: ncclCommWindowRegister: %s", R->rank, ncclGetErrorString(r));
  R->reg = win;
  return 0;
#else
  return reg_fail(R, "built against NCCL %d.%d, which has no symmetric windows (2.27 or later)",
                  NCCL_MAJOR, NCCL_MINOR);
#endif
}

void data_deregister(struct rank *R) {
  if (!R->reg || !R->comm) return;
  ncclResult_t r = ncclSuccess;
  if (reg_mode(R) == REG_LOCAL) r = ncclCommDeregister(R->comm, R->reg);
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
  else r = ncclCommWindowDeregister(R->comm, (ncclWindow_t)R->reg);
#endif
  if (r != ncclSuccess)
    ar_log(AR_LOG_WARN, "rank %d: deregistering the data buffer: %s", R->rank,
           ncclGetErrorString(r));
  R->reg = NULL;
}

void data_free(struct rank *R) {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 19, 0)
  if (R->nccl_mem && R->data) ncclMemFree(R->data);
  else
#endif
    cudaFree(R->data);
  R->data = NULL;
}
