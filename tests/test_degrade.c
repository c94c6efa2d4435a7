/* The harness's side of degraded links (harness/plan/sweep.c): --degrade rows measured (only nccl
 * n/a), --segments and --self-test degrade parsing, OPTCC's k per size and its rebuild before
 * a size, the lower bound printed beside degraded rows; ring-rails built with a channel per GPU
 * of a host; nccl-p2p's holds (src/lower/p2p_hold.h) with a degraded network between hosts
 * against holds recomputed from the schedule's transfers. sweep.c is compiled in, as in
 * test_scenarios.c. The transports' timing is checked by tests/gpu/tp_check.c (sim, tsim). */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"

#include "cli/config.h"
#include "plan/options.c"
#include "plan/run_plan.c"
#include "plan/critical.c" /* sweep.c estimates searches with it */
#include "plan/sweep.c"
#include "lower/p2p_hold.h"

/* Parses a command line (words separated by spaces, argv[0] = "run") into a plan, with
 * stderr silenced; returns run_plan_parse's result. */
static int plan_line(struct run_plan *p, const char *line) {
  char buf[2048], *argv[64];
  int argc = test_argv(line, buf, sizeof(buf), argv, 64);
  fflush(stderr);
  int err = dup(2), null = open("/dev/null", O_WRONLY);
  dup2(null, 2);
  int rc = run_plan_parse(argc, argv, p);
  fflush(stderr);
  dup2(err, 2);
  close(null);
  close(err);
  return rc;
}

/* The flags: --segments K (1..4096), --self-test degrade, --degrade in several scenarios. */
static void test_flags(void) {
  static struct run_plan p;
  CHECK_INT(plan_line(&p, "--degrade 1:2 --segments 12"), ==, 0);
  CHECK_INT(p.scen[0].segments, ==, 12);
  CHECK_INT(p.scen[0].dg.n, ==, 1);
  run_plan_free(&p);
  CHECK_INT(plan_line(&p, "--segments 0"), ==, -1);
  CHECK_INT(plan_line(&p, "--segments 4097"), ==, -1);
  CHECK_INT(plan_line(&p, "--segments x"), ==, -1);
  CHECK_INT(plan_line(&p, "--self-test degrade"), ==, 0);
  CHECK_STR(p.scen[0].self_test, "degrade");
  run_plan_free(&p);
  CHECK_INT(plan_line(&p, "--self-test bogus"), ==, -1);
  /* repeated --degrade flags add up, as in model (the last alone was kept); a GPU named
   * twice is refused */
  CHECK_INT(plan_line(&p, "--degrade 1:1.0 --degrade 2:4.0"), ==, 0);
  CHECK(p.scen[0].dg.n == 2 && p.scen[0].dg.rank[0] == 1 && p.scen[0].dg.factor[0] == 1.0 &&
            p.scen[0].dg.rank[1] == 2 && p.scen[0].dg.factor[1] == 4.0,
        "repeated --degrade flags add up: %d GPUs", p.scen[0].dg.n);
  run_plan_free(&p);
  CHECK_INT(plan_line(&p, "--degrade 1:1.0 --degrade 1:4.0"), ==, -1);
}

/* n/a: only nccl on degraded links; an algorithm that cannot be built says why. */
static void test_row_na(void) {
  static struct run_plan p;
  struct ar_schedule sched[4];
  ar_status st[4];
  CHECK_INT(plan_line(&p, "--algo nccl,ring,optcc,optcc-multi --degrade 1:2"), ==, 0);
  sweep_build_schedules(&p.scen[0], 4, sched, st);
  /* nccl: no schedule to refuse; its executor, NCCL's own AllReduce, has no emulation (the
   * plan makes its rows n/a with these words) */
  CHECK(sweep_row_na(&p.scen[0], 0, sched, st) == NULL, "nccl: a schedule's reason");
  CHECK(!AR_TP_CAN(ar_executor_nccl(), AR_TP_DEGRADE), "nccl's executor degraded");
  CHECK_STR(ar_executor_nccl()->na[AR_TP_DEGRADE], "nccl cannot be degraded");
  CHECK(sweep_row_na(&p.scen[0], 1, sched, st) == NULL, "ring degraded: n/a");
  CHECK(sweep_row_na(&p.scen[0], 2, sched, st) == NULL, "optcc degraded: n/a");
  /* optcc is built for the degraded rank: its transfers touching rank 1 weigh 2 */
  int heavy = 0, light = 0;
  for (size_t i = 0; i < sched[2].nxfers; i++) {
    const struct ar_xfer *x = &sched[2].xfers[i];
    if (x->src == 1 || x->dst == 1) heavy += x->weight == 2.0f;
    else light += x->weight == 1.0f;
  }
  CHECK(heavy > 0 && light > 0, "optcc weights: %d heavy, %d light", heavy, light);
  for (int a = 0; a < 4; a++) sched_free(&sched[a]);
  /* on GPUs (a switch) optcc takes the switch form: the degraded GPU talks to all the others */
  CHECK(!strcmp(sched[2].algo, "optcc") && sched[2].ports == 3, "optcc on GPUs: %s, %d ports",
        sched[2].algo, sched[2].ports);
  for (int a = 0; a < 4; a++) sched_free(&sched[a]);
  sweep_build_schedules(&p.scen[0], 2, sched, st); /* the switch form runs on 2 GPUs too */
  CHECK(sweep_row_na(&p.scen[0], 2, sched, st) == NULL, "optcc on 2 GPUs: %s",
        sweep_row_na(&p.scen[0], 2, sched, st));
  for (int a = 0; a < 4; a++) sched_free(&sched[a]);
  run_plan_free(&p);
  CHECK_INT(plan_line(&p, "--algo optcc-ring --degrade 1:2"), ==, 0); /* the ring needs 3 */
  sweep_build_schedules(&p.scen[0], 2, sched, st);
  CHECK(sweep_row_na(&p.scen[0], 0, sched, st) &&
            strstr(sweep_row_na(&p.scen[0], 0, sched, st), "at least 3"),
        "optcc-ring on 2 GPUs: %s", sweep_row_na(&p.scen[0], 0, sched, st));
  sched_free(&sched[0]);
  run_plan_free(&p);
  /* healthy: nccl is measured */
  CHECK_INT(plan_line(&p, "--algo nccl,ring"), ==, 0);
  sweep_build_schedules(&p.scen[0], 4, sched, st);
  CHECK(sweep_row_na(&p.scen[0], 0, sched, st) == NULL, "healthy nccl n/a");
  for (int a = 0; a < 2; a++) sched_free(&sched[a]);
  run_plan_free(&p);
}

/* OPTCC's k per size: a multiple of 4 in 4..64, growing with the size; --segments wins. */
static void test_segments(void) {
  static struct run_plan p;
  CHECK_INT(plan_line(&p, "--algo optcc,optcc-switch --degrade 3:2"), ==, 0);
  struct run_opts *o = &p.scen[0];
  o->degrade_bw = 400e9;
  for (int a = 0; a < 2; a++) {
    int prev = 0;
    for (uint64_t b = 1024; b <= (64ull << 30); b *= 4) {
      int k = sweep_segments(o, 4, a == 1, b);
      CHECK(k % 4 == 0 && k >= 4 && k <= 64 && k >= prev, "%s: k %d at %llu B (before %d)",
            o->algos[a]->name, k, (unsigned long long)b, prev);
      prev = k;
    }
  }
  /* the minimum of T (k + 1.5) / k + rounds x 30 us: T = 2 S / bw at x2; optcc's rings
   * (switch_form 0) (k + 2) q rounds, q = 3; optcc-switch (1) about k */
  CHECK_INT(sweep_segments(o, 4, 0, 4u << 20), ==, 4);
  CHECK_INT(sweep_segments(o, 4, 0, 256u << 20), ==, 4);
  CHECK_INT(sweep_segments(o, 4, 0, 1u << 30), ==, 8);
  CHECK_INT(sweep_segments(o, 4, 0, 8ull << 30), ==, 28);
  CHECK_INT(sweep_segments(o, 4, 0, 64ull << 30), ==, 64);
  CHECK_INT(sweep_segments(o, 4, 1, 256u << 20), ==, 8);
  CHECK_INT(sweep_segments(o, 4, 1, 1u << 30), ==, 16);
  CHECK_INT(sweep_segments(o, 4, 1, 8ull << 30), ==, 48);
  o->degrade_bw = 0; /* not measured yet: a nominal 400 GB/s */
  CHECK_INT(sweep_segments(o, 4, 0, 1u << 30), ==, 8);
  o->segments = 12;
  CHECK_INT(sweep_segments(o, 4, 0, 1u << 30), ==, 12);
  CHECK_INT(sweep_segments(o, 4, 1, 1024), ==, 12);
  run_plan_free(&p);
  CHECK_INT(plan_line(&p, "--algo optcc"), ==, 0); /* healthy: T0 = 2 (n-1)/n S / bw */
  CHECK_INT(sweep_segments(&p.scen[0], 4, 0, 1u << 30), ==, 8);
  run_plan_free(&p);
}

/* sweep_size_schedule rebuilds OPTCC when the size's k changes, and only OPTCC (the ring form:
 * k = 8 at 1 GiB; optcc itself takes the switch form on GPUs, k = 16 there). */
static void test_size_schedule(void) {
  static struct run_plan p;
  struct ar_schedule sched[2];
  ar_status st[2];
  int k[2] = {0, 0};
  CHECK_INT(plan_line(&p, "--algo ring,optcc-ring --degrade 3:2"), ==, 0);
  struct run_opts *o = &p.scen[0];
  o->degrade_bw = 400e9;
  sweep_build_schedules(o, 4, sched, st);
  CHECK(st[0] == AR_OK && st[1] == AR_OK, "built: %d %d", st[0], st[1]);
  struct ar_xfer *ring = sched[0].xfers;
  sweep_size_schedule(o, 4, 0, 1u << 30, &sched[0], &st[0], &k[0]);
  CHECK(sched[0].xfers == ring && k[0] == 0, "ring rebuilt (k %d)", k[0]);
  sweep_size_schedule(o, 4, 1, 1u << 30, &sched[1], &st[1], &k[1]);
  CHECK_INT(k[1], ==, 8);
  CHECK_INT(st[1], ==, AR_OK);
  int nchunks8 = sched[1].nchunks, nrounds8 = sched[1].nrounds;
  struct ar_schedule probe;
  memset(&probe, 0, sizeof(probe));
  CHECK_INT(sweep_build_one(o, 4, 1, 8, &probe), ==, AR_OK);
  CHECK(probe.nchunks == nchunks8 && probe.nrounds == nrounds8, "k=8: %d chunks, %d rounds",
        nchunks8, nrounds8);
  sched_free(&probe);
  struct ar_xfer *same = sched[1].xfers;
  sweep_size_schedule(o, 4, 1, (1u << 30) + 4096, &sched[1], &st[1], &k[1]); /* same k */
  CHECK(sched[1].xfers == same, "rebuilt for the same k");
  sweep_size_schedule(o, 4, 1, 4u << 20, &sched[1], &st[1], &k[1]);
  CHECK(k[1] == 4 && st[1] == AR_OK && sched[1].nrounds < nrounds8, "k %d, %d rounds", k[1],
        sched[1].nrounds);
  CHECK_INT(sched_verify(&sched[1], NULL), ==, AR_OK);
  for (int a = 0; a < 2; a++) sched_free(&sched[a]);
  run_plan_free(&p);
}

/* The lower bound of degraded rows: optcc.txt Theorem 6 (one GPU) / 2 (several) x S / bw. */
static void test_lower_bound(void) {
  static struct run_plan p;
  const double s = 1u << 30, bw = 400e9;
  CHECK_INT(plan_line(&p, "--degrade 3:2"), ==, 0);
  CHECK(isnan(sweep_lower_bound_us(&p.scen[0], 4, 1u << 30)), "bound before the bandwidth");
  p.scen[0].degrade_bw = bw;
  double lb = sweep_lower_bound_us(&p.scen[0], 4, 1u << 30);
  CHECK(fabs(lb - 2 * s / bw * 1e6) < 1e-6 * lb, "x2: %g us", lb);
  run_plan_free(&p);
  CHECK_INT(plan_line(&p, "--degrade 3:1.5"), ==, 0);
  p.scen[0].degrade_bw = bw; /* 2 l (p-1) / (l (p-2) + 2) = 9 / 5 */
  lb = sweep_lower_bound_us(&p.scen[0], 4, 1u << 30);
  CHECK(fabs(lb - 1.8 * s / bw * 1e6) < 1e-6 * lb, "x1.5: %g us", lb);
  run_plan_free(&p);
  CHECK_INT(plan_line(&p, "--degrade 1:4,0:2"), ==, 0);
  p.scen[0].degrade_bw = bw; /* max(2 (p-1) / (p - m + sum 1/l), l1) = max(6 / 2.75, 4) */
  lb = sweep_lower_bound_us(&p.scen[0], 4, 1u << 30);
  CHECK(fabs(lb - 4 * s / bw * 1e6) < 1e-6 * lb, "two degraded: %g us", lb);
  run_plan_free(&p);
  CHECK_INT(plan_line(&p, "--algo ring"), ==, 0);
  p.scen[0].degrade_bw = bw;
  CHECK(isnan(sweep_lower_bound_us(&p.scen[0], 4, 1u << 30)), "bound without --degrade");
  run_plan_free(&p);
}

/* Bytes from a to b in round `round` of s for vectors of nelem 4-byte elements, from the
 * schedule's transfers (not the plans). */
static double xfer_bytes(const struct ar_schedule *s, size_t nelem, int round, int a, int b) {
  double t = 0;
  for (size_t i = 0; i < s->nxfers; i++) {
    const struct ar_xfer *x = &s->xfers[i];
    if (x->round != round || x->src != a || x->dst != b) continue;
    t += 4.0 * (double)(ar_chunk_begin(nelem, s->nchunks, x->chunk + x->count) -
                        ar_chunk_begin(nelem, s->nchunks, x->chunk));
  }
  return t;
}

/* nccl-p2p's holds on 2 hosts of 2 GPUs (ring-rails, G = 2), host 1's network degraded
 * (ranks 2 and 3 at 2x, per_host 2): a degraded rank holds F x its bytes to or from host 0
 * over bw, never counting what it exchanges with its own host's GPU; a rank of host 0
 * receiving from a degraded one holds for its share of that rank's network; ranks of host 1
 * receiving from each other hold nothing for it. Without per_host every byte counts, as
 * before, so the holds are longer. */
static void test_network_holds(void) {
  struct ar_params p;
  struct ar_schedule s;
  ar_params_init(&p, 4);
  p.fabric = AR_FABRIC_SWITCH;
  p.gpus_per_node = 2;
  memset(&s, 0, sizeof(s));
  CHECK_INT(ar_build(ar_algo_find("ring-rails"), &p, &s), ==, AR_OK);
  const size_t nelem = 1 << 20;
  struct p2p_plan plans[4];
  for (int r = 0; r < 4; r++) CHECK_INT(p2p_plan_build(&s, r, nelem, 4, &plans[r]), ==, AR_OK);
  struct tp_degrade dg;
  memset(&dg, 0, sizeof(dg));
  dg.n = 2, dg.rank[0] = 2, dg.rank[1] = 3, dg.factor[0] = dg.factor[1] = 2;
  dg.bw = 1e9; /* a byte takes 1 ns: a hold is F x its bytes in ns */
  double total[2] = {0, 0};
  for (int per_host = 0; per_host <= 2; per_host += 2) {
    dg.per_host = per_host;
    for (int r = 0; r < 4; r++) {
      uint64_t *h = NULL;
      CHECK_INT(p2p_holds(plans, 4, 4, &dg, r, &h), ==, AR_OK);
      for (int i = 0; i < plans[r].nrounds; i++) {
        int R = plans[r].rounds[i].round;
        double want = 0, in = 0, out = 0;
        for (int q = 0; q < 4; q++) {
          int slowed = !per_host || q / 2 != r / 2;
          in += slowed ? xfer_bytes(&s, nelem, R, q, r) : 0;
          out += slowed ? xfer_bytes(&s, nelem, R, r, q) : 0;
        }
        if (r >= 2) want = 2 * (in > out ? in : out);
        for (int d = 2; d < 4; d++) { /* r's share of degraded d's egress */
          double mine = xfer_bytes(&s, nelem, R, d, r), shared = 0;
          if (d == r || !mine || (per_host && d / 2 == r / 2)) continue;
          for (int q = 0; q < 4; q++) {
            double b = !per_host || q / 2 != d / 2 ? xfer_bytes(&s, nelem, R, d, q) : 0;
            shared += b < mine ? b : mine;
          }
          if (2 * shared > want) want = 2 * shared;
        }
        uint64_t got = h ? h[i] : 0;
        CHECK(llabs((long long)got - llround(want)) <= 1,
              "per_host %d rank %d round %d: hold %llu ns, recomputed %.0f", per_host, r, R,
              (unsigned long long)got, want);
        total[per_host / 2] += (double)got;
      }
      free(h);
    }
  }
  CHECK(total[1] > 0 && total[1] < total[0], "holds: %.0f ns with the network degraded, %.0f "
        "with every link", total[1], total[0]);
  for (int r = 0; r < 4; r++) p2p_plan_free(&plans[r]);
  sched_free(&s);
}

/* ring-rails in a run whose ranks span hosts of G GPUs (run.c sets gpus_per_node from the
 * placement): G channels, each rank sending on G rings a round (a peer per channel); on one
 * host (0) the plain ring. */
static void test_rails_per_host(void) {
  static struct run_plan p;
  struct ar_schedule s;
  memset(&s, 0, sizeof(s));
  CHECK_INT(plan_line(&p, "--algo ring-rails"), ==, 0);
  for (int g = 0; g <= 2; g += 2) {
    p.scen[0].gpus_per_node = g;
    CHECK_INT(sweep_build_one(&p.scen[0], 4, 0, 0, &s), ==, AR_OK);
    int want = g ? 2 : 1, peers[4] = {0};
    for (size_t i = 0; i < s.nxfers; i++)
      if (s.xfers[i].round == 0) peers[s.xfers[i].src]++;
    CHECK(s.nchunks == 4 * want && peers[0] == want && peers[3] == want,
          "ring-rails, %d GPUs a host: %d chunks, rank 0 sends %d in round 0", g, s.nchunks,
          peers[0]);
  }
  sched_free(&s);
  run_plan_free(&p);
}

int main(void) {
  test_flags();
  test_row_na();
  test_segments();
  test_size_schedule();
  test_lower_bound();
  test_network_holds();
  test_rails_per_host();
  return TEST_DONE();
}
