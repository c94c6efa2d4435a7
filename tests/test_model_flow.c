/* The flow mode (model_flow*.c) on hand-made schedules whose times follow from docs/model.md's
 * rules by hand: links shared max-min fairly, a transfer started by its data and its ports
 * (round order on every link it leaves or enters by), the straggler's arrival, the sender's
 * per-message cost one message after another, a rank's sums one after another, a tie split both
 * ways round a ring; the per-message cost in the rounds pricing; the mesh's links; and the
 * generators' lock-step schedules, where both pricings must agree. tests/test_model_flow.sh
 * holds the flow mode against a second simulator (tests/flow_sim.py) on the generators'. */
#include <math.h>

#include "ar.h"
#include "model.h"
#include "test.h"

#define S 1e6 /* bytes of the AllReduce in the hand-made cases */

/* |a - b| <= 1e-9 relative */
static int same(double a, double b) {
  return fabs(a - b) <= 1e-9 * (fabs(b) > 1 ? fabs(b) : 1);
}

/* A hand-made transfer: round, op, src, dst, chunk, count. */
struct hx {
  int round, op, src, dst, chunk, count;
};

/* Builds a schedule of n ranks, nchunks chunks from xs[0..nx). */
static void hand(struct ar_schedule *s, int n, int nchunks, const struct hx *xs, int nx) {
  CHECK_INT(sched_init(s, "hand", n, nchunks), ==, AR_OK);
  for (int i = 0; i < nx; i++)
    CHECK_INT(sched_add(s, xs[i].round, xs[i].op, xs[i].src, xs[i].dst, xs[i].chunk, xs[i].count),
              ==, AR_OK);
  CHECK_INT(sched_finish(s), ==, AR_OK);
}

/* Flow-priced time of s on net (topology with p's shape) at S bytes. */
static double flow_time(const struct ar_schedule *s, int topology, const struct ar_params *p,
                        const struct model_hw *hw, double msg_us, int straggler, double delay,
                        struct model_times *out) {
  struct model_net net;
  struct model_flow_graph *g = NULL;
  struct model_times t;
  CHECK_INT(model_net_init(&net, topology, p), ==, AR_OK);
  CHECK_INT(model_flow_build(s, &net, &g), ==, AR_OK);
  if (!g) return NAN;
  CHECK_INT(model_flow_times(g, hw, msg_us, S, straggler, delay, &t), ==, AR_OK);
  model_flow_free(g);
  if (out) *out = t;
  return t.time_us;
}

/* Rounds-priced time of s (msg_us per message). */
static double round_time(const struct ar_schedule *s, int topology, const struct ar_params *p,
                         const struct model_hw *hw, double msg_us) {
  struct model_net net;
  struct model_price pr;
  struct model_times t;
  CHECK_INT(model_net_init(&net, topology, p), ==, AR_OK);
  CHECK_INT(model_price_schedule(s, &net, &pr), ==, AR_OK);
  model_times_msg(&pr, hw, msg_us, S, 0, &t);
  return t.time_us;
}

static const struct model_hw unit = {.alpha_us = 1, .beta = 1e-3}; /* 1 us, 1 ns a byte */

/* Chains on disjoint links overlap: 0 -> 1 moves 3/4 of the buffer while 2 -> 3 -> 2 moves a
 * quarter twice. Rounds: max(3/4, 1/4) + 1/4 S beta + 2 alpha; flows: the longer of 3/4 S beta +
 * alpha and 2 (1/4 S beta + alpha). */
static void test_overlap(void) {
  struct ar_params p;
  struct ar_schedule s;
  const struct hx xs[] = {{0, AR_COPY, 0, 1, 0, 3}, {0, AR_COPY, 2, 3, 3, 1}, {1, AR_COPY, 3, 2, 3, 1}};
  ar_params_init(&p, 4);
  hand(&s, 4, 4, xs, 3);
  double f = flow_time(&s, MODEL_SWITCH, &p, &unit, 0, -1, 0, NULL);
  double r = round_time(&s, MODEL_SWITCH, &p, &unit, 0);
  CHECK(same(f, fmax(0.75 * S * 1e-3 + 1, 2 * (0.25 * S * 1e-3 + 1))), "overlap: flows %g", f);
  CHECK(same(r, S * 1e-3 + 2), "overlap: rounds %g", r);
  sched_free(&s);
}

/* Max-min sharing on a switch (u: S/8 at a port's rate c): A = 0 -> 1 and B = 0 -> 2 share
 * rank 0's port out; B, C = 3 -> 2 and E = 1 -> 2 share rank 2's port in, where C is held to c/4
 * by its own port (--degrade 3:4). So C gets c/4, B and E 3c/8 each of the rest, A 5c/8 of rank 0's
 * port: A (2u) ends at 3.2u. D = 2 -> 1 of round 1 waits for A (rank 1's port in) and runs alone:
 * 5.2u + 2 alpha, the last to end (C 1u ends at 4u, B and E 2u at 5u). Had A had half of rank
 * 0's port (no max-min), D would end at 6u + 2 alpha. */
static void test_maxmin(void) {
  struct ar_params p;
  struct ar_schedule s;
  const struct hx xs[] = {{0, AR_COPY, 0, 1, 0, 2}, {0, AR_COPY, 0, 2, 2, 2}, {0, AR_COPY, 3, 2, 4, 1},
                          {0, AR_COPY, 1, 2, 5, 2}, {1, AR_COPY, 2, 1, 0, 2}};
  ar_params_init(&p, 4);
  p.ndegraded = 1;
  p.degraded[0] = 3;
  p.factor[0] = 4;
  hand(&s, 4, 8, xs, 5);
  double u = S / 8 * 1e-3, f = flow_time(&s, MODEL_SWITCH, &p, &unit, 0, -1, 0, NULL);
  CHECK(same(f, 5.2 * u + 2), "max-min: %g, want %g", f, 5.2 * u + 2);
  sched_free(&s);
}

/* A port sends in round order: two transfers from rank 0 in rounds 0 and 1 to different ranks
 * with no data between them take one after the other (2 alpha + S beta), not side by side on
 * rank 0's port (alpha + S beta). */
static void test_port_order(void) {
  struct ar_params p;
  struct ar_schedule s;
  const struct hx xs[] = {{0, AR_COPY, 0, 1, 0, 1}, {1, AR_COPY, 0, 2, 1, 1}};
  ar_params_init(&p, 3);
  hand(&s, 3, 2, xs, 2);
  double f = flow_time(&s, MODEL_SWITCH, &p, &unit, 0, -1, 0, NULL);
  CHECK(same(f, 2 + S * 1e-3), "port order: %g", f);
  sched_free(&s);
}

/* Data (v: S/4 at c): 0 -> 2 moves all 4v and 1 -> 3 a quarter in round 0; in round 1 two
 * transfers write chunk 0 at rank 2, 3 -> 2 (v, after 1 -> 3's data and rank 2's port in) and
 * 0 -> 2 (2v), sharing rank 2's port in from 4v + alpha: 3 -> 2 ends at 6v + 2 alpha, 0 -> 2 at
 * 7v + 2 alpha. 2 -> 1 of round 2 sends chunk 0: it waits for both writers, 8v + 3 alpha (for the
 * last in the schedule's order alone it would end at 7v + 3 alpha). */
static void test_data(void) {
  struct ar_params p;
  struct ar_schedule s;
  const struct hx xs[] = {{0, AR_REDUCE, 0, 2, 0, 4}, {0, AR_REDUCE, 1, 3, 0, 1},
                          {1, AR_REDUCE, 0, 2, 0, 2}, {1, AR_REDUCE, 3, 2, 0, 1},
                          {2, AR_COPY, 2, 1, 0, 1}};
  ar_params_init(&p, 4);
  hand(&s, 4, 4, xs, 5);
  double v = S / 4 * 1e-3, f = flow_time(&s, MODEL_SWITCH, &p, &unit, 0, -1, 0, NULL);
  CHECK(same(f, 8 * v + 3), "data: %g, want %g", f, 8 * v + 3);
  sched_free(&s);
}

/* The per-message cost o = 0.5 on a switch (a GPU: one port): rank 0 sends to 1, 2 and 3 in one
 * round; with bytes free
 * (beta 0) the messages start at o, 2o and 3o and end alpha later (the last at 2.5); 3 -> 0 of
 * round 1 sends what 0 -> 3 brought, pays its o: 4. The rounds pricing charges round 0 its
 * busiest sender's 3 messages and round 1 one: 1 + 1.5 + 1 + 0.5, the same. */
static void test_msg_cost(void) {
  struct ar_params p;
  struct ar_schedule s;
  const struct hx xs[] = {{0, AR_COPY, 0, 1, 1, 1}, {0, AR_COPY, 0, 2, 2, 1},
                          {0, AR_COPY, 0, 3, 3, 1}, {1, AR_COPY, 3, 0, 3, 1}};
  struct model_hw free_bytes = {.alpha_us = 1};
  ar_params_init(&p, 4);
  hand(&s, 4, 4, xs, 4);
  double f = flow_time(&s, MODEL_SWITCH, &p, &free_bytes, 0.5, -1, 0, NULL);
  double r = round_time(&s, MODEL_SWITCH, &p, &free_bytes, 0.5);
  CHECK(same(f, 4), "msg cost: flows %g, want 4", f);
  CHECK(same(r, 4), "msg cost: rounds %g, want 4", r);
  sched_free(&s);
  /* on a ring of 4 NIC ports: rank 0's messages to 1 and 3 leave by two links, o each side by
   * side; a second one to 1 waits for the first on its link: 2 o + alpha + hop, both ways */
  const struct hx ys[] = {{0, AR_COPY, 0, 1, 0, 1}, {0, AR_COPY, 0, 3, 1, 1}, {0, AR_COPY, 0, 1, 2, 1}};
  free_bytes.hop_us = 0.25;
  p.torus_ndims = 1;
  p.torus[0] = 4;
  hand(&s, 4, 3, ys, 2);
  CHECK(same(flow_time(&s, MODEL_TORUS, &p, &free_bytes, 0.5, -1, 0, NULL), 1.75), "two ports");
  CHECK(same(round_time(&s, MODEL_TORUS, &p, &free_bytes, 0.5), 1.75), "two ports: rounds");
  sched_free(&s);
  hand(&s, 4, 3, ys, 3);
  CHECK(same(flow_time(&s, MODEL_TORUS, &p, &free_bytes, 0.5, -1, 0, NULL), 2.25), "one port");
  CHECK(same(round_time(&s, MODEL_TORUS, &p, &free_bytes, 0.5), 2.25), "one port: rounds");
  sched_free(&s);
}

/* A straggler: a transfer from or to it starts at its arrival at the earliest; the rest run
 * before. Rank 3 arrives at 1000 us. 0 -> 1 runs at once; 3 -> 2 starts at 1000. */
static void test_straggler(void) {
  struct ar_params p;
  struct ar_schedule s;
  struct model_times t;
  const struct hx xs[] = {{0, AR_COPY, 0, 1, 0, 1}, {0, AR_COPY, 3, 2, 1, 1}};
  ar_params_init(&p, 4);
  hand(&s, 4, 2, xs, 2);
  double half = S / 2 * 1e-3;
  flow_time(&s, MODEL_SWITCH, &p, &unit, 0, 3, 1000, &t);
  CHECK(same(t.time_us, 1000 + half + 1), "straggler: %g", t.time_us);
  CHECK(same(t.after_arrival_us, half + 1), "straggler after arrival: %g", t.after_arrival_us);
  sched_free(&s);
}

/* A rank's sums one after another: 1 -> 0 and 2 -> 0 reduce a half each into rank 0 (sharing its
 * port in: both land at S beta + alpha), then sum at gamma: the second sum waits for the first. */
static void test_sums(void) {
  struct ar_params p;
  struct ar_schedule s;
  const struct hx xs[] = {{0, AR_REDUCE, 1, 0, 0, 1}, {0, AR_REDUCE, 2, 0, 1, 1}};
  struct model_hw hw = {.alpha_us = 1, .beta = 1e-3, .gamma = 2e-3};
  ar_params_init(&p, 3);
  hand(&s, 3, 2, xs, 2);
  double f = flow_time(&s, MODEL_SWITCH, &p, &hw, 0, -1, 0, NULL);
  CHECK(same(f, S * 1e-3 + 1 + 2 * (S / 2 * 2e-3)), "sums: %g", f);
  sched_free(&s);
}

/* A tie round a ring of 4 (0 -> 2) goes half each way: twice the one-way rate, 2 hops. */
static void test_tie(void) {
  struct ar_params p;
  struct ar_schedule s;
  const struct hx xs[] = {{0, AR_COPY, 0, 2, 0, 1}};
  struct model_hw hw = {.alpha_us = 1, .hop_us = 0.5, .beta = 1e-3};
  ar_params_init(&p, 4);
  p.torus_ndims = 1;
  p.torus[0] = 4;
  hand(&s, 4, 1, xs, 1);
  double f = flow_time(&s, MODEL_TORUS, &p, &hw, 0, -1, 0, NULL);
  CHECK(same(f, S / 2 * 1e-3 + 1 + 2 * 0.5), "tie: %g", f);
  CHECK(same(round_time(&s, MODEL_TORUS, &p, &hw, 0), f), "tie: rounds %g",
        round_time(&s, MODEL_TORUS, &p, &hw, 0));
  sched_free(&s);
}

/* The mesh: a link a pair, the GPU's bandwidth split over its n - 1 links. A ring of 4 takes
 * 2 (n-1) rounds of S/n over one link at bw/3; direct sends to its 3 peers at once, each link at
 * bw/3: 2 rounds of S/4 each way at bw/3, where the switch's one port takes 3 S/4 at bw. */
static void test_mesh(void) {
  struct ar_params p;
  struct model_net net;
  struct model_price pr;
  struct model_times t;
  char why[192];
  ar_params_init(&p, 4);
  CHECK_INT(model_net_init(&net, MODEL_MESH, &p), ==, AR_OK);
  CHECK_INT(model_price_algo(ar_algo_find("ring"), &p, &net, &pr, why, sizeof(why)), ==, AR_OK);
  model_times(&pr, &unit, S, 0, &t);
  CHECK(same(t.time_us, 6 * (1 + S / 4 * 3e-3)), "mesh ring: %g", t.time_us);
  CHECK_INT(model_price_algo(ar_algo_find("direct"), &p, &net, &pr, why, sizeof(why)), ==, AR_OK);
  model_times(&pr, &unit, S, 0, &t);
  CHECK(same(t.time_us, 2 * (1 + S / 4 * 3e-3)), "mesh direct: %g", t.time_us);
  p.nranks = MODEL_MESH_MAX + 2;
  CHECK_INT(model_net_init(&net, MODEL_MESH, &p), ==, AR_ERR_INVALID);
}

/* Messages in the rounds pricing: a ring sends one a round, direct n - 1 a round (2 rounds). */
static void test_msgs_counted(void) {
  struct ar_params p;
  struct model_net net;
  struct model_price pr;
  char why[192];
  ar_params_init(&p, 8);
  model_net_init(&net, MODEL_SWITCH, &p);
  CHECK_INT(model_price_algo(ar_algo_find("ring"), &p, &net, &pr, why, sizeof(why)), ==, AR_OK);
  CHECK(pr.main.msgs == 14, "ring: %g messages", pr.main.msgs);
  CHECK_INT(model_price_algo(ar_algo_find("direct"), &p, &net, &pr, why, sizeof(why)), ==, AR_OK);
  CHECK(pr.main.msgs == 14 && pr.main.rounds == 2, "direct: %g messages", pr.main.msgs);
}

/* Schedules whose rounds are lock-step alike on every rank price the same both ways, with
 * alpha, hops and a per-message cost (each port's messages of a round leave together): ring,
 * rhd and direct on a switch and a mesh, swing-mp, bucket-sync and rd-torus on a square torus
 * (its rings all of one length). */
static void test_lockstep_agree(void) {
  static const struct {
    const char *algo;
    int n, topology, side;
  } cases[] = {{"ring", 8, MODEL_SWITCH, 0},    {"rhd", 8, MODEL_SWITCH, 0},
               {"direct", 8, MODEL_SWITCH, 0},  {"ring", 4, MODEL_MESH, 0},
               {"swing-mp", 64, MODEL_TORUS, 8}, {"bucket-sync", 64, MODEL_TORUS, 8},
               {"rd-torus", 64, MODEL_TORUS, 8}};
  struct model_hw hw = {.alpha_us = 0.1, .hop_us = 0.3, .beta = 1e6 / 50e9};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    struct ar_params p;
    struct ar_schedule s;
    ar_params_init(&p, cases[i].n);
    if (cases[i].side) {
      p.torus_ndims = 2;
      p.torus[0] = p.torus[1] = cases[i].side;
    }
    memset(&s, 0, sizeof(s));
    CHECK_INT(ar_build(ar_algo_find(cases[i].algo), &p, &s), ==, AR_OK);
    double f = flow_time(&s, cases[i].topology, &p, &hw, 0.06, -1, 0, NULL);
    double r = round_time(&s, cases[i].topology, &p, &hw, 0.06);
    CHECK(fabs(f - r) <= 1e-6 * r, "%s on %s: flows %g, rounds %g", cases[i].algo,
          model_topology_name(cases[i].topology), f, r);
    sched_free(&s);
  }
}

/* The limits: a graph refuses more than MODEL_FLOW_MAX_XFERS transfers (checked by count only:
 * the schedule is not built). */
static void test_limit(void) {
  struct ar_params p;
  struct model_net net;
  struct ar_schedule s;
  struct model_flow_graph *g = (void *)1;
  ar_params_init(&p, 4);
  model_net_init(&net, MODEL_SWITCH, &p);
  memset(&s, 0, sizeof(s));
  s.nranks = 4;
  s.nchunks = 1;
  s.nxfers = (size_t)MODEL_FLOW_MAX_XFERS + 1;
  CHECK_INT(model_flow_build(&s, &net, &g), ==, AR_ERR_UNSUPPORTED);
  CHECK(g == NULL, "no graph on failure");
}

/* The per-message cost's fit (model_fit_msg, `model --calibrate`): samples made from alpha 4,
 * msg 2 and 1 ns a byte over schedules with 1 and 7 messages a round give them back; samples
 * with as many messages as rounds cannot tell msg from alpha: alpha takes it (msg 0); samples
 * made with no per-message cost fit none. */
static void test_fit_msg(void) {
  struct model_sample smp[16];
  double a, m, b, rms;
  int k = 0;
  for (int alg = 0; alg < 2; alg++)
    for (double bytes = 1e3; bytes <= 1e9; bytes *= 10) {
      double rounds = alg ? 2 : 14, msgs = 14, load = 1.75; /* direct and ring, n = 8 */
      smp[k] = (struct model_sample){.rounds = rounds, .msgs = msgs, .beta_bytes = bytes * load};
      smp[k].time_us = 4 * rounds + 2 * msgs + 1e-3 * bytes * load;
      k++;
    }
  CHECK(!model_fit_msg(smp, k, &a, &m, &b, &rms), "fit failed");
  CHECK(fabs(a - 4) < 1e-6 && fabs(m - 2) < 1e-6 && fabs(b - 1e-3) < 1e-12 && rms < 1e-9,
        "fit: alpha %g msg %g beta %g rms %g", a, m, b, rms);
  for (int i = 0; i < k; i++) /* a ring alone: a message a round */
    smp[i].msgs = smp[i].rounds = 14, smp[i].time_us = 6 * 14 + 1e-3 * smp[i].beta_bytes;
  CHECK(!model_fit_msg(smp, k, &a, &m, &b, &rms) && fabs(a + m - 6) < 1e-6 && m == 0,
        "one message a round: alpha %g msg %g", a, m);
  for (int i = 0; i < k; i++) /* no message cost: none fitted */
    smp[i].msgs = i < k / 2 ? 14 : 42, smp[i].time_us = 5 * smp[i].rounds + 1e-3 * smp[i].beta_bytes;
  CHECK(!model_fit_msg(smp, k, &a, &m, &b, &rms) && fabs(a - 5) < 1e-6 && fabs(m) < 1e-9,
        "no message cost: alpha %g msg %g", a, m);
}

int main(void) {
  test_fit_msg();
  test_overlap();
  test_maxmin();
  test_port_order();
  test_data();
  test_msg_cost();
  test_straggler();
  test_sums();
  test_tie();
  test_mesh();
  test_msgs_counted();
  test_lockstep_agree();
  test_limit();
  return TEST_DONE();
}
