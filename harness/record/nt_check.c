/* The checks of one all_reduce_perf test read whole (nccl_tests.h): each figure of a result
 * line against the others, as nccl-tests computed them. A size is its count of elements times
 * the type's bytes; the sizes follow the header's range (minBytes to maxBytes by its step, each
 * rounded down to whole elements, repeated once per -N cycle); algbw is size / time and busbw
 * algbw x 2(n-1)/n for the n ranks the log lists, each within what the printed digits allow;
 * #wrong is within the elements of all ranks. A line that breaks one is refused with
 * FILE:LINE and the value, so nothing is misread into results.csv. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/nccl_tests.h"

/* nccl-tests' tolerance before 2.13: the largest error it passed per rank beyond the first. */
static double delta_tolerance(const char *type) {
  if (!strcmp(type, "half") || !strcmp(type, "bfloat16")) return 1e-2;
  if (!strcmp(type, "float")) return 1e-5;
  if (!strcmp(type, "double")) return 1e-12;
  return 1e-200; /* integers: exact */
}

static double busbw_factor(int n) { return n > 0 ? 2.0 * (n - 1) / n : 0; }

/* The algbw a row's size and printed time allow, narrowed by its printed algbw, into
 * [*lo, *hi]; -1 when the two disagree. */
static int algbw_range(const struct nt_row *r, double *lo, double *hi) {
  double b = (double)r->bytes / 1e3, slack = 1e-9;
  double tlo = r->time_us - r->half_t, thi = r->time_us + r->half_t;
  double from_t_lo = b / thi, from_t_hi = tlo > 0 ? b / tlo : INFINITY;
  double alo = r->algbw - r->half_a, ahi = r->algbw + r->half_a;
  *lo = fmax(from_t_lo, alo);
  *hi = fmin(from_t_hi, ahi);
  return *lo <= *hi * (1 + slack) + 1e-12 ? 0 : -1;
}

/* 1 when the row's busbw is its algbw x 2(n-1)/n within the printed digits. */
static int busbw_fits(const struct nt_row *r, int n) {
  double lo, hi, f = busbw_factor(n);
  if (algbw_range(r, &lo, &hi)) return 0;
  return f * lo <= (r->busbw + r->half_b) * (1 + 1e-9) + 1e-12 &&
         f * hi * (1 + 1e-9) + 1e-12 >= r->busbw - r->half_b;
}

/* The ranks: the rank lines' (or JSON devices x threads x GPUs), else threads x GPUs, else the
 * one count busbw / algbw allows; checked against every row. 0, or -1 said. */
static int settle_ranks(struct nt_test *t) {
  int listed = 0;
  if (t->json_devices) listed = t->json_devices * (t->threads > 0 ? t->threads : 1) *
                                (t->gpus > 0 ? t->gpus : 1);
  else if (t->rank_lines && !t->rank_cut) listed = t->rank_max;
  if (listed) {
    for (int i = 0; i < t->nrows; i++)
      if (!busbw_fits(&t->rows[i], listed))
        return nt_bad_at(t->file, t->rows[i].line, "busbw %g is not algbw %g x 2(n-1)/n for the "
                         "%d ranks the log lists (%llu bytes)", t->rows[i].busbw,
                         t->rows[i].algbw, listed, (unsigned long long)t->rows[i].bytes);
    t->ranks = listed;
    return 0;
  }
  int lo = 0, hi = 0, guess = t->threads > 0 && t->gpus > 0 ? t->threads * t->gpus : 0;
  for (int n = 1; n <= 65536; n++) {
    int fits = 1;
    for (int i = 0; i < t->nrows && fits; i++)
      fits = busbw_fits(&t->rows[i], n);
    if (fits && !lo) lo = n;
    if (fits) hi = n;
    if (!fits && lo && busbw_factor(n) > 1.999) break;
  }
  if (guess && guess >= lo && guess <= hi && lo) {
    int ok = 1;
    for (int i = 0; i < t->nrows && ok; i++)
      ok = busbw_fits(&t->rows[i], guess);
    if (ok) {
      t->ranks = guess;
      return 0;
    }
  }
  if (lo && lo == hi) {
    t->ranks = lo;
    return 0;
  }
  if (!lo)
    return nt_bad_at(t->file, t->line, "the test from line %d: busbw / algbw fits no count of "
                     "ranks (nccl-tests' AllReduce: busbw = algbw x 2(n-1)/n)", t->line);
  return nt_bad_at(t->file, t->line, "the test from line %d lists no ranks, and busbw / algbw "
                   "allows %d to %d: cannot tell how many ranks ran", t->line, lo, hi);
}

/* The sizes the header's range gives for elements of esize bytes into e[0..cap); their count,
 * or 0 when the header does not say or gives more than cap. */
static int header_sizes(const struct nt_test *t, int esize, uint64_t *e, int cap) {
  if (!t->min_bytes || !t->max_bytes || (t->step_factor < 2 && !t->step_bytes)) return 0;
  int n = 0;
  for (uint64_t s = t->min_bytes; s <= t->max_bytes; n++) {
    if (n == cap) return 0;
    e[n] = s / (uint64_t)esize * (uint64_t)esize;
    if (t->step_factor > 1) {
      if (s > UINT64_MAX / t->step_factor) {
        n++;
        break;
      }
      s *= t->step_factor;
    } else s += t->step_bytes;
  }
  return n;
}

/* The sizes of one block (a type, redop and root, in the order listed: rows[k] are its results'
 * out-of-place or only rows) against the header's range, or without a header against one
 * rising run repeated; 0 or -1 said. */
static int check_sizes(struct nt_test *t, struct nt_row **rows, int n) {
  enum { CAP = 4096 };
  static uint64_t e[CAP];
  int m = header_sizes(t, nt_type_size(rows[0]->type), e, CAP);
  if (!m) { /* one rising run, repeated whole */
    while (m < n && (m == 0 || rows[m]->bytes > rows[m - 1]->bytes)) m++;
    for (int i = 0; i < m; i++)
      e[i] = rows[i]->bytes;
  }
  for (int i = 0; i < n; i++) {
    if (rows[i]->bytes == e[i % m]) continue;
    for (int k = 0; k < i; k++)
      if (rows[k]->bytes == rows[i]->bytes)
        return nt_bad_at(t->file, rows[i]->line, "size %llu listed twice in the test from line "
                         "%d (line %d has it; only -N cycles repeat every size in order)",
                         (unsigned long long)rows[i]->bytes, t->line, rows[k]->line);
    return nt_bad_at(t->file, rows[i]->line, "size %llu where the header's range (%llu to %llu "
                     "by %llu%s) gives %llu", (unsigned long long)rows[i]->bytes,
                     (unsigned long long)t->min_bytes, (unsigned long long)t->max_bytes,
                     (unsigned long long)(t->step_factor > 1 ? t->step_factor : t->step_bytes),
                     t->step_factor > 1 ? "x" : " bytes", (unsigned long long)e[i % m]);
  }
  if (n % m)
    return nt_bad_at(t->file, rows[n - 1]->line, "the sizes end after %d of the %d of a cycle "
                     "(%llu to %llu): results missing", n % m, m,
                     (unsigned long long)e[0], (unsigned long long)e[m - 1]);
  return 0;
}

/* Every block's sizes (check_sizes); 0 or -1 said. */
static int check_blocks(struct nt_test *t) {
  struct nt_row **rows = malloc(sizeof(*rows) * (size_t)(t->nrows + 1));
  char *done = calloc((size_t)t->nrows + 1, 1);
  int rc = rows && done ? 0 : nt_bad_at(t->file, t->line, "out of memory");
  for (int i = 0; i < t->nrows && !rc; i++) {
    const struct nt_row *a = &t->rows[i];
    if (done[i] || (i > 0 && t->rows[i - 1].result == a->result)) continue;
    int n = 0;
    for (int k = i; k < t->nrows; k++) {
      const struct nt_row *b = &t->rows[k];
      if (k > 0 && t->rows[k - 1].result == b->result) continue;
      if (strcmp(a->type, b->type) || strcmp(a->redop, b->redop) || a->root != b->root) continue;
      done[k] = 1;
      rows[n++] = &t->rows[k];
    }
    rc = check_sizes(t, rows, n);
  }
  free(rows);
  free(done);
  return rc;
}

int nt_check_test(struct nt_test *t) {
  if (!t->nrows)
    return nt_bad_at(t->file, t->line, "no results: the test from line %d lists none", t->line);
  for (int i = 0; i < t->nrows; i++) {
    const struct nt_row *r = &t->rows[i];
    int es = nt_type_size(r->type);
    if (r->count > UINT64_MAX / (uint64_t)es || r->bytes != r->count * (uint64_t)es)
      return nt_bad_at(t->file, r->line, "size %llu is not count %llu x %d bytes (%s)%s",
                       (unsigned long long)r->bytes, (unsigned long long)r->count, es, r->type,
                       t->coll[0] ? "" : ": a test of another collective? (a comment naming its "
                       "command before it says which)");
    double lo, hi;
    if (algbw_range(r, &lo, &hi))
      return nt_bad_at(t->file, r->line, "algbw %g GB/s is not size / time (%llu B in %g us: "
                       "%.4g GB/s)", r->algbw, (unsigned long long)r->bytes, r->time_us,
                       (double)r->bytes / r->time_us / 1e3);
  }
  if (check_blocks(t) || settle_ranks(t)) return -1;
  int kept = 0;
  for (int i = 0; i < t->nrows; i++) {
    struct nt_row *r = &t->rows[i];
    if (r->wrong >= 0 && (uint64_t)r->wrong > r->count * (uint64_t)t->ranks)
      return nt_bad_at(t->file, r->line, "#wrong %lld is more than the %llu elements x %d "
                       "ranks", r->wrong, (unsigned long long)r->count, t->ranks);
    r->failed = r->wrong > 0 ||
                (!isnan(r->delta) && r->delta > delta_tolerance(r->type) * (t->ranks - 1));
    if (!r->bytes) { /* nothing was reduced: no row */
      t->zero_rows += !r->in_place;
      continue;
    }
    t->rows[kept++] = *r;
  }
  t->nrows = kept;
  return 0;
}
