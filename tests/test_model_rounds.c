/* The pricing of src/model.c on hand-made rounds: switch incast and slow ports, rounds of
 * different sizes in a row, threads, two tiers, torus routes and ties, the grids of Swing's
 * s5.4, a dense torus round, the straggler timing rules, the alpha/beta fit, the bandwidth
 * parser, the default torus and async-ring's overlap of copies and sums. The generators'
 * schedules against the papers' closed forms are tests/test_model_closed.c's, the pricer at
 * scale tests/test_model.c's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ar.h"
#include "model.h"
#include "model_check.h"
#include "test.h"

static void test_parse_bw(void) {
  double v;
  const char *why;
  CHECK(!model_parse_bw("450GB/s", &v, &why) && v == 450e9, "450GB/s -> %g", v);
  CHECK(!model_parse_bw("400Gb/s", &v, &why) && v == 50e9, "400Gb/s -> %g", v);
  CHECK(!model_parse_bw("1.5TB/s", &v, &why) && v == 1.5e12, "1.5TB/s -> %g", v);
  CHECK(!model_parse_bw("2GiB/s", &v, &why) && v == 2147483648.0, "2GiB/s -> %g", v);
  CHECK(!model_parse_bw("4.5e11", &v, &why) && v == 4.5e11, "plain bytes/s -> %g", v);
  CHECK(model_parse_bw("0GB/s", &v, &why) == -1, "zero bandwidth accepted");
  CHECK(model_parse_bw("-3GB/s", &v, &why) == -1, "negative bandwidth accepted");
  CHECK(model_parse_bw("450XB/s", &v, &why) == -1, "unknown unit accepted");
  CHECK(model_parse_bw("fast", &v, &why) == -1, "a word accepted");
}

static void test_default_torus(void) {
  int d[AR_MAX_TORUS_DIMS];
  CHECK(model_default_torus(16, d) == 2 && d[0] == 4 && d[1] == 4, "16 -> %dx%d", d[0], d[1]);
  CHECK(model_default_torus(8, d) == 2 && d[0] == 2 && d[1] == 4, "8 -> %dx%d", d[0], d[1]);
  CHECK(model_default_torus(12, d) == 2 && d[0] == 3 && d[1] == 4, "12 -> %dx%d", d[0], d[1]);
  CHECK(model_default_torus(7, d) == 1 && d[0] == 7, "7 -> %d", d[0]);
}

/* Prices a hand-made one-round schedule of the given flows (src, dst, chunk count) out of
 * nchunks on net; returns the main-phase cost. */
static struct model_cost one_round(int n, int nchunks, const int (*flows)[3], int nflows,
                                   const struct model_net *net) {
  struct ar_schedule s;
  struct model_price pr;
  memset(&pr, 0, sizeof(pr));
  CHECK_INT(sched_init(&s, "hand", n, nchunks), ==, AR_OK);
  for (int i = 0; i < nflows; i++)
    CHECK_INT(sched_add(&s, 0, AR_REDUCE, flows[i][0], flows[i][1], 0, flows[i][2]), ==, AR_OK);
  CHECK_INT(sched_finish(&s), ==, AR_OK);
  CHECK_INT(model_price_schedule(&s, net, &pr), ==, AR_OK);
  sched_free(&s);
  return pr.main;
}

static void test_switch_links(void) {
  struct model_net net = {.topology = MODEL_SWITCH};
  /* incast: three ranks send a quarter each to rank 0; rank 0's ingress carries 3/4 */
  const int incast[][3] = {{1, 0, 1}, {2, 0, 1}, {3, 0, 1}};
  struct model_cost c = one_round(4, 4, incast, 3, &net);
  CHECK(near(c.load, 0.75, 1e-12), "incast load %g", c.load);
  CHECK(near(c.reduce, 0.75, 1e-12), "incast reduce %g", c.reduce);
  CHECK_INT(c.rounds, ==, 1);
  /* a permutation: every port carries one quarter */
  const int perm[][3] = {{0, 1, 1}, {1, 2, 1}, {2, 3, 1}, {3, 0, 1}};
  c = one_round(4, 4, perm, 4, &net);
  CHECK(near(c.load, 0.25, 1e-12), "permutation load %g", c.load);
  /* a slow port: rank 2 at factor 3 makes its ingress 3 x 1/4; a healthy sender's own
   * egress still carries only what it sends */
  net.ndegraded = 1;
  net.degraded[0] = 2;
  net.factor[0] = 3;
  c = one_round(4, 4, perm, 4, &net);
  CHECK(near(c.load, 0.75, 1e-12), "slow port load %g", c.load);
  const int fan[][3] = {{0, 2, 1}, {0, 1, 2}};
  c = one_round(4, 4, fan, 2, &net); /* rank 0 egress 3/4 at 1; rank 2 ingress 1/4 at 3 */
  CHECK(near(c.load, 0.75, 1e-12), "fan-out with a slow receiver %g", c.load);
}

/* Rounds of different sizes in a row (the pricer scans small rounds sparsely and big ones
 * densely): nothing of one round may leak into the next. */
static void test_round_isolation(void) {
  struct model_net sw = {.topology = MODEL_SWITCH};
  struct model_net tor = {.topology = MODEL_TORUS, .ndims = 1, .dims = {8}};
  const struct model_net *nets[] = {&sw, &tor};
  for (int k = 0; k < 2; k++) {
    struct ar_schedule s;
    struct model_price pr;
    CHECK_INT(sched_init(&s, "hand", 8, 8), ==, AR_OK);
    CHECK_INT(sched_add(&s, 0, AR_REDUCE, 0, 1, 0, 8), ==, AR_OK); /* sparse: all of it */
    for (int r = 0; r < 8; r++) /* dense: an eighth around the ring */
      CHECK_INT(sched_add(&s, 1, AR_COPY, r, (r + 1) % 8, r, 1), ==, AR_OK);
    CHECK_INT(sched_add(&s, 2, AR_REDUCE, 2, 3, 0, 2), ==, AR_OK); /* sparse again: a quarter */
    for (int r = 0; r < 8; r++)
      CHECK_INT(sched_add(&s, 3, AR_REDUCE, r, (r + 1) % 8, r, 1), ==, AR_OK);
    CHECK_INT(sched_finish(&s), ==, AR_OK);
    CHECK_INT(model_price_schedule(&s, nets[k], &pr), ==, AR_OK);
    CHECK(near(pr.main.load, 1 + 0.125 + 0.25 + 0.125, 1e-12), "%s: load %g, want 1.5",
          k ? "torus" : "switch", pr.main.load);
    CHECK(near(pr.main.reduce, 1 + 0.25 + 0.125, 1e-12), "%s: reduce %g, want 1.375",
          k ? "torus" : "switch", pr.main.reduce);
    CHECK_INT(pr.main.rounds, ==, 4);
    sched_free(&s);
  }
}

/* Splitting the rounds across threads changes nothing: ring and direct at n = 256 priced with
 * one thread and with three (forced through the setting model.threads). */
static void test_threads(void) {
  const char *names[] = {"ring", "direct"};
  for (int i = 0; i < 2; i++)
    for (int topo = MODEL_SWITCH; topo <= MODEL_TORUS; topo++) {
      struct ar_params p;
      struct model_price one, three;
      ar_params_init(&p, 256);
      set_threads(1);
      int ok = price(names[i], &p, topo, &one);
      set_threads(3);
      ok = ok && price(names[i], &p, topo, &three);
      set_threads(0);
      if (!ok) continue;
      CHECK(one.main.rounds == three.main.rounds && near(three.main.load, one.main.load, 1e-12) &&
                near(three.main.hops, one.main.hops, 1e-12) &&
                near(three.main.reduce, one.main.reduce, 1e-12),
            "%s topo %d: 1 thread %d rounds load %g, 3 threads %d rounds load %g", names[i], topo,
            one.main.rounds, one.main.load, three.main.rounds, three.main.load);
    }
}

/* Two tiers: G = 2 GPUs a node; a flow inside a node loads the node links (at local_speed),
 * one between nodes the two NICs (a degraded GPU's NIC slower); a round with no flow between
 * nodes costs the local alpha. */
static void test_two_tier(void) {
  struct model_net net = {.topology = MODEL_TWO_TIER, .gpus_per_node = 2, .local_speed = 4,
                          .local_alpha_us = 0.5};
  const int local[][3] = {{0, 1, 2}, {1, 0, 2}, {2, 3, 2}};
  struct model_cost c = one_round(4, 4, local, 3, &net); /* half the buffer at 4x: 1/8 */
  CHECK(near(c.load, 0.125, 1e-12) && c.rounds_local == 1 && near(c.local_us, 0.5, 1e-12),
        "local round: load %g, %d local rounds, %g us", c.load, c.rounds_local, c.local_us);
  const int cross[][3] = {{0, 2, 1}, {1, 2, 1}, {0, 1, 2}};
  c = one_round(4, 4, cross, 3, &net); /* rank 2's NIC takes a quarter from each of 0 and 1 */
  CHECK(near(c.load, 0.5, 1e-12) && c.rounds_local == 0, "cross round: load %g", c.load);
  net.ndegraded = 1;
  net.degraded[0] = 2;
  net.factor[0] = 3;
  const int slow[][3] = {{0, 2, 1}, {2, 3, 2}};
  c = one_round(4, 4, slow, 2, &net); /* the NIC at 3x; 2 -> 3 stays in the node: 1/8 */
  CHECK(near(c.load, 0.75, 1e-12), "degraded NIC: load %g", c.load);
  struct model_hw hw = {.alpha_us = 2, .beta = 1e-3};
  struct model_cost two = {.rounds = 3, .rounds_local = 2, .local_us = 1.0};
  CHECK(near(model_cost_us(&two, &hw, 0), 2 + 1.0, 1e-12), "local alpha: %g",
        model_cost_us(&two, &hw, 0));
}

static void test_torus_routes(void) {
  struct model_net net = {.topology = MODEL_TORUS, .ndims = 1, .dims = {8}};
  /* 0 -> 3: three hops on the + links; 1 -> 2 shares the link 1->2 */
  const int a[][3] = {{0, 3, 1}, {1, 2, 1}};
  struct model_cost c = one_round(8, 1, a, 2, &net);
  CHECK(near(c.load, 2.0, 1e-12), "shared link load %g", c.load);
  CHECK(near(c.hops, 3, 1e-12), "hops %g", c.hops);
  CHECK(near(c.load_ideal, 1.0, 1e-12), "ideal load %g", c.load_ideal);
  /* 0 -> 5 goes the short way (3 hops backwards), 0 -> 4 is a tie split half each way */
  const int b[][3] = {{0, 5, 1}};
  c = one_round(8, 1, b, 1, &net);
  CHECK(near(c.hops, 3, 1e-12) && near(c.load, 1, 1e-12), "backwards: %g hops", c.hops);
  const int tie[][3] = {{0, 4, 1}};
  c = one_round(8, 1, tie, 1, &net);
  CHECK(near(c.hops, 4, 1e-12) && near(c.load, 0.5, 1e-12), "tie: %g hops load %g", c.hops, c.load);
  /* 2-D, dimension order: on 4x4, 0 -> 5 is one hop in dim 0 then one in dim 1; with 1 -> 5
   * both flows use the link 1 -> 5 */
  struct model_net t2 = {.topology = MODEL_TORUS, .ndims = 2, .dims = {4, 4}};
  const int d[][3] = {{0, 5, 1}, {1, 5, 1}};
  c = one_round(16, 1, d, 2, &t2);
  CHECK(near(c.load, 2.0, 1e-12) && near(c.hops, 2, 1e-12), "2-D: load %g hops %g", c.load, c.hops);
  /* a slow node on the path slows the links it touches, even when only forwarding */
  t2.ndegraded = 1;
  t2.degraded[0] = 1;
  t2.factor[0] = 4;
  const int e[][3] = {{0, 5, 1}};
  c = one_round(16, 1, e, 1, &t2);
  CHECK(near(c.load, 4.0, 1e-12), "forwarding through a slow node: load %g", c.load);
}

/* The torus-like grids of swing.txt s5.4, flow by flow. HyperX: one direct link to each rank
 * of the row and column. HammingMesh: a board's mesh, and a fat tree a row (non-blocking: only
 * the ports into and out of it load) reached from the board's west or east edge. */
static void test_grid_routes(void) {
  struct model_net hx = {.topology = MODEL_HYPERX, .ndims = 2, .dims = {8, 8}};
  /* 0 -> 4 (a torus's antipode, 4 hops) and 1 -> 4: one hop each, on links of their own */
  const int a[][3] = {{0, 4, 1}, {1, 4, 1}};
  struct model_cost c = one_round(64, 1, a, 2, &hx);
  CHECK(near(c.load, 1, 1e-12) && near(c.hops, 1, 1e-12), "hyperx row: load %g hops %g", c.load,
        c.hops);
  const int b[][3] = {{0, 63, 1}, {7, 63, 1}}; /* (0,0) -> (7,7): 2 hops; (7,0) shares the last */
  c = one_round(64, 1, b, 2, &hx);
  CHECK(near(c.load, 2, 1e-12) && near(c.hops, 2, 1e-12) && near(c.load_ideal, 2, 1e-12),
        "hyperx diagonal: load %g hops %g ideal %g", c.load, c.hops, c.load_ideal);
  struct model_net h2 = {.topology = MODEL_HX2MESH, .ndims = 2, .dims = {8, 8}, .board = 2};
  /* 0 -> 1 on the board; 1 -> 2 to the next board: up the east port, down 2's west port */
  const int d[][3] = {{0, 1, 1}, {1, 2, 1}};
  c = one_round(64, 1, d, 2, &h2);
  CHECK(near(c.load, 1, 1e-12) && near(c.hops, 2, 1e-12), "hx2mesh: load %g hops %g", c.load,
        c.hops);
  /* 0 -> 6 and 2 -> 6 meet only at 6's port out of the tree */
  const int e[][3] = {{0, 6, 1}, {2, 6, 1}};
  c = one_round(64, 1, e, 2, &h2);
  CHECK(near(c.load, 2, 1e-12) && near(c.hops, 2, 1e-12), "hx2mesh tree port: load %g hops %g",
        c.load, c.hops);
  /* a slow rank slows its board links from both ends */
  h2.ndegraded = 1;
  h2.degraded[0] = 1;
  h2.factor[0] = 3;
  const int f[][3] = {{0, 1, 1}};
  c = one_round(64, 1, f, 1, &h2);
  CHECK(near(c.load, 3, 1e-12), "hx2mesh slow board link: load %g", c.load);
  /* Hx4Mesh: 1 -> 6 leaves by the nearer west edge (1 hop), the tree (2), enters board 4..7 at
   * its nearer east edge (7) and walks back to 6 (1): 4 hops */
  struct model_net h4 = {.topology = MODEL_HX4MESH, .ndims = 2, .dims = {8, 8}, .board = 4};
  const int g[][3] = {{1, 6, 1}};
  c = one_round(64, 1, g, 1, &h4);
  CHECK(near(c.hops, 4, 1e-12) && near(c.load, 1, 1e-12), "hx4mesh: hops %g load %g", c.hops,
        c.load);
  /* shapes: HammingMesh's boards must tile the grid; every grid is 2-D */
  struct ar_params p;
  struct model_net net;
  ar_params_init(&p, 24);
  p.torus_ndims = 2, p.torus[0] = 4, p.torus[1] = 6;
  CHECK_INT(model_net_init(&net, MODEL_HX2MESH, &p), ==, AR_OK);
  CHECK_INT(model_net_init(&net, MODEL_HX4MESH, &p), ==, AR_ERR_INVALID);
  p.torus_ndims = 3, p.torus[0] = 2, p.torus[1] = 3, p.torus[2] = 4;
  CHECK_INT(model_net_init(&net, MODEL_HYPERX, &p), ==, AR_ERR_INVALID);
}

static void test_times(void) {
  struct model_price pr = {.nranks = 4};
  struct model_hw hw = {.alpha_us = 1, .beta = 1e-3}; /* 1 us per round, 1 ns per byte */
  pr.main = (struct model_cost){.rounds = 2, .load = 1.0};
  struct model_times t;
  model_times(&pr, &hw, 1000, 0, &t); /* 2 + 1000 * 1 * 1e-3 */
  CHECK(near(t.time_us, 3.0, 1e-12), "bulk, no delay: %g", t.time_us);
  model_times(&pr, &hw, 1000, 50, &t); /* bulk-synchronous waits for the straggler */
  CHECK(near(t.time_us, 53.0, 1e-12) && near(t.after_arrival_us, 3.0, 1e-12), "bulk: %g",
        t.time_us);
  pr.pre = (struct model_cost){.rounds = 10, .load = 10}; /* 10 + 10 = 20 us */
  model_times(&pr, &hw, 1000, 50, &t); /* the precondition hides inside the delay */
  CHECK(near(t.time_us, 53.0, 1e-12) && near(t.pre_us, 20, 1e-12), "aware, long delay: %g",
        t.time_us);
  model_times(&pr, &hw, 1000, 5, &t); /* the delay hides inside the precondition */
  CHECK(near(t.time_us, 23.0, 1e-12) && near(t.after_arrival_us, 18.0, 1e-12),
        "aware, short delay: %g", t.time_us);
  hw.gamma = 2e-3;
  pr.main.reduce = 0.5;
  CHECK(near(model_cost_us(&pr.main, &hw, 1000), 4.0, 1e-12), "gamma term");
}

static void test_fit(void) {
  struct model_sample smp[40];
  double alpha = 2.5, beta = 1e6 / 397e9, a, b, rms;
  int k = 0;
  unsigned seed = 12345;
  for (int n = 2; n <= 8; n *= 2)
    for (double bytes = 1024; bytes <= 8.0 * (1 << 30) && k < 40; bytes *= 8, k++) {
      double rounds = 2.0 * (n - 1), load = 2.0 * (n - 1) / n;
      smp[k] = (struct model_sample){.rounds = rounds, .beta_bytes = bytes * load};
      smp[k].time_us = alpha * rounds + beta * bytes * load;
    }
  CHECK(!model_fit(smp, k, &a, &b, &rms), "fit failed");
  CHECK(near(a, alpha, 1e-6) && near(b, beta, 1e-6), "exact fit: alpha %g beta %g", a, b);
  CHECK(rms < 1e-9, "exact fit rms %g", rms);
  for (int i = 0; i < k; i++) { /* +-1% noise */
    seed = seed * 1103515245u + 12345u;
    smp[i].time_us *= 1 + ((int)((seed >> 16) % 2001) - 1000) / 1e5;
  }
  CHECK(!model_fit(smp, k, &a, &b, &rms), "noisy fit failed");
  CHECK(near(a, alpha, 0.05) && near(b, beta, 0.02), "noisy fit: alpha %g beta %g", a, b);
  CHECK(rms > 0 && rms < 0.01, "noisy fit rms %g", rms);
  smp[0].time_us = 0;
  CHECK(model_fit(smp, k, &a, &b, &rms) == -1, "a zero time must be refused");
}

/* A dense torus round (runs summed along lines): all-to-all on 4x4x2, one chunk of 32 each.
 * By symmetry every link of a dimension carries the same load: size 4, per + link the flows
 * one step ahead (1 hop) and two steps ahead (a tie, half each way over 2 hops) for each of
 * the 8 displacements in the other dimensions: (1 + 1) x 8 = 16 flows; size 2, the tie at 1
 * step: 1/2 x 16 = 8. So 16/32 = 0.5 of the buffer on the busiest link, 2 + 2 + 1 hops. */
static void test_dense_runs(void) {
  struct model_net net = {.topology = MODEL_TORUS, .ndims = 3, .dims = {4, 4, 2}};
  struct ar_schedule a;
  struct model_price pa;
  int n = 32;
  CHECK_INT(sched_init(&a, "all-to-all", n, n), ==, AR_OK);
  for (int r = 0; r < n; r++)
    for (int q = 0; q < n; q++)
      if (q != r) CHECK_INT(sched_add(&a, 0, AR_REDUCE, r, q, q, 1), ==, AR_OK);
  CHECK_INT(sched_finish(&a), ==, AR_OK);
  CHECK_INT(model_price_schedule(&a, &net, &pa), ==, AR_OK);
  CHECK(near(pa.main.load, 0.5, 1e-12), "all-to-all on 4x4x2: load %g, want 0.5", pa.main.load);
  CHECK(near(pa.main.hops, 5, 1e-12), "hops %g", pa.main.hops);
  CHECK(near(pa.main.reduce, 31.0 / 32, 1e-12), "reduce %g", pa.main.reduce);
  sched_free(&a);
}

/* async-ring (AR_TRAIT_PIPELINED) over K mini-batches: each round (copy + sum) / K +
 * (1 - 1/K) max(copy, sum); K = 1 is the ring; more mini-batches never cost more, strictly
 * less while there is a sum to hide; without gamma nothing to overlap (asyncallreduce.md). */
static void test_overlap(void) {
  const double bytes = 1 << 30;
  struct model_hw hw = {.alpha_us = 3, .beta = 1e6 / 25e9, .gamma = 1e6 / 100e9};
  struct ar_params p;
  struct model_price ring, as;
  struct model_times tr, ta;
  ar_params_init(&p, 4);
  if (!price("ring", &p, MODEL_SWITCH, &ring) || !price("async-ring", &p, MODEL_SWITCH, &as))
    return;
  CHECK(as.pipelined && !ring.pipelined, "pipelined flags %d %d", as.pipelined, ring.pipelined);
  CHECK_INT(as.main.nclass, ==, 2); /* reduce-scatter rounds and allgather rounds */
  model_times(&ring, &hw, bytes, 0, &tr);
  double last = INFINITY;
  for (int k = 1; k <= 64; k *= 2) {
    as.minibatches = k;
    model_times(&as, &hw, bytes, 0, &ta);
    /* 3 reduce-scatter rounds (copy c, sum c) and 3 allgather rounds (copy c) */
    double c = bytes / 4 * hw.beta, g = bytes / 4 * hw.gamma;
    double want = 6 * hw.alpha_us + 3 * ((c + g) / k + (1 - 1.0 / k) * (c > g ? c : g)) + 3 * c;
    CHECK(near(ta.time_us, want, 1e-9), "K=%d: %g, want %g", k, ta.time_us, want);
    CHECK(k == 1 ? near(ta.time_us, tr.time_us, 1e-12) : ta.time_us < last, "K=%d: %g after %g", k,
          ta.time_us, last);
    last = ta.time_us;
  }
  hw.gamma = 0; /* no sums to hide: any K prices as the ring */
  as.minibatches = 16;
  model_times(&as, &hw, bytes, 0, &ta);
  model_times(&ring, &hw, bytes, 0, &tr);
  CHECK(near(ta.time_us, tr.time_us, 1e-12), "gamma 0: %g vs ring %g", ta.time_us, tr.time_us);
  /* K = 0: the ce transport's choice, ~8 MiB a batch and at most 8 (256 MiB rounds: 8) */
  hw.gamma = 1e6 / 100e9;
  as.minibatches = 0;
  model_times(&as, &hw, bytes, 0, &ta);
  struct model_times t8;
  as.minibatches = 8;
  model_times(&as, &hw, bytes, 0, &t8);
  CHECK(near(ta.time_us, t8.time_us, 1e-12), "auto %g vs K=8 %g", ta.time_us, t8.time_us);
  as.minibatches = 0; /* 64 KiB rounds: one batch */
  model_times(&as, &hw, 4 * 65536, 0, &ta);
  model_times(&ring, &hw, 4 * 65536, 0, &tr);
  CHECK(near(ta.time_us, tr.time_us, 1e-12), "small auto %g vs ring %g", ta.time_us, tr.time_us);
}

/* --gamma-overlap in rounds: each round max(bytes' time, sums' time), kept by ratio (rounds of
 * one ratio add up exactly); ratios past MODEL_RATIOS keep their sums after their bytes. */
static void test_sums_overlap(void) {
  struct model_cost c = {0};
  struct model_hw hw = {.beta = 1.0, .gamma = 0.5, .sums_overlap = 1};
  double L[3] = {1, 2, 0.5}, R[3] = {1, 2, 4}; /* ratios 1, 1 (hidden), 8 (binds) */
  for (int i = 0; i < 3; i++) {
    c.rounds++;
    c.load += L[i];
    c.reduce += R[i];
    model_cost_ratio_add(&c, L[i], R[i], 1);
  }
  CHECK_INT(c.nratio, ==, 2);
  CHECK(near(model_cost_us(&c, &hw, 10), 10 * (1 + 2 + 2), 1e-12), "overlap %g",
        model_cost_us(&c, &hw, 10));
  hw.sums_overlap = 0;
  CHECK(near(model_cost_us(&c, &hw, 10), 10 * (3.5 + 3.5), 1e-12), "after %g", model_cost_us(&c, &hw, 10));
  struct model_cost d = {0}; /* more ratios than kept: the rest summed after their bytes */
  hw.sums_overlap = 1;
  for (int i = 0; i < MODEL_RATIOS + 2; i++) {
    d.rounds++;
    d.load += 1;
    d.reduce += 0.01 * (i + 1);
    model_cost_ratio_add(&d, 1, 0.01 * (i + 1), 1);
  }
  double want = MODEL_RATIOS + 2 + (0.01 * (MODEL_RATIOS + 1) + 0.01 * (MODEL_RATIOS + 2)) * 0.5;
  CHECK(near(model_cost_us(&d, &hw, 1), want, 1e-12), "spill %g, want %g", model_cost_us(&d, &hw, 1), want);
}

int main(void) {
  test_sums_overlap();
  test_two_tier();
  test_overlap();
  test_dense_runs();
  test_parse_bw();
  test_default_torus();
  test_switch_links();
  test_torus_routes();
  test_grid_routes();
  test_round_isolation();
  test_threads();
  test_times();
  test_fit();
  return TEST_DONE();
}
