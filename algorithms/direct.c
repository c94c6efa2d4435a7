/* direct: one-shot AllReduce. Round 0: every rank sends chunk j to rank j, which reduces it
 * (a direct reduce-scatter); round 1: rank j sends its reduced chunk j to every other rank (a
 * direct allgather). n chunks, 2 rounds, n - 1 ports (every rank talks to all others at once).
 * Bytes sent per rank: 2(n-1)/n of the buffer.
 * Source: stragglar.txt App. E (the "Direct AllReduce" baseline). Any n >= 2. */
#include "ar.h"
#include "gen.h"

static ar_status build_direct(const struct ar_params *p, struct ar_schedule *s) {
  int n = p->nranks;
  AR_CHECK(sched_init(s, "direct", n, n));
  AR_CHECK(gen_quadratic(s, "direct", n, 2.0 * n * (n - 1)));
  s->ports = n - 1;
  for (int r = 0; r < n; r++)
    for (int j = 0; j < n; j++)
      if (j != r) AR_CHECK(sched_add(s, 0, AR_REDUCE, r, j, j, 1));
  for (int j = 0; j < n; j++)
    for (int r = 0; r < n; r++)
      if (r != j) AR_CHECK(sched_add(s, 1, AR_COPY, j, r, j, 1));
  return AR_OK;
}

const struct ar_algo ar_algo_direct = {
    .name = "direct",
    .ranks = "2..4096 (n^2 transfers)",
    .desc = "one-shot: direct reduce-scatter then allgather, n chunks, 2 rounds, n-1 ports",
    .paper = "stragglar.txt App. E",
    .family = "classic",
    .build = build_direct,
    .flags = 0,
};

/* oneshot: every rank sends its whole buffer to every other rank, which sums all n of them in
 * one round: one chunk, one round, n - 1 ports, (n - 1) buffers sent per rank. The latency
 * end of the S-curve: one synchronisation in all, which pays where the bytes are few (the sm
 * transport runs it as one kernel that sums the peers' buffers in one pass). */
static ar_status build_oneshot(const struct ar_params *p, struct ar_schedule *s) {
  int n = p->nranks;
  AR_CHECK(sched_init(s, "oneshot", n, 1));
  AR_CHECK(gen_quadratic(s, "oneshot", n, (double)n * (n - 1)));
  s->ports = n - 1;
  for (int r = 0; r < n; r++)
    for (int j = 0; j < n; j++)
      if (j != r) AR_CHECK(sched_add(s, 0, AR_REDUCE, r, j, 0, 1));
  return AR_OK;
}

const struct ar_algo ar_algo_oneshot = {
    .name = "oneshot",
    .ranks = "2..4096 (n^2 transfers)",
    .desc = "one round: every rank sums every peer's whole buffer (small sizes), n-1 ports",
    .paper = "stragglar.txt App. E (Direct AllReduce without the reduce-scatter split)",
    .family = "classic",
    .build = build_oneshot,
    .flags = 0,
};
