/* Swing (swing.txt) and the bucket baseline: the engine their generators (swing.c) share.
 *
 * All four generators share one engine. A *line* is the reduce-scatter among the d coordinates
 * of one torus dimension, kept as a table: coordinate a sends (its partial sum of) block
 * coordinate i at step f[a][i] to coordinate to[a][i]; -1 means never (a keeps i to the end).
 * A *collective* runs such lines over the torus, one dimension per step, in a given step
 * order, on its own share of the vector (p chunks, one per rank). At a step in dimension j a
 * rank sends the blocks whose j-coordinate its line sends at that step and whose other
 * coordinates it is still responsible for in their own lines; the allgather is the exact
 * transpose (same blocks, reversed direction, reversed step order, copies).
 * Correct when each line is: every non-owner sends each block exactly once, and the receiver
 * either owns it or sends it at a strictly later step (the verifier checks the whole result).
 *
 * Ranks sit on the torus with dimension 0 at stride 1 (rank = a0 + d0 * (a1 + d1 * ...)), the
 * layout src/model.c prices; on 4x4 node 0 then pairs with 1 and 3 in dimension 0 and with 4
 * and 12 in dimension 1, as in swing.txt Fig. 5. */
#include <stdlib.h>
#include <string.h>

#include "ar.h"
#include "gen.h"
#include "swing_engine.h"


/* Returns rho(s) = sum_{i<=s} (-2)^i = 1, -1, 3, -5, 11, ... (swing.txt Table 1, Eq. 2). */
static long sw_rho(int s) {
  long v = 0, t = 1;
  for (int i = 0; i <= s; i++, t *= -2)
    v += t;
  return v;
}

/* Returns a mod d in [0, d). */
static int sw_mod(long a, int d) {
  long m = a % d;
  return (int)(m < 0 ? m + d : m);
}

int sw_pi(int r, int s, int d) {
  return sw_mod(r % 2 == 0 ? r + sw_rho(s) : r - sw_rho(s), d);
}

/* Returns the smallest k with 2^k >= x. */
static int sw_ceil_log2(int x) {
  int k = 0;
  while ((1 << k) < x)
    k++;
  return k;
}

/* Frees a line's tables (safe on a zeroed or half-built line); returns nothing. */
static void sw_line_free(struct sw_line *ln) {
  free(ln->f);
  free(ln->to);
  ln->f = ln->to = NULL;
}

/* Allocates a d x d line with nothing sent; returns AR_ERR_NOMEM on failure. */
static ar_status sw_line_alloc(struct sw_line *ln, int d, int steps) {
  ln->d = d;
  ln->steps = steps;
  ln->f = malloc(sizeof(int) * d * d);
  ln->to = malloc(sizeof(int) * d * d);
  if (!ln->f || !ln->to) {
    sw_line_free(ln);
    return AR_ERR_NOMEM;
  }
  for (int k = 0; k < d * d; k++)
    ln->f[k] = ln->to[k] = -1;
  return AR_OK;
}

/* Marks block b as sent by r at step s to q. A later step overwrites an earlier one: a block
 * that would go out twice goes only in the last step (swing.txt s3.2, App. A.2). */
static void sw_line_set(struct sw_line *ln, int r, int b, int s, int q) {
  if (b == r) return;
  ln->f[r * ln->d + b] = s;
  ln->to[r * ln->d + b] = q;
}

/* Marks, as sent by r at step s to q, every node that q reaches from step t on (the blocks q
 * forwards later, swing.txt s3.1.1): the Swing tree below q on the even ring of size e. */
static void sw_line_reach(struct sw_line *ln, int e, int L, int r, int s, int q, int from, int t) {
  for (int u = t; u < L; u++) {
    int z = sw_pi(from, u, e);
    sw_line_set(ln, r, z, s, q);
    sw_line_reach(ln, e, L, r, s, q, z, u + 1);
  }
}

ar_status sw_line_swing(struct sw_line *ln, int d) {
  int e = d % 2 ? d - 1 : d, L = e > 1 ? sw_ceil_log2(e) : 0;
  AR_CHECK(sw_line_alloc(ln, d, L));
  for (int r = 0; r < e; r++)
    for (int s = 0; s < L; s++) {
      int q = sw_pi(r, s, e);
      sw_line_set(ln, r, q, s, q);
      sw_line_reach(ln, e, L, r, s, q, q, s + 1);
    }
  if (d % 2 && d > 1) {
    int last = d - 1, next = 0, rem = d - 1;
    for (int s = 0; s < L; s++) {
      int k = s == L - 1 ? rem : (rem + 1) / 2;
      for (int i = next; i < next + k; i++) {
        sw_line_set(ln, last, i, s, i);
        sw_line_set(ln, i, last, s, last);
      }
      next += k;
      rem -= k;
    }
  }
  return AR_OK;
}

ar_status sw_line_ring(struct sw_line *ln, int d) {
  AR_CHECK(sw_line_alloc(ln, d, d - 1));
  for (int a = 0; a < d; a++)
    for (int i = 0; i < d; i++)
      sw_line_set(ln, a, i, sw_mod(a - i - 1, d), (a + 1) % d);
  return AR_OK;
}

/* The mirror image of coordinate x: x -> -x, on the even sub-ring when fix_last (Swing with
 * odd d, whose extra coordinate stays put). Parity is kept, so Swing's signs flip. */
static int sw_mirror_of(int x, int d, int fix_last) {
  if (fix_last && d % 2) return x == d - 1 ? x : sw_mod(-x, d - 1);
  return sw_mod(-x, d);
}

ar_status sw_line_mirror(const struct sw_line *in, struct sw_line *out, int fix_last) {
  int d = in->d;
  AR_CHECK(sw_line_alloc(out, d, in->steps));
  for (int a = 0; a < d; a++)
    for (int i = 0; i < d; i++) {
      int ma = sw_mirror_of(a, d, fix_last), mi = sw_mirror_of(i, d, fix_last);
      out->f[ma * d + mi] = in->f[a * d + i];
      out->to[ma * d + mi] =
          in->to[a * d + i] < 0 ? -1 : sw_mirror_of(in->to[a * d + i], d, fix_last);
    }
  return AR_OK;
}

ar_status sw_torus_init(const struct ar_params *p, struct sw_torus *t,
                               struct ar_schedule *s) {
  memset(t, 0, sizeof(*t));
  t->n = p->nranks;
  t->ndims = ar_torus_shape(p, t->dims, s->reason, sizeof(s->reason));
  if (t->ndims < 0) return AR_ERR_INVALID;
  for (int k = 0; k < t->ndims; k++)
    if (t->dims[k] > AR_MAX_RANKS) /* a line's tables are d x d; a ring of d, d^2 transfers */
      return sched_fail(s, AR_ERR_UNSUPPORTED, "a torus side of %d (at most %d): its line "
                        "tables are side x side", t->dims[k], AR_MAX_RANKS);
  for (int k = 0, st = 1; k < t->ndims; st *= t->dims[k], k++)
    t->stride[k] = st;
  return AR_OK;
}

int sw_coord(const struct sw_torus *t, int r, int k) {
  return r / t->stride[k] % t->dims[k];
}

void sw_coll_free(struct sw_coll *c, int ndims) {
  for (int k = 0; k < ndims; k++)
    sw_line_free(&c->line[k]);
}


void sw_coll_order_steps(struct sw_coll *c, int ndims, int first, int mode) {
  int done[AR_MAX_TORUS_DIMS] = {0}, left = 0, longest = 0;
  for (int k = 0; k < ndims; k++) {
    left += c->line[k].steps;
    longest = c->line[k].steps > longest ? c->line[k].steps : longest;
  }
  c->nsteps = 0;
  for (int turn = 0; left > 0; turn++) {
    int j = (first + turn) % ndims, phase = 0;
    while (done[j] < c->line[j].steps && left > 0) {
      c->dim[c->nsteps] = j;
      c->sig[c->nsteps++] = done[j]++;
      left--;
      phase++;
      if (mode == SW_ROUND_ROBIN) break;
    }
    for (; mode == SW_SYNCED && phase < longest && turn < ndims; phase++)
      c->dim[c->nsteps++] = -1;
  }
}

/* Places the blocks in chunk order by walking the send tree from rank 0: what x still holds
 * after step g first, then, for each rank x sends to at step g, what that one holds after it.
 * Writes order[] at the leaves (one block per rank). On a power-of-2 torus every set a rank
 * sends is then one contiguous run (swing.txt s3.1.1, contiguous block remapping); elsewhere
 * most are. */
static void sw_dfs_order(const struct sw_torus *t, const struct sw_coll *c, int x, int g,
                         unsigned char *seen, int *order, int *next) {
  if (g == c->nsteps) {
    if (order[x] < 0) order[x] = (*next)++;
    return;
  }
  if (seen[(size_t)g * t->n + x]) return;
  seen[(size_t)g * t->n + x] = 1;
  sw_dfs_order(t, c, x, g + 1, seen, order, next);
  if (c->dim[g] < 0) return; /* an idle step */
  int j = c->dim[g], d = t->dims[j], xj = sw_coord(t, x, j);
  const struct sw_line *ln = &c->line[j];
  for (int i = 0; i < d; i++) {
    if (ln->f[xj * d + i] != c->sig[g]) continue;
    int b = ln->to[xj * d + i], dup = 0;
    for (int i2 = 0; i2 < i; i2++) /* each destination once */
      dup |= ln->f[xj * d + i2] == c->sig[g] && ln->to[xj * d + i2] == b;
    if (!dup) sw_dfs_order(t, c, x + (b - xj) * t->stride[j], g + 1, seen, order, next);
  }
}

/* Fills order[rank] = chunk offset of that rank's block by the send tree; returns status. */
static ar_status sw_order_tree(const struct sw_torus *t, const struct sw_coll *c, int *order) {
  unsigned char *seen = calloc((size_t)(c->nsteps + 1) * t->n, 1);
  if (!seen) return AR_ERR_NOMEM;
  int next = 0;
  for (int r = 0; r < t->n; r++)
    order[r] = -1;
  sw_dfs_order(t, c, 0, 0, seen, order, &next);
  for (int r = 0; r < t->n; r++) /* unreachable only if a line were wrong: keep a bijection */
    if (order[r] < 0) order[r] = next++;
  free(seen);
  return AR_OK;
}

/* Fills order[] mixed-radix with the first dimension processed most significant: each ring
 * step of the bucket algorithm then sends one contiguous run. */
static void sw_order_radix(const struct sw_torus *t, const struct sw_coll *c, int *order) {
  int seq[AR_MAX_TORUS_DIMS], nseq = 0;
  for (int g = 0; g < c->nsteps; g++)
    if (c->dim[g] >= 0 && (!nseq || seq[nseq - 1] != c->dim[g])) seq[nseq++] = c->dim[g];
  for (int k = 0; k < t->ndims; k++) { /* dimensions without steps (size 1) go last */
    int have = 0;
    for (int m = 0; m < nseq; m++)
      have |= seq[m] == k;
    if (!have) seq[nseq++] = k;
  }
  for (int r = 0; r < t->n; r++) {
    int v = 0;
    for (int m = 0; m < nseq; m++)
      v = v * t->dims[seq[m]] + sw_coord(t, r, seq[m]);
    order[r] = v;
  }
}

struct sw_pair {
  int dst, chunk;
};

/* Orders pairs by destination, then chunk. */
static int sw_pair_cmp(const void *a, const void *b) {
  const struct sw_pair *x = a, *y = b;
  if (x->dst != y->dst) return x->dst < y->dst ? -1 : 1;
  return (x->chunk > y->chunk) - (x->chunk < y->chunk);
}

/* Scratch of sw_emit_step: a rank's (destination, chunk) pairs, and for the step at hand each
 * dimension k's list of block coordinates that coordinate a sends (k = j) or still holds. */
struct sw_scratch {
  struct sw_pair *pr;
  int *list;         /* list[off[k] + a * d_k + m]: m-th coordinate of (k, a) */
  int *cnt;          /* cnt[coff[k] + a]: its length */
  int *lo, *hi;      /* lo[coff[k] + a], hi[...]: the least and most place[] over that list */
  int *one;          /* one[coff[j] + a]: the peer all of (j, a)'s list goes to, -1: several */
  size_t off[AR_MAX_TORUS_DIMS], coff[AR_MAX_TORUS_DIMS], ncoff;
};

/* A collective's block order as a sum over dimensions, where it is one (the radix order
 * always, the tree order on the tori tried): order[y] = order0 + sum_k place[coff[k] + y_k].
 * A rank's blocks of a step are then one run exactly when the sums of the per-dimension
 * extremes span as many chunks as it sends, found without walking them (at 256 x 256 Swing
 * sends 4e9 blocks, in 8e6 runs). sep 0: walked. */
struct sw_order {
  const int *order; /* order[rank]: the chunk offset of that rank's block */
  int *place, order0, sep;
};
/* Allocates the scratch for torus t; returns AR_OK or AR_ERR_NOMEM. */
static ar_status sw_scratch_init(struct sw_scratch *sc, const struct sw_torus *t) {
  size_t lists = 0, cnts = 0;
  for (int k = 0; k < t->ndims; k++) {
    sc->off[k] = lists;
    sc->coff[k] = cnts;
    lists += (size_t)t->dims[k] * t->dims[k];
    cnts += (size_t)t->dims[k];
  }
  sc->pr = malloc(sizeof(*sc->pr) * (size_t)t->n);
  sc->list = malloc(sizeof(int) * lists);
  sc->cnt = malloc(sizeof(int) * cnts);
  sc->ncoff = cnts;
  sc->lo = malloc(sizeof(int) * cnts);
  sc->hi = malloc(sizeof(int) * cnts);
  sc->one = malloc(sizeof(int) * cnts);
  return sc->pr && sc->list && sc->cnt && sc->lo && sc->hi && sc->one ? AR_OK : AR_ERR_NOMEM;
}

static void sw_scratch_free(struct sw_scratch *sc) {
  free(sc->pr);
  free(sc->list);
  free(sc->cnt);
  free(sc->lo);
  free(sc->hi);
  free(sc->one);
}

/* Reads order[] as a sum over dimensions into o (its place is ncoff entries, the scratch's
 * coff); sets o->sep to whether it is one: every rank's order is order0 plus its coordinates'
 * places. */
static void sw_order_sum(struct sw_order *o, const struct sw_scratch *sc, const struct sw_torus *t,
                         const int *order) {
  int pos[AR_MAX_TORUS_DIMS] = {0};
  o->order = order;
  o->order0 = order[0];
  for (int k = 0; k < t->ndims; k++)
    for (int a = 0; a < t->dims[k]; a++)
      o->place[sc->coff[k] + a] = order[a * t->stride[k]] - order[0];
  o->sep = 1;
  for (int y = 0, sum = o->order0; y < t->n && o->sep; y++) { /* coordinates as an odometer */
    o->sep = order[y] == sum;
    for (int k = 0; k < t->ndims; k++) {
      sum -= o->place[sc->coff[k] + pos[k]];
      if (++pos[k] < t->dims[k]) {
        sum += o->place[sc->coff[k] + pos[k]];
        break;
      }
      pos[k] = 0;
      sum += o->place[sc->coff[k]];
    }
  }
}

/* The transfers of one reduce-scatter step, in the order they went out, for the allgather to
 * send back transposed (the step's walk is most of the generator's work). */
struct sw_sent {
  struct sw_run {
    int src, dst, chunk, count;
  } *run;
  size_t n, cap;
};

/* Adds a reduce-scatter transfer in round g and records it in rec; returns the status. */
static ar_status sw_send(struct ar_schedule *s, int g, int src, int dst, int chunk, int count,
                         struct sw_sent *rec) {
  if (rec->n == rec->cap) {
    size_t cap = rec->cap ? 2 * rec->cap : 64;
    struct sw_run *r = realloc(rec->run, cap * sizeof(*r));
    if (!r) return AR_ERR_NOMEM;
    rec->run = r;
    rec->cap = cap;
  }
  rec->run[rec->n++] = (struct sw_run){src, dst, chunk, count};
  return sched_add(s, g, AR_REDUCE, src, dst, chunk, count);
}

/* Adds step g of collective c's reduce-scatter on chunks [base, base + n) in round g,
 * recording its transfers in rec; returns the status of the first failure. At step g
 * (dimension j) rank x sends the blocks whose j-coordinate its line sends
 * now and whose other coordinates it still holds in their lines: a product of per-dimension
 * lists, one run to one peer where the order is a sum over dimensions and the extremes span
 * exactly the blocks, else walked like an odometer so the work is the data sent, not n per
 * rank and step. The rounds go out in order, so the model prices them as they come
 * (streamed). */
static ar_status sw_emit_step(struct ar_schedule *s, const struct sw_torus *t,
                              const struct sw_coll *c, const struct sw_order *o, int base, int g,
                              struct sw_scratch *sc, struct sw_sent *rec) {
  int n = t->n, D = t->ndims, before[AR_MAX_TORUS_DIMS] = {0}, j = c->dim[g];
  struct sw_pair *pr = sc->pr;
  if (j < 0) return AR_OK; /* an idle step */
  for (int h = 0; h < g; h++)
    if (c->dim[h] >= 0) before[c->dim[h]]++;
  /* the lists depend on a rank's coordinate in each dimension only: once per step */
  for (int k = 0; k < D; k++)
    for (int a = 0, d = t->dims[k]; a < d; a++) {
      const int *f = c->line[k].f + a * d, *to = c->line[k].to + a * d;
      const int *place = o->place + sc->coff[k];
      int *l = sc->list + sc->off[k] + (size_t)a * d, m = 0, lo = 0, hi = 0, one = -1;
      for (int i = 0; i < d; i++)
        if (k == j ? f[i] == c->sig[g] : f[i] < 0 || f[i] >= before[k]) {
          lo = m == 0 || place[i] < lo ? place[i] : lo;
          hi = m == 0 || place[i] > hi ? place[i] : hi;
          one = m == 0 ? to[i] : one == to[i] ? one : -1;
          l[m++] = i;
        }
      sc->cnt[sc->coff[k] + a] = m;
      sc->lo[sc->coff[k] + a] = lo;
      sc->hi[sc->coff[k] + a] = hi;
      sc->one[sc->coff[k] + a] = one;
    }
  ar_status st = AR_OK;
  int xc[AR_MAX_TORUS_DIMS] = {0}; /* x's coordinates, counted up as x is */
  for (int x = 0; x < n && st == AR_OK; x++) {
    int cnt[AR_MAX_TORUS_DIMS], pos[AR_MAX_TORUS_DIMS] = {0}, np = 0, empty = 0;
    int lo = o->order0, hi = o->order0, cells = 1;
    const int *list[AR_MAX_TORUS_DIMS];
    if (x > 0)
      for (int k = 0; k < D && ++xc[k] == t->dims[k]; k++)
        xc[k] = 0;
    for (int k = 0; k < D; k++) {
      int d = t->dims[k], xk = xc[k];
      list[k] = sc->list + sc->off[k] + (size_t)xk * d;
      cnt[k] = sc->cnt[sc->coff[k] + xk];
      empty |= cnt[k] == 0;
      lo += sc->lo[sc->coff[k] + xk];
      hi += sc->hi[sc->coff[k] + xk];
      cells *= cnt[k];
    }
    int xj = xc[j], b0 = sc->one[sc->coff[j] + xj];
    if (!empty && o->sep && b0 >= 0 && hi - lo + 1 == cells) { /* what the walk below finds */
      st = sw_send(s, g, x, x + (b0 - xj) * t->stride[j], base + lo, cells, rec);
      continue;
    }
    while (!empty) {
      int y = 0;
      for (int k = 0; k < D; k++)
        y += list[k][pos[k]] * t->stride[k];
      int b = c->line[j].to[xj * t->dims[j] + list[j][pos[j]]];
      pr[np++] = (struct sw_pair){x + (b - xj) * t->stride[j], base + o->order[y]};
      int k = D - 1; /* next tuple */
      while (k >= 0 && ++pos[k] == cnt[k])
        pos[k--] = 0;
      if (k < 0) break;
    }
    /* one peer and a contiguous run of chunks (the usual case, s3.1.1's remapping): one
     * transfer without sorting; the pairs' chunks are distinct (order is a bijection) */
    int lo_c = np ? pr[0].chunk : 0, hi_c = lo_c, one_peer = 1;
    for (int k = 1; k < np; k++) {
      lo_c = pr[k].chunk < lo_c ? pr[k].chunk : lo_c;
      hi_c = pr[k].chunk > hi_c ? pr[k].chunk : hi_c;
      one_peer &= pr[k].dst == pr[0].dst;
    }
    if (np && one_peer && hi_c - lo_c + 1 == np) {
      st = sw_send(s, g, x, pr[0].dst, lo_c, np, rec);
      continue;
    }
    qsort(pr, (size_t)np, sizeof(*pr), sw_pair_cmp);
    for (int lo = 0, hi; lo < np && st == AR_OK; lo = hi) {
      for (hi = lo + 1;
           hi < np && pr[hi].dst == pr[lo].dst && pr[hi].chunk == pr[hi - 1].chunk + 1;)
        hi++;
      st = sw_send(s, g, x, pr[lo].dst, pr[lo].chunk, hi - lo, rec);
    }
  }
  return st;
}

/* Sets s->ports to the most distinct peers any rank sends to or receives from in one round;
 * returns AR_ERR_NOMEM on failure. */
static ar_status sw_set_ports(struct ar_schedule *s) {
  AR_CHECK(sched_finish(s)); /* by round: linear in the transfers */
  int most = sched_max_peers(s);
  if (most < 0) return AR_ERR_NOMEM;
  s->ports = most > 1 ? most : 1;
  return AR_OK;
}

/* Returns 1 when every coordinate of the line sends exactly one block a step, always to the
 * same peer (a ring, either way round): its steps then differ only in which block. */
static int sw_line_uniform(const struct sw_line *ln) {
  int d = ln->d;
  for (int a = 0; a < d; a++) {
    int peer = -1, sent = 0;
    for (int i = 0; i < d; i++) {
      int f = ln->f[a * d + i];
      if (f < 0) continue;
      if (peer >= 0 && ln->to[a * d + i] != peer) return 0;
      peer = ln->to[a * d + i];
      sent++;
    }
    if (sent != ln->steps) return 0; /* one a step: steps blocks, each step's own (below) */
    for (int i = 0; i < d; i++)
      for (int i2 = i + 1; i2 < d; i2++)
        if (ln->f[a * d + i] >= 0 && ln->f[a * d + i] == ln->f[a * d + i2]) return 0;
  }
  return 1;
}

/* Returns 1 when round g of the collectives moves what round g-1 did, chunks aside, and moves
 * something: each collective idle in both, or stepping a uniform line of the same dimension
 * (the other dimensions' lists unchanged) with its order a sum over dimensions, so that every
 * rank's blocks are the last step's shifted in chunk space by the same amount: the same runs
 * to the same peer. */
static int sw_round_repeats(const struct sw_coll *c, int ncoll, int D, const char *uniform,
                            const struct sw_order *ord, int g) {
  int moves = 0;
  for (int k = 0; k < ncoll; k++) {
    int j = c[k].dim[g];
    if (j != c[k].dim[g - 1]) return 0;
    if (j >= 0 && !(uniform[k * D + j] && ord[k].sep)) return 0;
    moves |= j >= 0;
  }
  return moves;
}

ar_status sw_build_colls(struct ar_schedule *s, const struct sw_torus *t, struct sw_coll *c,
                                int ncoll, int radix) {
  ar_status st = AR_OK;
  size_t n = (size_t)t->n;
  int *order = malloc(sizeof(int) * n * ncoll), S = c[0].nsteps, D = t->ndims;
  struct sw_scratch sc;
  struct sw_order *ord = calloc((size_t)ncoll, sizeof(*ord));
  /* streamed to a model that takes repeated rounds: a round that repeats the last one is
   * handed on as such, not built (bucket at 256 x 256: 2.7e8 transfers in 4 distinct rounds
   * a phase) */
  int can = sched_can_repeat(s), *from = malloc(sizeof(int) * (S > 0 ? S : 1));
  char *uniform = malloc((size_t)ncoll * D), *rep = calloc((size_t)S + 1, 1);
  if (sw_scratch_init(&sc, t) != AR_OK || !order || !ord || !from || !uniform || !rep)
    st = AR_ERR_NOMEM;
  for (int k = 0; k < ncoll && st == AR_OK; k++) {
    if (c[k].nsteps != S) st = sched_fail(s, AR_ERR_VERIFY, "swing: collectives of unequal steps");
    else if (radix)
      sw_order_radix(t, &c[k], order + k * n);
    else
      st = sw_order_tree(t, &c[k], order + k * n);
    if (st == AR_OK && !(ord[k].place = malloc(sizeof(int) * sc.ncoff))) st = AR_ERR_NOMEM;
    if (st == AR_OK) sw_order_sum(&ord[k], &sc, t, order + k * n);
    for (int j = 0; can && st == AR_OK && j < D; j++)
      uniform[k * D + j] = (char)sw_line_uniform(&c[k].line[j]);
  }
  struct sw_sent *sent = calloc((size_t)ncoll * (S > 0 ? S : 1), sizeof(*sent));
  if (!sent) st = AR_ERR_NOMEM;
  /* round by round, collective after collective (what a stable sort by round of each
   * collective's transfers in turn gives: the stored schedule is the same either way), so the
   * model prices the rounds as they come; the allgather sends each step's transfers back,
   * those of a repeated step as the step it repeats (from[]) sent them */
  for (int r = 0; r < S && st == AR_OK; r++) {
    rep[r] = can && r > 0 && sw_round_repeats(c, ncoll, D, uniform, ord, r);
    from[r] = rep[r] ? from[r - 1] : r;
    if (rep[r]) st = sched_repeat_round(s, r);
    for (int k = 0; k < ncoll && st == AR_OK && !rep[r]; k++)
      st = sw_emit_step(s, t, &c[k], &ord[k], k * t->n, r, &sc, &sent[k * S + r]);
  }
  for (int r = S; r < 2 * S && st == AR_OK; r++) {
    int g = 2 * S - 1 - r; /* the step it sends back; it repeats the last round as g+1 did g */
    if (r > S && rep[g + 1]) {
      st = sched_repeat_round(s, r);
      continue;
    }
    for (int k = 0; k < ncoll && st == AR_OK; k++) {
      const struct sw_sent *rec = &sent[k * S + from[g]];
      for (size_t i = 0; i < rec->n && st == AR_OK; i++)
        st = sched_add(s, r, AR_COPY, rec->run[i].dst, rec->run[i].src, rec->run[i].chunk,
                       rec->run[i].count);
    }
  }
  if (st == AR_OK) st = sw_set_ports(s);
  for (int i = 0; sent && i < ncoll * S; i++)
    free(sent[i].run);
  for (int k = 0; ord && k < ncoll; k++)
    free(ord[k].place);
  free(ord);
  free(sent);
  free(order);
  free(from);
  free(uniform);
  free(rep);
  sw_scratch_free(&sc);
  return st;
}
