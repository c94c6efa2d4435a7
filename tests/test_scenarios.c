/* The pure-C parts of runs with scenarios (harness/cli/config.c, harness/plan/sweep.c): config
 * sections, the plan's merging of common, scenario and command-line words, the new run flags, the
 * straggler-aware schedules built around the --straggler rank, the plan's row counts and the
 * critical search's bound, the progress line, the regression lines of summary.md. sweep.c is
 * compiled in (the test link line has only the core and the argument parsers: args.o,
 * bad_value.o, config.o). */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"

#include "cli/config.h"
#include "plan/options.c"
#include "plan/run_plan.c"
#include "plan/critical.c" /* sweep.c estimates searches with it */
#include "plan/sweep.c"
#include "plan/plan.c"

/* Writes text to a new temporary file; returns its path (static buffer, one at a time). */
static const char *temp_file(const char *text) {
  static char path[64];
  snprintf(path, sizeof(path), "/tmp/arbench-test-scenXXXXXX");
  int fd = mkstemp(path);
  FILE *f = fdopen(fd, "w");
  fputs(text, f);
  fclose(f);
  return path;
}

/* Parses a command line (words separated by spaces, argv[0] = "run") into a plan, with
 * stdout and stderr silenced; returns run_plan_parse's result. */
static int plan_line(struct run_plan *p, const char *line) {
  char buf[2048], *argv[64];
  int argc = test_argv(line, buf, sizeof(buf), argv, 64);
  fflush(stdout);
  fflush(stderr);
  int out = dup(1), err = dup(2), null = open("/dev/null", O_WRONLY);
  dup2(null, 1);
  dup2(null, 2);
  int rc = run_plan_parse(argc, argv, p);
  fflush(stdout);
  fflush(stderr);
  dup2(out, 1);
  dup2(err, 2);
  close(out);
  close(err);
  close(null);
  return rc;
}

static void test_config_sections(void) {
  struct config_file cf;
  const char *path = temp_file("# nightly\n-n 5 --algo ring  # common\n\n[scenario clean]\n"
                               "  [scenario  late.8ms ]  # a comment\n--straggler 1:8ms\n"
                               "-w 2\n[scenario x_y-z]\n");
  CHECK_INT(config_load(path, &cf), ==, 0);
  CHECK_INT(cf.nscen, ==, 3);
  CHECK_INT(cf.common.argc, ==, 4);
  if (cf.nscen == 3 && cf.common.argc == 4) {
    CHECK_STR(cf.common.argv[3], "ring");
    CHECK_STR(cf.scen[0].name, "clean");
    CHECK_INT(cf.scen[0].words.argc, ==, 0);
    CHECK_STR(cf.scen[1].name, "late.8ms");
    CHECK_INT(cf.scen[1].words.argc, ==, 4);
    CHECK_STR(cf.scen[1].words.argv[1], "1:8ms");
    CHECK_STR(cf.scen[2].name, "x_y-z");
  }
  config_file_free(&cf);
  unlink(path);
  path = temp_file("-n 5\n--algo ring\n");
  CHECK_INT(config_load(path, &cf), ==, 0);
  CHECK(cf.nscen == 1 && cf.scen[0].name[0] == 0 && cf.common.argc == 4, "no section: %d",
        cf.nscen);
  config_file_free(&cf);
  unlink(path);
  const char *bad[] = {"[scenario]\n", "[scenario a\n", "[scenario a b]\n", "[Scenario a]\n",
                       "[scenario a]\n[scenario a]\n", "[scenario a] x\n", "[scenario a/b]\n",
                       "[scenario a]\n--algo \"x\n"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    path = temp_file(bad[i]);
    fflush(stderr);
    int saved = dup(2), null = open("/dev/null", O_WRONLY);
    dup2(null, 2);
    int rc = config_load(path, &cf);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    close(null);
    CHECK(rc == -1, "config '%s' accepted", bad[i]);
    unlink(path);
  }
}

static void test_plan_parse(void) {
  static struct run_plan p;
  const char *path = temp_file("-n 5 -w 1 --algo ring,nccl -b 1K -e 4K\n[scenario a]\n-n 7\n"
                               "[scenario b]\n--straggler 1:2ms --find-critical 1M,4M "
                               "--algo ring,stragglar\n[scenario c]\n--degrade 1:2.5\n");
  char line[256];
  snprintf(line, sizeof(line), "--config %s -w 3", path);
  CHECK_INT(plan_line(&p, line), ==, 0);
  CHECK_INT(p.nscen, ==, 3);
  if (p.nscen == 3) {
    struct run_opts *a = &p.scen[0], *b = &p.scen[1], *c = &p.scen[2];
    CHECK_STR(a->scenario, "a");
    CHECK(a->iters == 7 && a->warmup == 3 && a->nsizes == 3, "a: n %d w %d sizes %d", a->iters,
          a->warmup, a->nsizes); /* the scenario wins over common, the command line over both */
    CHECK(b->iters == 5 && b->find_critical && b->nsizes == 2 && b->sizes[1].bytes == 4u << 20,
          "b: n %d critical %d sizes %d", b->iters, b->find_critical, b->nsizes);
    CHECK(b->nst == 1 && b->st[0].rank == 1 && b->nalgos == 2, "b: stragglers %d", b->nst);
    CHECK(c->dg.n == 1 && c->dg.rank[0] == 1 && c->dg.factor[0] == 2.5, "c: degrade %d", c->dg.n);
    CHECK_STR(p.config, path);
  }
  run_plan_free(&p);
  snprintf(line, sizeof(line), "--config=%s --scenario c,a", path);
  CHECK_INT(plan_line(&p, line), ==, 0);
  CHECK(p.nscen == 2 && !strcmp(p.scen[0].scenario, "a") && !strcmp(p.scen[1].scenario, "c"),
        "--scenario c,a: %d", p.nscen); /* the file's order */
  run_plan_free(&p);
  snprintf(line, sizeof(line), "--scenario b --config %s", path);
  CHECK_INT(plan_line(&p, line), ==, 0);
  CHECK_INT(p.nscen, ==, 1);
  run_plan_free(&p);
  snprintf(line, sizeof(line), "--config %s --scenario d", path);
  CHECK_INT(plan_line(&p, line), ==, -1);
  CHECK_INT(plan_line(&p, "--scenario a"), ==, -1);
  CHECK_INT(plan_line(&p, "--help"), ==, 1);
  unlink(path);

  /* without a config: one scenario, and the new flags */
  CHECK_INT(plan_line(&p, "-n 3 --dry-run --find-critical --critical-max 8ms"), ==, 0);
  if (p.nscen == 1) {
    struct run_opts *o = &p.scen[0];
    CHECK(o->dry_run && o->find_critical && o->crit_max_us == 8000, "flags");
    CHECK(o->nsizes == 7 && o->sizes[0].bytes == 64u << 20 && o->sizes[6].bytes == 4ull << 30,
          "default critical sizes %d", o->nsizes);
    CHECK(o->nst == 0 && o->crit_algo == ar_algo_find("stragglar"), "no straggler yet");
    run_opts_settle(o, 4);
    CHECK(o->nst == 1 && o->st[0].rank == 3, "a search's straggler is rank n-1: %d", o->st[0].rank);
  }
  run_plan_free(&p);
  CHECK_INT(plan_line(&p, "--find-critical 1G,2G --algo ring,bcast --critical-algo bcast"), ==, 0);
  CHECK(p.nscen == 1 && p.scen[0].nsizes == 2 && p.scen[0].sizes[0].bytes == 1u << 30, "sizes after");
  run_plan_free(&p);
  CHECK_INT(plan_line(&p, "--find-critical=1G -n 2"), ==, 0);
  CHECK(p.nscen == 1 && p.scen[0].nsizes == 1 && p.scen[0].iters == 2, "=form");
  run_plan_free(&p);
  const char *bad[] = {"--degrade 1:0.9", "--degrade x", "--find-critical 1X",
                       "--find-critical --algo ring", "--find-critical --algo stragglar",
                       "--critical-max 50us", "--critical-max 11s", "--critical-algo ring",
                       "--baseline /nonexistent", "--self-test gpu", "--config",
                       "--config a --config b", "--scenario", "stray"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    CHECK(plan_line(&p, bad[i]) == -1, "'%s' accepted", bad[i]);
    run_plan_free(&p);
  }
  CHECK_INT(plan_line(&p, "--degrade 2:1.5,0:3 --self-test delay"), ==, 0);
  if (p.nscen == 1) {
    CHECK(p.scen[0].dg.n == 2 && !strcmp(p.scen[0].self_test, "delay"), "degrade %d",
          p.scen[0].dg.n);
    CHECK_INT(run_opts_check_ranks(&p.scen[0], 3), ==, 0);
  }
  run_plan_free(&p);
}

/* The straggler-aware schedules are built around the --straggler rank, not n-1. */
static void test_straggler_rank(void) {
  static struct run_plan p;
  CHECK_INT(plan_line(&p, "--algo bcast,ring,nccl --straggler 2:1ms"), ==, 0);
  struct ar_schedule sched[3];
  ar_status st[3];
  sweep_build_schedules(&p.scen[0], 8, sched, st);
  CHECK(st[0] == AR_OK && st[1] == AR_OK && st[2] == AR_ERR_UNSUPPORTED, "built %d %d %d",
        st[0], st[1], st[2]);
  if (st[0] == AR_OK) {
    const struct ar_schedule *s = &sched[0];
    CHECK(s->straggler == 2 && s->nprecond > 0, "bcast straggler %d, precondition %d rounds",
          s->straggler, s->nprecond);
    int touches = 0;
    for (size_t i = 0; i < s->nxfers; i++)
      if (s->xfers[i].round < s->nprecond) touches += s->xfers[i].src == 2 || s->xfers[i].dst == 2;
    CHECK_INT(touches, ==, 0); /* the precondition runs among the others */
  }
  CHECK(sweep_row_na(&p.scen[0], 0, sched, st) == NULL &&
            sweep_row_na(&p.scen[0], 2, sched, st) == NULL,
        "nothing n/a");
  CHECK_INT(sweep_crit_side(&p.scen[0], 0), ==, -1);
  CHECK_INT(sweep_crit_side(&p.scen[0], 1), ==, 0);
  for (int a = 0; a < 3; a++) sched_free(&sched[a]);
  run_plan_free(&p);
  /* without --straggler the straggler-aware ones take n-1; with degraded links only nccl is
   * n/a (the transports emulate them) */
  CHECK_INT(plan_line(&p, "--algo bcast,nccl --degrade 0:2 --sizes 1M"), ==, 0);
  sweep_build_schedules(&p.scen[0], 6, sched, st);
  CHECK(st[0] == AR_OK && sched[0].straggler == 5, "default straggler %d", sched[0].straggler);
  CHECK(sweep_row_na(&p.scen[0], 0, sched, st) == NULL, "bcast degraded n/a");
  CHECK(sweep_row_na(&p.scen[0], 1, sched, st) == NULL, "nccl has no schedule to refuse");
  for (int a = 0; a < 2; a++) sched_free(&sched[a]);
  /* the plan: nccl's rows n/a for its executor (NCCL's own AllReduce cannot be slowed);
   * with the placement known, nccl and nccl-p2p n/a on co-located ranks */
  struct plan pl;
  CHECK_INT(plan_build(&pl, &p.scen[0], 6, NULL), ==, 0);
  CHECK(pl.nrows == 2 && !pl.rows[0].na && pl.rows[1].ex == ar_executor_nccl() &&
            pl.rows[1].na && !strcmp(pl.rows[1].na, "nccl cannot be degraded") && pl.nna == 1,
        "degraded plan: %d rows, %d n/a", pl.nrows, pl.nna);
  plan_free(&pl);
  run_plan_free(&p);
  CHECK_INT(plan_line(&p, "--algo ring,nccl --transport nccl-p2p,ce --sizes 1M"), ==, 0);
  struct plan_where one_gpu = {1, 1, "4 ranks/GPU"};
  CHECK_INT(plan_build(&pl, &p.scen[0], 4, &one_gpu), ==, 0);
  CHECK(pl.nrows == 3 && pl.rows[0].na && strstr(pl.rows[0].na, "(4 ranks/GPU)") && !pl.rows[1].na &&
            pl.rows[2].na && strstr(pl.rows[2].na, "NCCL cannot run two ranks on one GPU"),
        "co-located plan");
  plan_free(&pl);
  CHECK_INT(plan_build(&pl, &p.scen[0], 4, NULL), ==, 0);
  CHECK(pl.nna == 0, "the dry run knows no placement: %d n/a", pl.nna);
  plan_free(&pl);
  run_plan_free(&p);
}

/* Builds o's schedules for n ranks and its estimate into *e (schedules freed). */
static void est_of(const struct run_opts *o, int n, struct sweep_est *e) {
  static struct ar_schedule sched[HX_MAX_ALGOS];
  ar_status st[HX_MAX_ALGOS];
  sweep_build_schedules(o, n, sched, st);
  sweep_est_init(e, o, n, sched, st);
  for (int a = 0; a < o->nalgos; a++) sched_free(&sched[a]);
}

static void test_budget_iters(void) {
  CHECK_INT(hx_budget_iters(20, 0, 1e3), ==, 20);      /* off */
  CHECK_INT(hx_budget_iters(20, 1e5, 0), ==, 20);      /* no warm-up time */
  CHECK_INT(hx_budget_iters(20, 1e5, NAN), ==, 20);
  CHECK_INT(hx_budget_iters(20, 1e5, 1e3), ==, 20);    /* 100 fit: -n */
  CHECK_INT(hx_budget_iters(20, 1e5, 1e4), ==, 10);    /* 10 fit */
  CHECK_INT(hx_budget_iters(20, 1e5, 1.1e4), ==, 9);   /* floor */
  CHECK_INT(hx_budget_iters(20, 1e5, 5e4), ==, HX_BUDGET_MIN_ITERS); /* 2 fit: the minimum */
  CHECK_INT(hx_budget_iters(20, 1e5, 1e9), ==, HX_BUDGET_MIN_ITERS);
  CHECK_INT(hx_budget_iters(3, 1e5, 5e4), ==, 3);      /* -n below the minimum: -n */
  CHECK_INT(hx_budget_iters(6, 1e5, 5e4), ==, 6);
  CHECK_INT(hx_budget_iters(7, 1e5, 1e6), ==, 6);
  static struct run_plan p;
  CHECK_INT(plan_line(&p, "--row-budget 100ms -w 2"), ==, 0);
  CHECK(fabs(p.scen[0].row_budget_us - 1e5) < 1e-9, "budget %g", p.scen[0].row_budget_us);
  run_plan_free(&p);
  CHECK_INT(plan_line(&p, "--row-budget 0 -w 0"), ==, 0); /* 0: off, any warm-up */
  run_plan_free(&p);
  CHECK_INT(plan_line(&p, "--row-budget 1s"), ==, 0); /* the default -w 5 */
  run_plan_free(&p);
  const char *bad[] = {"--row-budget 1s -w 1", "--row-budget -1ms", "--row-budget 2h",
                       "--row-budget 1s --set timing.mode=host", "--row-budget 1x"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    CHECK(plan_line(&p, bad[i]) == -1, "'%s' accepted", bad[i]);
}

static void test_plan_counts(void) {
  static struct run_plan p;
  static struct sweep_est e;
  struct plan sp;
  const struct ar_transport *ce = ar_transport_at(AR_TP_CE), *nc = ar_executor_nccl();
  CHECK_INT(plan_line(&p, "--algo ring,nccl,bcast --transport nccl-p2p,ce -b 1K -e 4K -n 4 -w 1"),
            ==, 0);
  CHECK_INT(plan_build(&sp, &p.scen[0], 4, NULL), ==, 0);
  CHECK(sp.write == 15 && sp.measure == 15 && sp.nna == 0 && sp.nrows == 15,
        "rows %d measure %d", sp.write, sp.measure);
  /* the rows in the order they run: size, algorithm, executor (nccl's own for nccl) */
  CHECK(sp.rows[0].ex == ar_transport_at(AR_TP_NCCL_P2P) && sp.rows[1].ex == ce &&
            sp.rows[2].ex == nc && sp.rows[2].algo_idx == 1 && sp.rows[5].size_idx == 1,
        "row order");
  /* the plan is the sum of its rows' estimates and the scenario's own setup */
  est_of(&p.scen[0], 4, &e);
  double want = HX_EST_SCENARIO_S;
  const struct ar_transport *tp[] = {ar_transport_at(AR_TP_NCCL_P2P), ce};
  for (uint64_t b = 1024; b <= 4096; b *= 2)
    for (int a = 0; a < 3; a++)
      for (int t = 0; t < (a == 1 ? 1 : 2); t++)
        want += sweep_row_seconds(&e, a, a == 1 ? nc : tp[t], b, 0);
  CHECK(fabs(sp.seconds - want) < 1e-9 && sp.seconds_max == sp.seconds, "seconds %.9f want %.9f",
        sp.seconds, want);
  plan_free(&sp);
  /* a row: setup, then (warm-up + timed) x (the AllReduce + the harness's work) */
  double t = sweep_est_time_us(&e, 0, ce, 1u << 30, 0);
  double row = EST_ROW_S + (1u << 30) / EST_SETUP_BPS +
               5 * (t * 1e-6 + (1u << 30) / EST_CHECK_BPS + EST_ITER_US * 1e-6);
  CHECK(fabs(sweep_row_seconds(&e, 0, ce, 1u << 30, 0) - row) < 1e-12, "row %g want %g",
        sweep_row_seconds(&e, 0, ce, 1u << 30, 0), row);
  /* the AllReduce: ring's schedule priced at the transport's round cost and bandwidth (ce:
   * 2(n-1) rounds, 2(n-1)/n of the bytes through the busiest link); nccl as ring at its own */
  struct model_hw cehw = {.alpha_us = 27.5, .beta = 1e6 / 305e9}, nccl = {.alpha_us = 1.7, .beta = 1e6 / 365e9};
  CHECK(fabs(t - model_closed_ring(4, &cehw, 1u << 30)) < 1e-6 * t, "ring/ce %g want %g", t,
        model_closed_ring(4, &cehw, 1u << 30));
  double tn = sweep_est_time_us(&e, 1, nc, 1u << 30, 0);
  CHECK(fabs(tn - model_closed_ring(4, &nccl, 1u << 30)) < 1e-6 * tn, "nccl %g", tn);
  /* ll at its own fit */
  struct model_hw llhw = {.alpha_us = 3.2, .beta = 1e6 / 271e9};
  for (uint64_t b = 1024; b <= (8ull << 30); b *= 64) {
    double l = sweep_est_time_us(&e, 0, ar_transport_at(AR_TP_LL), b, 0),
           want_l = model_closed_ring(4, &llhw, b);
    CHECK(fabs(l - want_l) < 1e-6 * want_l, "ll %g want %g at %llu B", l, want_l,
          (unsigned long long)b);
  }
  /* a delay: the bulk-synchronous ring starts after it; bcast hides its precondition */
  CHECK(fabs(sweep_est_time_us(&e, 0, ce, 1u << 20, 8000) - 8000 -
             sweep_est_time_us(&e, 0, ce, 1u << 20, 0)) < 1e-6, "ring + delay");
  CHECK(sweep_est_time_us(&e, 2, ce, 64u << 20, 8000) <
            8000 + sweep_est_time_us(&e, 2, ce, 64u << 20, 0) - 1,
        "bcast hides its reduce-scatter");
  run_plan_free(&p);
  /* --row-budget: a row estimated as -n k, k the count the budget leaves at its time */
  CHECK_INT(plan_line(&p, "--algo ring --transport ce --sizes 8G -n 20 -w 2 --row-budget 100ms"),
            ==, 0);
  est_of(&p.scen[0], 4, &e);
  t = sweep_est_time_us(&e, 0, ce, 8ull << 30, 0);
  int k = hx_budget_iters(20, 1e5, t);
  CHECK(k == 6 && t > 2e4, "8 GiB ring/ce %g us: %d iterations", t, k);
  row = EST_ROW_S + (8ull << 30) / EST_SETUP_BPS +
        (2 + k) * (t * 1e-6 + (8ull << 30) / EST_CHECK_BPS + EST_ITER_US * 1e-6);
  CHECK(fabs(sweep_row_seconds(&e, 0, ce, 8ull << 30, 0) - row) < 1e-12, "budget row");
  CHECK_INT(plan_build(&sp, &p.scen[0], 4, NULL), ==, 0);
  CHECK(fabs(sp.seconds - HX_EST_SCENARIO_S - row) < 1e-9, "budget plan %g", sp.seconds);
  CHECK(fabs(sp.rows[0].seconds - row) < 1e-12, "the row's own seconds %g", sp.rows[0].seconds);
  plan_free(&sp);
  run_plan_free(&p);
  CHECK_INT(plan_line(&p, "--algo ring --transport ce -b 1M -e 1M -n 1 -w 0 --straggler 0:1ms-3ms"),
            ==, 0);
  CHECK(fabs(sweep_mean_delay_us(&p.scen[0]) - 2000) < 1e-9, "mean delay %g",
        sweep_mean_delay_us(&p.scen[0]));
  CHECK_INT(plan_build(&sp, &p.scen[0], 2, NULL), ==, 0);
  est_of(&p.scen[0], 2, &e);
  CHECK(fabs(sp.seconds - HX_EST_SCENARIO_S - sweep_row_seconds(&e, 0, ce, 1 << 20, 2000)) < 1e-9,
        "delay %g", sp.seconds);
  plan_free(&sp);
  run_plan_free(&p);
  /* a search: ring, rhd and bcast on one transport; at most: delay 0, the 8 coarse probes
   * (0.5..64 ms) and a 9-probe bisection at 64 ms; estimated: where the model's times cross */
  CHECK_INT(plan_line(&p, "--find-critical 1G --algo ring,rhd,bcast --critical-algo bcast "
                          "--transport ce -n 1 -w 0"),
            ==, 0);
  CHECK_INT(plan_build(&sp, &p.scen[0], 4, NULL), ==, 0);
  CHECK(sp.write == 3 * 18 && sp.measure == 54 && sp.nna == 0, "search rows %d", sp.write);
  CHECK(sp.nrows == 3 && sp.rows[2].side == 1 && sp.rows[0].side == 0, "candidates %d",
        sp.nrows);
  est_of(&p.scen[0], 4, &e);
  struct sweep_crit c;
  plan_crit_size(&sp, 0, &c);
  double d[] = {0, 500, 1000, 2000, 4000, 8000, 16000, 32000, 64000}, ub = 0;
  for (int a = 0; a < 3; a++) {
    for (int i = 0; i < 9; i++) ub += sweep_row_seconds(&e, a, ce, 1u << 30, d[i]);
    ub += 9 * sweep_row_seconds(&e, a, ce, 1u << 30, 64000);
  }
  CHECK(c.rows_max == 54 && fabs(c.seconds_max - ub) < 1e-9, "at most %d rows, %g s (%g)",
        c.rows_max, c.seconds_max, ub);
  /* the model's bcast wins at 1 GiB within a few ms: delay 0, coarse probes to the first
   * past the crossing, a bisection of the bracket: fewer rows than at most, each candidate
   * at every probe */
  CHECK(c.rows % 3 == 0 && c.rows >= 3 * 4 && c.rows < c.rows_max && c.seconds > 0 &&
            c.seconds < c.seconds_max,
        "search %d rows, %g s", c.rows, c.seconds);
  CHECK(fabs(sp.seconds - c.seconds - HX_EST_SCENARIO_S) < 1e-9 &&
            fabs(sp.seconds_max - c.seconds_max - HX_EST_SCENARIO_S) < 1e-9,
        "plan %g = search + setup", sp.seconds);
  plan_free(&sp);
  run_plan_free(&p);
  /* where the model's target never wins (up to 0.5 ms here): delay 0 and every coarse probe */
  CHECK_INT(plan_line(&p, "--find-critical 1G --algo ring,rhd,bcast --critical-algo bcast "
                          "--transport ce -n 1 -w 0 --critical-max 500us"),
            ==, 0);
  est_of(&p.scen[0], 4, &e);
  CHECK_INT(plan_build(&sp, &p.scen[0], 4, NULL), ==, 0);
  plan_crit_size(&sp, 0, &c);
  double two = 0;
  for (int a = 0; a < 3; a++)
    two += sweep_row_seconds(&e, a, ce, 1u << 30, 0) + sweep_row_seconds(&e, a, ce, 1u << 30, 500);
  CHECK(c.rows == 6 && fabs(c.seconds - two) < 1e-9, "never: %d rows, %g s (%g)", c.rows,
        c.seconds, two);
  sp.rows[2].na = "n/a"; /* no target: each candidate once, at delay 0 */
  plan_crit_size(&sp, 0, &c);
  CHECK(c.rows == 3 && c.rows_max == 3, "no target: %d rows", c.rows);
  plan_free(&sp);
  run_plan_free(&p);
}

static void test_progress_and_text(void) {
  char buf[256];
  struct hx_progress pr = {.on = 1, .t0 = 100, .done = 10, .total = 40, .done_s = 50,
                           .total_s = 200};
  /* 60 s for 50 s of estimated work: the 150 s left take 180 s */
  CHECK_STR(hx_progress_format(buf, sizeof(buf), &pr, 160, "ring"),
            "[10/40 rows] 1m00s elapsed, ~3m00s left: ring");
  pr.done = 0, pr.done_s = 0;
  CHECK_STR(hx_progress_format(buf, sizeof(buf), &pr, 100, "x"), "[0/40 rows] 0s elapsed, ~3m20s left: x");
  pr.done = 45, pr.done_s = 250;
  CHECK_STR(hx_progress_format(buf, sizeof(buf), &pr, 130, "y"), "[45/45 rows] 30s elapsed, ~0s left: y");
  CHECK_STR(sweep_duration(buf, sizeof(buf), 3725), "1h02m");
  CHECK_STR(sweep_duration(buf, sizeof(buf), 59.4), "59s");
  CHECK_STR(sweep_duration(buf, sizeof(buf), 61), "1m01s");
  /* never negative or garbage, whatever the sum (#26) */
  CHECK_STR(sweep_duration(buf, sizeof(buf), 1e300), "over 1000000h");
  CHECK_STR(sweep_duration(buf, sizeof(buf), INFINITY), "over 1000000h");
  CHECK_STR(sweep_duration(buf, sizeof(buf), NAN), "over 1000000h");
  CHECK_STR(sweep_duration(buf, sizeof(buf), -5), "0s");
  char s[16];
  CHECK_STR(size_text(s, sizeof(s), 64ull << 20), "64M");
  CHECK_STR(size_text(s, sizeof(s), 1000003), "1000003");
  CHECK_STR(size_text(s, sizeof(s), 8ull << 30), "8G");

  const char *md = temp_file("# arbench run\n\n## Clean\n\n| a | b |\n|---|---|\n\n"
                             "## Regressions against runs/x (r1)\n\nA row regressed when ...\n"
                             "stdev, 5%) (same ...).\n\n**2 regressions** (9 rows compared):\n\n"
                             "| scenario | algorithm |\n|---|---|\n| clean | ring/ce |\n"
                             "| clean | rhd/ce |\n\n## Pictures\n\n- [x](plots/x.png)\n");
  FILE *out = tmpfile();
  CHECK_INT(sweep_print_regressions(md, out), ==, 5);
  rewind(out);
  char got[1024] = "";
  size_t n = fread(got, 1, sizeof(got) - 1, out);
  got[n] = 0;
  CHECK_STR(got, "# **2 regressions** (9 rows compared):\n# | scenario | algorithm |\n# |---|---|\n"
                 "# | clean | ring/ce |\n# | clean | rhd/ce |\n");
  fclose(out);
  unlink(md);
  md = temp_file("## Clean\n| a |\n");
  out = tmpfile();
  CHECK_INT(sweep_print_regressions(md, out), ==, -1);
  CHECK_INT(sweep_print_regressions("/nonexistent/summary.md", out), ==, -1);
  fclose(out);
  unlink(md);
}

int main(void) {
  test_config_sections();
  test_plan_parse();
  test_straggler_rank();
  test_budget_iters();
  test_plan_counts();
  test_progress_and_text();
  return TEST_DONE();
}
