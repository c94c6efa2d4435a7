/* nccl-tests' text log (nccl_tests.h), line by line: every table format from nccl-tests 2.0
 * on (12 columns with an "error" column before 2.13, 13 with root and #wrong since; -I's
 * per-iteration and -T's timestamp columns), with or without the version, "starting" and
 * "concluded" lines. A test begins at its first header line (or at rows after an ended test)
 * and ends at its "# Avg bus bandwidth" line, so several tests of one file stay apart; a test
 * without that line was cut off and is refused. Every field of a result line is read exactly
 * (plain decimals: no sign, hexadecimal, inf or nan) or the line is refused with FILE:LINE;
 * other programs' lines (nt_noise.c) are skipped and counted, even one written into the middle
 * of a result line. */
#include "record/nccl_tests.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int nt_bad_at(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "arbench import: %s:%d: ", file, line);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return -1;
}

struct nt_row *nt_add_row(struct nt_test *t, int line) {
  if (t->nrows == t->cap) {
    int cap = t->cap ? 2 * t->cap : 64;
    struct nt_row *r = realloc(t->rows, (size_t)cap * sizeof(*r));
    if (!r) return NULL;
    t->rows = r;
    t->cap = cap;
  }
  struct nt_row *r = &t->rows[t->nrows++];
  memset(r, 0, sizeof(*r));
  r->line = line;
  r->delta = NAN;
  return r;
}

struct nt_test *nt_new_test(struct nt_set *s, const char *file, int line) {
  if (s->n == MAX_TESTS) {
    nt_bad_at(file, line, "more than %d tests", MAX_TESTS);
    return NULL;
  }
  struct nt_test *t = &s->t[s->n++];
  memset(t, 0, sizeof(*t));
  t->file = file;
  t->line = line;
  t->threads = t->gpus = t->iters = t->agg = t->graph = t->check = -1;
  t->oob = -1;
  return t;
}

void nt_free_test(struct nt_test *t) {
  free(t->rows);
  free(t->cmd);
  free(t->scenario);
  t->rows = NULL;
  t->cmd = t->scenario = NULL;
}

int nt_type_size(const char *type) {
  static const struct {
    const char *name;
    int size;
  } types[] = {{"int8", 1},   {"uint8", 1}, {"int32", 4},    {"uint32", 4}, {"int64", 8},
               {"uint64", 8}, {"half", 2},  {"float", 4},    {"double", 8}, {"bfloat16", 2},
               {"f8e4m3", 1}, {"f8e5m2", 1}, {"char", 1},    {"int", 4}};
  for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
    if (!strcmp(type, types[i].name)) return types[i].size;
  return 0;
}

int nt_is_all_reduce(const char *name) {
  const char *b = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
  return !strncmp(b, "all_reduce_perf", 15);
}

int nt_split_words(char *line, char **w, int max) {
  int n = 0;
  for (char *p = strtok(line, " \t"); p && n < max; p = strtok(NULL, " \t"))
    w[n++] = p;
  return n;
}

/* ---- fields ---- */

/* A whole number as nccl-tests prints one (digits only, within 64 bits); 0 or -1. */
static int plain_u64(const char *s, uint64_t *v) {
  if (!*s || strspn(s, "0123456789") != strlen(s)) return -1;
  errno = 0;
  unsigned long long x = strtoull(s, NULL, 10);
  if (errno) return -1;
  *v = x;
  return 0;
}

/* A decimal as nccl-tests prints one: digits, a point and digits, an exponent (1.2e+05); no
 * sign, no hexadecimal, no inf or nan. The value into *v (finite), half a unit of its last
 * digit into *half; 0, or -1 when s is not one or is out of range. */
static int plain_dec(const char *s, double *v, double *half) {
  const char *p = s;
  size_t k = strspn(p, "0123456789"), decimals = 0;
  if (!k) return -1;
  p += k;
  if (*p == '.') {
    decimals = strspn(p + 1, "0123456789");
    p += 1 + decimals;
  }
  long ex = 0;
  if (*p == 'e' || *p == 'E') {
    const char *q = p + 1 + (p[1] == '+' || p[1] == '-');
    size_t d = strspn(q, "0123456789");
    if (!d || d > 4) return -1;
    ex = strtol(p + 1, NULL, 10);
    p = q + d;
  }
  if (*p) return -1;
  errno = 0;
  double x = strtod(s, NULL);
  if (errno == ERANGE || !isfinite(x)) return -1;
  *v = x;
  *half = 0.5 * pow(10.0, (double)ex - (double)decimals);
  return 0;
}

static int known_redop(const char *s) {
  static const char *const ops[] = {"sum", "prod", "max", "min", "avg", "mulsum", "premulsum",
                                    "none"};
  for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
    if (!strcmp(s, ops[i])) return 1;
  return 0;
}

/* The fields a result line of t has: size count type [redop] [root] (t->lead of them), then
 * per side time algbw busbw #wrong (or error) [4 per-iteration], then [a timestamp: 2 words];
 * 0 while unknown (no column line). */
static int fields_of(const struct nt_test *t) {
  if (!t->lead) return 0;
  return t->lead + 2 * (4 + t->extra) + 2 * t->stamp;
}

/* One side's 4 fields (time algbw busbw #wrong) into a row of t; 0 or -1 said. */
static int side_fields(struct nt_test *t, const char *file, int ln, char **v, struct nt_row *r) {
  if (plain_dec(v[0], &r->time_us, &r->half_t) || !(r->time_us > 0))
    return nt_bad_at(file, ln, "time '%s': not a time in microseconds above 0", v[0]);
  if (plain_dec(v[1], &r->algbw, &r->half_a))
    return nt_bad_at(file, ln, "algbw '%s': not a bandwidth in GB/s", v[1]);
  if (plain_dec(v[2], &r->busbw, &r->half_b))
    return nt_bad_at(file, ln, "busbw '%s': not a bandwidth in GB/s", v[2]);
  double x, h;
  r->wrong = -1;
  if (!strcmp(v[3], "N/A")) return 0;
  if (t->error_col) { /* before 2.13: the largest difference from the expected result */
    if (plain_dec(v[3], &r->delta, &h))
      return nt_bad_at(file, ln, "error '%s': not nccl-tests' largest error (a number, or N/A)",
                       v[3]);
    return 0;
  }
  if (plain_dec(v[3], &x, &h) || x != floor(x) || x >= 9.2e18)
    return nt_bad_at(file, ln, "#wrong '%s': not a count of wrong elements (or N/A)", v[3]);
  r->wrong = (long long)x;
  return 0;
}

/* One whole result line of t (its words); 0 or -1 said. Without a column line, 13 fields are
 * nccl-tests' table since 2.13 and 12 the table before it. */
static int result_line(struct nt_test *t, const char *file, int ln, char **w, int n) {
  if (!t->lead && (n == 12 || n == 13)) {
    t->lead = n - 8;
    t->has_redop = 1;
    t->error_col = n == 12;
  }
  int want = fields_of(t) ? fields_of(t) : 13;
  if (n != want)
    return nt_bad_at(file, ln,
                     "not an nccl-tests result line: %d fields, want %d (size count type%s%s, "
                     "then time algbw busbw %s%s out of place and in place%s)",
                     n, want, t->has_redop || !t->lead ? " redop" : "",
                     t->lead == 5 || !t->lead ? " root" : "", t->error_col ? "error" : "#wrong",
                     t->extra ? " and 4 per-iteration figures" : "", t->stamp ? ", a time" : "");
  uint64_t bytes, count;
  if (plain_u64(w[0], &bytes)) return nt_bad_at(file, ln, "size '%s': not a count of bytes", w[0]);
  if (plain_u64(w[1], &count))
    return nt_bad_at(file, ln, "count '%s': not a count of elements", w[1]);
  if (!nt_type_size(w[2]))
    return nt_bad_at(file, ln, "type '%.30s': not a type nccl-tests prints", w[2]);
  const char *redop = t->has_redop ? w[3] : "none";
  if (!known_redop(redop))
    return nt_bad_at(file, ln, "redop '%.30s': not an operation nccl-tests prints", redop);
  int root = -1, at = t->lead;
  if (at == 3 + t->has_redop + 1) { /* a root column */
    char *e, *rw = w[at - 1];
    long r = strtol(rw, &e, 10);
    if (*e || e == rw || r < -1 || r > 1 << 30 || rw[0] == '+')
      return nt_bad_at(file, ln, "root '%s': not a rank (or -1)", rw);
    root = (int)r;
  }
  if (t->stamp && (strspn(w[n - 2], "0123456789-") != strlen(w[n - 2]) ||
                   strspn(w[n - 1], "0123456789:") != strlen(w[n - 1])))
    return nt_bad_at(file, ln, "timestamp '%s %s': not a date and a time", w[n - 2], w[n - 1]);
  for (int side = 0; side < 2; side++) {
    char **v = w + at + side * (4 + t->extra);
    struct nt_row *r = nt_add_row(t, ln);
    if (!r) return nt_bad_at(file, ln, "out of memory");
    r->bytes = bytes;
    r->count = count;
    snprintf(r->type, sizeof(r->type), "%s", w[2]);
    snprintf(r->redop, sizeof(r->redop), "%s", redop);
    r->root = root;
    r->in_place = side;
    r->result = t->results;
    if (side_fields(t, file, ln, v, r)) return -1;
    for (int k = 0; k < t->extra; k++) {
      double x, h;
      if (plain_dec(v[4 + k], &x, &h))
        return nt_bad_at(file, ln, "per-iteration figure '%s': not a number", v[4 + k]);
    }
  }
  t->results++;
  return 0;
}

/* ---- header lines ---- */

/* The number after key in s, or -1. */
static long long num_after(const char *s, const char *key) {
  const char *p = strstr(s, key);
  return p ? strtoll(p + strlen(key), NULL, 10) : -1;
}

/* The column names' line (# size count type redop root time algbw busbw #wrong ...): the
 * table's format; 1 when c is one, else 0. */
static int columns_line(struct nt_test *t, const char *c, int ln) {
  char buf[1024], *w[64];
  snprintf(buf, sizeof(buf), "%s", c);
  int n = nt_split_words(buf, w, 64), lead = 3;
  if (n < 10 || strcmp(w[0], "size") || strcmp(w[1], "count") || strcmp(w[2], "type")) return 0;
  t->has_redop = !strcmp(w[3], "redop");
  lead += t->has_redop;
  lead += !strcmp(w[lead], "root");
  if (strcmp(w[lead], "time") && strcmp(w[lead], "cputime")) return 0;
  t->lead = lead;
  t->error_col = !strcmp(w[lead + 3], "error");
  t->extra = 0;
  for (int i = 0; i < n; i++)
    if (!strcmp(w[i], "i_min")) t->extra = 4;
  t->stamp = !strcmp(w[n - 1], "timestamp");
  t->table_line = ln;
  return 1;
}

/* "#  Rank  0 Group  0 Pid   2146 on         vm device  0 [0000:00:06] NVIDIA H200" (before
 * 2.14: "#   Rank  0 Pid ..."); 1 when c is one. */
static int rank_line(struct nt_set *s, struct nt_test *t, const char *c) {
  if (strncmp(c, "Rank ", 5)) return 0;
  int r = atoi(c + 5);
  t->rank_lines++;
  if (r + 1 > t->rank_max) t->rank_max = r + 1;
  size_t k = strlen(c);
  if (k >= 3 && !strcmp(c + k - 3, "...")) t->rank_cut = 1;
  const char *on = strstr(c, " on "), *br = strchr(c, ']');
  char host[128] = "";
  if (on) sscanf(on + 4, "%127s", host);
  if (host[0]) {
    nt_add_host(s, host);
    if (!strstr(t->hosts, host) && strlen(t->hosts) + strlen(host) + 3 < sizeof(t->hosts))
      snprintf(t->hosts + strlen(t->hosts), sizeof(t->hosts) - strlen(t->hosts), "%s%s",
               t->hosts[0] ? ", " : "", host);
    if (!t->host[0]) snprintf(t->host, sizeof(t->host), "%s", host);
  }
  if (br && !t->gpu[0]) snprintf(t->gpu, sizeof(t->gpu), "%s", br + 1 + strspn(br + 1, " "));
  return 1;
}

/* "nThread 1 nGpus 2 minBytes 1024 maxBytes 1048576 step: 4(factor) warmup iters: 1 iters: 20
 * agg iters: 1 validation: 1 graph: 0" */
static void threads_line(struct nt_test *t, const char *c) {
  snprintf(t->header, sizeof(t->header), "%s", c);
  t->threads = (int)num_after(c, "nThread ");
  t->gpus = (int)num_after(c, "nGpus ");
  long long lo = num_after(c, "minBytes "), hi = num_after(c, "maxBytes "),
            step = num_after(c, "step: ");
  t->min_bytes = lo > 0 ? (uint64_t)lo : 0;
  t->max_bytes = hi > 0 ? (uint64_t)hi : 0;
  if (step > 0 && strstr(c, "(factor)")) t->step_factor = (uint64_t)step;
  if (step > 0 && strstr(c, "(bytes)")) t->step_bytes = (uint64_t)step;
  const char *w = strstr(c, "warmup iters:"); /* then " iters: N" is -n */
  t->iters = (int)num_after(w ? w + 13 : c, " iters: ");
  t->agg = (int)num_after(c, "agg iters: ");
  t->graph = (int)num_after(c, "graph: ");
  t->check = (int)num_after(c, "validation: ");
}

/* ---- commands ---- */

/* 1 when word (a path or a name) is a nccl-tests binary: [a-z_]+_perf[a-z0-9_]*. */
static int perf_binary(const char *word) {
  const char *b = strrchr(word, '/') ? strrchr(word, '/') + 1 : word;
  const char *p = strstr(b, "_perf");
  if (!p || p == b || !islower((unsigned char)*b)) return 0;
  for (const char *q = b; q < p; q++)
    if (!islower((unsigned char)*q) && *q != '_') return 0;
  for (const char *q = p + 5; *q; q++)
    if (!islower((unsigned char)*q) && !isdigit((unsigned char)*q) && *q != '_') return 0;
  return 1;
}

/* A line that names a nccl-tests command (# all_reduce_perf -g 2 ..., ######## call 1:
 * NCCL_ALGO=Ring /x/all_reduce_perf -t 2, $ mpirun -np 8 ./build/all_reduce_perf_mpi -b 8):
 * the VAR=value words before the binary, its name and its flags (each flag and its value; the
 * command ends at the first other word: a remark is not a flag) into a new string *cmd, the
 * binary into coll; 1 when it names one, else 0. */
static int command_line(const char *text, char **cmd, char *coll, size_t clen) {
  char *buf = strdup(text), **w = malloc(sizeof(char *) * (strlen(text) / 2 + 2));
  int n = buf && w ? nt_split_words(buf, w, (int)(strlen(text) / 2 + 1)) : 0, at = -1;
  for (int i = 0; i < n && at < 0; i++)
    if (perf_binary(w[i])) at = i;
  char *out = at >= 0 ? malloc(strlen(text) + 1) : NULL;
  if (out) {
    size_t u = 0;
    int value_next = 0;
    for (int i = 0; i < n; i++) {
      const char *word = w[i];
      if (i < at && (!strchr(word, '=') || word[0] == '-')) continue; /* launcher words */
      if (i == at) {
        word = strrchr(w[i], '/') ? strrchr(w[i], '/') + 1 : w[i];
        snprintf(coll, clen, "%s", word);
      } else if (i > at) {
        int flag = word[0] == '-' && isalpha((unsigned char)word[1 + (word[1] == '-')]);
        if (!flag && !value_next) break; /* a remark, a redirection, prose */
        value_next = flag && !strchr(word, '=');
      }
      u += (size_t)sprintf(out + u, "%s%s", u ? " " : "", word);
    }
  }
  free(buf);
  free(w);
  *cmd = out;
  return out != NULL;
}

/* ---- the log ---- */

struct reader {
  struct nt_set *s;
  const char *file;
  struct nt_test *t;  /* the test being read */
  char *cmd;          /* a command named before the test it belongs to */
  char coll[64];
  char part[1024];    /* the first words of a result line NCCL's log cut in two */
  int part_line;
};

/* 1 when t has begun (more than a command named before it). */
static int begun(const struct nt_test *t) {
  return t->version[0] || t->coll[0] || t->header[0] || t->rank_lines || t->table_line ||
         t->nrows || t->footer;
}

/* A new test from line ln taking the command named before it; -1 said when s is full. */
static int start_test(struct reader *r, int ln) {
  if (!(r->t = nt_new_test(r->s, r->file, ln))) return -1;
  r->t->cmd = r->cmd;
  r->cmd = NULL;
  if (r->coll[0]) snprintf(r->t->coll, sizeof(r->t->coll), "%s", r->coll);
  r->coll[0] = 0;
  return 0;
}

/* A '#' line (c: after the '#', blanks skipped); 0 or -1 said. */
static int comment_line(struct reader *r, const char *c, int ln) {
  struct nt_test *t = r->t;
  int version = !strncmp(c, "nccl-tests version", 18),
      starting = !strncmp(c, "Collective test starting:", 25),
      threads = !strncmp(c, "nThread ", 8);
  if (version || starting || threads) {
    int fresh = !t || t->footer || t->nrows || t->header[0] || (version && begun(t)) ||
                (starting && t->coll[0] && !t->cmd);
    if (fresh && start_test(r, ln)) return -1;
    t = r->t;
    if (version) {
      snprintf(t->version, sizeof(t->version), "%s", c);
      long long code = num_after(c, "nccl-library=");
      if (code > 0)
        snprintf(t->nccl, sizeof(t->nccl), "%lld.%lld.%lld", code / 10000, code / 100 % 100,
                 code % 100);
    } else if (starting) sscanf(c + 25, "%63s", t->coll);
    else threads_line(t, c);
    return 0;
  }
  if (!strncmp(c, "Collective test concluded:", 26)) {
    if (!t) return nt_bad_at(r->file, ln, "a test's closing line without its results");
    sscanf(c + 26, "%63s", t->coll);
    t->concluded = ln;
    if (!t->footer) t->footer = ln;
    return 0;
  }
  if ((!strncmp(c, "size ", 5) || !strncmp(c, "Rank ", 5)) && (!t || t->footer || t->nrows)) {
    /* a table (or its rank lines) with no header line before it */
    if (start_test(r, ln)) return -1;
    t = r->t;
  }
  if (t && !t->footer && columns_line(t, c, ln)) return 0;
  if (t && !t->footer && rank_line(r->s, t, c)) return 0;
  if (t && !strncmp(c, "Reducing maxBytes to ", 21)) {
    t->max_bytes = (uint64_t)strtoull(c + 21, NULL, 10);
    return 0;
  }
  if (t && !strncmp(c, "Out of bounds values", 20)) {
    t->oob = num_after(c, ": ");
    return 0;
  }
  if (t && !strncmp(c, "Avg bus bandwidth", 17)) {
    if (!t->footer) t->footer = ln;
    return 0;
  }
  char *cmd, coll[64];
  if (command_line(c, &cmd, coll, sizeof(coll))) {
    if (t && !t->footer && !t->nrows && !t->cmd) {
      t->cmd = cmd;
      if (!t->coll[0]) snprintf(t->coll, sizeof(t->coll), "%s", coll);
    } else {
      free(r->cmd);
      r->cmd = cmd;
      snprintf(r->coll, sizeof(r->coll), "%s", coll);
      if (t && (t->footer || t->nrows)) r->t = NULL;
    }
    return 0;
  }
  /* nccl-tests' own remarks, and a prose comment (counted, never the scenario) */
  static const char *const own[] = {"", "Using devices", "out-of-place", "(B)", "Blocking",
                                    "Parallel Init", "Per-Iteration", "GPU memory usage",
                                    "error:", "Writing JSON", "in-place", "Graph"};
  for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
    if (!strncmp(c, own[i], strlen(own[i])) && (own[i][0] || !c[0])) return 0;
  if (strspn(c, "#") == strlen(c)) return 0;
  r->s->noise.n[NT_COMMENT]++;
  r->s->noise.total++;
  return 0;
}

/* A line starting with a digit: a result line, or the first or last words of one that NCCL's
 * log cut in two; 0 or -1 said. */
static int row_text(struct reader *r, char *p, int ln) {
  char *glued = nt_glued_noise(p, r->s->hosts);
  if (glued) {
    if (!nt_noise_line(r->s, glued, ln)) {
      r->s->noise.n[NT_NCCL_INFO]++;
      r->s->noise.total++;
    }
    *glued = 0;
  }
  size_t u = strlen(r->part);
  if (u + strlen(p) + 2 >= sizeof(r->part)) return nt_bad_at(r->file, ln, "a result line too long");
  snprintf(r->part + u, sizeof(r->part) - u, "%s%s", u ? " " : "", p);
  if (!r->part_line) r->part_line = ln;
  char buf[1024], *w[64];
  snprintf(buf, sizeof(buf), "%s", r->part);
  int n = nt_split_words(buf, w, 64);
  int want = fields_of(r->t);
  if (!want) want = n >= 5 && !strcmp(w[4], "-1") ? 13 : 12;
  if (glued && n < want) return 0; /* the rest follows NCCL's lines */
  int first = r->part_line;
  r->part[0] = 0;
  r->part_line = 0;
  return result_line(r->t, r->file, first, w, n);
}

/* One line of the log (tags removed, blanks before it skipped); 0 or -1 said. */
static int log_line(struct reader *r, char *p, int ln) {
  if (!*p) return 0;
  if (r->part_line) { /* a result line cut in two: NCCL's lines, then its other words */
    if (nt_noise_line(r->s, p, ln)) return 0;
    if (!isdigit((unsigned char)*p))
      return nt_bad_at(r->file, r->part_line,
                       "a result line cut off: line %d does not hold its other fields", ln);
    return row_text(r, p, ln);
  }
  if (*p == '#') return comment_line(r, p + strspn(p, "# \t"), ln);
  int kind = nt_noise_kind(p);
  char *cmd, coll[64];
  if (kind != NT_NCCL_INFO && kind != NT_NCCL_WARN && !isdigit((unsigned char)*p) &&
      command_line(p, &cmd, coll, sizeof(coll))) { /* $ mpirun ... all_reduce_perf -b 8 */
    free(r->cmd);
    r->cmd = cmd;
    snprintf(r->coll, sizeof(r->coll), "%s", coll);
    if (r->t && (r->t->footer || r->t->nrows)) r->t = NULL;
    return 0;
  }
  if (kind >= 0) return nt_noise_line(r->s, p, ln), 0;
  if (isdigit((unsigned char)*p)) {
    if ((!r->t || r->t->footer) && start_test(r, ln)) return -1;
    return row_text(r, p, ln);
  }
  struct nt_test *t = r->t;
  if (t && !t->footer && (t->table_line || t->nrows)) /* in a table: a result line misread? */
    return nt_bad_at(r->file, ln, "not nccl-tests output inside the table of the test from line "
                     "%d: '%.60s'", t->line, p);
  r->s->noise.n[NT_OTHER]++;
  r->s->noise.total++;
  return 0;
}

int nt_read_text(struct nt_set *s, const char *file, char *text, size_t len) {
  struct reader r = {.s = s, .file = file};
  int ln = 0, rc = 0, first = s->n;
  memset(&s->noise, 0, sizeof(s->noise));
  s->failure[0] = s->nccl[0] = 0;
  for (char *line = text; rc == 0 && line < text + len;) {
    char *nl = memchr(line, '\n', (size_t)(text + len - line));
    size_t k = nl ? (size_t)(nl - line) : (size_t)(text + len - line);
    ln++;
    char *nul = memchr(line, 0, k);
    if (nul) {
      rc = nt_bad_at(file, ln, "a NUL byte at column %zu", (size_t)(nul - line) + 1);
      break;
    }
    if (k && line[k - 1] == '\r') k--;
    line[k] = 0;
    nt_untag(line);
    rc = log_line(&r, line + strspn(line, " \t"), ln);
    line = nl ? nl + 1 : text + len;
  }
  free(r.cmd);
  if (!rc && r.part_line)
    rc = nt_bad_at(file, r.part_line, "cut off inside a result line (the file ends first)");
  for (int i = first; i < s->n && !rc; i++) {
    struct nt_test *t = &s->t[i];
    if (!t->nccl[0]) snprintf(t->nccl, sizeof(t->nccl), "%s", s->nccl);
    if (t->footer) continue;
    if (!t->nrows && s->failure[0])
      rc = nt_bad_at(file, t->line, "no results: nccl-tests failed (%s)", s->failure);
    else
      rc = nt_bad_at(file, ln,
                     "cut off: the test from line %d ends without nccl-tests' closing lines "
                     "('# Avg bus bandwidth', %d result%s before the end)%s%s",
                     t->line, t->nrows / 2, t->nrows == 2 ? "" : "s",
                     s->failure[0] ? "; nccl-tests failed, " : "", s->failure);
  }
  return rc;
}
