/* ring: reduce-scatter then allgather around the ring r -> r+1, n chunks.
 * Rounds: 2(n-1). Bytes sent per rank: 2(n-1)/n of the buffer (bandwidth-optimal).
 * Source: stragglar.txt s4.1 (baseline), asyncallreduce.md. Any n >= 2.
 * async-ring is the same schedule tagged for the copy-engine pipelined transport
 * (mini-batches over double-buffered streams and scratch, asyncallreduce.md).
 * ring-ham (the multiport Hamiltonian rings of a 2-D torus) and ring-rails (NCCL's channels
 * on nodes of G GPUs) run the same rings along other orders. */
#include <stdlib.h>

#include "ar.h"
#include "gen.h"

/* Adds step `step` (0 .. 2(p-1)-1: reduce-scatter, then allgather) of the ring along the
 * cyclic order ord[0..p) (NULL: 0..p-1) on chunks [base, base + p): position i sends to i+1
 * and ends owning chunk base + i + 1. Returns the status of the first failing sched_add. */
static ar_status ring_step(struct ar_schedule *s, int round, const int *ord, int p, int base,
                           int step) {
  int ag = step >= p - 1, t = ag ? step - (p - 1) : step;
  for (int i = 0; i < p; i++) {
    int c = ag ? ((i + 1 - t) % p + p) % p : ((i - t) % p + p) % p;
    AR_CHECK(sched_add(s, round, ag ? AR_COPY : AR_REDUCE, ord ? ord[i] : i,
                       ord ? ord[(i + 1) % p] : (i + 1) % p, base + c, 1));
  }
  return AR_OK;
}

/* Returns 1 when step `step` of a ring of p moves what the step before did (the same ends,
 * counts and op; only the chunks turn) and the stream takes it so (sched_can_repeat): every
 * step but the first of each half. Then only two rounds are built, and a ring at 65536 ranks
 * costs 2 x 65536 transfers, not 8.6e9. */
static int ring_repeats(const struct ar_schedule *s, int p, int step) {
  return step % (p - 1) != 0 && sched_can_repeat(s);
}

/* The n^2 guard of gen.h, unless the stream takes repeated rounds (ring_repeats). */
static ar_status ring_size(struct ar_schedule *s, const char *name, int n, double xfers) {
  return sched_can_repeat(s) ? AR_OK : gen_quadratic(s, name, n, xfers);
}

/* The ring under `name` (ring, async-ring). */
static ar_status ring_named(const struct ar_params *p, struct ar_schedule *s, const char *name) {
  int n = p->nranks;
  AR_CHECK(sched_init(s, name, n, n));
  AR_CHECK(ring_size(s, name, n, 2.0 * n * (n - 1)));
  for (int step = 0; step < 2 * (n - 1); step++)
    AR_CHECK(ring_repeats(s, n, step) ? sched_repeat_round(s, step)
                                      : ring_step(s, step, NULL, n, 0, step));
  return AR_OK;
}

static ar_status build_ring(const struct ar_params *p, struct ar_schedule *s) {
  return ring_named(p, s, "ring");
}

static ar_status build_async_ring(const struct ar_params *p, struct ar_schedule *s) {
  return ring_named(p, s, "async-ring");
}

const struct ar_algo ar_algo_ring = {
    .name = "ring",
    .ranks = "2..4096 (n^2 transfers)",
    .desc = "reduce-scatter + allgather ring, n chunks, 2(n-1) rounds",
    .paper = "stragglar.txt s4.1; asyncallreduce.md",
    .family = "classic",
    .build = build_ring,
};

const struct ar_algo ar_algo_async_ring = {
    .name = "async-ring",
    .ranks = "2..4096 (n^2 transfers)",
    .desc = "AsyncAllReduce: ring on copy engines, mini-batches over double-buffered streams",
    .paper = "asyncallreduce.md",
    .family = "straggler-aware",
    .build = build_async_ring,
    .traits = AR_TRAIT_PIPELINED,
};

const struct ar_algo ar_algo_nccl = {
    .name = "nccl",
    .ranks = "any n >= 2",
    .desc = "ncclAllReduce itself: the industry reference",
    .paper = "NCCL",
    .family = "reference",
    .flags = AR_ALGO_NATIVE,
};

/* Adds the rings along orders ord[0..nring) (p ranks each), each on its own p chunks, step by
 * step so that every ring's step s is round s. */
static ar_status rings_build(struct ar_schedule *s, int **ord, int nring, int p) {
  for (int step = 0; step < 2 * (p - 1); step++)
    for (int k = 0; k < nring; k++)
      if (!ring_repeats(s, p, step)) AR_CHECK(ring_step(s, step, ord[k], p, k * p, step));
      else if (k == 0) AR_CHECK(sched_repeat_round(s, step));
  return AR_OK;
}

/* Walks the successor map next[] from rank 0 into ord[0..n); returns 1 when it is one cycle
 * through all n ranks (a Hamiltonian cycle). */
static int cycle_order(const int *next, int n, int *ord) {
  int r = 0;
  for (int i = 0; i < n; i++, r = next[r]) {
    if (i > 0 && r == 0) return 0;
    ord[i] = r;
  }
  return r == 0;
}

/* ring-ham: the ring on a 2-D torus R x C with R = kC (swing.txt s2.3.1): two edge-disjoint
 * Hamiltonian cycles, each run both ways, four rings on a quarter of the buffer each, every
 * directed link used by one ring (no congestion, all four ports). Row i's staircase node is
 * column s_i = -i mod C. Cycle 1 moves along the row and climbs at the staircase (a row's C
 * nodes, then the next row, closing after R rows since C divides R); cycle 2 climbs and moves
 * along the row at the staircase (C - 1 rows up per column, one cycle when gcd(k, C-1) = 1).
 * The paper's condition, the same as ours: r = c k and gcd(r, c - 1) = 1.
 * Rounds: 2(n-1). Bytes sent per rank: 2(n-1)/n of the buffer over 4 ports. Any square torus;
 * a 2-D shape meeting the condition, either way round (--torus; default the most square). */
static ar_status build_ring_ham(const struct ar_params *p, struct ar_schedule *s) {
  int n = p->nranks, dims[AR_MAX_TORUS_DIMS];
  AR_CHECK(sched_init(s, "ring-ham", n, 4 * n));
  AR_CHECK(ring_size(s, "ring-ham", n, 8.0 * n * (n - 1)));
  int nd = ar_torus_shape(p, dims, s->reason, sizeof(s->reason));
  if (nd < 0) return AR_ERR_INVALID;
  /* columns along dimension cd (stride cs), rows along the other: C divides R */
  int cd = nd == 2 && dims[1] % dims[0] == 0 ? 0 : 1;
  int C = dims[cd], R = nd == 2 ? dims[1 - cd] : 0, k = C > 0 ? R / C : 0, g = k, h = C - 1;
  while (h) { /* gcd(k, C - 1) */
    int t = g % h;
    g = h;
    h = t;
  }
  if (nd != 2 || R % C || g != 1)
    return sched_fail(s, AR_ERR_UNSUPPORTED,
                      "ring-ham needs a 2-D torus R x C with R = k C and gcd(k, C - 1) = 1 "
                      "(swing.txt s2.3.1)");
  int cs = cd == 0 ? 1 : dims[0], rs = cd == 0 ? dims[0] : 1;
  int *next = malloc(sizeof(int) * 2 * n), *ord = malloc(sizeof(int) * 4 * n);
  ar_status st = next && ord ? AR_OK : AR_ERR_NOMEM;
  for (int r = 0; r < n && st == AR_OK; r++) {
    int i = r / rs % R, j = r / cs % C, stair = j == ((-i) % C + C) % C;
    int right = r + ((j + 1) % C - j) * cs, up = r + ((i + 1) % R - i) * rs;
    next[r] = stair ? up : right;
    next[n + r] = stair ? right : up;
  }
  if (st == AR_OK && (!cycle_order(next, n, ord) || !cycle_order(next + n, n, ord + 2 * n)))
    st = sched_fail(s, AR_ERR_VERIFY, "ring-ham: the cycles are not Hamiltonian");
  if (st == AR_OK) {
    int *rings[4] = {ord, ord + n, ord + 2 * n, ord + 3 * n};
    for (int i = 0; i < n; i++) { /* each cycle backwards too */
      ord[n + i] = ord[(n - i) % n];
      ord[3 * n + i] = ord[2 * n + (n - i) % n];
    }
    s->ports = 4;
    st = rings_build(s, rings, 4, n);
  }
  free(next);
  free(ord);
  return st;
}

const struct ar_algo ar_algo_ring_ham = {
    .name = "ring-ham",
    .ranks = "2-D RxC, R=kC, gcd(k,C-1)=1, <= 4096",
    .desc = "ring on two edge-disjoint Hamiltonian cycles, both ways: 4 rings on 4 ports",
    .paper = "swing.txt s2.3.1; Table 2 Ring",
    .family = "swing",
    .build = build_ring_ham,
    .flags = AR_ALGO_TORUS,
};

/* ring-rails: NCCL's rings on nodes of G GPUs (--gpus-per-node, optcc.txt s3 footnote 3): G
 * channels on a G-th of the buffer each; channel c enters node m at local GPU c, visits
 * c, c+1, .., c-1 over the node's switch and leaves from local c-1 for node m+1's GPU c, so
 * each GPU's NIC carries one channel each way and the node links the other G-1.
 * Rounds: 2(n-1). Bytes per NIC: 2(n-1)/(Gn) of the buffer (T0 = 2(p-1)n/(gp)). G = 1 (the
 * default): the ring. Any n that G divides. */
static ar_status build_ring_rails(const struct ar_params *p, struct ar_schedule *s) {
  int n = p->nranks, G = p->gpus_per_node > 0 ? p->gpus_per_node : 1;
  AR_CHECK(sched_init(s, "ring-rails", n, G * n));
  AR_CHECK(ring_size(s, "ring-rails", n, 2.0 * G * n * (n - 1)));
  if (n % G)
    return sched_fail(s, AR_ERR_UNSUPPORTED, "ring-rails: %d GPUs per node do not divide %d", G,
                      n);
  int *ord = malloc(sizeof(int) * G * n), *rings[AR_MAX_RANKS];
  if (!ord) return AR_ERR_NOMEM;
  for (int c = 0; c < G; c++) {
    rings[c] = ord + c * n;
    for (int i = 0; i < n; i++)
      rings[c][i] = i / G * G + (c + i % G) % G;
  }
  s->ports = G > 1 ? 2 : 1;
  ar_status st = rings_build(s, rings, G, n);
  free(ord);
  return st;
}

const struct ar_algo ar_algo_ring_rails = {
    .name = "ring-rails",
    .ranks = "n <= 4096 that G (--gpus-per-node) divides",
    .desc = "NCCL's G ring channels on nodes of G GPUs, one NIC each (two-tier topology)",
    .paper = "optcc.txt s3 (T0 for g GPUs per server, footnote 3)",
    .family = "optcc",
    .build = build_ring_rails,
    .flags = 0,
};
