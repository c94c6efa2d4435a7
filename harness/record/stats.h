/* Summary statistics of a set of iteration times (pure C, no GPU), with the nonparametric
 * confidence interval of the median (docs/statistics.md). */
#ifndef HX_STATS_H
#define HX_STATS_H

struct hx_stats {
  int n;
  double mean, median, min, max, p95, stdev; /* stdev: sample (n - 1); 0 for one value */
  double ci_lo, ci_hi; /* the median's 95% interval from order statistics: [x(l), x(n+1-l)] */
  double ci_level;     /* its exact coverage in percent: >= 95, or less below 6 values */
};

/* The rank l (1-based) of the lower end of the median's confidence interval of n values: the
 * largest l with 1 - 2 P(B <= l - 1) >= 0.95, B ~ Binomial(n, 1/2); 1 where none reaches 95%
 * (n < 6); 0 for n < 1. *level (may be NULL) gets the interval's coverage in percent. */
int hx_median_ci_rank(int n, double *level);

/* Fills st from x[0..n) (x is not modified); with n == 0 every field is NaN and st->n = 0.
 * The interval is [min, max] below 6 values (ci_level says how little it covers).
 * Returns 0, or -1 when memory for the sorted copy cannot be had. */
int hx_stats_compute(const double *x, int n, struct hx_stats *st);

/* stats.ci_target's rule (docs/statistics.md): the larger half of st's interval, the greater
 * of median - ci_lo and ci_hi - median, is within target x the median (0 when st has none). */
int hx_ci_within(const struct hx_stats *st, double target);

/* Why a row stopped taking samples: results.csv's repeat_stop (hx_repeat_stop_name). */
enum hx_repeat_stop { HX_REPEAT_FIXED, HX_REPEAT_TARGET, HX_REPEAT_BUDGET, HX_REPEAT_MAX };
const char *hx_repeat_stop_name(int why); /* "fixed", "target", "budget", "max" */

/* The samples a row takes next, once it has `have` of them with statistics st: 0 when it
 * stops (*why says why: fixed when target <= 0, target when hx_ci_within, else budget or max
 * when `have` reached the smaller of budget_limit (the samples --row-budget allows; INT_MAX:
 * none) and max_iters, budget where that is the budget's); else more, at most step and never
 * past that limit. */
int hx_repeat_next(const struct hx_stats *st, int have, int step, double target,
                   int budget_limit, int max_iters, int *why);

/* Algorithmic bandwidth in GB/s (1e9 bytes) of `bytes` in `time_us`; NaN for time <= 0. */
double hx_algbw(double bytes, double time_us);
/* nccl-tests' bus bandwidth for AllReduce: algbw * 2(n-1)/n. */
double hx_busbw(double algbw, int nranks);

#endif
