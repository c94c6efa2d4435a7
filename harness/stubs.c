/* TODO: placeholders until the model and the GPU harness land. */
#include <stdio.h>

#include "cli.h"

int cmd_model(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "arbench: model mode does not exist yet\n");
  return EXIT_FAIL;
}
