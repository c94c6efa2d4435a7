/* rd: latency-optimal recursive doubling. At step s every rank r exchanges its whole vector
 * with r XOR 2^s and adds it to its own (both directions in one round: round snapshots).
 * Rounds: log2 n for a power of 2. Bytes sent per rank: log2 n buffers. One chunk.
 * Other n: the standard fold-in: with p the largest power of 2 below n, extra rank p+j hands
 * its vector to rank j first, the p ranks run the above, rank j hands the result back last:
 * log2 p + 2 rounds.
 * Source: swing.txt s2.3.2 (including "Non-power-of-two"). Any n >= 2. */
#include <stdlib.h>

#include "ar.h"
#include "gen.h"

static ar_status build_rd(const struct ar_params *p, struct ar_schedule *s) {
  int n = p->nranks, k = ar_log2(n), pw = 1 << k, extra = n - pw;
  AR_CHECK(sched_init(s, "rd", n, 1));
  int off = extra > 0; /* the fold-in round, when there is one */
  for (int j = 0; j < extra; j++) AR_CHECK(sched_add(s, 0, AR_REDUCE, pw + j, j, 0, 1));
  for (int step = 0; step < k; step++)
    for (int r = 0; r < pw; r++)
      AR_CHECK(sched_add(s, off + step, AR_REDUCE, r, r ^ (1 << step), 0, 1));
  for (int j = 0; j < extra; j++) AR_CHECK(sched_add(s, off + k, AR_COPY, j, pw + j, 0, 1));
  return AR_OK;
}

/* Fills phys[v] (the rank of virtual rank v of the hypercube) for a torus of power-of-2 sides:
 * bit g of v is bit sig[g] of the coordinate in dimension dim[g] (ar_torus_steps), so
 * flipping bit g moves 2^sig[g] along dim[g] (swing.txt Fig. 2). Returns the steps (log2 n),
 * else -1 (the shape does not fit n) or -2 (a side is not a power of 2), the reason in s. */
int rd_torus_map(const struct ar_params *p, struct ar_schedule *s, int *phys) {
  int dims[AR_MAX_TORUS_DIMS], dim[32], sig[32], stride[AR_MAX_TORUS_DIMS];
  int nd = ar_torus_shape(p, dims, s->reason, sizeof(s->reason));
  if (nd < 0) return -1;
  for (int k = 0; k < nd; k++)
    if (!ar_is_pow2(dims[k])) {
      snprintf(s->reason, sizeof(s->reason), "%s needs power-of-2 torus sides (side %d is %d)",
               s->algo, k, dims[k]);
      return -2;
    }
  int S = ar_torus_steps(nd, dims, dim, sig);
  for (int k = 0, st = 1; k < nd; st *= dims[k], k++)
    stride[k] = st;
  for (int v = 0; v < p->nranks; v++) {
    phys[v] = 0;
    for (int g = 0; g < S; g++)
      phys[v] += ((v >> g & 1) << sig[g]) * stride[dim[g]];
  }
  return S;
}

/* rd-torus: recursive doubling on the torus, one dimension at a time (swing.txt s2.3.2,
 * Fig. 2, the baseline of Table 2's Rec.Doub. (L) row): step g pairs ranks 2^sig[g] apart in
 * dimension dim[g] (round-robin over the dimensions), whole vector both ways.
 * Rounds: log2 n. Bytes sent per rank: log2 n buffers, one port. Power-of-2 torus sides. */
static ar_status build_rd_torus(const struct ar_params *p, struct ar_schedule *s) {
  int n = p->nranks;
  AR_CHECK(sched_init(s, "rd-torus", n, 1));
  int *phys = malloc(sizeof(int) * 2 * n), *inv = phys + n;
  if (!phys) return AR_ERR_NOMEM;
  int S = rd_torus_map(p, s, phys);
  ar_status st = S < 0 ? (S == -1 ? AR_ERR_INVALID : AR_ERR_UNSUPPORTED) : AR_OK;
  for (int v = 0; v < n && st == AR_OK; v++)
    inv[phys[v]] = v;
  for (int g = 0; g < S && st == AR_OK; g++)
    for (int r = 0; r < n && st == AR_OK; r++)
      st = sched_add(s, g, AR_REDUCE, r, phys[inv[r] ^ (1 << g)], 0, 1);
  free(phys);
  return st;
}

const struct ar_algo ar_algo_rd_torus = {
    .name = "rd-torus",
    .ranks = "2^k <= 65536, power-of-2 torus sides",
    .desc = "latency-optimal recursive doubling, one torus dimension a step (Swing's baseline)",
    .paper = "swing.txt s2.3.2, Fig. 2; Table 2 Rec.Doub. (L)",
    .family = "swing",
    .build = build_rd_torus,
    .flags = AR_ALGO_TORUS,
};

const struct ar_algo ar_algo_rd = {
    .name = "rd",
    .ranks = "2..65536 (non-powers of 2 fold in)",
    .desc = "latency-optimal recursive doubling, whole vector each step, log2 n rounds",
    .paper = "swing.txt s2.3.2",
    .family = "classic",
    .build = build_rd,
    .flags = 0,
};
