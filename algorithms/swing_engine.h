/* The Swing engine's parts that its generators share (swing_engine.c; the generators are in
 * swing.c): lines, tori, collectives and their emission as schedule rounds. Generator-only:
 * nothing outside algorithms/ includes it. */
#ifndef AR_SWING_ENGINE_H
#define AR_SWING_ENGINE_H

#include "ar.h"

struct sw_line {
  int d, steps;
  int *f;  /* f[a * d + i]: step at which coordinate a sends block i; -1: never (a's own) */
  int *to; /* to[a * d + i]: the coordinate it goes to */
};

struct sw_torus {
  int n, ndims;
  int dims[AR_MAX_TORUS_DIMS], stride[AR_MAX_TORUS_DIMS];
};

/* One collective: its lines (already mirrored where it runs the other way) and its steps. */
struct sw_coll {
  struct sw_line line[AR_MAX_TORUS_DIMS];
  int nsteps;
  int dim[AR_MAX_RANKS], sig[AR_MAX_RANKS]; /* step g runs step sig[g] of dimension dim[g] */
};

/* The order of a collective's steps over the dimensions (sw_coll_order_steps). */
enum { SW_ROUND_ROBIN, SW_SEQUENTIAL, SW_SYNCED };

/* Adds the given collectives (already filled) on consecutive shares of the vector, with the
 * tree or radix block order, then sets the ports; returns the status. */
ar_status sw_build_colls(struct ar_schedule *s, const struct sw_torus *t, struct sw_coll *c,
                         int ncoll, int radix);
/* Frees the lines of a collective; returns nothing. */
void sw_coll_free(struct sw_coll *c, int ndims);
/* Fills the step order: round-robin over the dimensions from `first`, skipping those whose
 * line is done (s4.1 omega(s), s4.2 non-square); SW_SEQUENTIAL: every step of one dimension
 * before the next (bucket); SW_SYNCED: the same, each dimension's phase padded with idle steps
 * (dim -1) to the longest line's, so that collectives starting from different dimensions
 * change dimension together (s5.2). */
void sw_coll_order_steps(struct sw_coll *c, int ndims, int first, int mode);
/* Returns coordinate k of rank r. */
int sw_coord(const struct sw_torus *t, int r, int k);
/* Fills out with in, run in the opposite direction (the mirrored collective of s4.1, the
 * reverse ring of s2.3.4); returns its status. */
ar_status sw_line_mirror(const struct sw_line *in, struct sw_line *out, int fix_last);
/* Fills a ring reduce-scatter line: at step s coordinate a sends block a-s-1 to a+1, so block
 * i passes i+1, i+2, ... and ends at i after d-1 steps; returns its status. */
ar_status sw_line_ring(struct sw_line *ln, int d);
/* Fills the Swing reduce-scatter line on d coordinates; returns its status.
 * Even d: ceil(log2 d) steps, at step s rank r sends to q = pi(r, s) block q and every block
 * q reaches after s; duplicates go in the last step only (s3.2). Odd d: the even line on the
 * first d-1 coordinates (which never touch E's block), and the last coordinate E trades one
 * block with each of them: it adds its share of block i into i, and i adds its share of block
 * E into E; ceil(rem/2) partners per step, all the rest in the last step: 3, 2, 1 for d = 7
 * as in s3.2 / Fig. 4. */
ar_status sw_line_swing(struct sw_line *ln, int d);
/* Returns pi(r, s) on a ring of even size d: r + rho(s) for even r, r - rho(s) for odd r. */
int sw_pi(int r, int s, int d);
/* Reads the logical torus from p (default: the most square a x b with a <= b, or a 1-D ring
 * of n when n is prime); returns AR_ERR_INVALID when the shape does not fit n. */
ar_status sw_torus_init(const struct ar_params *p, struct sw_torus *t, struct ar_schedule *s);

#endif
