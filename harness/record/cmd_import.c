/* arbench import nccl-tests FILE... [--out DIR] [--scenario NAME]: nccl-tests' AllReduce
 * results (all_reduce_perf's text table, or the JSON file its -J writes) become a run folder:
 * results.csv with arbench's header, one row per size and side (transport `out-of-place` or
 * `in-place`, algorithm nccl, source nccl-tests), the test's flags as the scenario, and
 * meta.txt with each test's header lines and (JSON) its arguments and NCCL/CUDA environment.
 * So the pictures, the summary, `history` and `--baseline` read them as they read a run.
 *
 * Every file is read whole before anything is written: a file that is not nccl-tests output,
 * or a test cut off before nccl-tests' closing lines, is refused with FILE:LINE (exit 2) and
 * no folder is made. Tests of other collectives in a file (reduce_scatter_perf...) are left
 * out, each said on stderr. */
#include "record/cmd_import.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/config.h"
#include "record/csv.h"

#define MAX_TESTS 64

struct nt_row {
  uint64_t bytes;
  char type[16], redop[16];
  int in_place;
  double time_us, algbw, busbw;
  long long wrong; /* -1: not checked (nccl-tests -c 0 prints N/A) */
};

struct nt_test { /* one all_reduce_perf invocation */
  const char *file;
  int line;          /* where it starts */
  char cmd[512];     /* its command line when the log says it (a comment, JSON args) */
  char coll[64];     /* the test binary: all_reduce_perf */
  char version[128]; /* "# nccl-tests version ..." */
  char header[512];  /* "# nThread ..." */
  char times[160];   /* JSON start and end time */
  char env[2048];    /* JSON: the NCCL_ and CUDA_ variables, one per line */
  int nccl_code;     /* nccl-library=22803 */
  int threads, gpus, iters, agg, graph; /* -1: unknown */
  int ranks;                            /* "#  Rank" lines (devices in JSON) */
  char host[128], gpu[128];
  int concluded;
  struct nt_row *rows;
  int nrows, cap;
  char scenario[256];
};

struct nt_set {
  struct nt_test t[MAX_TESTS];
  int n;
};

static int bad_at(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int bad_at(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "arbench import: %s:%d: ", file, line);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return -1;
}

static struct nt_row *add_row(struct nt_test *t) {
  if (t->nrows == t->cap) {
    int cap = t->cap ? 2 * t->cap : 64;
    struct nt_row *r = realloc(t->rows, (size_t)cap * sizeof(*r));
    if (!r) return NULL;
    t->rows = r;
    t->cap = cap;
  }
  memset(&t->rows[t->nrows], 0, sizeof(t->rows[0]));
  return &t->rows[t->nrows++];
}

static struct nt_test *new_test(struct nt_set *s, const char *file, int line) {
  if (s->n == MAX_TESTS) return NULL;
  struct nt_test *t = &s->t[s->n++];
  memset(t, 0, sizeof(*t));
  t->file = file;
  t->line = line;
  t->threads = t->gpus = t->iters = t->agg = t->graph = -1;
  return t;
}

/* A whole number or a whole decimal; 0 or -1. */
static int to_u64(const char *s, uint64_t *v) {
  char *e;
  errno = 0;
  unsigned long long x = strtoull(s, &e, 10);
  if (!*s || *e || errno || *s == '-') return -1;
  *v = x;
  return 0;
}
static int to_num(const char *s, double *v) {
  char *e;
  double x = strtod(s, &e);
  if (!*s || *e || !isfinite(x)) return -1;
  *v = x;
  return 0;
}

/* The words of line (spaces, tabs) into w[0..max), in place; their count. */
static int split_words(char *line, char **w, int max) {
  int n = 0;
  for (char *p = strtok(line, " \t\r\n"); p && n < max; p = strtok(NULL, " \t\r\n"))
    w[n++] = p;
  return n;
}

/* Where a comment names the command (# all_reduce_perf -g 2 ..., ######## call 1:
 * NCCL_ALGO=Ring /x/all_reduce_perf -t 2 ...): its environment words and the binary's
 * basename with its flags into cmd, and the binary into coll; 1 when it does, else 0. */
static int command_comment(const char *text, char *cmd, size_t len, char *coll, size_t clen) {
  char buf[1024], *w[128];
  snprintf(buf, sizeof(buf), "%s", text);
  int n = split_words(buf, w, 128), at = -1;
  for (int i = 0; i < n && at < 0; i++) {
    const char *b = strrchr(w[i], '/') ? strrchr(w[i], '/') + 1 : w[i];
    size_t k = strlen(b);
    if (k > 5 && !strcmp(b + k - 5, "_perf")) at = i;
  }
  if (at < 0) return 0;
  cmd[0] = 0;
  size_t used = 0;
  for (int i = 0; i < n; i++) {
    if (i < at && !strchr(w[i], '=')) continue;              /* "########", "call", "1:" */
    if (i > at && (w[i][0] == '(' || w[i][0] == '#')) break; /* a remark after the flags */
    const char *word = w[i];
    if (i == at) {
      word = strrchr(w[i], '/') ? strrchr(w[i], '/') + 1 : w[i];
      snprintf(coll, clen, "%s", word);
    }
    used +=
        (size_t)snprintf(cmd + used, used < len ? len - used : 0, "%s%s", used ? " " : "", word);
  }
  return 1;
}

/* The number after `key` in s (the "# nThread ..." line), or -1. */
static int num_after(const char *s, const char *key) {
  const char *p = strstr(s, key);
  return p ? atoi(p + strlen(key)) : -1;
}

/* "#  Rank  0 Group  0 Pid   2146 on         vm device  0 [0000:00:06] NVIDIA H200" */
static void rank_line(struct nt_test *t, const char *s) {
  t->ranks++;
  const char *on = strstr(s, " on "), *br = strchr(s, ']');
  if (on && !t->host[0]) sscanf(on + 4, "%127s", t->host);
  if (br && !t->gpu[0]) {
    snprintf(t->gpu, sizeof(t->gpu), "%s", br + 1 + strspn(br + 1, " "));
    t->gpu[strcspn(t->gpu, "\r\n")] = 0;
  }
}

/* One result line of the table: size count type redop root, then time algbw busbw #wrong of
 * out of place and of in place; 0 or -1 said (a line cut short has fewer fields). */
static int table_line(struct nt_test *t, const char *file, int ln, char *line) {
  char *w[32];
  int n = split_words(line, w, 32);
  if (n != 13)
    return bad_at(file, ln,
                  "not an nccl-tests result line: %d fields, want 13 (size count "
                  "type redop root, then time algbw busbw #wrong out of place and in place)",
                  n);
  uint64_t bytes, count;
  if (to_u64(w[0], &bytes) || to_u64(w[1], &count))
    return bad_at(file, ln, "not an nccl-tests result line: size '%s', count '%s'", w[0], w[1]);
  for (int side = 0; side < 2; side++) {
    char **v = w + 5 + 4 * side;
    struct nt_row *r = add_row(t);
    if (!r) return bad_at(file, ln, "out of memory");
    r->bytes = bytes;
    snprintf(r->type, sizeof(r->type), "%s", w[2]);
    snprintf(r->redop, sizeof(r->redop), "%s", w[3]);
    r->in_place = side == 1;
    uint64_t wr;
    if (to_num(v[0], &r->time_us) || to_num(v[1], &r->algbw) || to_num(v[2], &r->busbw))
      return bad_at(file, ln, "not an nccl-tests result line: '%s %s %s' are not numbers", v[0],
                    v[1], v[2]);
    if (!strcmp(v[3], "N/A"))
      r->wrong = -1;
    else if (!to_u64(v[3], &wr))
      r->wrong = (long long)wr;
    else
      return bad_at(file, ln, "not an nccl-tests result line: #wrong '%s'", v[3]);
  }
  return 0;
}

/* A new test from line `line` that takes the command and collective read before it (which are
 * then used up); NULL after one line when there are too many. */
static struct nt_test *pending_test(struct nt_set *s, const char *file, int line, char *cmd,
                                    char *coll) {
  struct nt_test *t = new_test(s, file, line);
  if (!t) {
    bad_at(file, line, "more than %d tests", MAX_TESTS);
    return NULL;
  }
  snprintf(t->cmd, sizeof(t->cmd), "%s", cmd);
  snprintf(t->coll, sizeof(t->coll), "%s", coll);
  cmd[0] = coll[0] = 0;
  return t;
}

/* all_reduce_perf's text output (one or several tests, one after another); 0 or -1 said. */
static int read_text(struct nt_set *s, const char *file, FILE *f) {
  char *line = NULL;
  size_t cap = 0;
  int ln = 0, rc = 0;
  struct nt_test *t = NULL;
  char pending_cmd[512] = "", pending_coll[64] = "";
  while (rc == 0 && getline(&line, &cap, f) > 0) {
    ln++;
    char *p = line + strspn(line, " \t");
    p[strcspn(p, "\r\n")] = 0;
    if (!*p) continue;
    /* a new test begins at its first header line, or at rows after a concluded one */
    int starts =
        !strncmp(p, "# nccl-tests version", 20) || !strncmp(p, "# Collective test starting:", 27);
    if (*p == '#') {
      char cmd[512], coll[64];
      if (!strncmp(p, "# Collective test concluded:", 28)) {
        if (!t) {
          rc = bad_at(file, ln, "a test's closing line without its results");
          break;
        }
        t->concluded = 1;
        sscanf(p + 28, "%63s", t->coll);
        continue;
      }
      if (starts && t && (t->nrows || t->concluded || (p[2] == 'n' && t->version[0]))) t = NULL;
      if (!starts && !strstr(p, "Collective test") &&
          command_comment(p, cmd, sizeof(cmd), coll, sizeof(coll))) {
        if (t && (t->nrows || t->concluded)) t = NULL;
        if (t && !t->cmd[0]) {
          snprintf(t->cmd, sizeof(t->cmd), "%s", cmd);
          if (!t->coll[0]) snprintf(t->coll, sizeof(t->coll), "%s", coll);
        } else if (!t) {
          snprintf(pending_cmd, sizeof(pending_cmd), "%s", cmd);
          snprintf(pending_coll, sizeof(pending_coll), "%s", coll);
        }
        continue;
      }
      if (!t && (starts || !strncmp(p, "# nThread", 9))) {
        if (!(t = pending_test(s, file, ln, pending_cmd, pending_coll))) {
          rc = -1;
          break;
        }
      }
      if (!t) continue;
      if (!strncmp(p, "# nccl-tests version", 20)) {
        snprintf(t->version, sizeof(t->version), "%s", p + 2);
        int code = num_after(p, "nccl-library=");
        if (code > 0) t->nccl_code = code;
      } else if (!strncmp(p, "# Collective test starting:", 27)) {
        sscanf(p + 27, "%63s", t->coll);
      } else if (!strncmp(p, "# nThread", 9)) {
        snprintf(t->header, sizeof(t->header), "%s", p + 2);
        t->threads = num_after(p, "nThread ");
        t->gpus = num_after(p, "nGpus ");
        const char *w = strstr(p, "warmup iters:"); /* then " iters: N" is -n */
        t->iters = num_after(w ? w + 13 : p, " iters: ");
        t->agg = num_after(p, "agg iters: ");
        t->graph = num_after(p, "graph: ");
      } else if (!strncmp(p, "#  Rank", 7) || !strncmp(p, "# Rank", 6)) {
        rank_line(t, p);
      }
      continue;
    }
    if (!isdigit((unsigned char)*p)) {
      if (strstr(p, "NCCL")) continue; /* NCCL's own log lines (NCCL_DEBUG) */
      rc = bad_at(file, ln, "not nccl-tests output: '%.60s'", p);
      break;
    }
    if (!t || t->concluded) { /* rows with no header of their own: a test of their own */
      if (!(t = pending_test(s, file, ln, pending_cmd, pending_coll))) {
        rc = -1;
        break;
      }
    }
    rc = table_line(t, file, ln, p);
  }
  free(line);
  if (rc) return rc;
  for (int i = 0; i < s->n; i++)
    if (s->t[i].file == file && !s->t[i].concluded)
      return bad_at(file, ln,
                    "cut off: the test from line %d has no '# Collective test "
                    "concluded' line (%d result%s before the end)",
                    s->t[i].line, s->t[i].nrows, s->t[i].nrows == 1 ? "" : "s");
  return 0;
}

/* ---- JSON (nccl-tests -J FILE.json): a small reader of the whole document ---- */

enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };
struct jv {
  int type;
  double num;
  char *str;       /* J_STR */
  char *key;       /* an object's member */
  struct jv *kids; /* J_ARR, J_OBJ */
  int n;
};

struct jp {
  const char *s, *p, *file;
  const char *err;
};

static int jp_line(const struct jp *j) {
  int ln = 1;
  for (const char *q = j->s; q < j->p; q++)
    ln += *q == '\n';
  return ln;
}

static void jv_free(struct jv *v) {
  for (int i = 0; i < v->n; i++)
    jv_free(&v->kids[i]);
  free(v->kids);
  free(v->str);
  free(v->key);
}

static void ws(struct jp *j) {
  j->p += strspn(j->p, " \t\r\n");
}

static char *jstring(struct jp *j) {
  if (*j->p != '"') {
    j->err = "a string was expected";
    return NULL;
  }
  const char *q = ++j->p;
  size_t n = 0;
  char *out = malloc(strlen(q) + 1);
  if (!out) {
    j->err = "out of memory";
    return NULL;
  }
  for (; *q && *q != '"'; q++) {
    if (*q == '\\' && q[1]) {
      q++;
      char c = *q == 'n' ? '\n' : *q == 't' ? '\t' : *q;
      if (*q == 'u') {
        c = '?';
        q += strspn(q + 1, "0123456789abcdefABCDEF") >= 4 ? 4 : 0;
      }
      out[n++] = c;
    } else
      out[n++] = *q;
  }
  out[n] = 0;
  if (*q != '"') {
    free(out);
    j->p = q;
    j->err = "the text ends inside a string";
    return NULL;
  }
  j->p = q + 1;
  return out;
}

static int jvalue(struct jp *j, struct jv *v, int depth) {
  memset(v, 0, sizeof(*v));
  ws(j);
  if (depth > 32) {
    j->err = "nested too deep";
    return -1;
  }
  char c = *j->p;
  if (!c) {
    j->err = "the document ends early (cut off?)";
    return -1;
  }
  if (c == '"') {
    v->type = J_STR;
    return (v->str = jstring(j)) ? 0 : -1;
  }
  if (c == '{' || c == '[') {
    v->type = c == '{' ? J_OBJ : J_ARR;
    char close = c == '{' ? '}' : ']';
    j->p++;
    ws(j);
    if (*j->p == close) {
      j->p++;
      return 0;
    }
    for (;;) {
      struct jv *k = realloc(v->kids, (size_t)(v->n + 1) * sizeof(*k));
      if (!k) {
        j->err = "out of memory";
        return -1;
      }
      v->kids = k;
      struct jv *e = &v->kids[v->n];
      char *key = NULL;
      if (v->type == J_OBJ) {
        ws(j);
        if (!(key = jstring(j))) return -1;
        ws(j);
        if (*j->p != ':') {
          free(key);
          j->err = "':' was expected";
          return -1;
        }
        j->p++;
      }
      int r = jvalue(j, e, depth + 1);
      e->key = key;
      v->n++;
      if (r) return -1;
      ws(j);
      if (*j->p == ',') {
        j->p++;
        continue;
      }
      if (*j->p == close) {
        j->p++;
        return 0;
      }
      j->err =
          *j->p ? "',' or a closing bracket was expected" : "the document ends early (cut off?)";
      return -1;
    }
  }
  if (!strncmp(j->p, "null", 4)) {
    j->p += 4;
    v->type = J_NULL;
    return 0;
  }
  if (!strncmp(j->p, "true", 4)) {
    j->p += 4;
    v->type = J_BOOL;
    v->num = 1;
    return 0;
  }
  if (!strncmp(j->p, "false", 5)) {
    j->p += 5;
    v->type = J_BOOL;
    return 0;
  }
  char *e;
  v->num = strtod(j->p, &e);
  if (e == j->p) {
    j->err = "a value was expected";
    return -1;
  }
  v->type = J_NUM;
  j->p = e;
  return 0;
}

static const struct jv *jget(const struct jv *o, const char *key) {
  for (int i = 0; o && o->type == J_OBJ && i < o->n; i++)
    if (!strcmp(o->kids[i].key, key)) return &o->kids[i];
  return NULL;
}
static double jnum(const struct jv *o, const char *key, double dflt) {
  const struct jv *v = jget(o, key);
  return v && v->type == J_NUM ? v->num : dflt;
}
static const char *jstr(const struct jv *o, const char *key) {
  const struct jv *v = jget(o, key);
  return v && v->type == J_STR ? v->str : "";
}

/* One result's side (out_of_place or in_place) as a row; 0, or -1 said. */
static int json_side(struct nt_test *t, const struct jv *res, const char *side, int in_place,
                     int ln) {
  const struct jv *o = jget(res, side);
  if (!o || o->type == J_NULL) return 0;
  double tm = jnum(o, "time", jnum(o, "cpu_time", NAN));
  const struct jv *wr = jget(o, "nwrong");
  struct nt_row *r = add_row(t);
  if (!r) return bad_at(t->file, ln, "out of memory");
  r->bytes = (uint64_t)jnum(res, "size", 0);
  snprintf(r->type, sizeof(r->type), "%s", jstr(res, "type"));
  snprintf(r->redop, sizeof(r->redop), "%s", jstr(res, "redop"));
  r->in_place = in_place;
  r->time_us = tm;
  r->algbw = jnum(o, "alg_bw", NAN);
  r->busbw = jnum(o, "bus_bw", NAN);
  r->wrong = wr && wr->type == J_NUM ? (long long)wr->num : -1;
  if (isnan(tm) || r->bytes == 0)
    return bad_at(t->file, ln, "a result of %s without its size or time", side);
  return 0;
}

static int read_json(struct nt_set *s, const char *file, char *text) {
  struct jp j = {text, text, file, NULL};
  struct jv doc;
  int rc = jvalue(&j, &doc, 0);
  if (!rc) {
    ws(&j);
    if (*j.p) {
      j.err = "text after the document";
      rc = -1;
    }
  }
  if (rc) {
    bad_at(file, jp_line(&j), "not nccl-tests JSON: %s", j.err);
    jv_free(&doc);
    return -1;
  }
  const struct jv *res = jget(&doc, "results"), *cfg = jget(&doc, "config");
  if (doc.type != J_OBJ || !res || res->type != J_ARR || !cfg)
    rc = bad_at(file, 1,
                "not nccl-tests JSON: no 'config' and 'results' (nccl-tests -J writes "
                "both)");
  else if (!jget(&doc, "end_time"))
    rc = bad_at(file, jp_line(&j), "cut off: no 'end_time' (nccl-tests writes it last)");
  struct nt_test *t = rc ? NULL : new_test(s, file, 1);
  if (t) {
    const struct jv *args = jget(&doc, "args"), *env = jget(&doc, "env"),
                    *dev = jget(&doc, "devices");
    size_t u = 0;
    for (int i = 0; args && i < args->n; i++) {
      const char *a = args->kids[i].str ? args->kids[i].str : "";
      if (i == 0 && strrchr(a, '/')) a = strrchr(a, '/') + 1;
      if (i == 0) snprintf(t->coll, sizeof(t->coll), "%s", a);
      u += (size_t)snprintf(t->cmd + u, u < sizeof(t->cmd) ? sizeof(t->cmd) - u : 0, "%s%s",
                            u ? " " : "", a);
    }
    u = 0;
    for (int i = 0; env && i < env->n; i++) {
      const char *e = env->kids[i].str ? env->kids[i].str : "";
      if (strncmp(e, "NCCL_", 5) && strncmp(e, "CUDA_", 5)) continue; /* nothing else */
      u += (size_t)snprintf(t->env + u, u < sizeof(t->env) ? sizeof(t->env) - u : 0, "%s\n", e);
    }
    snprintf(t->times, sizeof(t->times), "start %s, end %s", jstr(&doc, "start_time"),
             jstr(&doc, "end_time"));
    t->nccl_code = (int)jnum(&doc, "nccl_version", 0);
    snprintf(t->version, sizeof(t->version), "nccl-tests JSON version %g, nccl_version %d",
             jnum(&doc, "version", 0), t->nccl_code);
    t->threads = (int)jnum(cfg, "nthreads", -1);
    t->gpus = (int)jnum(cfg, "ngpus", -1);
    t->iters = (int)jnum(cfg, "iterations", -1);
    t->agg = (int)jnum(cfg, "aggregated_iterations", -1);
    t->graph = (int)jnum(cfg, "graph", -1);
    snprintf(t->header, sizeof(t->header),
             "nThread %d nGpus %d iters %d agg iters %d graph %d "
             "validation %g",
             t->threads, t->gpus, t->iters, t->agg, t->graph, jnum(cfg, "validation", -1));
    for (int i = 0; dev && dev->type == J_ARR && i < dev->n; i++) {
      t->ranks++;
      if (!t->host[0]) snprintf(t->host, sizeof(t->host), "%s", jstr(&dev->kids[i], "hostname"));
      if (!t->gpu[0]) snprintf(t->gpu, sizeof(t->gpu), "%s", jstr(&dev->kids[i], "device_info"));
    }
    for (int i = 0; i < res->n && !rc; i++) {
      rc = json_side(t, &res->kids[i], "out_of_place", 0, 1);
      if (!rc) rc = json_side(t, &res->kids[i], "in_place", 1, 1);
    }
    t->concluded = 1;
  } else if (!rc)
    rc = bad_at(file, 1, "more than %d tests", MAX_TESTS);
  jv_free(&doc);
  return rc;
}

/* ---- the run folder ---- */

static const char *dtype_of(const char *nt) {
  static const char *map[][2] = {
      {"float", "float32"}, {"double", "float64"}, {"half", "float16"}, {"bfloat16", "bfloat16"},
      {"int32", "int32"},   {"uint32", "uint32"},  {"int64", "int64"},  {"uint64", "uint64"},
      {"int8", "int8"},     {"uint8", "uint8"}};
  for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
    if (!strcmp(nt, map[i][0])) return map[i][1];
  return nt;
}

/* The ranks: the devices the log lists, else its threads x GPUs, else what busbw / algbw
 * (2(n-1)/n for AllReduce) says at the largest size. */
static int ranks_of(const struct nt_test *t) {
  if (t->ranks > 0) return t->ranks;
  if (t->threads > 0 && t->gpus > 0) return t->threads * t->gpus;
  const struct nt_row *big = NULL;
  for (int i = 0; i < t->nrows; i++)
    if (!big || t->rows[i].bytes > big->bytes) big = &t->rows[i];
  if (!big || !(big->algbw > 0)) return 0;
  double q = big->busbw / big->algbw; /* 2(n-1)/n */
  return q >= 2 ? 0 : (int)lround(2 / (2 - q));
}

/* The scenario: the flags that tell the test's mode (its sizes and iteration counts are in
 * the rows), else -t -g [-G] from its header. */
static void scenario_of(struct nt_test *t, const char *name, int k, int ntests) {
  char buf[512], *w[64], out[256] = "";
  size_t u = 0;
  snprintf(buf, sizeof(buf), "%s", t->cmd);
  int n = split_words(buf, w, 64);
  for (int i = 0; i + 1 < n && t->iters < 0; i++) /* a log without its header line */
    if (!strcmp(w[i], "-n")) t->iters = atoi(w[i + 1]);
  if (name) {
    if (ntests > 1)
      snprintf(t->scenario, sizeof(t->scenario), "%s %d", name, k + 1);
    else
      snprintf(t->scenario, sizeof(t->scenario), "%s", name);
    return;
  }
  for (int i = 0; i < n; i++) {
    if (strstr(w[i], "_perf")) continue;
    if (!strcmp(w[i], "-b") || !strcmp(w[i], "-e") || !strcmp(w[i], "-f") || !strcmp(w[i], "-w") ||
        !strcmp(w[i], "-n") || !strcmp(w[i], "-J") ||
        (!strcmp(w[i], "-d") && i + 1 < n && !strcmp(w[i + 1], "float")) ||
        (!strcmp(w[i], "-o") && i + 1 < n && !strcmp(w[i + 1], "sum"))) { /* the defaults */
      i++;
      continue;
    }
    u += (size_t)snprintf(out + u, u < sizeof(out) ? sizeof(out) - u : 0, "%s%s", u ? " " : "",
                          w[i]);
  }
  if (!out[0] && t->threads > 0)
    snprintf(out, sizeof(out), "-t %d -g %d%s", t->threads, t->gpus, t->graph > 0 ? " -G" : "");
  snprintf(t->scenario, sizeof(t->scenario), "%s", out[0] ? out : "nccl-tests");
}

static int write_folder(struct nt_set *s, const char *dir, int argc, char **argv) {
  char path[4200], stamp[32];
  hx_utc_iso(stamp, sizeof(stamp));
  const char *id = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
  snprintf(path, sizeof(path), "%s/results.csv", dir);
  struct hx_csv csv;
  if (hx_csv_open_run(&csv, path)) {
    fprintf(stderr, "arbench import: %s: %s\n", path, strerror(errno));
    return EXIT_FAIL;
  }
  int rc = 0, rows = 0;
  for (int i = 0; i < s->n; i++) {
    struct nt_test *t = &s->t[i];
    char nccl[32] = "";
    if (t->nccl_code > 0)
      snprintf(nccl, sizeof(nccl), "%d.%d.%d", t->nccl_code / 10000, t->nccl_code / 100 % 100,
               t->nccl_code % 100);
    int n = ranks_of(t);
    for (int k = 0; k < t->nrows; k++) {
      const struct nt_row *r = &t->rows[k];
      struct hx_csv_row row = {
          .run_id = id,
          .timestamp = stamp,
          .host = t->host,
          .gpu = t->gpu,
          .n_gpus = n,
          .driver = "",
          .cuda = "",
          .nccl = nccl,
          .source = "nccl-tests",
          .algorithm = "nccl",
          .transport = r->in_place ? "in-place" : "out-of-place",
          .pipeline = 1,
          .dtype = dtype_of(r->type),
          .bytes = r->bytes,
          .straggler_rank = -1,
          .delay_us = 0,
          .degraded_rank = -1,
          .factor = 1,
          .iters = t->iters > 0 ? t->iters * (t->agg > 0 ? t->agg : 1) : 0,
          .t = {1, r->time_us, r->time_us, r->time_us, r->time_us, r->time_us, NAN},
          .time_after_arrival_us = r->time_us,
          .algbw_gbps = r->algbw,
          .busbw_gbps = r->busbw,
          .model_time_us = NAN,
          .wrong = r->wrong,
          .status = r->wrong > 0 ? "error" : "ok",
          .lower_bound_us = NAN,
          .scenario = t->scenario,
          .stragglers = "",
          .degraded = "",
          .placement = "1 rank/GPU",
          .settings = strcmp(r->redop, "sum") ? (r->redop[0] ? r->redop : "?") : ""};
      if (hx_csv_append(&csv, &row)) rc = EXIT_FAIL;
      rows++;
    }
  }
  hx_csv_close(&csv);
  snprintf(path, sizeof(path), "%s/meta.txt", dir);
  FILE *m = fopen(path, "w");
  if (!m) {
    fprintf(stderr, "arbench import: %s: %s\n", path, strerror(errno));
    return EXIT_FAIL;
  }
  fprintf(m, "command:");
  for (int i = 0; i < argc; i++)
    fprintf(m, " %s", argv[i]);
  fprintf(m, "\ndate_utc: %s (the import's; the timestamp column is this time)\n", stamp);
  fprintf(m, "source: nccl-tests (imported; every row's source column says so)\n");
  fprintf(m,
          "rows: %d (algorithm nccl, transport out-of-place or in-place, scenario the test's "
          "flags)\n",
          rows);
  for (int i = 0; i < s->n; i++) {
    const struct nt_test *t = &s->t[i];
    fprintf(m, "\n--- test %d: %s:%d, scenario '%s', %d rows, %d ranks\n", i + 1, t->file, t->line,
            t->scenario, t->nrows, ranks_of(t));
    if (t->cmd[0]) fprintf(m, "nccl-tests command: %s\n", t->cmd);
    if (t->version[0]) fprintf(m, "nccl-tests: %s\n", t->version);
    if (t->header[0]) fprintf(m, "nccl-tests: %s\n", t->header);
    if (t->times[0]) fprintf(m, "nccl-tests time: %s\n", t->times);
    if (t->host[0]) fprintf(m, "host: %s, GPU %s\n", t->host, t->gpu);
    for (const char *e = t->env; *e;) {
      size_t k = strcspn(e, "\n");
      fprintf(m, "environment: %.*s\n", (int)k, e);
      e += k + (e[k] == '\n');
    }
  }
  if (fclose(m)) rc = EXIT_FAIL;
  snprintf(path, sizeof(path), "%s/COMMAND", dir);
  FILE *c = fopen(path, "w");
  if (c) {
    for (int i = 0; i < argc; i++)
      fprintf(c, "%s%s", i ? " " : "", argv[i]);
    fputc('\n', c);
    if (fclose(c)) rc = EXIT_FAIL;
  }
  printf("arbench import: %d rows of %d test%s into %s\n", rows, s->n, s->n == 1 ? "" : "s", dir);
  return rc;
}

/* Reads one file (text or JSON) into s, whole and within the input bounds every file arbench
 * reads has (bytes, line length, a pipe's time: config.h); 0, or -1 said. */
static int read_file(struct nt_set *s, const char *file) {
  struct input_file in;
  if (input_open(&in, "import", file, "nccl-tests output", INPUT_WAIT_MS)) return -1;
  const char *c = in.data + strspn(in.data, " \t\r\n");
  int rc;
  if (*c == '{') {
    rc = read_json(s, file, in.data);
  } else {
    FILE *f = fmemopen(in.data, in.len ? in.len : 1, "r");
    rc = f ? read_text(s, file, f) : bad_at(file, 1, "out of memory");
    if (f) fclose(f);
  }
  free(in.data);
  return rc;
}

static void usage(FILE *f) {
  fputs("usage: arbench import nccl-tests FILE... [--out DIR] [--scenario NAME]\n"
        "  nccl-tests' all_reduce_perf output (its text table, or the JSON its -J writes) as a\n"
        "  run folder DIR (default runs/nccl-tests-<first FILE's name>): results.csv with\n"
        "  arbench's columns, one row per size and side (source nccl-tests, algorithm nccl,\n"
        "  transport out-of-place or in-place, scenario the test's flags or NAME), meta.txt\n"
        "  with each test's header (and, from JSON, its arguments and NCCL_/CUDA_ variables).\n"
        "  A comment line naming the command (# all_reduce_perf -t 2 -g 1 -R 2) before a\n"
        "  test gives its flags; the text table does not print -R. A file that is not\n"
        "  nccl-tests output or a test cut off is refused with FILE:LINE (exit 2).\n",
        f);
}

int cmd_import(int argc, char **argv) {
  const char *out = NULL, *name = NULL, *files[MAX_TESTS];
  int nfiles = 0;
  if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    usage(stdout);
    return EXIT_OK;
  }
  if (argc < 2 || strcmp(argv[1], "nccl-tests")) {
    fprintf(stderr, "arbench import: bad value '%s': the only format is nccl-tests\n",
            argc > 1 ? argv[1] : "");
    usage(stderr);
    return EXIT_BAD_INPUT;
  }
  for (int i = 2; i < argc; i++) {
    if ((!strcmp(argv[i], "--out") || !strcmp(argv[i], "--scenario")) && i + 1 >= argc) {
      fprintf(stderr, "arbench import: %s needs a value\n", argv[i]);
      return EXIT_BAD_INPUT;
    }
    if (!strcmp(argv[i], "--out"))
      out = argv[++i];
    else if (!strcmp(argv[i], "--scenario"))
      name = argv[++i];
    else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "arbench import: unknown option '%s' (--out DIR, --scenario NAME)\n",
              argv[i]);
      return EXIT_BAD_INPUT;
    } else if (nfiles < MAX_TESTS)
      files[nfiles++] = argv[i];
  }
  if (!nfiles) {
    fprintf(stderr, "arbench import: no FILE given\n");
    return EXIT_BAD_INPUT;
  }
  struct nt_set *s = calloc(1, sizeof(*s));
  if (!s) return EXIT_FAIL;
  int rc = 0;
  for (int i = 0; i < nfiles && !rc; i++)
    rc = read_file(s, files[i]);
  /* tests of other collectives are not AllReduce rows: left out, said */
  int kept = 0;
  for (int i = 0; i < s->n && !rc; i++) {
    struct nt_test *t = &s->t[i];
    if (t->coll[0] && strcmp(t->coll, "all_reduce_perf")) {
      fprintf(stderr, "arbench import: %s:%d: %s's results left out (not all_reduce_perf)\n",
              t->file, t->line, t->coll);
      free(t->rows);
      continue;
    }
    s->t[kept++] = *t;
  }
  if (!rc) s->n = kept;
  if (!rc && !s->n) {
    fprintf(stderr, "arbench import: %s: no all_reduce_perf results in %s\n", files[0],
            nfiles == 1 ? "it" : "these files");
    rc = -1;
  }
  for (int i = 0; i < s->n && !rc; i++)
    scenario_of(&s->t[i], name, i, s->n);
  for (int i = 0; i < s->n && !rc; i++) /* two tests of one scenario would read as one */
    for (int k = 0; k < i; k++)
      if (!strcmp(s->t[i].scenario, s->t[k].scenario)) {
        char tmp[300];
        snprintf(tmp, sizeof(tmp), "%s (%d)", s->t[i].scenario, i + 1);
        snprintf(s->t[i].scenario, sizeof(s->t[i].scenario), "%.250s", tmp);
      }
  char dir[1100];
  if (!rc) {
    if (out)
      snprintf(dir, sizeof(dir), "%s", out);
    else {
      const char *b = strrchr(files[0], '/') ? strrchr(files[0], '/') + 1 : files[0];
      snprintf(dir, sizeof(dir), "runs/nccl-tests-%.*s", (int)strcspn(b, "."), b);
    }
    char probe[1200];
    snprintf(probe, sizeof(probe), "%s/results.csv", dir);
    struct stat st;
    if (!stat(probe, &st)) {
      fprintf(stderr, "arbench import: --out: bad value '%s': it already holds results.csv\n", dir);
      rc = -1;
    } else if (mkdir(dir, 0777) && errno != EEXIST) {
      fprintf(stderr, "arbench import: --out: bad value '%s': %s\n", dir, strerror(errno));
      rc = -1;
    }
  }
  int status = rc ? EXIT_BAD_INPUT : write_folder(s, dir, argc + 1, argv - 1);
  for (int i = 0; i < s->n; i++)
    free(s->t[i].rows);
  free(s);
  return status;
}
