/* Helpers shared by the generators of algorithms/ (not part of the public API in ar.h). */
#ifndef AR_GEN_H
#define AR_GEN_H

#include "ar.h"

/* Beyond AR_MAX_RANKS ranks (the most a run or a stored schedule holds; only the model
 * builds more, streamed, up to 65536): a generator whose transfers grow as n^2 (xfers of them
 * at n ranks) would take minutes and gigabytes there, so it is n/a. Returns AR_OK at
 * n <= AR_MAX_RANKS, else fails s with the count. */
static inline ar_status gen_quadratic(struct ar_schedule *s, const char *name, int n,
                                      double xfers) {
  if (n <= AR_MAX_RANKS) return AR_OK;
  return sched_fail(s, AR_ERR_UNSUPPORTED, "%s at %d ranks is about %.2g transfers (n^2): at most %d ranks",
                    name, n, xfers, AR_MAX_RANKS);
}

/* rd.c: fills phys[v], the rank of virtual rank v of the hypercube on a torus of power-of-2
 * sides (flipping bit g of v moves 2^sig[g] along dimension dim[g] of ar_torus_steps);
 * returns the steps (log2 n), else -1 (the shape does not fit n: invalid) or -2 (a side is not
 * a power of 2: unsupported), with the reason in s->reason. */
int rd_torus_map(const struct ar_params *p, struct ar_schedule *s, int *phys);

/* optcc_switch.c: OPTCC's switch form under the schedule name `name` (optcc-switch; optcc
 * and optcc-multi on AR_FABRIC_SWITCH). */
ar_status optcc_switch_build(const struct ar_params *p, struct ar_schedule *s, const char *name);

#endif
