/* The model against the papers' own figures (issue #24): Swing s5 (Fig. 7-10's settings and
 * every row of Table 2), OPTCC s2 and s5, and AsyncAllReduce's mini-batch trend. Each line
 * names the figure, prints the paper's figure beside the model's and holds the model to the
 * paper's own words: "within 6%" is model <= 1.06, "more than 2x" model >= 2, a plain figure
 * within 10% (the papers state no tolerance there). Where docs/papers.md shows the arithmetic
 * of why the paper's figure does not follow from its own text, the model is held to that
 * arithmetic (within 1%) instead, so a change in the model still fails here. Every check
 * prices a schedule: no figure is compared with a constant. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ar.h"
#include "claims.h"
#include "model.h"
#include "test.h"

/* Prices algo on the net (streamed where it can) with p; returns 1 when priced. */
static int price(const char *algo, const struct ar_params *p, const struct model_net *net,
                 struct model_price *pr) {
  char why[192] = "no such algorithm";
  const struct ar_algo *a = ar_algo_find(algo);
  ar_status st = a ? model_price_algo(a, p, net, pr, why, sizeof(why)) : AR_ERR_INVALID;
  CHECK(st == AR_OK, "%s n=%d: %s", algo, p->nranks, why);
  return st == AR_OK;
}

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

/* The time of a priced form on Swing's simulator (hw, SST_MSG_US a message), one size (us). */
static double swing_time(const struct model_price *pr, const struct model_hw *hw, double bytes) {
  struct model_times t;
  model_times_msg(pr, hw, SST_MSG_US, bytes, 0, &t);
  return t.time_us;
}

/* The best time of a family at one size on Swing's simulator (us). */
static double best_of(const struct model_price *pr, const int *ok, int n, const struct model_hw *hw,
                      double bytes) {
  double best = INFINITY;
  for (int i = 0; i < n; i++)
    if (ok[i]) best = fmin(best, swing_time(&pr[i], hw, bytes));
  return best;
}

/* Returns the time of one named priced form at one size. */
static double time_of(const struct model_price *pr, const struct model_hw *hw, double bytes) {
  struct model_times t;
  model_times(pr, hw, bytes, 0, &t);
  return t.time_us;
}

/* Fig. 7 (64x64) and s5.1's text. */
static void test_swing_fig7(void) {
  struct torus t;
  struct priced pc;
  square(&t, &pc, 64);
  double mib = 1 << 20, sw2 = best_of(pc.sw, pc.sw_ok, NSW, &sst, 2 * mib);
  double rd2 = best_of(pc.kn + 2, pc.kn_ok + 2, 2, &sst, 2 * mib);
  double kn2 = best_of(pc.kn, pc.kn_ok, NKN, &sst, 2 * mib);
  claim("Fig.7 64x64 2MiB: best RD / Swing (s5.1: \"more than 2x\")", AT_LEAST, 2.0, rd2 / sw2, -1);
  /* docs: bucket-sync's 252 steps at alpha + 1 hop + a message, 0.6 us, plus 2 MiB / 4 ports */
  double bucket = 252 * 0.6 + 2 * mib * 2.0 * 4095 / 4096 / 4 / 50e3;
  figure("Fig.7 64x64 2MiB: best known / Swing (gain ~120%)", 2.2, kn2 / sw2, bucket / sw2);
  double sw512 = best_of(pc.sw, pc.sw_ok, NSW, &sst, 512 * mib);
  figure("Fig.7 64x64 512MiB: Swing goodput / peak (77%)", 0.77, 512 * mib / sw512 / 100e3, -1);
  /* "up to 50% improvement for small vectors (<= 32KiB)": the largest over those sizes */
  double small = 0;
  for (double b = 32; b <= 32 * 1024; b *= 2) {
    double r = swing_time(&pc.kn[2], &sst, b) / swing_time(&pc.sw[0], &sst, b);
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
  double cross = 0;
  for (double b = mib; b <= 512 * mib && !cross; b *= 2)
    if (swing_time(&pc.kn[1], &sst, b) < best_of(pc.sw, pc.sw_ok, NSW, &sst, b)) cross = b / mib;
  claim("Fig.7 64x64: Swing leads through 32 MiB (bucket's first lead, MiB)", AT_LEAST, 64, cross,
        -1);
  claim("Fig.7 64x64: bucket leads from 128 MiB (its first lead, MiB)", AT_MOST, 128, cross, -1);
}

/* Fig. 8: square tori 8x8 .. 128x128 (16384 ranks; ring-ham is n/a there, n^2 transfers, and
 * never the best known): Swing's largest gain over the best known grows with the torus; its
 * worst (large sizes) at most about 20% lower "regardless of network size". */
static void test_swing_fig8(void) {
  static const int sides[] = {8, 16, 32, 64, 128};
  double last = 0;
  for (size_t i = 0; i < sizeof(sides) / sizeof(sides[0]); i++) {
    struct torus t;
    struct priced pc;
    square(&t, &pc, sides[i]);
    double hi = 0, lo = INFINITY, at = 0;
    for (double b = 32; b <= 512.0 * (1 << 20); b *= 2) {
      double g = best_of(pc.kn, pc.kn_ok, NKN, &sst, b) / best_of(pc.sw, pc.sw_ok, NSW, &sst, b);
      if (g > hi) hi = g, at = b;
      lo = g < lo ? g : lo;
    }
    printf("Fig.8 %dx%d: Swing's gain over the best known %.3f .. %.3f (largest at %.0f B)\n",
           sides[i], sides[i], lo, hi, at);
    CHECK(hi > last, "Fig.8: the largest gain should grow with the torus (%g after %g)", hi, last);
    last = hi;
    if (sides[i] >= 64) {
      /* docs: at the largest gain bucket-sync's 4 (side - 1) steps of 0.4 us and the bytes / 4
       * ports against swing-mp's; the paper's bucket pays ~0.6 us a step */
      double p = t.n, swing = swing_time(&pc.sw[1], &sst, at);
      double bucket = 4 * (sides[i] - 1) * 0.6 + at * 2.0 * (p - 1) / p / 4 / 50e3;
      char what[96];
      snprintf(what, sizeof(what), "Fig.8 %dx%d: largest gain (s1: \"up to 2.2x\")", sides[i],
               sides[i]);
      figure(what, 2.2, hi, bucket / swing);
      snprintf(what, sizeof(what), "Fig.8 %dx%d: worst goodput ratio (s5.1.1: \"at most ~20%% lower\")",
               sides[i], sides[i]);
      claim(what, AT_LEAST, 0.8, lo, -1);
    }
  }
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
    double r = best_of(pc.kn, pc.kn_ok, NKN, &hw, b) / best_of(pc.sw, pc.sw_ok, NSW, &hw, b);
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
 * Hx2Mesh (2x2 boards, 32x32 of them): Swing "up to 2.5x for 2MiB"; Fig. 15: HyperX, "the
 * maximum goodput gain increases ... to 3x". The best known here is bucket-sync, rd-torus and
 * rhd-torus priced on the network, and the ring's closed form on its 4 ports, 2(p-1) alpha +
 * 2(p-1)/p S beta / 4, a bound no ring beats (ring-ham, 3.4e7 transfers, takes 5 s to build and
 * never leads on these networks: 819 us of alpha alone against 99 us at 2 MiB). */
static void test_swing_grids(void) {
  static const struct {
    int topology;
    const char *what;
    double paper;
  } nets[] = {{MODEL_HX2MESH, "Fig.13 Hx2Mesh 64x64: largest gain over the best known (2.5x)", 2.5},
              {MODEL_HYPERX, "Fig.15 HyperX 64x64: largest gain over the best known (3x)", 3.0}};
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
      double ring = 2.0 * (t.n - 1) * (sst.alpha_us + SST_MSG_US) +
                    2.0 * (t.n - 1) / t.n * b * sst.beta / 4;
      double g = fmin(best_of(kn, kn_ok, 3, &sst, b), ring) / best_of(sw, sw_ok, NSW, &sst, b);
      if (g > best) best = g, at = b;
    }
    printf("%s: at %.0f B\n", model_topology_name(nets[i].topology), at);
    figure(nets[i].what, nets[i].paper, best, -1);
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
    }
  }
}

/* ---- OPTCC (optcc.txt s2, s5): bandwidth terms, plus the paper's own 14% fixed overhead ---- */

/* T / T_NCCL_NoFailure as SimAI reports it: 86% bandwidth term, 14% fixed (s5 footnote 5). */
static double simai(double bw_ratio) {
  return 0.86 * bw_ratio + 0.14;
}

/* Returns algo's bandwidth-term time over the healthy ring's, p GPUs, one GPU a server (a NIC
 * each, as on a switch), with degraded GPUs 0..m-1 at l[0..m), k segments (0: the default). */
static double over_t0_k(const char *algo, int p, int m, const double *l, int k) {
  struct ar_params q;
  struct model_net net;
  struct model_price pr, ring;
  struct model_hw bw = {.beta = 1e-3};
  ar_params_init(&q, p);
  model_net_init(&net, MODEL_SWITCH, &q);
  if (!price("ring", &q, &net, &ring)) return -1;
  q.ndegraded = m;
  for (int i = 0; i < m; i++) {
    q.degraded[i] = i;
    q.factor[i] = l[i];
  }
  q.segments = k;
  model_net_init(&net, MODEL_SWITCH, &q);
  if (!price(algo, &q, &net, &pr)) return -1;
  return (model_cost_us(&pr.pre, &bw, 1e6) + model_cost_us(&pr.main, &bw, 1e6)) /
         model_cost_us(&ring.main, &bw, 1e6);
}

static double over_t0(const char *algo, int p, int m, const double *l) {
  return over_t0_k(algo, p, m, l, 0);
}

/* The healthy rails' bandwidth term (NCCL's g channels, one NIC each) for p GPUs, g a
 * server, NVLink (g-1) x a NIC, in units of the buffer: T0 = 2(p-1)/(g p) n (s3). */
static double rails_t0(int p, int g) {
  struct ar_params q;
  struct model_net net;
  struct model_price pr;
  struct model_hw bw = {.beta = 1e-3};
  ar_params_init(&q, p);
  q.gpus_per_node = g;
  model_net_init(&net, MODEL_TWO_TIER, &q);
  net.local_speed = g - 1;
  if (!price("ring-rails", &q, &net, &pr)) return -1;
  return model_cost_us(&pr.main, &bw, 1e6) / 1e3;
}

/* Returns optcc-servers' bandwidth term in units of n beta: p GPUs, g a server (a NIC each,
 * NVLink at (g-1) x a NIC), server 0's g NICs slowed by l. */
static double servers_time(int p, int g, double l) {
  struct ar_params q;
  struct model_net net;
  struct model_price pr;
  struct model_hw bw = {.beta = 1e-3};
  ar_params_init(&q, p);
  q.gpus_per_node = g;
  q.ndegraded = g;
  for (int i = 0; i < g; i++) {
    q.degraded[i] = i;
    q.factor[i] = l;
  }
  model_net_init(&net, MODEL_TWO_TIER, &q);
  net.local_speed = g - 1;
  if (!price("optcc-servers", &q, &net, &pr)) return -1;
  return model_cost_us(&pr.main, &bw, 1e6) / 1e3;
}

/* OPTCC's k in s5 is not stated; its Table 3 times are k -> infinity. The figures that hold
 * only for large k are checked at this k (docs/papers.md: the paper's own eq. (1) needs
 * k >= 344 for its 6% at p = 16) and, at the default k = 64, against eq. (1) at k = 64. */
#define OPTCC_LARGE_K 512

/* s2: R2CCL "still incurs up to 57%" with half a straggler's bandwidth lost: its closed form
 * at p = 8 (App. F); s5: OptCC within 6% of NCCL_NoFailure for p in [16, 256], beating
 * R2CCL / ICCL (the ring on the degraded NICs) by 29% / 58% at p = 256, and within 2%, 8.5%
 * and 4% (one straggler, m = 2, g = 4) beating them by 27% / 55% at the message sizes of
 * Fig. 8-10 (d) (p = 64 assumed: App. F's panels (b)). */
static void test_optcc(void) {
  double two = 2.0, l114 = 8.0 / 7;
  figure("OPTCC s2: R2CCL's time / fault-free at l=2, p=8 (+57%)", 1.57,
         over_t0("r2ccl", 8, 1, &two), -1);
  for (int p = 16; p <= 256; p *= 4) {
    char what[96];
    int k = p <= 64 ? OPTCC_LARGE_K : 0; /* p = 256: k = 64 already meets it (2^24 transfers) */
    snprintf(what, sizeof(what), "OPTCC s5 Fig.8(c): OptCC / NCCL at l=2, p=%d, k=%d (within 6%%)",
             p, k ? k : 64);
    claim(what, AT_MOST, 1.06, simai(over_t0_k("optcc", p, 1, &two, k)), -1);
    snprintf(what, sizeof(what), "OPTCC s5 Fig.8(a): OptCC / NCCL at l=1.14, p=%d (within 6%%)", p);
    claim(what, AT_MOST, 1.06, simai(over_t0("optcc", p, 1, &l114)), -1);
  }
  /* at the default k = 64 the model is no slower than the paper's eq. (1), l n (k+1)/k; and
   * s4.3's p = 1024 (k = 8: 2^24 transfers, priced from its stages) */
  static const int eq1[][2] = {{16, 64}, {64, 64}, {1024, 8}};
  for (int i = 0; i < 3; i++) {
    char what[96];
    int p = eq1[i][0], k = eq1[i][1];
    snprintf(what, sizeof(what), "OPTCC s4.3 eq.(1): OptCC / T0 at l=2, p=%d, k=%d", p, k);
    claim(what, AT_MOST, 2.0 * (k + 1) / k / (2.0 * (p - 1) / p),
          over_t0_k("optcc", p, 1, &two, k), -1);
  }
  double opt = simai(over_t0("optcc", 256, 1, &two)), r2 = simai(over_t0("r2ccl", 256, 1, &two));
  double iccl = simai(over_t0("ring", 256, 1, &two));
  figure("OPTCC s5 p=256 l=2: OptCC / R2CCL (beats it by 29%)", 0.71, opt / r2, -1);
  /* docs: ICCL in the model is l T0; SimAI's congestion at the straggler costs more */
  figure("OPTCC s5 p=256 l=2: OptCC / ICCL (beats it by 58%)", 0.42, opt / iccl,
         simai(over_t0("optcc", 256, 1, &two)) / simai(2.0));
  opt = simai(over_t0_k("optcc", 64, 1, &two, OPTCC_LARGE_K));
  claim("OPTCC s5 Fig.8(d) p=64 l=2, k=512: OptCC / NCCL (within 2%)", AT_MOST, 1.02, opt, -1);
  opt = simai(over_t0("optcc", 64, 1, &two));
  r2 = simai(over_t0("r2ccl", 64, 1, &two));
  iccl = simai(over_t0("ring", 64, 1, &two));
  figure("OPTCC s5 Fig.8(d) p=64 l=2: OptCC / R2CCL (beats it by 27%)", 0.73, opt / r2, -1);
  figure("OPTCC s5 Fig.8(d) p=64 l=2: OptCC / ICCL (beats it by 55%)", 0.45, opt / iccl,
         opt / simai(2.0));
  /* App. D: two degraded GPUs are optcc-multi's; optcc (one, s4) refuses them with the reason
   * instead of pricing the second as a slow member of its healthy ring (4.0 n); optcc-multi
   * at l = 2 and 2, p = 64, against Theorem 2's bound max{2(p-1)/(p-m+sum 1/l_i), l_1} n */
  double both[2] = {2.0, 2.0};
  {
    struct ar_params q;
    struct model_net net;
    struct model_price pr;
    char why[192] = "";
    ar_params_init(&q, 64);
    q.ndegraded = 2;
    q.degraded[0] = 0, q.degraded[1] = 1;
    q.factor[0] = q.factor[1] = 2.0;
    model_net_init(&net, MODEL_SWITCH, &q);
    ar_status st = model_price_algo(ar_algo_find("optcc"), &q, &net, &pr, why, sizeof(why));
    printf("OPTCC App. D: optcc with two degraded GPUs: %s\n", why);
    CHECK(st == AR_ERR_UNSUPPORTED && strstr(why, "optcc-multi"), "optcc, m=2: %d %s", st, why);
    double bound = fmax(2.0 * 63 / (64 - 2 + 0.5 + 0.5), 2.0) / (2.0 * 63 / 64);
    figure("OPTCC App. D, Thm. 2: optcc-multi / bound at l=2,2, p=64", 1.0,
           over_t0("optcc-multi", 64, 2, both) / bound, -1);
  }
  double m2[2] = {2.0, 4.0 / 3};
  claim("OPTCC s5 Fig.9(d): OptCC m=2 (l=2, 1.33) / NCCL, p=64 (within 8.5%)", AT_MOST, 1.085,
        simai(over_t0("optcc-multi", 64, 2, m2)), -1);
  /* Fig. 10: g = 4 GPUs a server, optcc-servers (App. E: g rails of the one-GPU schedule over
   * the q = p/g servers on n/g each, NVLink collects and distributes in the NIC rounds) over
   * the healthy rails' T0 */
  double g4 = servers_time(64, 4, 2.0) / rails_t0(64, 4);
  claim("OPTCC s5 Fig.10(d): OptCC g=4 / NCCL at l=2, p=64 (within 4%)", AT_MOST, 1.04, simai(g4),
        -1);
  /* App. E.4: l >= 2 tends to Table 3's l n/g (eq. (21)); below, without bubble filling, 2n/g
   * (eq. (22)), and never under Theorem 13's bound n/g max{2l(q-1)/(l(q-2)+2), l} */
  for (double l = 1.5; l <= 3; l += 0.5) {
    char what[112];
    double t = servers_time(64, 4, l), q = 16, g = 4;
    double bound = fmax(2 * l * (q - 1) / (l * (q - 2) + 2), l) / g;
    struct model_hw unit = {.beta = 1};
    CHECK(fabs(model_degraded_servers_bound_us(16, 4, l, &unit, 1) - bound) < 1e-12,
          "Theorem 13's bound at l=%g: %g, want %g", l,
          model_degraded_servers_bound_us(16, 4, l, &unit, 1), bound);
    snprintf(what, sizeof(what), "OPTCC App. E.4 Table 3: optcc-servers / %s at l=%g, g=4, p=64",
             l >= 2 ? "(l n/g)" : "(2 n/g)", l);
    figure(what, 1.0, t / (l >= 2 ? l / g : 2 / g), -1);
    snprintf(what, sizeof(what), "OPTCC Thm. 13: optcc-servers / the bound at l=%g, g=4, p=64", l);
    claim(what, AT_LEAST, 1.0, t / bound, -1);
  }
  /* s5: above l = 2 OptCC grows like Theorem 1's l n branch */
  for (double l = 3; l <= 4; l++) {
    char what[96];
    snprintf(what, sizeof(what), "OPTCC s5 Fig.8(e): OptCC / (l n) at l=%g, p=64", l);
    figure(what, 1.0, over_t0("optcc", 64, 1, &l) * 2.0 * 63 / 64 / l, -1);
  }
}

/* App. C's pipeline with bubble filling (l < 2): T = 2(p-1)l / ((p-2)l + 2) n (k + l - 1)/k,
 * the head and tail costing l - 1 bodies in all. In lock-step rounds they cost 1 + 1/(2(p-1)):
 * the head's p-1 rounds carry one S1 hop of a section and nothing of the straggler's but its
 * bubble blocks, the tail's p-2 rounds one S4 hop, and the last download's round one ring body
 * round more (docs/papers.md (15)). At the paper's own setting (Fig. 7: p = 5, l = 1.5, k = 4)
 * and at l = 8/7 with k = 4 that is the docs' arithmetic, not App. C's time; at the default
 * k = 64 it is within 10% of it. */
static void test_optcc_head_tail(void) {
  static const struct {
    int p, k;
    double l;
  } at[] = {{5, 4, 1.5}, {16, 4, 8.0 / 7}, {64, 4, 8.0 / 7}, {5, 64, 1.5}, {16, 64, 8.0 / 7},
            {64, 64, 8.0 / 7}};
  for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
    int p = at[i].p, k = at[i].k;
    double l = at[i].l, t0 = 2.0 * (p - 1) / p, asym = 2.0 * (p - 1) * l / ((p - 2) * l + 2);
    double app_c = asym * (k + l - 1) / k / t0, rounds = asym * (k + 1 + 0.5 / (p - 1)) / k / t0;
    char what[96];
    snprintf(what, sizeof(what), "OPTCC App. C eq.(2): OptCC / T0 at l=%.3g, p=%d, k=%d", l, p, k);
    figure(what, app_c, over_t0_k("optcc", p, 1, &l, k), rounds);
  }
}

/* ---- AsyncAllReduce: 4 A100s on NVLink, 25 GB/s a direction; sums at ~500 GB/s (HBM:
 * read two, write one) ---- */

static void test_async(void) {
  struct ar_params q;
  struct model_net net;
  struct model_price ring, as;
  struct model_hw hw = {.alpha_us = 10, .beta = 1e6 / 25e9, .gamma = 1e6 / 500e9};
  ar_params_init(&q, 4);
  model_net_init(&net, MODEL_SWITCH, &q);
  if (!price("ring", &q, &net, &ring) || !price("async-ring", &q, &net, &as)) return;
  double bytes = 8.0 * (1 << 30), last = INFINITY, tr = time_of(&ring, &hw, bytes);
  for (int k = 1; k <= 64; k *= 2) {
    as.minibatches = k;
    double t = time_of(&as, &hw, bytes);
    printf("AsyncAllReduce 4 GPUs 8GiB: %2d mini-batches: %.0f us (ring %.0f)\n", k, t, tr);
    CHECK(k == 1 ? fabs(t - tr) < 1e-6 * tr : t < last, "K=%d: %g after %g", k, t, last);
    last = t;
  }
  as.minibatches = 8;
  /* docs: only the reduce-scatter's sums can hide, gamma/beta = 0.05 of its copies */
  double g = 25.0 / 500, c = 3 * (1 + g) + 3, a = 3 * ((1 + g) / 8 + 7.0 / 8) + 3;
  figure("AsyncAllReduce: throughput over the NCCL-style ring (+31.6%)", 1.316,
         tr / time_of(&as, &hw, bytes), c / a);
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
}

/* AsyncAllReduce's abstract: replacing send/recv (nccl-p2p) with asynchronous copies (ce)
 * raises a ring's throughput for large inputs. Priced with each transport's fitted figures on
 * 4 x H200 (src/model.c): a copy-engine round costs more (alpha) but moves bytes faster, so
 * the copies win once a step carries more than about 18 MB (docs/papers.md). */
static void test_async_transports(void) {
  struct ar_params q;
  struct model_net net;
  struct model_price ring;
  struct model_hw ce = {0}, p2p = {0};
  ar_params_init(&q, 4);
  model_net_init(&net, MODEL_SWITCH, &q);
  if (!price("ring", &q, &net, &ring)) return;
  model_transport_hw(model_transport_find("ce"), &ce);
  model_transport_hw(model_transport_find("nccl-p2p"), &p2p);
  double big = 8.0 * (1 << 30), small = 1 << 20;
  claim("AsyncAllReduce abstract: ring 4 GPUs 8GiB, async copies (ce) / send-recv throughput",
        AT_LEAST, 1.0, time_of(&ring, &p2p, big) / time_of(&ring, &ce, big), -1);
  double step = (ce.alpha_us - p2p.alpha_us) / (p2p.beta - ce.beta); /* equal cost, bytes */
  printf("AsyncAllReduce: a ce step costs less than a nccl-p2p step above %.1f MB; "
         "1 MiB ring: ce %.0f us, nccl-p2p %.0f us\n", step / 1e6, time_of(&ring, &ce, small),
         time_of(&ring, &p2p, small));
  CHECK(step > 0 && time_of(&ring, &ce, small) > time_of(&ring, &p2p, small),
        "1 MiB: the copy engine's larger per-round cost should show (%g MB)", step / 1e6);
}

int main(void) {
  test_swing_fig7();
  test_swing_fig8();
  test_swing_fig9();
  test_swing_fig10();
  test_swing_grids();
  test_swing_table2();
  test_swing_odd();
  test_rhd_elim();
  test_optcc();
  test_optcc_head_tail();
  test_async();
  test_async_transports();
  return TEST_DONE();
}
