/* optcc-switch: OPTCC's decomposition (optcc.txt s4.1) where every GPU reaches every other
 * through a switch (NVSwitch), for one or more degraded GPUs (slowdown l: every byte into or
 * out of the GPU takes l times longer, each direction one shared budget).
 *
 * On a ring of NICs OPTCC reduce-scatters and allgathers along the healthy ring (q-1 hops)
 * and fits the degraded GPU's slow upload and download beside them (`optcc`). On a switch one
 * hop reaches every healthy GPU, so stages 1 and 4 are direct: the sections are owned by the
 * healthy GPUs, and each section takes s4.1's ordering (2), S3 -> S1 -> S4 -> S2: the degraded
 * GPUs first send their values of it to its owner, which sums them with every healthy GPU's
 * (S1 in one hop), sends the global sum to the other healthy GPUs (S4) and back to the
 * degraded ones (S2). A degraded GPU so sends and receives the vector once each way, l n in
 * all (Theorem 1's l n branch); a healthy one sends ((q-1) + (p-1)) / q n (q healthy GPUs of
 * p), 5/3 n for p = 4: the bound max{l, ...} n is met for l >= 5/3 on 4 GPUs, T = 2 n at l = 2.
 * When the degraded GPUs are nearly healthy it is cheaper for them to own sections too (the
 * role App. C's bubble filling gives their spare bandwidth); with every GPU an owner this is
 * the direct AllReduce, l 2(p-1)/p n, taken when that prices lower (l < 10/9 for p = 4).
 *
 * k segments pipeline it (s4.2's role of the patterns): each owner's range is k chunks;
 * round t reduce-scatters segment t and allgathers segment t-1 (k + 1 rounds), so that a
 * degraded GPU's upload of segment t overlaps the download of segment t-1. Ports: p - 1 (a switch).
 * Default k = 16 (1 GiB on 4 x H200: 22 MB copies, and the last segment's download, l/k of
 * the time, is what the pipeline adds). Any p >= 2. When every GPU owns a section (no degraded
 * GPU, or all nearly healthy) it is the direct AllReduce in one segment: k segments there
 * cost copies and gain nothing (optcc at 1 GiB on 4 x H200, GPU 3 1.0x: 7834-7880 us at
 * k = 16 against direct's ~4300). */
#include "ar.h"

#define OPTCC_SWITCH_SEGMENTS 16

/* Returns the slowdown of rank r (1 when healthy). */
static double factor_of(const struct ar_params *p, int r) {
  for (int i = 0; i < p->ndegraded; i++)
    if (p->degraded[i] == r) return p->factor[i] > 1 ? p->factor[i] : 1;
  return 1;
}

/* Adds a transfer weighted by the slower end. */
static ar_status add(struct ar_schedule *s, const struct ar_params *p, int round, int op, int src,
                     int dst, int chunk, int count) {
  AR_CHECK(sched_add(s, round, op, src, dst, chunk, count));
  double a = factor_of(p, src), b = factor_of(p, dst);
  s->xfers[s->nxfers - 1].weight = (float)(a > b ? a : b);
  return AR_OK;
}

ar_status optcc_switch_build(const struct ar_params *p, struct ar_schedule *s, const char *name) {
  int n = p->nranks, k = p->segments > 0 ? p->segments : OPTCC_SWITCH_SEGMENTS;
  int owner[AR_MAX_RANKS], q = 0;
  double worst = 1;
  for (int r = 0; r < n; r++) {
    if (factor_of(p, r) > worst) worst = factor_of(p, r);
    if (factor_of(p, r) == 1) owner[q++] = r;
  }
  /* healthy owners only: l n for the degraded, ((q-1) + (n-1)) / q n for the healthy;
   * everyone owning: l 2(n-1)/n n */
  double t_healthy =
      q > 0 ? (worst > (double)(q - 1 + n - 1) / q ? worst : (double)(q - 1 + n - 1) / q) : 1e30;
  if (q == n || !(t_healthy < worst * 2.0 * (n - 1) / n)) {
    q = n;
    for (int r = 0; r < n; r++)
      owner[r] = r;
    k = 1; /* the direct AllReduce: segments overlap nothing a slow link holds up, only cost */
  }
  if ((long long)q * k > (1 << 24))
    return sched_fail(s, AR_ERR_UNSUPPORTED, "%s: %d owners x %d segments is too many", name, q, k);
  AR_CHECK(sched_init(s, name, n, q * k));
  s->ports = n - 1;
  s->segments = k;
  /* round t: segment t's reduce-scatter and segment t-1's allgather (all healthy contributions
   * in round 0 instead delayed the allgathers into the degraded GPU, and so its paced ingress:
   * 8.04 ms against 6.19 in tp_check tsim at 1 GiB, l = 2, k = 16) */
  for (int t = 0; t <= k; t++)
    for (int i = 0; i < q; i++) {
      int o = owner[i];
      for (int r = 0; r < n; r++) {
        if (r == o) continue;
        if (t < k) AR_CHECK(add(s, p, t, AR_REDUCE, r, o, i * k + t, 1));   /* S3, S1 */
        if (t > 0) AR_CHECK(add(s, p, t, AR_COPY, o, r, i * k + t - 1, 1)); /* S4, S2 */
      }
    }
  return AR_OK;
}

static ar_status build_optcc_switch(const struct ar_params *p, struct ar_schedule *s) {
  return optcc_switch_build(p, s, "optcc-switch");
}

const struct ar_algo ar_algo_optcc_switch = {
    .name = "optcc-switch",
    .ranks = "any n >= 2, any degraded GPUs",
    .desc = "OPTCC on a switch: ordering S3-S1-S4-S2, stages 1/4 in one hop, k segments",
    .paper = "optcc.txt s4.1-4.2, Theorem 1",
    .build = build_optcc_switch,
    .flags = AR_ALGO_DEGRADE_AWARE,
};
