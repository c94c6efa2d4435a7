/* The run folder of an import (import_write.h): results.csv with a run's columns and the
 * statistics columns of docs/statistics.md, samples.csv, meta.txt, COMMAND, and FAILED when
 * nccl-tests found wrong elements. Every time the log lists a size (its -N cycles, or sizes
 * its range rounds to the same whole elements) is one sample of that size's row: the row's
 * median and interval are taken over them. */
#include "cmd/import_write.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/stats.h"
#include "cli/cli.h"
#include "record/csv.h"
#include "run/folder.h"

/* arbench's name of a nccl-tests type (results.csv's dtype). */
static const char *dtype_of(const char *nt) {
  static const char *map[][2] = {
      {"float", "float32"}, {"double", "float64"}, {"half", "fp16"},  {"bfloat16", "bf16"},
      {"int32", "int32"},   {"uint32", "uint32"},  {"int64", "int64"}, {"uint64", "uint64"},
      {"int8", "int8"},     {"uint8", "uint8"},    {"char", "int8"},  {"int", "int32"},
      {"f8e4m3", "fp8_e4m3"}, {"f8e5m2", "fp8_e5m2"}};
  for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
    if (!strcmp(nt, map[i][0])) return map[i][1];
  return nt;
}

/* 1 when rows a and b are one row's samples: type, redop, root, size and side. */
static int same_row(const struct nt_row *a, const struct nt_row *b) {
  return a->bytes == b->bytes && a->in_place == b->in_place && a->root == b->root &&
         !strcmp(a->type, b->type) && !strcmp(a->redop, b->redop);
}

struct out {
  struct hx_csv csv; /* results.csv and samples.csv beside it */
  int rows, failed;
};

/* One results.csv row (and its samples.csv lines) of test t from the samples x[0..n) of the
 * row r (the first listed); 0 or -1. */
static int write_row(struct out *o, const struct nt_test *t, const struct nt_row *r,
                     const double *x, int n, long long wrong, int failed, const char *id,
                     const char *stamp) {
  struct hx_stats st;
  if (hx_stats_compute(x, n, &st)) return -1;
  if (n == 1) st.stdev = NAN; /* one figure has no spread */
  double algbw = n == 1 ? r->algbw : hx_algbw((double)r->bytes, st.median);
  double busbw = n == 1 ? r->busbw : hx_busbw(algbw, t->ranks);
  char settings[48] = "";
  if (strcmp(r->redop, "sum")) snprintf(settings, sizeof(settings), "redop=%s", r->redop);
  struct hx_csv_row row = {
      .run_id = id, .timestamp = stamp, .host = t->host, .gpu = t->gpu, .n_gpus = t->ranks,
      .driver = "", .cuda = "", .nccl = t->nccl, .source = "nccl-tests", .algorithm = "nccl",
      .transport = r->in_place ? "in-place" : "out-of-place", .pipeline = 1,
      .dtype = dtype_of(r->type), .bytes = r->bytes, .straggler_rank = -1, .delay_us = 0,
      .degraded_rank = -1, .factor = 1,
      .iters = t->iters > 0 ? t->iters * (t->agg > 0 ? t->agg : 1) : 0, .t = st,
      .time_after_arrival_us = st.median, .algbw_gbps = algbw, .busbw_gbps = busbw,
      .model_time_us = NAN, .wrong = wrong, .status = failed ? "error" : "ok",
      .lower_bound_us = NAN, .scenario = t->scenario, .stragglers = "", .degraded = "",
      .placement = "1 rank/GPU", .settings = settings};
  row.samples = x;
  row.repeat_stop = hx_repeat_stop_name(HX_REPEAT_FIXED); /* nccl-tests ran a set number */
  if (hx_csv_append(&o->csv, &row)) return -1;
  o->rows++;
  o->failed += failed;
  return 0;
}

/* Every row of test t: its samples gathered in the order the log lists them; 0 or -1. */
static int write_test(struct out *o, const struct nt_test *t, const char *id, const char *stamp) {
  double *x = malloc(sizeof(double) * (size_t)(t->nrows + 1));
  char *done = calloc((size_t)t->nrows + 1, 1);
  int rc = x && done ? 0 : -1;
  for (int i = 0; i < t->nrows && !rc; i++) {
    if (done[i]) continue;
    int n = 0, failed = 0;
    long long wrong = -1;
    for (int k = i; k < t->nrows; k++) {
      const struct nt_row *r = &t->rows[k];
      if (done[k] || !same_row(&t->rows[i], r)) continue;
      done[k] = 1;
      x[n++] = r->time_us;
      failed |= r->failed;
      if (r->wrong > wrong) wrong = r->wrong;
    }
    rc = write_row(o, t, &t->rows[i], x, n, wrong, failed, id, stamp);
  }
  free(x);
  free(done);
  return rc;
}

/* meta.txt: the import's command and each test's header, notes and settings. */
static int write_meta(const char *dir, const struct nt_set *s, const char *stamp, int argc,
                      char **argv, int rows, const char *notes) {
  char path[1200];
  snprintf(path, sizeof(path), "%s/meta.txt", dir);
  FILE *m = fopen(path, "w");
  if (!m) return -1;
  fprintf(m, "command:");
  for (int i = 0; i < argc; i++)
    fprintf(m, " %s", argv[i]);
  fprintf(m, "\ndate_utc: %s (the import's; the timestamp column is this time)\n", stamp);
  fprintf(m, "source: nccl-tests (imported; every row's source column says so)\n");
  fprintf(m, "rows: %d (algorithm nccl, transport out-of-place or in-place, scenario the test's "
             "flags; every listing of a size one sample: samples.csv)\n", rows);
  if (notes[0]) fprintf(m, "%s", notes);
  for (int i = 0; i < s->n; i++) {
    const struct nt_test *t = &s->t[i];
    fprintf(m, "\n--- test %d: %s:%d, scenario '%s', %d rows, %d ranks\n", i + 1, t->file, t->line,
            t->scenario, t->nrows, t->ranks);
    if (t->cmd && t->cmd[0]) fprintf(m, "nccl-tests command: %s\n", t->cmd);
    if (t->version[0]) fprintf(m, "nccl-tests: %s\n", t->version);
    if (t->header[0]) fprintf(m, "nccl-tests: %s\n", t->header);
    if (t->times[0]) fprintf(m, "nccl-tests time: %s\n", t->times);
    if (t->nccl[0]) fprintf(m, "NCCL: %s\n", t->nccl);
    if (t->host[0]) fprintf(m, "host: %s, GPU %s\n", t->hosts[0] ? t->hosts : t->host, t->gpu);
    if (t->oob >= 0) fprintf(m, "nccl-tests out of bounds values: %lld\n", t->oob);
    if (t->zero_rows)
      fprintf(m, "left out: %d result%s of 0 bytes (nothing reduced)\n", t->zero_rows,
              t->zero_rows == 1 ? "" : "s");
    for (const char *e = t->env; *e;) {
      size_t k = strcspn(e, "\n");
      fprintf(m, "environment: %.*s\n", (int)k, e);
      e += k + (e[k] == '\n');
    }
  }
  return fclose(m) ? -1 : 0;
}

int import_write(const char *dir, struct nt_set *s, int argc, char **argv, const char *notes) {
  char path[1200], stamp[32];
  hx_utc_iso(stamp, sizeof(stamp));
  const char *id = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
  struct out o;
  memset(&o, 0, sizeof(o));
  snprintf(path, sizeof(path), "%s/results.csv", dir);
  if (hx_csv_open_run(&o.csv, path) || hx_csv_open_samples(&o.csv)) {
    fprintf(stderr, "arbench import: %s: %s\n", path, strerror(errno));
    hx_csv_close(&o.csv);
    return EXIT_FAIL;
  }
  int rc = 0;
  for (int i = 0; i < s->n && !rc; i++)
    rc = write_test(&o, &s->t[i], id, stamp);
  hx_csv_close(&o.csv);
  if (!rc) rc = write_meta(dir, s, stamp, argc, argv, o.rows, notes);
  snprintf(path, sizeof(path), "%s/COMMAND", dir);
  FILE *c = rc ? NULL : fopen(path, "w");
  if (c) {
    for (int i = 0; i < argc; i++)
      fprintf(c, "%s%s", i ? " " : "", argv[i]);
    fputc('\n', c);
    if (fclose(c)) rc = -1;
  }
  if (rc) {
    fprintf(stderr, "arbench import: cannot write the run folder %s: %s\n", dir, strerror(errno));
    return EXIT_FAIL;
  }
  long long oob = 0;
  for (int i = 0; i < s->n; i++)
    oob += s->t[i].oob > 0 ? s->t[i].oob : 0;
  if (o.failed || oob) {
    char why[200];
    snprintf(why, sizeof(why), "nccl-tests found wrong results: %d row%s with status error in "
             "results.csv, %lld out of bounds values counted by nccl-tests", o.failed,
             o.failed == 1 ? "" : "s", oob);
    mark_run(dir, "FAILED", why);
  }
  printf("arbench import: %d rows of %d test%s into %s%s\n", o.rows, s->n, s->n == 1 ? "" : "s",
         dir, o.failed || oob ? " (FAILED: nccl-tests found wrong results)" : "");
  return o.failed || oob ? EXIT_FAIL : EXIT_OK;
}
