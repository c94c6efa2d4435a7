/* nccl-tests' -J JSON file (nccl_tests.h) as nccl-tests writes it: args, env, nccl_version,
 * config (the header's figures and, under it, devices: one per process), results (size count
 * type redop root, out_of_place and in_place with time or cpu_time, alg_bw, bus_bw, nwrong),
 * out_of_bounds and end_time last. Every figure is taken exactly or refused: a size or count
 * that is not a whole number of bytes, a time that is not above 0, a #wrong that is not a
 * whole count. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/json.h"
#include "record/nccl_tests.h"

/* JSON numbers are written with 6 decimals ("%lf"). */
#define JSON_HALF 5e-7

/* A whole number of at most 2^53 (a double holds it exactly) at key of o into *v; 0 or -1. */
static int json_whole(const struct jv *o, const char *key, uint64_t *v) {
  const struct jv *x = jget(o, key);
  if (!x || x->type != J_NUM || x->num < 0 || x->num != floor(x->num) || x->num > 9007199254740992.0)
    return -1;
  *v = (uint64_t)x->num;
  return 0;
}

/* The number at key of o when it is one, else NaN. */
static double json_num(const struct jv *o, const char *key) {
  const struct jv *x = jget(o, key);
  return x && x->type == J_NUM ? x->num : NAN;
}

/* One result's side (out_of_place or in_place) as a row; 0, or -1 said. */
static int json_side(struct nt_test *t, const struct jv *res, int i, const char *side, int ln) {
  const struct jv *o = jget(res, side);
  if (!o || o->type == J_NULL) return 0; /* a trace replay times one side only */
  struct nt_row *r = nt_add_row(t, ln);
  if (!r) return nt_bad_at(t->file, ln, "out of memory");
  const char *type = jstr(res, "type"), *redop = jstr(res, "redop"), *root = jstr(res, "root");
  if (json_whole(res, "size", &r->bytes) || json_whole(res, "count", &r->count))
    return nt_bad_at(t->file, ln, "results[%d]: size or count is not a whole number of bytes or "
                     "elements", i);
  if (!nt_type_size(type) || strlen(type) >= sizeof(r->type) || !redop[0] ||
      strlen(redop) >= sizeof(r->redop))
    return nt_bad_at(t->file, ln, "results[%d]: type '%.30s' or redop '%.30s' is not one "
                     "nccl-tests writes", i, type, redop);
  snprintf(r->type, sizeof(r->type), "%s", type);
  snprintf(r->redop, sizeof(r->redop), "%s", redop);
  char *e;
  long rt = strtol(root, &e, 10);
  r->root = root[0] && !*e && rt >= -1 ? (int)rt : -1;
  r->in_place = !strcmp(side, "in_place");
  r->result = i;
  r->time_us = jget(o, "time") ? json_num(o, "time") : json_num(o, "cpu_time");
  r->algbw = json_num(o, "alg_bw");
  r->busbw = json_num(o, "bus_bw");
  r->half_t = r->half_a = r->half_b = JSON_HALF;
  if (!(r->time_us > 0) || !(r->algbw >= 0) || !(r->busbw >= 0))
    return nt_bad_at(t->file, ln, "results[%d].%s: time %g, alg_bw %g, bus_bw %g: a time above 0 "
                     "and bandwidths of 0 or more were expected", i, side, r->time_us, r->algbw,
                     r->busbw);
  const struct jv *wr = jget(o, "nwrong");
  r->wrong = -1;
  if (wr && wr->type != J_NULL) {
    if (wr->type != J_NUM || wr->num < 0 || wr->num != floor(wr->num) || wr->num >= 9.2e18)
      return nt_bad_at(t->file, ln, "results[%d].%s: nwrong is not a count of wrong elements",
                       i, side);
    r->wrong = (long long)wr->num;
  }
  return 0;
}

/* The document's header: command, environment, versions, config and devices, into t. */
static void json_header(struct nt_test *t, const struct jv *doc, const struct jv *cfg) {
  const struct jv *args = jget(doc, "args"), *env = jget(doc, "env");
  size_t need = 1;
  for (int i = 0; args && i < args->n; i++)
    need += (args->kids[i].str ? strlen(args->kids[i].str) : 0) + 1;
  t->cmd = calloc(1, need);
  for (int i = 0, u = 0; t->cmd && args && i < args->n; i++) {
    const char *a = args->kids[i].str ? args->kids[i].str : "";
    if (i == 0 && strrchr(a, '/')) a = strrchr(a, '/') + 1;
    if (i == 0) snprintf(t->coll, sizeof(t->coll), "%s", a);
    u += sprintf(t->cmd + u, "%s%s", u ? " " : "", a);
  }
  size_t u = 0;
  for (int i = 0; env && i < env->n; i++) {
    const char *e = env->kids[i].str ? env->kids[i].str : "";
    if (strncmp(e, "NCCL_", 5) && strncmp(e, "CUDA_", 5)) continue; /* nothing else */
    u += (size_t)snprintf(t->env + u, u < sizeof(t->env) ? sizeof(t->env) - u : 0, "%s\n", e);
  }
  snprintf(t->times, sizeof(t->times), "start %s, end %s", jstr(doc, "start_time"),
           jstr(doc, "end_time"));
  int code = (int)jnum(doc, "nccl_version", 0);
  if (code > 0)
    snprintf(t->nccl, sizeof(t->nccl), "%d.%d.%d", code / 10000, code / 100 % 100, code % 100);
  snprintf(t->version, sizeof(t->version), "nccl-tests JSON version %g, nccl_version %d",
           jnum(doc, "version", 0), code);
  t->threads = (int)jnum(cfg, "nthreads", -1);
  t->gpus = (int)jnum(cfg, "ngpus", -1);
  t->iters = (int)jnum(cfg, "iterations", -1);
  t->agg = (int)jnum(cfg, "aggregated_iterations", -1);
  t->graph = (int)jnum(cfg, "graph", -1);
  t->check = (int)jnum(cfg, "validation", -1);
  json_whole(cfg, "minimum_bytes", &t->min_bytes);
  json_whole(cfg, "maximum_bytes", &t->max_bytes);
  json_whole(cfg, "step_factor", &t->step_factor);
  json_whole(cfg, "step_bytes", &t->step_bytes);
  snprintf(t->header, sizeof(t->header),
           "nThread %d nGpus %d iters %d agg iters %d graph %d validation %d", t->threads,
           t->gpus, t->iters, t->agg, t->graph, t->check);
  /* devices: one per process (its first GPU), under config; top level in early files */
  const struct jv *dev = jget(cfg, "devices") ? jget(cfg, "devices") : jget(doc, "devices");
  for (int i = 0; dev && dev->type == J_ARR && i < dev->n; i++) {
    const char *h = jstr(&dev->kids[i], "hostname");
    t->json_devices++;
    if (!t->host[0]) snprintf(t->host, sizeof(t->host), "%s", h);
    if (!t->gpu[0]) snprintf(t->gpu, sizeof(t->gpu), "%s", jstr(&dev->kids[i], "device_info"));
    if (h[0] && !strstr(t->hosts, h) && strlen(t->hosts) + strlen(h) + 3 < sizeof(t->hosts))
      snprintf(t->hosts + strlen(t->hosts), sizeof(t->hosts) - strlen(t->hosts), "%s%s",
               t->hosts[0] ? ", " : "", h);
  }
  const struct jv *oob = jget(doc, "out_of_bounds");
  t->oob = oob ? (long long)jnum(oob, "count", -1) : -1;
}

int nt_read_json(struct nt_set *s, const char *file, char *text) {
  struct jp j = {text, text, file, NULL};
  struct jv doc;
  memset(&doc, 0, sizeof(doc));
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
  j.p = text + strlen(text);
  if (doc.type != J_OBJ || !res || res->type != J_ARR || !cfg || cfg->type != J_OBJ)
    rc = nt_bad_at(file, 1, "not nccl-tests JSON: no 'config' and 'results' (nccl-tests -J "
                   "writes both)");
  else if (!jget(&doc, "end_time"))
    rc = nt_bad_at(file, jp_line(&j), "cut off: no 'end_time' (nccl-tests writes it last)");
  struct nt_test *t = rc ? NULL : nt_new_test(s, file, 1);
  if (!rc && !t) rc = -1;
  if (t) {
    json_header(t, &doc, cfg);
    for (int i = 0; i < res->n && !rc; i++) {
      rc = json_side(t, &res->kids[i], i, "out_of_place", 1);
      if (!rc) rc = json_side(t, &res->kids[i], i, "in_place", 1);
    }
    t->results = res->n;
    t->footer = t->concluded = 1;
    t->table_line = 1;
  }
  jv_free(&doc);
  return rc;
}
