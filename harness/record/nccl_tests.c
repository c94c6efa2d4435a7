/* nccl-tests' output (nccl_tests.h): all_reduce_perf's text table, line by line, and the
 * results of its -J JSON document. A test cut off before nccl-tests' closing lines, or text
 * that is not nccl-tests', is refused with FILE:LINE. */
#include "record/nccl_tests.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "record/json.h"

int nt_bad_at(const char *file, int line, const char *fmt, ...) {
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
int nt_split_words(char *line, char **w, int max) {
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
  int n = nt_split_words(buf, w, 128), at = -1;
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
  int n = nt_split_words(line, w, 32);
  if (n != 13)
    return nt_bad_at(file, ln,
                  "not an nccl-tests result line: %d fields, want 13 (size count "
                  "type redop root, then time algbw busbw #wrong out of place and in place)",
                  n);
  uint64_t bytes, count;
  if (to_u64(w[0], &bytes) || to_u64(w[1], &count))
    return nt_bad_at(file, ln, "not an nccl-tests result line: size '%s', count '%s'", w[0], w[1]);
  for (int side = 0; side < 2; side++) {
    char **v = w + 5 + 4 * side;
    struct nt_row *r = add_row(t);
    if (!r) return nt_bad_at(file, ln, "out of memory");
    r->bytes = bytes;
    snprintf(r->type, sizeof(r->type), "%s", w[2]);
    snprintf(r->redop, sizeof(r->redop), "%s", w[3]);
    r->in_place = side == 1;
    uint64_t wr;
    if (to_num(v[0], &r->time_us) || to_num(v[1], &r->algbw) || to_num(v[2], &r->busbw))
      return nt_bad_at(file, ln, "not an nccl-tests result line: '%s %s %s' are not numbers", v[0],
                    v[1], v[2]);
    if (!strcmp(v[3], "N/A"))
      r->wrong = -1;
    else if (!to_u64(v[3], &wr))
      r->wrong = (long long)wr;
    else
      return nt_bad_at(file, ln, "not an nccl-tests result line: #wrong '%s'", v[3]);
  }
  return 0;
}

/* A new test from line `line` that takes the command and collective read before it (which are
 * then used up); NULL after one line when there are too many. */
static struct nt_test *pending_test(struct nt_set *s, const char *file, int line, char *cmd,
                                    char *coll) {
  struct nt_test *t = new_test(s, file, line);
  if (!t) {
    nt_bad_at(file, line, "more than %d tests", MAX_TESTS);
    return NULL;
  }
  snprintf(t->cmd, sizeof(t->cmd), "%s", cmd);
  snprintf(t->coll, sizeof(t->coll), "%s", coll);
  cmd[0] = coll[0] = 0;
  return t;
}

/* all_reduce_perf's text output (one or several tests, one after another); 0 or -1 said. */
int nt_read_text(struct nt_set *s, const char *file, FILE *f) {
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
          rc = nt_bad_at(file, ln, "a test's closing line without its results");
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
      rc = nt_bad_at(file, ln, "not nccl-tests output: '%.60s'", p);
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
      return nt_bad_at(file, ln,
                    "cut off: the test from line %d has no '# Collective test "
                    "concluded' line (%d result%s before the end)",
                    s->t[i].line, s->t[i].nrows, s->t[i].nrows == 1 ? "" : "s");
  return 0;
}

/* One result's side (out_of_place or in_place) as a row; 0, or -1 said. */
static int json_side(struct nt_test *t, const struct jv *res, const char *side, int in_place,
                     int ln) {
  const struct jv *o = jget(res, side);
  if (!o || o->type == J_NULL) return 0;
  double tm = jnum(o, "time", jnum(o, "cpu_time", NAN));
  const struct jv *wr = jget(o, "nwrong");
  struct nt_row *r = add_row(t);
  if (!r) return nt_bad_at(t->file, ln, "out of memory");
  r->bytes = (uint64_t)jnum(res, "size", 0);
  snprintf(r->type, sizeof(r->type), "%s", jstr(res, "type"));
  snprintf(r->redop, sizeof(r->redop), "%s", jstr(res, "redop"));
  r->in_place = in_place;
  r->time_us = tm;
  r->algbw = jnum(o, "alg_bw", NAN);
  r->busbw = jnum(o, "bus_bw", NAN);
  r->wrong = wr && wr->type == J_NUM ? (long long)wr->num : -1;
  if (isnan(tm) || r->bytes == 0)
    return nt_bad_at(t->file, ln, "a result of %s without its size or time", side);
  return 0;
}

int nt_read_json(struct nt_set *s, const char *file, char *text) {
  struct jp j = {text, text, file, NULL};
  struct jv doc;
  int rc = jvalue(&j, &doc, 0);
  if (!rc) {
    jp_ws(&j);
    if (*j.p) {
      j.err = "text after the document";
      rc = -1;
    }
  }
  if (rc) {
    nt_bad_at(file, jp_line(&j), "not nccl-tests JSON: %s", j.err);
    jv_free(&doc);
    return -1;
  }
  const struct jv *res = jget(&doc, "results"), *cfg = jget(&doc, "config");
  if (doc.type != J_OBJ || !res || res->type != J_ARR || !cfg)
    rc = nt_bad_at(file, 1,
                "not nccl-tests JSON: no 'config' and 'results' (nccl-tests -J writes "
                "both)");
  else if (!jget(&doc, "end_time"))
    rc = nt_bad_at(file, jp_line(&j), "cut off: no 'end_time' (nccl-tests writes it last)");
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
    rc = nt_bad_at(file, 1, "more than %d tests", MAX_TESTS);
  jv_free(&doc);
  return rc;
}
