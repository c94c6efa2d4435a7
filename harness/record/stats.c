/* Summary statistics of iteration times: mean, median, min, max, p95 (nearest rank), stdev, and
 * the median's nonparametric 95% confidence interval (docs/statistics.md). */
#include "record/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* qsort order for doubles; returns <0, 0, >0. */
static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int hx_median_ci_rank(int n, double *level) {
  if (level) *level = 0;
  if (n < 1) return 0;
  /* P(B = k) from k = 0 up, in logs so that large n neither underflows nor overflows; the
   * interval [x(k+1), x(n-k)] covers the median with 1 - 2 P(B <= k) */
  double logp = -n * log(2.0), cdf = 0, cover1 = 0;
  int l = 1;
  for (int k = 0; 2 * k < n; k++) {
    cdf += exp(logp);
    if (k == 0) cover1 = 1 - 2 * cdf;
    if (1 - 2 * cdf < 0.95) break;
    l = k + 1;
    if (level) *level = 100 * (1 - 2 * cdf);
    logp += log((double)(n - k) / (k + 1));
  }
  if (level && l == 1) *level = 100 * cover1; /* below 6 values: [min, max], under 95% */
  return l;
}

int hx_stats_compute(const double *x, int n, struct hx_stats *st) {
  st->n = n > 0 ? n : 0;
  st->mean = st->median = st->min = st->max = st->p95 = st->stdev = NAN;
  st->ci_lo = st->ci_hi = st->ci_level = NAN;
  if (n <= 0) return 0;
  double *s = malloc((size_t)n * sizeof(*s));
  if (!s) return -1;
  memcpy(s, x, (size_t)n * sizeof(*s));
  qsort(s, (size_t)n, sizeof(*s), cmp_double);
  double sum = 0;
  for (int i = 0; i < n; i++) sum += s[i];
  st->mean = sum / n;
  st->min = s[0];
  st->max = s[n - 1];
  st->median = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  /* nearest rank: the smallest value with at least 95% of the values at or below it */
  int k = (int)ceil(0.95 * n) - 1;
  st->p95 = s[k < 0 ? 0 : k];
  int l = hx_median_ci_rank(n, &st->ci_level);
  st->ci_lo = s[l - 1];
  st->ci_hi = s[n - l];
  double ss = 0;
  for (int i = 0; i < n; i++) ss += (s[i] - st->mean) * (s[i] - st->mean);
  st->stdev = n > 1 ? sqrt(ss / (n - 1)) : 0.0;
  free(s);
  return 0;
}

int hx_ci_within(const struct hx_stats *st, double target) {
  if (st->n < 1 || !(st->median > 0)) return 0;
  return fmax(st->median - st->ci_lo, st->ci_hi - st->median) <= target * st->median;
}

const char *hx_repeat_stop_name(int why) {
  static const char *const name[] = {"fixed", "target", "budget", "max"};
  return why >= 0 && why <= HX_REPEAT_MAX ? name[why] : "";
}

int hx_repeat_next(const struct hx_stats *st, int have, int step, double target,
                   int budget_limit, int max_iters, int *why) {
  *why = HX_REPEAT_FIXED;
  if (!(target > 0)) return 0;
  *why = HX_REPEAT_TARGET;
  if (hx_ci_within(st, target)) return 0;
  int limit = budget_limit < max_iters ? budget_limit : max_iters;
  *why = budget_limit <= max_iters ? HX_REPEAT_BUDGET : HX_REPEAT_MAX;
  if (have >= limit || step < 1) return 0;
  return step < limit - have ? step : limit - have;
}

double hx_algbw(double bytes, double time_us) {
  return time_us > 0 ? bytes / (time_us * 1e-6) / 1e9 : NAN;
}

double hx_busbw(double algbw, int nranks) {
  return nranks > 0 ? algbw * 2.0 * (nranks - 1) / nranks : NAN;
}
