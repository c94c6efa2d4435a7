/* The schedule IR: building, relabelling, the symbolic verifier and a weighted cost. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ar.h"

/* The stream a build in progress on this thread hands to its schedule (sched_stream_begin):
 * sched_init memsets the schedule, and the generator knows nothing of streams. */
static _Thread_local struct {
  struct ar_schedule *s;
  ar_status (*sink)(void *, const struct ar_schedule *, const struct ar_xfer *);
  void *ctx;
  int inits;
} stream_tls;

void sched_stream_begin(struct ar_schedule *s,
                        ar_status (*sink)(void *, const struct ar_schedule *, const struct ar_xfer *),
                        void *ctx) {
  stream_tls.s = sink ? s : NULL;
  stream_tls.sink = sink;
  stream_tls.ctx = ctx;
  stream_tls.inits = 0;
  s->sink = sink;
  s->sink_ctx = ctx;
}

void sched_stream_end(void) {
  stream_tls.s = NULL;
}

ar_status sched_init(struct ar_schedule *s, const char *algo, int nranks, int nchunks) {
  memset(s, 0, sizeof(*s));
  if (stream_tls.s == s) { /* a restart after transfers went out cannot be undone */
    s->sink = stream_tls.sink;
    s->sink_ctx = stream_tls.ctx;
    s->stream_bad = stream_tls.inits++ > 0;
  }
  snprintf(s->algo, sizeof(s->algo), "%s", algo);
  s->nranks = nranks;
  s->nchunks = nchunks;
  s->straggler = -1;
  s->ports = 1;
  if (nranks < 2 || nranks > AR_MAX_RANKS)
    return sched_fail(s, AR_ERR_INVALID, "ranks must be 2..%d, got %d", AR_MAX_RANKS, nranks);
  if (nchunks < 1) return sched_fail(s, AR_ERR_INVALID, "a schedule needs at least one chunk");
  return AR_OK;
}

void sched_free(struct ar_schedule *s) {
  free(s->xfers);
  s->xfers = NULL;
  s->nxfers = s->cap = 0;
}

ar_status sched_fail(struct ar_schedule *s, ar_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->reason, sizeof(s->reason), fmt, ap);
  va_end(ap);
  return st;
}

ar_status sched_add(struct ar_schedule *s, int round, int op, int src, int dst, int chunk,
                    int count) {
  return sched_add_w(s, round, op, src, dst, chunk, count, 1.0f);
}

ar_status sched_add_w(struct ar_schedule *s, int round, int op, int src, int dst, int chunk,
                      int count, float weight) {
  if (src < 0 || src >= s->nranks || dst < 0 || dst >= s->nranks || chunk < 0 || count < 1 ||
      chunk + count > s->nchunks || round < 0)
    return sched_fail(s, AR_ERR_INVALID, "bad transfer r%d %d->%d chunks %d+%d", round, src,
                      dst, chunk, count);
  struct ar_xfer x = {.round = round, .src = src, .dst = dst, .chunk = chunk, .count = count,
                      .op = op, .weight = weight};
  if (s->sink) {
    if (round >= s->nrounds) s->nrounds = round + 1;
    s->nstreamed++;
    return s->stream_bad ? AR_ERR_UNSUPPORTED : s->sink(s->sink_ctx, s, &x);
  }
  if (s->nxfers == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 256;
    struct ar_xfer *x = realloc(s->xfers, cap * sizeof(*x));
    if (!x) return AR_ERR_NOMEM;
    s->xfers = x;
    s->cap = cap;
  }
  s->xfers[s->nxfers++] = x;
  return AR_OK;
}

ar_status sched_finish(struct ar_schedule *s) {
  if (s->sink) return AR_OK; /* streamed: nothing stored, nrounds kept by sched_add */
  /* counting sort by round: keeps the generator's order inside a round */
  int maxr = -1;
  for (size_t k = 0; k < s->nxfers; k++)
    if (s->xfers[k].round > maxr) maxr = s->xfers[k].round;
  s->nrounds = maxr + 1;
  if (s->nxfers < 2) return AR_OK;
  struct ar_xfer *sorted = malloc(s->nxfers * sizeof(*sorted));
  size_t *start = calloc((size_t)maxr + 2, sizeof(*start));
  if (!sorted || !start) {
    free(sorted);
    free(start);
    return AR_ERR_NOMEM;
  }
  for (size_t k = 0; k < s->nxfers; k++) start[s->xfers[k].round + 1]++;
  for (int r = 0; r <= maxr; r++) start[r + 1] += start[r];
  for (size_t k = 0; k < s->nxfers; k++) sorted[start[s->xfers[k].round]++] = s->xfers[k];
  free(s->xfers);
  free(start);
  s->xfers = sorted;
  s->cap = s->nxfers;
  return AR_OK;
}

void sched_relabel(struct ar_schedule *s, const int *perm) {
  for (int r = 0; s->sink && r < s->nranks; r++) /* streamed transfers cannot be renamed */
    if (perm[r] != r) s->stream_bad = 1;
  for (size_t i = 0; i < s->nxfers; i++) {
    s->xfers[i].src = perm[s->xfers[i].src];
    s->xfers[i].dst = perm[s->xfers[i].dst];
  }
  if (s->straggler >= 0) s->straggler = perm[s->straggler];
}

/* ---- symbolic verifier: per (rank, chunk), the set of ranks whose data it holds ---- */

struct bitsets {
  int words;       /* 64-bit words per set */
  uint64_t *cur;   /* [rank][chunk][word] */
  uint64_t *snap;  /* the round's source sets at its start, in transfer and chunk order */
  size_t snap_cap; /* sets that snap holds */
};

static uint64_t *set_at(const struct bitsets *b, uint64_t *base, const struct ar_schedule *s,
                        int rank, int chunk) {
  return base + ((size_t)rank * s->nchunks + chunk) * b->words;
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
  for (size_t i = lo; i < hi; i++) need += (size_t)s->xfers[i].count;
  if (need > b->snap_cap) {
    uint64_t *p = realloc(b->snap, need * b->words * sizeof(uint64_t));
    if (!p) return AR_ERR_NOMEM;
    b->snap = p;
    b->snap_cap = need;
  }
  uint64_t *out = b->snap;
  for (size_t i = lo; i < hi; i++)
    for (int c = s->xfers[i].chunk; c < s->xfers[i].chunk + s->xfers[i].count; c++) {
      memcpy(out, set_at(b, b->cur, s, s->xfers[i].src, c), sizeof(uint64_t) * b->words);
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
    for (int c = x->chunk; c < x->chunk + x->count; c++, src += b->words) {
      uint64_t *dst = set_at(b, b->cur, s, x->dst, c);
      int *w = &written[(size_t)x->dst * s->nchunks + c];
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
  struct bitsets b = {.words = (n + 63) / 64};
  size_t cells = (size_t)n * s->nchunks;
  b.cur = calloc(cells * b.words, sizeof(uint64_t));
  int *written = calloc(cells, sizeof(int));
  char *pair = calloc((size_t)n * n, 1);
  int *out = calloc((size_t)n, sizeof(int)), *in = calloc((size_t)n, sizeof(int));
  ar_status st = AR_OK;
  if (!b.cur || !written || !pair || !out || !in) {
    st = AR_ERR_NOMEM;
    goto done;
  }
  for (int r = 0; r < n; r++)
    for (int c = 0; c < s->nchunks; c++) set_at(&b, b.cur, s, r, c)[r / 64] |= 1ull << (r % 64);
  for (size_t lo = 0; lo < s->nxfers;) {
    size_t hi = lo;
    while (hi < s->nxfers && s->xfers[hi].round == s->xfers[lo].round) hi++;
    if (hi < s->nxfers && s->xfers[hi].round < s->xfers[lo].round) {
      st = verify_fail(rep, "transfers not sorted by round (call sched_finish)");
      goto done;
    }
    if ((st = snapshot_round(s, &b, lo, hi)) != AR_OK) goto done;
    if ((st = check_ports(s, lo, hi, pair, out, in, rep)) != AR_OK) goto done;
    if ((st = apply_round(s, &b, lo, hi, written, rep)) != AR_OK) goto done;
    lo = hi;
  }
  for (int r = 0; r < n; r++) /* every set must be full: compare word by word */
    for (int c = 0; c < s->nchunks; c++) {
      const uint64_t *set = set_at(&b, b.cur, s, r, c);
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

double sched_cost(const struct ar_schedule *s, int first_round) {
  int n = s->nranks;
  if (s->sink) { /* a generator weighing its own stored transfers: build it stored */
    ((struct ar_schedule *)s)->stream_bad = 1;
    return 0;
  }
  double *out = calloc((size_t)n, sizeof(double)), *in = calloc((size_t)n, sizeof(double));
  double total = 0;
  if (!out || !in) {
    free(out);
    free(in);
    return -1;
  }
  for (size_t lo = 0; lo < s->nxfers;) {
    size_t hi = lo;
    while (hi < s->nxfers && s->xfers[hi].round == s->xfers[lo].round) hi++;
    if (s->xfers[lo].round >= first_round) {
      double worst = 0;
      for (size_t i = lo; i < hi; i++) {
        double bytes = (double)s->xfers[i].weight * s->xfers[i].count / s->nchunks;
        out[s->xfers[i].src] += bytes;
        in[s->xfers[i].dst] += bytes;
      }
      for (int r = 0; r < n; r++) {
        if (out[r] > worst) worst = out[r];
        if (in[r] > worst) worst = in[r];
        out[r] = in[r] = 0;
      }
      total += worst / s->ports;
    }
    lo = hi;
  }
  free(out);
  free(in);
  return total;
}
