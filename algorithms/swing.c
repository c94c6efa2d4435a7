/* Swing (swing.txt) and the bucket baseline, as schedules: the generators, each a line table
 * and a step order handed to the engine (swing_engine.c, which says how it works). */
#include <stdlib.h>
#include <string.h>

#include "ar.h"
#include "gen.h"
#include "swing_engine.h"

/* swing-bw: bandwidth-optimal Swing on a 1-D ring of n: reduce-scatter over n blocks with peers
 * pi(r, s), then the mirror-image allgather.
 * Rounds: 2 log2 n for a power of 2, 2 ceil(log2 n) for other even n, 2 ceil(log2(n-1)) for
 * odd n. Bytes sent per rank: 2(n-1)/n of the buffer for every n (no block sent twice).
 * One port, except odd n: the extra rank trades one block with up to ceil((n-1)/2) ranks in a
 * round and those ranks talk to it and their Swing peer (ports set to match).
 * Source: swing.txt s3.1.1, s3.2, App. A. The text's rule is followed (r sends q's block and
 * what q forwards later); Fig. 3's get_rs_idxs(r, s) would also send what r forwards later.
 * Any n >= 2. */
static ar_status build_swing_bw(const struct ar_params *p, struct ar_schedule *s) {
  struct ar_params q = *p;
  struct sw_torus t;
  struct sw_coll *c = calloc(1, sizeof(*c));
  if (!c) return AR_ERR_NOMEM;
  q.torus_ndims = 1;
  q.torus[0] = p->nranks;
  ar_status st = sched_init(s, "swing-bw", p->nranks, p->nranks);
  if (st == AR_OK) st = sw_torus_init(&q, &t, s);
  if (st == AR_OK) st = sw_line_swing(&c->line[0], p->nranks);
  if (st == AR_OK) {
    sw_coll_order_steps(c, 1, 0, SW_ROUND_ROBIN);
    st = sw_build_colls(s, &t, c, 1, 0);
  }
  sw_coll_free(c, 1);
  free(c);
  return st;
}

const struct ar_algo ar_algo_swing_bw = {
    .name = "swing-bw",
    .ranks = "2..4096 (an n x n line table)",
    .desc = "Swing bandwidth-optimal: pi(r,s) peers, reduce-scatter + allgather",
    .paper = "swing.txt s3",
    .family = "swing",
    .build = build_swing_bw,
    .flags = 0,
};

/* swing-lat: latency-optimal Swing: at step s every rank adds its whole vector into that of
 * pi(r, s) (both ways in one round), one chunk.
 * Rounds: log2 n for a power of 2. Bytes sent per rank: log2 n buffers.
 * Other n: whole-vector sums cannot avoid counting a rank twice in the last step (App. A.2),
 * so the standard fold-in of s2.3.2: with p the largest power of 2 below n and e = n - p, rank
 * 2j+1 (j < e) hands its vector to its ring neighbour 2j first, the p remaining ranks run the
 * above (in ring order, so Swing's short distances stay short), and 2j hands the result back:
 * log2 p + 2 rounds. Source: swing.txt s3.1.2, s2.3.2. Any n >= 2. */
static ar_status build_swing_lat(const struct ar_params *p, struct ar_schedule *s) {
  int n = p->nranks, L = ar_log2(n), pw = 1 << L, extra = n - pw, off = extra > 0;
  AR_CHECK(sched_init(s, "swing-lat", n, 1));
  int *phys = malloc(sizeof(int) * pw); /* virtual rank v of the power-of-2 group -> real rank */
  if (!phys) return AR_ERR_NOMEM;
  for (int v = 0; v < pw; v++)
    phys[v] = v < extra ? 2 * v : v + extra;
  ar_status st = AR_OK;
  for (int j = 0; j < extra && st == AR_OK; j++)
    st = sched_add(s, 0, AR_REDUCE, 2 * j + 1, 2 * j, 0, 1);
  for (int step = 0; step < L && st == AR_OK; step++)
    for (int v = 0; v < pw && st == AR_OK; v++)
      st = sched_add(s, off + step, AR_REDUCE, phys[v], phys[sw_pi(v, step, pw)], 0, 1);
  for (int j = 0; j < extra && st == AR_OK; j++)
    st = sched_add(s, off + L, AR_COPY, 2 * j, 2 * j + 1, 0, 1);
  free(phys);
  return st;
}

const struct ar_algo ar_algo_swing_lat = {
    .name = "swing-lat",
    .ranks = "2..65536 (non-powers of 2 fold in)",
    .desc = "Swing latency-optimal: whole vector per step",
    .paper = "swing.txt s3.1.2",
    .family = "swing",
    .build = build_swing_lat,
    .flags = 0,
};

/* swing-mp: multiport Swing on the logical torus d0 x ... x d(D-1) (--torus; default the most
 * square 2-D shape, a 1-D ring for prime n). The vector is cut into 2D shares; plain collective
 * k runs bandwidth-optimal Swing starting from dimension k (step s in dimension (k+s) mod D,
 * skipping dimensions already done: s4.2), and mirrored collective k does the same with every
 * direction reversed, so each uses its own port (s4.1, Fig. 5). Each dimension runs the 1-D
 * line of swing-bw, so any size works (odd sizes with the extra-node exchange of s3.2).
 * Rounds: 2 sum_k L(d_k), L(d) = ceil(log2 d) for even d, ceil(log2(d-1)) for odd d: 2 log2 n
 * for a power-of-2 torus. Bytes sent per rank: 2(n-1)/n of the buffer, over up to 2D ports
 * (ports set to the most distinct peers used in a round).
 * Source: swing.txt s4.1, s4.2 (s3.2 per dimension). Any n >= 2, any shape. */
static ar_status build_swing_mp(const struct ar_params *p, struct ar_schedule *s) {
  struct sw_torus t;
  AR_CHECK(sw_torus_init(p, &t, s));
  int D = t.ndims, ncoll = 2 * D;
  AR_CHECK(sched_init(s, "swing-mp", p->nranks, ncoll * p->nranks));
  struct sw_coll *c = calloc((size_t)ncoll, sizeof(*c));
  if (!c) return AR_ERR_NOMEM;
  ar_status st = AR_OK;
  for (int k = 0; k < D && st == AR_OK; k++) {
    struct sw_coll *plain = &c[2 * k], *mirror = &c[2 * k + 1];
    for (int j = 0; j < D && st == AR_OK; j++) {
      st = sw_line_swing(&plain->line[j], t.dims[j]);
      if (st == AR_OK) st = sw_line_mirror(&plain->line[j], &mirror->line[j], 1);
    }
    sw_coll_order_steps(plain, D, k, SW_ROUND_ROBIN);
    sw_coll_order_steps(mirror, D, k, SW_ROUND_ROBIN);
  }
  if (st == AR_OK) st = sw_build_colls(s, &t, c, ncoll, 0);
  for (int k = 0; k < ncoll; k++)
    sw_coll_free(&c[k], D);
  free(c);
  return st;
}

const struct ar_algo ar_algo_swing_mp = {
    .name = "swing-mp",
    .ranks = "2..65536, any --torus, sides <= 4096",
    .desc = "multiport Swing on a logical torus, plain + mirrored per port",
    .paper = "swing.txt s4",
    .family = "swing",
    .build = build_swing_mp,
    .flags = AR_ALGO_TORUS,
};

/* bucket: on the torus d0 x ... x d(D-1), a ring reduce-scatter along each dimension in turn
 * (each on the part the previous ones left), then ring allgathers in the reverse order. To use
 * all 2D ports the vector is cut into 2D shares, one bucket per share, each starting from a
 * different dimension and ring direction (s2.3.4). Blocks are laid out so each ring step sends
 * one contiguous run.
 * Rounds: 2 sum_k (d_k - 1). Bytes sent per rank: 2(n-1)/n of the buffer, over up to 2D ports.
 * Source: swing.txt s2.3.4. Any n >= 2, any shape (a prime n is one bidirectional ring). */
/* Builds the bucket algorithm under `name`, its collectives ordered by mode (sequential, or
 * synced: changing dimension together). */
static ar_status bucket_build(const struct ar_params *p, struct ar_schedule *s, const char *name,
                              int mode) {
  struct sw_torus t;
  AR_CHECK(sw_torus_init(p, &t, s));
  int D = t.ndims, ncoll = 2 * D, dmax = 0;
  AR_CHECK(sched_init(s, name, p->nranks, ncoll * p->nranks));
  for (int k = 0; k < D; k++)
    dmax = t.dims[k] > dmax ? t.dims[k] : dmax;
  if (D < 1 || D * dmax > AR_MAX_RANKS) /* a collective's steps (struct sw_coll) */
    return sched_fail(s, AR_ERR_UNSUPPORTED, "%s: %d dimensions of up to %d take more than %d "
                      "steps", name, D, dmax, AR_MAX_RANKS);
  struct sw_coll *c = calloc((size_t)ncoll, sizeof(*c));
  if (!c) return AR_ERR_NOMEM;
  ar_status st = AR_OK;
  for (int k = 0; k < D && st == AR_OK; k++) {
    struct sw_coll *fwd = &c[2 * k], *rev = &c[2 * k + 1];
    for (int j = 0; j < D && st == AR_OK; j++) {
      st = sw_line_ring(&fwd->line[j], t.dims[j]);
      if (st == AR_OK) st = sw_line_mirror(&fwd->line[j], &rev->line[j], 0);
    }
    sw_coll_order_steps(fwd, D, k, mode);
    sw_coll_order_steps(rev, D, k, mode);
  }
  if (st == AR_OK) st = sw_build_colls(s, &t, c, ncoll, 1);
  for (int k = 0; k < ncoll; k++)
    sw_coll_free(&c[k], D);
  free(c);
  return st;
}

static ar_status build_bucket(const struct ar_params *p, struct ar_schedule *s) {
  return bucket_build(p, s, "bucket", SW_SEQUENTIAL);
}

const struct ar_algo ar_algo_bucket = {
    .name = "bucket",
    .ranks = "2..65536, any --torus, D x side <= 4096",
    .desc = "bucket: one ring per torus dimension, 2D shares on 2D ports",
    .paper = "swing.txt s2.3.4",
    .family = "swing",
    .build = build_bucket,
    .flags = AR_ALGO_TORUS,
};

/* bucket-sync: the bucket algorithm as the paper runs it on rectangular tori (s5.2, Fig. 10,
 * after Sack et al.): the 2D collectives change dimension together, each dimension's phase
 * lasting as long as the largest dimension's ring (the others idle for the rest of it).
 * Rounds: 2 D (d_max - 1), so the latency deficiency of a d_max^D torus; bytes as bucket.
 * The same as bucket on a square torus. Any n >= 2, any shape. */
static ar_status build_bucket_sync(const struct ar_params *p, struct ar_schedule *s) {
  return bucket_build(p, s, "bucket-sync", SW_SYNCED);
}

const struct ar_algo ar_algo_bucket_sync = {
    .name = "bucket-sync",
    .ranks = "2..65536, any --torus, D x side <= 4096",
    .desc = "bucket with the collectives changing dimension together (rectangular tori)",
    .paper = "swing.txt s5.2, Fig. 10 (Sack et al.)",
    .family = "swing",
    .build = build_bucket_sync,
    .flags = AR_ALGO_TORUS,
};

/* swing-lat-torus: latency-optimal Swing one torus dimension at a time (s4.1): step g moves
 * in dimension dim[g] (round-robin, s4.1's omega), to the Swing peer pi(a, sig[g]) of the
 * coordinate there, whole vector both ways; on a 1-D torus it is swing-lat.
 * Rounds: log2 n. Bytes sent per rank: log2 n buffers, one port (Table 2's Swing (L)).
 * Power-of-2 torus sides (whole-vector sums double-count otherwise, App. A.2). */
static ar_status build_swing_lat_torus(const struct ar_params *p, struct ar_schedule *s) {
  struct sw_torus t;
  int dim[32], sig[32];
  AR_CHECK(sw_torus_init(p, &t, s));
  AR_CHECK(sched_init(s, "swing-lat-torus", p->nranks, 1));
  for (int k = 0; k < t.ndims; k++)
    if (!ar_is_pow2(t.dims[k]))
      return sched_fail(s, AR_ERR_UNSUPPORTED, "swing-lat-torus needs power-of-2 torus sides "
                        "(side %d is %d)", k, t.dims[k]);
  int S = ar_torus_steps(t.ndims, t.dims, dim, sig);
  for (int g = 0; g < S; g++)
    for (int r = 0; r < t.n; r++) {
      int j = dim[g], a = sw_coord(&t, r, j);
      AR_CHECK(sched_add(s, g, AR_REDUCE, r, r + (sw_pi(a, sig[g], t.dims[j]) - a) * t.stride[j],
                         0, 1));
    }
  return AR_OK;
}

const struct ar_algo ar_algo_swing_lat_torus = {
    .name = "swing-lat-torus",
    .ranks = "2^k <= 65536, power-of-2 torus sides",
    .desc = "Swing latency-optimal, one torus dimension a step, whole vector per step",
    .paper = "swing.txt s3.1.2, s4.1; Table 2 Swing (L)",
    .family = "swing",
    .build = build_swing_lat_torus,
    .flags = AR_ALGO_TORUS,
};
