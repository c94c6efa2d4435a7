/* The classic generators (rhd, rd, direct, bcast): round counts, chunk counts, ports, bytes per
 * rank and the straggler's place, beyond the generic correctness sweep of test_schedules.c. */
#include <math.h>
#include <stdlib.h>

#include "ar.h"
#include "test.h"

/* Builds algo for n ranks (straggler st, -1 for the default) and verifies it; returns the
 * verifier's status, with s and rep filled (s freed by the caller only on AR_OK build). */
static ar_status build_verified(const char *algo, int n, int st, struct ar_schedule *s,
                                struct sched_report *rep) {
  struct ar_params p;
  ar_params_init(&p, n);
  p.straggler = st;
  ar_status b = ar_build(ar_algo_find(algo), &p, s);
  CHECK(b == AR_OK, "%s n=%d: %s (%s)", algo, n, ar_status_str(b), s->reason);
  if (b != AR_OK) return b;
  ar_status v = sched_verify(s, rep);
  CHECK(v == AR_OK, "%s n=%d straggler %d: %s", algo, n, st, rep->error);
  return v;
}

/* ceil(log2 n) */
static int clog2(int n) { return ar_log2(n) + !ar_is_pow2(n); }

/* Most bytes any rank sends, as a fraction of the buffer. */
static double max_sent(const struct sched_report *rep, int n) {
  double m = 0;
  for (int r = 0; r < n; r++)
    if (rep->sent[r] > m) m = rep->sent[r];
  return m;
}

static void test_rhd(void) {
  struct ar_schedule s;
  struct sched_report rep;
  for (int n = 2; n <= 64; n++) {
    if (build_verified("rhd", n, -1, &s, &rep) != AR_OK) continue;
    int k = ar_log2(n);
    if (ar_is_pow2(n)) {
      CHECK_INT(s.nrounds, ==, 2 * k);
      /* bandwidth-optimal: every rank sends (and receives) 2(n-1)/n buffers */
      for (int r = 0; r < n; r++)
        CHECK(fabs(rep.sent[r] - 2.0 * (n - 1) / n) < 1e-9 &&
                  fabs(rep.recv[r] - 2.0 * (n - 1) / n) < 1e-9,
              "rhd n=%d rank %d sent %f recv %f", n, r, rep.sent[r], rep.recv[r]);
    } else {
      CHECK_INT(s.nrounds, ==, 2 * k + 2); /* fold-in and hand-back rounds */
    }
    CHECK_INT(s.nchunks, ==, 1 << k);
    CHECK_INT(s.ports, ==, 1);
    CHECK_INT(s.nprecond, ==, 0);
    sched_free(&s);
  }
  /* the brief's spot checks: n = 6 and 12 verify */
  if (build_verified("rhd", 6, -1, &s, &rep) == AR_OK) sched_free(&s);
  if (build_verified("rhd", 12, -1, &s, &rep) == AR_OK) sched_free(&s);
}

static void test_rd(void) {
  struct ar_schedule s;
  struct sched_report rep;
  for (int n = 2; n <= 64; n++) {
    if (build_verified("rd", n, -1, &s, &rep) != AR_OK) continue;
    int k = ar_log2(n);
    CHECK_INT(s.nrounds, ==, ar_is_pow2(n) ? k : k + 2);
    CHECK_INT(s.nchunks, ==, 1);
    if (ar_is_pow2(n)) CHECK(fabs(max_sent(&rep, n) - k) < 1e-9, "rd n=%d", n);
    sched_free(&s);
  }
}

static void test_direct(void) {
  struct ar_schedule s;
  struct sched_report rep;
  for (int n = 2; n <= 64; n++) {
    if (build_verified("direct", n, -1, &s, &rep) != AR_OK) continue;
    CHECK_INT(s.nrounds, ==, 2);
    CHECK_INT(s.nchunks, ==, n);
    CHECK_INT(s.ports, ==, n - 1);
    CHECK_INT(rep.max_ports_used, ==, n - 1);
    CHECK(fabs(max_sent(&rep, n) - 2.0 * (n - 1) / n) < 1e-9, "direct n=%d", n);
    sched_free(&s);
  }
  /* one port fewer than declared must fail: the schedule really uses n-1 peers */
  struct ar_params p;
  ar_params_init(&p, 5);
  CHECK_INT(ar_build(ar_algo_find("direct"), &p, &s), ==, AR_OK);
  s.ports = 3;
  CHECK_INT(sched_verify(&s, &rep), ==, AR_ERR_VERIFY);
  sched_free(&s);
}

static void test_bcast(void) {
  struct ar_schedule s;
  struct sched_report rep;
  for (int n = 2; n <= 64; n = n < 12 ? n + 1 : n * 2) {
    for (int st = -1; st < n; st++) {
      if (build_verified("bcast", n, st, &s, &rep) != AR_OK) continue;
      int want = st < 0 ? n - 1 : st;
      CHECK_INT(s.straggler, ==, want);
      CHECK_INT(s.nchunks, ==, n - 1);
      CHECK_INT(s.nprecond, ==, 2 * (n - 2));
      CHECK_INT(rep.precond_rounds, ==, 2 * (n - 2));
      CHECK_INT(rep.rounds, ==, clog2(n)); /* exchange + doubling broadcast */
      /* after arrival every transfer moves the whole buffer: cost log n buffers (s4.1) */
      for (size_t i = 0; i < s.nxfers; i++)
        if (s.xfers[i].round >= s.nprecond) CHECK_INT(s.xfers[i].count, ==, s.nchunks);
      double after = sched_cost(&s, s.nprecond), before = sched_cost(&s, 0) - after;
      CHECK(fabs(after - clog2(n)) < 1e-9, "bcast n=%d: cost after arrival %f", n, after);
      /* the precondition is a ring over n-1: 2(n-2)/(n-1) buffers */
      CHECK(fabs(before - 2.0 * (n - 2) / (n - 1)) < 1e-9, "bcast n=%d: precondition %f", n,
            before);
      sched_free(&s);
    }
  }
}

int main(void) {
  test_rhd();
  test_rd();
  test_direct();
  test_bcast();
  return TEST_DONE();
}
