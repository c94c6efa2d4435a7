/* OPTCC's ring form summed without its transfers (algorithms/optcc_plan.h): the half-size
 * layout's weight and the model's price on a switch. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "optcc_plan.h"

/* A healthy GPU's frame in round r is its place behind the gap of degraded GPU 1: node v is at
 * frame wrap(v - r). Every flow of the pipeline keeps its frames for all the rounds it runs
 * (an S1 or S4 hop moves one node a round, as the gap does; the degraded GPUs stay put), so a
 * section is a few stages, each one transfer at fixed frames over a run of rounds, and a round
 * is the stages running in it. Consecutive rounds load the frames alike except where a stage
 * ends without a like one taking its place (the head, the tail, a change of section size, a
 * bubble block merged into a section's transfer): only there is a round's busiest rank sought
 * again, so the sums take O(kq) stages and O(q) rescans of q ranks instead of the 2 k q^2
 * transfers. Where the healthy GPUs weigh alike (one slowdown for all of them), frames price
 * as the ranks they stand for. */

/* One stage: a transfer at the same frames (healthy GPUs; degraded GPU i is q + i) in rounds
 * [first, last]. */
struct optcc_stage {
  int first, last, op, src, dst, count;
};

/* Fills st with section sig's stages as optcc.c's add_section emits them; returns how many. */
static int sec_stages(const struct optcc_plan *pl, int sig, const struct optcc_sec *x,
                      struct optcc_stage *st) {
  int q = pl->q, u = pl->u0 + sig, a = x->size, ns = 0;
  int up = a + (block_joins_up(pl, sig) ? pl->d : 0), down = block_joins_down(pl, sig) ? pl->d : 0;
  st[ns++] = (struct optcc_stage){
      x->s1, x->s1 + q - 2, AR_REDUCE, wrap(u + 1 - x->s1, q), wrap(u + 2 - x->s1, q), a};
  st[ns++] = (struct optcc_stage){u, u, AR_REDUCE, 0, q, up};
  st[ns++] = (struct optcc_stage){u + 1, u + 1, AR_COPY, q, 1, a + down};
  for (int i = 2; i <= pl->m; i++) {
    int r = u + i - 2 - q;
    st[ns++] = (struct optcc_stage){r, r, AR_REDUCE, q + i - 1, wrap(2 - i, q), a};
    st[ns++] = (struct optcc_stage){u + 1 + i, u + 1 + i, AR_COPY, wrap(1 - i, q), q + i - 1, a};
  }
  st[ns++] = (struct optcc_stage){
      x->s4, x->s4 + q - 2, AR_COPY, wrap(u + 2 - x->s4, q), wrap(u + 3 - x->s4, q), a};
  return ns;
}

/* A stage starting (count > 0) or ending (count < 0, the round after its last). */
struct optcc_event {
  int round, op, src, dst, count;
};

/* Appends a stage's two events. */
static void add_stage(struct optcc_event *ev, size_t *nev, const struct optcc_stage *st) {
  ev[(*nev)++] = (struct optcc_event){st->first, st->op, st->src, st->dst, st->count};
  ev[(*nev)++] = (struct optcc_event){st->last + 1, st->op, st->src, st->dst, -st->count};
}

/* The most stage events a sweep keeps (24 bytes each with their order: about 100 MB); more
 * (a few GPUs cut into millions of segments) are priced flow by flow. */
#define OPTCC_SWEEP_MAX_EVENTS (1 << 22)

int optcc_plan_sweep(const struct optcc_plan *pl, const double *w, int by_port,
                     struct optcc_sums *sums) {
  int q = pl->q, m = pl->m, kq = pl->k * q, P = q + m, C = 1 + m, W = 2 * C + 1;
  int post = pl->u0 + kq + (m > 1 ? m : 0) + 1;
  size_t cap = (size_t)kq * 2 * (4 + 2 * (m - 1)) + 4 * ((size_t)kq + q + 1), nev = 0;
  struct model_cost *ratios = sums->ratios;
  memset(sums, 0, sizeof(*sums));
  sums->ratios = ratios;
  if (cap > OPTCC_SWEEP_MAX_EVENTS) return 1;
  struct optcc_event *ev = malloc(sizeof(*ev) * cap);
  int *order = malloc(sizeof(int) * cap);
  long long *cnt = calloc((size_t)P * W, sizeof(*cnt)), *saved = malloc(sizeof(*cnt) * P * W);
  int *mark = calloc((size_t)P, sizeof(int)), *touched = malloc(sizeof(int) * P);
  size_t *start = NULL;
  int rc = -1;
  if (!ev || !order || !cnt || !saved || !mark || !touched) goto done;
  for (int sig = 0; sig < kq; sig++) {
    struct optcc_sec x;
    struct optcc_stage st[4 + 2 * AR_MAX_DEGRADED];
    sec_rounds(pl, sig, post, &x);
    int ns = sec_stages(pl, sig, &x, st);
    for (int i = 0; i < ns; i++)
      add_stage(ev, &nev, &st[i]);
  }
  for (int r = pl->u0 - q; pl->d > 0 && r <= pl->u0 + kq; r++) { /* as optcc.c's add_bubbles */
    int dn = r - pl->u0 - 1, up = r - pl->u0 + q;
    if (dn >= 0 && dn < kq && !block_joins_down(pl, dn))
      add_stage(ev, &nev, &(struct optcc_stage){r, r, AR_COPY, q, 1, pl->d});
    if (up >= 0 && up < kq && !(up >= q && block_joins_up(pl, up - q)))
      add_stage(ev, &nev, &(struct optcc_stage){r, r, AR_REDUCE, 0, q, pl->d});
  }
  int lo = INT_MAX, hi = INT_MIN;
  for (size_t i = 0; i < nev; i++) {
    lo = ev[i].round < lo ? ev[i].round : lo;
    hi = ev[i].round > hi ? ev[i].round : hi;
  }
  if (!(start = calloc((size_t)(hi - lo) + 2, sizeof(*start)))) goto done;
  for (size_t i = 0; i < nev; i++) /* counting sort by round */
    start[ev[i].round - lo + 1]++;
  for (int r = lo; r <= hi; r++)
    start[r - lo + 1] += start[r - lo];
  for (size_t i = 0; i < nev; i++)
    order[start[ev[i].round - lo]++] = (int)i;
  double inv = 1.0 / (double)plan_chunks(pl), load = 0, reduce = 0;
  long flows = 0;
  size_t e = 0;
  for (int r = lo, tick = 1; r <= hi; r++, tick++) {
    int nt = 0, changed = 0;
    for (; e < nev && ev[order[e]].round == r; e++) {
      const struct optcc_event *v = &ev[order[e]];
      int ends[2] = {v->src, v->dst};
      int c = v->src >= q ? v->src - q + 1 : v->dst >= q ? v->dst - q + 1 : 0; /* its class */
      for (int j = 0; j < 2; j++)
        if (mark[ends[j]] != tick) { /* keep its counts as the round before left them */
          mark[ends[j]] = tick;
          touched[nt++] = ends[j];
          memcpy(&saved[(size_t)ends[j] * W], &cnt[(size_t)ends[j] * W], sizeof(*cnt) * W);
        }
      cnt[(size_t)v->src * W + c] += v->count;     /* out, by class */
      cnt[(size_t)v->dst * W + C + c] += v->count; /* in */
      if (v->op == AR_REDUCE) cnt[(size_t)v->dst * W + 2 * C] += v->count;
      flows += v->count > 0 ? 1 : -1;
    }
    for (int i = 0; i < nt && !changed; i++)
      changed = memcmp(&saved[(size_t)touched[i] * W], &cnt[(size_t)touched[i] * W],
                       sizeof(*cnt) * W) != 0;
    if (changed) { /* the busiest rank again */
      load = reduce = 0;
      for (int p = 0; p < P; p++) {
        const long long *k = &cnt[(size_t)p * W];
        double o = 0, in = 0;
        if (by_port) {
          long long so = 0, si = 0;
          for (int c = 0; c < C; c++) {
            so += k[c];
            si += k[C + c];
          }
          o = so * inv * w[p];
          in = si * inv * w[p];
        } else {
          for (int c = 0; c < C; c++) {
            o += w[c] * k[c] * inv;
            in += w[c] * k[C + c] * inv;
          }
        }
        load = o > load ? o : load;
        load = in > load ? in : load;
        reduce = k[2 * C] * inv > reduce ? k[2 * C] * inv : reduce;
      }
    }
    if (flows > 0) {
      sums->rounds++;
      sums->load += load;
      sums->reduce += reduce;
      if (ratios) model_cost_ratio_add(ratios, load, reduce, 1);
    }
  }
  rc = 0;
done:
  free(ev);
  free(order);
  free(cnt);
  free(saved);
  free(mark);
  free(touched);
  free(start);
  return rc;
}

int optcc_price_switch(const struct optcc_plan *pl, int n, const struct model_net *net,
                       struct model_price *out) {
  double slow[AR_MAX_RANKS];
  struct optcc_sums sums = {.ratios = &out->main};
  if (net->topology != MODEL_SWITCH) return 0;
  for (int r = 0; r < n; r++) {
    slow[r] = 1;
    for (int i = 0; i < net->ndegraded; i++) /* as pricer_init: the last one given counts */
      if (net->degraded[i] == pl->real[r]) slow[r] = net->factor[i];
    if (r > 0 && r < pl->q && slow[r] != slow[0]) return 0;
  }
  memset(out, 0, sizeof(*out));
  if (optcc_plan_sweep(pl, slow, 1, &sums)) return 0;
  out->nranks = n;
  out->main.rounds = sums.rounds;
  out->main.hops = sums.rounds;
  out->main.load = out->main.load_ideal = sums.load;
  out->main.reduce = sums.reduce;
  return 1;
}
