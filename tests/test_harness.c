/* The GPU harness's pure-C parts, without a GPU: statistics, the CSV header and rows, sizes
 * and run options, straggler delays, ranks placed on GPUs, and the inputs and their
 * closed-form sums (per iteration seed: a stale read must show). The nccl-p2p transport's plan
 * is tests/test_p2p_plan.c's. The harness sources are compiled in (the test link line has only
 * the core and the argument parsers). */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"

#include "record/csv.c"
#include "cuda/inputs.h"
#include "placement.h"
#include "record/stats.c"
#include "plan/options.c"
#include "plan/critical.c" /* sweep.c estimates searches with it */
#include "plan/sweep.c"

#define NEAR(a, b) (fabs((double)(a) - (b)) < 1e-9 * (1 + fabs((double)(b))))

static void test_stats(void) {
  struct hx_stats st;
  double a[] = {5, 1, 4, 2, 3};
  CHECK_INT(hx_stats_compute(a, 5, &st), ==, 0);
  CHECK(NEAR(st.mean, 3) && NEAR(st.median, 3) && NEAR(st.min, 1) && NEAR(st.max, 5),
        "mean %g median %g min %g max %g", st.mean, st.median, st.min, st.max);
  CHECK(NEAR(st.p95, 5), "p95 %g", st.p95);
  CHECK(NEAR(st.stdev, sqrt(2.5)), "stdev %g", st.stdev);
  CHECK(a[0] == 5 && a[1] == 1, "input reordered");
  double b[] = {4, 1, 3, 2};
  hx_stats_compute(b, 4, &st);
  CHECK(NEAR(st.median, 2.5) && NEAR(st.p95, 4), "median %g p95 %g", st.median, st.p95);
  double c[20];
  for (int i = 0; i < 20; i++) c[i] = 20 - i;
  hx_stats_compute(c, 20, &st);
  CHECK(NEAR(st.p95, 19) && NEAR(st.median, 10.5), "p95 %g median %g", st.p95, st.median);
  /* the median's interval from order statistics: 20 values -> [x(6), x(15)], 95.86% */
  CHECK(NEAR(st.ci_lo, 6) && NEAR(st.ci_hi, 15) && fabs(st.ci_level - 95.861) < 1e-3,
        "20 values: ci [%g, %g] %g%%", st.ci_lo, st.ci_hi, st.ci_level);
  hx_stats_compute(a, 5, &st); /* below 6 values: [min, max], covering 1 - 2^-4 */
  CHECK(NEAR(st.ci_lo, 1) && NEAR(st.ci_hi, 5) && NEAR(st.ci_level, 93.75),
        "5 values: ci [%g, %g] %g%%", st.ci_lo, st.ci_hi, st.ci_level);
  /* ranks against the binomial tables: n -> l (coverage %) */
  static const struct { int n, l; double level; } ranks[] = {
      {1, 1, 0}, {2, 1, 50}, {6, 1, 96.875}, {8, 1, 99.21875}, {9, 2, 96.09375},
      {10, 2, 97.8515625}, {50, 18, 96.716086}, {100, 40, 96.479980}, {1000, 469, 95.370880}};
  for (size_t i = 0; i < sizeof(ranks) / sizeof(ranks[0]); i++) {
    double lv;
    int l = hx_median_ci_rank(ranks[i].n, &lv);
    CHECK(l == ranks[i].l && fabs(lv - ranks[i].level) < 1e-5, "n %d: rank %d (want %d), %g%% (want %g)",
          ranks[i].n, l, ranks[i].l, lv, ranks[i].level);
  }
  double one = 7;
  hx_stats_compute(&one, 1, &st);
  CHECK(NEAR(st.stdev, 0) && NEAR(st.p95, 7), "one value: stdev %g p95 %g", st.stdev, st.p95);
  hx_stats_compute(NULL, 0, &st);
  CHECK(st.n == 0 && isnan(st.median), "empty: n %d median %g", st.n, st.median);
  CHECK(NEAR(hx_algbw(1e9, 1e6), 1.0), "algbw %g", hx_algbw(1e9, 1e6));
  CHECK(NEAR(hx_busbw(2.0, 4), 3.0), "busbw %g", hx_busbw(2.0, 4));
  CHECK(NEAR(hx_busbw(2.0, 2), 2.0), "busbw n=2 %g", hx_busbw(2.0, 2));
  /* stats.ci_target's rule: the larger half of the interval within the target */
  double d[20];
  for (int i = 0; i < 20; i++) d[i] = 100 + i; /* median 109.5, [105, 114]: halves 4.5, 4.5 */
  hx_stats_compute(d, 20, &st);
  CHECK(hx_ci_within(&st, 0.045) && !hx_ci_within(&st, 0.04), "within: %g %g %g", st.ci_lo,
        st.median, st.ci_hi);
  d[19] = 1e6; /* an outlier moves neither the median nor its interval */
  hx_stats_compute(d, 20, &st);
  CHECK(hx_ci_within(&st, 0.045), "an outlier: [%g, %g]", st.ci_lo, st.ci_hi);
  int why = -1;
  CHECK(hx_repeat_next(&st, 20, 20, 0, INT_MAX, 1000, &why) == 0 && why == HX_REPEAT_FIXED,
        "no target: fixed (%d)", why);
  CHECK(hx_repeat_next(&st, 20, 20, 0.05, INT_MAX, 1000, &why) == 0 && why == HX_REPEAT_TARGET,
        "met: target (%d)", why);
  CHECK(hx_repeat_next(&st, 20, 20, 0.01, INT_MAX, 1000, &why) == 20, "not met: a step more");
  CHECK(hx_repeat_next(&st, 20, 20, 0.01, INT_MAX, 30, &why) == 10, "not met: up to the cap");
  CHECK(hx_repeat_next(&st, 30, 20, 0.01, INT_MAX, 30, &why) == 0 && why == HX_REPEAT_MAX,
        "the cap: max (%d)", why);
  CHECK(hx_repeat_next(&st, 20, 20, 0.01, 25, 1000, &why) == 5, "the budget's limit");
  CHECK(hx_repeat_next(&st, 25, 20, 0.01, 25, 1000, &why) == 0 && why == HX_REPEAT_BUDGET,
        "the budget: budget (%d)", why);
  CHECK(hx_repeat_next(&st, 20, 20, 0.01, 20, 20, &why) == 0 && why == HX_REPEAT_BUDGET,
        "both at once: the budget's (%d)", why);
  CHECK(hx_repeat_next(&st, 40, 40, 0.01, INT_MAX, 30, &why) == 0 && why == HX_REPEAT_MAX,
        "-n above the cap: max (%d)", why);
  CHECK_STR(hx_repeat_stop_name(HX_REPEAT_BUDGET), "budget");
  hx_stats_compute(NULL, 0, &st);
  CHECK(!hx_ci_within(&st, 1), "no samples: never within");
  /* --row-budget's cap with a target: floor(budget / pace), at least 6; none without one */
  CHECK(hx_budget_cap(100000, 300) == 333 && hx_budget_cap(100000, 40000) == 6 &&
            hx_budget_cap(0, 300) == INT_MAX && hx_budget_cap(100000, 0) == INT_MAX,
        "budget caps %d %d", hx_budget_cap(100000, 300), hx_budget_cap(100000, 40000));
  /* nccl-tests' 1 GiB row on 4 H200s: 4533.37 us -> 236.85 / 355.28 GB/s */
  double alg = hx_algbw(1073741824.0, 4533.37);
  CHECK(fabs(alg - 236.85) < 0.01 && fabs(hx_busbw(alg, 4) - 355.28) < 0.01, "algbw %g", alg);
}

/* Splits a CSV line into fields (handles quotes); returns the count. */
static int split_csv(const char *line, char fields[][128], int max) {
  int n = 0;
  const char *p = line;
  for (;;) {
    char *out = fields[n];
    size_t k = 0;
    if (*p == '"') {
      for (p++; *p && !(*p == '"' && p[1] != '"'); p++) {
        if (*p == '"') p++;
        if (k < 127) out[k++] = *p;
      }
      if (*p == '"') p++;
    } else {
      for (; *p && *p != ',' && *p != '\n'; p++)
        if (k < 127) out[k++] = *p;
    }
    out[k] = 0;
    n++;
    if (*p != ',' || n == max) break;
    p++;
  }
  return n;
}

static void test_csv(void) {
  /* docs/csv.md's fixed columns, copied by hand: the header must be exactly this */
  CHECK_STR(hx_csv_header,
            "run_id,timestamp,host,gpu,n_gpus,driver,cuda,nccl,source,algorithm,transport,"
            "pipeline,dtype,bytes,straggler_rank,delay_us,degraded_rank,factor,iters,"
            "time_us_mean,time_us_median,time_us_min,time_us_max,time_us_p95,time_us_stdev,"
            "time_after_arrival_us,algbw_gbps,busbw_gbps,model_time_us,wrong,status,"
            "lower_bound_us");
  char dir[] = "/tmp/arbench_test_csv_XXXXXX", path[64], spath[64];
  CHECK(mkdtemp(dir) != NULL, "mkdtemp");
  snprintf(path, sizeof(path), "%s/results.csv", dir);
  snprintf(spath, sizeof(spath), "%s/samples.csv", dir);
  struct hx_csv c;
  CHECK_INT(hx_csv_open_run(&c, path), ==, 0);
  CHECK_INT(hx_csv_open_samples(&c), ==, 0);
  double t[] = {10, 12, 11};
  struct hx_csv_row r = {.run_id = "20261121T000000Z_h", .timestamp = "2026-11-21T00:00:00Z",
                         .host = "h", .gpu = "NVIDIA \"H200\", SXM", .n_gpus = 4,
                         .driver = "580.159.04", .cuda = "13.0", .nccl = "2.28.3",
                         .source = "gpu", .algorithm = "ring", .transport = "nccl-p2p",
                         .pipeline = 1, .dtype = "float32", .bytes = 1048576,
                         .straggler_rank = -1, .delay_us = 0, .degraded_rank = -1,
                         .factor = 1, .iters = 3, .time_after_arrival_us = 11,
                         .algbw_gbps = 95.325, .busbw_gbps = 142.98,
                         .model_time_us = NAN, .wrong = 0, .status = "ok",
                         .scenario = "two, late", .stragglers = "1:8000;2:4000.5",
                         .degraded = "1:2;3:1.5",
                         .placement = "4 ranks/GPU",
                         .settings = "ce.flow_batch=8388608;flags=kernel"};
  hx_stats_compute(t, 3, &r.t);
  r.samples = t;
  r.repeat_stop = "target";
  CHECK_INT(hx_csv_append(&c, &r), ==, 0);
  struct hx_csv_row na = r;
  na.samples = NULL;
  na.t.n = 0;
  na.time_after_arrival_us = na.algbw_gbps = na.busbw_gbps = NAN;
  na.wrong = -1;
  na.status = "n/a";
  na.scenario = na.stragglers = na.degraded = na.placement = na.settings = NULL; /* empty */
  CHECK_INT(hx_csv_append(&c, &na), ==, 0);
  struct hx_csv_row nosamp = r; /* a time but no samples (an imported row): no interval */
  nosamp.samples = NULL;
  CHECK_INT(hx_csv_append(&c, &nosamp), ==, 0);
  /* --compute: the load's columns, and its samples in compute_samples.csv (none in samples.csv) */
  double ca[] = {8, 9, 10}, cl[] = {12, 13, 14}, cb[] = {11, 12, 13}, cs[] = {12, 13.5, 14};
  struct hx_csv_compute cc = {.load = "gemm:128x128x128", .allreduce_slowdown = 13.0 / 11,
                              .compute_slowdown = 12.0 / 9, .hidden_share = 0.5, .wrong = 0,
                              .samples = {ca, cl, cb}};
  hx_stats_compute(ca, 3, &cc.alone);
  hx_stats_compute(cl, 3, &cc.loaded);
  hx_stats_compute(cb, 3, &cc.load_loaded);
  hx_stats_compute(cs, 3, &cc.span);
  struct hx_csv_row wl = r;
  wl.samples = NULL;
  wl.compute = &cc;
  CHECK_INT(hx_csv_append(&c, &wl), ==, 0);
  hx_csv_close(&c);
  FILE *f = fopen(path, "r");
  char line[2048], fields[64][128];
  CHECK(f && fgets(line, sizeof(line), f), "read header");
  /* results.csv of arbench run: the SPEC columns, lower_bound_us, the scenario columns, the
   * profile columns, placement and settings, then the statistics columns */
  CHECK_INT(split_csv(line, fields, 64), ==, 63);
  CHECK_STR(fields[45], "compute");
  CHECK_STR(fields[58], "allreduce_slowdown");
  CHECK_STR(fields[62], "compute_n_samples");
  CHECK_STR(fields[37], "placement");
  CHECK_STR(fields[38], "settings");
  static const char *const stats_cols[] = {"row_key", "n_samples", "time_us_ci_lo",
                                           "time_us_ci_hi", "ci_level_pct", "repeat_stop"};
  for (int i = 0; i < 6; i++) CHECK_STR(fields[39 + i], stats_cols[i]);
  CHECK(!strncmp(line, hx_csv_header, strlen(hx_csv_header)), "SPEC columns first: %s", line);
  CHECK_STR(fields[31], "lower_bound_us");
  CHECK_STR(fields[32], "scenario");
  CHECK_STR(fields[33], "stragglers");
  CHECK_STR(fields[34], "degraded");
  CHECK(fgets(line, sizeof(line), f) != NULL, "read row");
  CHECK_INT(split_csv(line, fields, 64), ==, 63);
  /* row 1, its 3 samples: the median's interval below 6 samples is [min, max], 75% */
  CHECK_STR(fields[39], "1");
  CHECK_STR(fields[40], "3");
  CHECK_STR(fields[41], "10.000");
  CHECK_STR(fields[42], "12.000");
  CHECK_STR(fields[43], "75.000");
  CHECK_STR(fields[44], "target");
  CHECK_STR(fields[37], "4 ranks/GPU");
  CHECK_STR(fields[38], "ce.flow_batch=8388608;flags=kernel");
  CHECK_STR(fields[32], "two, late"); /* quoted: it holds a comma */
  CHECK_STR(fields[33], "1:8000;2:4000.5");
  CHECK_STR(fields[34], "1:2;3:1.5");
  CHECK_STR(fields[3], "NVIDIA \"H200\", SXM");
  CHECK_STR(fields[8], "gpu");
  CHECK_STR(fields[13], "1048576");
  CHECK_STR(fields[14], "-1");
  CHECK_STR(fields[17], "1");
  CHECK_STR(fields[20], "11.000"); /* median */
  CHECK_STR(fields[23], "12.000"); /* p95 of 3 values: the largest */
  CHECK_STR(fields[28], "");       /* no model time on a GPU row */
  CHECK_STR(fields[29], "0");
  CHECK_STR(fields[30], "ok");
  CHECK_STR(fields[31], ""); /* no lower bound: not degraded */
  CHECK(fgets(line, sizeof(line), f) != NULL, "read n/a row");
  CHECK_INT(split_csv(line, fields, 64), ==, 63);
  CHECK_STR(fields[39], "2"); /* every row numbered; the rest empty: it did not run */
  for (int i = 40; i < 45; i++) CHECK_STR(fields[i], "");
  CHECK_STR(fields[37], ""); /* no placement given: empty */
  CHECK_STR(fields[38], "");
  CHECK(!fields[20][0] && !fields[26][0] && !fields[29][0], "n/a row has empty measurements");
  CHECK_STR(fields[30], "n/a");
  CHECK(!fields[32][0] && !fields[33][0] && !fields[34][0], "no scenario: empty columns");
  CHECK(fgets(line, sizeof(line), f) != NULL, "read the row without samples");
  CHECK_INT(split_csv(line, fields, 64), ==, 63);
  CHECK(!strcmp(fields[20], "11.000") && !strcmp(fields[39], "3") && !fields[40][0] &&
            !fields[41][0] && !fields[43][0] && !fields[44][0],
        "a time without samples: no n_samples, interval or repeat_stop (%s %s %s)", fields[20],
        fields[39], fields[40]);
  for (int i = 45; i < 63; i++) CHECK(!fields[i][0], "no load: column %d holds %s", i, fields[i]);
  CHECK(fgets(line, sizeof(line), f) != NULL, "read the row with a load");
  CHECK_INT(split_csv(line, fields, 64), ==, 63);
  static const char *const load_cols[] = {"gemm:128x128x128", "9.000", "8.000", "10.000",
                                          "13.000", "12.000", "14.000", "12.000", "11.000",
                                          "13.000", "13.500", "12.000", "14.000", "1.182",
                                          "1.333", "0.500", "0", "3"};
  for (int i = 0; i < 18; i++) CHECK_STR(fields[45 + i], load_cols[i]);
  if (f) fclose(f);
  snprintf(spath, sizeof(spath), "%s/compute_samples.csv", dir);
  f = fopen(spath, "r");
  char load_all[512] = "";
  for (size_t k = 0; f && fgets(line, sizeof(line), f) && k < sizeof(load_all);)
    k += (size_t)snprintf(load_all + k, sizeof(load_all) - k, "%s", line);
  CHECK_STR(load_all, "row_key,series,sample,time_us\n4,compute,1,8.000\n4,compute,2,9.000\n"
                      "4,compute,3,10.000\n4,allreduce_loaded,1,12.000\n4,allreduce_loaded,2,"
                      "13.000\n4,allreduce_loaded,3,14.000\n4,compute_loaded,1,11.000\n"
                      "4,compute_loaded,2,12.000\n4,compute_loaded,3,13.000\n");
  if (f) fclose(f);
  unlink(spath);
  snprintf(spath, sizeof(spath), "%s/samples.csv", dir);
  /* samples.csv: row 1's samples in the order measured, nothing of the others */
  f = fopen(spath, "r");
  char all[512] = "";
  size_t k = 0;
  while (f && fgets(line, sizeof(line), f) && k < sizeof(all))
    k += (size_t)snprintf(all + k, sizeof(all) - k, "%s", line);
  CHECK_STR(all, "row_key,sample,time_us\n1,1,10.000\n1,2,12.000\n1,3,11.000\n");
  if (f) fclose(f);
  unlink(spath);
  /* the model's CSV (hx_csv_open) keeps the header without the scenario columns */
  CHECK_INT(hx_csv_open(&c, path), ==, 0);
  CHECK_INT(hx_csv_append(&c, &r), ==, 0);
  hx_csv_close(&c);
  f = fopen(path, "r");
  CHECK(f && fgets(line, sizeof(line), f), "read model header");
  CHECK_INT(split_csv(line, fields, 50), ==, 32);
  CHECK(f && fgets(line, sizeof(line), f), "read model row");
  CHECK_INT(split_csv(line, fields, 50), ==, 32);
  if (f) fclose(f);
  CHECK(access(spath, F_OK) != 0, "the model's CSV has no samples.csv");
  unlink(path);
  rmdir(dir);
}

/* Parses a command line given as one string; returns run_opts_parse's value. */
static int parse_line_loud(struct run_opts *o, const char *line) {
  char buf[1024], *argv[64];
  int argc = test_argv(line, buf, sizeof(buf), argv, 64);
  run_opts_free(o);
  return run_opts_parse(argc, argv, o);
}

static int saved_out = -1, saved_err = -1;

/* Hides stdout and stderr (the messages of bad input) until quiet_off(). */
static void quiet_on(void) {
  fflush(stdout);
  fflush(stderr);
  saved_out = dup(1);
  saved_err = dup(2);
  int null = open("/dev/null", O_WRONLY);
  dup2(null, 1);
  dup2(null, 2);
  close(null);
}

static void quiet_off(void) {
  fflush(stdout);
  fflush(stderr);
  dup2(saved_out, 1);
  dup2(saved_err, 2);
  close(saved_out);
  close(saved_err);
}

/* Parses a command line given as one string, its messages hidden; returns run_opts_parse's. */
static int parse_line(struct run_opts *o, const char *line) {
  quiet_on();
  int rc = parse_line_loud(o, line);
  quiet_off();
  return rc;
}

/* run_opts_check_ranks with its message hidden. */
static int check_ranks_quiet(const struct run_opts *o, int n) {
  quiet_on();
  int rc = run_opts_check_ranks(o, n);
  quiet_off();
  return rc;
}

static void test_sweep(void) {
  struct msg_size s[HX_MAX_SIZES];
  int n = sweep_sizes(1024, 8ull << 30, 2, 0, s, HX_MAX_SIZES);
  CHECK_INT(n, ==, 24);
  CHECK(s[0].bytes == 1024 && s[23].bytes == 8ull << 30, "%llu..%llu",
        (unsigned long long)s[0].bytes, (unsigned long long)s[n - 1].bytes);
  n = sweep_sizes(1024, 4096, 2, 1024, s, HX_MAX_SIZES);
  CHECK(n == 4 && s[2].bytes == 3072, "step: n %d", n);
  n = sweep_sizes(1000, 5000, 4, 0, s, HX_MAX_SIZES);
  CHECK(n == 2 && s[1].bytes == 4000, "factor 4: n %d", n);
  CHECK_INT(sweep_sizes(1, 1ull << 40, 2, 1, s, 16), ==, -1);

  static struct run_opts o;
  size_t nall;
  ar_algo_all(&nall);
  CHECK_INT(parse_line(&o, ""), ==, 0);
  CHECK(o.iters == 20 && o.warmup == 5 && o.timeout_s == 120 && o.check == 1 &&
            o.pipeline == 1 && o.dtype == AR_DT_F32 && o.ngpus == 0,
        "defaults: n %d w %d T %d", o.iters, o.warmup, o.timeout_s);
  CHECK(o.nsizes == 24 && o.sizes[0].bytes == 1024 && o.sizes[23].bytes == 8ull << 30 &&
            o.sizes[23].nelem == 2ull << 30 && o.sizes[23].esize == 4, "default sizes %d",
        o.nsizes);
  CHECK_INT(o.nalgos, ==, nall);
  CHECK(o.ntransports == 1 && !strcmp(o.transports[0]->name, "nccl-p2p"), "default transport");
  CHECK_INT(parse_line(&o, "--algo ring,nccl --transport all -b 1K -e 1M -f 4 "
                           "--gpus 2,0,1 --dtype bf16 --check 0 -n 3 -w 0 -T 9 --pipeline 4"),
            ==, 0);
  CHECK(o.nalgos == 2 && !strcmp(o.algos[0]->name, "ring") && !strcmp(o.algos[1]->name, "nccl"),
        "algos %d", o.nalgos);
  CHECK_INT(o.ntransports, ==, AR_NTRANSPORTS); /* the table's: tests/test_transports.c */
  CHECK(o.ntransports >= 4 && !strcmp(o.transports[0]->name, "nccl-p2p") &&
            !strcmp(o.transports[1]->name, "ce") && !strcmp(o.transports[2]->name, "sm") &&
            !strcmp(o.transports[3]->name, "ll"),
        "all: every transport in order");
  CHECK(o.nsizes == 6 && o.sizes[5].bytes == 1048576 && o.sizes[5].nelem == 524288 &&
            o.sizes[5].esize == 2, "sizes %d", o.nsizes);
  CHECK(o.ngpus == 3 && o.gpus[0] == 2 && o.gpus[2] == 1, "gpus %d", o.ngpus);
  CHECK(o.dtype == AR_DT_BF16 && o.check == 0 && o.iters == 3 && o.warmup == 0 &&
            o.timeout_s == 9 && o.pipeline == 4,
        "values");
  CHECK_INT(parse_line(&o, "--sizes 1K,1000000,1M -b 8G"), ==, 0);
  CHECK(o.nsizes == 3 && o.sizes[1].bytes == 1000000 && o.sizes[1].nelem == 250000, "explicit sizes %d", o.nsizes);
  /* a size is whole elements of the dtype, whichever flag names it and wherever --dtype
   * stands: never measured rounded down (1,7,6 were three rows of 4 bytes) */
  CHECK_INT(parse_line(&o, "--sizes 1K,1000003,1M"), ==, -1);
  CHECK_INT(parse_line(&o, "--sizes 1,7,6"), ==, -1);
  CHECK_INT(parse_line(&o, "--sizes 1000002 --dtype bf16"), ==, 0);
  CHECK_INT(parse_line(&o, "--sizes 1000002 --dtype float32"), ==, -1);
  CHECK_INT(parse_line(&o, "--dtype fp16 --sizes 1000003"), ==, -1);
  CHECK_INT(parse_line(&o, "-b 6 -e 1K"), ==, -1);
  CHECK_INT(parse_line(&o, "-b 4 -e 1001"), ==, -1);
  CHECK_INT(parse_line(&o, "-b 4 -e 64 -i 6"), ==, -1);
  CHECK_INT(parse_line(&o, "--find-critical 64M,1000001 --algo ring,stragglar"), ==, -1);
  for (int d = 0; d < 3; d++) { /* what is accepted is measured as asked: no rounding left */
    static const char *const dt[] = {"float32", "bf16", "fp16"};
    char line[128];
    snprintf(line, sizeof(line), "--dtype %s -b 2 -e 8K -f 3", dt[d]);
    int rc = parse_line(&o, line), whole = 1;
    for (int k = 0; rc == 0 && k < o.nsizes; k++)
      whole &= o.sizes[k].nelem * ar_dtype_size(o.dtype) == o.sizes[k].bytes &&
               o.sizes[k].esize == (int)ar_dtype_size(o.dtype);
    CHECK(rc == (d ? 0 : -1) && whole, "%s: rc %d, every size whole %d", line, rc, whole);
  }
  /* --find-critical's sizes replace --sizes', resolved as they are; --sizes is still checked */
  CHECK(parse_line(&o, "--sizes 1K --find-critical 64M,128M --algo ring,stragglar --dtype fp16") == 0 &&
            o.nsizes == 2 && o.sizes[1].bytes == 128u << 20 && o.sizes[1].nelem == 64u << 20 &&
            o.sizes[1].esize == 2,
        "critical sizes resolved: %d", o.nsizes);
  CHECK_INT(parse_line(&o, "--sizes 6 --find-critical 64M --algo ring,stragglar"), ==, -1);
  CHECK_INT(parse_line(&o, "-i 1K -b 1K -e 3K"), ==, 0);
  CHECK_INT(o.nsizes, ==, 3);
  CHECK_INT(parse_line(&o, "--help"), ==, 1);
  /* each of these is bad input (the message goes to stderr) */
  const char *bad[] = {"-b 8X",           "-b 2M -e 1M",     "-f 1",         "--algo foo",
                       "--transport nccl", "--gpus 0",       "--gpus ,",     "--gpus a,b",
                       "-n 0",             "-w -1",          "-T 0",         "--dtype f64",
                       "--check 2",        "--pipeline -1",  "--straggler 1", "--straggler 1:-2ms",
                       "--torus 2y2",      "--bogus",        "stray",        "--sizes 1K,,x",
                       "-n",               "--ranks 1",      "--ranks 17",   "--ranks x",
                       "--gpus 0,1,2 --ranks 2"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    CHECK(parse_line(&o, bad[i]) == -1, "'%s' accepted", bad[i]);
  CHECK(parse_line(&o, "--pipeline 0") == 0 && o.pipeline == 0, "--pipeline 0: the transport chooses");
  /* an item named twice in a list is refused (docs/cli.md), as a size named twice always was */
  CHECK(parse_line(&o, "--transport ll,ce,ll") == -1, "--transport ll,ce,ll accepted");
  CHECK(parse_line(&o, "--algo ring,nccl,ring") == -1, "--algo ring,nccl,ring accepted");
  CHECK(parse_line(&o, "--pipeline 1025") == -1, "--pipeline 1025 accepted");
  CHECK_INT(parse_line(&o, "--gpus 0,1 --straggler 1:2ms"), ==, 0);
  CHECK_INT(run_opts_check_ranks(&o, 2), ==, 0);
  CHECK_INT(check_ranks_quiet(&o, 1), ==, -1);
  CHECK(NEAR(sweep_delay_us(&o, 0, 3, 7), 2000), "fixed delay %g", sweep_delay_us(&o, 0, 3, 7));
  CHECK_INT(parse_line(&o, "--straggler 0:1ms-3ms,2:5ms"), ==, 0);
  double lo = 1e9, hi = 0, same = sweep_delay_us(&o, 0, 1, 1);
  for (int it = 0; it < 1000; it++) {
    double d = sweep_delay_us(&o, 0, 1, it);
    lo = fmin(lo, d);
    hi = fmax(hi, d);
  }
  CHECK(lo >= 1000 && hi < 3000 && hi - lo > 1800, "uniform delays in [%g, %g]", lo, hi);
  CHECK(sweep_delay_us(&o, 0, 1, 1) == same, "uniform delays are reproducible");
  CHECK(NEAR(sweep_delay_us(&o, 1, 1, 5), 5000), "second straggler %g", sweep_delay_us(&o, 1, 1, 5));
  char path[] = "/tmp/arbench_test_delays_XXXXXX";
  int fd = mkstemp(path);
  if (fd >= 0) {
    FILE *f = fdopen(fd, "w");
    fprintf(f, "# delays\n100us\n\n2ms\n 300 \n");
    fclose(f);
    char line[128];
    snprintf(line, sizeof(line), "--straggler 3:@%s", path);
    CHECK_INT(parse_line(&o, line), ==, 0);
    CHECK(o.ndelays[0] == 3 && NEAR(sweep_delay_us(&o, 0, 0, 1), 2000) &&
              NEAR(sweep_delay_us(&o, 0, 0, 5), 300),
          "file delays: %d", o.ndelays[0]);
    f = fopen(path, "w");
    fprintf(f, "100us\nsoon\n");
    fclose(f);
    CHECK_INT(parse_line(&o, line), ==, -1);
    unlink(path);
  }
  run_opts_free(&o);
}

static void test_inputs(void) {
  int seen[9] = {0}, differ = 0, out_of_range = 0;
  for (uint64_t i = 0; i < 100000; i++) {
    int v0 = ar_input_value(0, i, 7), v1 = ar_input_value(1, i, 7);
    if (v0 < -4 || v0 > 4)
      out_of_range++;
    else
      seen[v0 + 4]++;
    differ += v0 != v1;
  }
  CHECK_INT(out_of_range, ==, 0);
  for (int k = 0; k < 9; k++)
    CHECK(seen[k] > 9000, "value %d seen %d times", k - 4, seen[k]);
  CHECK(differ > 80000, "ranks 0 and 1 differ at %d of 100000 positions", differ);
  /* neighbouring elements and far ones (beyond 2^32) differ too: position matters; a chunk
   * moved by any offset (a misplaced chunk) differs at most positions */
  int adj = 0, far = 0, moved[4] = {0};
  const uint64_t shift[4] = {64, 4096, 1u << 20, 3 * (1ull << 28)};
  for (uint64_t i = 0; i < 1000; i++) {
    adj += ar_input_value(2, i, 7) != ar_input_value(2, i + 1, 7);
    far += ar_input_value(2, i, 7) != ar_input_value(2, i + (1ull << 32), 7);
    for (int k = 0; k < 4; k++)
      moved[k] += ar_expected_value(4, i, 7) != ar_expected_value(4, i + shift[k], 7);
  }
  CHECK(adj > 800 && far > 800, "adjacent %d, 2^32 apart %d differ", adj, far);
  for (int k = 0; k < 4; k++)
    CHECK(moved[k] > 700, "sums %llu apart differ at %d of 1000", (unsigned long long)shift[k],
          moved[k]);
  /* every iteration has inputs of its own: the seeds 1, 2, 3 (and far apart ones) give other
   * values at most positions, for every rank, and other sums: a read of the last iteration's
   * data shows in the check */
  for (int r = 0; r < 16; r++) {
    int next = 0, far_seed = 0;
    for (uint64_t i = 0; i < 1000; i++) {
      next += ar_input_value(r, i, 1 + (uint64_t)r) != ar_input_value(r, i, 2 + (uint64_t)r);
      far_seed += ar_input_value(r, i, 5) != ar_input_value(r, i, 5 + (1ull << 40));
    }
    CHECK(next > 800 && far_seed > 800,
          "rank %d: seeds s, s+1 differ at %d, s, s+2^40 at %d of 1000", r, next, far_seed);
  }
  int stale = 0;
  for (uint64_t i = 0; i < 1000; i++)
    stale += ar_expected_value(8, i, 41) != ar_expected_value(8, i, 42);
  CHECK(stale > 800, "sums of consecutive seeds differ at only %d of 1000", stale);
  int worst = 0;
  for (uint64_t i = 0; i < 10000; i++) {
    int e = ar_expected_value(16, i, 3 + i / 100), s = 0;
    for (int r = 0; r < 16; r++)
      s += ar_input_value(r, i, 3 + i / 100);
    if (e != s) worst = 1000;
    if (abs(e) > worst) worst = abs(e);
  }
  CHECK(worst <= 64, "16-rank sums reach %d (bf16 is exact to 256)", worst);
  /* the key form the kernels use (one key per rank and seed) is the same function */
  int same = 1;
  for (uint64_t i = 0; i < 1000; i++)
    same &= ar_input_at(ar_input_key(5, 99), i * 977) == ar_input_value(5, i * 977, 99);
  CHECK(same, "ar_input_at(ar_input_key()) differs from ar_input_value()");
  /* pinned: a checksum of 4000 inputs. The GPU kernels compute this very function (check.cu
   * has no copy of its own); a change here changes what every run checks: on purpose only */
  long long sum = 0;
  for (int r = 0; r < 4; r++)
    for (uint64_t i = 0; i < 1000; i++)
      sum += (long long)(i + 1 + r * 1000) * ar_input_value(r, i * 1000003ull, 1 + r);
  CHECK(sum == -487727, "input checksum %lld, pinned -487727", sum);
}

/* Ranks on GPUs: --gpus with repeats, --ranks round-robin, the placement text and the SM
 * shares of waiting kernels (placement.h). */
static void test_placement(void) {
  static struct run_opts o; /* zeroed: parse_line frees what the last parse kept */
  CHECK_INT(parse_line(&o, "--gpus 0,0,0,0"), ==, 0);
  CHECK(o.ngpus == 4 && o.gpus[3] == 0 && o.nranks == 0, "--gpus 0,0,0,0: %d", o.ngpus);
  CHECK_INT(parse_line(&o, "--gpus 0 --ranks 8"), ==, 0);
  CHECK(o.ngpus == 1 && o.nranks == 8, "--gpus 0 --ranks 8: %d %d", o.ngpus, o.nranks);
  CHECK_INT(parse_line(&o, "--ranks 3"), ==, 0);
  CHECK_INT(parse_line(&o, "--self-test delay --gpus 1"), ==, 0); /* one GPU is enough there */
  struct ar_placement p;
  char t[64], d[256];
  int one[] = {0}, two[] = {0, 1}, four[] = {0, 1, 2, 3};
  ar_place_round_robin(&p, one, 1, 8);
  CHECK(p.n == 8 && p.ndev == 1 && p.share[5] == 8 && p.slot[5] == 5, "8 on 1: %d %d", p.ndev,
        p.share[5]);
  CHECK_STR(ar_place_text(&p, t, sizeof(t)), "8 ranks/GPU");
  CHECK_STR(ar_place_detail(&p, d, sizeof(d)), "GPU 0: ranks 0-7");
  CHECK(ar_place_colocated(&p), "8 ranks on one GPU are co-located");
  /* the SM shares of one GPU's ranks add up to at most its SMs, none is empty */
  for (int n = 2; n <= AR_PLACE_MAX; n++) {
    ar_place_round_robin(&p, one, 1, n);
    int sum = 0;
    for (int r = 0; r < n; r++) sum += ar_place_sms(&p, r, 132);
    CHECK(sum <= 132 && ar_place_sms(&p, 0, 132) >= 132 / n, "%d ranks: %d SMs", n, sum);
  }
  CHECK_INT(ar_place_sms(&p, 0, 4), ==, 1); /* 16 ranks on 4 SMs: still one each */
  ar_place_round_robin(&p, two, 2, 5); /* ranks 0,2,4 on GPU 0; 1,3 on GPU 1 */
  CHECK_STR(ar_place_text(&p, t, sizeof(t)), "2-3 ranks/GPU");
  CHECK_STR(ar_place_detail(&p, d, sizeof(d)), "GPU 0: ranks 0,2,4; GPU 1: ranks 1,3");
  CHECK(ar_place_sms(&p, 0, 132) == 44 && ar_place_sms(&p, 1, 132) == 66, "uneven shares");
  ar_place_round_robin(&p, four, 4, 4);
  CHECK_STR(ar_place_text(&p, t, sizeof(t)), "1 rank/GPU");
  CHECK_STR(ar_place_detail(&p, d, sizeof(d)), "GPU 0: rank 0; GPU 1: rank 1; GPU 2: rank 2; "
            "GPU 3: rank 3");
  CHECK(!ar_place_colocated(&p) && ar_place_sms(&p, 2, 132) == 132, "one rank per GPU");
  int pairs[] = {3, 3, 5, 5};
  ar_place(&p, pairs, 4);
  CHECK_STR(ar_place_detail(&p, d, sizeof(d)), "GPU 3: ranks 0,1; GPU 5: ranks 2,3");
}

int main(void) {
  test_stats();
  test_placement();
  test_csv();
  test_sweep();
  test_inputs();
  return TEST_DONE();
}
