/* OPTCC (optcc.txt s4, App. C, App. D): every (n, l) verifies, runs on real data, and the
 * schedule priced with its own per-transfer weights takes the paper's time.
 *
 * Time model (optcc.txt s3 "Problem setting", s4.1): a healthy NIC moves one element per
 * time unit, a degraded one one element per l units; each NIC sends one flow and receives
 * one flow at a time. A round of the schedule is a set of flows started together, each rank
 * sending to at most one peer and receiving from at most one (ports = 1), so a round lasts
 * as long as its busiest NIC: max over ranks of the weighted elements it sends or receives,
 * weight l on any flow with a degraded end. paper_time() below prices a schedule that way
 * in units of n (the vector length); src/schedule.c sched_cost() must agree with it.
 *
 * Formulas checked (T in units of n, p GPUs, k segments):
 *   l >= 2:  T = l (k+1)/k                                 (s4.3 eq. 1)
 *   l < 2:   T = 2(p-1)l / ((p-2)l+2) * (k+l-1)/k          (s4.3 eq. 2, App. C)
 *            i.e. T/T0 = p l / ((p-2)l+2) with T0 = 2(p-1)/p
 *   m > 1:   T = max(2(p-1)/(p-m), l1 + 2(m-1)/(p-m)) (k+4)/k   (App. D.3)
 * and nothing beats the lower bounds of Theorem 6 (one) and Theorem 2 (m degraded GPUs). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ar.h"
#include "test.h"

/* The paper's time for a schedule (see above), in units of n; -1 if a rank talks to two
 * peers in one direction within a round (the model has one flow per NIC at a time). */
static double paper_time(const struct ar_schedule *s) {
  int n = s->nranks;
  double *out = calloc(n, sizeof(double)), *in = calloc(n, sizeof(double)), total = 0;
  int *to = malloc(n * sizeof(int)), *from = malloc(n * sizeof(int));
  for (size_t lo = 0, hi; lo < s->nxfers; lo = hi) {
    for (int r = 0; r < n; r++) {
      out[r] = in[r] = 0;
      to[r] = from[r] = -1;
    }
    for (hi = lo; hi < s->nxfers && s->xfers[hi].round == s->xfers[lo].round; hi++) {
      const struct ar_xfer *x = &s->xfers[hi];
      if ((to[x->src] >= 0 && to[x->src] != x->dst) ||
          (from[x->dst] >= 0 && from[x->dst] != x->src))
        total = -1e30;
      to[x->src] = x->dst;
      from[x->dst] = x->src;
      double t = (double)x->weight * x->count / s->nchunks;
      out[x->src] += t;
      in[x->dst] += t;
    }
    double worst = 0;
    for (int r = 0; r < n; r++) {
      if (out[r] > worst) worst = out[r];
      if (in[r] > worst) worst = in[r];
    }
    total += worst;
  }
  free(out);
  free(in);
  free(to);
  free(from);
  return total < 0 ? -1 : total;
}

/* optcc.txt s4.3 eq. 1 and 2 (App. C): OPTCC's time for one degraded GPU, units of n. */
static double optcc_formula(int p, double l, int k) {
  if (l >= 2) return l * (k + 1.0) / k;
  return 2.0 * (p - 1) * l / ((p - 2) * l + 2) * (k + l - 1) / k;
}

/* Theorem 6: the tight lower bound for one degraded GPU, units of n. */
static double bound_one(int p, double l) {
  double b = 2.0 * l * (p - 1) / (l * (p - 2) + 2);
  return b > l ? b : l;
}

/* App. D.3: OPTCC's time with m degraded GPUs (l1 the largest factor), units of n. */
static double multi_formula(int p, int m, double l1, int k) {
  double ring = 2.0 * (p - 1) / (p - m), strag = l1 + 2.0 * (m - 1) / (p - m);
  return (ring > strag ? ring : strag) * (k + 4.0) / k;
}

/* Theorem 2: the lower bound with m degraded GPUs, units of n. */
static double bound_multi(int p, int m, const double *l) {
  double inv = 0, l1 = 1;
  for (int i = 0; i < m; i++) {
    inv += 1 / l[i];
    if (l[i] > l1) l1 = l[i];
  }
  double b = 2.0 * (p - 1) / (p - m + inv);
  return b > l1 ? b : l1;
}

/* Builds an algorithm for n ranks with the given degraded GPUs; returns the status. */
static ar_status build(const char *algo, int n, int m, const int *deg, const double *fac, int k,
                       struct ar_schedule *s) {
  struct ar_params p;
  ar_params_init(&p, n);
  p.segments = k;
  p.ndegraded = m;
  for (int i = 0; i < m; i++) {
    p.degraded[i] = deg[i];
    p.factor[i] = fac[i];
  }
  return ar_build(ar_algo_find(algo), &p, s);
}

/* Inputs differ per rank and element; small integers keep float sums exact. */
static float input(int rank, size_t i) {
  return (float)((rank * 5 + (int)(i % 11) * 3) % 13 - 6);
}

/* Runs s on the CPU executor; returns the number of wrong elements (-1: executor failed). */
static long run_cpu(const struct ar_schedule *s, size_t nelem) {
  int n = s->nranks;
  float **bufs = malloc(sizeof(float *) * n);
  for (int r = 0; r < n; r++) {
    bufs[r] = malloc(sizeof(float) * (nelem + 1));
    for (size_t i = 0; i < nelem; i++)
      bufs[r][i] = input(r, i);
  }
  long wrong = sched_exec_cpu(s, bufs, nelem) == AR_OK ? 0 : -1;
  for (size_t i = 0; wrong >= 0 && i < nelem; i++) {
    float want = 0;
    for (int r = 0; r < n; r++)
      want += input(r, i);
    for (int r = 0; r < n; r++)
      wrong += bufs[r][i] != want;
  }
  for (int r = 0; r < n; r++)
    free(bufs[r]);
  free(bufs);
  return wrong;
}

/* Every transfer is weighted by the larger factor of its ends (1 when both are healthy). */
static int weights_ok(const struct ar_schedule *s, int m, const int *deg, const double *fac) {
  for (size_t i = 0; i < s->nxfers; i++) {
    double want = 1;
    for (int j = 0; j < m; j++)
      if ((s->xfers[i].src == deg[j] || s->xfers[i].dst == deg[j]) && fac[j] > want) want = fac[j];
    if (s->xfers[i].weight != (float)want) return 0;
  }
  return 1;
}

/* The Done-when check: p = 4, 5, 8 and l = 1.5, 2, 3 at k = 64 within 5% of s4.3 / App. C,
 * with the schedule's own weights; also the k -> infinity value of Table 3. */
static void test_time_matches_paper(void) {
  static const int ps[] = {4, 5, 8};
  static const double ls[] = {1.5, 2.0, 3.0};
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) {
      int p = ps[a], deg = p / 2;
      double l = ls[b];
      struct ar_schedule s;
      CHECK_INT(build("optcc", p, 1, &deg, &l, 64, &s), ==, AR_OK);
      double t = paper_time(&s), want = optcc_formula(p, l, 64);
      double asym = l >= 2 ? l : 2.0 * (p - 1) * l / ((p - 2) * l + 2);
      printf("optcc p=%d l=%.1f k=64: T/n = %.4f, s4.3/App. C %.4f (x%.4f), T/T0 = %.4f\n", p, l, t,
             want, t / want, t / (2.0 * (p - 1) / p));
      CHECK(t > 0.95 * want && t < 1.05 * want, "p=%d l=%g: T %.4f vs %.4f", p, l, t, want);
      CHECK(t > 0.95 * asym && t < 1.05 * asym, "p=%d l=%g: T %.4f vs Table 3 %.4f", p, l, t, asym);
      CHECK(t >= bound_one(p, l) - 1e-9, "p=%d l=%g: T %.4f below Theorem 6 %.4f", p, l, t,
            bound_one(p, l));
      double sc = sched_cost(&s, 0);
      CHECK(sc > t - 1e-9 && sc < t + 1e-9, "sched_cost %.6f vs paper_time %.6f", sc, t);
      CHECK(weights_ok(&s, 1, &deg, &l), "p=%d l=%g: weights", p, l);
      sched_free(&s);
    }
}

/* Every (n, l) verifies with one port, keeps within 5% of the formula and above the bound,
 * and small n give the right sums on real data. */
static void test_every_n_and_l(void) {
  static const double ls[] = {1.0, 8.0 / 7, 4.0 / 3, 1.5, 1.9, 2.0, 2.5, 3.0, 4.0};
  for (int n = 3; n <= 20; n++)
    for (size_t b = 0; b < sizeof(ls) / sizeof(ls[0]); b++) {
      int deg = (int)(n * b / 9) % n;
      double l = ls[b];
      struct ar_schedule s;
      struct sched_report rep;
      ar_status st = build("optcc", n, 1, &deg, &l, 0, &s);
      CHECK(st == AR_OK, "n=%d l=%g: %s", n, l, s.reason);
      if (st != AR_OK) continue;
      CHECK(sched_verify(&s, &rep) == AR_OK, "n=%d l=%g: %s", n, l, rep.error);
      CHECK_INT(rep.max_ports_used, ==, 1);
      double t = paper_time(&s), want = optcc_formula(n, l, 64);
      CHECK(t > 0.95 * want && t < 1.05 * want, "n=%d l=%g: T %.4f vs %.4f", n, l, t, want);
      CHECK(t >= bound_one(n, l) - 1e-9, "n=%d l=%g: T %.4f < bound", n, l, t);
      CHECK(weights_ok(&s, 1, &deg, &l), "n=%d l=%g: weights", n, l);
      if (n <= 9 && b % 3 == 0) {
        long w1 = run_cpu(&s, (size_t)s.nchunks * 2 + 37), w2 = run_cpu(&s, 1000);
        CHECK(w1 == 0 && w2 == 0, "n=%d l=%g: %ld / %ld wrong", n, l, w1, w2);
      }
      sched_free(&s);
    }
}

/* `arbench schedule --algo optcc --ranks N --degrade 0:2.0` verifies for N = 3..64 (the
 * same build and verifier the command runs). */
static void test_ranks_3_to_64(void) {
  for (int n = 3; n <= 64; n++) {
    int deg = 0;
    double l = 2.0;
    struct ar_schedule s;
    struct sched_report rep;
    ar_status st = build("optcc", n, 1, &deg, &l, 0, &s);
    CHECK(st == AR_OK, "n=%d: %s", n, s.reason);
    if (st != AR_OK) continue;
    CHECK(sched_verify(&s, &rep) == AR_OK, "n=%d: %s", n, rep.error);
    double t = paper_time(&s);
    CHECK(t > 0.95 * 2 * 65 / 64 && t < 1.05 * 2 * 65 / 64, "n=%d: T %.4f", n, t);
    sched_free(&s);
  }
}

/* Other segment counts, no degraded GPU (l = 1 on rank n-1: close to the ring's T0), two
 * ranks (n/a) and bad factors or ranks (invalid). */
static void test_params(void) {
  struct ar_schedule s;
  struct sched_report rep;
  int deg = 2;
  double l = 1.5;
  for (int k = 1; k <= 9; k += 2) {
    CHECK_INT(build("optcc", 6, 1, &deg, &l, k, &s), ==, AR_OK);
    CHECK(sched_verify(&s, &rep) == AR_OK, "k=%d: %s", k, rep.error);
    CHECK_INT(run_cpu(&s, 777), ==, 0);
    sched_free(&s);
  }
  for (int n = 3; n <= 10; n++) {
    CHECK_INT(build("optcc", n, 0, NULL, NULL, 0, &s), ==, AR_OK);
    CHECK(sched_verify(&s, &rep) == AR_OK, "n=%d: %s", n, rep.error);
    double t0 = 2.0 * (n - 1) / n, t = paper_time(&s);
    CHECK(t > t0 - 1e-9 && t < 1.05 * t0, "n=%d no degraded GPU: T %.4f vs T0 %.4f", n, t, t0);
    /* rank n-1 plays the degraded GPU: l = 1 fills its bubbles with blocks the size of a
     * section (a = d), so it sends each section once and each block to q GPUs */
    double sent = rep.sent[n - 1], want = 2.0 * (n - 1) / n;
    CHECK(sent > want - 1e-9 && sent < want + 1e-9, "n=%d rank n-1 sent %.4f", n, sent);
    sched_free(&s);
  }
  { /* optcc given two degraded GPUs (the ring form): refused, naming optcc-multi */
    int d2[2] = {1, 4};
    double f2[2] = {2.0, 1.5};
    CHECK_INT(build("optcc", 7, 2, d2, f2, 0, &s), ==, AR_ERR_UNSUPPORTED);
    CHECK(strstr(s.reason, "optcc-multi") != NULL, "two degraded: %s", s.reason);
  }
  CHECK_INT(build("optcc", 2, 1, (int[]){1}, (double[]){2.0}, 0, &s), ==, AR_ERR_UNSUPPORTED);
  CHECK_INT(build("optcc", 5, 1, (int[]){1}, (double[]){0.5}, 0, &s), ==, AR_ERR_INVALID);
  CHECK_INT(build("optcc", 5, 1, (int[]){5}, (double[]){2.0}, 0, &s), ==, AR_ERR_INVALID);
  CHECK_INT(build("optcc-multi", 5, 2, (int[]){1, 1}, (double[]){2.0, 2.0}, 0, &s), ==,
            AR_ERR_INVALID);
  CHECK_INT(build("optcc-multi", 2, 2, (int[]){0, 1}, (double[]){2.0, 2.0}, 0, &s), ==,
            AR_ERR_UNSUPPORTED);
}

/* The degraded GPU sends and receives each element about once (Lemma 5's minimum, plus the
 * bubble-filling share for l < 2) while a healthy GPU sends about 2(q-1)/q + 1/q. */
static void test_bytes(void) {
  int deg = 3;
  double l = 3.0;
  struct ar_schedule s;
  struct sched_report rep;
  CHECK_INT(build("optcc", 8, 1, &deg, &l, 64, &s), ==, AR_OK);
  CHECK_INT(sched_verify(&s, &rep), ==, AR_OK);
  CHECK(rep.sent[3] > 0.999 && rep.sent[3] < 1.001, "degraded sent %.4f", rep.sent[3]);
  CHECK(rep.recv[3] > 0.999 && rep.recv[3] < 1.001, "degraded recv %.4f", rep.recv[3]);
  CHECK(rep.sent[0] > 13.0 / 7 - 1e-3 && rep.sent[0] < 13.0 / 7 + 1e-3, "healthy sent %.4f",
        rep.sent[0]);
  sched_free(&s);
}

/* Returns the first round in which a transfer touches rank r (-1: none), and in *last the
 * last such round. */
static int rounds_touching(const struct ar_schedule *s, int r, int *last) {
  int first = -1;
  *last = -1;
  for (size_t i = 0; i < s->nxfers; i++)
    if (s->xfers[i].src == r || s->xfers[i].dst == r) {
      if (first < 0 || s->xfers[i].round < first) first = s->xfers[i].round;
      if (s->xfers[i].round > *last) *last = s->xfers[i].round;
    }
  return first;
}

/* Head and tail (one degraded GPU): the first section reduce-scatters on the idle gap edge,
 * so the degraded GPU's first round is q-1 (no bubble blocks), and the healthy ring finishes
 * q-1 rounds (one allgather) after its last one; with N = kq sections that is kq + 2q - 1
 * rounds (kq + 2q with blocks, whose head keeps block 0's uploads). For l >= 2 the time is
 * at most that of equal sections, l (N+1)/N + 2(q-1)/N, so at most s4.3 eq. 1's l (k+1)/k
 * (equal at l = 2); with half-size end bodies (k >= 3) it is (lqk - (l-1)(q-1)) / (q(k-1)),
 * and the generator keeps the lower of the two: exactly so for l >= 3 and for n <= 4 (for
 * 2 <= l < 3 and larger n, the first and last bodies' rounds are not all priced by that
 * formula). Before, the head and tail each waited a round longer for the gap: l (k+1.5)/k. */
static void test_head_tail(void) {
  static const double ls[] = {1.0, 1.5, 2.0, 2.5, 3.0, 4.0};
  static const int ks[] = {1, 2, 3, 4, 5, 8, 16, 64};
  for (int n = 3; n <= 20; n++)
    for (size_t b = 0; b < sizeof(ls) / sizeof(ls[0]); b++)
      for (size_t c = 0; c < sizeof(ks) / sizeof(ks[0]); c++) {
        int deg = (n * 7 + (int)b) % n, k = ks[c], q = n - 1, N = k * q, lastd;
        double l = ls[b];
        struct ar_schedule s;
        struct sched_report rep;
        if (build("optcc", n, 1, &deg, &l, k, &s) != AR_OK) {
          CHECK(0, "n=%d l=%g k=%d: %s", n, l, k, s.reason);
          continue;
        }
        CHECK(sched_verify(&s, &rep) == AR_OK, "n=%d l=%g k=%d: %s", n, l, k, rep.error);
        CHECK_INT(rep.max_ports_used, ==, 1);
        int firstd = rounds_touching(&s, deg, &lastd), blocks = l < 2;
        CHECK(firstd == (blocks ? 0 : q - 1), "n=%d l=%g k=%d: degraded GPU from round %d", n, l, k,
              firstd);
        CHECK(s.nrounds == lastd + q, "n=%d l=%g k=%d: %d rounds, degraded GPU done in %d", n, l, k,
              s.nrounds, lastd);
        CHECK(s.nrounds == N + 2 * q - 1 + blocks, "n=%d l=%g k=%d: %d rounds", n, l, k, s.nrounds);
        if (l >= 2) {
          double t = paper_time(&s), equal = l * (N + 1.0) / N + 2.0 * (q - 1) / N;
          double half = k >= 3 ? (l * q * k - (l - 1) * (q - 1)) / (q * (k - 1.0)) : equal;
          double want = half < equal ? half : equal;
          CHECK(t < equal + 1e-9, "n=%d l=%g k=%d: T %.6f above equal sections' %.6f", n, l, k, t,
                equal);
          if (l >= 3 || n <= 4)
            CHECK(t > want - 1e-9 && t < want + 1e-9, "n=%d l=%g k=%d: T %.6f, want %.6f", n, l, k,
                  t, want);
          CHECK(t < optcc_formula(n, l, k) + 1e-9, "n=%d l=%g k=%d: T %.6f above s4.3's %.6f", n, l,
                k, t, optcc_formula(n, l, k));
        }
        if (n <= 6 && k <= 5) /* real data through the unequal sections too */
          CHECK_INT(run_cpu(&s, (size_t)s.nchunks * 3 + 5), ==, 0);
        sched_free(&s);
      }
}

/* Orders transfers by round, sender, receiver, op and first chunk. */
static int xfer_cmp(const void *pa, const void *pb) {
  const struct ar_xfer *a = pa, *b = pb;
  if (a->round != b->round) return a->round - b->round;
  if (a->src != b->src) return a->src - b->src;
  if (a->dst != b->dst) return a->dst - b->dst;
  if (a->op != b->op) return a->op - b->op;
  return a->chunk - b->chunk;
}

/* Transfers (what a GPU transport copies one by one): no two of a round with the same ends
 * and op sit side by side in chunk space (they would be one copy), a rank sends at most two
 * a round (a ring edge's S1 and S4, or a section and a bubble block to the degraded GPU),
 * and with bubble blocks every body's block rides in two section transfers, so one degraded
 * GPU's schedule has exactly 2qN + 2qk - (2k - 1) transfers. Returns nothing; prints the
 * mean transfers per sending rank and round for n = 4 and 8. */
static void test_transfers(void) {
  static const double ls[] = {1.0, 1.5, 2.0, 3.0};
  for (int n = 3; n <= 12; n++)
    for (size_t b = 0; b < sizeof(ls) / sizeof(ls[0]); b++)
      for (int k = 1; k <= 16; k += 5) {
        int deg = n / 3, q = n - 1, N = k * q, adjacent = 0, most = 0;
        double l = ls[b];
        struct ar_schedule s;
        if (build("optcc", n, 1, &deg, &l, k, &s) != AR_OK) {
          CHECK(0, "n=%d l=%g k=%d: %s", n, l, k, s.reason);
          continue;
        }
        struct ar_xfer *x = malloc(s.nxfers * sizeof(*x));
        memcpy(x, s.xfers, s.nxfers * sizeof(*x));
        qsort(x, s.nxfers, sizeof(*x), xfer_cmp);
        long senders = 0;
        for (size_t i = 0, run = 0; i < s.nxfers; i++) {
          int same_src = i > 0 && x[i].round == x[i - 1].round && x[i].src == x[i - 1].src;
          run = same_src ? run + 1 : 1;
          senders += !same_src;
          if ((int)run > most) most = (int)run;
          if (same_src && x[i].dst == x[i - 1].dst && x[i].op == x[i - 1].op &&
              x[i - 1].chunk + x[i - 1].count == x[i].chunk)
            adjacent++;
        }
        CHECK(adjacent == 0, "n=%d l=%g k=%d: %d pairs of transfers could be one", n, l, k,
              adjacent);
        CHECK(most <= 2, "n=%d l=%g k=%d: a rank sends %d transfers in a round", n, l, k, most);
        if (l < 2) {
          long want = 2L * q * N + 2L * q * k - (2L * k - 1);
          CHECK((long)s.nxfers == want, "n=%d l=%g k=%d: %zu transfers, want %ld", n, l, k,
                s.nxfers, want);
        }
        if ((n == 4 || n == 8) && k == 16)
          printf("optcc n=%d l=%.1f k=16: %zu transfers in %d rounds, %.3f per sending rank "
                 "and round\n",
                 n, l, s.nxfers, s.nrounds, (double)s.nxfers / senders);
        free(x);
        sched_free(&s);
      }
}

/* optcc-multi: every n and mix of factors verifies, stays above Theorem 2 and within 5% of
 * App. D.3 (where the pipeline has a free ring edge, q > m); small n on real data. */
static void test_multi(void) {
  static const double fs[][4] = {
      {1.5, 1.5, 1.5, 1.5}, {2.0, 1.33, 1.14, 3.0}, {3.0, 2.0, 2.5, 1.2}};
  for (int n = 3; n <= 18; n++)
    for (int m = 2; m <= 4 && m <= n; m++)
      for (int f = 0; f < 3; f++) {
        int deg[4];
        for (int i = 0; i < m; i++)
          deg[i] = (i * (n / m) + f) % n;
        struct ar_schedule s;
        struct sched_report rep;
        ar_status st = build("optcc-multi", n, m, deg, fs[f], 0, &s);
        CHECK(st == AR_OK, "n=%d m=%d: %s", n, m, s.reason);
        if (st != AR_OK) continue;
        CHECK(sched_verify(&s, &rep) == AR_OK, "n=%d m=%d f=%d: %s", n, m, f, rep.error);
        CHECK(weights_ok(&s, m, deg, fs[f]), "n=%d m=%d: weights", n, m);
        double t = paper_time(&s), lb = bound_multi(n, m, fs[f]), l1 = 1;
        for (int i = 0; i < m; i++)
          if (fs[f][i] > l1) l1 = fs[f][i];
        CHECK(t >= lb - 1e-9, "n=%d m=%d: T %.4f below Theorem 2 %.4f", n, m, t, lb);
        if (n - m > m) {
          double want = multi_formula(n, m, l1, 64);
          CHECK(t < 1.05 * want, "n=%d m=%d f=%d: T %.4f vs D.3 %.4f", n, m, f, t, want);
          if (n == 8 && f == 1)
            printf("optcc-multi p=8 m=%d l1=%.1f k=64: T/n = %.4f, D.3 %.4f, Thm 2 %.4f\n", m, l1,
                   t, want, lb);
        }
        if (n <= 8 && f != 2) CHECK_INT(run_cpu(&s, (size_t)s.nchunks + 13), ==, 0);
        sched_free(&s);
      }
}

/* optcc-switch: correct for every n and set of degraded GPUs; degraded GPUs that own nothing
 * send and receive the vector once, healthy ones ((q-1) + (n-1)) / q of it; nearly healthy
 * ones (below the crossover l 2(n-1)/n = (q-1+n-1)/q) own their share, as in direct. */
static void test_switch(void) {
  struct ar_schedule s;
  struct sched_report rep;
  for (int n = 2; n <= 9; n++)
    for (int m = 0; m < n && m <= 3; m++)
      for (int li = 0; li < 4; li++) {
        static const double ls[] = {1.0, 1.05, 2.0, 3.5};
        int deg[3] = {n - 1, 0, 1};
        double fac[3] = {ls[li], ls[li], ls[li]};
        for (int k = 1; k <= 5; k += 2) {
          CHECK_INT(build("optcc-switch", n, m, deg, fac, k, &s), ==, AR_OK);
          CHECK_INT(sched_verify(&s, &rep), ==, AR_OK);
          CHECK(run_cpu(&s, 1000) == 0, "optcc-switch n=%d m=%d l=%.2f k=%d wrong", n, m, ls[li], k);
          CHECK(s.segments == k || (s.segments == 1 && s.nchunks == n), "k %d: %d segments",
                k, s.segments); /* everyone an owner: direct, one segment */
          CHECK_INT(s.nchunks % s.segments, ==, 0);
          CHECK(weights_ok(&s, m, deg, fac), "optcc-switch weights n=%d m=%d", n, m);
          int q = n - m;
          double t_owned = ls[li] * 2.0 * (n - 1) / n, t_healthy = (double)(q - 1 + n - 1) / q;
          if (ls[li] > t_healthy) t_healthy = ls[li];
          int healthy_only = m > 0 && ls[li] > 1 && t_healthy < t_owned;
          double want_d = healthy_only ? 1.0 : 2.0 * (n - 1) / n; /* direct */
          if (m > 0) /* the first degraded GPU, n-1 */
            CHECK(fabs(rep.sent[n - 1] - want_d) < 1e-9 && fabs(rep.recv[n - 1] - want_d) < 1e-9,
                  "optcc-switch n=%d m=%d l=%.2f: degraded sent %.4f recv %.4f, want %.4f", n, m,
                  ls[li], rep.sent[n - 1], rep.recv[n - 1], want_d);
          if (healthy_only && m == 1) /* rank 0 is healthy */
            CHECK(fabs(rep.sent[0] - (double)(q - 1 + n - 1) / q) < 1e-9,
                  "optcc-switch n=%d: healthy sent %.4f", n, rep.sent[0]);
          sched_free(&s);
        }
      }
  /* p = 4, l = 2: the degraded GPU owns nothing; 16 segments by default */
  int d3 = 3;
  double l2 = 2.0;
  CHECK_INT(build("optcc-switch", 4, 1, &d3, &l2, 0, &s), ==, AR_OK);
  CHECK_INT(s.nchunks, ==, 48);
  CHECK_INT(s.nrounds, ==, 19); /* k + 2q - 3: the ring's q - 2 hops before and after */
  CHECK_INT(sched_verify(&s, &rep), ==, AR_OK);
  CHECK(fabs(rep.sent[0] - 5.0 / 3) < 1e-9, "healthy sent %.4f", rep.sent[0]);
  CHECK(ar_sched_traits(&s) & AR_TRAIT_SEND_ORDER, "optcc-switch: sends not in its own order");
  /* a healthy GPU sends only to its ring successor and the degraded GPU, so that two
   * healthy GPUs never copy into the same receiver */
  for (int r = 0; r < 3; r++) {
    int to[4] = {0};
    for (size_t i = 0; i < s.nxfers; i++)
      if (s.xfers[i].src == r) to[s.xfers[i].dst] = 1;
    CHECK(to[(r + 1) % 3] && to[3] && !to[(r + 2) % 3], "healthy %d sends to %d %d %d %d", r,
          to[0], to[1], to[2], to[3]);
  }
  sched_free(&s);
}

/* The fabric picks OPTCC's form: on the papers' networks optcc and optcc-multi are the ring
 * form (as optcc-ring), on a switch the switch form (as optcc-switch), transfer for transfer. */
static void test_fabric(void) {
  static const char *const pairs[][3] = {{"optcc", "optcc-switch", "optcc-ring"},
                                         {"optcc-multi", "optcc-switch", "optcc-ring"}};
  int deg[2] = {3, 0};
  double fac[2] = {2.0, 1.5};
  for (int i = 0; i < 2; i++)
    for (int fabric = AR_FABRIC_NIC; fabric <= AR_FABRIC_SWITCH; fabric++) {
      struct ar_params p;
      ar_params_init(&p, 5);
      p.ndegraded = i + 1;
      p.segments = 8;
      p.fabric = fabric;
      for (int d = 0; d <= i; d++) {
        p.degraded[d] = deg[d];
        p.factor[d] = fac[d];
      }
      struct ar_schedule a, b;
      CHECK_INT(ar_build(ar_algo_find(pairs[i][0]), &p, &a), ==, AR_OK);
      CHECK_INT(ar_build(ar_algo_find(pairs[i][fabric == AR_FABRIC_SWITCH ? 1 : 2]), &p, &b), ==,
                AR_OK);
      int same = a.nxfers == b.nxfers && a.nrounds == b.nrounds && a.ports == b.ports;
      for (size_t x = 0; same && x < a.nxfers; x++)
        same = !memcmp(&a.xfers[x], &b.xfers[x], sizeof(a.xfers[x]));
      CHECK(same, "%s on fabric %d: not the %s schedule", pairs[i][0], fabric,
            pairs[i][fabric == AR_FABRIC_SWITCH ? 1 : 2]);
      CHECK(!strcmp(a.algo, pairs[i][0]), "named %s", a.algo);
      CHECK_INT(a.ports, ==, fabric == AR_FABRIC_SWITCH ? 4 : 1);
      sched_free(&a);
      sched_free(&b);
    }
}

int main(void) {
  test_fabric();
  test_time_matches_paper();
  test_every_n_and_l();
  test_ranks_3_to_64();
  test_params();
  test_bytes();
  test_head_tail();
  test_transfers();
  test_multi();
  test_switch();
  return TEST_DONE();
}
