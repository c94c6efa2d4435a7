/* bcast: the straggler-aware Broadcast baseline. While the straggler is late, the n-1 others
 * AllReduce among themselves (the precondition: a ring over them with n-1 chunks, 2(n-2)
 * rounds, bandwidth-optimal). Once it arrives, the straggler and one other rank exchange and
 * reduce their whole buffers (one round, both directions), so two ranks hold the result; each
 * later round every holder copies the whole buffer to one rank that lacks it.
 * Rounds after arrival: ceil(log2 n) (the exchange plus ceil(log2 n) - 1 doubling copies), each
 * a whole buffer: T = log n (alpha + s beta) as in the paper. Precondition: 2(n-2) rounds.
 * Source: stragglar.txt s4.1 ("Broadcast"). Any n >= 2 (n = 2: no precondition); the straggler
 * is p->straggler (built as rank n-1, then relabelled). */
#include "ar.h"
#include "gen.h"

/* Adds the ring AllReduce among logical ranks 0..m-1 over m chunks (rounds 0..2(m-1)-1);
 * returns the status of the first failing sched_add. */
static ar_status bcast_precond(struct ar_schedule *s, int m) {
  for (int step = 0; step < m - 1; step++) /* reduce-scatter: rank r ends owning chunk r+1 */
    for (int r = 0; r < m; r++)
      AR_CHECK(sched_add(s, step, AR_REDUCE, r, (r + 1) % m, ((r - step) % m + m) % m, 1));
  for (int step = 0; step < m - 1; step++) /* allgather around the same ring */
    for (int r = 0; r < m; r++)
      AR_CHECK(sched_add(s, m - 1 + step, AR_COPY, r, (r + 1) % m,
                         ((r + 1 - step) % m + m) % m, 1));
  return AR_OK;
}

static ar_status build_bcast(const struct ar_params *p, struct ar_schedule *s) {
  int n = p->nranks, m = n - 1, st = p->straggler < 0 ? n - 1 : p->straggler;
  if (st >= n) return sched_fail(s, AR_ERR_INVALID, "straggler %d >= ranks %d", st, n);
  AR_CHECK(sched_init(s, "bcast", n, m));
  AR_CHECK(gen_quadratic(s, "bcast", n, 2.0 * m * (m - 1)));
  AR_CHECK(bcast_precond(s, m));
  s->nprecond = 2 * (m - 1);
  s->straggler = m; /* logical straggler: the last rank */

  int round = s->nprecond, whole = s->nchunks;
  AR_CHECK(sched_add(s, round, AR_REDUCE, m, 0, 0, whole)); /* the exchange */
  AR_CHECK(sched_add(s, round, AR_REDUCE, 0, m, 0, whole));
  int holders[AR_MAX_RANKS], nh = 2, next = 1; /* logical ranks 1..m-1 still lack the result */
  holders[0] = m;
  holders[1] = 0;
  while (next < m) {
    round++;
    for (int i = 0, h = nh; i < h && next < m; i++) {
      AR_CHECK(sched_add(s, round, AR_COPY, holders[i], next, 0, whole));
      holders[nh++] = next++;
    }
  }

  int perm[AR_MAX_RANKS]; /* logical straggler m becomes st; the others keep their order */
  for (int i = 0; i < m; i++) perm[i] = i < st ? i : i + 1;
  perm[m] = st;
  sched_relabel(s, perm);
  return AR_OK;
}

const struct ar_algo ar_algo_bcast = {
    .name = "bcast",
    .ranks = "2..4096 (n^2 transfers)",
    .desc = "straggler-aware Broadcast: ring AllReduce of n-1 during the delay, exchange, "
            "then doubling broadcast; log2 n rounds after arrival",
    .paper = "stragglar.txt s4.1",
    .family = "straggler-aware",
    .build = build_bcast,
    .flags = AR_ALGO_STRAGGLER_AWARE,
};
