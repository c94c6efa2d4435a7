/* arbench history RUNS_DIR [--sizes LIST] [--algo LIST] [--out DIR]: the trend of every run
 * folder in RUNS_DIR (but those marked INCOMPLETE or FAILED), night by night, per machine, GPU
 * count and placement, with a verdict that flags only changes beyond the runs' own spread. The
 * work is plots/history.sh's (awk and gnuplot, as the run's pictures and summary are); this
 * finds it (./plots, else next to the binary's folder: build/arbench -> plots/) and hands it
 * the arguments. */
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

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
  char path[PATH_MAX + 32];
  if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    puts("usage: arbench history RUNS_DIR [--sizes LIST] [--algo LIST] [--out DIR]\n"
         "  reads every run folder in RUNS_DIR and writes DIR (default RUNS_DIR/history):\n"
         "  history.html, history.md (the last night of each machine against the earlier\n"
         "  nights' spread), history.csv and plots/trend_*.png/svg (algbw per size, critical\n"
         "  delay, time over OPTCC's bound). --sizes 1M,1G (algbw default: 1K,1M,64M,1G);\n"
         "  --algo ring,stragglar (nccl always). Runs of different machines, GPU counts or\n"
         "  placements are never in one trend; a run marked INCOMPLETE or FAILED is left out\n"
         "  (one line says so) and never decides a verdict.");
    return EXIT_OK;
  }
  if (find_history(path, sizeof(path))) {
    fprintf(stderr, "arbench history: cannot find plots/history.sh (run from the source tree)\n");
    return EXIT_FAIL;
  }
  char *args[64];
  int n = 0;
  args[n++] = "bash";
  args[n++] = path;
  for (int i = 1; i < argc && n < 63; i++) args[n++] = argv[i];
  args[n] = NULL;
  fflush(stdout);
  execvp("bash", args);
  perror("arbench history: bash");
  return EXIT_FAIL;
}
