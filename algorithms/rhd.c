/* rhd: recursive halving/doubling (Rabenseifner). A reduce-scatter by recursive halving (the
 * data halves and the distance doubles: step s pairs r with r XOR 2^s), then the mirror-image
 * allgather by recursive doubling, over p = 2^floor(log2 n) chunks.
 * Rounds: 2 log2 n for a power of 2. Bytes sent per rank: 2(n-1)/n of the buffer.
 * Other n: the standard fold-in (swing.txt s2.3.2, "Non-power-of-two"): with p the largest power
 * of 2 below n, extra rank p+j hands its whole vector to rank j in a first round, the p ranks run
 * the above, and rank j hands the whole result back in a last round: 2 log2 p + 2 rounds, and
 * the folded pairs move one extra buffer each way.
 * Source: stragglar.txt s4.1 (RHD baseline), swing.txt s2.3.3. Any n >= 2. */
#include <stdlib.h>

#include "ar.h"
#include "gen.h"

/* The chunk range [*lo, *lo + *len) that rank r (of p, a power of 2) owns after t halving
 * steps: step i keeps the lower half when bit i of r is 0 and the upper half when it is 1. */
static void rhd_range(int r, int t, int p, int *lo, int *len) {
  *lo = 0;
  *len = p;
  for (int i = 0; i < t; i++) {
    *len /= 2;
    if (r >> i & 1) *lo += *len;
  }
}

/* Adds the reduce-scatter and allgather among virtual ranks 0..p-1 from round `first`, virtual
 * rank v being rank phys[v] (NULL: v itself); returns the status of the first failing
 * sched_add. */
static ar_status rhd_core(struct ar_schedule *s, int p, int first, const int *phys) {
  int k = ar_log2(p), lo, len;
  for (int step = 0; step < k; step++) /* halving: send the half the partner keeps */
    for (int r = 0; r < p; r++) {
      int q = r ^ (1 << step);
      rhd_range(q, step + 1, p, &lo, &len);
      AR_CHECK(sched_add(s, first + step, AR_REDUCE, phys ? phys[r] : r, phys ? phys[q] : q, lo,
                         len));
    }
  for (int step = k - 1; step >= 0; step--) /* doubling: send what this rank owns so far */
    for (int r = 0; r < p; r++) {
      int q = r ^ (1 << step);
      rhd_range(r, step + 1, p, &lo, &len);
      AR_CHECK(sched_add(s, first + k + (k - 1 - step), AR_COPY, phys ? phys[r] : r,
                         phys ? phys[q] : q, lo, len));
    }
  return AR_OK;
}

static ar_status build_rhd(const struct ar_params *p, struct ar_schedule *s) {
  int n = p->nranks, pw = 1 << ar_log2(n), extra = n - pw;
  AR_CHECK(sched_init(s, "rhd", n, pw));
  int off = extra > 0; /* the fold-in round, when there is one */
  for (int j = 0; j < extra; j++) AR_CHECK(sched_add(s, 0, AR_REDUCE, pw + j, j, 0, pw));
  AR_CHECK(rhd_core(s, pw, off, NULL));
  int last = off + 2 * ar_log2(pw);
  for (int j = 0; j < extra; j++) AR_CHECK(sched_add(s, last, AR_COPY, j, pw + j, 0, pw));
  return AR_OK;
}

const struct ar_algo ar_algo_rhd = {
    .name = "rhd",
    .ranks = "2..65536 (non-powers of 2 fold in)",
    .desc = "recursive halving/doubling (Rabenseifner), 2 log2 n rounds (+2 folding non-pow2)",
    .paper = "stragglar.txt s4.1; swing.txt s2.3.3",
    .family = "classic",
    .build = build_rhd,
    .flags = 0,
};

/* rhd-torus: Rabenseifner optimised for the torus (Sack et al., swing.txt s2.3.3, Table 2's
 * Rec.Doub. (B) row): the halving step g pairs ranks 2^sig[g] apart in dimension dim[g],
 * round-robin over the dimensions (the same hypercube as rd-torus), so the data halves while
 * the distance doubles only every D steps: congestion (2^D - 1)/(2^D - 2) for D > 1.
 * Rounds: 2 log2 n. Bytes sent per rank: 2(n-1)/n of the buffer, one port. Power-of-2 sides. */
static ar_status build_rhd_torus(const struct ar_params *p, struct ar_schedule *s) {
  int n = p->nranks;
  AR_CHECK(sched_init(s, "rhd-torus", n, n));
  int *phys = malloc(sizeof(int) * n);
  if (!phys) return AR_ERR_NOMEM;
  int S = rd_torus_map(p, s, phys);
  ar_status st = S < 0 ? (S == -1 ? AR_ERR_INVALID : AR_ERR_UNSUPPORTED) : rhd_core(s, n, 0, phys);
  free(phys);
  return st;
}

const struct ar_algo ar_algo_rhd_torus = {
    .name = "rhd-torus",
    .ranks = "2^k <= 65536, power-of-2 torus sides",
    .desc = "recursive halving/doubling, one torus dimension a step (Swing's Rec.Doub. (B))",
    .paper = "swing.txt s2.3.3 (Sack et al.); Table 2 Rec.Doub. (B)",
    .family = "swing",
    .build = build_rhd_torus,
    .flags = AR_ALGO_TORUS,
};
