/* What is known of the machine before CUDA starts (launch.c): the GPUs CUDA will see, and
 * whether a launcher started several copies of arbench. */
#ifndef HX_RUN_LAUNCH_H
#define HX_RUN_LAUNCH_H

#include <stddef.h>

/* The GPUs CUDA will see: CUDA_VISIBLE_DEVICES read as CUDA reads it, else /dev/nvidiaN (at
 * most 16); *how says which, and when the list says less than it seems, why (into note). */
int launch_gpus_seen(const char **how, char *note, size_t len);
/* The copies of arbench a launcher (mpirun, mpiexec, srun) started, as its environment says
 * (1: none, or one); var receives "NAME=VALUE" of the variable that said so. */
int launch_copies(char *var, size_t len);

#endif
