/* OPTCC's ring-form pipeline as a plan (algorithms/optcc.c builds it): the sections' sizes,
 * chunks and rounds, shared by the generator, which emits the flows, and optcc_sweep.c, which
 * sums the rounds from the sections' stages without them. Internal to algorithms/. */
#ifndef AR_OPTCC_PLAN_H
#define AR_OPTCC_PLAN_H

#include "ar.h"
#include "model.h"

struct optcc_plan {
  int q, m;               /* healthy ring 0..q-1, degraded GPUs q..q+m-1 (internal) */
  int k;                  /* segments */
  int a, d;               /* chunks per section and per bubble-filling block */
  int u0;                 /* round of the first S2 upload */
  int head0;              /* m = 1: the first section reduce-scatters on frame 0 (no blocks) */
  int half;               /* m = 1, no blocks: the first and last q sections are a chunks,
                           * the others 2a */
  double f[AR_MAX_RANKS]; /* slowdown of each internal rank */
  int real[AR_MAX_RANKS]; /* internal rank -> real rank */
};

/* Returns x mod q in [0, q) (without a division for x in [0, 3q): 2^24 flows at 1024 GPUs). */
static inline int wrap(int x, int q) {
  if (x >= 0 && x < 3 * q) return x < q ? x : x < 2 * q ? x - q : x - 2 * q;
  x %= q;
  return x < 0 ? x + q : x;
}

/* Returns the chunks of section sig: a, or with half ends 2a except in the first and last
 * body. */
static inline int section_size(const struct optcc_plan *pl, int sig) {
  int q = pl->q, last = pl->k * q - 1;
  return pl->half && sig >= q && sig <= last - q ? 2 * pl->a : pl->a;
}

/* Returns the first chunk of section sig (the sig-th section to reach degraded GPU 1): body
 * b = sig / q holds bubble block b (d chunks), then its q sections (a chunks each); with
 * half ends, sections one after another at their sizes. */
static inline int section_chunk(const struct optcc_plan *pl, int sig) {
  int q = pl->q;
  if (pl->half) /* q of a, then 2a each, then the last q of a */
    return pl->a * (sig < q ? sig : sig < (pl->k - 1) * q ? 2 * sig - q : sig + (pl->k - 2) * q);
  return (sig / q) * (q * pl->a + pl->d) + pl->d + (sig % q) * pl->a;
}

/* Returns the first chunk of bubble block b, just before body b's first section. */
static inline int block_chunk(const struct optcc_plan *pl, int b) {
  return b * (pl->q * pl->a + pl->d);
}

/* Returns 1 if section sig's upload also carries the next bubble block: sig is the last
 * section of body b and block b+1 (uploaded in body b, next in chunk space) exists. */
static inline int block_joins_up(const struct optcc_plan *pl, int sig) {
  return pl->d > 0 && sig % pl->q == pl->q - 1 && sig / pl->q + 1 < pl->k;
}

/* Returns 1 if section sig's download also carries its body's bubble block (the first
 * section of body b, right after block b, is downloaded with it). */
static inline int block_joins_down(const struct optcc_plan *pl, int sig) {
  return pl->d > 0 && sig % pl->q == 0;
}

/* Returns the round of the first S1 hop of section sig. m = 1: frame 0 for the first section
 * when the head has the gap edge to spare, frames 1..q-1 in turn for the others, one hop a
 * round ending rho rounds before the upload. m > 1: at frame rho, or (rho == 0) in the bulk
 * phase at the start. Either way S1 ends at node u0+sig, the gap of degraded GPU 1 at its S2
 * round. */
static inline int s1_start(const struct optcc_plan *pl, int sig, int rho) {
  int q = pl->q, u = pl->u0 + sig;
  if (pl->m == 1) {
    int i = sig - pl->head0; /* sections after the one on frame 0 */
    rho = i < 0 ? 0 : i % (q - 1) + 1;
    return u - rho - q + 1;
  }
  return rho ? u - rho - q + 1 : 0;
}

/* Returns the round of the first S4 hop of section sig (downloaded to node u+2 in round
 * u+1). m = 1: the last section on frame 0 straight away; counting back from it, the others
 * wait 1..q-1 rounds in turn (frames q-1..1), so every frame's last allgather ends q-1
 * rounds after the last download. m > 1: at frame rho after waiting q-rho rounds, or
 * (rho == 0) in the bulk phase from round post. */
static inline int s4_start(const struct optcc_plan *pl, int sig, int rho, int post) {
  int q = pl->q, u = pl->u0 + sig, last = pl->k * q - 1;
  if (pl->m == 1) {
    return u + 2 + (sig == last ? 0 : (last - 1 - sig) % (q - 1) + 1);
  }
  return rho ? u + 2 + q - rho : post;
}

/* A section's S1 and S4 rounds (their first hops; q-1 hops each, one a round) and the span
 * of rounds its flows take. */
struct optcc_sec {
  int s1, s4, lo, hi;
  int chunk, size; /* its first chunk and chunks */
  int um;          /* its upload's node, (u0 + sig) mod q */
};

static inline void sec_rounds(const struct optcc_plan *pl, int sig, int post, struct optcc_sec *x) {
  int q = pl->q, lanes = q - pl->m, u = pl->u0 + sig; /* frames 1..q-m are free of gaps */
  /* frames cycle over the sections so each frame carries one S1 and one S4 flow a round */
  int j = sig % (q - 1), rho = j < lanes ? j + 1 : 0;
  x->s1 = s1_start(pl, sig, rho);
  x->s4 = s4_start(pl, sig, rho, post);
  x->lo = x->s1 < u - q ? x->s1 : u - q;
  int last = x->s4 + q - 2, chain = u + 1 + pl->m;
  x->hi = last > chain ? last : chain;
  x->chunk = section_chunk(pl, sig);
  x->size = section_size(pl, sig);
  x->um = wrap(u, q);
}

/* Returns the chunks the plan's schedule is cut into. */
static inline long plan_chunks(const struct optcc_plan *pl) {
  int q = pl->q, k = pl->k;
  return pl->half ? pl->a * (2L * k * q - 2L * q) : (long)k * (q * pl->a + pl->d);
}

/* The sums of a sweep: rounds with flows, and over them the busiest rank's load and the most
 * reduced at one rank (buffer fractions). */
struct optcc_sums {
  int rounds;
  double load, reduce;
  struct model_cost *ratios; /* where set, each round's load and reduce (model_cost_ratio_add) */
};

/* optcc_sweep.c: sums the plan's rounds as sched_cost (by_port 0: w[c] weighs a flow touching
 * degraded GPU c - 1, c = 0 one between healthy GPUs, every healthy GPU at the same factor)
 * or a switch (by_port 1: w[p] is the slowdown of internal rank p's ports, the healthy ones
 * alike) prices them, into *sums; returns 0, 1 when it has more events than it keeps, or -1
 * on no memory (sums->ratios kept). */
int optcc_plan_sweep(const struct optcc_plan *pl, const double *w, int by_port,
                     struct optcc_sums *sums);

/* optcc_sweep.c: prices the plan on a switch into out as model_price_schedule would its
 * schedule (one hop a round, the busiest port's load times its rank's slowdown); returns 1,
 * or 0 where the sweep does not apply (another topology, healthy GPUs of different
 * slowdowns, too many events) or on no memory. */
int optcc_price_switch(const struct optcc_plan *pl, int n, const struct model_net *net,
                       struct model_price *out);

#endif
