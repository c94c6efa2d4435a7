/* rhd-elim: recursive halving/doubling on any n with 3-2 elimination (swing.txt s2.3.3,
 * "Non-power-of-two"; Rabenseifner and Traeff's technique) in place of rhd's fold-in.
 *
 * The reduce-scatter runs in levels. At a level every group has the same g ranks and the same
 * range of chunks, split into a lower and an upper half. Ranks pair up and swap halves (one
 * round, half the range each way), except in t triples (a, b, c), where c is eliminated while
 * the halving is done:
 *     round 1: c -> a the lower half, a -> c the upper half (both reduced);
 *     round 2: b -> a the lower half, c -> b the upper half (both reduced);
 * after which a owns the lower half summed over a, b, c and b the upper one. The a's and the
 * pairs' first ranks form the lower group of the next level, the b's and the pairs' second
 * ranks the upper group, each of (g - t)/2 ranks. A level eliminates what it can toward a power
 * of 2: t = g - 2^floor(log2 g) when 3t <= g, else the most triples that fit with g - t even.
 * The allgather mirrors the levels in reverse order (copies instead of sums).
 *
 * Cost: a level of range d moves d/2 a round, in one round, or two with triples; the
 * eliminated rank sends its whole range there, so each eliminating level costs d/2 more than
 * a plain halving. Eliminating everything at the first level (n <= 1.5 x 2^floor(log2 n)),
 * the bandwidth term is at most 3/2 of 2n (the paper's "3/2"); n = 12 is 2.75 n, against the
 * fold-in's 3.75 n. One port, 2 log2 p + 2 x (eliminating levels) rounds, 2^levels chunks.
 * Any n >= 2; a power of 2 is plain rhd. */
#include <stdlib.h>
#include <string.h>

#include "ar.h"

#define ELIM_MAX_LEVELS 17 /* 65536 ranks halve 16 times */

/* The shape of the levels: group size g[l] and triples t[l] per group, level l in [0, levels). */
struct elim_plan {
  int levels;
  int g[ELIM_MAX_LEVELS], t[ELIM_MAX_LEVELS];
};

/* Triples a group of g takes at one level: enough to leave a power of 2 in each half, else the
 * most that fit (3t <= g) with g - t even. */
static int elim_triples(int g) {
  int pw = 1 << ar_log2(g);
  if (g == pw) return 0;
  if (3 * (g - pw) <= g) return g - pw;
  int t = g / 3;
  if ((g - t) % 2) t--;
  return t;
}

static void elim_plan_make(int n, struct elim_plan *pl) {
  pl->levels = 0;
  for (int g = n; g > 1; g = (g - pl->t[pl->levels - 1]) / 2) {
    pl->g[pl->levels] = g;
    pl->t[pl->levels] = elim_triples(g);
    pl->levels++;
  }
}

/* Adds level l's transfers of one phase: the reduce-scatter's (sums, from round base) or the
 * allgather's (copies). act lists the level's ranks, group j at [j g, (j + 1) g), whose chunk
 * range is [j len, (j + 1) len). */
static ar_status elim_level(struct ar_schedule *s, const struct elim_plan *pl, int l,
                            const int *act, int nchunks, int base, int gather) {
  int g = pl->g[l], t = pl->t[l], groups = 1 << l, len = nchunks >> l, h = len / 2;
  for (int step = 0; step < (t ? 2 : 1); step++)
    for (int j = 0; j < groups; j++) {
      const int *m = act + (size_t)j * g;
      int lo = j * len, hi = lo + h;
      for (int i = 0; i < t; i++) {
        int a = m[3 * i], b = m[3 * i + 1], c = m[3 * i + 2];
        if (!gather && step == 0) {
          AR_CHECK(sched_add(s, base, AR_REDUCE, c, a, lo, h));
          AR_CHECK(sched_add(s, base, AR_REDUCE, a, c, hi, h));
        } else if (!gather) {
          AR_CHECK(sched_add(s, base + 1, AR_REDUCE, b, a, lo, h));
          AR_CHECK(sched_add(s, base + 1, AR_REDUCE, c, b, hi, h));
        } else if (step == 0) { /* a, b own their halves: b's half on to c, a's to b */
          AR_CHECK(sched_add(s, base, AR_COPY, a, b, lo, h));
          AR_CHECK(sched_add(s, base, AR_COPY, b, c, hi, h));
        } else { /* then a's half to c, and c hands b's on to a */
          AR_CHECK(sched_add(s, base + 1, AR_COPY, a, c, lo, h));
          AR_CHECK(sched_add(s, base + 1, AR_COPY, c, a, hi, h));
        }
      }
      if (step) continue;
      for (int i = 3 * t; i + 1 < g; i += 2) { /* pairs: the first keeps the lower half */
        int x = m[i], y = m[i + 1];
        AR_CHECK(sched_add(s, base, gather ? AR_COPY : AR_REDUCE, x, y, gather ? lo : hi, h));
        AR_CHECK(sched_add(s, base, gather ? AR_COPY : AR_REDUCE, y, x, gather ? hi : lo, h));
      }
    }
  return AR_OK;
}

/* Fills act[l + 1] from act[l]: each group's lower half (the a's, the pairs' first ranks)
 * becomes group 2j, its upper half (the b's, the pairs' second ranks) group 2j + 1. */
static void elim_next(const struct elim_plan *pl, int l, const int *act, int *next) {
  int g = pl->g[l], t = pl->t[l], g2 = (g - t) / 2;
  for (int j = 0; j < 1 << l; j++) {
    const int *m = act + (size_t)j * g;
    int *lo = next + (size_t)(2 * j) * g2, *up = next + (size_t)(2 * j + 1) * g2, k = 0;
    for (int i = 0; i < t; i++, k++) {
      lo[k] = m[3 * i];
      up[k] = m[3 * i + 1];
    }
    for (int i = 3 * t; i + 1 < g; i += 2, k++) {
      lo[k] = m[i];
      up[k] = m[i + 1];
    }
  }
}

static ar_status build_rhd_elim(const struct ar_params *p, struct ar_schedule *s) {
  int n = p->nranks;
  struct elim_plan pl;
  elim_plan_make(n, &pl);
  int nchunks = 1 << pl.levels, rounds[ELIM_MAX_LEVELS], total = 0;
  AR_CHECK(sched_init(s, "rhd-elim", n, nchunks));
  int *act[ELIM_MAX_LEVELS] = {0};
  ar_status st = AR_OK;
  for (int l = 0; l < pl.levels && st == AR_OK; l++) {
    rounds[l] = pl.t[l] ? 2 : 1;
    total += rounds[l];
    act[l] = malloc(sizeof(int) * ((size_t)pl.g[l] << l));
    if (!act[l]) st = AR_ERR_NOMEM;
  }
  if (st == AR_OK) {
    for (int r = 0; r < n; r++)
      act[0][r] = r;
    for (int l = 0; l + 1 < pl.levels; l++)
      elim_next(&pl, l, act[l], act[l + 1]);
  }
  /* the reduce-scatter's levels in order, then the allgather's in reverse: rounds in order,
   * so the model prices it as it streams */
  for (int l = 0, base = 0; l < pl.levels && st == AR_OK; base += rounds[l], l++)
    st = elim_level(s, &pl, l, act[l], nchunks, base, 0);
  for (int l = pl.levels - 1, base = total; l >= 0 && st == AR_OK; base += rounds[l], l--)
    st = elim_level(s, &pl, l, act[l], nchunks, base, 1);
  for (int l = 0; l < pl.levels; l++)
    free(act[l]);
  return st;
}

const struct ar_algo ar_algo_rhd_elim = {
    .name = "rhd-elim",
    .ranks = "2..65536",
    .desc = "recursive halving/doubling, non-powers of 2 by 3-2 elimination (<= 3/2 of 2n)",
    .paper = "swing.txt s2.3.3 (Rabenseifner and Traeff's 3-2 elimination)",
    .family = "classic",
    .build = build_rhd_elim,
    .flags = 0,
};
