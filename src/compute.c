/* The compute load's option, text and sizing rule (compute.h). */
#include "compute.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char use[] = "use membw, sm:N (N SMs), gemm (sized per row) or gemm:MxNxK";

/* Reads a plain decimal (digits only: no sign, blank or 0x) from *p up to a character of
 * `stop` or the end, into *v within 1..max; advances *p past it. 0, or -1. */
static int read_count(const char **p, const char *stop, unsigned long long max,
                      unsigned long long *v) {
  const char *s = *p;
  unsigned long long x = 0;
  size_t len = strcspn(s, stop);
  if (!len) return -1;
  for (size_t i = 0; i < len; i++) {
    if (s[i] < '0' || s[i] > '9') return -1;
    x = x * 10 + (unsigned)(s[i] - '0');
    if (x > max) return -1;
  }
  if (x < 1) return -1;
  *v = x;
  *p = s + len;
  return 0;
}

/* Parses gemm's "MxNxK" at s into c; 0, or -1 with why. */
static int parse_shape(const char *s, struct ar_compute *c, char *why, size_t len) {
  unsigned long long v[3];
  for (int i = 0; i < 3; i++) {
    if (read_count(&s, "x", AR_COMPUTE_MAX_DIM, &v[i]) || (i < 2 ? *s != 'x' : *s != 0)) {
      snprintf(why, len, "gemm's shape is MxNxK, each a whole number from 1 to %d (e.g. "
               "gemm:8192x8192x8192)", AR_COMPUTE_MAX_DIM);
      return -1;
    }
    s += i < 2;
  }
  /* bf16 A (m x k) and B (k x n), bf16 C (m x n) */
  double bytes = 2.0 * ((double)v[0] * v[2] + (double)v[2] * v[1] + (double)v[0] * v[1]);
  if (bytes > (double)AR_COMPUTE_MAX_GEMM_BYTES) {
    snprintf(why, len, "its matrices take %.1f GiB a rank, at most %llu GiB", bytes / (1 << 30),
             AR_COMPUTE_MAX_GEMM_BYTES >> 30);
    return -1;
  }
  c->m = (int)v[0], c->n = (int)v[1], c->k = (int)v[2];
  c->fixed = 1;
  return 0;
}

int ar_compute_parse(const char *text, struct ar_compute *c, char *why, size_t len) {
  memset(c, 0, sizeof(*c));
  const char *colon = strchr(text, ':'), *arg = colon ? colon + 1 : NULL;
  size_t klen = colon ? (size_t)(colon - text) : strlen(text);
  if (klen == 5 && !strncmp(text, "membw", 5)) {
    if (arg) return snprintf(why, len, "membw takes no value: its size is chosen per row"), -1;
    c->kind = AR_COMPUTE_MEMBW;
    return 0;
  }
  if (klen == 2 && !strncmp(text, "sm", 2)) {
    unsigned long long v;
    if (!arg || read_count(&arg, "", AR_COMPUTE_MAX_SMS, &v) || *arg) {
      snprintf(why, len, "sm needs the SMs to keep busy: sm:N, N a whole number from 1 to %d",
               AR_COMPUTE_MAX_SMS);
      return -1;
    }
    c->kind = AR_COMPUTE_SM;
    c->sms = (int)v;
    return 0;
  }
  if (klen == 4 && !strncmp(text, "gemm", 4)) {
    c->kind = AR_COMPUTE_GEMM;
    return arg ? parse_shape(arg, c, why, len) : 0;
  }
  snprintf(why, len, "%s; %s", klen ? "unknown load" : "empty", use);
  return -1;
}

char *ar_compute_kind_text(const struct ar_compute *c, char *buf, size_t len) {
  switch (c->kind) {
  case AR_COMPUTE_MEMBW: snprintf(buf, len, "membw"); break;
  case AR_COMPUTE_SM: snprintf(buf, len, "sm:%d", c->sms); break;
  case AR_COMPUTE_GEMM:
    if (c->fixed) snprintf(buf, len, "gemm:%dx%dx%d", c->m, c->n, c->k);
    else snprintf(buf, len, "gemm");
    break;
  default: snprintf(buf, len, "%s", "");
  }
  return buf;
}

char *ar_compute_text(const struct ar_compute *c, char *buf, size_t len) {
  switch (c->kind) {
  case AR_COMPUTE_MEMBW:
    snprintf(buf, len, "membw:%llux%d", (unsigned long long)c->bytes, c->passes);
    break;
  case AR_COMPUTE_SM: snprintf(buf, len, "sm:%dx%llu", c->sms, (unsigned long long)c->steps); break;
  case AR_COMPUTE_GEMM: snprintf(buf, len, "gemm:%dx%dx%d", c->m, c->n, c->k); break;
  default: snprintf(buf, len, "%s", "");
  }
  return buf;
}

double ar_compute_work(const struct ar_compute *c) {
  switch (c->kind) {
  case AR_COMPUTE_MEMBW: return 2.0 * (double)c->bytes * c->passes;
  case AR_COMPUTE_SM: return (double)c->steps;
  case AR_COMPUTE_GEMM: return 2.0 * c->m * (double)c->n * c->k;
  default: return 0;
  }
}

void ar_compute_probe(const struct ar_compute *want, struct ar_compute *probe) {
  *probe = *want;
  if (want->kind == AR_COMPUTE_GEMM && !want->fixed) probe->m = probe->n = probe->k = 2048;
  if (want->kind == AR_COMPUTE_MEMBW) probe->bytes = 64ull << 20, probe->passes = 1;
  if (want->kind == AR_COMPUTE_SM) probe->steps = 4096;
}

void ar_compute_fit(const struct ar_compute *probe, double probe_us, double target_us,
                    struct ar_compute *out) {
  *out = *probe;
  if (probe->kind == AR_COMPUTE_GEMM && probe->fixed) return;
  /* the work that lasts target_us at the probe's pace (0: the smallest) */
  double want = probe_us > 0 && target_us > 0 ? ar_compute_work(probe) * target_us / probe_us : 0;
  if (probe->kind == AR_COMPUTE_GEMM) {
    double d = 128 * round(cbrt(want / 2) / 128);
    out->m = out->n = out->k = (int)fmin(fmax(d, 128), 16384);
  } else if (probe->kind == AR_COMPUTE_MEMBW) {
    double mib = round(want / 2 / (1 << 20)), cap = (double)(AR_COMPUTE_MAX_MEMBW >> 20);
    out->bytes = (uint64_t)fmin(fmax(mib, 1), cap) << 20;
    out->passes = (int)fmin(fmax(1, round(want / (2.0 * (double)out->bytes))), 1e6);
  } else if (probe->kind == AR_COMPUTE_SM) {
    out->steps = (uint64_t)fmax(16, round(want));
  }
}
