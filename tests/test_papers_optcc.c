/* The model against OPTCC's own figures (issue #24): s2 (R2CCL at half a NIC's bandwidth), s5
 * (Fig. 8-10: one, two and g = 4 GPUs a server, against NCCL without failure, R2CCL and ICCL),
 * eq. (1) and Theorems 2 and 13's bounds, App. D and E.4, and App. C's head and tail. Each line
 * names the figure, prints the paper's figure beside the model's and holds the model to the
 * paper's own words: "within 6%" is model <= 1.06, a plain figure within 10% (tests/claims.h);
 * where docs/papers.md shows the arithmetic of why the paper's figure does not follow from its
 * own text, within 0.2% of that arithmetic. Every check prices a schedule. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ar.h"
#include "claims.h"
#include "model.h"
#include "papers_price.h"
#include "test.h"

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

/* The bandwidth term, in units of the buffer, of algo on p GPUs, g a server (a NIC each,
 * NVLink at (g-1) x a NIC), with slowed: server 0's g NICs slowed by l; -1 when n/a. */
static double two_tier_time(const char *algo, int p, int g, int slowed, double l) {
  struct ar_params q;
  struct model_net net;
  struct model_price pr;
  struct model_hw bw = {.beta = 1e-3};
  ar_params_init(&q, p);
  q.gpus_per_node = g;
  if (slowed) {
    q.ndegraded = g;
    for (int i = 0; i < g; i++) {
      q.degraded[i] = i;
      q.factor[i] = l;
    }
  }
  model_net_init(&net, MODEL_TWO_TIER, &q);
  net.local_speed = g - 1;
  if (!price(algo, &q, &net, &pr)) return -1;
  return model_cost_us(&pr.main, &bw, 1e6) / 1e3;
}

/* The healthy rails' bandwidth term (NCCL's g channels, one NIC each) for p GPUs, g a
 * server: T0 = 2(p-1)/(g p) n (s3). */
static double rails_t0(int p, int g) { return two_tier_time("ring-rails", p, g, 0, 1); }

/* optcc-servers' bandwidth term with server 0's g NICs slowed by l. */
static double servers_time(int p, int g, double l) {
  return two_tier_time("optcc-servers", p, g, 1, l);
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

/* As over_t0_k for one degraded GPU (rank 0, l), priced by flows (docs/model.md): every transfer
 * starts when what it waits for has ended, its ports' earlier rounds included, the links shared
 * max-min fairly; over the healthy ring's T0 priced the same way. */
static double flows_over_t0(const char *algo, int p, double l, int k) {
  struct ar_params q;
  struct model_net net;
  struct model_flow_graph *g[2] = {NULL, NULL};
  struct model_hw bw = {.beta = 1e-3};
  struct model_times t[2];
  char why[192] = "";
  double r = -1;
  ar_params_init(&q, p);
  model_net_init(&net, MODEL_SWITCH, &q);
  ar_status st = model_flow_algo(ar_algo_find("ring"), &q, &net, &g[0], why, sizeof(why));
  q.ndegraded = 1;
  q.degraded[0] = 0;
  q.factor[0] = l;
  q.segments = k;
  model_net_init(&net, MODEL_SWITCH, &q);
  if (st == AR_OK) st = model_flow_algo(ar_algo_find(algo), &q, &net, &g[1], why, sizeof(why));
  for (int i = 0; i < 2 && st == AR_OK; i++)
    st = model_flow_times(g[i], &bw, 0, 1e6, -1, 0, &t[i]);
  CHECK(st == AR_OK, "%s p=%d by flows: %s", algo, p, why);
  if (st == AR_OK) r = t[1].time_us / t[0].time_us;
  model_flow_free(g[0]);
  model_flow_free(g[1]);
  return r;
}

/* App. C's pipeline with bubble filling (l < 2): T = 2(p-1)l / ((p-2)l + 2) n (k + l - 1)/k,
 * the head and tail costing l - 1 bodies in all. In lock-step rounds they cost 1 + 1/(2(p-1)):
 * the head's p-1 rounds carry one S1 hop of a section and nothing of the straggler's but its
 * bubble blocks, the tail's p-2 rounds one S4 hop, and the last download's round one ring body
 * round more (docs/papers.md (18)). At the paper's own setting (Fig. 7: p = 5, l = 1.5, k = 4)
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
    snprintf(what, sizeof(what), "OPTCC App. C eq.(2): OptCC / T0 at l=%.3g, p=%d, k=%d (flows)",
             l, p, k);
    figure(what, app_c, flows_over_t0("optcc", p, l, k), rounds);
  }
}

/* docs/papers.md's figures for the claims above, as its tables print them */
static const struct pinned optcc_pins[] = {
    {"OPTCC s2: R2CCL's time / fault-free at l=2, p=8 (+57%)", "1.714"},
    {"OPTCC s5 Fig.8(c): OptCC / NCCL at l=2, p=16, k=512 (within 6%)", "1.059"},
    {"OPTCC s5 Fig.8(c): OptCC / NCCL at l=2, p=64, k=512 (within 6%)", "1.015"},
    {"OPTCC s5 Fig.8(c): OptCC / NCCL at l=2, p=256, k=64 (within 6%)", "1.015"},
    {"OPTCC s5 Fig.8(a): OptCC / NCCL at l=1.14, p=16 (within 6%)", "1.028"},
    {"OPTCC s5 Fig.8(a): OptCC / NCCL at l=1.14, p=64 (within 6%)", "1.017"},
    {"OPTCC s5 Fig.8(a): OptCC / NCCL at l=1.14, p=256 (within 6%)", "1.014"},
    {"OPTCC s4.3 eq.(1): OptCC / T0 at l=2, p=16, k=64", "1.079"},
    {"OPTCC s4.3 eq.(1): OptCC / T0 at l=2, p=64, k=64", "1.032"},
    {"OPTCC s4.3 eq.(1): OptCC / T0 at l=2, p=1024, k=8", "1.126"},
    {"OPTCC s5 p=256 l=2: OptCC / R2CCL (beats it by 29%)", "0.708"},
    {"OPTCC s5 p=256 l=2: OptCC / ICCL (beats it by 58%)", "0.546"},
    {"OPTCC s5 Fig.8(d) p=64 l=2, k=512: OptCC / NCCL (within 2%)", "1.015"},
    {"OPTCC s5 Fig.8(d) p=64 l=2: OptCC / R2CCL (beats it by 27%)", "0.708"},
    {"OPTCC s5 Fig.8(d) p=64 l=2: OptCC / ICCL (beats it by 55%)", "0.552"},
    {"OPTCC App. D, Thm. 2: optcc-multi / bound at l=2,2, p=64", "1.061"},
    {"OPTCC s5 Fig.9(d): OptCC m=2 (l=2, 1.33) / NCCL, p=64 (within 8.5%)", "1.063"},
    {"OPTCC s5 Fig.10(d): OptCC g=4 / NCCL at l=2, p=64 (within 4%)", "1.028"},
    {"OPTCC App. E.4 Table 3: optcc-servers / (l n/g) at l=2, g=4, p=64", "1.016"},
    {"OPTCC App. E.4 Table 3: optcc-servers / (l n/g) at l=2.5, g=4, p=64", "1.012"},
    {"OPTCC App. E.4 Table 3: optcc-servers / (l n/g) at l=3, g=4, p=64", "1.009"},
    {"OPTCC App. E.4 Table 3: optcc-servers / (2 n/g) at l=1.5, g=4, p=64", "1.038"},
    {"OPTCC Thm. 13: optcc-servers / the bound at l=1.5, g=4, p=64", "1.061"},
    {"OPTCC Thm. 13: optcc-servers / the bound at l=2, g=4, p=64", "1.016"},
    {"OPTCC Thm. 13: optcc-servers / the bound at l=2.5, g=4, p=64", "1.012"},
    {"OPTCC Thm. 13: optcc-servers / the bound at l=3, g=4, p=64", "1.009"},
    {"OPTCC s5 Fig.8(e): OptCC / (l n) at l=3, p=64", "1.005"},
    {"OPTCC s5 Fig.8(e): OptCC / (l n) at l=4, p=64", "1.004"},
    {"OPTCC App. C eq.(2): OptCC / T0 at l=1.5, p=5, k=4", "1.478"},
    {"OPTCC App. C eq.(2): OptCC / T0 at l=1.5, p=5, k=4 (flows)", "1.478"},
    {"OPTCC App. C eq.(2): OptCC / T0 at l=1.14, p=16, k=4", "1.278"},
    {"OPTCC App. C eq.(2): OptCC / T0 at l=1.14, p=16, k=4 (flows)", "1.278"},
    {"OPTCC App. C eq.(2): OptCC / T0 at l=1.14, p=64, k=4", "1.257"},
    {"OPTCC App. C eq.(2): OptCC / T0 at l=1.14, p=64, k=4 (flows)", "1.257"},
    {"OPTCC App. C eq.(2): OptCC / T0 at l=1.5, p=5, k=64", "1.174"},
    {"OPTCC App. C eq.(2): OptCC / T0 at l=1.5, p=5, k=64 (flows)", "1.174"},
    {"OPTCC App. C eq.(2): OptCC / T0 at l=1.14, p=16, k=64", "1.032"},
    {"OPTCC App. C eq.(2): OptCC / T0 at l=1.14, p=16, k=64 (flows)", "1.032"},
    {"OPTCC App. C eq.(2): OptCC / T0 at l=1.14, p=64, k=64", "1.020"},
    {"OPTCC App. C eq.(2): OptCC / T0 at l=1.14, p=64, k=64 (flows)", "1.020"},
};

int main(void) {
  test_optcc();
  test_optcc_head_tail();
  pin_all(optcc_pins, sizeof(optcc_pins) / sizeof(optcc_pins[0]));
  return TEST_DONE();
}
