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

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/config.h"
#include "record/csv.h"
#include "record/nccl_tests.h"

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
  int n = nt_split_words(buf, w, 64);
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
    rc = nt_read_json(s, file, in.data);
  } else {
    FILE *f = fmemopen(in.data, in.len ? in.len : 1, "r");
    rc = f ? nt_read_text(s, file, f) : nt_bad_at(file, 1, "out of memory");
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
