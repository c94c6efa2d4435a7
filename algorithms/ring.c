/* ring: reduce-scatter then allgather around the ring r -> r+1, n chunks.
 * Rounds: 2(n-1). Bytes sent per rank: 2(n-1)/n of the buffer (bandwidth-optimal).
 * Source: stragglar.txt s4.1 (baseline), asyncallreduce.md. Any n >= 2.
 * async-ring is the same schedule tagged for the copy-engine pipelined transport
 * (mini-batches over double-buffered streams and scratch, asyncallreduce.md). */
#include "ar.h"

static ar_status build_ring(const struct ar_params *p, struct ar_schedule *s) {
  int n = p->nranks;
  AR_CHECK(sched_init(s, "ring", n, n));
  for (int step = 0; step < n - 1; step++) /* reduce-scatter: rank r ends owning chunk r+1 */
    for (int r = 0; r < n; r++)
      AR_CHECK(sched_add(s, step, AR_REDUCE, r, (r + 1) % n, ((r - step) % n + n) % n, 1));
  for (int step = 0; step < n - 1; step++) /* allgather the owned chunks around the ring */
    for (int r = 0; r < n; r++)
      AR_CHECK(sched_add(s, n - 1 + step, AR_COPY, r, (r + 1) % n,
                         ((r + 1 - step) % n + n) % n, 1));
  return AR_OK;
}

static ar_status build_async_ring(const struct ar_params *p, struct ar_schedule *s) {
  AR_CHECK(build_ring(p, s));
  snprintf(s->algo, sizeof(s->algo), "async-ring");
  s->flags |= AR_SCHED_PIPELINED;
  return AR_OK;
}

const struct ar_algo ar_algo_ring = {
    .name = "ring",
    .ranks = "any n >= 2",
    .desc = "reduce-scatter + allgather ring, n chunks, 2(n-1) rounds",
    .paper = "stragglar.txt s4.1; asyncallreduce.md",
    .build = build_ring,
};

const struct ar_algo ar_algo_async_ring = {
    .name = "async-ring",
    .ranks = "any n >= 2",
    .desc = "AsyncAllReduce: ring on copy engines, mini-batches over double-buffered streams",
    .paper = "asyncallreduce.md",
    .build = build_async_ring,
    .flags = AR_ALGO_PIPELINED,
};

const struct ar_algo ar_algo_nccl = {
    .name = "nccl",
    .ranks = "any n >= 2",
    .desc = "ncclAllReduce itself: the industry reference",
    .paper = "NCCL",
    .flags = AR_ALGO_NATIVE,
};
