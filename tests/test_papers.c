/* The model against Swing's own figures (issues #24, #46): s5 (Fig. 7-12's settings, the grids
 * of s5.4 and every row of Table 2), s3.2's odd p and s2.3.3's 3-2 elimination. Where the
 * per-message cost made the model meet a figure, the model before it is priced too and shown
 * missing (missed_before). Each line names
 * the figure, prints the paper's figure beside the model's and holds the model to the paper's
 * own words: "more than 2x" is model >= 2, a plain figure within 10% (the papers state no
 * tolerance there). Where docs/papers.md shows the arithmetic of why the paper's figure does
 * not follow from its own text, the model is held to that arithmetic (within 0.2%) instead, so a
 * change in the model still fails here. Every check prices a schedule: no figure is compared
 * with a constant. OPTCC's figures are tests/test_papers_optcc.c's, AsyncAllReduce's
 * tests/test_papers_async.c's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ar.h"
#include "claims.h"
#include "papers_swing_pins.h"
#include "model.h"
#include "papers_price.h"
#include "test.h"

/* ---- Swing (swing.txt s5): SST, 400 Gb/s links, 100 ns latency, 300 ns per hop ---- */

static const struct model_hw sst = {.alpha_us = 0.1, .hop_us = 0.3, .beta = 1e6 / 50e9};
/* ... and what a message costs on the NIC port it leaves by: not in the paper's settings; the
 * value that puts Fig. 7's gain at 2 MiB near the paper's 2.2x (docs/papers.md (1)) */
#define SST_MSG_US 0.2

/* A torus of the given shape, its parameters and net. */
struct torus {
  int nd, dims[AR_MAX_TORUS_DIMS], n;
  struct ar_params p;
  struct model_net net;
};

static void torus_init(struct torus *t, int nd, const int *dims) {
  t->nd = nd;
  t->n = 1;
  for (int k = 0; k < nd; k++)
    t->n *= t->dims[k] = dims[k];
  ar_params_init(&t->p, t->n);
  t->p.torus_ndims = nd;
  for (int k = 0; k < nd; k++)
    t->p.torus[k] = dims[k];
  model_net_init(&t->net, MODEL_TORUS, &t->p);
}

/* The Swing figures' algorithms: Swing (its latency- and bandwidth-optimal forms, the best of
 * them at each size, as Fig. 7 plots) and the best-known ones it is measured against. */
static const char *const swing_algos[] = {"swing-lat-torus", "swing-mp"};
static const char *const known_algos[] = {"ring-ham", "bucket-sync", "rd-torus", "rhd-torus"};
#define NSW 2
#define NKN 4

/* Priced forms of one torus (a name n/a there is skipped). */
struct priced {
  struct model_price sw[NSW], kn[NKN];
  int sw_ok[NSW], kn_ok[NKN];
};

static void price_torus(const struct torus *t, struct priced *pc);

/* Sets t to the square torus side x side and prices every form on it into pc. */
static void square(struct torus *t, struct priced *pc, int side) {
  int d[2] = {side, side};
  torus_init(t, 2, d);
  price_torus(t, pc);
}

static void price_torus(const struct torus *t, struct priced *pc) {
  char why[192];
  for (int i = 0; i < NSW; i++)
    pc->sw_ok[i] = model_price_algo(ar_algo_find(swing_algos[i]), &t->p, &t->net, &pc->sw[i], why,
                                    sizeof(why)) == AR_OK;
  for (int i = 0; i < NKN; i++)
    pc->kn_ok[i] = model_price_algo(ar_algo_find(known_algos[i]), &t->p, &t->net, &pc->kn[i], why,
                                    sizeof(why)) == AR_OK;
}

/* The model before the per-message cost (docs/papers.md's "before"): the same rounds, nothing
 * a message. Where it missed a figure the model now meets, missed_before() shows it missing. */
#define BEFORE_MSG_US 0.0

/* The time of a priced form on Swing's simulator (hw, msg_us a message), one size (us). */
static double swing_time(const struct model_price *pr, const struct model_hw *hw, double msg_us,
                         double bytes) {
  struct model_times t;
  model_times_msg(pr, hw, msg_us, bytes, 0, &t);
  return t.time_us;
}

/* The best time of a family at one size on Swing's simulator (us). */
static double best_of(const struct model_price *pr, const int *ok, int n, const struct model_hw *hw,
                      double msg_us, double bytes) {
  double best = INFINITY;
  for (int i = 0; i < n; i++)
    if (ok[i]) best = fmin(best, swing_time(&pr[i], hw, msg_us, bytes));
  return best;
}

/* Swing's gain over the best known on one priced torus, sizes 32 B .. top 2x apart: the
 * largest (hi, at `at` bytes), the smallest, and the first size the best known leads (MiB; 0:
 * never). */
struct gains {
  double hi, at, lo, loss_mib;
};

static struct gains gains_of(const struct priced *pc, const struct model_hw *hw, double msg_us,
                             double top) {
  struct gains g = {0, 0, INFINITY, 0};
  for (double b = 32; b <= top; b *= 2) {
    double r = best_of(pc->kn, pc->kn_ok, NKN, hw, msg_us, b) /
               best_of(pc->sw, pc->sw_ok, NSW, hw, msg_us, b);
    if (r > g.hi) g.hi = r, g.at = b;
    g.lo = fmin(g.lo, r);
    if (r < 1 && !g.loss_mib) g.loss_mib = b / (1 << 20);
  }
  return g;
}

/* The first size (MiB; 1 .. 512 MiB) at which bucket-sync leads the best Swing form, msg_us a
 * message; 0: none. */
static double bucket_lead(const struct priced *pc, double msg_us) {
  for (double b = 1 << 20; b <= 512.0 * (1 << 20); b *= 2)
    if (swing_time(&pc->kn[1], &sst, msg_us, b) < best_of(pc->sw, pc->sw_ok, NSW, &sst, msg_us, b))
      return b / (1 << 20);
  return 0;
}

/* Fig. 7 (64x64) and s5.1's text. */
static void test_swing_fig7(void) {
  struct torus t;
  struct priced pc;
  square(&t, &pc, 64);
  double mib = 1 << 20, sw2 = best_of(pc.sw, pc.sw_ok, NSW, &sst, SST_MSG_US, 2 * mib);
  double rd2 = best_of(pc.kn + 2, pc.kn_ok + 2, 2, &sst, SST_MSG_US, 2 * mib);
  double kn2 = best_of(pc.kn, pc.kn_ok, NKN, &sst, SST_MSG_US, 2 * mib);
  claim("Fig.7 64x64 2MiB: best RD / Swing (s5.1: \"more than 2x\")", AT_LEAST, 2.0, rd2 / sw2, -1);
  /* docs: bucket-sync's 252 steps at alpha + 1 hop + a message, 0.6 us, plus 2 MiB / 4 ports */
  double bucket = 252 * 0.6 + 2 * mib * 2.0 * 4095 / 4096 / 4 / 50e3;
  figure("Fig.7 64x64 2MiB: best known / Swing (gain ~120%)", 2.2, kn2 / sw2, bucket / sw2);
  double sw512 = best_of(pc.sw, pc.sw_ok, NSW, &sst, SST_MSG_US, 512 * mib);
  figure("Fig.7 64x64 512MiB: Swing goodput / peak (77%)", 0.77, 512 * mib / sw512 / 100e3, -1);
  /* "up to 50% improvement for small vectors (<= 32KiB)": the largest over those sizes */
  double small = 0;
  for (double b = 32; b <= 32 * 1024; b *= 2) {
    double r = swing_time(&pc.kn[2], &sst, SST_MSG_US, b) /
               swing_time(&pc.sw[0], &sst, SST_MSG_US, b);
    small = r > small ? r : small;
  }
  /* docs: the paper's 1.5 is Table 2's Xi ratio 2D / (4/3 D); the model's busiest links carry
   * 94 and 48 n beta (RD (L), Swing (L)) after 126 and 84 hops, 12 steps of a message each: at
   * 32 KiB */
  double sb = 32768 * sst.beta;
  figure("Fig.7 64x64 <=32KiB: RD (L) / Swing (L), largest (\"up to 50%\")", 1.5, small,
         (1.2 + 2.4 + 126 * 0.3 + 94 * sb) / (1.2 + 2.4 + 84 * 0.3 + 48 * sb));
  /* the crossover: the paper's Swing leads to 32 MiB and bucket from 128 MiB (its sizes are 4x
   * apart); the model's bucket-sync leads from the first size where Swing's 1.19 congestion
   * outweighs bucket's 252 steps (docs (2)) */
  double cross = bucket_lead(&pc, SST_MSG_US);
  claim("Fig.7 64x64: Swing leads through 32 MiB (bucket's first lead, MiB)", AT_LEAST, 64, cross,
        -1);
  claim("Fig.7 64x64: bucket leads from 128 MiB (its first lead, MiB)", AT_MOST, 128, cross, -1);
  /* the model before the per-message cost (docs (1), (2)): bucket's 252 steps at 0.4 us, 1.568
   * at 2 MiB and bucket ahead from 32 MiB */
  double before = best_of(pc.kn, pc.kn_ok, NKN, &sst, BEFORE_MSG_US, 2 * mib) /
                  best_of(pc.sw, pc.sw_ok, NSW, &sst, BEFORE_MSG_US, 2 * mib);
  missed_before("Fig.7 64x64 2MiB: best known / Swing (gain ~120%)", NEAR, 2.2, before);
  shown("Fig.7 64x64 2MiB: best known / Swing, before", before, "1.568");
  missed_before("Fig.7 64x64: Swing leads through 32 MiB (bucket's first lead, MiB)", AT_LEAST, 64,
                bucket_lead(&pc, BEFORE_MSG_US));
  shown("Fig.7 64x64: bucket's first lead before (MiB)", bucket_lead(&pc, BEFORE_MSG_US), "32");
}

/* The first size the best known leads at with Swing's crossover as docs/papers.md (2) works it
 * out on side x side: bucket-sync's 4 (side - 1) steps of alpha + a hop + a message against
 * swing-mp's 2 log2 p of alpha + a message and its hops (2 x 2 x the distances 1, 1, 3, 5, 11,
 * .. below the side) cost more latency, which Swing's congestion xi catches up at S = the gap
 * over (xi - 1) 2 (p-1)/p S beta / 4; the first power of 2 at or above it (MiB). */
static double crossover_mib(int side, double xi) {
  double p = (double)side * side, hops = 0, o = SST_MSG_US;
  for (int s = 0; (1 << s) < side; s++) {
    double dist = (pow(2, s + 1) - pow(-1, s + 1)) / 3;
    hops += 4 * fmin(dist, side - dist);
  }
  double gap = 4 * (side - 1) * (sst.alpha_us + sst.hop_us + o) -
               (2 * log2(p) * (sst.alpha_us + o) + hops * sst.hop_us);
  double at = gap / ((xi - 1) * 2 * (p - 1) / p / 4 * sst.beta);
  return pow(2, ceil(log2(at))) / (1 << 20);
}

/* Fig. 8: square tori 8x8 .. 128x128 (16384 ranks; ring-ham is n/a there, n^2 transfers, and
 * never the best known): Swing's largest gain over the best known grows with the torus; its
 * worst (large sizes) at most about 20% lower "regardless of network size", and it leads "for
 * up to 32MiB" on every one (s5.1.1). Where the model misses (8x8 .. 32x32: bucket leads
 * sooner) it is held to docs (2)'s crossover, with swing-mp's congestion there. */
static void test_swing_fig8(void) {
  static const int sides[] = {8, 16, 32, 64, 128};
  static const double xi[] = {1.0952, 1.1412, 1.1701, 1.1846, 1.19};
  /* docs/papers.md's (Fig. 8's rows): largest gain, worst ratio, first lead (MiB), and before */
  static const char *hi_doc[] = {"1.643", "1.873", "1.960", "2.088", "2.162"};
  static const char *lo_doc[] = {"0.914", "0.880", "0.862", "0.860", "0.871"};
  static const char *loss_doc[] = {"8", "16", "32", "64", NULL};
  static const char *hi_before_doc[] = {"1.498", "1.677", "1.725", "1.797", "1.822"};
  static const char *loss_before_doc[] = {"8", "8", "16", NULL, NULL};
  static const char *lo32_doc[] = {"0.935", "0.930", "0.967", NULL, NULL}; /* least to 32 MiB */
  double last = 0;
  for (size_t i = 0; i < sizeof(sides) / sizeof(sides[0]); i++) {
    struct torus t;
    struct priced pc;
    char what[112];
    int n = sides[i];
    square(&t, &pc, n);
    struct gains g = gains_of(&pc, &sst, SST_MSG_US, 512.0 * (1 << 20));
    printf("Fig.8 %dx%d: Swing's gain over the best known %.3f .. %.3f (largest at %.0f B)\n", n,
           n, g.lo, g.hi, g.at);
    CHECK(g.hi > last, "Fig.8: the largest gain should grow with the torus (%g after %g)", g.hi,
          last);
    last = g.hi;
    struct gains before = gains_of(&pc, &sst, BEFORE_MSG_US, 512.0 * (1 << 20));
    snprintf(what, sizeof(what), "Fig.8 %dx%d: largest gain", n, n);
    shown(what, g.hi, hi_doc[i]);
    snprintf(what, sizeof(what), "Fig.8 %dx%d: worst ratio", n, n);
    shown(what, g.lo, lo_doc[i]);
    snprintf(what, sizeof(what), "Fig.8 %dx%d: largest gain before the message cost", n, n);
    shown(what, before.hi, hi_before_doc[i]);
    if (loss_doc[i]) {
      snprintf(what, sizeof(what), "Fig.8 %dx%d: the best known's first lead (MiB)", n, n);
      shown(what, g.loss_mib, loss_doc[i]);
    }
    if (lo32_doc[i]) {
      snprintf(what, sizeof(what), "Fig.8 %dx%d: Swing's least gain up to 32 MiB", n, n);
      shown(what, gains_of(&pc, &sst, SST_MSG_US, 32.0 * (1 << 20)).lo, lo32_doc[i]);
    }
    if (loss_before_doc[i]) {
      snprintf(what, sizeof(what), "Fig.8 %dx%d: the best known's first lead before (MiB)", n, n);
      shown(what, before.loss_mib, loss_before_doc[i]);
    }
    snprintf(what, sizeof(what), "Fig.8 %dx%d: worst goodput ratio (s5.1.1: \"at most ~20%% lower\")",
             n, n);
    claim(what, AT_LEAST, 0.8, g.lo, -1);
    snprintf(what, sizeof(what), "Fig.8 %dx%d: Swing leads through 32 MiB (first loss, MiB)", n, n);
    claim(what, AT_LEAST, 64, g.loss_mib ? g.loss_mib : INFINITY,
          n < 64 ? crossover_mib(n, xi[i]) : -1);
    if (n >= 64) {
      /* docs: at the largest gain bucket-sync's 4 (side - 1) steps of 0.6 us and the bytes / 4
       * ports against swing-mp's */
      double p = t.n, swing = swing_time(&pc.sw[1], &sst, SST_MSG_US, g.at);
      double bucket = 4 * (n - 1) * 0.6 + g.at * 2.0 * (p - 1) / p / 4 / 50e3;
      snprintf(what, sizeof(what), "Fig.8 %dx%d: largest gain (s1: \"up to 2.2x\")", n, n);
      figure(what, 2.2, g.hi, bucket / swing);
      missed_before(what, NEAR, 2.2, before.hi);
    }
  }
}

/* s5.2, Fig. 11 and s5.5: 1024 ranks on rectangular tori. Swing leads "up to 32MiB regardless
 * of the network shape (up to 3x on the 128x8 and 256x4 torus)"; s5.5 has the largest gain
 * growing from 64x16 to 256x4, "up to 3x for 128x8" (s1: "up to 3x on rectangular tori"), so
 * 64x16's is held to at most 3x. The best known at the largest gain is rhd-torus (its 20 steps
 * cross up to half the long ring, 0.3 us a hop); ring-ham's 2046 steps never lead there. */
static void test_swing_rect(void) {
  static const struct {
    int dims[2];
    enum stated how;
    const char *hi_doc, *before_doc, *loss_doc, *ring_doc; /* docs/papers.md's rounds figures */
  } shapes[] = {{{128, 8}, NEAR, "2.802", "2.472", "512", "1.270"},
                {{256, 4}, NEAR, "2.717", "2.408", "128", "1.762"},
                {{64, 16}, AT_MOST, "2.726", "2.372", "512", "1.100"}};
  double hi[3];
  for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
    struct torus t;
    struct priced pc;
    char what[112];
    int a = shapes[i].dims[0], b = shapes[i].dims[1];
    torus_init(&t, 2, shapes[i].dims);
    price_torus(&t, &pc);
    struct gains g = gains_of(&pc, &sst, SST_MSG_US, 512.0 * (1 << 20));
    printf("Fig.11 %dx%d: Swing's gain over the best known %.3f .. %.3f (largest at %.0f B)\n", a,
           b, g.lo, g.hi, g.at);
    snprintf(what, sizeof(what), "Fig.11 %dx%d: largest gain (s5.2: \"up to 3x\")", a, b);
    claim(what, shapes[i].how, 3.0, hi[i] = g.hi, -1);
    shown(what, g.hi, shapes[i].hi_doc);
    double before = gains_of(&pc, &sst, BEFORE_MSG_US, 512.0 * (1 << 20)).hi;
    snprintf(what, sizeof(what), "Fig.11 %dx%d: largest gain before the message cost", a, b);
    shown(what, before, shapes[i].before_doc);
    snprintf(what, sizeof(what), "Fig.11 %dx%d: the best known's first lead (MiB)", a, b);
    shown(what, g.loss_mib, shapes[i].loss_doc);
    /* s5.2: "the ring algorithm ... outperforms both the bucket and Swing algorithms for
     * allreduce larger than 512MiB"; s5.5: on 256x4 "Swing performs around 60% worse than the
     * ring algorithm on 512MiB" (ring-ham: 2046 steps on two edge-disjoint rings) */
    CHECK(pc.kn_ok[0] && pc.kn_ok[1], "%dx%d: ring-ham or bucket-sync n/a", a, b);
    if (!pc.kn_ok[0] || !pc.kn_ok[1]) continue;
    double ring = swing_time(&pc.kn[0], &sst, SST_MSG_US, 1 << 30);
    double swing = best_of(pc.sw, pc.sw_ok, NSW, &sst, SST_MSG_US, 1 << 30);
    double bucket = swing_time(&pc.kn[1], &sst, SST_MSG_US, 1 << 30);
    snprintf(what, sizeof(what), "Fig.11 %dx%d 1GiB: Swing and bucket over ring (ring leads)", a,
             b);
    claim(what, AT_LEAST, 1.0, fmin(swing, bucket) / ring, -1);
    shown(what, fmin(swing, bucket) / ring, shapes[i].ring_doc);
    if (a == 256) {
      double big = 512.0 * (1 << 20);
      ring = swing_time(&pc.kn[0], &sst, SST_MSG_US, big);
      swing = best_of(pc.sw, pc.sw_ok, NSW, &sst, SST_MSG_US, big);
      claim("Fig.11 256x4 512MiB: Swing over ring (s5.5: \"around 60% worse\")", NEAR, 1.6,
            swing / ring, -1);
      shown("Fig.11 256x4 512MiB: Swing over ring", swing / ring, "1.606");
    }
    if (a == 256) { /* docs (16): sums at 1 TB/s after the bytes take 256x4 below 2.7 */
      struct model_hw sums = sst;
      sums.gamma = 1e6 / 1e12;
      double gg = gains_of(&pc, &sums, SST_MSG_US, 512.0 * (1 << 20)).hi;
      printf("Fig.11 256x4: largest gain with gamma 1 TB/s %.4f\n", gg);
      CHECK(!claim_met(NEAR, 3.0, gg), "256x4 with gamma 1 TB/s: %g, within 10%% of 3x", gg);
      sums.sums_overlap = 1; /* overlapped with the bytes (--gamma-overlap): hidden at 400 Gb/s */
      gg = gains_of(&pc, &sums, SST_MSG_US, 512.0 * (1 << 20)).hi;
      printf("Fig.11 256x4: largest gain with gamma 1 TB/s overlapped %.4f\n", gg);
      CHECK(fabs(gg - g.hi) < 1e-9 * g.hi, "256x4, sums overlapped at 1 TB/s: %g, free %g", gg, g.hi);
    }
    /* before the per-message cost: rhd-torus's 20 steps and bucket's 252 .. 1020 cost less */
    snprintf(what, sizeof(what), "Fig.11 %dx%d: largest gain (s5.2: \"up to 3x\")", a, b);
    if (shapes[i].how == NEAR) missed_before(what, NEAR, 3.0, before);
    snprintf(what, sizeof(what), "Fig.11 %dx%d: Swing leads through 32 MiB (first loss, MiB)", a, b);
    claim(what, AT_LEAST, 64, g.loss_mib ? g.loss_mib : INFINITY, -1);
  }
  /* s5.5: the largest gain grows from 64x16 to 256x4. The model's three lie within 0.09 and
   * 256x4's is the lowest, 0.997 of 64x16's (docs/papers.md, Fig. 11's rows) */
  claim("Fig.11 s5.5: 128x8's largest gain over 64x16's (grows)", AT_LEAST, 1.0, hi[0] / hi[2], -1);
  claim("Fig.11 s5.5: 256x4's largest gain over 64x16's (grows)", AT_LEAST, 1.0, hi[1] / hi[2],
        0.997);
  CHECK(hi[1] < hi[0] && hi[1] < hi[2], "256x4's largest gain %g, not the lowest", hi[1]);
}

/* s5.3, Fig. 12 and s5.5: 8x8x8 and 8x8x8x8, 32 B .. 2 GiB: Swing "outperforms by up to 2x
 * all existing algorithms", its gain growing with the dimensions from 8x8's. docs/papers.md
 * (20): the largest gain is at 256 KiB over bucket-sync, 2D (side - 1) steps of alpha + a hop +
 * a message and 2 (p-1)/p S beta over 2D ports, against swing-mp's 2 log2 p steps of alpha + a
 * message, its 10 D hops (distances 1, 1, 3 each way a dimension) and xi times the bytes. */
static void test_swing_dims(void) {
  static const int shapes[2][4] = {{8, 8, 8}, {8, 8, 8, 8}};
  static const double xi[2] = {1.0274, 1.0073};
  static const char *hi_doc[2] = {"1.664", "1.701"}, *before_doc[2] = {"1.532", "1.531"};
  struct torus t;
  struct priced pc;
  square(&t, &pc, 8);
  double last = gains_of(&pc, &sst, SST_MSG_US, 512.0 * (1 << 20)).hi, s = 256 * 1024;
  for (int D = 3; D <= 4; D++) {
    char what[112];
    torus_init(&t, D, shapes[D - 3]);
    price_torus(&t, &pc);
    struct gains g = gains_of(&pc, &sst, SST_MSG_US, 2048.0 * (1 << 20));
    double p = t.n, bytes = 2 * (p - 1) / p * s / (2 * D) * sst.beta;
    double bucket = 2 * D * 7 * (sst.alpha_us + sst.hop_us + SST_MSG_US) + bytes;
    double swing = 2 * log2(p) * (sst.alpha_us + SST_MSG_US) + 10 * D * sst.hop_us + xi[D - 3] * bytes;
    printf("Fig.12 8^%d: Swing's gain over the best known %.3f .. %.3f (largest at %.0f B)\n", D,
           g.lo, g.hi, g.at);
    snprintf(what, sizeof(what), "Fig.12 8^%d: largest gain (s5.3: \"up to 2x\")", D);
    figure(what, 2.0, g.hi, bucket / swing);
    shown(what, g.hi, hi_doc[D - 3]);
    /* s5.5: "it outperforms all the other algorithms at any size"; at 2 GiB the bytes rule and
     * Swing's congestion leaves it at about 1 / xi of bucket-sync (docs) */
    snprintf(what, sizeof(what), "Fig.12 8^%d: worst ratio (s5.5: outperforms at any size)", D);
    claim(what, AT_LEAST, 1.0, g.lo, 1 / xi[D - 3]);
    snprintf(what, sizeof(what), "Fig.12 8^%d: largest gain before the message cost", D);
    shown(what, gains_of(&pc, &sst, BEFORE_MSG_US, 2048.0 * (1 << 20)).hi, before_doc[D - 3]);
    CHECK(g.hi > last, "Fig.12: the largest gain should grow with the dimensions (%g after %g)",
          g.hi, last);
    last = g.hi;
  }
  /* Table 2's 4096-rank 3-D shape, which Fig. 12 does not plot */
  static const int cube[3] = {16, 16, 16};
  torus_init(&t, 3, cube);
  price_torus(&t, &pc);
  shown("Table 2's 16x16x16: largest gain", gains_of(&pc, &sst, SST_MSG_US, 2048.0 * (1 << 20)).hi,
        "1.995");
}

/* Fig. 9: 8x8 at 100 Gb/s .. 3.2 Tb/s; at 3.2 Tb/s the paper's Swing leads even at 512 MiB. */
static void test_swing_fig9(void) {
  struct torus t;
  struct priced pc;
  square(&t, &pc, 8);
  for (double gbps = 100; gbps <= 3200; gbps *= 2) {
    struct model_hw hw = sst;
    hw.beta = 1e6 / (gbps / 8 * 1e9);
    double b = 512.0 * (1 << 20);
    double r = best_of(pc.kn, pc.kn_ok, NKN, &hw, SST_MSG_US, b) /
               best_of(pc.sw, pc.sw_ok, NSW, &hw, SST_MSG_US, b);
    printf("Fig.9 8x8 %4.0f Gb/s 512MiB: best known / Swing %.4f\n", gbps, r);
    if (gbps == 3200) { /* docs: 1/Xi less the steps' latency, both over Swing's time */
      double bw = b * 2.0 * 63 / 64 / 4 * hw.beta, xi = 1.0952;
      double docs = (bw + 28 * 0.6) / (bw * xi + 12 * (0.1 + SST_MSG_US) + 20 * 0.3);
      claim("Fig.9 8x8 3.2Tb/s 512MiB: best known / Swing (s5.1.2: Swing leads)", AT_LEAST, 1.0,
            r, docs);
    }
  }
}

/* s5.4: 4096 ranks (64x64) on the torus-like networks, SST's figures as above. Fig. 13:
 * Hx2Mesh (2x2 boards, 32x32 of them): Swing "up to 2.5x for 2MiB"; Fig. 14: Hx4Mesh (4x4
 * boards); Fig. 15: HyperX, "the maximum goodput gain increases from 2.5x in Hx2Mesh and
 * Hx4Mesh, to 3x in HyperX". The largest gain is over the paper's sizes (4x apart); docs/papers.md
 * shows it and the gain at 2 MiB. The best known here is bucket-sync, rd-torus and
 * rhd-torus priced on the network, and the ring's closed form on its 4 ports, 2(p-1) alpha +
 * 2(p-1)/p S beta / 4, a bound no ring beats (ring-ham, 3.4e7 transfers, takes 5 s to build and
 * never leads on these networks: 819 us of alpha alone against 99 us at 2 MiB). */
/* Swing's gain over the best known (kn, or the ring's closed form) on n ranks at b bytes. */
static double grid_gain(const struct model_price *sw, const int *sw_ok,
                        const struct model_price *kn, const int *kn_ok, int n, double b) {
  double ring = 2.0 * (n - 1) * (sst.alpha_us + SST_MSG_US) + 2.0 * (n - 1) / n * b * sst.beta / 4;
  return fmin(best_of(kn, kn_ok, 3, &sst, SST_MSG_US, b), ring) /
         best_of(sw, sw_ok, NSW, &sst, SST_MSG_US, b);
}

static void test_swing_grids(void) {
  static const struct {
    int topology;
    const char *what;
    double paper;
    /* docs/papers.md: the largest gain, the gain at 2 MiB and at 4 MiB */
    const char *hi_doc, *at2_doc, *at4_doc;
  } nets[] = {{MODEL_HX2MESH, "Fig.13 Hx2Mesh 64x64: largest gain over the best known (2.5x)", 2.5,
               "2.728", "2.215", "2.713"},
              {MODEL_HX4MESH, "Fig.14 Hx4Mesh 64x64: largest gain over the best known (2.5x)", 2.5,
               "2.390", "2.312", "2.915"},
              {MODEL_HYPERX, "Fig.15 HyperX 64x64: largest gain over the best known (3x)", 3.0,
               "2.779", "2.779", "3.233"}};
  static const char *const known[] = {"bucket-sync", "rd-torus", "rhd-torus"};
  for (size_t i = 0; i < sizeof(nets) / sizeof(nets[0]); i++) {
    struct torus t;
    int d[2] = {64, 64};
    torus_init(&t, 2, d);
    CHECK_INT(model_net_init(&t.net, nets[i].topology, &t.p), ==, AR_OK);
    struct model_price sw[NSW], kn[3];
    int ok = 1, sw_ok[NSW] = {1, 1}, kn_ok[3] = {1, 1, 1};
    for (int k = 0; k < NSW; k++)
      ok &= price(swing_algos[k], &t.p, &t.net, &sw[k]);
    for (int k = 0; k < 3; k++)
      ok &= price(known[k], &t.p, &t.net, &kn[k]);
    if (!ok) return;
    double best = 0, at = 0;
    for (double b = 32; b <= 512.0 * (1 << 20); b *= 4) {
      double g = grid_gain(sw, sw_ok, kn, kn_ok, t.n, b);
      if (g > best) best = g, at = b;
    }
    double at2 = grid_gain(sw, sw_ok, kn, kn_ok, t.n, 2 << 20); /* the paper's words (Hx2Mesh) */
    double at4 = grid_gain(sw, sw_ok, kn, kn_ok, t.n, 4 << 20); /* between the paper's sizes */
    printf("%s: at %.0f B\n", model_topology_name(nets[i].topology), at);
    figure(nets[i].what, nets[i].paper, best, -1);
    shown(nets[i].what, best, nets[i].hi_doc);
    char what[96];
    snprintf(what, sizeof(what), "%s 64x64: gain at 2 MiB", model_topology_name(nets[i].topology));
    shown(what, at2, nets[i].at2_doc);
    snprintf(what, sizeof(what), "%s 64x64: gain at 4 MiB", model_topology_name(nets[i].topology));
    shown(what, at4, nets[i].at4_doc);
    if (nets[i].topology == MODEL_HX2MESH) { /* docs: bucket-sync ahead at 512 MiB by 2.4% */
      double big = 512.0 * (1 << 20);
      shown("hx2mesh 64x64 512MiB: bucket-sync (us)", swing_time(&kn[0], &sst, SST_MSG_US, big),
            "5594.2");
      shown("hx2mesh 64x64 512MiB: Swing (us)", best_of(sw, sw_ok, NSW, &sst, SST_MSG_US, big),
            "5726.4");
    }
  }
}

/* Fig. 10: bucket on 2x4. Changing dimension together (bucket-sync) takes 2D(d_max - 1) = 12
 * steps where the unsynchronised bucket takes 8; the paper's Lambda = 2 D d_max / log2 p
 * counts d_max steps a dimension (16; a ring of d needs d - 1: docs). */
static void test_swing_fig10(void) {
  struct torus t;
  struct model_price ps, pb;
  int d[2] = {2, 4};
  torus_init(&t, 2, d);
  if (!price("bucket-sync", &t.p, &t.net, &ps) || !price("bucket", &t.p, &t.net, &pb)) return;
  figure("Fig.10 2x4: synchronised bucket's latency deficiency", 2.0 * 2 * 4 / 3,
         ps.main.rounds / 3.0, 2.0 * 2 * 3 / 3);
  CHECK_INT(pb.main.rounds, ==, 8);
}

/* Table 2: every row's latency, bandwidth and congestion deficiencies, for D = 2, 3, 4 on the
 * largest square power-of-2 tori of 4096 ranks (64x64, 16x16x16, 8x8x8x8). Lambda = rounds /
 * log2 p; Psi = D x the no-congestion bandwidth term (each round's busiest first or last
 * link) over the buffer: n/D beta is optimal; Xi = the priced bandwidth term over that. */
static void test_swing_table2(void) {
  int within = 0, values = 0;
  static const struct {
    const char *row, *algo;
  } rows[] = {{"Ring", "ring-ham"},         {"Rec.Doub. (L)", "rd-torus"},
              {"Rec.Doub. (B)", "rhd-torus"}, {"Bucket", "bucket-sync"},
              {"Swing (L)", "swing-lat-torus"}, {"Swing (B)", "swing-mp"}};
  static const int shapes[3][4] = {{64, 64}, {16, 16, 16}, {8, 8, 8, 8}};
  for (int D = 2; D <= 4; D++) {
    struct torus t;
    torus_init(&t, D, shapes[D - 2]);
    double p = t.n, lg = log2(p), side = t.dims[0];
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
      struct model_price pr;
      char what[96], why[192];
      if (!strcmp(rows[i].algo, "ring-ham") && D > 2) { /* "does not work for D > 2" */
        CHECK_INT(model_price_algo(ar_algo_find("ring-ham"), &t.p, &t.net, &pr, why, sizeof(why)),
                  ==, AR_ERR_UNSUPPORTED);
        continue;
      }
      if (!price(rows[i].algo, &t.p, &t.net, &pr)) continue;
      double lam = pr.main.rounds / lg, psi = D * pr.main.load_ideal;
      double xi = pr.main.load / pr.main.load_ideal;
      /* the paper's entries, and where docs/papers.md explains them, the model's value */
      double pl, pp, px, dl = -1, dp = -1, dx = -1;
      if (!strcmp(rows[i].algo, "ring-ham")) {
        pl = 2 * p / lg, pp = 1, px = 1;
      } else if (!strcmp(rows[i].algo, "rd-torus") || !strcmp(rows[i].algo, "swing-lat-torus")) {
        int swing = rows[i].algo[0] == 's';
        pl = 1, pp = D * lg, px = (swing ? 4.0 / 3 : 2.0) * D * side;
        /* docs: a step of distance delta loads the busiest link with delta flows (rd: XOR
         * pairs a block of delta ranks the same way) or ceil(delta / 2) (Swing: even ranks
         * one way, odd the other); at the antipode (delta = side / 2) the flows split both
         * ways, halving it and the first link's share. The paper's Xi sums the distances
         * (D sum delta), where the model's is their mean over the bandwidth term: dividing
         * by the steps' first-link loads, log2 p less D/2 for the split steps */
        double sum = 0, ideal = lg;
        for (int s = 0; (1 << s) < side; s++) {
          double dist = swing ? (pow(2, s + 1) - pow(-1, s + 1)) / 3 : pow(2, s);
          dist = dist > side - dist ? side - dist : dist;
          int tie = 2 * dist == side;
          sum += tie ? side / 4 : swing ? ceil(dist / 2) : dist;
          ideal -= tie ? 0.5 * D : 0;
        }
        dx = D * sum / ideal;
        dp = D * ideal; /* Psi: the split halves the first link at the antipode steps */
      } else if (!strcmp(rows[i].algo, "rhd-torus")) {
        pl = 2, pp = 2 * D, px = (pow(2, D) - 1) / (pow(2, D) - 2);
      } else if (!strcmp(rows[i].algo, "bucket-sync")) {
        pl = 2 * D * side / lg, pp = 1, px = 1;
        dl = 2 * D * (side - 1) / lg; /* docs: a ring of d takes d - 1 steps, not d */
      } else {
        static const double table2[] = {1.19, 1.03, 1.008}; /* D = 2, 3, 4 */
        pl = 2, pp = 1, px = table2[D - 2];
      }
      snprintf(what, sizeof(what), "Table 2 D=%d %-14s Lambda", D, rows[i].row);
      figure(what, pl, lam, dl);
      snprintf(what, sizeof(what), "Table 2 D=%d %-14s Psi", D, rows[i].row);
      figure(what, pp, psi, dp);
      snprintf(what, sizeof(what), "Table 2 D=%d %-14s Xi", D, rows[i].row);
      figure(what, px, xi, dx);
      within += claim_met(NEAR, pl, lam) + claim_met(NEAR, pp, psi) + claim_met(NEAR, px, xi);
      values += 3;
    }
  }
  shown("Table 2: values within 10%", within, "39");
  shown("Table 2: values below, explained", values - within, "9");
}

/* Swing s3.2: an odd p runs Swing on p - 1 ranks while the last trades its blocks directly
 * with them, "a 1/p additive factor" on the bandwidth deficiency, whose unit is the 2n bytes
 * of s2.2's ring. Priced on a switch at alpha 0: swing-bw's time over 2 n beta, and over the
 * ring's 2(p-1)/p n beta, which docs/papers.md (13) derives as (p - 2 + L)/(p - 1) with L =
 * ceil(log2(p - 1)) Swing steps (the last rank's block lands on a busy rank in every step). */
static void test_swing_odd(void) {
  struct model_hw hw = {.beta = 1e6 / 50e9};
  double bytes = 1 << 30;
  for (int p = 7; p <= 15; p += 8) {
    struct ar_params q;
    struct model_net net;
    struct model_price sw, ring;
    ar_params_init(&q, p);
    model_net_init(&net, MODEL_SWITCH, &q);
    if (!price("swing-bw", &q, &net, &sw) || !price("ring", &q, &net, &ring)) return;
    double t = time_of(&sw, &hw, bytes), L = ceil(log2(p - 1.0)), paper = 1 + 1.0 / p;
    char what[128];
    snprintf(what, sizeof(what), "Swing s3.2: p=%d, the (p-1)+1 scheme over 2n: 1+1/p", p);
    figure(what, paper, t / (2 * bytes * hw.beta), (p - 2 + L) / p);
    snprintf(what, sizeof(what), "Swing s3.2: p=%d, the (p-1)+1 scheme over ring: 1+1/p", p);
    figure(what, paper, t / time_of(&ring, &hw, bytes), (p - 2 + L) / (p - 1));
  }
}

/* Swing s2.3.3, "Non-power-of-two": recursive halving/doubling with 3-2 elimination "increases
 * the bandwidth deficiency to 3/2" (over 2n, Psi's unit), where rhd's fold-in moves n more each
 * way (n = 12: 3.75 n). Priced on a switch at alpha 0. The levels are recomputed here from the
 * rule docs/papers.md (14) states: a level of range d costs d/2, or d with triples, so the
 * deficiency is the sum over levels l of (triples ? 2 : 1) / 2^(l+1); it is 3/2 at most
 * wherever the first level eliminates every extra rank (n <= 1.5 x 2^floor(log2 n)). */
static double elim_deficiency(int n) {
  double sum = 0;
  for (int g = n, l = 0; g > 1; l++) {
    int pw = 1, t;
    while (2 * pw <= g) pw *= 2;
    t = g == pw ? 0 : 3 * (g - pw) <= g ? g - pw : g / 3 - ((g - g / 3) % 2);
    sum += (t ? 2.0 : 1.0) / (2 << l);
    g = (g - t) / 2;
  }
  return sum;
}

static void test_rhd_elim(void) {
  struct model_hw hw = {.beta = 1e6 / 50e9};
  double bytes = 1 << 30, worst = 0;
  int worst_n = 0, beaten = 0, checked = 0;
  for (int n = 3; n <= 64; n++) {
    if (ar_is_pow2(n)) continue;
    struct ar_params q;
    struct model_net net;
    struct model_price el, fold;
    ar_params_init(&q, n);
    model_net_init(&net, MODEL_SWITCH, &q);
    if (!price("rhd-elim", &q, &net, &el) || !price("rhd", &q, &net, &fold)) return;
    double psi = time_of(&el, &hw, bytes) / (2 * bytes * hw.beta);
    double psi_fold = time_of(&fold, &hw, bytes) / (2 * bytes * hw.beta);
    int pw = 1 << ar_log2(n), first = 2 * (n - pw) <= pw; /* all eliminated at the first level */
    char what[128];
    if (n == 7 || n == 12 || n == 63) {
      snprintf(what, sizeof(what), "Swing s2.3.3: n=%d, RH/D with 3-2 elimination over 2n (3/2)", n);
      figure(what, 1.5, psi, elim_deficiency(n));
      snprintf(what, sizeof(what), "Swing s2.3.3: n=%d, RH/D folding in over 2n (rhd)", n);
      printf("%-66s model %9.4g\n", what, psi_fold);
      if (n == 12) shown(what, psi_fold, "1.875");
    }
    CHECK(fabs(psi - elim_deficiency(n)) <= TOL_DOC * psi, "n=%d: %g against the levels' %g", n,
          psi, elim_deficiency(n));
    if (first) {
      CHECK(psi <= 1.5 + 1e-9, "n=%d: deficiency %g above 3/2", n, psi);
      checked++;
      worst = psi > worst ? psi : worst, worst_n = psi >= worst ? n : worst_n;
    }
    beaten += psi < psi_fold;
  }
  printf("Swing s2.3.3: 3-2 elimination <= 3/2 at the %d n in 3..64 it finishes at the first "
         "level (largest %.4g at n=%d); below the fold-in at %d of 57\n", checked, worst, worst_n,
         beaten);
  CHECK_INT(beaten, ==, 57);
  shown("Swing s2.3.3: the n in 3..64 the first level finishes", checked, "31");
  shown("Swing s2.3.3: their largest deficiency", worst, "1.469");
  shown("Swing s2.3.3: ... at n", worst_n, "48");
}

int main(void) {
  test_swing_fig7();
  test_swing_fig8();
  test_swing_rect();
  test_swing_dims();
  test_swing_fig9();
  test_swing_fig10();
  test_swing_grids();
  test_swing_table2();
  test_swing_odd();
  test_rhd_elim();
  pin_all(swing_pins, sizeof(swing_pins) / sizeof(swing_pins[0]));
  return TEST_DONE();
}
