/* The ll program simulator (tp_check llsim): runs TP_MODE_LL programs (src/lower/ll.c) on the
 * CPU the way the ll kernel (src/cuda/tp_ll.cu) executes them, ranks and warps interleaved
 * at random, and checks every iteration's sums.
 *
 * The model. Each case lowers its program with a protocol and slice of its own (tc_set.ll_protocol,
 * tc_set.ll_slice: signals with slices of 24, 32 or 64 bytes, several per range, or the lines and
 * lines128 protocols' own; above 64 KiB lines, lines128 or signals of 192), and each rank runs
 * W warps (1..5, chosen per case and rank). The buffer is cut into the program's slices of sb
 * bytes; slice s belongs to warp s mod W of its rank, so all the ops on a byte run in one
 * warp's program order, as every 16 (8) bytes belong to one thread in the kernel. A warp walks
 * its rank's ops in order and, per op, its slices in order; one step of the simulation is one
 * slice of one op of one warp:
 *   PUT copies the whole slice, as it is now in the rank's data (bytes past the buffer as
 *     zeros), into the receiver's slot for (range, source), each byte tagged with the
 *     iteration (the lines protocols' sequence number), the flag slot of the PUT and the data
 *     byte it holds; signals then raise the slice's flag word;
 *   TAKE waits (the warp blocks and another one runs) until every source slot's bytes for the
 *     slice carry the current iteration (signals: until each source's flag word for the slice
 *     does, and then its bytes must), then writes data = own data (a reduce: src[0] is the
 *     destination) + the sources in order, for the bytes in range, and then (ll.forward) runs
 *     the PUTs that forward it (lower_ll_forwards) on the same slice, as the kernel does.
 * Slots have two parities (iteration & 1, as the kernel's) and lie where the program says
 * (lower.h): slice s of a range starting at x0 at off + (s - x0 / sb) * (slot bytes per slice),
 * its data bytes first (the kernel interleaves them with sequence numbers within the slice,
 * which one warp alone touches); flag words at the op's ll_flag + (s - x0 / sb), one parity.
 * A rank's iteration i + 1 starts once every warp of it has finished iteration i (kernels on
 * one stream); its data is then compared with the sum over ranks of iteration i's inputs
 * (fresh small integers per iteration, exact in f32 and bf16) and replaced by i + 1's inputs.
 * Failures: WRONG (a sum), STALL (no warp can move: a deadlock), OVERRUN (a TAKE met its slot
 * written by a later iteration: the lines protocol would spin forever), STALE (signals: a flag
 * raised over bytes not yet written), CLOBBER (a slot byte written twice in one iteration, a
 * TAKE reading bytes of another flag slot or data byte, or a flag word of two slices), OUTSIDE
 * (a slot, flag or data byte past its buffer). The cases, the lint of a program (LINT), the
 * negative cases and the llsim command are tp_check_ll_cases.c's. */
#include "tp_check.h"

#define LL_ITERS 4 /* both parities reused */

struct ll_warp {
  size_t op;    /* next op */
  size_t s, g1; /* next slice of the op and its last one */
  int placed;   /* s, g1 set for op */
  int done;     /* past the last op in this iteration */
  double weight;
};

struct ll_rank {
  int nw, iter, wdone; /* iter: 1..LL_ITERS (the kernel's seq); LL_ITERS + 1: finished */
  struct ll_warp w[LL_MAX_WARPS];
  double weight;
  unsigned char *data; /* nbytes + a slice of zeros */
  /* receive slots, two parities of `size` bytes each */
  size_t size;
  unsigned char *val; /* the bytes */
  unsigned char *tag; /* per 2-byte unit: the iteration that wrote it, 0: none */
  uint16_t *fslot;    /* ... the PUT's flag slot */
  uint32_t *pos;      /* ... the data byte it holds */
  /* signals: flag words (one parity) */
  size_t nflags;
  unsigned char *fit; /* the iteration that raised it, 0: none */
  int *fown;          /* the flag slot whose slice raised it, -1: none */
  size_t *fslice;     /* ... and the slice */
};

struct llsim {
  const struct tp_prog *p;
  struct ll_case c;
  int n, es, signals;
  size_t nbytes, sb, ss; /* the program's slice: data bytes, slot bytes */
  struct ll_rank rk[AR_MAX_GPUS];
  uint64_t rng;
  char err[600]; /* the first failure */
  long steps;
};

static uint64_t ll_rand(struct llsim *m) {
  return xorshift64(&m->rng);
}

/* Rank r's input for element i in iteration it: small integers, exact in bf16 summed over 16
 * ranks, different in every iteration (a slot of the wrong iteration shows). */
static float ll_input(int r, size_t i, int it) {
  return (float)((int)((i * 7 + (size_t)r * 13 + (i >> 5) * 3 + (size_t)it * 5) % 17) - 8);
}

/* Element value at b (f32, or bf16 for 2 bytes). */
static float ll_get(const unsigned char *b, int es) {
  float f;
  if (es == 4) {
    memcpy(&f, b, 4);
    return f;
  }
  uint16_t h;
  memcpy(&h, b, 2);
  uint32_t u = (uint32_t)h << 16;
  memcpy(&f, &u, 4);
  return f;
}

static void ll_set(unsigned char *b, int es, float v) {
  if (es == 4) {
    memcpy(b, &v, 4);
    return;
  }
  uint32_t u;
  memcpy(&u, &v, 4);
  uint16_t h = (uint16_t)(u >> 16); /* exact for small integers */
  memcpy(b, &h, 2);
}

static void ll_fail(struct llsim *m, const char *fmt, ...) {
  if (m->err[0]) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m->err, sizeof(m->err), fmt, ap);
  va_end(ap);
}

/* The data bytes [x0, x1) an op covers (PUT: the sender's, TAKE: the receiver's). */
static void ll_range(const struct tp_op *o, size_t *x0, size_t *x1) {
  const struct tp_ref *d = o->kind == TP_OP_PUT ? &o->src[0] : &o->dst;
  *x0 = d->off;
  *x1 = d->off + o->bytes;
}

/* Where data byte x of the range starting at x0 lies in rank w's slots (one parity) for flag
 * slot fs, whose region the program puts at off; SIZE_MAX past the slots. */
static size_t ll_slot_at(const struct llsim *m, int w, int fs, size_t off, size_t x0, size_t x) {
  const struct ll_rank *k = &m->rk[w];
  if (fs < 0 || fs >= m->p->nslots) return SIZE_MAX;
  size_t at = off + (x / m->sb - x0 / m->sb) * m->ss + x % m->sb;
  return at < k->size ? at : SIZE_MAX;
}

/* The bytes of slice s an op touches: range x slice (a TAKE's writes), or the whole slice
 * (what the kernel's PUTs store and its TAKEs wait for). */
static void ll_span(const struct llsim *m, size_t x0, size_t x1, size_t s, int whole, size_t *lo,
                    size_t *hi) {
  size_t a = s * m->sb, b = a + m->sb;
  *lo = whole ? a : a > x0 ? a : x0;
  *hi = whole ? b : b < x1 ? b : x1;
}

static int ll_par(const struct llsim *m, int iter) {
  return m->c.parities == 2 ? iter & 1 : 0;
}

/* Names op i of rank r in a message. */
static void ll_who(int r, size_t i, const struct tp_op *o, char *out, size_t len) {
  if (o->kind == TP_OP_PUT)
    snprintf(out, len, "rank %d op %zu (round %d, PUT to rank %d)", r, i, o->round, o->peer);
  else
    snprintf(out, len, "rank %d op %zu (round %d, TAKE)", r, i, o->round);
}

/* Where the bytes [lo, hi) (within one slice) of the range starting at x0 lie in rank w's
 * slots for flag slot fs (region at off), through *at; 0 when inside the slots (one parity) and
 * on 2-byte units, else -1 with the failure set (op i of rank r, for the message). */
static int ll_slots_of(struct llsim *m, int w, int fs, size_t off, size_t x0, size_t lo, size_t hi,
                       size_t *at, int r, size_t i, const struct tp_op *o) {
  *at = ll_slot_at(m, w, fs, off, x0, lo);
  size_t last = ll_slot_at(m, w, fs, off, x0, hi - 1);
  if (*at != SIZE_MAX && last == *at + (hi - 1 - lo) && *at % 2 == 0) return 0;
  char who[96];
  ll_who(r, i, o, who, sizeof(who));
  ll_fail(m,
          "OUTSIDE: %s: data bytes [%zu, %zu) of flag slot %d %s rank %d's slots (%zu bytes a "
          "parity, region at %zu)",
          who, lo, hi, fs, *at % 2 == 0 ? "lie past" : "at an odd offset of", w, m->rk[w].size,
          off);
  return -1;
}

/* Signals: rank w's flag word for slice s of flag slot fs (the range starting at x0, its
 * first word f0), through *f; 0 when it lies in the flags and no other (slot, slice) has used
 * it, else -1 with the failure set (op i of rank r, for the message). */
static int ll_flag_of(struct llsim *m, int w, int fs, size_t f0, size_t x0, size_t s, size_t *f,
                      int r, size_t i, const struct tp_op *o) {
  struct ll_rank *k = &m->rk[w];
  char who[96];
  *f = f0 + s - x0 / m->sb;
  if (*f < k->nflags && (k->fown[*f] < 0 || (k->fown[*f] == fs && k->fslice[*f] == s))) {
    k->fown[*f] = fs;
    k->fslice[*f] = s;
    return 0;
  }
  ll_who(r, i, o, who, sizeof(who));
  if (*f >= k->nflags)
    ll_fail(m, "OUTSIDE: %s: flag slot %d slice %zu: flag word %zu of rank %d's %zu", who, fs, s,
            *f, w, k->nflags);
  else
    ll_fail(m, "CLOBBER: %s: flag slot %d slice %zu: flag word %zu of rank %d is flag slot %d's "
            "(slice %zu)", who, fs, s, *f, w, k->fown[*f], k->fslice[*f]);
  return -1;
}

/* PUT of slice s by rank r; 1 (a PUT never waits), -1 on a failure. Forwarded by a TAKE
 * (take: that TAKE, else NULL), the slice's bytes outside the TAKE's range go as 0xA5: the
 * kernel sends its sums there, never the data, so a PUT forwarded beyond what its TAKE sums
 * delivers garbage that the receiver's sums show. */
static int ll_put(struct llsim *m, int r, size_t i, const struct tp_op *o, size_t s,
                  const struct tp_op *take) {
  struct ll_rank *me = &m->rk[r];
  int w = o->peer, it = me->iter;
  size_t x0, x1, lo, hi, at;
  char who[96];
  ll_range(o, &x0, &x1);
  ll_span(m, x0, x1, s, 1, &lo, &hi);
  if (w < 0 || w >= m->n) {
    ll_fail(m, "OUTSIDE: rank %d op %zu: a PUT to rank %d", r, i, w);
    return -1;
  }
  if (ll_slots_of(m, w, o->slot, o->dst.off, x0, lo, hi, &at, r, i, o)) return -1;
  struct ll_rank *to = &m->rk[w];
  at += (size_t)ll_par(m, it) * to->size;
  for (size_t j = 0; j < hi - lo; j += 2) { /* the data has a slice of zeros past its end */
    size_t u = (at + j) / 2;
    if (to->tag[u] >= it) {
      ll_who(r, i, o, who, sizeof(who));
      ll_fail(m,
              "CLOBBER: iteration %d: %s, flag slot %d, writes slot byte %zu (parity %d), "
              "written in iteration %d by flag slot %d (data byte %u)",
              it, who, o->slot, at + j - (size_t)ll_par(m, it) * to->size, ll_par(m, it),
              to->tag[u], to->fslot[u], to->pos[u]);
      return -1;
    }
    to->tag[u] = (unsigned char)it;
    to->fslot[u] = (uint16_t)o->slot;
    to->pos[u] = (uint32_t)(lo + j);
  }
  memcpy(to->val + at, me->data + lo, hi - lo);
  if (take) {
    size_t t0, t1;
    ll_range(take, &t0, &t1);
    for (size_t x = lo; x < hi; x++)
      if (x < t0 || x >= t1) to->val[at + (x - lo)] = 0xA5;
  }
  size_t f;
  if (m->signals && ll_flag_of(m, w, o->slot, o->ll_flag[0], x0, s, &f, r, i, o)) return -1;
  if (m->signals) to->fit[f] = (unsigned char)it;
  return 1;
}

/* TAKE of slice s by rank r: 1 done, 0 blocked (a source not there yet), -1 on a failure. */
static int ll_take(struct llsim *m, int r, size_t i, const struct tp_op *o, size_t s) {
  struct ll_rank *me = &m->rk[r];
  int it = me->iter, red = ll_reduce(o), ns = o->nsrc - red, es = m->es;
  size_t x0, x1, lo, hi, wlo, whi, at[TP_MAX_SUM];
  size_t par = (size_t)ll_par(m, it) * me->size;
  char who[96];
  ll_range(o, &x0, &x1);
  ll_span(m, x0, x1, s, 0, &lo, &hi);
  ll_span(m, x0, x1, s, 1, &wlo, &whi);
  for (int q = 0; q < ns; q++) {
    size_t f = 0;
    if (ll_slots_of(m, r, o->slot + q, o->src[red + q].off, x0, wlo, whi, &at[q], r, i, o))
      return -1;
    if (m->signals) {
      if (ll_flag_of(m, r, o->slot + q, o->ll_flag[red + q], x0, s, &f, r, i, o)) return -1;
      if (me->fit[f] < it) return 0;
    }
    at[q] += par;
    for (size_t j = 0; j < whi - wlo; j += 2) {
      size_t u = (at[q] + j) / 2, x = wlo + j;
      if (me->tag[u] < it && !m->signals) return 0;
      if (me->tag[u] < it) {
        ll_who(r, i, o, who, sizeof(who));
        ll_fail(m,
                "STALE: iteration %d: %s, flag slot %d: flag word %zu raised, slot byte %zu "
                "(parity %d) holds iteration %d",
                it, who, o->slot + q, f, at[q] + j - par, ll_par(m, it), me->tag[u]);
        return -1;
      }
      if (me->tag[u] > it) {
        ll_who(r, i, o, who, sizeof(who));
        ll_fail(m,
                "OVERRUN: iteration %d: %s, flag slot %d: slot byte %zu (parity %d) holds "
                "iteration %d (flag slot %d, data byte %u)",
                it, who, o->slot + q, at[q] + j - par, ll_par(m, it), me->tag[u], me->fslot[u],
                me->pos[u]);
        return -1;
      }
      if (x >= lo && x < hi && (me->fslot[u] != o->slot + q || me->pos[u] != x)) {
        ll_who(r, i, o, who, sizeof(who));
        ll_fail(m,
                "CLOBBER: iteration %d: %s reads data byte %zu of flag slot %d at slot byte "
                "%zu (parity %d), which holds data byte %u of flag slot %d",
                it, who, x, o->slot + q, at[q] + j - par, ll_par(m, it), me->pos[u], me->fslot[u]);
        return -1;
      }
    }
  }
  for (size_t x = lo; x + (size_t)es <= hi; x += (size_t)es) {
    float acc = red ? ll_get(me->data + x, es) : 0;
    for (int q = 0; q < ns; q++)
      acc += ll_get(me->val + at[q] + (x - wlo), es);
    ll_set(me->data + x, es, acc);
  }
  return 1;
}

/* Rank r's data for iteration it (its inputs). */
static void ll_init_data(struct llsim *m, int r, int it) {
  size_t ne = m->nbytes / (size_t)m->es;
  for (size_t e = 0; e < ne; e++)
    ll_set(m->rk[r].data + e * m->es, m->es, ll_input(r, e, it));
}

/* Every warp of rank r finished its iteration: checks the sums, starts the next iteration. */
static void ll_iter_end(struct llsim *m, int r) {
  struct ll_rank *k = &m->rk[r];
  size_t ne = m->nbytes / (size_t)m->es;
  long bad = 0;
  size_t e0 = 0;
  float got0 = 0, want0 = 0;
  for (size_t e = 0; e < ne; e++) {
    float want = 0, got = ll_get(k->data + e * m->es, m->es);
    for (int q = 0; q < m->n; q++)
      want += ll_input(q, e, k->iter);
    if (got != want && !bad++) e0 = e, got0 = got, want0 = want;
  }
  if (bad)
    ll_fail(m, "WRONG: iteration %d rank %d element %zu: %g, want %g (%ld elements wrong)", k->iter,
            r, e0, got0, want0, bad);
  if (++k->iter > LL_ITERS) return;
  ll_init_data(m, r, k->iter);
  k->wdone = 0;
  for (int w = 0; w < k->nw; w++) {
    k->w[w].op = 0;
    k->w[w].placed = 0;
    k->w[w].done = 0;
  }
}

/* One step of warp wi of rank r: 1 moved, 0 blocked, -1 failed. */
static int ll_step(struct llsim *m, int r, int wi) {
  struct ll_rank *k = &m->rk[r];
  struct ll_warp *w = &k->w[wi];
  const struct tp_rank_prog *rp = &m->p->rank[r];
  for (;;) {
    if (w->op == rp->nops) {
      w->done = 1;
      if (++k->wdone == k->nw) ll_iter_end(m, r);
      return m->err[0] ? -1 : 1;
    }
    const struct tp_op *o = &rp->ops[w->op];
    if (o->kind != TP_OP_PUT && o->kind != TP_OP_TAKE) {
      ll_fail(m, "OUTSIDE: rank %d op %zu: kind %d in an ll program", r, w->op, o->kind);
      return -1;
    }
    size_t x0, x1;
    ll_range(o, &x0, &x1);
    if (!w->placed) {
      if (x1 > m->nbytes || x0 % (size_t)m->es || o->bytes % (size_t)m->es) {
        ll_fail(m,
                "OUTSIDE: rank %d op %zu (round %d): data bytes [%zu, %zu) of %zu, %d-byte "
                "elements",
                r, w->op, o->round, x0, x1, m->nbytes, m->es);
        return -1;
      }
      if (!o->bytes) {
        w->op++;
        continue;
      }
      size_t g0 = x0 / m->sb, nw = (size_t)k->nw;
      w->g1 = (x1 - 1) / m->sb;
      w->s = g0 + ((size_t)wi + nw - g0 % nw) % nw;
      w->placed = 1;
    }
    int fwd = o->kind == TP_OP_TAKE ? lower_ll_forwards(m->p, r, w->op) : 0;
    if (w->s > w->g1) {
      w->op += 1 + (size_t)fwd; /* the forwarded PUTs ran inside the TAKE */
      w->placed = 0;
      continue;
    }
    int st = o->kind == TP_OP_PUT ? ll_put(m, r, w->op, o, w->s, NULL) : ll_take(m, r, w->op, o, w->s);
    for (int f = 1; f <= fwd && st > 0; f++) { /* the slice just summed, sent on at once */
      const struct tp_op *po = &rp->ops[w->op + (size_t)f];
      size_t p0, p1;
      ll_range(po, &p0, &p1);
      if (w->s >= p0 / m->sb && w->s <= (p1 - 1) / m->sb)
        st = ll_put(m, r, w->op + (size_t)f, po, w->s, o);
    }
    if (st > 0) w->s += (size_t)k->nw;
    return st;
  }
}

/* Appends where every unfinished warp stands to m->err (a stall). */
static void ll_stall(struct llsim *m) {
  size_t l = (size_t)snprintf(m->err, sizeof(m->err), "STALL:");
  for (int r = 0; r < m->n; r++)
    for (int wi = 0; wi < m->rk[r].nw && l < sizeof(m->err); wi++) {
      const struct ll_rank *k = &m->rk[r];
      const struct ll_warp *w = &k->w[wi];
      if (k->iter > LL_ITERS || w->done) continue;
      const struct tp_op *o = &m->p->rank[r].ops[w->op];
      l += (size_t)snprintf(m->err + l, sizeof(m->err) - l,
                            " r%d.w%d it %d op %zu (%s round %d "
                            "flag %d slice %zu)",
                            r, wi, k->iter, w->op, o->kind == TP_OP_TAKE ? "take" : "put", o->round,
                            o->slot, w->s);
    }
}

/* Runs the simulation; 0 when every iteration of every rank completed. */
static int ll_run(struct llsim *m) {
  int cr[AR_MAX_GPUS * LL_MAX_WARPS], cw[AR_MAX_GPUS * LL_MAX_WARPS];
  double wt[AR_MAX_GPUS * LL_MAX_WARPS];
  for (;;) {
    int nc = 0;
    double tot = 0;
    for (int r = 0; r < m->n; r++)
      for (int wi = 0; wi < m->rk[r].nw; wi++)
        if (m->rk[r].iter <= LL_ITERS && !m->rk[r].w[wi].done) {
          cr[nc] = r;
          cw[nc] = wi;
          wt[nc] = m->rk[r].weight * m->rk[r].w[wi].weight;
          tot += wt[nc++];
        }
    if (!nc) return 0;
    int st = 0;
    while (nc && !st) { /* warps in a weighted random order until one moves */
      int j = sim_pick(ll_rand(m), wt, nc, tot);
      st = ll_step(m, cr[j], cw[j]);
      if (st < 0) return -1;
      if (!st) { /* blocked: drop it from this round of picks */
        tot -= wt[j];
        nc--;
        cr[j] = cr[nc], cw[j] = cw[nc], wt[j] = wt[nc];
      }
    }
    if (!st) {
      ll_stall(m);
      return -1;
    }
    m->steps++;
  }
}

/* Simulates program p under case c; 0 when it passed, else 1 with the failure in err. */
int ll_sim_one(const struct tp_prog *p, const struct ll_case *c, char *err, size_t len,
               long *steps) {
  struct llsim *m = calloc(1, sizeof(*m));
  m->p = p;
  m->c = *c;
  m->n = p->n;
  m->es = c->esize;
  m->nbytes = p->nelem * (size_t)p->esize;
  m->sb = p->ll_slice;
  m->ss = p->ll_slot;
  m->signals = p->ll_protocol == TP_LL_SIGNALS;
  m->rng = c->seed * 0x9E3779B97F4A7C15ull + 1;
  for (int r = 0; r < m->n; r++) {
    struct ll_rank *k = &m->rk[r];
    k->nw = c->nw[r];
    k->iter = 1;
    k->weight = c->rank_weight[r];
    for (int wi = 0; wi < k->nw; wi++) {
      uint64_t x = ll_rand(m) % 4;
      k->w[wi].weight = c->warp_skew && x == 0 ? 0.02 : c->warp_skew && x == 1 ? 0.2 : 1.0;
    }
    k->data = calloc(m->nbytes + m->sb + 8, 1);
    k->size = p->rank[r].scratch_bytes;
    k->nflags = p->rank[r].ll_flags;
    k->fit = calloc(k->nflags + 1, 1);
    k->fown = malloc((k->nflags + 1) * sizeof(int));
    k->fslice = calloc(k->nflags + 1, sizeof(size_t));
    for (size_t f = 0; f <= k->nflags; f++)
      k->fown[f] = -1;
    size_t units = k->size + 1; /* two parities of 2-byte units */
    k->val = calloc(2 * units, 1);
    k->tag = calloc(units, 1);
    k->fslot = calloc(units, sizeof(uint16_t));
    k->pos = calloc(units, sizeof(uint32_t));
    ll_init_data(m, r, 1);
  }
  int bad = p->esize != c->esize || !m->sb || m->ss < m->sb;
  if (bad)
    ll_fail(m, "OUTSIDE: a program for %d-byte elements (slices of %zu, %zu in a slot) run with %d",
            p->esize, m->sb, m->ss, c->esize);
  if (!bad) bad = ll_run(m) != 0 || m->err[0];
  snprintf(err, len, "%s", m->err);
  if (steps) *steps += m->steps;
  for (int r = 0; r < m->n; r++) {
    struct ll_rank *k = &m->rk[r];
    free(k->data);
    free(k->fit);
    free(k->fown);
    free(k->fslice);
    free(k->val);
    free(k->tag);
    free(k->fslot);
    free(k->pos);
  }
  free(m);
  return bad;
}
