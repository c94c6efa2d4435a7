/* build/arbench: dispatch to a subcommand (run is the default). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cmd/cmd_import.h"
#include "settings.h"

static void usage(FILE *f) {
  fputs("usage: arbench [run] [options]       benchmark AllReduce algorithms on the GPUs\n"
        "       arbench --list                 the algorithms, their supported n and sources\n"
        "                                      (--format families: NAME FAMILY, for plots/)\n"
        "       arbench schedule --algo A --ranks N [--straggler R[:D]] [--degrade R:F]\n"
        "                        [--torus AxB] [--segments K] [--sizes S] [--format text|json]\n"
        "       arbench model --algo A --ranks N --sizes S [--alpha 3us] [--bw 450GB/s] ...\n"
        "       arbench lower --algo A --ranks N --sizes S [--transport ce,sm,ll] ...\n"
        "                                      the program each rank runs (lower --help)\n"
        "       arbench settings               the tuning settings (--set NAME=VALUE)\n"
        "       arbench history RUNS_DIR [--sizes LIST] [--algo LIST]   the trend across nights\n"
        "       arbench import nccl-tests FILE... [--out DIR]   nccl-tests' logs as a run folder\n"
        "       arbench run --help             the benchmark's options\n",
        f);
}

int main(int argc, char **argv) {
  if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    usage(stdout);
    return EXIT_OK;
  }
  /* settings takes nothing more (--list only --format): a word after it is refused, never
   * ignored */
  int help = argc == 3 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"));
  if (argc > 2 && !help && !strcmp(argv[1], "settings")) {
    fprintf(stderr, "arbench: %s: unexpected argument '%s' (it takes none)\n", argv[1], argv[2]);
    return EXIT_BAD_INPUT;
  }
  if (argc > 1 && !strcmp(argv[1], "--list")) return cmd_list(help ? 1 : argc - 1, argv + 1);
  if (argc > 1 && !strcmp(argv[1], "schedule")) return cmd_schedule(argc - 1, argv + 1);
  if (argc > 1 && !strcmp(argv[1], "model")) return cmd_model(argc - 1, argv + 1);
  if (argc > 1 && !strcmp(argv[1], "history")) return cmd_history(argc - 1, argv + 1);
  if (argc > 1 && !strcmp(argv[1], "run")) return cmd_run(argc - 1, argv + 1);
  if (argc > 1 && !strcmp(argv[1], "lower")) return cmd_lower(argc - 1, argv + 1);
  if (argc > 1 && !strcmp(argv[1], "import")) return cmd_import(argc - 1, argv + 1);
  if (argc > 1 && !strcmp(argv[1], "settings")) {
    ar_settings_list(stdout);
    return EXIT_OK;
  }
  if (argc > 1 && argv[1][0] != '-') {
    fprintf(stderr, "arbench: unknown subcommand '%s' (run, schedule, model, lower, settings, "
                    "history, import, --list)\n", argv[1]);
    return EXIT_BAD_INPUT;
  }
  return cmd_run(argc, argv);
}
