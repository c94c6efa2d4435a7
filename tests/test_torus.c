/* The torus forms the Swing paper compares (issue #24): rd-torus, rhd-torus, swing-lat-torus,
 * ring-ham and bucket-sync on every torus shape up to 64 ranks (supported exactly where
 * their declared conditions say, verified symbolically and run on the CPU executor with real
 * data) and on the shapes of swing.txt's figures (Fig. 7-12: 8x8 .. 64x64, 64x16, 128x8,
 * 256x4, 8x8x8, 8x8x8x8; Fig. 10's 2x4), plus the properties that name each form: one
 * dimension a step, neighbours only, every link of ring-ham's four rings used once a round. */
#include <math.h>
#include <stdlib.h>

#include "ar.h"
#include "model.h"
#include "sched_check.h"
#include "test.h"

static const char *const algos[] = {"rd-torus", "rhd-torus", "swing-lat-torus", "ring-ham",
                                    "bucket-sync"};
#define NALGOS (sizeof(algos) / sizeof(algos[0]))

/* Fills p for the shape dims[0..nd). */
static void shape_params(struct ar_params *p, int nd, const int *dims) {
  int n = 1;
  for (int k = 0; k < nd; k++)
    n *= dims[k];
  ar_params_init(p, n);
  p->torus_ndims = nd;
  for (int k = 0; k < nd; k++)
    p->torus[k] = dims[k];
}

/* The declared support (--list): power-of-2 sides for the recursive forms; ring-ham a 2-D
 * R x C with R = k C and gcd(k, C - 1) = 1, either way round; bucket-sync any shape. */
static int supports(const char *algo, int nd, const int *dims) {
  if (!strcmp(algo, "bucket-sync")) return 1;
  if (!strcmp(algo, "ring-ham")) {
    if (nd != 2) return 0;
    int c = dims[1] % dims[0] == 0 ? dims[0] : dims[0] % dims[1] == 0 ? dims[1] : 0;
    return c > 0 && check_gcd((dims[0] * dims[1]) / (c * c), c - 1) == 1;
  }
  for (int k = 0; k < nd; k++)
    if (!ar_is_pow2(dims[k])) return 0;
  return 1;
}

/* Returns how many coordinates of ranks a and b differ on the torus dims[0..nd), and in *hops
 * the torus distance between them. */
static int differ(int a, int b, int nd, const int *dims, int *hops) {
  int k = 0;
  *hops = 0;
  for (int d = 0; d < nd; d++) {
    int x = a % dims[d], y = b % dims[d], f = ((y - x) % dims[d] + dims[d]) % dims[d];
    k += x != y;
    *hops += f < dims[d] - f ? f : dims[d] - f;
    a /= dims[d];
    b /= dims[d];
  }
  return k;
}

/* The round count each form promises. */
static int want_rounds(const char *algo, int n, int nd, const int *dims) {
  int dmax = 0;
  for (int k = 0; k < nd; k++)
    dmax = dims[k] > dmax ? dims[k] : dmax;
  if (!strcmp(algo, "rhd-torus")) return 2 * ar_log2(n);
  if (!strcmp(algo, "ring-ham")) return 2 * (n - 1);
  if (!strcmp(algo, "bucket-sync")) return 2 * nd * (dmax - 1);
  return ar_log2(n);
}

/* Checks one algorithm on one shape: supported as declared; then verified, its rounds, its
 * partners one dimension apart (the recursive forms) or neighbours (the rings), and, when
 * run_it, correct sums on the CPU. */
static void check(const char *algo, int nd, const int *dims, int run_it) {
  struct ar_params p;
  struct ar_schedule s;
  struct sched_report rep;
  shape_params(&p, nd, dims);
  int n = p.nranks, want = supports(algo, nd, dims);
  ar_status st = ar_build(ar_algo_find(algo), &p, &s);
  CHECK(st == (want ? AR_OK : AR_ERR_UNSUPPORTED), "%s n=%d %dx%d..: %s (declared %s)", algo, n,
        dims[0], nd > 1 ? dims[1] : 1, s.reason, want ? "supported" : "n/a");
  if (st != AR_OK) return;
  ar_status v = sched_verify(&s, &rep);
  CHECK(v == AR_OK, "%s n=%d %dx%d..: %s", algo, n, dims[0], nd > 1 ? dims[1] : 1, rep.error);
  CHECK_INT(s.nrounds, ==, want_rounds(algo, n, nd, dims));
  int one_dim = 1, near = 1;
  for (size_t i = 0; i < s.nxfers; i++) {
    int hops, k = differ(s.xfers[i].src, s.xfers[i].dst, nd, dims, &hops);
    one_dim &= k == 1;
    near &= hops == 1;
  }
  CHECK(one_dim, "%s n=%d: a transfer crosses more than one dimension", algo, n);
  if (!strcmp(algo, "ring-ham") || !strcmp(algo, "bucket-sync"))
    CHECK(near, "%s n=%d: a transfer is not between neighbours", algo, n);
  if (strcmp(algo, "rd-torus") && strcmp(algo, "swing-lat-torus"))
    for (int r = 0; r < n; r++)
      CHECK(fabs(rep.sent[r] - 2.0 * (n - 1) / n) < 1e-9, "%s n=%d rank %d sends %g", algo, n, r,
            rep.sent[r]);
  if (run_it) {
    long w1 = run_cpu(&s, (size_t)s.nchunks * 2 + 3), w2 = run_cpu(&s, 1000 + (size_t)n);
    CHECK(w1 == 0 && w2 == 0, "%s n=%d: %ld / %ld wrong elements", algo, n, w1, w2);
  }
  sched_free(&s);
}

/* Calls check for every algorithm on every ordered factorisation of n (factors >= 2, at most
 * four). */
static void each_shape(int n, int *dims, int k) {
  if (n == 1) {
    for (size_t a = 0; a < NALGOS && k > 0; a++)
      check(algos[a], k, dims, 1);
    return;
  }
  if (k == AR_MAX_TORUS_DIMS) return;
  for (int f = 2; f <= n; f++)
    if (n % f == 0) {
      dims[k] = f;
      each_shape(n / f, dims, k + 1);
    }
}

static void test_every_shape(void) {
  int dims[AR_MAX_TORUS_DIMS];
  for (int n = 2; n <= 64; n++)
    each_shape(n, dims, 0);
}

/* The shapes of swing.txt's figures: all verified (a large one a window of chunks at a time);
 * the CPU executor runs them up to 256 ranks. At 4096 ranks ring-ham (1.3e8 transfers) and
 * bucket-sync (bucket itself on square tori, compared transfer for transfer below) are
 * checked through the model instead (test_ring_ham_links). make test: up to 512 ranks;
 * make test-long: every shape. */
static void test_paper_shapes(void) {
  static const int shapes[][5] = {{2, 8, 8},      {2, 16, 16},   {2, 32, 32}, {2, 32, 8},
                                  {2, 64, 16},    {2, 128, 8},   {2, 256, 4}, {3, 8, 8, 8},
                                  {2, 2, 4},      {2, 64, 64},   {4, 8, 8, 8, 8}};
  for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
    int nd = shapes[i][0], n = 1;
    const int *dims = &shapes[i][1];
    for (int k = 0; k < nd; k++)
      n *= dims[k];
    if (n > 512 && !test_long()) continue;
    for (size_t a = 0; a < NALGOS; a++) {
      int big = n > 1024 || (n == 1024 && !strcmp(algos[a], "ring-ham"));
      if (big && (!strcmp(algos[a], "ring-ham") || !strcmp(algos[a], "bucket-sync"))) continue;
      check(algos[a], nd, dims, n <= 256);
    }
  }
}

/* bucket-sync is bucket on a square torus (every dimension's phase as long), and differs
 * on a rectangular one (2x4: 12 rounds, not bucket's 8; swing.txt Fig. 10). */
static void test_bucket_sync_square(void) {
  static const int shapes[][3] = {{2, 4, 4}, {2, 8, 8}, {2, 64, 64}};
  for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
    struct ar_params p;
    struct ar_schedule a, b;
    shape_params(&p, shapes[i][0], &shapes[i][1]);
    CHECK_INT(ar_build(ar_algo_find("bucket"), &p, &a), ==, AR_OK);
    CHECK_INT(ar_build(ar_algo_find("bucket-sync"), &p, &b), ==, AR_OK);
    int same = a.nxfers == b.nxfers && a.nrounds == b.nrounds;
    for (size_t k = 0; same && k < a.nxfers; k++)
      same = !memcmp(&a.xfers[k], &b.xfers[k], sizeof(a.xfers[k]));
    CHECK(same, "bucket-sync differs from bucket on the square %dx%d", shapes[i][1],
          shapes[i][2]);
    sched_free(&a);
    sched_free(&b);
  }
  int d24[2] = {2, 4};
  struct ar_params p;
  struct ar_schedule a, b;
  shape_params(&p, 2, d24);
  CHECK_INT(ar_build(ar_algo_find("bucket"), &p, &a), ==, AR_OK);
  CHECK_INT(ar_build(ar_algo_find("bucket-sync"), &p, &b), ==, AR_OK);
  CHECK_INT(a.nrounds, ==, 8);
  CHECK_INT(b.nrounds, ==, 12);
  sched_free(&a);
  sched_free(&b);
}

/* ring-ham's four rings use every directed link of the torus exactly once a round: priced on
 * the torus each round's busiest link carries one chunk (1/(4n) of the buffer) over one hop,
 * and the 4n flows of a round fill the 4n directed links. Up to 64x64 (streamed). */
static void test_ring_ham_links(void) {
  static const int shapes[][2] = {{8, 8}, {4, 8}, {16, 16}, {64, 64}, {16, 32}};
  for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
    struct ar_params p;
    struct model_net net;
    struct model_price pr;
    char why[192];
    shape_params(&p, 2, shapes[i]);
    int n = p.nranks;
    CHECK_INT(model_net_init(&net, MODEL_TORUS, &p), ==, AR_OK);
    ar_status st = model_price_algo(ar_algo_find("ring-ham"), &p, &net, &pr, why, sizeof(why));
    CHECK(st == AR_OK, "ring-ham %dx%d: %s", shapes[i][0], shapes[i][1], why);
    if (st != AR_OK) continue;
    CHECK_INT(pr.main.rounds, ==, 2 * (n - 1));
    CHECK(fabs(pr.main.load - 2.0 * (n - 1) / (4.0 * n)) < 1e-9, "ring-ham %dx%d: load %g",
          shapes[i][0], shapes[i][1], pr.main.load);
    CHECK(fabs(pr.main.hops - 2.0 * (n - 1)) < 1e-9, "ring-ham %dx%d: hops %g", shapes[i][0],
          shapes[i][1], pr.main.hops);
  }
}

int main(void) {
  test_every_shape();
  test_paper_shapes();
  test_bucket_sync_square();
  test_ring_ham_links();
  return TEST_DONE();
}
