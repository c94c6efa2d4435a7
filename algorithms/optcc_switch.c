/* optcc-switch: OPTCC's decomposition (optcc.txt s4.1) where every GPU reaches every other
 * through a switch (NVSwitch), for one or more degraded GPUs (slowdown l: every byte into or
 * out of the GPU takes l times longer, each direction one shared budget).
 *
 * On a ring of NICs OPTCC fits the degraded GPU's slow upload and download into the healthy
 * ring (`optcc-ring`). On a switch the degraded GPUs reach every healthy GPU in one hop: the
 * sections are owned by the healthy GPUs h[0..q-1], and each section takes s4.1's ordering
 * (2), S3 -> S1 -> S4 -> S2: S1 reduce-scatters it along the healthy ring (q - 1 hops, ending
 * at its owner), the degraded GPUs send their values of it straight to the owner for the
 * ring's last hop (S3), the owner sends the global sum straight back to them (S2) and
 * allgathers it along the ring (S4). A degraded GPU so sends and receives the vector once
 * each way, l n in all (Theorem 1's l n branch); a healthy one sends ((q-1) + (p-1)) / q n
 * (q healthy GPUs of p), 5/3 n for p = 4: the bound max{l, ...} n is met for l >= 5/3 on 4
 * GPUs, T = 2 n at l = 2.
 * Why the ring for S1 and S4 and not one hop: a healthy GPU then copies only to its ring
 * successor and the degraded GPUs, so two healthy GPUs never copy into one receiver. Copy
 * engine copies that meet at a receiver lose throughput on 4 x H200 (about 320 GB/s for two
 * against 390 for one), and at l = 2 the healthy GPUs are 5/6 busy: at 1 GiB, GPU 3 2x
 * slower, k = 16, S1/S4 in one hop took 6226-6402 us, on the ring 6117-6203 (the bound is
 * 5441-5460; docs/performance.md v10, v11).
 * Order (AR_TRAIT_SEND_ORDER, declared by optcc, optcc-multi and optcc-switch): a healthy GPU sends its older segments' ring hops first and
 * its own section's sums after j/q of them (healthy_round), so the owners' downloads into a
 * degraded GPU come a third of a round apart, each about a round after the upload it waits for.
 * When the degraded GPUs are nearly healthy it is cheaper for them to own sections too (the
 * role App. C's bubble filling gives their spare bandwidth); with every GPU an owner this is
 * the direct AllReduce, l 2(p-1)/p n, taken when that prices lower (l < 10/9 for p = 4).
 *
 * k segments pipeline it (s4.2's role of the patterns): round t + q - 2 takes segment t's
 * uploads and round t + q - 1 its downloads (k + 2q - 3 rounds), so that a degraded GPU's
 * upload of segment t overlaps the download of segment t - 1. Ports: p - 1 (a switch).
 * Default k = 16 (1 GiB on 4 x H200: 22 MB copies, and the last segment's download, l/k of
 * the time, is what the pipeline adds). Any p >= 2. When every GPU owns a section (no degraded
 * GPU, or all nearly healthy) it is the direct AllReduce in one segment: k segments there
 * cost copies and gain nothing (optcc at 1 GiB on 4 x H200, GPU 3 1.0x: 7834-7880 us at
 * k = 16 against direct's ~4300). */
#include "ar.h"
#include "gen.h"

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
  double a = factor_of(p, src), b = factor_of(p, dst);
  return sched_add_w(s, round, op, src, dst, chunk, count, (float)(a > b ? a : b));
}

/* One send of a healthy GPU's round (the ring hybrid's order is built in a list first). */
struct send {
  int op, dst, chunk;
};

/* Emits healthy h[j]'s sends of round R (ring hybrid, see optcc_switch_build): the ring hops
 * of older segments first; its own section's sum (to the degraded GPUs, then the ring) after
 * j / q of them, so that the owners' downloads to a degraded GPU start a third of a round
 * apart (q = 3) and its ingress serves one at a time, each a round after its upload. */
static ar_status healthy_round(struct ar_schedule *s, const struct ar_params *p, const int *h,
                               int q, const int *dg, int m, int k, int off, int R, int j) {
  struct send ring[2 * AR_MAX_RANKS], own[AR_MAX_RANKS + 1];
  int nr = 0, no = 0, next = h[(j + 1) % q];
  for (int jp = q - 1; jp >= 2; jp--) { /* allgather hop jp of section j - jp + 1 */
    int i = ((j - jp + 1) % q + q) % q, t = R - off - jp;
    if (t >= 0 && t < k) ring[nr++] = (struct send){AR_COPY, next, i * k + t};
  }
  for (int jp = q - 1; jp >= 1; jp--) { /* reduce-scatter hop jp of section j - jp */
    int i = ((j - jp) % q + q) % q, t = R - jp + 1;
    if (t >= 0 && t < k) ring[nr++] = (struct send){AR_REDUCE, next, i * k + t};
  }
  int t = R - off - 1; /* own section: S2 to the degraded GPUs, then allgather hop 1 */
  if (t >= 0 && t < k) {
    for (int y = 0; y < m; y++)
      own[no++] = (struct send){AR_COPY, dg[(j + y) % m], j * k + t};
    if (q > 1) own[no++] = (struct send){AR_COPY, next, j * k + t};
  }
  int at = j * (nr + 1) / q;
  for (int x = 0; x <= nr; x++) {
    if (x == at)
      for (int y = 0; y < no; y++)
        AR_CHECK(add(s, p, R, own[y].op, h[j], own[y].dst, own[y].chunk, 1));
    if (x < nr) AR_CHECK(add(s, p, R, ring[x].op, h[j], ring[x].dst, ring[x].chunk, 1));
  }
  return AR_OK;
}

ar_status optcc_switch_build(const struct ar_params *p, struct ar_schedule *s, const char *name) {
  int n = p->nranks, k = p->segments > 0 ? p->segments : OPTCC_SWITCH_SEGMENTS;
  int owner[AR_MAX_RANKS], dg[AR_MAX_RANKS], q = 0, m = 0;
  double worst = 1;
  if (n > AR_MAX_RANKS) { /* the direct AllReduce's or k segments' n^2 flows */
    AR_CHECK(sched_init(s, name, n, 1));
    return gen_quadratic(s, name, n, 2.0 * n * (n - 1));
  }
  for (int r = 0; r < n; r++) {
    if (factor_of(p, r) > worst) worst = factor_of(p, r);
    if (factor_of(p, r) == 1) owner[q++] = r;
    else dg[m++] = r;
  }
  /* healthy owners only: l n for the degraded, ((q-1) + (n-1)) / q n for the healthy;
   * everyone owning: l 2(n-1)/n n */
  double t_healthy =
      q > 0 ? (worst > (double)(q - 1 + n - 1) / q ? worst : (double)(q - 1 + n - 1) / q) : 1e30;
  if (q == n || !(t_healthy < worst * 2.0 * (n - 1) / n)) {
    /* the direct AllReduce, one segment: segments overlap nothing a slow link holds up */
    AR_CHECK(sched_init(s, name, n, n));
    s->ports = n - 1;
    s->segments = 1;
    for (int t = 0; t <= 1; t++)
      for (int o = 0; o < n; o++)
        for (int r = 0; r < n; r++)
          if (r != o) AR_CHECK(add(s, p, t, t ? AR_COPY : AR_REDUCE, t ? o : r, t ? r : o, o, 1));
    return AR_OK;
  }
  if ((long long)q * k > (1 << 24))
    return sched_fail(s, AR_ERR_UNSUPPORTED, "%s: %d owners x %d segments is too many", name, q, k);
  AR_CHECK(sched_init(s, name, n, q * k));
  s->ports = n - 1;
  s->segments = k;
  /* section i of segment t (chunk i k + t) is owned by h[i]: its reduce-scatter starts at
   * h[i+1] and runs q - 1 hops along the ring to h[i], the last hop in round t + off, where
   * the degraded GPUs' values of it arrive too (S3); h[i] sends the sum to them (S2) and
   * allgathers it along the ring (S4) from round t + off + 1 */
  int off = q > 2 ? q - 2 : 0, last = k - 1 + off + (q > 1 ? q - 1 : 1);
  for (int R = 0; R <= last; R++) {
    for (int j = 0; j < q; j++)
      AR_CHECK(healthy_round(s, p, owner, q, dg, m, k, off, R, j));
    int t = R - off;
    for (int x = 0; t >= 0 && t < k && x < m; x++) /* S3: each degraded GPU to every owner */
      for (int a = 0; a < q; a++) {
        int i = (a + x) % q;
        AR_CHECK(add(s, p, R, AR_REDUCE, dg[x], owner[i], i * k + t, 1));
      }
  }
  return AR_OK;
}

static ar_status build_optcc_switch(const struct ar_params *p, struct ar_schedule *s) {
  return optcc_switch_build(p, s, "optcc-switch");
}

const struct ar_algo ar_algo_optcc_switch = {
    .name = "optcc-switch",
    .segments = ar_optcc_segments,
    .traits = AR_TRAIT_SEND_ORDER,
    .ranks = "2..4096, any degraded GPUs",
    .desc = "OPTCC on a switch: S3-S1-S4-S2, degraded GPUs one hop, S1/S4 on the healthy ring",
    .paper = "optcc.txt s4.1-4.2, Theorem 1",
    .family = "optcc",
    .build = build_optcc_switch,
    .flags = AR_ALGO_DEGRADE_AWARE,
};
