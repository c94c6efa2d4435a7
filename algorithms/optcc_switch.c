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
 * the time, is what the pipeline adds). Any p >= 2; no degraded GPU gives the direct
 * AllReduce in k segments. */
#include <stdlib.h>
#include <string.h>

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

/* Orders one round's transfers x[0, nx) in steps, each a matching: every rank sends at most one
 * and receives at most one copy per step, so that copies issued in this order by every sender
 * (the ce transport's flow program, AR_SCHED_ORDERED) meet no other copy at their receiver while
 * the senders stay in step (two copies into one H200 move ~320 GB/s between them against ~390
 * for one: docs/performance.md v9). König: a bipartite multigraph's edges (sender -> receiver)
 * take max-degree colours, by alternating paths. The flows with a degraded end go first, the
 * upload to and download from each owner in one colour, and those colours are then spread
 * one step apart: a degraded GPU's copy lasts l steps of its budget. Returns AR_ERR_NOMEM or AR_OK. */
static ar_status order_round(const struct ar_params *p, struct ar_xfer *x, int nx) {
  int n = p->nranks, deg = 0;
  int out[AR_MAX_RANKS] = {0}, in[AR_MAX_RANKS] = {0};
  for (int e = 0; e < nx; e++) {
    if (++out[x[e].src] > deg) deg = out[x[e].src];
    if (++in[x[e].dst] > deg) deg = in[x[e].dst];
  }
  int *cs = malloc(sizeof(int) * (size_t)n * deg), *cr = malloc(sizeof(int) * (size_t)n * deg);
  int *col = malloc(sizeof(int) * (size_t)nx), *path = malloc(sizeof(int) * (size_t)nx);
  int *pos = malloc(sizeof(int) * (size_t)deg);
  struct ar_xfer *tmp = malloc(sizeof(*tmp) * (size_t)nx);
  ar_status st = cs && cr && col && path && pos && tmp ? AR_OK : AR_ERR_NOMEM;
  for (int i = 0; st == AR_OK && i < n * deg; i++) cs[i] = cr[i] = -1;
  for (int pass = 0; st == AR_OK && pass < 2; pass++) /* degraded-end flows first */
    for (int e = 0; e < nx; e++) {
      int u = x[e].src, v = x[e].dst, slow = factor_of(p, u) > 1 || factor_of(p, v) > 1, a = 0, b = 0;
      if (slow != !pass) continue;
      while (cs[u * deg + a] >= 0) a++;
      while (cr[v * deg + b] >= 0) b++;
      if (pass == 0) { /* no flips: a colour free at both ends keeps up/download pairs */
        for (a = 0; cs[u * deg + a] >= 0 || cr[v * deg + a] >= 0; a++) {}
      } else if (cr[v * deg + a] >= 0) { /* swap a and b along the path from v */
        int len = 0, at = v, recv_side = 1, c1 = a, c2 = b;
        for (;;) {
          int f = recv_side ? cr[at * deg + c1] : cs[at * deg + c1];
          if (f < 0) break;
          path[len++] = f;
          at = recv_side ? x[f].src : x[f].dst;
          recv_side = !recv_side;
          int t = c1;
          c1 = c2;
          c2 = t;
        }
        for (int i = 0; i < len; i++)
          cs[x[path[i]].src * deg + col[path[i]]] = cr[x[path[i]].dst * deg + col[path[i]]] = -1;
        for (int i = 0; i < len; i++) {
          int f = path[i];
          col[f] = col[f] == a ? b : a;
          cs[x[f].src * deg + col[f]] = cr[x[f].dst * deg + col[f]] = f;
        }
      }
      col[e] = a;
      cs[u * deg + a] = cr[v * deg + a] = e;
    }
  if (st == AR_OK) { /* colours with a degraded flow at steps 0, 2, 4, ... while others last */
    int nslow = 0, nfast = 0;
    for (int c = 0; c < deg; c++) {
      int slow = 0;
      for (int e = 0; e < nx; e++)
        if (col[e] == c && (factor_of(p, x[e].src) > 1 || factor_of(p, x[e].dst) > 1)) slow = 1;
      pos[c] = slow ? 2 * nslow++ : -1 - nfast++;
    }
    for (int c = 0; c < deg; c++) /* the others fill the odd steps, then follow */
      if (pos[c] < 0) {
        int j = -1 - pos[c];
        pos[c] = j < nslow - 1 ? 2 * j + 1 : nslow + j;
      }
    int m = 0;
    for (int step = 0; step < 2 * deg; step++)
      for (int e = 0; e < nx; e++)
        if (pos[col[e]] == step) tmp[m++] = x[e];
    if (m == nx) memcpy(x, tmp, sizeof(*tmp) * (size_t)nx);
    else st = AR_ERR_VERIFY;
  }
  free(cs);
  free(cr);
  free(col);
  free(path);
  free(pos);
  free(tmp);
  return st;
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
  }
  if ((long long)q * k > (1 << 24))
    return sched_fail(s, AR_ERR_UNSUPPORTED, "%s: %d owners x %d segments is too many", name, q, k);
  AR_CHECK(sched_init(s, name, n, q * k));
  s->ports = n - 1;
  /* round t: segment t's reduce-scatter and segment t-1's allgather (all healthy contributions
   * in round 0 instead delayed the allgathers into the degraded GPU, and so its paced ingress:
   * 8.04 ms against 6.19 in tp_check tsim at 1 GiB, l = 2, k = 16) */
  for (int t = 0; t <= k; t++) {
    size_t lo = s->nxfers;
    for (int i = 0; i < q; i++) {
      int o = owner[i];
      for (int r = 0; r < n; r++) {
        if (r == o) continue;
        if (t < k) AR_CHECK(add(s, p, t, AR_REDUCE, r, o, i * k + t, 1));   /* S3, S1 */
        if (t > 0) AR_CHECK(add(s, p, t, AR_COPY, o, r, i * k + t - 1, 1)); /* S4, S2 */
      }
    }
    AR_CHECK(order_round(p, s->xfers + lo, (int)(s->nxfers - lo)));
  }
  s->flags |= AR_SCHED_ORDERED;
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
