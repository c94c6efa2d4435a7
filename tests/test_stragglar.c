/* StragglAR: round counts (Theorem 1 for powers of 2; non-powers against the paper's
 * n + 2 log2 n - 2 and the counting floor n + ceil(log2 n) - 2), what the straggler sends,
 * that it sits out the precondition, relabelling, odd n, and large n for the model. */
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "ar.h"
#include "test.h"

/* Builds stragglar for n ranks with the given straggler (-1: default); returns the status. */
static ar_status build(int n, int straggler, struct ar_schedule *s) {
  struct ar_params p;
  ar_params_init(&p, n);
  p.straggler = straggler;
  return ar_build(ar_algo_find("stragglar"), &p, s);
}

/* ceil(log2 n) */
static int log2_ceil(int n) {
  int k = 0;
  while ((1 << k) < n)
    k++;
  return k;
}

/* Chunks a rank sends after the straggler arrives. */
static long post_sent(const struct ar_schedule *s, int rank) {
  long chunks = 0;
  for (size_t i = 0; i < s->nxfers; i++)
    if (s->xfers[i].round >= s->nprecond && s->xfers[i].src == rank) chunks += s->xfers[i].count;
  return chunks;
}

/* Checks what every StragglAR schedule must satisfy; returns its post-arrival rounds. */
static int check_shape(const struct ar_schedule *s, int n, int straggler) {
  struct sched_report rep;
  int rounds = s->nrounds - s->nprecond;
  CHECK(sched_verify(s, &rep) == AR_OK, "n=%d straggler %d: %s", n, straggler, rep.error);
  CHECK_INT(rep.rounds, ==, rounds);
  CHECK_INT(s->nchunks, ==, n - 1);
  CHECK_INT(s->straggler, ==, straggler);
  CHECK_INT(s->nprecond, ==, n - 2); /* ring ReduceScatter over n-1 ranks */
  CHECK_INT(s->ports, ==, 1);
  CHECK_INT(rep.max_ports_used, ==, 1);
  /* the straggler is absent from the precondition and busy from its first round on */
  int before = 0, first = 0;
  for (size_t i = 0; i < s->nxfers; i++) {
    const struct ar_xfer *x = &s->xfers[i];
    int touches = x->src == straggler || x->dst == straggler;
    if (x->round < s->nprecond) before += touches;
    if (x->round == s->nprecond) first += touches;
  }
  CHECK(before == 0, "n=%d: straggler in %d precondition transfers", n, before);
  CHECK(first == 2, "n=%d: straggler in %d transfers of its first round", n, first);
  /* each non-straggler sends (n-2)/(n-1) of the buffer in the ReduceScatter */
  for (int r = 0; r < n; r++) {
    long pre = 0;
    for (size_t i = 0; i < s->nxfers; i++)
      if (s->xfers[i].round < s->nprecond && s->xfers[i].src == r) pre += s->xfers[i].count;
    if (pre != (r == straggler ? 0 : n - 2))
      CHECK(0, "n=%d rank %d sends %ld precondition chunks", n, r, pre);
  }
  /* one port: at most one chunk out per rank per round, so the beta cost is rounds/(n-1) */
  for (int r = 0; r < n; r++)
    if (post_sent(s, r) > rounds)
      CHECK(0, "n=%d rank %d sends %ld chunks in %d rounds", n, r, post_sent(s, r), rounds);
  CHECK(fabs(sched_cost(s, s->nprecond) - (double)rounds / (n - 1)) < 1e-9,
        "n=%d: post-arrival cost %.6f, want %d/%d", n, sched_cost(s, s->nprecond), rounds, n - 1);
  /* the straggler contributes its piece of every chunk: at least n-1 chunks out */
  CHECK(post_sent(s, straggler) >= n - 1, "n=%d: straggler sends %ld chunks", n,
        post_sent(s, straggler));
  return rounds;
}

/* Theorem 1: n + log2 n - 2 rounds for powers of 2; the straggler sends one chunk every
 * round ((n + log2 n - 2)/(n-1) buffers). */
static void test_powers_of_two(void) {
  for (int n = 2; n <= 64; n *= 2) {
    struct ar_schedule s;
    CHECK_INT(build(n, n / 2, &s), ==, AR_OK);
    int rounds = check_shape(&s, n, n / 2), want = n + ar_log2(n) - 2;
    CHECK(rounds == want, "n=%d: %d rounds, Theorem 1 says %d", n, rounds, want);
    CHECK(post_sent(&s, n / 2) == want, "n=%d: straggler sends %ld chunks, want %d", n,
          post_sent(&s, n / 2), want);
    printf("n=%-3d rounds %d (n + log2 n - 2 = %d), straggler sends %.4f buffers\n", n, rounds,
           want, (double)post_sent(&s, n / 2) / (n - 1));
    sched_free(&s);
  }
}

/* App. C: the paper's construction takes about n + 2 log2 n - 2 rounds; ours must not take
 * more. It cannot take fewer than the counting floor n + ceil(log2 n) - 2 (each non-straggler
 * needs n-1 receives, and before round r at most 2^r - 1 of them hold anything to send) and
 * reaches it. */
static void test_non_powers_of_two(void) {
  int at_floor = 0, total = 0;
  printf("  n  rounds  floor n+ceil(log2 n)-2  paper n+2log2(n)-2  straggler buffers\n");
  for (int n = 6; n <= 64; n += 2) {
    if (ar_is_pow2(n)) continue;
    struct ar_schedule s;
    CHECK_INT(build(n, n / 2, &s), ==, AR_OK);
    int rounds = check_shape(&s, n, n / 2), floor_r = n + log2_ceil(n) - 2;
    double paper = n + 2 * log2(n) - 2;
    printf("%3d  %6d  %21d  %18.2f  %.4f\n", n, rounds, floor_r, paper,
           (double)post_sent(&s, n / 2) / (n - 1));
    CHECK(rounds <= paper, "n=%d: %d rounds > n + 2 log2 n - 2 = %.2f", n, rounds, paper);
    CHECK(rounds >= floor_r, "n=%d: %d rounds beats the floor %d: the verifier is wrong", n, rounds,
          floor_r);
    CHECK(rounds == floor_r, "n=%d: %d rounds, the floor is %d", n, rounds, floor_r);
    at_floor += rounds == floor_r;
    total++;
    sched_free(&s);
  }
  printf("%d of %d even non-powers of 2 in 6..62 reach the floor\n", at_floor, total);
}

/* Any rank can be the straggler, the default is n-1, and odd n is refused with a reason. */
static void test_stragglers_and_odd(void) {
  int ns[] = {2, 4, 6, 10, 16, 30};
  for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
    int n = ns[i], who[] = {0, n / 2 - 1, n - 1, -1};
    for (size_t j = 0; j < sizeof(who) / sizeof(who[0]); j++) {
      struct ar_schedule s;
      CHECK_INT(build(n, who[j], &s), ==, AR_OK);
      int st = who[j] < 0 ? n - 1 : who[j];
      int rounds = check_shape(&s, n, st);
      struct ar_schedule ref; /* relabelling keeps the round count */
      CHECK_INT(build(n, n - 1, &ref), ==, AR_OK);
      CHECK_INT(rounds, ==, ref.nrounds - ref.nprecond);
      sched_free(&ref);
      /* real floats: every rank ends with the sum */
      size_t nelem = 3 * (size_t)n + 5;
      float **bufs = malloc(sizeof(float *) * n);
      for (int r = 0; r < n; r++) {
        bufs[r] = malloc(sizeof(float) * nelem);
        for (size_t e = 0; e < nelem; e++)
          bufs[r][e] = (float)((r * 5 + (int)e) % 11 - 5);
      }
      CHECK_INT(sched_exec_cpu(&s, bufs, nelem), ==, AR_OK);
      long wrong = 0;
      for (size_t e = 0; e < nelem; e++) {
        float want = 0;
        for (int r = 0; r < n; r++)
          want += (float)((r * 5 + (int)e) % 11 - 5);
        for (int r = 0; r < n; r++)
          wrong += bufs[r][e] != want;
      }
      CHECK(wrong == 0, "n=%d straggler %d: %ld wrong elements", n, st, wrong);
      for (int r = 0; r < n; r++)
        free(bufs[r]);
      free(bufs);
      sched_free(&s);
    }
  }
  for (int n = 3; n <= 33; n += 6) {
    struct ar_schedule s;
    CHECK_INT(build(n, -1, &s), ==, AR_ERR_UNSUPPORTED);
    CHECK_STR(s.reason, "stragglar needs an even number of GPUs");
  }
}

/* The model goes to 1024 ranks: Fig. 6b's midpoints verify, the largest sizes build fast. */
static void test_large(void) {
  int mids[] = {96, 192};
  for (size_t i = 0; i < sizeof(mids) / sizeof(mids[0]); i++) {
    struct ar_schedule s;
    CHECK_INT(build(mids[i], 7, &s), ==, AR_OK);
    int rounds = check_shape(&s, mids[i], 7);
    printf("n=%d: %d rounds (floor %d)\n", mids[i], rounds, mids[i] + log2_ceil(mids[i]) - 2);
    CHECK(rounds == mids[i] + log2_ceil(mids[i]) - 2, "n=%d: %d rounds", mids[i], rounds);
    sched_free(&s);
  }
  int big[] = {1022, 1024};
  for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
    struct ar_schedule s;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK_INT(build(big[i], -1, &s), ==, AR_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double sec = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    int rounds = s.nrounds - s.nprecond, floor_r = big[i] + log2_ceil(big[i]) - 2;
    printf("n=%d: %d rounds (floor %d), built in %.2f s\n", big[i], rounds, floor_r, sec);
    CHECK(rounds == floor_r, "n=%d: %d rounds, the floor is %d", big[i], rounds, floor_r);
    CHECK(sec < 10, "n=%d took %.1f s to build", big[i], sec);
    sched_free(&s);
  }
}

int main(void) {
  test_powers_of_two();
  test_non_powers_of_two();
  test_stragglers_and_odd();
  test_large();
  return TEST_DONE();
}
