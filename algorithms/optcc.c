/* optcc, optcc-multi: AllReduce with degraded GPUs (slowdown l: every byte into or out of
 * the GPU takes l times longer). Source: optcc.txt s4, App. C (one degraded GPU), App. D (m).
 *
 * Four-stage decomposition (s4.1): k segments of q = n - m sections (q healthy GPUs). Per
 * section: S1 reduce-scatter over the ring of the healthy GPUs (q-1 hops), S2 upload of the
 * healthy partial sum to the degraded GPU, S3 download of the global sum, S4 allgather over
 * the healthy ring (q-1 hops).
 *
 * Rounds: one flow per NIC and direction at a time (s4.1), so ports = 1. In round r degraded
 * GPU 1 takes the "gap" edge of the healthy ring at node r: node r uploads to it and it
 * downloads to node r+1, i.e. it sits inside the ring for that round, one node further on
 * each round. The other q-1 healthy edges each carry two sections a round, one S1 and one S4
 * flow, and every section travels at a fixed offset ("frame", 1..q-1) ahead of the gap, so it
 * never meets it; frames cycle over the sections so each frame carries exactly one S1 and
 * one S4 flow a round. A round thus overlays S1 of one segment, S2 and S3 at the gap and S4
 * of an earlier segment, which is what the four staggered patterns of s4.2 do; a parallel
 * body is q rounds and lasts max(l, 2) q sections' time.
 * Head and tail (m = 1): before the first upload and after the last download the gap edge
 * is idle, so it serves as frame 0: the first section reduce-scatters on it without waiting
 * (first upload in round q-1, not q) and the last one allgathers on it straight after its
 * download; the other frames are assigned from the end so that every allgather is done q-1
 * rounds after the last download (the shortest possible: one hop a round). Each round saved
 * at either end was a whole round of ring traffic waiting for the gap. Those head and tail
 * rounds carry only the first and last body's sections; with no bubble blocks these are
 * also built half size (a chunks, the others 2a), which halves what the head and tail cost,
 * and the generator keeps whichever of the two prices lower (sched_cost; equal sections win
 * only at l = 2 with small k and large q, where the ring is busy too and the half sections
 * leave the first and last bodies' rounds unbalanced).
 * Bubble filling (l < 2, App. C): every upload and download also carries a block of a
 * point-to-point AllReduce through the degraded GPU: block b goes up from each healthy GPU
 * in body b-1 (block 0 in the head, so the head keeps its q-th round) and comes back in
 * body b. Sections are a chunks and blocks d, d/a ~ (2-l)/l, so that a flow of the degraded
 * GPU lasts as long as two ring flows (a <= 8 searched).
 * Transfers: flows with the same ends and op in a round that sit side by side in chunk space
 * go as one transfer (count > 1). The chunk layout per body is block b, then its q sections,
 * so the block rides in the transfer of body b-1's last upload and of body b's first
 * download (2 of its 2q flows). A ring edge's S1 (reduce) and S4 (copy) flows stay two
 * transfers: the IR has one op per transfer, and they are different sections anyway.
 * Time (units of n, sched_cost; N = kq sections): l >= 2: equal sections l (N+1)/N +
 * 2(q-1)/N, at most s4.3 eq. 1's l (k+1)/k (equal at l = 2); half-size end bodies (k >= 3)
 * (lqk - (l-1)(q-1)) / (q(k-1)), exact for l >= 3 and n <= 4 (n = 4, l = 2: 2(3k-1)/(3(k-1)),
 * i.e. the head and tail cost 2/3 of a body instead of 1); l < 2: 2(n-1)l/((n-2)l+2) (k+x)/k
 * with x = 1 + 1/(2(n-1)) where d/a is (2-l)/l exactly (App. C has x = l-1: its head and tail
 * hide under the degraded GPU's chain in continuous time, which rounds lasting their busiest
 * link do not; docs/papers.md (18)), within 2% at k = 64.
 * Rounds: kq + 2q - 1 (no blocks), kq + 2q (blocks), against kq + 2q + 1 before the head and
 * tail used frame 0.
 * Bytes: the degraded GPU sends and receives n once (l >= 2; plus the bubble blocks for
 * l < 2), a healthy GPU about (2q-1)/q n.
 *
 * m > 1 (App. D): degraded GPU i has its gap at node r-(i-1). GPU 1 runs S1 -> S2 -> S3 ->
 * S4 as above; GPUs i >= 2 run S3 -> S1 -> S4 -> S2 (patterns B/D): they add their own value
 * into the section's S1 end node a body before its S2 and take the global sum back from the
 * S3 target node after it, so each degraded GPU moves every section once each way. Only
 * q-m frames are free of gaps, so (m-1)/(q-1) of the sections do S1 in a bulk healthy-ring
 * phase before the pipeline and S4 in one after it: these are D.3's 2(m-1) extra healthy
 * flows per body. Time: within 5% above max(2(n-1)/(n-m), l1 + 2(m-1)/(n-m)) for n <= 64,
 * k = 64 (head, tail and the bulk phases' uneven split), below D.3's (k+4)/k times that.
 *
 * Limits: n >= 3 (n = 2 is n/a); optcc-multi needs q >= m gap edges and otherwise moves the
 * least degraded GPUs into the healthy ring (priced at their factor, not optimal). optcc
 * takes one degraded GPU (more are refused: optcc-multi's); none given: l = 1 on rank n-1. Every
 * transfer's weight is the larger factor of its two ends. Default k = 64 up to n ~ 360, then
 * less (n = 512: 32, n = 1024: 8) to keep under 2^24 transfers; beyond n ~ 2048 even k = 4
 * is over twice that, and without --segments the answer is n/a.
 * Pricing: on a switch, with the healthy GPUs alike, the model takes the sums from the
 * stages (optcc_sweep.c: every flow keeps its place relative to the gap) without the transfers;
 * elsewhere it builds the schedule and prices it as it streams. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ar.h"
#include "gen.h"
#include "model.h"
#include "optcc_plan.h"

#define OPTCC_DEFAULT_SEGMENTS 64
#define OPTCC_MAX_UNITS 8         /* largest section size, in chunks, tried for bubble filling */
#define OPTCC_MAX_XFERS (1 << 24) /* default k shrinks beyond this (n > ~360) */

/* Where the flows go: into the schedule (real ranks), or, with s NULL, only priced as
 * sched_cost would price them (per round the busiest rank's weighted bytes, one port), to
 * choose between the two section layouts before anything is emitted. */
struct optcc_out {
  struct ar_schedule *s;
  double *out, *in; /* cost: per internal rank, this round's weighted bytes */
  int *used, nused; /* cost: the ranks touched this round */
  int round;        /* cost: the round at hand */
  double nchunks, total;
};

/* Closes the round at hand of a cost-only output. */
static void out_close(struct optcc_out *o) {
  double worst = 0;
  for (int i = 0; i < o->nused; i++) {
    int r = o->used[i];
    worst = o->out[r] > worst ? o->out[r] : worst;
    worst = o->in[r] > worst ? o->in[r] : worst;
    o->out[r] = o->in[r] = 0;
  }
  if (o->nused) o->total += worst;
  o->nused = 0;
}

/* Adds a transfer between internal ranks, weighted by the slower end; returns the status.
 * Flows come in round order (emit_rounds). */
static ar_status add(struct optcc_out *o, const struct optcc_plan *pl, int round, int op, int src,
                     int dst, int chunk, int count) {
  double w = pl->f[src] > pl->f[dst] ? pl->f[src] : pl->f[dst];
  if (o->s) return sched_add_w(o->s, round, op, pl->real[src], pl->real[dst], chunk, count, (float)w);
  if (round != o->round) {
    out_close(o);
    o->round = round;
  }
  double bytes = (double)(float)w * count / o->nchunks;
  if (o->out[src] == 0 && o->in[src] == 0) o->used[o->nused++] = src;
  o->out[src] += bytes;
  if (o->out[dst] == 0 && o->in[dst] == 0) o->used[o->nused++] = dst;
  o->in[dst] += bytes;
  return AR_OK;
}

/* Picks the section size a and bubble block d (in chunks) for one degraded GPU with l < 2:
 * the pair with the least steady-state time per element, q max(l(a+d), 2a) / (qa + d). */
static void pick_units(struct optcc_plan *pl, double l) {
  pl->a = 1;
  pl->d = 0;
  if (pl->m != 1 || l >= 2) return;
  double best = 1e30;
  for (int a = 1; a <= OPTCC_MAX_UNITS; a++) {
    int lo = (int)(a * (2 - l) / l);
    for (int d = lo; d <= lo + 1; d++) {
      double slot = l * (a + d) > 2.0 * a ? l * (a + d) : 2.0 * a;
      double t = pl->q * slot / (pl->q * a + d);
      if (t < best - 1e-12) {
        best = t;
        pl->a = a;
        pl->d = d;
      }
    }
  }
}

/* Fills the plan: which real ranks are degraded (demoting the least degraded until the
 * healthy ring has q >= m GPUs); returns AR_OK or the reason it cannot. */
static ar_status make_plan(struct ar_schedule *s, struct optcc_plan *pl, int n, int m,
                           const int *deg, const double *fac) {
  double fr[AR_MAX_RANKS];
  int is_deg[AR_MAX_RANKS] = {0}, order[AR_MAX_DEGRADED];
  if (m < 0 || m > AR_MAX_DEGRADED)
    return sched_fail(s, AR_ERR_INVALID, "%d degraded GPUs (at most %d)", m, AR_MAX_DEGRADED);
  for (int r = 0; r < n; r++)
    fr[r] = 1.0;
  for (int i = 0; i < m; i++) {
    if (deg[i] < 0 || deg[i] >= n)
      return sched_fail(s, AR_ERR_INVALID, "degraded rank %d not in 0..%d", deg[i], n - 1);
    if (fac[i] < 1.0) return sched_fail(s, AR_ERR_INVALID, "degradation factor %g < 1", fac[i]);
    if (is_deg[deg[i]])
      return sched_fail(s, AR_ERR_INVALID, "degraded rank %d given twice", deg[i]);
    is_deg[deg[i]] = 1;
    fr[deg[i]] = fac[i];
    order[i] = deg[i];
  }
  /* every degraded GPU needs its own gap edge in the healthy ring: q >= m (and q >= 2) */
  while (m > 1 && n - m < m) {
    int low = 0;
    for (int i = 1; i < m; i++)
      if (fr[order[i]] < fr[order[low]]) low = i;
    is_deg[order[low]] = 0;
    memmove(&order[low], &order[low + 1], sizeof(int) * (m - low - 1));
    m--;
  }
  if (m == 0) { /* nothing degraded: build for l = 1 on the last rank */
    m = 1;
    order[0] = n - 1;
    is_deg[n - 1] = 1;
  }
  memset(pl, 0, sizeof(*pl));
  pl->m = m;
  pl->q = n - m;
  int h = 0;
  for (int r = 0; r < n; r++)
    if (!is_deg[r]) pl->real[h++] = r;
  for (int i = 0; i < m; i++)
    pl->real[pl->q + i] = order[i];
  for (int r = 0; r < n; r++)
    pl->f[r] = fr[pl->real[r]];
  pick_units(pl, pl->f[pl->q]);
  /* m > 1: the bulk S1 phase (rounds 0..q-2) runs before any degraded GPU starts */
  pl->u0 = m > 1 ? 2 * pl->q - 1 : pl->q;
  if (m == 1) { /* the idle gap edge shortens the head where no bubble block needs it */
    pl->head0 = pl->d == 0;
    pl->u0 -= pl->head0;
  }
  return AR_OK;
}

/* Adds section sig's flows of round r: its S1 hop (q-1 hops from node u0+sig+1, ending at node
 * u0+sig), S2/S3, and its S4 hop (from node u0+sig+2), in that order. S2/S3: degraded GPU 1
 * (gap at node r in round r) takes the healthy partial sum from node u in round u and sends
 * the global sum to node u+2 in round u+1 (pattern S1 -> S2 -> S3 -> S4). GPU i >= 2 (gap at
 * node r-(i-1)) works the other way round (S3 -> S1 -> S4 -> S2): it adds its own value into
 * node u a body before round u and takes the global sum back from node u+2 in round u+1+i. */
static ar_status add_section(struct optcc_out *o, const struct optcc_plan *pl, int sig,
                             const struct optcc_sec *x, int r) {
  int q = pl->q, u = pl->u0 + sig, c = x->chunk, a = x->size, um = x->um; /* nodes: from um */
  if (r >= x->s1 && r <= x->s1 + q - 2) {
    int t = r - x->s1;
    AR_CHECK(add(o, pl, r, AR_REDUCE, wrap(um + 1 + t, q), wrap(um + 2 + t, q), c, a));
  }
  /* bubble blocks that share the flow and lie next to the section travel in the same
   * transfer (add_bubbles leaves them out): block b+1 after body b's last section goes up
   * with it, block b before body b's first section comes down with it */
  if (r == u) AR_CHECK(add(o, pl, u, AR_REDUCE, um, q, c,
                           a + (block_joins_up(pl, sig) ? pl->d : 0)));
  if (r == u + 1) {
    int down = block_joins_down(pl, sig) ? pl->d : 0;
    AR_CHECK(add(o, pl, u + 1, AR_COPY, q, wrap(um + 2, q), c - down, a + down));
  }
  for (int i = 2; i <= pl->m; i++) {
    if (r == u + i - 2 - q) AR_CHECK(add(o, pl, r, AR_REDUCE, q + i - 1, um, c, a));
    if (r == u + 1 + i) AR_CHECK(add(o, pl, r, AR_COPY, wrap(um + 2, q), q + i - 1, c, a));
  }
  if (r >= x->s4 && r <= x->s4 + q - 2) {
    int t = r - x->s4;
    AR_CHECK(add(o, pl, r, AR_COPY, wrap(um + 2 + t, q), wrap(um + 3 + t, q), c, a));
  }
  return AR_OK;
}

/* Adds the bubble-filling AllReduce's flows of round r (App. C): block b is uploaded by every
 * healthy GPU in the gap rounds of body b-1 (reduced on the degraded GPU) and sent back in
 * body b, except the two flows that add_section merged into a section's transfer. Block
 * b's j-th download is index b q + j = r - u0 - 1, its upload r - u0 + q: the download goes
 * first (the order of the blocks). */
static ar_status add_bubbles(struct optcc_out *o, const struct optcc_plan *pl, int r) {
  int q = pl->q, g = q, kq = pl->k * q, dn = r - pl->u0 - 1, up = r - pl->u0 + q;
  if (pl->d <= 0) return AR_OK;
  if (dn >= 0 && dn < kq && !block_joins_down(pl, dn))
    AR_CHECK(add(o, pl, r, AR_COPY, g, wrap(r + 1, q), block_chunk(pl, dn / q), pl->d));
  if (up >= 0 && up < kq && !(up >= q && block_joins_up(pl, up - q)))
    AR_CHECK(add(o, pl, r, AR_REDUCE, wrap(r, q), g, block_chunk(pl, up / q), pl->d));
  return AR_OK;
}

/* Adds every flow of the plan to o round by round (so the model prices them as they come,
 * nothing stored), each round's in the order of the sections, then the bubbles: the order a
 * stable sort by round gives the flows added section by section. The sections active in a
 * round (a few q of them) are swept in order of their first round. */
static ar_status emit_rounds(struct optcc_out *o, const struct optcc_plan *pl) {
  int q = pl->q, k = pl->k, kq = k * q;
  /* the bulk S4 phase starts once the degraded GPUs are done (GPU m's last round) */
  int post = pl->u0 + k * q + (pl->m > 1 ? pl->m : 0) + 1;
  struct optcc_sec *x = malloc(sizeof(*x) * kq);
  int *by_lo = malloc(sizeof(int) * kq), *act = malloc(sizeof(int) * kq), nact = 0;
  ar_status st = x && by_lo && act ? AR_OK : AR_ERR_NOMEM;
  int first = 0, last = 0;
  for (int sig = 0; sig < kq && st == AR_OK; sig++) {
    sec_rounds(pl, sig, post, &x[sig]);
    first = sig == 0 || x[sig].lo < first ? x[sig].lo : first;
    last = sig == 0 || x[sig].hi > last ? x[sig].hi : last;
    by_lo[sig] = sig;
  }
  if (st == AR_OK) { /* first rounds ascending, sections ascending among equals */
    for (int i = 1; i < kq; i++) /* nearly sorted already: insertion */
      for (int j = i; j > 0 && x[by_lo[j - 1]].lo > x[by_lo[j]].lo; j--) {
        int t = by_lo[j];
        by_lo[j] = by_lo[j - 1];
        by_lo[j - 1] = t;
      }
    first = first < pl->u0 - q ? first : pl->u0 - q; /* the bubbles' first upload */
  }
  for (int r = first, next = 0; r <= last + 1 && st == AR_OK; r++) {
    for (; next < kq && x[by_lo[next]].lo == r; next++) { /* join, in section order */
      int sig = by_lo[next], at = nact++;
      for (; at > 0 && act[at - 1] > sig; at--)
        act[at] = act[at - 1];
      act[at] = sig;
    }
    int keep = 0;
    for (int i = 0; i < nact && st == AR_OK; i++)
      if (x[act[i]].hi >= r) { /* the finished drop out */
        act[keep++] = act[i];
        st = add_section(o, pl, act[i], &x[act[i]], r);
      }
    nact = keep;
    if (st == AR_OK) st = add_bubbles(o, pl, r);
  }
  free(x);
  free(by_lo);
  free(act);
  return st;
}

/* Returns sched_cost of the plan's schedule without building it, flow by flow (-1: no
 * memory): plan_weight's way where the healthy GPUs differ. */
static double plan_cost(const struct optcc_plan *pl, int n) {
  struct optcc_out o = {.round = -1, .nchunks = (double)plan_chunks(pl)};
  o.out = calloc((size_t)n, sizeof(double));
  o.in = calloc((size_t)n, sizeof(double));
  o.used = malloc(sizeof(int) * 2 * (size_t)n);
  double cost = -1;
  if (o.out && o.in && o.used && emit_rounds(&o, pl) == AR_OK) {
    out_close(&o);
    cost = o.total;
  }
  free(o.out);
  free(o.in);
  free(o.used);
  return cost;
}

/* Returns 1 when every healthy GPU of the plan has the same factor (the sweep's frames stand
 * for them all). */
static int healthy_alike(const struct optcc_plan *pl) {
  for (int r = 1; r < pl->q; r++)
    if (pl->f[r] != pl->f[0]) return 0;
  return 1;
}

/* Returns sched_cost of the plan's schedule: swept where the healthy GPUs weigh alike (and
 * the sweep is not too large), else flow by flow (plan_cost); -1: no memory. */
static double plan_weight(const struct optcc_plan *pl, int n) {
  if (!healthy_alike(pl)) return plan_cost(pl, n);
  double w[1 + AR_MAX_DEGRADED];
  struct optcc_sums sums = {0};
  w[0] = (double)(float)pl->f[0];
  for (int i = 0; i < pl->m; i++) /* a flow's weight: the slower end's factor */
    w[1 + i] = (double)(float)(pl->f[pl->q + i] > pl->f[0] ? pl->f[pl->q + i] : pl->f[0]);
  return optcc_plan_sweep(pl, w, 0, &sums) ? plan_cost(pl, n) : sums.load;
}

/* Where build_pipeline's plan goes: NULL, into the schedule; else priced on net into out
 * (done 1), or left for the model to build (done 0). */
struct optcc_price {
  const struct model_net *net;
  struct model_price *out;
  int done;
};

/* Builds the whole pipeline for m >= 1 degraded GPUs; returns the status. With one degraded
 * GPU, l >= 2 and k >= 3 it builds the pipeline with half-size end bodies (their S1 and S4
 * fill the head and tail rounds, which then cost half) and keeps it if it prices below equal
 * sections' l (N+1)/N + 2(q-1)/N (exact, tests/test_optcc.c), else builds that one: where the
 * ring is the bottleneck as well (l near 2, k small, q large) the half sections leave the
 * first and last bodies' rounds unbalanced. The choice is priced first without building
 * (plan_weight: from the stages, no transfers), then the flows go out once, in round order.
 * With pz the plan is priced instead (optcc_price_switch), or handed back to the model to build
 * and stream where the sweep does not apply (n = 1024, k = 8: 2^24 transfers). */
static ar_status build_pipeline(struct ar_schedule *s, const char *name, int n, int m,
                                const int *deg, const double *fac, int segments,
                                struct optcc_price *pz) {
  static const struct optcc_plan none;
  struct optcc_plan pl = none;
  /* one sched_init, once the layout is chosen: the model streams what is built here */
  if (n < 3) return sched_fail(s, AR_ERR_UNSUPPORTED, "%s needs at least 3 GPUs", name);
  AR_CHECK(gen_quadratic(s, name, n, 4.0 * n * 2 * n)); /* k = 4: k q (2q + 2m) */
  AR_CHECK(make_plan(s, &pl, n, m, deg, fac));
  /* default k: 64, fewer (a multiple of 4, the paper's choice) for large n, where every
   * segment costs ~2q^2 transfers, to stay under OPTCC_MAX_XFERS */
  int k = segments > 0 ? segments : OPTCC_DEFAULT_SEGMENTS;
  while (segments <= 0 && k > 4 && (double)k * pl.q * (2 * pl.q + 2 * pl.m) > OPTCC_MAX_XFERS)
    k -= 4;
  double xfers = (double)k * pl.q * (2 * pl.q + 2 * pl.m);
  if (segments <= 0 && xfers > 2.0 * OPTCC_MAX_XFERS) /* n > ~2048: gigabytes of transfers */
    return sched_fail(s, AR_ERR_UNSUPPORTED,
                      "%s at %d GPUs: even k = %d segments is %.2g transfers (budget %d); give "
                      "--segments K to build it anyway",
                      name, n, k, xfers, 2 * OPTCC_MAX_XFERS);
  pl.k = k;
  double l = pl.f[pl.q], nsec = (double)k * pl.q;
  pl.half = pl.m == 1 && pl.d == 0 && l >= 2 && k >= 3;
  if (pl.half) {
    double cost = plan_weight(&pl, n);
    if (cost < 0) return AR_ERR_NOMEM;
    if (!(cost < l * (nsec + 1) / nsec + 2.0 * (pl.q - 1) / nsec - 1e-12)) pl.half = 0;
  }
  long chunks = plan_chunks(&pl);
  if (chunks > 1 << 24) return sched_fail(s, AR_ERR_UNSUPPORTED, "too many chunks (%ld)", chunks);
  if (pz) {
    pz->done = optcc_price_switch(&pl, n, pz->net, pz->out);
    return AR_OK;
  }
  AR_CHECK(sched_init(s, name, n, (int)chunks));
  AR_CHECK(sched_reserve(s, (size_t)xfers + 4 * (size_t)n)); /* k q (2q + 2m), and the ends */
  struct optcc_out o = {.s = s};
  AR_CHECK(emit_rounds(&o, &pl));
  s->segments = k;
  return AR_OK;
}

/* The ring form for every degraded GPU (App. D; m = 0 or 1 as build_pipeline takes them). */
static ar_status build_ring_all(const struct ar_params *p, struct ar_schedule *s,
                                const char *name, struct optcc_price *pz) {
  return build_pipeline(s, name, p->nranks, p->ndegraded, p->degraded, p->factor, p->segments,
                        pz);
}

/* optcc in the ring form: one degraded GPU, degraded[0] (l = 1 on rank n-1 when none). More
 * are refused: as members of the healthy ring they would set its pace (4.0 n against
 * optcc-multi's 2.12 n at p = 64, l = 2 and 2), which is App. D's schedule, not this one. */
static ar_status build_ring_one(const struct ar_params *p, struct ar_schedule *s,
                                const char *name, struct optcc_price *pz) {
  int deg = p->nranks - 1;
  double fac = 1.0;
  if (p->ndegraded > 1) {
    AR_CHECK(sched_init(s, name, p->nranks, 1));
    return sched_fail(s, AR_ERR_UNSUPPORTED, "%s takes one degraded GPU (%d given): optcc-multi "
                      "builds OPTCC for several (optcc.txt App. D)", name, p->ndegraded);
  }
  if (p->ndegraded > 0) {
    deg = p->degraded[0];
    fac = p->factor[0];
  }
  return build_pipeline(s, name, p->nranks, 1, &deg, &fac, p->segments, pz);
}

/* optcc: the ring form on the papers' networks; on a switch (GPUs of one node, where every
 * peer is one hop away and flows share a link) the switch form of optcc_switch.c, which moves
 * the same bytes per GPU with the degraded GPUs' flows one hop instead of inside the ring. */
static ar_status optcc_form(const struct ar_params *p, struct ar_schedule *s,
                            struct optcc_price *pz) {
  if (p->fabric == AR_FABRIC_SWITCH) return pz ? AR_OK : optcc_switch_build(p, s, "optcc");
  return build_ring_one(p, s, "optcc", pz);
}

/* The ar_algo build and price entries of a form (pz NULL: build). */
static int price_form(ar_status (*form)(const struct ar_params *, struct ar_schedule *,
                                        struct optcc_price *),
                      const struct ar_params *p, const struct model_net *net,
                      struct model_price *out) {
  struct ar_schedule s;
  struct optcc_price pz = {.net = net, .out = out};
  memset(&s, 0, sizeof(s));
  if (p->straggler >= p->nranks) return 0; /* the build says why */
  return form(p, &s, &pz) == AR_OK && pz.done;
}

static ar_status build_optcc(const struct ar_params *p, struct ar_schedule *s) {
  return optcc_form(p, s, NULL);
}

static int price_optcc(const struct ar_params *p, const struct model_net *net,
                       struct model_price *out) {
  return price_form(optcc_form, p, net, out);
}

/* Synchronisation per schedule round that the choice of k weighs against the bandwidth term,
 * us: flag writes, waits and copy launches on the ce flow program. Fitted to the switch form's
 * (optcc-switch, and optcc on GPUs; S1/S4 then in one hop) and the ring form's (optcc-ring)
 * best k on 4 x H200, GPU 3 1.5-4x slower, 256 MiB-4 GiB
 * (runs/reference/h200x4-degraded-flow/segments.csv): 1 GiB at 2x gives the switch form
 * k = 16 (6397 us there, 6230-6245 in that call's other rows; k = 12 6438, 20 6750) and the
 * ring k = 8 (7051; 12: 7353). With the healthy stages on a ring (session 10) the k it picks
 * stays within 0.7% of the best (runs/reference/h200x4-optcc/segments_s10_call3.csv). */
#define OPTCC_ROUND_US 30.0
/* The bandwidth assumed when none was measured (healthy runs), bytes/s. */
#define OPTCC_NOMINAL_BW 400e9

int ar_optcc_segments(int n, int m, const double *f, int switch_form, double bytes, double bw) {
  struct model_hw hw = {.beta = 1e6 / (bw > 0 ? bw : OPTCC_NOMINAL_BW)};
  double t = m ? model_degraded_bound_us(n, m, f, &hw, bytes) : 2.0 * (n - 1) / n * bytes * hw.beta;
  int q = n - (m ? m : 1);
  if (!(t > 0) || q < 1) return 16;
  /* synchronisation per segment: one round in the switch form (optcc-switch: k + 2q - 3
   * rounds, the degraded GPUs' flows one hop), q in the ring form (the model's (k + 2) q);
   * d/dk of T (k + 1.5) / k + k x per is zero at k = sqrt(1.5 T / per) */
  double per = switch_form ? OPTCC_ROUND_US : q * OPTCC_ROUND_US;
  double k = sqrt(1.5 * t / per);
  int k4 = 4 * (int)lround(k / 4);
  return k4 < 4 ? 4 : k4 > 64 ? 64 : k4;
}

const struct ar_algo ar_algo_optcc = {
    .name = "optcc",
    .segments = ar_optcc_segments,
    .traits = AR_TRAIT_SEND_ORDER, /* the switch form, which GPUs run */
    .ranks = "3..~2048 (k >= 4), one degraded GPU",
    .desc = "OPTCC: four patterns pipelined over k segments (run on GPUs: the switch form)",
    .paper = "optcc.txt s4, App. C",
    .family = "optcc",
    .build = build_optcc,
    .price = price_optcc,
    .flags = AR_ALGO_DEGRADE_AWARE,
};

/* optcc-multi: all of degraded[0..ndegraded); on a switch the switch form, as optcc. */
static ar_status optcc_multi_form(const struct ar_params *p, struct ar_schedule *s,
                                  struct optcc_price *pz) {
  if (p->fabric == AR_FABRIC_SWITCH) return pz ? AR_OK : optcc_switch_build(p, s, "optcc-multi");
  return build_ring_all(p, s, "optcc-multi", pz);
}

static ar_status build_optcc_multi(const struct ar_params *p, struct ar_schedule *s) {
  return optcc_multi_form(p, s, NULL);
}

static int price_optcc_multi(const struct ar_params *p, const struct model_net *net,
                             struct model_price *out) {
  return price_form(optcc_multi_form, p, net, out);
}

const struct ar_algo ar_algo_optcc_multi = {
    .name = "optcc-multi",
    .segments = ar_optcc_segments,
    .traits = AR_TRAIT_SEND_ORDER, /* the switch form, which GPUs run */
    .ranks = "3..~2048 (k >= 4), m degraded GPUs",
    .desc = "OPTCC for m > 1 degraded GPUs (run on GPUs: the switch form)",
    .paper = "optcc.txt App. D",
    .family = "optcc",
    .build = build_optcc_multi,
    .price = price_optcc_multi,
    .flags = AR_ALGO_DEGRADE_AWARE,
};

/* optcc-ring: the ring form on any fabric (optcc for one degraded GPU, optcc-multi for more),
 * to run the papers' schedule on GPUs too. */
static ar_status optcc_ring_form(const struct ar_params *p, struct ar_schedule *s,
                                 struct optcc_price *pz) {
  if (p->ndegraded > 1) return build_ring_all(p, s, "optcc-ring", pz);
  return build_ring_one(p, s, "optcc-ring", pz);
}

static ar_status build_optcc_ring(const struct ar_params *p, struct ar_schedule *s) {
  return optcc_ring_form(p, s, NULL);
}

static int price_optcc_ring(const struct ar_params *p, const struct model_net *net,
                            struct model_price *out) {
  return price_form(optcc_ring_form, p, net, out);
}

const struct ar_algo ar_algo_optcc_ring = {
    .name = "optcc-ring",
    .segments = ar_optcc_segments,
    .ranks = "3..~2048 (k >= 4), degraded GPUs",
    .desc = "OPTCC's ring form, also on GPUs (optcc or optcc-multi as the papers build them)",
    .paper = "optcc.txt s4, App. C, D",
    .family = "optcc",
    .build = build_optcc_ring,
    .price = price_optcc_ring,
    .flags = AR_ALGO_DEGRADE_AWARE,
};

/* r2ccl: the prior scheme OPTCC measures itself against in s2 (R²CCL's AllReduce, "up to 57%
 * increase ... when 50% of the bandwidth is lost"), which optcc.txt gives only as a closed
 * form, T0 (1 + p(l-1)/(2(p-1))) = T0 + (l-1) n (App. F, Fig. 20). Our reconstruction: its
 * multi-phase pipeline as OPTCC's four stages in two segments, the degraded GPU uploading one
 * half while it downloads the other: l n (k+1)/k = 3n at l = 2, and for l < 2 (with the
 * bubbles filled) 2(p-1)l/((p-2)l+2) n (1+l)/2, i.e. (1+l) n as p grows: the closed form to
 * O(1/p). Above l = 2 it costs 1.5 l n against the closed form's (l+1) n (docs/papers.md).
 * Rounds, bytes and limits: optcc's with k = 2; n >= 3, one degraded GPU. */
static ar_status r2ccl_form(const struct ar_params *p, struct ar_schedule *s,
                            struct optcc_price *pz) {
  struct ar_params q = *p;
  double xfers = 2.0 * (p->nranks - 1) * (2.0 * p->nranks); /* k q (2q + 2m), k = 2, m = 1 */
  q.segments = 2;
  if (xfers > 2.0 * OPTCC_MAX_XFERS) /* as optcc's default k beyond ~2048 GPUs */
    return sched_fail(s, AR_ERR_UNSUPPORTED, "r2ccl at %d GPUs is %.2g transfers (budget %d)",
                      p->nranks, xfers, 2 * OPTCC_MAX_XFERS);
  return build_ring_one(&q, s, "r2ccl", pz);
}

static ar_status build_r2ccl(const struct ar_params *p, struct ar_schedule *s) {
  return r2ccl_form(p, s, NULL);
}

static int price_r2ccl(const struct ar_params *p, const struct model_net *net,
                       struct model_price *out) {
  return price_form(r2ccl_form, p, net, out);
}

const struct ar_algo ar_algo_r2ccl = {
    .name = "r2ccl",
    .segments = ar_optcc_segments,
    .ranks = "3..2896, one degraded GPU",
    .desc = "R2CCL's AllReduce as OPTCC prices it (reconstructed): the stages in 2 segments",
    .paper = "optcc.txt s2, App. F (Fig. 20's closed form)",
    .family = "optcc",
    .build = build_r2ccl,
    .price = price_r2ccl,
    .flags = AR_ALGO_DEGRADE_AWARE,
};
