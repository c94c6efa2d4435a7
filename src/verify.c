/* The symbolic verifier: per (rank, chunk), the set of ranks whose data it holds; a reduce
 * of overlapping sets double-counts; at the end every rank holds every chunk summed over all
 * ranks. Also the port use of each round (sched_max_peers). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ar.h"

/* ---- symbolic verifier: per (rank, chunk), the set of ranks whose data it holds ---- */

/* The sets of chunks [c0, c1) (a window: a large schedule is checked a window at a time, each
 * chunk's sets depending only on the transfers that carry it). */
struct bitsets {
  int words;       /* 64-bit words per set */
  int c0, c1;      /* the window */
  uint64_t *cur;   /* [rank][chunk - c0][word] */
  uint64_t *snap;  /* the round's source sets at its start, in transfer and chunk order */
  size_t snap_cap; /* sets that snap holds */
};

static uint64_t *set_at(const struct bitsets *b, uint64_t *base, int rank, int chunk) {
  return base + ((size_t)rank * (b->c1 - b->c0) + (chunk - b->c0)) * b->words;
}

/* The part of transfer x inside the window: [*lo, *hi), empty when *lo >= *hi. */
static void in_window(const struct bitsets *b, const struct ar_xfer *x, int *lo, int *hi) {
  *lo = x->chunk > b->c0 ? x->chunk : b->c0;
  *hi = x->chunk + x->count < b->c1 ? x->chunk + x->count : b->c1;
}

static int sets_overlap(const uint64_t *a, const uint64_t *b, int words) {
  for (int w = 0; w < words; w++)
    if (a[w] & b[w]) return 1;
  return 0;
}

static ar_status verify_fail(struct sched_report *rep, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static ar_status verify_fail(struct sched_report *rep, const char *fmt, ...) {
  if (rep) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rep->error, sizeof(rep->error), fmt, ap);
    va_end(ap);
  }
  return AR_ERR_VERIFY;
}

/* Port use of one round [lo, hi): returns the most distinct peers a rank sends to or
 * receives from, and in *bad the first transfer past `limit` peers (SIZE_MAX: none). pair[]
 * (n x n) and out[]/in[] (n) are all zero on entry and left zero; the work is linear in the
 * round's transfers, so it stays fast for large n. */
static int round_ports(const struct ar_schedule *s, size_t lo, size_t hi, char *pair, int *out,
                       int *in, int limit, size_t *bad) {
  int n = s->nranks, worst = 0;
  *bad = SIZE_MAX;
  for (size_t i = lo; i < hi; i++) {
    char *p = &pair[(size_t)s->xfers[i].src * n + s->xfers[i].dst];
    if (*p) continue;
    *p = 1;
    int o = ++out[s->xfers[i].src], r = ++in[s->xfers[i].dst];
    if (o > worst) worst = o;
    if (r > worst) worst = r;
    if (*bad == SIZE_MAX && (o > limit || r > limit)) *bad = i;
  }
  for (size_t i = lo; i < hi; i++) {
    pair[(size_t)s->xfers[i].src * n + s->xfers[i].dst] = 0;
    out[s->xfers[i].src] = in[s->xfers[i].dst] = 0;
  }
  return worst;
}

/* Checks one round's port use against s->ports; records the most used in rep. */
static ar_status check_ports(const struct ar_schedule *s, size_t lo, size_t hi, char *pair,
                             int *out, int *in, struct sched_report *rep) {
  size_t bad;
  int worst = round_ports(s, lo, hi, pair, out, in, s->ports, &bad);
  if (rep && worst > rep->max_ports_used) rep->max_ports_used = worst;
  if (bad == SIZE_MAX) return AR_OK;
  const struct ar_xfer *x = &s->xfers[bad];
  return verify_fail(rep, "round %d: rank %d sends to / rank %d receives from more than %d peers, "
                          "ports %d",
                     x->round, x->src, x->dst, s->ports, s->ports);
}

int sched_max_peers(const struct ar_schedule *s) {
  int n = s->nranks, most = 0;
  char *pair = calloc((size_t)n * n, 1);
  int *out = calloc((size_t)n, sizeof(int)), *in = calloc((size_t)n, sizeof(int));
  for (size_t lo = 0; pair && out && in && lo < s->nxfers;) {
    size_t hi = lo, bad;
    while (hi < s->nxfers && s->xfers[hi].round == s->xfers[lo].round) hi++;
    int w = round_ports(s, lo, hi, pair, out, in, n, &bad);
    most = w > most ? w : most;
    lo = hi;
  }
  if (!pair || !out || !in) most = -1;
  free(pair);
  free(out);
  free(in);
  return most;
}

/* Copies the source sets that transfers [lo, hi) read into b->snap, in order, so the round
 * applies against its start state; costs the round's volume, not the whole state. */
static ar_status snapshot_round(const struct ar_schedule *s, struct bitsets *b, size_t lo,
                                size_t hi) {
  size_t need = 0;
  int c, ce;
  for (size_t i = lo; i < hi; i++) {
    in_window(b, &s->xfers[i], &c, &ce);
    need += ce > c ? (size_t)(ce - c) : 0;
  }
  if (need > b->snap_cap) {
    uint64_t *p = realloc(b->snap, need * b->words * sizeof(uint64_t));
    if (!p) return AR_ERR_NOMEM;
    b->snap = p;
    b->snap_cap = need;
  }
  uint64_t *out = b->snap;
  for (size_t i = lo; i < hi; i++)
    for (in_window(b, &s->xfers[i], &c, &ce); c < ce; c++) {
      memcpy(out, set_at(b, b->cur, s->xfers[i].src, c), sizeof(uint64_t) * b->words);
      out += b->words;
    }
  return AR_OK;
}

/* Applies transfers [lo, hi) of one round against the snapshot; flags double counting. */
static ar_status apply_round(const struct ar_schedule *s, struct bitsets *b, size_t lo,
                             size_t hi, int *written, struct sched_report *rep) {
  int round = s->xfers[lo].round;
  const uint64_t *src = b->snap;
  for (size_t i = lo; i < hi; i++) {
    const struct ar_xfer *x = &s->xfers[i];
    if (x->src == x->dst) return verify_fail(rep, "round %d: rank %d sends to itself", round, x->src);
    if (round < s->nprecond && (x->src == s->straggler || x->dst == s->straggler))
      return verify_fail(rep, "round %d: straggler %d takes part in the precondition", round,
                         s->straggler);
    int c, ce;
    for (in_window(b, x, &c, &ce); c < ce; c++, src += b->words) {
      uint64_t *dst = set_at(b, b->cur, x->dst, c);
      int *w = &written[(size_t)x->dst * (b->c1 - b->c0) + (c - b->c0)];
      if (x->op == AR_COPY) {
        if (*w == round + 1 || *w == -(round + 1))
          return verify_fail(rep, "round %d: rank %d chunk %d written twice (copy)", round,
                             x->dst, c);
        memcpy(dst, src, sizeof(uint64_t) * b->words);
        *w = round + 1;
      } else {
        if (*w == round + 1)
          return verify_fail(rep, "round %d: copy and reduce into rank %d chunk %d", round,
                             x->dst, c);
        if (sets_overlap(dst, src, b->words))
          return verify_fail(rep, "round %d: rank %d chunk %d reduce from %d double-counts",
                             round, x->dst, c, x->src);
        for (int k = 0; k < b->words; k++) dst[k] |= src[k];
        *w = -(round + 1); /* marked: reduced this round */
      }
    }
  }
  return AR_OK;
}

/* Words of set state one window may take: 2^25 (256 MiB); a schedule whose n x chunks sets
 * need more is checked in several passes over its transfers. */
#define VERIFY_WINDOW_WORDS ((size_t)1 << 25)

/* Checks chunks [c0, c1): every transfer of them, and at the end every set full; the ports
 * too when check_ports_too. */
static ar_status verify_window(const struct ar_schedule *s, int c0, int c1, int check_ports_too,
                               struct sched_report *rep) {
  int n = s->nranks;
  struct bitsets b = {.words = (n + 63) / 64, .c0 = c0, .c1 = c1};
  size_t cells = (size_t)n * (c1 - c0);
  b.cur = calloc(cells * b.words, sizeof(uint64_t));
  int *written = calloc(cells, sizeof(int));
  char *pair = check_ports_too ? calloc((size_t)n * n, 1) : NULL;
  int *out = calloc((size_t)n, sizeof(int)), *in = calloc((size_t)n, sizeof(int));
  ar_status st = AR_OK;
  if (!b.cur || !written || (check_ports_too && !pair) || !out || !in) {
    st = AR_ERR_NOMEM;
    goto done;
  }
  for (int r = 0; r < n; r++)
    for (int c = c0; c < c1; c++) set_at(&b, b.cur, r, c)[r / 64] |= 1ull << (r % 64);
  for (size_t lo = 0; lo < s->nxfers;) {
    size_t hi = lo;
    while (hi < s->nxfers && s->xfers[hi].round == s->xfers[lo].round) hi++;
    if (hi < s->nxfers && s->xfers[hi].round < s->xfers[lo].round) {
      st = verify_fail(rep, "transfers not sorted by round (call sched_finish)");
      goto done;
    }
    if ((st = snapshot_round(s, &b, lo, hi)) != AR_OK) goto done;
    if (pair && (st = check_ports(s, lo, hi, pair, out, in, rep)) != AR_OK) goto done;
    if ((st = apply_round(s, &b, lo, hi, written, rep)) != AR_OK) goto done;
    lo = hi;
  }
  for (int r = 0; r < n; r++) /* every set must be full: compare word by word */
    for (int c = c0; c < c1; c++) {
      const uint64_t *set = set_at(&b, b.cur, r, c);
      for (int w = 0; w < b.words; w++) {
        int bits = w == b.words - 1 && n % 64 ? n % 64 : 64;
        uint64_t full = bits == 64 ? ~0ull : (1ull << bits) - 1;
        if (set[w] != full) {
          int q = w * 64 + __builtin_ctzll(~set[w] & full);
          st = verify_fail(rep, "rank %d chunk %d lacks rank %d's data at the end", r, c, q);
          goto done;
        }
      }
    }
done:
  free(b.cur);
  free(b.snap);
  free(written);
  free(pair);
  free(out);
  free(in);
  return st;
}

ar_status sched_verify(const struct ar_schedule *s, struct sched_report *rep) {
  int n = s->nranks;
  if (rep) {
    memset(rep, 0, sizeof(*rep));
    rep->rounds = s->nrounds - s->nprecond;
    rep->precond_rounds = s->nprecond;
    for (size_t i = 0; i < s->nxfers; i++) {
      double frac = (double)s->xfers[i].count / s->nchunks;
      rep->sent[s->xfers[i].src] += frac;
      rep->recv[s->xfers[i].dst] += frac;
    }
  }
  size_t per_chunk = (size_t)n * ((n + 63) / 64);
  int w = (int)(VERIFY_WINDOW_WORDS / per_chunk);
  if (w < 1) w = 1;
  ar_status st = AR_OK;
  for (int c0 = 0; c0 < s->nchunks && st == AR_OK; c0 += w)
    st = verify_window(s, c0, c0 + w < s->nchunks ? c0 + w : s->nchunks, c0 == 0, rep);
  return st;
}
