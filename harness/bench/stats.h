/* Summary statistics of a set of iteration times (pure C, no GPU). */
#ifndef HX_STATS_H
#define HX_STATS_H

struct hx_stats {
  int n;
  double mean, median, min, max, p95, stdev; /* stdev: sample (n - 1); 0 for one value */
};

/* Fills st from x[0..n) (x is not modified); with n == 0 every field is NaN and st->n = 0.
 * Returns 0, or -1 when memory for the sorted copy cannot be had. */
int hx_stats_compute(const double *x, int n, struct hx_stats *st);

/* Algorithmic bandwidth in GB/s (1e9 bytes) of `bytes` in `time_us`; NaN for time <= 0. */
double hx_algbw(double bytes, double time_us);
/* nccl-tests' bus bandwidth for AllReduce: algbw * 2(n-1)/n. */
double hx_busbw(double algbw, int nranks);

#endif
