/* Helpers shared by the generators of algorithms/ (not part of the public API in ar.h). */
#ifndef AR_GEN_H
#define AR_GEN_H

#include "ar.h"

/* rd.c: fills phys[v], the rank of virtual rank v of the hypercube on a torus of power-of-2
 * sides (flipping bit g of v moves 2^sig[g] along dimension dim[g] of ar_torus_steps);
 * returns the steps (log2 n), else -1 (the shape does not fit n: invalid) or -2 (a side is not
 * a power of 2: unsupported), with the reason in s->reason. */
int rd_torus_map(const struct ar_params *p, struct ar_schedule *s, int *phys);

#endif
