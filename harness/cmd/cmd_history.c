/* arbench history RUN_OR_RUNS_DIR... [--sizes LIST] [--algo LIST] [--out DIR]: the trend of every
 * run folder named, or found in a folder of nights named (RUNS_DIR/<run>/results.csv; but those
 * marked INCOMPLETE or FAILED), night by night, per machine, GPU
 * count, placement, source, dtype and timing method, with a verdict per series (the last night
 * against the night before it and the nights before that). The work is plots/history.sh's (awk
 * and gnuplot, as the run's pictures and summary are); this reads and checks every argument
 * (one line and exit 2 for anything it does not take), finds the script (./plots, else next to
 * the binary's folder: build/arbench -> plots/) and hands it the checked values. */
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ar.h"
#include "cli/args.h"
#include "cli/cli.h"

#define HISTORY_MAX_SIZES 1024

static const char *const history_usage =
    "usage: arbench history RUN_OR_RUNS_DIR... [--sizes LIST] [--algo LIST] [--out DIR]\n"
    "  reads each run folder named and every run folder in each folder of nights named\n"
    "  (RUNS_DIR/*/results.csv), says how many nights it found and that a verdict needs 3,\n"
    "  and writes DIR:\n"
    "  history.html, history.md (per group, each series' last night against the night before\n"
    "  it: by their rows' intervals and beyond the earlier nights' spread, else by the spread),\n"
    "  history.csv and plots/trend_*.png/svg (algbw per size, critical delay, time over OPTCC's\n"
    "  bound). A verdict needs 3 nights of a group. --sizes 1M,1G (algbw default: 1K,1M,64M,1G);\n"
    "  --algo ring,stragglar (nccl always). Nights of different machines, GPU counts,\n"
    "  placements, dtypes or timing methods, and nccl-tests imports, are never in one trend; a\n"
    "  run marked INCOMPLETE or FAILED is left out (one line says so).\n"
    "  DIR (default: history/ in the folder that holds the nights, e.g. runs/history; where git\n"
    "  tracks that folder, as runs/reference, history-NAME beside it) must be new, empty or one\n"
    "  history wrote: never a run folder, a folder in one, or checked-in files. Each flag once.";

/* Reads a --sizes value with every subcommand's size-list parser and writes it for history.sh
 * as plain bytes ("1048576,1073741824"); returns a new string, or NULL after one line. */
static char *sizes_in_bytes(const char *flag, const char *text) {
  struct msg_size v[HISTORY_MAX_SIZES];
  int n = args_parse_sizes(flag, text, v, HISTORY_MAX_SIZES);
  if (n < 0) return NULL;
  char *out = malloc((size_t)n * 21 + 1); /* 20 digits and a comma each */
  if (!out) return args_bad(flag, text, "out of memory"), NULL;
  size_t k = 0;
  for (int i = 0; i < n; i++)
    k += (size_t)sprintf(out + k, "%s%llu", i ? "," : "", (unsigned long long)v[i].bytes);
  return out;
}

/* Checks an --algo value: "all", or algorithm names (`arbench --list`'s, nccl among them), each
 * once; returns 0, or -1 after one line. */
static int check_algos(const char *flag, const char *text) {
  if (!strcmp(text, "all")) return 0;
  if (!*text) return args_bad(flag, text, "empty");
  if (args_check_list(flag, text)) return -1;
  char buf[1024];
  if (strlen(text) >= sizeof(buf)) return args_bad(flag, text, "too long");
  snprintf(buf, sizeof(buf), "%s", text);
  const struct ar_algo *seen[64];
  int n = 0;
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    const struct ar_algo *a = args_find_algo(flag, t);
    if (!a) return -1;
    for (int i = 0; i < n; i++)
      if (seen[i] == a) return args_bad(flag, text, "an algorithm is named twice");
    if (n < 64) seen[n++] = a;
  }
  return 0;
}

/* Fills buf with plots/history.sh's path (the source tree's, or the one beside the binary's
 * folder); returns 0, or -1 when there is none. */
static int find_history(char *buf, size_t len) {
  char exe[PATH_MAX];
  const char *bin = realpath("/proc/self/exe", exe) ? dirname(exe) : NULL;
  for (int k = 0; k < 2; k++) {
    if (k == 0) snprintf(buf, len, "plots/history.sh");
    else if (bin) snprintf(buf, len, "%s/../plots/history.sh", bin);
    else break;
    if (!access(buf, R_OK)) return 0;
  }
  return -1;
}

int cmd_history(int argc, char **argv) {
  static const char *const flags[] = {"--sizes", "--algo", "--out"};
  const char *val[3] = {NULL, NULL, NULL};
  /* the folders named: each a run folder or a folder of nights (plots/history.sh tells which) */
  const char **runs = calloc((size_t)argc, sizeof(*runs));
  int nruns = 0;
  if (!runs) {
    fprintf(stderr, "arbench history: out of memory\n");
    return EXIT_FAIL;
  }
  if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    puts(history_usage);
    return EXIT_OK;
  }
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *eq = strchr(a, '=');
    int f = -1;
    for (int k = 0; k < 3; k++) {
      size_t n = strlen(flags[k]);
      if (!strncmp(a, flags[k], n) && (a[n] == '\0' || a[n] == '=')) f = k;
    }
    if (f < 0 && a[0] == '-' && a[1]) {
      fprintf(stderr, "arbench: history: unknown option '%s' (history takes run folders, folders of nights, --sizes, --algo and --out)\n", a);
      return EXIT_BAD_INPUT;
    }
    if (f < 0) {
      if (!*a) return args_bad("history", a, "an empty folder name"), EXIT_BAD_INPUT;
      runs[nruns++] = a;
      continue;
    }
    const char *v = eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
    if (!v) {
      fprintf(stderr, "arbench: %s: needs a value\n", flags[f]);
      return EXIT_BAD_INPUT;
    }
    if (val[f]) return args_bad(flags[f], v, "given twice (each flag once)"), EXIT_BAD_INPUT;
    if (!*v) return args_bad(flags[f], v, "empty"), EXIT_BAD_INPUT;
    val[f] = v;
  }
  if (!nruns) {
    fprintf(stderr, "arbench: history: no run folder or folder of nights named\n%s\n", history_usage);
    return EXIT_BAD_INPUT;
  }
  char *sizes = NULL;
  if (val[0] && !(sizes = sizes_in_bytes(flags[0], val[0]))) return EXIT_BAD_INPUT;
  if (val[1] && check_algos(flags[1], val[1])) return EXIT_BAD_INPUT;
  char path[PATH_MAX + 32];
  if (find_history(path, sizeof(path))) {
    fprintf(stderr, "arbench history: cannot find plots/history.sh (run from the source tree)\n");
    return EXIT_FAIL;
  }
  /* bash, the script, three flags and their values, "--", the folders, NULL */
  char **args = calloc((size_t)nruns + 10, sizeof(*args));
  if (!args) {
    fprintf(stderr, "arbench history: out of memory\n");
    return EXIT_FAIL;
  }
  int n = 0;
  args[n++] = "bash";
  args[n++] = path;
  if (sizes) args[n++] = "--sizes", args[n++] = sizes;
  if (val[1] && strcmp(val[1], "all")) args[n++] = "--algo", args[n++] = (char *)val[1];
  if (val[2]) args[n++] = "--out", args[n++] = (char *)val[2];
  args[n++] = "--";
  for (int i = 0; i < nruns; i++) args[n++] = (char *)runs[i];
  args[n] = NULL;
  fflush(stdout);
  execvp("bash", args);
  perror("arbench history: bash");
  return EXIT_FAIL;
}
