/* rd: latency-optimal recursive doubling. At step s every rank r exchanges its whole vector
 * with r XOR 2^s and adds it to its own (both directions in one round: round snapshots).
 * Rounds: log2 n for a power of 2. Bytes sent per rank: log2 n buffers. One chunk.
 * Other n: the standard fold-in: with p the largest power of 2 below n, extra rank p+j hands
 * its vector to rank j first, the p ranks run the above, rank j hands the result back last:
 * log2 p + 2 rounds.
 * Source: swing.txt s2.3.2 (including "Non-power-of-two"). Any n >= 2. */
#include "ar.h"

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

const struct ar_algo ar_algo_rd = {
    .name = "rd",
    .ranks = "any n >= 2 (non-powers of 2 fold in)",
    .desc = "latency-optimal recursive doubling, whole vector each step, log2 n rounds",
    .paper = "swing.txt s2.3.2",
    .build = build_rd,
    .flags = 0,
};
