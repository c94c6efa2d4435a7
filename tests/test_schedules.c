/* Every generator, n = 2..16 on the CPU executor with real floats and n up to 64 through the
 * symbolic verifier; and the verifier itself catches broken schedules. */
#include <stdlib.h>

#include "ar.h"
#include "sched_check.h"
#include "test.h"

/* Which n each algorithm must support (a generator answering n/a where it should not fails). */
static int must_support(const char *algo, int n) {
  if (!strcmp(algo, "stragglar")) return n % 2 == 0;
  if (!strcmp(algo, "rd-torus") || !strcmp(algo, "rhd-torus") || !strcmp(algo, "swing-lat-torus"))
    return ar_is_pow2(n); /* the default shape's sides are then powers of 2 too */
  if (!strcmp(algo, "ring-ham")) { /* the default a x b, a <= b: b = k a, gcd(k, a - 1) = 1 */
    int a = 1;
    for (int k = 1; k * k <= n; k++)
      if (n % k == 0) a = k;
    return a > 1 && (n / a) % a == 0 && check_gcd(n / a / a, a - 1) == 1;
  }
  if (!strcmp(algo, "optcc") || !strcmp(algo, "optcc-multi") || !strcmp(algo, "optcc-ring") ||
      !strcmp(algo, "r2ccl"))
    return n >= 3;
  if (!strcmp(algo, "optcc-servers")) return n % 2 == 0 && n >= 6; /* 2 GPUs a server */
  return 1;
}

/* Parameters the algorithm needs to be meaningful: a degraded GPU for OPTCC, etc. */
static void params_for(const struct ar_algo *a, int n, struct ar_params *p) {
  ar_params_init(p, n);
  if (a->flags & AR_ALGO_STRAGGLER_AWARE) p->straggler = n / 2; /* not the default n-1 */
  if (!strcmp(a->name, "optcc") || !strcmp(a->name, "optcc-ring") || !strcmp(a->name, "r2ccl")) {
    p->ndegraded = 1;
    p->degraded[0] = 1 % n;
    p->factor[0] = 2.0;
  }
  if (!strcmp(a->name, "optcc-servers")) { /* servers of 2 GPUs, the second one degraded */
    p->gpus_per_node = 2;
    p->ndegraded = 2;
    p->degraded[0] = 2;
    p->degraded[1] = 3 % n;
    p->factor[0] = p->factor[1] = 1.5;
  }
  if (!strcmp(a->name, "optcc-multi")) {
    p->ndegraded = 2;
    p->degraded[0] = 0;
    p->degraded[1] = n - 1;
    p->factor[0] = p->factor[1] = 1.5;
  }
}

static void test_every_algorithm(void) {
  size_t count;
  const struct ar_algo *const *all = ar_algo_all(&count);
  for (size_t i = 0; i < count; i++) {
    const struct ar_algo *a = all[i];
    if (a->flags & AR_ALGO_NATIVE) continue;
    for (int n = 2; n <= 64; n = n < 16 ? n + 1 : n * 2) {
      struct ar_params p;
      params_for(a, n, &p);
      struct ar_schedule s;
      ar_status st = ar_build(a, &p, &s);
      if (!must_support(a->name, n)) {
        CHECK(st == AR_ERR_UNSUPPORTED || st == AR_OK, "%s n=%d: %s", a->name, n, s.reason);
        if (st == AR_OK) sched_free(&s);
        continue;
      }
      CHECK(st == AR_OK, "%s n=%d: %s (%s)", a->name, n, ar_status_str(st), s.reason);
      if (st != AR_OK) continue;
      struct sched_report rep;
      ar_status v = sched_verify(&s, &rep);
      CHECK(v == AR_OK, "%s n=%d: %s", a->name, n, rep.error);
      if (n <= 16) {
        long w1 = run_cpu(&s, 1000003 % (97 * n) + 7 * n); /* not a multiple of the chunks */
        long w2 = run_cpu(&s, (size_t)s.nchunks * 3);
        CHECK(w1 == 0 && w2 == 0, "%s n=%d: %ld / %ld wrong elements", a->name, n, w1, w2);
      }
      sched_free(&s);
    }
  }
}

static void test_round_counts(void) {
  struct ar_params p;
  struct ar_schedule s;
  for (int n = 2; n <= 64; n *= 2) {
    ar_params_init(&p, n);
    CHECK_INT(ar_build(ar_algo_find("ring"), &p, &s), ==, AR_OK);
    CHECK_INT(s.nrounds, ==, 2 * (n - 1));
    sched_free(&s);
  }
}

/* rhd-elim (3-2 elimination) beyond the sweep's n: verified, one port, and as many rounds as
 * its levels say (2 per level, 4 per level with triples), recomputed here; 4095 ranks (ten
 * seconds of the verifier) under `make test-long` only. */
static void test_rhd_elim(void) {
  const struct ar_algo *a = ar_algo_find("rhd-elim");
  CHECK(a != NULL, "no algorithm rhd-elim");
  if (!a) return;
  static const int ns[] = {3, 12, 63, 100, 1000, 4095};
  size_t nns = sizeof(ns) / sizeof(ns[0]) - (test_long() ? 0 : 1);
  for (size_t i = 0; i < nns; i++) {
    int n = ns[i], rounds = 0;
    for (int g = n; g > 1;) {
      int pw = 1 << ar_log2(g);
      int t = g == pw ? 0 : 3 * (g - pw) <= g ? g - pw : g / 3 - ((g - g / 3) % 2);
      rounds += t ? 4 : 2;
      g = (g - t) / 2;
    }
    struct ar_params p;
    struct ar_schedule s;
    struct sched_report rep;
    ar_params_init(&p, n);
    CHECK_INT(ar_build(a, &p, &s), ==, AR_OK);
    if (!s.xfers) continue;
    CHECK(sched_verify(&s, &rep) == AR_OK, "rhd-elim n=%d: %s", n, rep.error);
    int peers = sched_max_peers(&s);
    CHECK(s.nrounds == rounds && peers == 1, "rhd-elim n=%d: %d rounds (want %d), %d peers", n,
          s.nrounds, rounds, peers);
    sched_free(&s);
  }
}

/* A schedule broken in each way the verifier must see. */
static void test_verifier_catches(void) {
  struct ar_params p;
  struct ar_schedule s;
  struct sched_report rep;
  ar_params_init(&p, 4);
  const struct ar_algo *ring = ar_algo_find("ring");

  CHECK_INT(ar_build(ring, &p, &s), ==, AR_OK);
  s.nxfers--; /* a missing transfer: someone lacks a chunk */
  CHECK_INT(sched_verify(&s, &rep), ==, AR_ERR_VERIFY);
  CHECK(strstr(rep.error, "lacks") != NULL, "%s", rep.error);
  sched_free(&s);

  CHECK_INT(ar_build(ring, &p, &s), ==, AR_OK);
  s.xfers[5].op = AR_COPY; /* reduce turned copy: data lost */
  CHECK_INT(sched_verify(&s, &rep), ==, AR_ERR_VERIFY);
  sched_free(&s);

  CHECK_INT(ar_build(ring, &p, &s), ==, AR_OK);
  s.xfers[s.nxfers - 1].op = AR_REDUCE; /* allgather step reduced: counted twice */
  CHECK_INT(sched_verify(&s, &rep), ==, AR_ERR_VERIFY);
  CHECK(strstr(rep.error, "double") != NULL, "%s", rep.error);
  sched_free(&s);

  CHECK_INT(ar_build(ring, &p, &s), ==, AR_OK);
  s.xfers[1].dst = 2; /* two sends from rank 0 in one round with one port */
  s.xfers[1].src = 0;
  CHECK_INT(sched_verify(&s, &rep), ==, AR_ERR_VERIFY);
  CHECK(strstr(rep.error, "ports") != NULL, "%s", rep.error);
  sched_free(&s);

  CHECK_INT(ar_build(ring, &p, &s), ==, AR_OK);
  s.nprecond = 1;
  s.straggler = 3; /* the straggler may not act before it arrives */
  CHECK_INT(sched_verify(&s, &rep), ==, AR_ERR_VERIFY);
  CHECK(strstr(rep.error, "straggler") != NULL, "%s", rep.error);
  /* and the CPU executor shows the data damage of a broken schedule too */
  s.nprecond = 0;
  s.xfers[5].op = AR_COPY;
  CHECK(run_cpu(&s, 101) > 0, "a broken schedule must give wrong sums");
  sched_free(&s);
}

static void test_chunk_ranges(void) {
  /* chunks tile the vector exactly, whatever the remainder */
  for (int k = 1; k < 40; k++)
    for (size_t nelem = 1; nelem < 200; nelem += 7) {
      CHECK_INT(ar_chunk_begin(nelem, k, 0), ==, 0);
      CHECK_INT(ar_chunk_begin(nelem, k, k), ==, nelem);
    }
  CHECK_INT(ar_chunk_begin((size_t)1 << 31, 4032, 4031), ==, ((size_t)1 << 31) * 4031 / 4032);
}

int main(void) {
  test_every_algorithm();
  test_round_counts();
  test_rhd_elim();
  test_verifier_catches();
  test_chunk_ranges();
  return TEST_DONE();
}
