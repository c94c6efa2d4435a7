/* build/arbench: dispatch to a subcommand (run is the default). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int cmd_history(int argc, char **argv); /* cmd_history.c */

static void usage(FILE *f) {
  fputs("usage: arbench [run] [options]       benchmark AllReduce algorithms on the GPUs\n"
        "       arbench --list                 the algorithms, their supported n and sources\n"
        "       arbench schedule --algo A --ranks N [--straggler R[:D]] [--degrade R:F]\n"
        "                        [--torus AxB] [--segments K] [--bytes S] [--format text|json]\n"
        "       arbench model --algo A --ranks N --bytes S [--alpha 3us] [--bw 450GB/s] ...\n"
        "       arbench history RUNS_DIR [--sizes LIST] [--algo LIST]   the trend across nights\n"
        "       arbench run --help             the benchmark's options\n",
        f);
}

int main(int argc, char **argv) {
  if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    usage(stdout);
    return EXIT_OK;
  }
  if (argc > 1 && !strcmp(argv[1], "--list")) return cmd_list();
  if (argc > 1 && !strcmp(argv[1], "schedule")) return cmd_schedule(argc - 1, argv + 1);
  if (argc > 1 && !strcmp(argv[1], "model")) return cmd_model(argc - 1, argv + 1);
  if (argc > 1 && !strcmp(argv[1], "history")) return cmd_history(argc - 1, argv + 1);
  if (argc > 1 && !strcmp(argv[1], "run")) return cmd_run(argc - 1, argv + 1);
  if (argc > 1 && argv[1][0] != '-') {
    fprintf(stderr, "arbench: unknown subcommand '%s' (run, schedule, model, history, --list)\n", argv[1]);
    return EXIT_BAD_INPUT;
  }
  return cmd_run(argc, argv);
}
