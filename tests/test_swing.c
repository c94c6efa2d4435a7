/* Swing and bucket schedules (algorithms/swing.c) against the numbers and examples of
 * swing.txt: round counts, bytes per rank, the peer sequence pi(r, s), the odd-n exchange of
 * s3.2 / Fig. 4, the 4x4 ports of Fig. 5, the 2x4 last step of Fig. 6, and every torus shape
 * up to 64 ranks through the verifier. */
#include <math.h>
#include <stdlib.h>

#include "ar.h"
#include "sched_check.h"
#include "test.h"

/* Builds algo on n ranks with the torus shape dims[0..ndims) (ndims 0: default); returns the
 * status, s filled on AR_OK. */
static ar_status build(const char *algo, int n, int ndims, const int *dims, struct ar_schedule *s) {
  struct ar_params p;
  ar_params_init(&p, n);
  p.torus_ndims = ndims;
  for (int k = 0; k < ndims; k++)
    p.torus[k] = dims[k];
  return ar_build(ar_algo_find(algo), &p, s);
}

/* Returns 1 when every rank sends exactly `want` buffers (to 1e-9). */
static int sends_exactly(const struct sched_report *rep, int n, double want) {
  for (int r = 0; r < n; r++)
    if (fabs(rep->sent[r] - want) > 1e-9 || fabs(rep->recv[r] - want) > 1e-9) return 0;
  return 1;
}

/* Returns the one peer rank r sends to in round `round`, -1 if none, -2 if several. */
static int only_peer(const struct ar_schedule *s, int round, int r) {
  int peer = -1;
  for (size_t i = 0; i < s->nxfers; i++) {
    const struct ar_xfer *x = &s->xfers[i];
    if (x->round != round || x->src != r) continue;
    if (peer >= 0 && peer != x->dst) return -2;
    peer = x->dst;
  }
  return peer;
}

/* Returns 1 when rank r sends to q in round `round`. */
static int sends_to(const struct ar_schedule *s, int round, int r, int q) {
  for (size_t i = 0; i < s->nxfers; i++)
    if (s->xfers[i].round == round && s->xfers[i].src == r && s->xfers[i].dst == q) return 1;
  return 0;
}

/* Counts the distinct ranks r sends to in round `round`. */
static int peers_of(const struct ar_schedule *s, int round, int r) {
  int seen[AR_MAX_RANKS] = {0}, k = 0;
  for (size_t i = 0; i < s->nxfers; i++)
    if (s->xfers[i].round == round && s->xfers[i].src == r && !seen[s->xfers[i].dst]) {
      seen[s->xfers[i].dst] = 1;
      k++;
    }
  return k;
}

/* Builds, verifies and runs on the CPU; returns 1 when all of it holds (prints why not). */
static int builds_and_verifies(const char *algo, int n, int ndims, const int *dims,
                               struct ar_schedule *s, struct sched_report *rep) {
  ar_status st = build(algo, n, ndims, dims, s);
  CHECK(st == AR_OK, "%s n=%d: %s", algo, n, s->reason);
  if (st != AR_OK) return 0;
  ar_status v = sched_verify(s, rep);
  CHECK(v == AR_OK, "%s n=%d: %s", algo, n, rep->error);
  long w = run_cpu(s, (size_t)s->nchunks * 2 + 5);
  CHECK(w == 0, "%s n=%d: %ld wrong elements", algo, n, w);
  return v == AR_OK && w == 0;
}

/* s3.1.1: 2 log2 n rounds, 2(n-1)/n of the buffer per rank, one contiguous run per peer and
 * round (the block remapping), one port. */
static void test_bw_power_of_two(void) {
  for (int n = 2; n <= 256; n *= 2) {
    struct ar_schedule s;
    struct sched_report rep;
    if (!builds_and_verifies("swing-bw", n, 0, NULL, &s, &rep)) continue;
    int L = ar_log2(n);
    CHECK_INT(s.nrounds, ==, 2 * L);
    CHECK(sends_exactly(&rep, n, 2.0 * (n - 1) / n), "n=%d: rank 0 sends %f", n, rep.sent[0]);
    CHECK_INT(s.nxfers, ==, (size_t)2 * L * n);
    CHECK_INT(s.ports, ==, 1);
    sched_free(&s);
  }
}

/* s3.2: even n: no block sent twice, so still exactly 2(n-1)/n per rank, 2 ceil(log2 n)
 * rounds, one port. Odd n: 2 ceil(log2(n-1)) rounds and 2(n-1)/n per rank too. */
static void test_bw_other_n(void) {
  for (int n = 3; n <= 64; n++) {
    if (ar_is_pow2(n)) continue;
    struct ar_schedule s;
    struct sched_report rep;
    if (!builds_and_verifies("swing-bw", n, 0, NULL, &s, &rep)) continue;
    int e = n % 2 ? n - 1 : n, L = ar_log2(e) + !ar_is_pow2(e);
    CHECK_INT(s.nrounds, ==, 2 * L);
    CHECK(sends_exactly(&rep, n, 2.0 * (n - 1) / n), "n=%d: rank 0 sends %f", n, rep.sent[0]);
    if (n % 2 == 0) CHECK_INT(s.ports, ==, 1);
    sched_free(&s);
  }
}

/* The peer sequence: pi(r, s) = r + rho(s) for even r, r - rho(s) for odd r, rho = 1, -1, 3
 * (s3.1.1, Eq. 2). App. A.1: "at step 0 node 0 communicates with node 1 ... at step 1 node 0
 * communicates with -1 mod p = p-1, whereas node 1 communicates with node 2"; then 0 + 3. The
 * allgather uses the same peers in reverse order. */
static void test_bw_peers_n8(void) {
  static const int rho[3] = {1, -1, 3};
  struct ar_schedule s;
  CHECK_INT(build("swing-bw", 8, 0, NULL, &s), ==, AR_OK);
  CHECK_INT(only_peer(&s, 0, 0), ==, 1);
  CHECK_INT(only_peer(&s, 1, 0), ==, 7);
  CHECK_INT(only_peer(&s, 2, 0), ==, 3);
  CHECK_INT(only_peer(&s, 1, 1), ==, 2);
  CHECK_INT(only_peer(&s, 3, 0), ==, 3);
  CHECK_INT(only_peer(&s, 4, 0), ==, 7);
  CHECK_INT(only_peer(&s, 5, 0), ==, 1);
  for (int step = 0; step < 3; step++)
    for (int r = 0; r < 8; r++) {
      int want = ((r % 2 ? r - rho[step] : r + rho[step]) % 8 + 8) % 8;
      CHECK(only_peer(&s, step, r) == want, "rs step %d rank %d -> %d, want %d", step, r,
            only_peer(&s, step, r), want);
      CHECK(only_peer(&s, 5 - step, r) == want, "ag step %d rank %d -> %d, want %d", step, r,
            only_peer(&s, 5 - step, r), want);
    }
  for (size_t i = 0; i < s.nxfers; i++) /* reduce-scatter reduces, allgather copies */
    CHECK_INT(s.xfers[i].op, ==, s.xfers[i].round < 3 ? AR_REDUCE : AR_COPY);
  sched_free(&s);
}

/* s3.2, Fig. 4 (n = 7): the first 6 ranks run the even algorithm, rank 6 trades one block with
 * ranks 0, 1, 2 at step 0, with 3, 4 at step 1 and with 5 at step 2. */
static void test_bw_odd_n7(void) {
  static const int first[7] = {0, 0, 0, 1, 1, 2, -1}; /* step at which rank i meets rank 6 */
  struct ar_schedule s;
  CHECK_INT(build("swing-bw", 7, 0, NULL, &s), ==, AR_OK);
  CHECK_INT(s.nrounds, ==, 6);
  for (int i = 0; i < 6; i++)
    for (int step = 0; step < 3; step++) {
      CHECK(sends_to(&s, step, 6, i) == (step == first[i]), "step %d 6->%d", step, i);
      CHECK(sends_to(&s, step, i, 6) == (step == first[i]), "step %d %d->6", step, i);
    }
  CHECK_INT(peers_of(&s, 0, 6), ==, 3);
  CHECK_INT(s.ports, ==, 3);
  for (size_t i = 0; i < s.nxfers; i++) /* rank 6's trades are single blocks */
    if (s.xfers[i].src == 6 || s.xfers[i].dst == 6) CHECK_INT(s.xfers[i].count, ==, 1);
  sched_free(&s);
}

/* s3.1.2: log2 n rounds of whole-vector exchanges with pi(r, s); other n fold in (+2 rounds). */
static void test_lat(void) {
  for (int n = 2; n <= 64; n++) {
    struct ar_schedule s;
    struct sched_report rep;
    if (!builds_and_verifies("swing-lat", n, 0, NULL, &s, &rep)) continue;
    int L = ar_log2(n);
    CHECK_INT(s.nchunks, ==, 1);
    CHECK_INT(s.ports, ==, 1);
    if (ar_is_pow2(n)) {
      CHECK_INT(s.nrounds, ==, L);
      CHECK(sends_exactly(&rep, n, L), "n=%d: rank 0 sends %f", n, rep.sent[0]);
    } else {
      CHECK_INT(s.nrounds, ==, L + 2);
    }
    sched_free(&s);
  }
  struct ar_schedule s;
  CHECK_INT(build("swing-lat", 16, 0, NULL, &s), ==, AR_OK);
  static const int want0[4] = {1, 15, 3, 11}; /* 0 + 1, 0 - 1, 0 + 3, 0 - 5 */
  for (int step = 0; step < 4; step++)
    CHECK_INT(only_peer(&s, step, 0), ==, want0[step]);
  sched_free(&s);
}

/* s4.1, Fig. 5: on 4x4 node 0 pairs with 1 and 4 (plain) and 3 and 12 (mirrored) at step 0:
 * four ports; 2 log2 16 rounds; 2x2x2 too. */
static void test_mp_square(void) {
  struct ar_schedule s;
  struct sched_report rep;
  int d44[2] = {4, 4}, d222[3] = {2, 2, 2};
  if (builds_and_verifies("swing-mp", 16, 2, d44, &s, &rep)) {
    CHECK_INT(s.nrounds, ==, 8);
    CHECK_INT(s.ports, ==, 4);
    CHECK_INT(s.nchunks, ==, 4 * 16);
    CHECK_INT(peers_of(&s, 0, 0), ==, 4);
    CHECK(sends_to(&s, 0, 0, 1) && sends_to(&s, 0, 0, 3) && sends_to(&s, 0, 0, 4) &&
              sends_to(&s, 0, 0, 12),
          "4x4 step 0: node 0 must talk to 1, 3, 4 and 12");
    CHECK(sends_exactly(&rep, 16, 2.0 * 15 / 16), "4x4: rank 0 sends %f", rep.sent[0]);
    /* contiguous remapping: one run per (round, src, dst, collective) */
    CHECK_INT(s.nxfers, ==, (size_t)4 * 16 * 8);
    sched_free(&s);
  }
  if (builds_and_verifies("swing-mp", 8, 3, d222, &s, &rep)) {
    CHECK_INT(s.nrounds, ==, 6);
    CHECK_INT(s.ports, ==, 3); /* a ring of 2: plain and mirrored reach the same peer */
    CHECK(sends_exactly(&rep, 8, 2.0 * 7 / 8), "2x2x2: rank 0 sends %f", rep.sent[0]);
    sched_free(&s);
  }
}

/* s4.2, Fig. 6: on 2x4 the collectives use both dimensions for two steps, then all four use
 * the dimension of size 4 (ranks differing in coordinate 1: rank / 2). */
static void test_mp_2x4(void) {
  struct ar_schedule s;
  struct sched_report rep;
  int dims[2] = {2, 4};
  if (!builds_and_verifies("swing-mp", 8, 2, dims, &s, &rep)) return;
  CHECK_INT(s.nrounds, ==, 6);
  int dim0 = 0, dim1 = 0;
  for (size_t i = 0; i < s.nxfers; i++) {
    const struct ar_xfer *x = &s.xfers[i];
    if (x->round == 2) {
      CHECK(x->src % 2 == x->dst % 2, "step 2: %d->%d leaves dimension 1", x->src, x->dst);
    } else if (x->round < 2) {
      dim0 += x->src % 2 != x->dst % 2;
      dim1 += x->src % 2 == x->dst % 2;
    }
  }
  CHECK(dim0 > 0 && dim1 > 0, "steps 0-1 use both dimensions (%d, %d)", dim0, dim1);
  sched_free(&s);
}

/* Default shapes: 12 -> 3x4, 13 (prime) -> a ring of 13, 16 -> 4x4. */
static void test_default_shapes(void) {
  struct ar_schedule s;
  int d34[2] = {3, 4}, d13[1] = {13}, d44[2] = {4, 4};
  struct {
    const char *algo;
    int n, ndims, *dims;
  } cases[] = {{"swing-mp", 12, 2, d34}, {"bucket", 12, 2, d34},   {"swing-mp", 13, 1, d13},
               {"bucket", 13, 1, d13},   {"swing-mp", 16, 2, d44}, {"bucket", 16, 2, d44}};
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
    struct ar_schedule t;
    CHECK_INT(build(cases[c].algo, cases[c].n, 0, NULL, &s), ==, AR_OK);
    CHECK_INT(build(cases[c].algo, cases[c].n, cases[c].ndims, cases[c].dims, &t), ==, AR_OK);
    int same = s.nxfers == t.nxfers && s.nrounds == t.nrounds;
    for (size_t i = 0; same && i < s.nxfers; i++)
      same = !memcmp(&s.xfers[i], &t.xfers[i], sizeof(s.xfers[i]));
    CHECK(same, "%s n=%d: default shape differs from the explicit one", cases[c].algo, cases[c].n);
    sched_free(&s);
    sched_free(&t);
  }
}

/* s2.3.4: bucket on 2x3: ring reduce-scatters along each dimension, then allgathers:
 * 2 ((2-1) + (3-1)) rounds, 2(n-1)/n per rank, each ring step one contiguous run. */
static void test_bucket(void) {
  struct ar_schedule s;
  struct sched_report rep;
  int d23[2] = {2, 3}, d44[2] = {4, 4};
  if (builds_and_verifies("bucket", 6, 2, d23, &s, &rep)) {
    CHECK_INT(s.nrounds, ==, 6);
    CHECK(sends_exactly(&rep, 6, 2.0 * 5 / 6), "2x3: rank 0 sends %f", rep.sent[0]);
    for (size_t i = 0; i < s.nxfers; i++) { /* neighbours only: one hop on the torus */
      int a = s.xfers[i].src, b = s.xfers[i].dst;
      int da = (a % 2 != b % 2), db = ((a / 2 - b / 2) % 3 + 3) % 3;
      CHECK((da && !db) || (!da && (db == 1 || db == 2)), "%d->%d is not a neighbour", a, b);
    }
    sched_free(&s);
  }
  if (builds_and_verifies("bucket", 16, 2, d44, &s, &rep)) {
    CHECK_INT(s.nrounds, ==, 12);
    CHECK_INT(s.ports, ==, 4);
    CHECK_INT(s.nxfers, ==, (size_t)4 * 16 * 12); /* one run per ring step */
    sched_free(&s);
  }
}

/* Fills all ordered factorisations of n into factors >= 2, at most 4, calling check on each. */
static void each_shape(int n, int *dims, int k, void (*check)(int, const int *)) {
  if (n == 1) {
    if (k > 0) check(k, dims);
    return;
  }
  if (k == AR_MAX_TORUS_DIMS) return;
  for (int f = 2; f <= n; f++)
    if (n % f == 0) {
      dims[k] = f;
      each_shape(n / f, dims, k + 1, check);
    }
}

/* Verifies swing-mp and bucket on one shape, with their round counts. */
static void check_shape(int ndims, const int *dims) {
  int n = 1, lsw = 0, lbk = 0;
  for (int k = 0; k < ndims; k++) {
    int d = dims[k], e = d % 2 ? d - 1 : d;
    n *= d;
    lsw += e > 1 ? ar_log2(e) + !ar_is_pow2(e) : 0;
    lbk += d - 1;
  }
  const char *algos[2] = {"swing-mp", "bucket"};
  for (int a = 0; a < 2; a++) {
    struct ar_schedule s;
    struct sched_report rep;
    ar_status st = build(algos[a], n, ndims, dims, &s);
    CHECK(st == AR_OK, "%s n=%d dims %d: %s", algos[a], n, ndims, s.reason);
    if (st != AR_OK) continue;
    ar_status v = sched_verify(&s, &rep);
    CHECK(v == AR_OK, "%s n=%d %dx%d..: %s", algos[a], n, dims[0], ndims > 1 ? dims[1] : 1,
          rep.error);
    CHECK_INT(s.nrounds, ==, 2 * (a ? lbk : lsw));
    CHECK(sends_exactly(&rep, n, 2.0 * (n - 1) / n), "%s n=%d: sends %f", algos[a], n, rep.sent[0]);
    CHECK(s.ports <= 2 * ndims || a == 0, "bucket n=%d: ports %d", n, s.ports);
    sched_free(&s);
  }
}

static void test_every_shape(void) {
  int dims[AR_MAX_TORUS_DIMS];
  for (int n = 2; n <= 64; n++)
    each_shape(n, dims, 0, check_shape);
}

/* Bad shapes are refused as invalid input, not built. */
static void test_bad_torus(void) {
  struct ar_schedule s;
  int d23[2] = {2, 3};
  CHECK_INT(build("swing-mp", 8, 2, d23, &s), ==, AR_ERR_INVALID);
  CHECK(strstr(s.reason, "multiply") != NULL, "%s", s.reason);
  CHECK_INT(build("bucket", 12, 2, d23, &s), ==, AR_ERR_INVALID);
}

int main(void) {
  test_bw_power_of_two();
  test_bw_other_n();
  test_bw_peers_n8();
  test_bw_odd_n7();
  test_lat();
  test_mp_square();
  test_mp_2x4();
  test_default_shapes();
  test_bucket();
  test_every_shape();
  test_bad_torus();
  return TEST_DONE();
}
