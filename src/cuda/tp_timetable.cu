/* A contention-free timetable of copies: see tp_timetable.h. Host code only. */
#include <stdlib.h>
#include <string.h>

#include "tp_timetable.h"

void tp_tt_init(struct tp_timetable *t, int n) {
  memset(t, 0, sizeof(*t));
  t->n = n;
}

void tp_tt_free(struct tp_timetable *t) {
  for (int q = 0; q < AR_MAX_GPUS; q++) {
    free(t->out[q].b);
    free(t->out[q].e);
    free(t->in[q].b);
    free(t->in[q].e);
  }
  memset(t, 0, sizeof(*t));
}

/* The first interval of busy that ends after t0 (binary search). */
static size_t first_after(const struct tp_busy *busy, double t0) {
  size_t lo = 0, hi = busy->len;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (busy->e[mid] <= t0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* The earliest s >= t0 at which busy is free over [s, s + len). */
static double fit(const struct tp_busy *busy, double t0, double len) {
  double s = t0;
  for (size_t i = first_after(busy, s); i < busy->len; i++) {
    if (s + len <= busy->b[i]) break; /* fits in the gap before interval i */
    if (busy->e[i] > s) s = busy->e[i];
  }
  return s;
}

double tp_tt_earliest(const struct tp_timetable *t, int r, int q, double t0, double send,
                      double occ) {
  double s = t0;
  for (;;) { /* each fit only moves s later; both free at once ends it */
    double a = fit(&t->out[r], s, send), b = fit(&t->in[q], a, occ);
    if (b == a) return a;
    s = b;
  }
}

/* Books [start, start + len) in busy. */
static ar_status book(struct tp_busy *busy, double start, double len) {
  if (busy->len == busy->cap) {
    size_t cap = busy->cap ? 2 * busy->cap : 64;
    double *nb = (double *)realloc(busy->b, cap * sizeof(double));
    if (!nb) return AR_ERR_NOMEM;
    busy->b = nb;
    double *ne = (double *)realloc(busy->e, cap * sizeof(double));
    if (!ne) return AR_ERR_NOMEM;
    busy->e = ne;
    busy->cap = cap;
  }
  size_t i = first_after(busy, start); /* disjoint intervals: the new one goes before i */
  memmove(busy->b + i + 1, busy->b + i, (busy->len - i) * sizeof(double));
  memmove(busy->e + i + 1, busy->e + i, (busy->len - i) * sizeof(double));
  busy->b[i] = start;
  busy->e[i] = start + len;
  busy->len++;
  return AR_OK;
}

ar_status tp_tt_take(struct tp_timetable *t, int r, int q, double start, double send, double occ) {
  AR_CHECK(book(&t->out[r], start, send));
  return book(&t->in[q], start, occ);
}
