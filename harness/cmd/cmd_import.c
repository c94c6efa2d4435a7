/* arbench import nccl-tests FILE... [--out DIR] [--scenario NAME]: nccl-tests' AllReduce
 * results (all_reduce_perf's text log, or the JSON file its -J writes) become a run folder
 * (import_write.c), so the pictures, the summary, `history` and `--baseline` read them as they
 * read a run. Every file is read whole and every all_reduce_perf test checked (nt_check.c)
 * before anything is written: a file or a figure that is not what nccl-tests writes is
 * refused with FILE:LINE (exit 2) and no folder is made. Tests of other collectives are left
 * out and other programs' lines skipped, each said on stderr and in meta.txt. */
#include "cmd/cmd_import.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/bad_value.h"
#include "cli/cli.h"
#include "cli/config.h"
#include "cmd/import_write.h"
#include "record/nccl_tests.h"
#include "run/folder.h"

/* Appends one formatted line to notes (meta.txt, and stderr once the import goes ahead). */
static void note(char *notes, size_t len, const char *fmt, const char *a, const char *b) {
  size_t u = strlen(notes);
  snprintf(notes + u, len - u, "note: ");
  u = strlen(notes);
  snprintf(notes + u, len - u, fmt, a, b);
  u = strlen(notes);
  snprintf(notes + u, len - u, "\n");
}

/* Reads one file (text or JSON) into s, whole and within the bounds every file arbench reads
 * has (bytes, line length, a pipe's time: config.h); 0, or -1 said. */
static int read_file(struct nt_set *s, const char *file, char *notes, size_t len) {
  struct input_file in;
  if (input_open(&in, "import", file, "nccl-tests output", INPUT_WAIT_MS)) return -1;
  int json = in.data[strspn(in.data, " \t\r\n")] == '{';
  int rc = json ? nt_read_json(s, file, in.data) : nt_read_text(s, file, in.data, in.len);
  free(in.data);
  char said[400];
  nt_noise_said(&s->noise, said, sizeof(said));
  if (!rc && said[0] && !json) note(notes, len, "%s: %s", file, said);
  return rc;
}

/* nccl-tests flags that do not change what is measured: the sizes, iteration counts and -N
 * cycles (in the rows), where reports go; with their long names. */
static int flag_left_out(const char *w, const char *value) {
  static const char *const flags[][2] = {
      {"-b", "--minbytes"}, {"-e", "--maxbytes"}, {"-i", "--stepbytes"}, {"-f", "--stepfactor"},
      {"-n", "--iters"},    {"-w", "--warmup_iters"}, {"-N", "--run_cycles"},
      {"-J", "--output_file"}, {"-S", "--report_timestamps"}, {"-T", "--timeout"},
      {"-M", "--memory"},   {"-K", "--per_iter_skip"}};
  size_t k = strcspn(w, "=");
  for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
    if ((!strncmp(w, flags[i][0], k) && !flags[i][0][k]) ||
        (!strncmp(w, flags[i][1], k) && !flags[i][1][k]))
      return 1;
  /* the defaults: float, sum */
  return value && ((!strcmp(w, "-d") || !strcmp(w, "--datatype")) ? !strcmp(value, "float")
                   : (!strcmp(w, "-o") || !strcmp(w, "--op")) ? !strcmp(value, "sum") : 0);
}

/* The scenario of test t: the flags of its command that tell its mode, else -t -g [-G] from
 * its header; or NAME [k]. */
static int scenario_of(struct nt_test *t, const char *name, int k, int ntests) {
  size_t cap = (t->cmd ? strlen(t->cmd) : 0) + (name ? strlen(name) : 0) + 64;
  char *out = calloc(1, cap), *buf = t->cmd ? strdup(t->cmd) : NULL;
  char **w = calloc(cap, sizeof(char *));
  if (!out || !w || (t->cmd && !buf)) {
    free(out), free(buf), free(w);
    return -1;
  }
  int n = buf ? nt_split_words(buf, w, (int)cap) : 0;
  for (int i = 0; i + 1 < n && t->iters < 0; i++) /* a log without its header line */
    if (!strcmp(w[i], "-n")) t->iters = atoi(w[i + 1]);
  size_t u = 0;
  if (name && ntests > 1) snprintf(out, cap, "%s %d", name, k + 1);
  else if (name) snprintf(out, cap, "%s", name);
  for (int i = 0; i < n && !name; i++) {
    if (strstr(w[i], "_perf")) continue;
    int joined = w[i][0] == '-' && strchr(w[i], '=') != NULL; /* --flag=value */
    const char *value = joined ? strchr(w[i], '=') + 1 : i + 1 < n ? w[i + 1] : NULL;
    if (w[i][0] == '-' && flag_left_out(w[i], value)) {
      i += !joined;
      continue;
    }
    u += (size_t)snprintf(out + u, cap - u, "%s%s", u ? " " : "", w[i]);
  }
  if (!out[0] && t->threads > 0)
    snprintf(out, cap, "-t %d -g %d%s", t->threads, t->gpus, t->graph > 0 ? " -G" : "");
  if (!out[0]) snprintf(out, cap, "nccl-tests");
  free(buf);
  free(w);
  t->scenario = out;
  return 0;
}

/* Drops the tests of other collectives from s (noted), checks the rest and gives each its
 * scenario; 0, or -1 said in one line. */
static int settle_tests(struct nt_set *s, const char *name, char *notes, size_t len,
                        const char *first, int nfiles) {
  int kept = 0;
  char others[300] = "";
  for (int i = 0; i < s->n; i++) {
    struct nt_test *t = &s->t[i];
    int no_redop = !t->coll[0] && t->lead && !t->has_redop; /* AllReduce's table has one */
    if (no_redop || (t->coll[0] && !nt_is_all_reduce(t->coll))) {
      char where[300];
      snprintf(where, sizeof(where), "%s:%d", t->file, t->line);
      if (no_redop) {
        note(notes, len, "%s: %s", where, "a table without a redop column left out (not "
             "all_reduce_perf's)");
        snprintf(t->coll, sizeof(t->coll), "a table without redop");
      } else note(notes, len, "%s: %s's results left out (not all_reduce_perf)", where, t->coll);
      size_t u = strlen(others);
      snprintf(others + u, sizeof(others) - u, "%s%s (line %d)", u ? ", " : "", t->coll, t->line);
      nt_free_test(t);
      continue;
    }
    s->t[kept++] = *t;
  }
  s->n = kept;
  if (!s->n) {
    char said[400];
    nt_noise_said(&s->noise, said, sizeof(said));
    if (nfiles > 1)
      fprintf(stderr, "arbench import: %s...: no all_reduce_perf results in the %d files\n",
              first, nfiles);
    else if (others[0])
      fprintf(stderr, "arbench import: %s: no all_reduce_perf results: its tests are %s\n",
              first, others);
    else
      fprintf(stderr, "arbench import: %s: no all_reduce_perf results: no nccl-tests table in "
              "it%s%s%s\n", first, said[0] ? " (" : "", said, said[0] ? ")" : "");
    return -1;
  }
  for (int i = 0; i < s->n; i++)
    if (nt_check_test(&s->t[i])) return -1;
  for (int i = 0; i < s->n; i++) {
    struct nt_test *t = &s->t[i];
    if (scenario_of(t, name, i, s->n)) return -1;
    if (t->zero_rows) {
      char where[300], what[64];
      snprintf(where, sizeof(where), "%s:%d", t->file, t->line);
      snprintf(what, sizeof(what), "%d", t->zero_rows);
      note(notes, len, "%s: %s results of 0 bytes left out (nothing is reduced)", where, what);
    }
    for (int k = 0; k < i; k++) /* two tests of one scenario would read as one */
      if (!strcmp(t->scenario, s->t[k].scenario)) {
        char *again = malloc(strlen(t->scenario) + 16);
        if (!again) return -1;
        sprintf(again, "%s (%d)", t->scenario, i + 1);
        free(t->scenario);
        t->scenario = again;
        break;
      }
  }
  return 0;
}

static void usage(FILE *f) {
  fputs("usage: arbench import nccl-tests FILE... [--out DIR] [--scenario NAME]\n"
        "  nccl-tests' all_reduce_perf output (its text log, any version from 2.0, or the JSON\n"
        "  its -J writes) as a run folder DIR (a new or empty folder; default\n"
        "  runs/nccl-tests-<first FILE's name>): results.csv with arbench's columns, one row per\n"
        "  size and side (source nccl-tests, algorithm nccl, transport out-of-place or in-place,\n"
        "  scenario the test's flags or NAME), samples.csv (a size listed again, as -N cycles\n"
        "  list it, is another sample), meta.txt with each test's header. A comment or command\n"
        "  line naming the command (# all_reduce_perf -t 2 -g 1 -R 2) before a test gives its\n"
        "  flags. Other programs' lines (NCCL_DEBUG, ssh, UCX, mpirun) are skipped and counted.\n"
        "  A figure nccl-tests would not print, a test cut off, or a file that is not nccl-tests\n"
        "  output is refused with FILE:LINE (exit 2); wrong elements mark the folder FAILED\n"
        "  (exit 1). docs/import.md says every rule.\n",
        f);
}

/* --out DIR as given, trailing slashes dropped (DIR/ names DIR); 0, or -1 said. */
static int out_dir(const char *out, char *dir, size_t len) {
  size_t k = strlen(out);
  while (k > 1 && out[k - 1] == '/') k--;
  if (!k || k >= len) return args_bad("--out", out, k ? "too long a path" : "an empty path");
  snprintf(dir, len, "%.*s", (int)k, out);
  if (dir_nonempty(dir))
    return args_bad("--out", out, "the folder is not empty (an import makes a run folder of its "
                    "own: name a new or empty one)");
  if (out_writable(dir)) {
    char why[160];
    snprintf(why, sizeof(why), "cannot make a run folder there: %s", strerror(errno));
    return args_bad("--out", out, why);
  }
  return 0;
}

/* One flag that takes one value, given once; 0, or -1 said. */
static int one_value(const char *flag, const char **slot, const char *value) {
  if (*slot) {
    char why[300];
    snprintf(why, sizeof(why), "given twice (first '%.200s'): a flag that takes one value is "
             "given once", *slot);
    return args_bad(flag, value, why);
  }
  *slot = value;
  return 0;
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
    int out_flag = !strcmp(argv[i], "--out"), name_flag = !strcmp(argv[i], "--scenario");
    if ((out_flag || name_flag) && i + 1 >= argc) {
      fprintf(stderr, "arbench import: %s needs a value\n", argv[i]);
      return EXIT_BAD_INPUT;
    }
    if (out_flag || name_flag) {
      const char *v = argv[++i];
      if (one_value(argv[i - 1], out_flag ? &out : &name, v)) return EXIT_BAD_INPUT;
      if (name_flag && (!v[0] || strpbrk(v, "\n\r")))
        return args_bad("--scenario", v, "a name of one line, not empty"), EXIT_BAD_INPUT;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "arbench import: unknown option '%s' (--out DIR, --scenario NAME)\n",
              argv[i]);
      return EXIT_BAD_INPUT;
    } else if (nfiles == MAX_TESTS) {
      fprintf(stderr, "arbench import: more than %d files\n", MAX_TESTS);
      return EXIT_BAD_INPUT;
    } else files[nfiles++] = argv[i];
  }
  if (!nfiles) {
    fprintf(stderr, "arbench import: no FILE given\n");
    return EXIT_BAD_INPUT;
  }
  char dir[1100];
  if (out && out_dir(out, dir, sizeof(dir))) return EXIT_BAD_INPUT;
  struct nt_set *s = calloc(1, sizeof(*s));
  char *notes = calloc(1, 16384);
  int rc = s && notes ? 0 : -1;
  for (int i = 0; i < nfiles && !rc; i++)
    rc = read_file(s, files[i], notes, 16384);
  if (!rc) rc = settle_tests(s, name, notes, 16384, files[0], nfiles);
  if (!rc && !out) {
    const char *b = strrchr(files[0], '/') ? strrchr(files[0], '/') + 1 : files[0];
    snprintf(dir, sizeof(dir), "runs/nccl-tests-%.*s", (int)strcspn(b, "."), b);
  }
  if (!rc && claim_dir(dir, sizeof(dir), out != NULL, 0)) {
    args_bad("--out", out ? out : dir, errno == EEXIST ? "another run took the folder"
                                                       : strerror(errno));
    rc = -1;
  }
  for (const char *p = notes; !rc && *p;) { /* said once the import goes ahead */
    size_t k = strcspn(p, "\n");
    fprintf(stderr, "arbench import: %.*s\n", (int)k - 6, p + 6);
    p += k + (p[k] == '\n');
  }
  int status = rc ? EXIT_BAD_INPUT : import_write(dir, s, argc + 1, argv - 1, notes);
  for (int i = 0; s && i < s->n; i++)
    nt_free_test(&s->t[i]);
  free(s);
  free(notes);
  return status;
}
