/* The run folder of `arbench import nccl-tests` (import_write.c). */
#ifndef HX_IMPORT_WRITE_H
#define HX_IMPORT_WRITE_H

#include "record/nccl_tests.h"

/* Writes results.csv, samples.csv, meta.txt (with notes, lines ending in '\n') and COMMAND of
 * the checked tests of s into the claimed folder dir, and FAILED when nccl-tests found wrong
 * results; returns the exit status (EXIT_FAIL with FAILED, as a run with wrong rows). */
int import_write(const char *dir, struct nt_set *s, int argc, char **argv, const char *notes);

#endif
