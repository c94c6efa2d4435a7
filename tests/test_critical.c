/* The critical-delay search (harness/plan/critical.c) on fake measurements: the bisection lands on
 * the crossing to 0.1 ms, every probe re-measures every live candidate at one delay, "never
 * wins" and "wins at 0" end early, failed rows drop out or end the search; and the model's
 * prediction matches a brute-force scan of the same grid. The source is compiled in (the test
 * link line has only the core and the argument parsers: args.o, bad_value.o, config.o).
 */
#include <math.h>
#include <stdlib.h>

#include "test.h"

#include "cli/args.h"
#include "plan/critical.c"

/* A fake candidate: time = max(delay, hide) + own (it does `hide` us of work while the
 * straggler is late, `own` us after), or NaN where it fails. */
struct fake_cand {
  double hide, own;
  double fail_from_us; /* NaN from this delay on; +inf: never fails */
};

#define MAX_CALLS 4096
struct fake {
  int n;
  struct fake_cand c[16];
  int ncalls;
  int call_cand[MAX_CALLS];
  double call_delay[MAX_CALLS];
};

/* The fake's time of cand at delay d. */
static double fake_time(const struct fake *f, int cand, double d) {
  const struct fake_cand *c = &f->c[cand];
  if (d >= c->fail_from_us) return NAN;
  return fmax(d, c->hide) + c->own;
}

/* crit_measure_fn over a struct fake: logs the call, returns the fake's time. */
static double fake_measure(void *ctx, int cand, double d) {
  struct fake *f = ctx;
  if (f->ncalls < MAX_CALLS) {
    f->call_cand[f->ncalls] = cand;
    f->call_delay[f->ncalls] = d;
  }
  f->ncalls++;
  return fake_time(f, cand, d);
}

/* Does the target side (candidates with is_target) win at delay d, by the fake's own times? */
static int fake_wins(const struct fake *f, const unsigned char *is_target, double d) {
  double bt = INFINITY, bb = INFINITY;
  for (int i = 0; i < f->n; i++) {
    double t0 = fake_time(f, i, 0), t = fake_time(f, i, d);
    if (isnan(t0)) continue; /* out of the search */
    if (is_target[i]) bt = fmin(bt, t);
    else bb = fmin(bb, t);
  }
  return bt < bb;
}

/* A bulk-synchronous baseline. */
static struct fake_cand bulk(double own) { return (struct fake_cand){0, own, INFINITY}; }
/* A candidate that hides `hide` us of work under the delay, then takes `after` us. */
static struct fake_cand aware(double hide, double after) {
  return (struct fake_cand){hide, after, INFINITY};
}

/* Checks that the calls came in probes: each probe asks every candidate in `live` once, all at
 * one delay, and successive probes use different delays. Returns the number of probes. */
static int check_probes(const struct fake *f, const unsigned char *live) {
  int nlive = 0, probes = 0;
  for (int i = 0; i < f->n; i++) nlive += live[i] != 0;
  CHECK(nlive > 0 && f->ncalls % nlive == 0, "%d calls for %d live candidates", f->ncalls, nlive);
  for (int k = 0; nlive && k + nlive <= f->ncalls && k < MAX_CALLS; k += nlive, probes++) {
    unsigned char seen[16] = {0};
    for (int j = k; j < k + nlive; j++) {
      CHECK(f->call_delay[j] == f->call_delay[k], "probe at %g asks at %g", f->call_delay[k],
            f->call_delay[j]);
      CHECK(live[f->call_cand[j]] && !seen[f->call_cand[j]], "candidate %d in probe at %g",
            f->call_cand[j], f->call_delay[k]);
      seen[f->call_cand[j]] = 1;
    }
    if (k > 0)
      CHECK(f->call_delay[k] != f->call_delay[k - nlive], "delay %g probed twice in a row",
            f->call_delay[k]);
  }
  return probes;
}

/* The paper's shape: the target wins once the delay hides its ReduceScatter. */
static void test_crossing(void) {
  struct fake f = {.n = 3};
  f.c[0] = bulk(2890);        /* ring */
  f.c[1] = aware(4000, 2000); /* stragglar: wins when d > 4000 + 2000 - 2890 = 3110 */
  f.c[2] = bulk(3500);        /* rhd, slower */
  unsigned char tg[3] = {0, 1, 0}, live[3] = {1, 1, 1};
  struct crit_search cs;
  crit_init(&cs, 3, tg, CRIT_DEFAULT_MAX_US);
  CHECK_INT(crit_run(&cs, fake_measure, &f), ==, CRIT_FOUND);
  CHECK(cs.critical_us == 3200, "critical %g, want 3200 (crossing 3110)", cs.critical_us);
  CHECK(cs.best_target == 1 && cs.best_base == 0, "sides %d vs %d", cs.best_target, cs.best_base);
  CHECK(cs.decided_at_us == 3200 && cs.t_target == 6000 && cs.t_base == 6090,
        "decided at %g: %g vs %g", cs.decided_at_us, cs.t_target, cs.t_base);
  int probes = check_probes(&f, live);
  CHECK_INT(probes, ==, cs.probes);
  CHECK_INT(cs.measurements, ==, 3 * probes);
  /* 0; coarse 0.5 1 2 4 (wins); bisection of (2, 4] ms: 3, 3.5, 3.2, 3.1 */
  CHECK_INT(probes, ==, 9);
  CHECK_STR(crit_outcome_name(cs.outcome), "found");
  /* the last losing and the first winning probe bracket the crossing */
  CHECK(fake_wins(&f, tg, 3200) && !fake_wins(&f, tg, 3100), "bracket");

  /* the fastest baseline changes with the delay: the one that overlaps part of it takes over */
  f = (struct fake){.n = 3};
  f.c[0] = bulk(3000);
  f.c[1] = aware(5000, 500);  /* a baseline that does 5 ms among the early ranks */
  f.c[2] = aware(8000, 200);  /* the target: wins when 8200 < d + 500, from 7.8 ms */
  unsigned char tg2[3] = {0, 0, 1};
  crit_init(&cs, 3, tg2, CRIT_DEFAULT_MAX_US);
  CHECK_INT(crit_run(&cs, fake_measure, &f), ==, CRIT_FOUND);
  CHECK(cs.critical_us == 7800 && cs.best_base == 1 && cs.t_base == 8300,
        "critical %g against baseline %d (%g us)", cs.critical_us, cs.best_base, cs.t_base);
  CHECK_INT(check_probes(&f, live), ==, cs.probes);
}

/* Many random shapes, each against a brute-force scan of the 0.1 ms grid. */
static void test_random(void) {
  srand(12345);
  int bad = 0, maxprobes = 0, tried = 0;
  for (int trial = 0; trial < 3000; trial++) {
    struct fake f = {.n = 2 + rand() % 4};
    unsigned char tg[16] = {0};
    double max_us = trial % 3 ? CRIT_DEFAULT_MAX_US : 100.0 * (1 + rand() % 300);
    for (int i = 0; i < f.n; i++) {
      tg[i] = i == 0 || rand() % 4 == 0;
      /* baselines are bulk-synchronous or hide a little; targets hide up to 20 ms */
      f.c[i] = tg[i] ? aware(rand() % 20000, 10 + rand() % 9000)
                     : aware(rand() % 2 ? 0 : rand() % 2000, 10 + rand() % 9000);
    }
    tg[1] = 0; /* at least one baseline */
    f.c[1] = bulk(10 + rand() % 9000);
    long max_ticks = (long)ceil(max_us / CRIT_STEP_US - 1e-9);
    long want = -1, flips = 0;
    for (long k = 0; k <= max_ticks; k++) {
      int w = fake_wins(&f, tg, k * CRIT_STEP_US);
      if (w && want < 0) want = k;
      flips += k > 0 && w != fake_wins(&f, tg, (k - 1) * CRIT_STEP_US);
    }
    if (flips > 1) continue; /* "wins" not monotone on the grid: no single answer */
    tried++;
    f.ncalls = 0;
    struct crit_search cs;
    crit_init(&cs, f.n, tg, max_us);
    int out = crit_run(&cs, fake_measure, &f);
    int ok = want < 0 ? out == CRIT_NEVER && isnan(cs.critical_us)
                      : out == CRIT_FOUND && cs.critical_us == want * CRIT_STEP_US;
    if (!ok && bad++ < 5)
      CHECK(ok, "trial %d: outcome %d critical %g, brute force %ld steps", trial, out,
            cs.critical_us, want);
    if (cs.probes > maxprobes) maxprobes = cs.probes;
  }
  CHECK_INT(bad, ==, 0);
  CHECK(tried > 2500, "only %d of 3000 random shapes were monotone", tried);
  /* 1 + 8 coarse + at most log2(320) bisection steps */
  CHECK(maxprobes <= 18, "up to %d probes", maxprobes);
}

/* Already faster undelayed: critical delay 0 after one probe. */
static void test_wins_at_zero(void) {
  struct fake f = {.n = 2};
  f.c[0] = bulk(3000);
  f.c[1] = aware(1000, 1500);
  unsigned char tg[2] = {0, 1};
  struct crit_search cs;
  crit_init(&cs, 2, tg, CRIT_DEFAULT_MAX_US);
  CHECK_INT(crit_run(&cs, fake_measure, &f), ==, CRIT_FOUND);
  CHECK(cs.critical_us == 0 && cs.probes == 1 && f.ncalls == 2, "critical %g after %d probes",
        cs.critical_us, cs.probes);
  CHECK(cs.t_target == 2500 && cs.t_base == 3000 && cs.best_base == 0, "times %g %g",
        cs.t_target, cs.t_base);
  /* a tie is not a win */
  f = (struct fake){.n = 2};
  f.c[0] = bulk(2500);
  f.c[1] = bulk(2500);
  crit_init(&cs, 2, tg, 500);
  CHECK_INT(crit_run(&cs, fake_measure, &f), ==, CRIT_NEVER);
}

/* Slower after arrival than the baseline: never wins; every coarse delay up to the maximum. */
static void test_never(void) {
  struct fake f = {.n = 2};
  f.c[0] = bulk(1000);
  f.c[1] = aware(3000, 1200);
  unsigned char tg[2] = {0, 1}, live[2] = {1, 1};
  struct crit_search cs;
  crit_init(&cs, 2, tg, CRIT_DEFAULT_MAX_US);
  CHECK_INT(crit_run(&cs, fake_measure, &f), ==, CRIT_NEVER);
  CHECK(isnan(cs.critical_us), "critical %g", cs.critical_us);
  double coarse[16];
  int nc = crit_coarse_delays(CRIT_DEFAULT_MAX_US, coarse, 16);
  CHECK(nc == 8 && coarse[0] == 500 && coarse[7] == 64000, "coarse %d: %g..%g", nc, coarse[0],
        coarse[nc - 1]);
  CHECK_INT(check_probes(&f, live), ==, 1 + nc);
  CHECK(f.call_delay[f.ncalls - 1] == 64000 && cs.decided_at_us == 64000,
        "last probe at %g", f.call_delay[f.ncalls - 1]);
  CHECK(cs.t_target == 65200 && cs.t_base == 65000, "last probe %g vs %g", cs.t_target,
        cs.t_base);
  CHECK_STR(crit_outcome_name(cs.outcome), "never");
  /* a maximum off the doubling sequence is probed itself */
  nc = crit_coarse_delays(3000, coarse, 16);
  CHECK(nc == 4 && coarse[2] == 2000 && coarse[3] == 3000, "coarse to 3 ms: %d", nc);
  nc = crit_coarse_delays(250, coarse, 16);
  CHECK(nc == 1 && coarse[0] == 300, "coarse to 0.25 ms: %d, %g", nc, coarse[0]);
  /* found just below a small maximum */
  f = (struct fake){.n = 2};
  f.c[0] = bulk(1000);
  f.c[1] = aware(1150, 0); /* wins from 200 us */
  crit_init(&cs, 2, tg, 250);
  CHECK_INT(crit_run(&cs, fake_measure, &f), ==, CRIT_FOUND);
  CHECK(cs.critical_us == 200, "critical %g under a 0.3 ms maximum", cs.critical_us);
}

/* Rows that cannot be measured: out at delay 0, or the end of the search later. */
static void test_failures(void) {
  struct fake f = {.n = 4};
  f.c[0] = bulk(2890);
  f.c[1] = aware(4000, 2000);
  f.c[2] = bulk(1000);
  f.c[2].fail_from_us = 0; /* n/a (e.g. an odd n): would have been the fastest */
  f.c[3] = aware(0, 100);
  f.c[3].fail_from_us = 0; /* a second target that is n/a */
  unsigned char tg[4] = {0, 1, 0, 1}, live[4] = {1, 1, 0, 0};
  struct crit_search cs;
  crit_init(&cs, 4, tg, CRIT_DEFAULT_MAX_US);
  CHECK_INT(crit_run(&cs, fake_measure, &f), ==, CRIT_FOUND);
  CHECK(cs.critical_us == 3200, "critical %g with n/a rows", cs.critical_us);
  CHECK(f.call_cand[2] == 2 && f.call_cand[3] == 3 && f.call_delay[3] == 0, "delay 0 asks all");
  f.ncalls -= 4; /* the later probes ask only the live ones */
  memmove(f.call_cand, f.call_cand + 4, sizeof(int) * (MAX_CALLS - 4));
  memmove(f.call_delay, f.call_delay + 4, sizeof(double) * (MAX_CALLS - 4));
  CHECK_INT(check_probes(&f, live), ==, cs.probes - 1);

  f = (struct fake){.n = 2};
  f.c[0] = bulk(1000);
  f.c[1] = aware(0, 10);
  f.c[1].fail_from_us = 0;
  unsigned char tg2[2] = {0, 1};
  crit_init(&cs, 2, tg2, CRIT_DEFAULT_MAX_US);
  CHECK_INT(crit_run(&cs, fake_measure, &f), ==, CRIT_NO_TARGET);
  CHECK(f.ncalls == 2 && isnan(cs.critical_us), "%d calls", f.ncalls);
  CHECK_STR(crit_outcome_name(cs.outcome), "n/a");

  f = (struct fake){.n = 2};
  f.c[0] = bulk(1000);
  f.c[0].fail_from_us = 0;
  f.c[1] = aware(0, 10);
  crit_init(&cs, 2, tg2, CRIT_DEFAULT_MAX_US);
  CHECK_INT(crit_run(&cs, fake_measure, &f), ==, CRIT_NO_BASELINE);

  /* a baseline that worked undelayed fails at 2 ms: the search stops there */
  f = (struct fake){.n = 2};
  f.c[0] = bulk(2890);
  f.c[0].fail_from_us = 2000;
  f.c[1] = aware(4000, 2000);
  crit_init(&cs, 2, tg2, CRIT_DEFAULT_MAX_US);
  CHECK_INT(crit_run(&cs, fake_measure, &f), ==, CRIT_FAILED);
  CHECK(cs.decided_at_us == 2000 && isnan(cs.critical_us), "failed at %g", cs.decided_at_us);
  CHECK_STR(crit_outcome_name(cs.outcome), "error");

  /* no candidates at all, and the driver's contract by hand */
  crit_init(&cs, 0, tg2, 1000);
  int cand;
  double d;
  CHECK_INT(crit_next(&cs, &cand, &d), ==, 0);
  CHECK_INT(cs.outcome, ==, CRIT_NO_TARGET);
  crit_init(&cs, 2, tg2, 1000);
  CHECK(crit_next(&cs, &cand, &d) == 1 && cand == 0 && d == 0, "first ask %d at %g", cand, d);
  crit_feed(&cs, 500);
  CHECK(crit_next(&cs, &cand, &d) == 1 && cand == 1 && d == 0, "second ask %d at %g", cand, d);
  crit_feed(&cs, 400);
  CHECK_INT(crit_next(&cs, &cand, &d), ==, 0);
  CHECK(cs.outcome == CRIT_FOUND && cs.critical_us == 0, "target faster at 0");
}

/* The model's prediction: the same search on model_times, checked by scanning the grid. */
static void test_model(void) {
  const char *names[] = {"ring", "rhd", "swing-bw", "bcast", "stragglar", "nccl"};
  const int n = 8;
  struct ar_params p;
  ar_params_init(&p, n);
  p.straggler = 5;
  struct model_net net;
  CHECK_INT(model_net_init(&net, MODEL_SWITCH, &p), ==, AR_OK);
  struct model_price pr[6];
  const struct model_price *price[6];
  unsigned char tg[6];
  for (int i = 0; i < 6; i++) {
    const struct ar_algo *a = ar_algo_find(names[i]);
    struct ar_schedule s;
    price[i] = NULL;
    tg[i] = (a->flags & AR_ALGO_STRAGGLER_AWARE) != 0;
    if (a->flags & AR_ALGO_NATIVE || ar_build(a, &p, &s) != AR_OK) continue;
    if (model_price_schedule(&s, &net, &pr[i]) == AR_OK) price[i] = &pr[i];
    sched_free(&s);
  }
  CHECK(price[0] && price[3] && !price[5], "ring and bcast priced, nccl not");
  struct model_hw hw;
  crit_model_hw(&hw);
  CHECK(hw.alpha_us == 3 && fabs(1e6 / hw.beta - 450e9) < 1, "hw %g us, %g B/s", hw.alpha_us,
        1e6 / hw.beta);
  int found = 0;
  for (double bytes = 1024; bytes <= 8.0 * (1ull << 30); bytes *= 4) {
    double crit;
    int out = crit_model(price, tg, 6, &hw, bytes, CRIT_DEFAULT_MAX_US, &crit);
    long want = -1; /* brute force on the grid */
    for (long k = 0; k <= 640 && want < 0; k++) {
      double bt = INFINITY, bb = INFINITY;
      for (int i = 0; i < 6; i++) {
        if (!price[i]) continue;
        struct model_times t;
        model_times(price[i], &hw, bytes, k * CRIT_STEP_US, &t);
        if (tg[i]) bt = fmin(bt, t.time_us);
        else bb = fmin(bb, t.time_us);
      }
      if (bt < bb) want = k;
    }
    CHECK(want < 0 ? out == CRIT_NEVER : out == CRIT_FOUND && crit == want * CRIT_STEP_US,
          "%g B: outcome %d critical %g, scan %ld steps", bytes, out, crit, want);
    found += out == CRIT_FOUND;
  }
  CHECK(found > 0, "the model finds a critical delay at some size");
}

int main(void) {
  test_crossing();
  test_random();
  test_wins_at_zero();
  test_never();
  test_failures();
  test_model();
  return TEST_DONE();
}
