/* TODO: the GPU harness (issue 3). */
#include <stdio.h>

#include "cli.h"

int cmd_run(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "arbench: the GPU harness does not exist yet; try `arbench schedule` or --list\n");
  return EXIT_FAIL;
}
