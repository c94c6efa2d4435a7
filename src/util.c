/* Status strings, logging and small integer helpers shared by every module. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ar.h"

const char *ar_status_str(ar_status s) {
  switch (s) {
  case AR_OK: return "ok";
  case AR_ERR_INVALID: return "invalid input";
  case AR_ERR_UNSUPPORTED: return "not supported";
  case AR_ERR_NOMEM: return "out of host memory";
  case AR_ERR_VERIFY: return "verification failed";
  case AR_ERR_CUDA: return "CUDA error";
  case AR_ERR_NCCL: return "NCCL error";
  case AR_ERR_OOM: return "out of GPU memory";
  case AR_ERR_TIMEOUT: return "timeout";
  case AR_ERR_SYSTEM: return "system error";
  }
  return "unknown";
}

/* Returns the level from AR_DEBUG (read once): warn by default. */
int ar_log_level(void) {
  static int level = -1;
  if (level < 0) {
    const char *e = getenv("AR_DEBUG");
    level = !e ? AR_LOG_WARN : !strcmp(e, "trace") ? AR_LOG_TRACE
                             : !strcmp(e, "info")  ? AR_LOG_INFO
                                                   : AR_LOG_WARN;
  }
  return level;
}

void ar_log(int level, const char *fmt, ...) {
  if (level > ar_log_level()) return;
  va_list ap;
  va_start(ap, fmt);
  fputs(level == AR_LOG_WARN ? "arbench: " : "arbench[debug]: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

int ar_is_pow2(int n) { return n > 0 && (n & (n - 1)) == 0; }

int ar_log2(int n) {
  int l = 0;
  while ((1 << (l + 1)) <= n) l++;
  return l;
}

void ar_params_init(struct ar_params *p, int nranks) {
  memset(p, 0, sizeof(*p));
  p->nranks = nranks;
  p->straggler = -1;
}

size_t ar_dtype_size(int dtype) { return dtype == AR_DT_F32 ? 4 : 2; }

const char *ar_dtype_name(int dtype) {
  return dtype == AR_DT_F32 ? "float32" : dtype == AR_DT_BF16 ? "bf16" : "fp16";
}

int ar_torus_shape(const struct ar_params *p, int dims[AR_MAX_TORUS_DIMS], char *why, size_t len) {
  int n = p->nranks;
  if (p->torus_ndims <= 0) {
    int a = 1;
    for (int k = 1; k * k <= n; k++)
      if (n % k == 0) a = k;
    dims[0] = a == 1 ? n : a;
    dims[1] = n / a;
    return a == 1 ? 1 : 2;
  }
  long prod = 1;
  int nd = p->torus_ndims > AR_MAX_TORUS_DIMS ? AR_MAX_TORUS_DIMS : p->torus_ndims;
  for (int k = 0; k < nd; k++) {
    dims[k] = p->torus[k];
    prod *= p->torus[k] > 0 ? p->torus[k] : 0;
  }
  if (p->torus_ndims > AR_MAX_TORUS_DIMS || prod != n) {
    if (why) snprintf(why, len, "torus dimensions multiply to %ld, not %d ranks", prod, n);
    return -1;
  }
  return nd;
}

int ar_torus_steps(int ndims, const int *dims, int *dim, int *sig) {
  int left[AR_MAX_TORUS_DIMS], done[AR_MAX_TORUS_DIMS] = {0}, total = 0, g = 0;
  for (int k = 0; k < ndims; k++) {
    left[k] = dims[k] > 1 ? ar_log2(dims[k] - 1) + 1 : 0; /* ceil(log2 d) */
    total += left[k];
  }
  for (int turn = 0; g < total; turn++) {
    int k = turn % ndims;
    if (done[k] == left[k]) continue;
    dim[g] = k;
    sig[g++] = done[k]++;
  }
  return total;
}
