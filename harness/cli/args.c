/* Value parsers for the command line: sizes, durations, stragglers, degraded GPUs, tori. */
#include "cli/args.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>
#include <unistd.h>

#include "cli/config.h"
#include "decimal.h"
#include "model.h" /* MODEL_MAX_RANKS: a straggler or degraded rank the model can price */

int args_check_list(const char *flag, const char *s) {
  size_t len = strlen(s);
  if (len && (s[0] == ',' || s[len - 1] == ',' || strstr(s, ",,")))
    return args_bad(flag, s, "an empty item in the list (a comma too many?)");
  return 0;
}

/* Is s written as a plain decimal number (then a unit)? strtod and strtol would also take
 * leading blanks, hexadecimal ("0x400": 1024) and words (inf, nan): never what was meant. */
static int plain_number(const char *s) {
  if (*s == '+' || *s == '-') s++;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) return 0;
  return (*s >= '0' && *s <= '9') || (*s == '.' && s[1] >= '0' && s[1] <= '9');
}

int args_parse_int(const char *flag, const char *s, int lo, int hi, int *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (!plain_number(s) || *end || errno) return args_bad(flag, s, "not an integer");
  if (v < lo || v > hi) {
    char why[96];
    snprintf(why, sizeof(why), "must be between %d and %d", lo, hi);
    return args_bad(flag, s, why);
  }
  *out = (int)v;
  return 0;
}

int args_parse_size(const char *flag, const char *s, uint64_t *out) {
  size_t nlen = strspn(s, "+-.0123456789");
  const char *end = s + nlen, *why = NULL;
  if (!plain_number(s) || !nlen) return args_bad(flag, s, "not a size (e.g. 1024, 1K, 8M, 8G)");
  const char *unit = *end ? strchr("kKmMgGtT", *end) : NULL;
  int pow = unit ? (int)(unit - "kKmMgGtT") / 2 + 1 : 0; /* K: 1024^1, ... T: 1024^4 */
  if (pow) end++;
  if (!strcmp(end, "iB") || !strcmp(end, "B") || (pow && !strcmp(end, "b"))) end += strlen(end);
  if (*end == 'e' || *end == 'E') return args_bad(flag, s, "not a plain decimal (no exponent)");
  if (*end) return args_bad(flag, s, "unknown unit (use K, M, G or T: binary)");
  uint64_t bytes = 0; /* read exactly: 1.00000000000000001K is no size, not 1024 */
  if (ar_decimal_whole(s, nlen, pow, 1ull << 50, &bytes, &why)) {
    if (!strcmp(why, "out of range")) return args_bad(flag, s, "larger than 1 PiB");
    if (!strcmp(why, "negative") || !strcmp(why, "not a plain decimal number"))
      return args_bad(flag, s, "not a size (e.g. 1024, 1K, 8M, 8G)");
    return args_bad(flag, s, "must be a whole number of bytes >= 1");
  }
  if (bytes < 1) return args_bad(flag, s, "must be a whole number of bytes >= 1");
  *out = bytes;
  return 0;
}

int args_parse_sizes(const char *flag, const char *text, struct msg_size *out, int cap) {
  char buf[4096];
  if (strlen(text) >= sizeof(buf)) return args_bad(flag, text, "too long");
  if (args_check_list(flag, text)) return -1;
  snprintf(buf, sizeof(buf), "%s", text);
  int n = 0;
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    if (n == cap) return args_bad(flag, text, cap == 1 ? "one size only" : "too many sizes");
    uint64_t b;
    if (args_parse_size(flag, t, &b)) return -1;
    for (int i = 0; i < n; i++)
      if (out[i].bytes == b) {
        char why[96];
        snprintf(why, sizeof(why), "%llu bytes named twice in the list", (unsigned long long)b);
        return args_bad(flag, t, why);
      }
    out[n++] = (struct msg_size){.bytes = b, .nelem = b, .esize = 1};
  }
  if (!n) return args_bad(flag, text, "empty");
  return n;
}

int args_resolve_sizes(const char *flag, const char *text, struct msg_size *v, int n, int esize,
                       const char *elem) {
  const char *item = text;
  for (int i = 0; i < n; i++) {
    uint64_t b = v[i].bytes, es = (uint64_t)esize;
    size_t len = item ? strcspn(item, ",") : 0;
    if (b % es) {
      char why[160], shown[32];
      uint64_t lo = b / es * es;
      if (lo) snprintf(why, sizeof(why), "not a whole number of %s elements (%llu bytes each; "
                       "the nearest are %llu and %llu)", elem, (unsigned long long)es,
                       (unsigned long long)lo, (unsigned long long)(lo + es));
      else snprintf(why, sizeof(why), "not a whole number of %s elements (%llu bytes each)",
                    elem, (unsigned long long)es);
      snprintf(shown, sizeof(shown), "%llu", (unsigned long long)b);
      char *typed = item ? strndup(item, len) : NULL;
      args_bad(flag, typed ? typed : shown, why);
      free(typed);
      return -1;
    }
    v[i].esize = esize;
    v[i].nelem = b / es;
    if (item) item += len + (item[len] == ',');
  }
  return 0;
}

int args_parse_time_us(const char *flag, const char *s, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (!plain_number(s) || end == s || errno || isnan(v) || isinf(v))
    return args_bad(flag, s, "not a duration (e.g. 100us, 8ms)");
  double mul = 1;
  if (!strcmp(end, "ms")) mul = 1e3;
  else if (!strcmp(end, "s")) mul = 1e6;
  else if (!strcmp(end, "ns")) mul = 1e-3;
  else if (*end && strcmp(end, "us")) return args_bad(flag, s, "unknown unit (use ns, us, ms or s)");
  if (v < 0) return args_bad(flag, s, "a delay cannot be negative");
  if (v * mul > ARGS_MAX_TIME_US) return args_bad(flag, s, "longer than 1 h");
  *out = v * mul;
  return 0;
}

/* Parses one "RANK[:DELAY]" item of a straggler list; messages show the whole item. */
static int parse_one_straggler(const char *flag, char *item, int delay_required,
                               struct straggler_spec *sp) {
  char whole[1024];
  snprintf(whole, sizeof(whole), "%s", item);
  memset(sp, 0, sizeof(*sp));
  char *colon = strchr(item, ':');
  if (colon) *colon = 0;
  if (!*item) return args_bad(flag, whole, "the rank is missing (RANK:DELAY, e.g. 3:8ms)");
  if (args_parse_int(flag, item, 0, MODEL_MAX_RANKS - 1, &sp->rank)) return -1;
  if (!colon) {
    if (delay_required) return args_bad(flag, whole, "needs RANK:DELAY (e.g. 3:8ms)");
    return 0;
  }
  char *d = colon + 1;
  if (!*d) return args_bad(flag, whole, "the delay is missing (RANK:DELAY, e.g. 3:8ms)");
  if (*d == '@') {
    /* non-blocking: a FIFO with no writer must not hold the parse (the file is read, with
     * bounds, by args_load_delays) */
    int fd = open(d + 1, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return args_bad(flag, d, "cannot read the delay file");
    close(fd);
    if (strlen(d + 1) >= sizeof(sp->file)) return args_bad(flag, d, "file name too long");
    snprintf(sp->file, sizeof(sp->file), "%s", d + 1);
    return 0;
  }
  /* a range LO-HI: the '-' after the first character separates the bounds */
  char *dash = *d ? strchr(d + 1, '-') : NULL;
  if (*d == '-') return args_bad(flag, d, "a delay cannot be negative");
  if (dash) {
    char range[1024];
    snprintf(range, sizeof(range), "%s", d);
    *dash = 0;
    if (args_parse_time_us(flag, d, &sp->delay_lo_us) ||
        args_parse_time_us(flag, dash + 1, &sp->delay_hi_us))
      return -1;
    if (sp->delay_hi_us < sp->delay_lo_us) return args_bad(flag, range, "range LO-HI has LO > HI");
    return 0;
  }
  if (args_parse_time_us(flag, d, &sp->delay_lo_us)) return -1;
  sp->delay_hi_us = sp->delay_lo_us;
  return 0;
}

/* Appends the items of s to out[0..*count) (ranks already there count as named); 0 or -1. */
static int stragglers_append(const char *flag, const char *s, int delay_required,
                             struct straggler_spec *out, int *count) {
  char buf[1024];
  if (strlen(s) >= sizeof(buf)) return args_bad(flag, s, "too long");
  if (args_check_list(flag, s)) return -1;
  snprintf(buf, sizeof(buf), "%s", s);
  int n = *count, added = 0;
  for (char *save = NULL, *item = strtok_r(buf, ",", &save); item;
       item = strtok_r(NULL, ",", &save)) {
    if (n == AR_MAX_STRAGGLERS) return args_bad(flag, s, "too many stragglers (at most 8)");
    if (parse_one_straggler(flag, item, delay_required, &out[n])) return -1;
    for (int i = 0; i < n; i++)
      if (out[i].rank == out[n].rank) return args_bad(flag, s, "a rank is named twice");
    n++;
    added++;
  }
  if (!added) return args_bad(flag, s, "empty");
  *count = n;
  return 0;
}

int args_parse_stragglers(const char *flag, const char *s, int delay_required,
                          struct straggler_spec *out, int *count) {
  *count = 0;
  return stragglers_append(flag, s, delay_required, out, count);
}

int args_add_stragglers(const char *flag, const char *s, int delay_required,
                        struct straggler_spec *out, int *count) {
  return stragglers_append(flag, s, delay_required, out, count);
}

int args_load_delays(const char *file, double **out, int *count) {
  struct input_file in;
  if (input_open(&in, "--straggler", file, "delay file", INPUT_WAIT_MS)) return -1;
  char where[320];
  int n = 0, cap = 0, rc = 0;
  double *v = NULL;
  while (rc == 0 && input_next(&in)) {
    snprintf(where, sizeof(where), "--straggler: %s:%d", file, in.lineno);
    if (memchr(in.line, 0, in.line_len)) { /* a NUL would cut the line short */
      rc = args_bad(where, "", "a NUL byte");
      break;
    }
    char *p = in.line + strspn(in.line, " \t");
    p[strcspn(p, "#")] = 0;
    size_t len = strlen(p);
    while (len && (p[len - 1] == ' ' || p[len - 1] == '\t' || p[len - 1] == '\r')) p[--len] = 0;
    if (!*p) continue;
    if (p[strcspn(p, " \t\r")]) { /* "4ms garbage", "1ms 2ms": never the first word alone */
      rc = args_bad(where, p, "one duration per line");
      break;
    }
    if (n == cap) {
      cap = cap ? 2 * cap : 64;
      double *nv = realloc(v, (size_t)cap * sizeof(*v));
      if (!nv) {
        rc = args_bad("--straggler", file, "out of memory");
        break;
      }
      v = nv;
    }
    rc = args_parse_time_us(where, p, &v[n++]);
  }
  input_close(&in);
  if (rc == 0 && !n) rc = args_bad("--straggler", file, "the delay file has no delays");
  if (rc) {
    free(v);
    return -1;
  }
  *out = v;
  *count = n;
  return 0;
}

/* Appends the RANK:FACTOR items of s to out (ranks already there count as named); returns 0
 * or -1 after a message. */
static int degrade_append(const char *flag, const char *s, struct degrade_spec *out) {
  char buf[1024];
  if (strlen(s) >= sizeof(buf)) return args_bad(flag, s, "too long");
  if (args_check_list(flag, s)) return -1;
  snprintf(buf, sizeof(buf), "%s", s);
  int added = 0;
  for (char *save = NULL, *item = strtok_r(buf, ",", &save); item;
       item = strtok_r(NULL, ",", &save)) {
    char *colon = strchr(item, ':');
    if (!colon) return args_bad(flag, s, "needs RANK:FACTOR (e.g. 3:2.0)");
    if (colon == item) return args_bad(flag, s, "the rank is missing (RANK:FACTOR, e.g. 3:2.0)");
    if (!colon[1]) return args_bad(flag, s, "the factor is missing (RANK:FACTOR, e.g. 3:2.0)");
    *colon = 0;
    if (out->n == AR_MAX_DEGRADED) return args_bad(flag, s, "too many degraded GPUs (at most 8)");
    int k = out->n;
    if (args_parse_int(flag, item, 0, MODEL_MAX_RANKS - 1, &out->rank[k])) return -1;
    char *end;
    errno = 0;
    double f = strtod(colon + 1, &end);
    if (!plain_number(colon + 1) || end == colon + 1 || *end || errno || isnan(f) || isinf(f))
      return args_bad(flag, colon + 1, "not a number");
    if (f < 1.0) return args_bad(flag, colon + 1, "a slowdown factor must be >= 1");
    if (f > ARGS_MAX_FACTOR) return args_bad(flag, colon + 1, "a slowdown factor above 1000");
    for (int i = 0; i < k; i++)
      if (out->rank[i] == out->rank[k]) return args_bad(flag, s, "a rank is named twice");
    out->factor[k] = f;
    out->n++;
    added++;
  }
  if (!added) return args_bad(flag, s, "empty");
  return 0;
}

int args_parse_degrade(const char *flag, const char *s, struct degrade_spec *out) {
  memset(out, 0, sizeof(*out));
  return degrade_append(flag, s, out);
}

int args_add_degrade(const char *flag, const char *s, struct degrade_spec *out) {
  return degrade_append(flag, s, out);
}

int args_parse_torus(const char *flag, const char *s, int *ndims, int dims[AR_MAX_TORUS_DIMS]) {
  const char *p = s;
  int k = 0;
  while (*p) {
    char *end;
    errno = 0;
    long v = strtol(p, &end, 10);
    if (!plain_number(p) || end == p || errno || v < 2 || v > AR_MAX_RANKS)
      return args_bad(flag, s, "each dimension must be a whole number >= 2 (e.g. 2x2)");
    if (k == AR_MAX_TORUS_DIMS) return args_bad(flag, s, "at most 4 dimensions");
    dims[k++] = (int)v;
    if (*end == 'x' || *end == 'X') {
      p = end + 1;
      if (!*p) return args_bad(flag, s, "ends with 'x'");
    } else if (*end) {
      return args_bad(flag, s, "use AxB[xC] (e.g. 2x2)");
    } else {
      p = end;
    }
  }
  if (!k) return args_bad(flag, s, "empty");
  *ndims = k;
  return 0;
}

int args_check_ranks(int n, const struct straggler_spec *st, int nst,
                     const struct degrade_spec *dg, int torus_ndims, const int *torus,
                     const char *torus_text) {
  char why[96], val[16];
  for (int i = 0; i < nst; i++)
    if (st[i].rank >= n) {
      snprintf(why, sizeof(why), "straggler rank must be < %d GPUs", n);
      snprintf(val, sizeof(val), "%d", st[i].rank);
      return args_bad("--straggler", val, why);
    }
  for (int i = 0; dg && i < dg->n; i++)
    if (dg->rank[i] >= n) {
      snprintf(why, sizeof(why), "degraded rank must be < %d GPUs", n);
      snprintf(val, sizeof(val), "%d", dg->rank[i]);
      return args_bad("--degrade", val, why);
    }
  if (torus_ndims) {
    long prod = 1;
    for (int i = 0; i < torus_ndims; i++) prod *= torus[i];
    if (prod != n) {
      snprintf(why, sizeof(why), "the dimensions multiply to %ld, not %d ranks", prod, n);
      return args_bad("--torus", torus_text, why);
    }
  }
  return 0;
}

void args_fill_params(struct ar_params *p, int n, const struct straggler_spec *st, int nst,
                      const struct degrade_spec *dg, int torus_ndims, const int *torus) {
  ar_params_init(p, n);
  if (nst > 0) p->straggler = st[0].rank;
  if (dg) {
    p->ndegraded = dg->n;
    for (int i = 0; i < dg->n; i++) {
      p->degraded[i] = dg->rank[i];
      p->factor[i] = dg->factor[i];
    }
  }
  p->torus_ndims = torus_ndims;
  for (int i = 0; i < torus_ndims; i++) p->torus[i] = torus[i];
}

int args_check_segments(const struct ar_algo *a, int n, int segments) {
  double xfers = 2.0 * segments * n * n;
  if (!segments || !(a->flags & AR_ALGO_DEGRADE_AWARE) || xfers <= ARGS_MAX_SEGMENT_XFERS) return 0;
  char v[16], why[200];
  snprintf(v, sizeof(v), "%d", segments);
  snprintf(why, sizeof(why), "%s at %d ranks in %d segments is about %.2g transfers (at most "
           "%.2g: fewer segments or ranks)", a->name, n, segments, xfers, ARGS_MAX_SEGMENT_XFERS);
  return args_bad("--segments", v, why);
}

const struct ar_algo *args_find_algo(const char *flag, const char *name) {
  const struct ar_algo *a = ar_algo_find(name);
  if (a) return a;
  size_t n, len = 0;
  const struct ar_algo *const *all = ar_algo_all(&n);
  char why[512] = "unknown algorithm; known:";
  len = strlen(why);
  for (size_t i = 0; i < n && len < sizeof(why) - 1; i++)
    len += (size_t)snprintf(why + len, sizeof(why) - len, " %s", all[i]->name);
  args_bad(flag, name, why);
  return NULL;
}
