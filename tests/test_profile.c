/* --profile's pure half (harness/profile/profile.c) without a GPU: unions of intervals (empty,
 * nested, duplicate, touching, unsorted), intersections, kernel classes from mangled and plain
 * names, per-rank figures attributed by device, the mean over ranks, overlap.csv's lines,
 * timeline.csv's lines (order, times, ranks, kinds, peers, quoting), and the --profile flag.
 * The harness sources are compiled in (the test link line has only the core and the argument
 * parsers: args.o, bad_value.o, config.o). */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"

#include "record/csv.c"
#include "profile/profile.c"
#include "record/stats.c"
#include "plan/options.c"
#include "plan/critical.c" /* sweep.c estimates searches with it */
#include "plan/sweep.c"
#include "profile/trace.c"

#define NEAR(a, b) (fabs((double)(a) - (b)) < 1e-9 * (1 + fabs((double)(b))))

/* Unions the n intervals given as (start, end) pairs into v; returns the count left. */
static size_t make(struct hx_ival *v, const uint64_t *pairs, size_t n) {
  for (size_t i = 0; i < n; i++) {
    v[i].start = pairs[2 * i];
    v[i].end = pairs[2 * i + 1];
  }
  return hx_ival_union(v, n);
}

static void test_union(void) {
  struct hx_ival v[16];
  /* nothing, and only empty intervals */
  CHECK_INT(hx_ival_union(v, 0), ==, 0);
  CHECK_INT(hx_ival_length(v, 0), ==, 0);
  const uint64_t empty[] = {5, 5, 9, 3};
  CHECK_INT(make(v, empty, 2), ==, 0);
  /* one interval stays as it is */
  const uint64_t one[] = {10, 20};
  CHECK_INT(make(v, one, 1), ==, 1);
  CHECK(v[0].start == 10 && v[0].end == 20, "one: [%llu, %llu)", (unsigned long long)v[0].start,
        (unsigned long long)v[0].end);
  /* unsorted, nested, duplicate, overlapping, touching, and an empty one in between */
  const uint64_t mix[] = {50, 60, 0, 10, 2, 5, 0, 10, 8, 12, 12, 15, 30, 30, 40, 45, 44, 50};
  size_t n = make(v, mix, 9);
  CHECK_INT(n, ==, 2);
  CHECK(v[0].start == 0 && v[0].end == 15, "merged [%llu, %llu), want [0, 15)",
        (unsigned long long)v[0].start, (unsigned long long)v[0].end);
  CHECK(v[1].start == 40 && v[1].end == 60, "merged [%llu, %llu), want [40, 60)",
        (unsigned long long)v[1].start, (unsigned long long)v[1].end);
  CHECK_INT(hx_ival_length(v, n), ==, 35);
  /* disjoint ones stay apart, sorted */
  const uint64_t apart[] = {30, 31, 10, 11, 20, 21};
  n = make(v, apart, 3);
  CHECK_INT(n, ==, 3);
  CHECK(v[0].start == 10 && v[1].start == 20 && v[2].start == 30, "sorted");
  CHECK_INT(hx_ival_length(v, n), ==, 3);
  /* CUPTI-sized timestamps (ns since 1970) do not overflow */
  const uint64_t big[] = {1700000000000000000ull, 1700000000000001000ull, 1700000000000000500ull,
                          1700000000000002000ull};
  n = make(v, big, 2);
  CHECK_INT(n, ==, 1);
  CHECK_INT(hx_ival_length(v, n), ==, 2000);
}

static void test_overlap(void) {
  struct hx_ival a[8], b[8];
  const uint64_t pa[] = {0, 10, 20, 30, 40, 100};
  const uint64_t pb[] = {5, 25, 50, 60, 90, 200};
  size_t na = make(a, pa, 3), nb = make(b, pb, 3);
  /* [5,10) + [20,25) + [50,60) + [90,100) */
  CHECK_INT(hx_ival_overlap(a, na, b, nb), ==, 5 + 5 + 10 + 10);
  CHECK_INT(hx_ival_overlap(b, nb, a, na), ==, 30); /* symmetric */
  CHECK_INT(hx_ival_overlap(a, na, a, na), ==, hx_ival_length(a, na));
  CHECK_INT(hx_ival_overlap(a, na, b, 0), ==, 0);
  CHECK_INT(hx_ival_overlap(a, 0, b, nb), ==, 0);
  /* touching is not overlapping */
  const uint64_t pc[] = {10, 20}, pd[] = {20, 30};
  size_t nc = make(a, pc, 1), nd = make(b, pd, 1);
  CHECK_INT(hx_ival_overlap(a, nc, b, nd), ==, 0);
  /* one long interval against many short ones */
  const uint64_t pl[] = {0, 1000};
  const uint64_t ps[] = {10, 20, 500, 510, 990, 1010, 2000, 2100};
  size_t nl = make(a, pl, 1), ns = make(b, ps, 4);
  CHECK_INT(hx_ival_overlap(a, nl, b, ns), ==, 10 + 10 + 10);
}

static void test_classes(void) {
  /* the harness's kernels, as CUPTI names them (mangled) */
  CHECK_INT(hx_profile_kernel_class("_Z10sum_kernelIfEvPT_7tp_srcsim"), ==, HX_PROF_REDUCE);
  CHECK_INT(hx_profile_kernel_class("_Z10sum_kernelI13__nv_bfloat16EvPT_7tp_srcsim"), ==,
            HX_PROF_REDUCE);
  CHECK_INT(hx_profile_kernel_class("_Z12delay_kernely"), ==, HX_PROF_DELAY);
  CHECK_INT(hx_profile_kernel_class("_Z9sm_kernelIfLb0EEvPK5sm_opij"), ==,
            HX_PROF_COPY | HX_PROF_REDUCE);
  CHECK_INT(hx_profile_kernel_class("_Z16sm_kernel_markedIfLb1EEvPK5sm_opijPy"), ==,
            HX_PROF_COPY | HX_PROF_REDUCE);
  CHECK_INT(hx_profile_kernel_class("_Z10llk_kernelIfLi0ELb0EEv8llk_args"), ==,
            HX_PROF_COPY | HX_PROF_REDUCE);
  CHECK_INT(hx_profile_kernel_class("_Z10llk_kernelI13__nv_bfloat16Li1ELb1EEv8llk_args"), ==,
            HX_PROF_COPY | HX_PROF_REDUCE);
  CHECK_INT(hx_profile_kernel_class("_Z9ll_kernelIfEv7ll_args"), ==, HX_PROF_COPY | HX_PROF_REDUCE);
  CHECK_INT(hx_profile_kernel_class("_Z10ll_kernelsv"), ==, 0);
  CHECK_INT(hx_profile_kernel_class("_Z14ll_kernel_lineIfLi4EEv7ll_args"), ==,
            HX_PROF_COPY | HX_PROF_REDUCE);
  CHECK_INT(hx_profile_kernel_class("_Z14ll_kernel_lastIfLi4EEv7ll_args"), ==, 0);
  CHECK_INT(hx_profile_kernel_class("_ZN12_GLOBAL__N_110sum_kernelIfEEvPT_"), ==, HX_PROF_REDUCE);
  CHECK_INT(hx_profile_kernel_class(
                "_Z40ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE"),
            ==, HX_PROF_COPY);
  CHECK_INT(
      hx_profile_kernel_class("_Z22ncclDevKernel_SendRecv24ncclDevKernelArgsStorageILm4096EE"), ==,
      HX_PROF_COPY);
  /* plain and demangled names */
  CHECK_INT(hx_profile_kernel_class("ncclDevKernel_Generic"), ==, HX_PROF_COPY);
  CHECK_INT(hx_profile_kernel_class("void sum_kernel<float>(float*, tp_srcs, int, unsigned long)"),
            ==, HX_PROF_REDUCE);
  CHECK_INT(hx_profile_kernel_class("delay_kernel(unsigned long long)"), ==, HX_PROF_DELAY);
  /* not ours to count: the fill, check, gate, flag and pacing kernels; near misses */
  const char *none[] = {"_Z11fill_kernelIfEvPT_miy",
                        "_Z12check_kernelIfEvPKT_miyPy",
                        "_Z11gate_kernelPVKyyyPj",
                        "_ZL17flag_wait_kernelPKjj",
                        "_ZL11pace_kernelPKmmS0_m",
                        "_Z13sum_kernel_v2v",
                        "_Z11sm_kernelxxv",
                        "_Z13delay_kernel2y",
                        "my_sum_kernel",
                        "sm_kernels",
                        "_Z11llk_kernelsv",
                        "",
                        NULL,
                        "_Z999sum_kernel",
                        "_Z"};
  for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
    CHECK(hx_profile_kernel_class(none[i]) == 0, "'%s' classified %u", none[i] ? none[i] : "(null)",
          hx_profile_kernel_class(none[i]));
}

/* A record on device dev over [a, b) us. */
static struct hx_prof_rec rec_us(uint32_t dev, unsigned cls, uint64_t a, uint64_t b) {
  const uint64_t t0 = 1700000000000000000ull;
  return (struct hx_prof_rec){.start = t0 + a * 1000, .end = t0 + b * 1000, .device = dev,
                              .cls = cls};
}

static void test_compute(void) {
  /* GPUs 4..7 as ranks 0..3 (the device ordinals are not the ranks); GPU 1 is not in the run */
  struct hx_prof_rec r[] = {
      rec_us(4, HX_PROF_COPY, 0, 100),
      rec_us(4, HX_PROF_REDUCE, 50, 150),
      rec_us(4, HX_PROF_COPY, 20, 40), /* nested in the copy above: counted once */
      rec_us(5, HX_PROF_DELAY, 0, 80),
      rec_us(5, HX_PROF_COPY, 100, 140),
      rec_us(6, HX_PROF_COPY | HX_PROF_REDUCE, 20, 60),
      rec_us(6, HX_PROF_COPY, 40, 100),
      rec_us(7, HX_PROF_COPY, 0, 50),
      rec_us(7, HX_PROF_COPY, 0, 50), /* duplicate */
      rec_us(1, HX_PROF_DELAY, 100, 1000),
      rec_us(1, HX_PROF_COPY, 0, 1000),
  };
  int dev[] = {4, 5, 6, 7};
  struct hx_overlap ov[4];
  CHECK_INT(hx_overlap_compute(r, sizeof(r) / sizeof(r[0]), dev, 4, 2, ov), ==, 0);
  /* per iteration: the totals halved (2 iterations) */
  const double copy[] = {50, 20, 40, 25}, red[] = {50, 0, 20, 0}, own[] = {0, 40, 0, 0};
  const double rp[] = {50, 0, 50, 0}, dp[] = {80, 0, 75, 100};
  for (int k = 0; k < 4; k++) {
    CHECK(NEAR(ov[k].copy_us, copy[k]) && NEAR(ov[k].reduce_us, red[k]) &&
              NEAR(ov[k].delay_us, own[k]),
          "rank %d: copy %g reduce %g delay %g", k, ov[k].copy_us, ov[k].reduce_us, ov[k].delay_us);
    CHECK(NEAR(ov[k].reduce_pct, rp[k]) && NEAR(ov[k].delay_pct, dp[k]),
          "rank %d: overlap reduce %g%% (want %g) delay %g%% (want %g)", k, ov[k].reduce_pct, rp[k],
          ov[k].delay_pct, dp[k]);
  }
  double mr, md;
  hx_overlap_mean(ov, 4, &mr, &md);
  CHECK(NEAR(mr, 25) && NEAR(md, 63.75), "mean %g %g", mr, md);

  /* a rank that copied nothing: its shares are undefined and left out of the mean */
  int dev2[] = {4, 9};
  CHECK_INT(hx_overlap_compute(r, sizeof(r) / sizeof(r[0]), dev2, 2, 1, ov), ==, 0);
  CHECK(isnan(ov[1].reduce_pct) && isnan(ov[1].delay_pct) && ov[1].copy_us == 0, "no copies: %g %g",
        ov[1].reduce_pct, ov[1].delay_pct);
  /* GPU 5's delay is not in this run: rank 0's copies overlap no delay */
  CHECK(NEAR(ov[0].delay_pct, 0) && NEAR(ov[0].copy_us, 100), "delay of another run counted: %g",
        ov[0].delay_pct);
  hx_overlap_mean(ov, 2, &mr, &md);
  CHECK(NEAR(mr, 50) && NEAR(md, 0), "mean over the rank that copied: %g %g", mr, md);
  /* no records at all */
  CHECK_INT(hx_overlap_compute(NULL, 0, dev, 4, 3, ov), ==, 0);
  CHECK(isnan(ov[0].reduce_pct) && ov[0].copy_us == 0 && ov[3].delay_us == 0, "no records");
  hx_overlap_mean(ov, 4, &mr, &md);
  CHECK(isnan(mr) && isnan(md), "no records: mean %g %g", mr, md);
}

/* Creates a fresh file from the template path (mkstemp) and opens it for writing; NULL (a failed
 * check) when it cannot. */
static FILE *tmp_open(char *path) {
  int fd = mkstemp(path);
  CHECK(fd >= 0, "mkstemp");
  if (fd < 0) return NULL;
  close(fd);
  return fopen(path, "w");
}

static void test_write(void) {
  char path[] = "/tmp/arbench_test_overlap_XXXXXX";
  FILE *f = tmp_open(path);
  if (!f) return;
  struct hx_overlap ov[2] = {{12.5, 3, 0, 40, 100.0 / 3}, {0, 0, 8000, NAN, NAN}};
  struct hx_overlap_job j = {"run1", "stragglar", "ce", "profile, 8ms", 1073741824ull, 7};
  CHECK_INT(hx_overlap_write(f, &j, ov, 2), ==, 0);
  fclose(f);
  f = fopen(path, "r");
  char line[512];
  CHECK(f && fgets(line, sizeof(line), f), "line 1");
  CHECK_STR(line, "run1,stragglar,ce,1073741824,\"profile, 8ms\",0,12.500,3.000,0.000,40.000,"
                  "33.333,7\n");
  CHECK(f && fgets(line, sizeof(line), f), "line 2");
  CHECK_STR(line, "run1,stragglar,ce,1073741824,\"profile, 8ms\",1,0.000,0.000,8000.000,,,7\n");
  if (f) fclose(f);
  CHECK_STR(hx_overlap_header, "run_id,algorithm,transport,bytes,scenario,rank,copy_us,reduce_us,"
                               "delay_us,overlap_reduce_pct,overlap_delay_pct,iterations");
  CHECK_INT(hx_overlap_write(NULL, &j, ov, 2), ==, 0); /* no file: nothing to do */
  unlink(path);

  /* results.csv of arbench run: the overlap columns after the scenario columns */
  struct hx_csv c;
  CHECK_INT(hx_csv_open_run(&c, path), ==, 0);
  CHECK_STR(c.path, path);
  struct hx_csv_row r = {.run_id = "r",
                         .status = "ok",
                         .wrong = 0,
                         .factor = 1,
                         .delay_us = 0,
                         .time_after_arrival_us = NAN,
                         .algbw_gbps = NAN,
                         .busbw_gbps = NAN,
                         .model_time_us = NAN,
                         .scenario = "s",
                         .profiled = 1,
                         .overlap_reduce_pct = 25,
                         .overlap_delay_pct = NAN};
  CHECK_INT(hx_csv_append(&c, &r), ==, 0);
  r.profiled = 0; /* not profiled: empty, whatever the numbers hold */
  CHECK_INT(hx_csv_append(&c, &r), ==, 0);
  hx_csv_close(&c);
  f = fopen(path, "r");
  char head[1024];
  CHECK(f && fgets(head, sizeof(head), f), "header");
  const char *tail = ",scenario,stragglers,degraded,overlap_reduce_pct,overlap_delay_pct,placement,"
                     "settings,row_key,n_samples,time_us_ci_lo,time_us_ci_hi,ci_level_pct,"
                     "repeat_stop,compute,compute_us_median,compute_us_ci_lo,compute_us_ci_hi,"
                     "allreduce_loaded_us_median,allreduce_loaded_us_ci_lo,"
                     "allreduce_loaded_us_ci_hi,compute_loaded_us_median,compute_loaded_us_ci_lo,"
                     "compute_loaded_us_ci_hi,span_us_median,span_us_ci_lo,span_us_ci_hi,"
                     "allreduce_slowdown,compute_slowdown,hidden_share,compute_wrong,"
                     "compute_n_samples\n";
  CHECK(strlen(head) > strlen(tail) && !strcmp(head + strlen(head) - strlen(tail), tail),
        "header ends: %s", head);
  CHECK(f && fgets(line, sizeof(line), f), "row 1");
  /* no samples, and no load: every compute column empty */
  const char *t1 = ",s,,,25.000,,,,1,,,,,,,,,,,,,,,,,,,,,,,\n", *t2 = ",s,,,,,,,2,,,,,,,,,,,,,,,,,,,,,,,\n";
  CHECK(strlen(line) > strlen(t1) && !strcmp(line + strlen(line) - strlen(t1), t1), "row 1: %s",
        line);
  CHECK(f && fgets(line, sizeof(line), f), "row 2");
  CHECK(strlen(line) > strlen(t2) && !strcmp(line + strlen(line) - strlen(t2), t2), "row 2: %s",
        line);
  if (f) fclose(f);
  unlink(path);
}

/* A timeline record on device dev over [a, b) ns from an arbitrary origin. */
static struct hx_prof_rec tl_rec(uint32_t dev, unsigned kind, unsigned cls, uint64_t a, uint64_t b,
                                 const char *name, int peer, uint64_t bytes, uint32_t stream) {
  const uint64_t t0 = 1700000000000000000ull;
  struct hx_prof_rec r = {.start = t0 + a, .end = t0 + b, .device = dev, .cls = cls,
                          .kind = kind, .stream = stream, .peer = peer, .bytes = bytes};
  snprintf(r.name, sizeof(r.name), "%s", name ? name : "");
  return r;
}

/* Reads the whole file at path into buf (NUL-terminated); returns its length or -1. */
static long slurp(const char *path, char *buf, size_t len) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  size_t k = fread(buf, 1, len - 1, f);
  buf[k] = 0;
  fclose(f);
  return (long)k;
}

static void test_timeline(void) {
  CHECK_STR(hx_timeline_header, "run_id,algorithm,transport,bytes,scenario,rank,kind,name,"
                                "start_us,end_us,peer,copy_bytes,stream");
  /* GPUs 4..7 are ranks 0..3; GPU 9 is not in the run (its record is the earliest: it must
   * neither be written nor move the origin, 5000 ns) */
  struct hx_prof_rec r[] = {
      tl_rec(5, HX_REC_KERNEL, HX_PROF_DELAY, 35000, 85000, "_Z12delay_kernely", 0, 0, 7),
      tl_rec(4, HX_REC_PTOP, HX_PROF_COPY, 15000, 55000, "", 6, 1048576, 3),
      tl_rec(9, HX_REC_DTOD, HX_PROF_COPY, 0, 500000, "", -1, 64, 1),
      tl_rec(6, HX_REC_KERNEL, HX_PROF_REDUCE, 15000, 25500, "void sum_kernel<float>(float*, int)",
             0, 0, 2), /* same start as rank 0's copy: after it (rank order); quoted */
      tl_rec(4, HX_REC_KERNEL, HX_PROF_COPY | HX_PROF_REDUCE, 65000, 75000, "_Z9sm_kernelv", 0,
             99, 3), /* a kernel's bytes are not written */
      tl_rec(7, HX_REC_HTOD, 0, 5000, 5250, "", 0, 4096, 0),
      tl_rec(7, HX_REC_KERNEL, 0, 5000, 4000, "_Z11gate_kernelPVKyyyPj", 0, 0, 0), /* end < start */
      tl_rec(6, HX_REC_PTOP, HX_PROF_COPY, 90000, 91000, "", -1, 8, 4),  /* peer unknown */
      tl_rec(5, HX_REC_PTOP, HX_PROF_COPY, 90000, 92000, "", 9, 16, 5),  /* peer not a rank */
      tl_rec(5, HX_REC_DTOH, 0, 100000, 100001, "", 0, 4, 5),
      tl_rec(7, HX_REC_KERNEL, HX_PROF_COPY, 40000, 60000, "ncclDevKernel_Generic", 0, 0, 9),
      tl_rec(4, HX_REC_DTOD, HX_PROF_COPY, 15000, 16000, "", 0, 512, 3), /* same start, rank 0:
                                                                           * shorter first */
  };
  int dev[] = {4, 5, 6, 7};
  char path[] = "/tmp/arbench_test_timeline_XXXXXX";
  FILE *f = tmp_open(path);
  if (!f) return;
  struct hx_overlap_job j = {"run1", "ring", "ce", "tl, a", 2048, 3};
  CHECK_INT(hx_timeline_write(f, &j, dev, 4, r, sizeof(r) / sizeof(r[0])), ==, 0);
  fclose(f);
  char got[4096];
  CHECK(slurp(path, got, sizeof(got)) > 0, "read %s", path);
  const char *p = "run1,ring,ce,2048,\"tl, a\",";
  char want[4096];
  snprintf(want, sizeof(want),
           "%s3,kernel,_Z11gate_kernelPVKyyyPj,0.000,0.000,-1,0,0\n" /* an instant: first */
           "%s3,copy-host,htod,0.000,0.250,-1,4096,0\n"
           "%s0,copy,dtod,10.000,11.000,-1,512,3\n"
           "%s0,copy,ptop,10.000,50.000,2,1048576,3\n"
           "%s2,reduce,\"void sum_kernel<float>(float*, int)\",10.000,20.500,-1,0,2\n"
           "%s1,delay,_Z12delay_kernely,30.000,80.000,-1,0,7\n"
           "%s3,copy,ncclDevKernel_Generic,35.000,55.000,-1,0,9\n"
           "%s0,copy+reduce,_Z9sm_kernelv,60.000,70.000,-1,0,3\n"
           "%s1,copy,ptop,85.000,87.000,-1,16,5\n"
           "%s2,copy,ptop,85.000,86.000,-1,8,4\n"
           "%s1,copy-host,dtoh,95.000,95.001,-1,4,5\n",
           p, p, p, p, p, p, p, p, p, p, p);
  CHECK_STR(got, want);
  /* the same records on other GPUs: --gpus 7,6,5,4 turns the ranks and the peer around */
  int rev[] = {7, 6, 5, 4};
  f = fopen(path, "w");
  CHECK_INT(hx_timeline_write(f, &j, rev, 4, r + 1, 1), ==, 0);
  fclose(f);
  CHECK(slurp(path, got, sizeof(got)) > 0, "read %s", path);
  CHECK_STR(got, "run1,ring,ce,2048,\"tl, a\",3,copy,ptop,0.000,40.000,1,1048576,3\n");
  /* only records of other GPUs, or none: nothing written */
  f = fopen(path, "w");
  CHECK_INT(hx_timeline_write(f, &j, dev, 4, r + 2, 1), ==, 0);
  CHECK_INT(hx_timeline_write(f, &j, dev, 4, NULL, 0), ==, 0);
  fclose(f);
  CHECK_INT(slurp(path, got, sizeof(got)), ==, 0);
  CHECK_INT(hx_timeline_write(NULL, &j, dev, 4, r, 3), ==, 0); /* no file: nothing to do */
  unlink(path);
}

/* Parses a command line given as one string; returns run_opts_parse's value. */
static int parse_line(struct run_opts *o, const char *line) {
  char buf[1024], *argv[64];
  int argc = test_argv(line, buf, sizeof(buf), argv, 64);
  run_opts_free(o);
  fflush(stderr);
  return run_opts_parse(argc, argv, o);
}

static void test_flag(void) {
  struct run_opts o;
  memset(&o, 0, sizeof(o));
  CHECK_INT(parse_line(&o, "-b 1K -e 1K"), ==, 0);
  CHECK_INT(o.profile, ==, 0);
  CHECK_INT(parse_line(&o, "-b 1K -e 1K --profile overlap"), ==, 0);
  CHECK_INT(o.profile, ==, 1);
  CHECK_INT(parse_line(&o, "--profile=overlap"), ==, 0);
  CHECK_INT(o.profile, ==, 1);
  CHECK_INT(o.profile, ==, HX_PROFILE_OVERLAP);
  CHECK_INT(parse_line(&o, "--profile timeline"), ==, 0);
  CHECK_INT(o.profile, ==, HX_PROFILE_TIMELINE);
  CHECK_INT(parse_line(&o, "--profile overlap,timeline"), ==, 0);
  CHECK_INT(o.profile, ==, HX_PROFILE_OVERLAP | HX_PROFILE_TIMELINE);
  CHECK_INT(parse_line(&o, "--profile timeline,overlap"), ==, 0);
  CHECK_INT(o.profile, ==, HX_PROFILE_OVERLAP | HX_PROFILE_TIMELINE);
  CHECK_INT(parse_line(&o, "--profile overlap --profile timeline"), ==, 0); /* they add up */
  CHECK_INT(o.profile, ==, HX_PROFILE_OVERLAP | HX_PROFILE_TIMELINE);
  /* bad values: -1 (their one-line messages are checked by tests/test_profile_sim.sh) */
  const char *bad[] = {"--profile foo",        "--profile Overlap",     "--profile overlap,",
                       "--profile ,timeline",  "--profile overlap,,timeline",
                       "--profile=",           "--profile timelines",   "--profile overlap,foo",
                       "--profile overlaptimeline"};
  int got[sizeof(bad) / sizeof(bad[0])];
  fflush(stderr);
  int saved = dup(2), null = open("/dev/null", O_WRONLY);
  dup2(null, 2);
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) got[i] = parse_line(&o, bad[i]);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  close(null);
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    CHECK(got[i] == -1, "'%s' -> %d, want -1", bad[i], got[i]);
  run_opts_free(&o);
}

int main(void) {
  test_union();
  test_overlap();
  test_classes();
  test_compute();
  test_write();
  test_timeline();
  test_flag();
  return TEST_DONE();
}
