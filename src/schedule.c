/* The schedule IR: building (stored or streamed), relabelling and a weighted cost (the
 * symbolic verifier: verify.c). */
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

static _Thread_local ar_status (*stream_repeat)(void *, const struct ar_schedule *, int);

void sched_stream_repeats(ar_status (*repeat)(void *, const struct ar_schedule *, int)) {
  stream_repeat = repeat;
}

int sched_can_repeat(const struct ar_schedule *s) {
  return s->sink && !s->stream_bad && stream_repeat;
}

ar_status sched_repeat_round(struct ar_schedule *s, int round) {
  if (!sched_can_repeat(s) || round < 1)
    return sched_fail(s, AR_ERR_INVALID, "round %d repeated outside a stream", round);
  if (round >= s->nrounds) s->nrounds = round + 1;
  return stream_repeat(s->sink_ctx, s, round);
}

/* The most ranks a schedule is built for: the model's scale (model.h MODEL_MAX_RANKS). Runs,
 * the verifier and the lowering stop at AR_MAX_RANKS (their parsers refuse more); beyond it a
 * generator whose transfers grow as n^2 is n/a (algorithms/gen.h). */
#define SCHED_MAX_RANKS 65536

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
  if (nranks < 2 || nranks > SCHED_MAX_RANKS)
    return sched_fail(s, AR_ERR_INVALID, "ranks must be 2..%d, got %d", SCHED_MAX_RANKS, nranks);
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

ar_status sched_add_any(struct ar_schedule *s, int round, int op, int src, int dst, int chunk,
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

ar_status sched_reserve(struct ar_schedule *s, size_t nxfers) {
  if (s->sink || nxfers <= s->cap) return AR_OK;
  struct ar_xfer *x = realloc(s->xfers, nxfers * sizeof(*x));
  if (!x) return AR_ERR_NOMEM;
  s->xfers = x;
  s->cap = nxfers;
  return AR_OK;
}

ar_status sched_finish(struct ar_schedule *s) {
  if (s->sink) return AR_OK; /* streamed: nothing stored, nrounds kept by sched_add */
  /* counting sort by round: keeps the generator's order inside a round; none where the
   * generator added them in round order already (no copy of 2^24 transfers) */
  int maxr = -1, sorted_already = 1;
  for (size_t k = 0; k < s->nxfers; k++) {
    sorted_already &= s->xfers[k].round >= maxr;
    if (s->xfers[k].round > maxr) maxr = s->xfers[k].round;
  }
  s->nrounds = maxr + 1;
  if (s->nxfers < 2 || sorted_already) return AR_OK;
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
