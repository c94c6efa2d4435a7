/* The simulator's cases: the automatic mini-batches, the dataflow ring, the sim command. */
#include "tp_check.h"

/* ce with pipeline 0 (the transport's choice, --pipeline 0) on ring, rhd and stragglar: with
 * the automatic batch lowered to 256 bytes, small vectors are split as big ones are at 8 MiB
 * (up to 8 mini-batches per transfer, per size); the sums must be right, nothing may stall.
 * Then, at the real 8 MiB, what ring on 4 ranks chooses per size (compiled only). */
void sim_auto_pipeline(int nmax, int seeds) {
  static const char *const names[] = {"ring", "rhd", "stragglar"};
  static const size_t sizes[] = {67, 1003, 4099};
  size_t keep = tc_set.auto_batch_bytes, keep_flow = tc_set.flow_batch_bytes;
  tc_set.auto_batch_bytes = 256;
  tc_set.flow_batch_bytes = 256;
  for (int a = 0; a < 3; a++)
    for (int n = 2; n <= nmax; n++) {
      struct ar_schedule s;
      ar_status st = build_sched(names[a], n, &s);
      if (st == AR_ERR_UNSUPPORTED) continue;
      if (st != AR_OK) {
        printf("FAIL %s n=%d: %s (%s)\n", names[a], n, ar_status_str(st), s.reason);
        nfail++;
        continue;
      }
      long bad = 0;
      int cases = 0, most = 1;
      for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        struct tp_prog *p;
        char reason[256] = "", what[160];
        snprintf(what, sizeof(what), "%s n=%d nelem=%zu ce pipe=0 (256-byte batches)", names[a],
                 n, sizes[si]);
        if (lower_prog_build(&s, sizes[si], 4, TP_MODE_CE, 0, NULL, &tc_set, &p, reason,
                             sizeof(reason)) != AR_OK) {
          printf("FAIL %s: build: %s\n", what, reason);
          bad++;
          continue;
        }
        if (p->batches_max > most) most = p->batches_max;
        int cap = p->dataflow == 3 ? 16 : 8; /* the flow program: per chunk, 2 to 16 */
        if (p->batches_max > cap) {
          printf("FAIL %s: %d mini-batches, at most %d\n", what, p->batches_max, cap);
          bad++;
        }
        if (!marks_ok(p, what)) bad++;
        for (int seed = 0; seed < seeds; seed++)
          for (int fifo = 0; fifo < 2; fifo++) {
            if (fifo && seed > 1) continue;
            long w = sim_one(p, sizes[si], fifo, 0, (uint64_t)seed * 104729 + n * 17 + si, what);
            cases++;
            if (w) bad++;
          }
        lower_prog_free(p);
      }
      if (most < 2) { /* 4099 elements of 256-byte batches: the choice must split something */
        printf("FAIL %s n=%d pipe=0: never more than one mini-batch\n", names[a], n);
        bad++;
      }
      if (bad) {
        printf("FAIL %s n=%d ce pipe=0: %ld of %d simulated runs wrong or stalled\n", names[a], n,
               bad, cases);
        nfail++;
      } else {
        printf("ok   %s n=%d ce pipe=0: %d simulated runs, up to %d mini-batches\n", names[a], n,
               cases, most);
        npass++;
      }
      sched_free(&s);
    }
  tc_set.auto_batch_bytes = keep;
  tc_set.flow_batch_bytes = keep_flow;
  /* the flow program's real rule: the largest chunk in pieces of at most 128 MiB, at most 16
   * (ring, n = 4: chunks of a quarter); stragglar (AR_TRAIT_SUM_FORWARD, n = 4: chunks of a
   * third) splits chunks from 8 MiB in at least 2, bcast does not */
  static const struct {
    const char *algo;
    size_t bytes;
    int want;
  } flow_rule[] = {{"ring", 1u << 20, 1},           {"ring", (size_t)512 << 20, 1},
                   {"ring", (size_t)516 << 20, 2},  {"ring", 1u << 30, 2},
                   {"ring", (size_t)16 << 30, 16},  {"stragglar", 16u << 20, 1},
                   {"stragglar", 32u << 20, 2},     {"stragglar", 256u << 20, 2},
                   {"stragglar", 1u << 30, 3},      {"bcast", 64u << 20, 1},
                   {"bcast", 256u << 20, 1}};
  tc_set.ce_program = 2;
  for (size_t i = 0; i < sizeof(flow_rule) / sizeof(flow_rule[0]); i++) {
    struct ar_schedule fs;
    if (build_sched(flow_rule[i].algo, 4, &fs) != AR_OK) continue;
    struct tp_prog *p = NULL;
    char reason[256] = "";
    ar_status st = lower_prog_build(&fs, flow_rule[i].bytes / 4, 4, TP_MODE_CE, 0, NULL, &tc_set,
                                    &p, reason, sizeof(reason));
    int got = st == AR_OK && p->dataflow == 3 ? p->batches_max : -1;
    if (got == flow_rule[i].want) {
      printf("ok   %s n=4 %zu B ce flow pipe=0: %d mini-batches\n", flow_rule[i].algo,
             flow_rule[i].bytes, got);
      npass++;
    } else {
      printf("FAIL %s n=4 %zu B ce flow pipe=0: %d mini-batches, want %d (%s)\n",
             flow_rule[i].algo, flow_rule[i].bytes, got, flow_rule[i].want, reason);
      nfail++;
    }
    lower_prog_free(p);
    sched_free(&fs);
  }
  tc_set.ce_program = 0;
  /* the per-round program's real rule: below 64 MiB about 8 MiB a mini-batch, 1 to 8 (ring on
   * 4 ranks moves quarter vectors), from 64 MiB the measured count per message size */
  static const struct {
    size_t bytes;
    int want;
  } real[] = {{1u << 20, 1},  {32u << 20, 1},       {64u << 20, 1},      {256u << 20, 3},
              {1u << 30, 4},  {(size_t)4 << 30, 6}, {(size_t)8 << 30, 8}};
  struct ar_schedule s;
  if (build_sched("ring", 4, &s) != AR_OK) return;
  for (size_t i = 0; i < sizeof(real) / sizeof(real[0]); i++) {
    struct tp_prog *p = NULL;
    char reason[256] = "";
    ar_status st = lower_prog_build(&s, real[i].bytes / 4, 4, TP_MODE_CE, 0, NULL, &tc_set, &p,
                                    reason, sizeof(reason));
    int got = st == AR_OK ? p->batches_max : -1;
    if (got == real[i].want) {
      printf("ok   ring n=4 %zu B ce pipe=0: %d mini-batches\n", real[i].bytes, got);
      npass++;
    } else {
      printf("FAIL ring n=4 %zu B ce pipe=0: %d mini-batches, want %d (%s)\n", real[i].bytes, got,
             real[i].want, reason);
      nfail++;
    }
    lower_prog_free(p);
  }
  sched_free(&s);
}

/* The dataflow ring's mini-batches for nelem elements in n chunks (exec_prog.h): pipeline K > 0,
 * or for 0 the largest chunk over tc_set.ring_batch_bytes within 4..64; at most the smallest
 * chunk's 64-element blocks; at least 1. Written from the rule, not from the compiler. */
static int df_batches(size_t nelem, int n, int pipe) {
  size_t least = nelem / (size_t)n, most = (nelem + n - 1) / (size_t)n;
  size_t nb = (size_t)pipe;
  if (pipe <= 0) {
    nb = most * 4 / tc_set.ring_batch_bytes;
    nb = nb < 4 ? 4 : nb > 64 ? 64 : nb;
  }
  size_t units = (least + 63) / 64;
  if (nb > units) nb = units;
  return nb < 1 ? 1 : (int)nb;
}

/* ce push for schedules flagged AR_TRAIT_PIPELINED (async-ring, x-ring-rev, x-rd-pipe): with
 * every chunk non-empty a ring gets the dataflow program (p->dataflow) with the mini-batches
 * of df_batches, other schedules and degraded jobs the per-round one; pipelines 0 (at 256-byte
 * batches, so small vectors split as 8 GiB ones do) 1 2 3 4 8 64, 1 to 3 copy streams, odd
 * sizes; marks sound, sums right, nothing stalls or leaves its buffers. Then the real rule at
 * 32 MiB for async-ring on 4 and 2 ranks (compiled only). */
void sim_dataflow(int nmax, int seeds, const char *algos) {
  const char *names[64];
  int na = algo_list(algos, names, 64), real = 0;
  static const size_t sizes[] = {5, 67, 1003, 4099, 12345};
  static const int pipes[] = {0, 1, 2, 3, 4, 8, 64};
  size_t keep = tc_set.ring_batch_bytes;
  int keep_ns = tc_set.ring_streams;
  tc_set.ring_batch_bytes = 256;
  for (int a = 0; a < na; a++)
    for (int n = 2; n <= nmax; n++) {
      struct ar_schedule s;
      if (build_sched(names[a], n, &s) != AR_OK) continue;
      if (!(ar_sched_traits(&s) & AR_TRAIT_PIPELINED)) {
        sched_free(&s);
        continue;
      }
      int ring = strcmp(names[a], "async-ring") == 0 || strcmp(names[a], "x-ring-rev") == 0;
      real |= strcmp(names[a], "async-ring") == 0;
      long bad = 0;
      int cases = 0, most = 0, want_most = 0;
      struct tp_degrade dg1 = {1, {n - 1}, {2.0}, 1e9, 0};
      for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
        for (size_t pi = 0; pi <= sizeof(pipes) / sizeof(pipes[0]); pi++)
          for (int ns = 1; ns <= 3; ns++) {
            int degraded = pi == sizeof(pipes) / sizeof(pipes[0]); /* last: emulation, p=2 */
            int pipe = degraded ? 2 : pipes[pi];
            if (degraded && ns > 1) continue;
            tc_set.ring_streams = ns;
            struct tp_prog *p;
            char reason[256] = "", what[200];
            snprintf(what, sizeof(what), "%s n=%d nelem=%zu ce pipe=%d streams=%d%s", names[a], n,
                     sizes[si], pipe, ns, degraded ? " degraded n-1" : "");
            if (lower_prog_build(&s, sizes[si], 4, TP_MODE_CE, pipe, degraded ? &dg1 : NULL,
                                 &tc_set, &p, reason, sizeof(reason)) != AR_OK) {
              printf("FAIL %s: build: %s\n", what, reason);
              bad++;
              continue;
            }
            int want_df = ring && !degraded && sizes[si] >= (size_t)n;
            if ((p->dataflow == 1) != want_df) { /* others: the flow program or per-round */
              printf("FAIL %s: the %s program, want the %s one\n", what,
                     p->dataflow == 1 ? "dataflow ring" : "other",
                     want_df ? "dataflow ring" : "other");
              bad++;
            }
            int want_nb = df_batches(sizes[si], n, pipe);
            if (want_df && p->batches_max != want_nb) {
              printf("FAIL %s: %d mini-batches, want %d\n", what, p->batches_max, want_nb);
              bad++;
            }
            if (p->dataflow && p->batches_max > most) most = p->batches_max;
            if (want_df && want_nb > want_most) want_most = want_nb;
            if (!marks_ok(p, what)) bad++;
            for (int seed = 0; seed < seeds; seed++)
              for (int fifo = 0; fifo < 2; fifo++) {
                if (fifo && seed > 1) continue;
                long w = sim_one(p, sizes[si], fifo, 0,
                                 (uint64_t)seed * 15485863 + n * 131 + si * 7 + pi * 3 + ns, what);
                cases++;
                if (w) bad++;
              }
            lower_prog_free(p);
          }
      if (ring && (most != want_most || most < 16)) { /* pipe 64 on 12345 elements: 64 at n <= 3 */
        printf("FAIL %s n=%d: the dataflow program split into at most %d mini-batches, want %d\n",
               names[a], n, most, want_most);
        bad++;
      }
      if (bad) {
        printf("FAIL %s n=%d dataflow: %ld of %d simulated runs wrong or stalled\n", names[a], n,
               bad, cases);
        nfail++;
      } else {
        printf("ok   %s n=%d dataflow: %d simulated runs, %s, up to %d mini-batches\n", names[a],
               n, cases, ring ? "dataflow program" : "per-round program (not a ring)", most);
        npass++;
      }
      sched_free(&s);
    }
  tc_set.ring_batch_bytes = keep;
  tc_set.ring_streams = keep_ns;
  if (!real) return;
  /* the real rule: about 256 MiB a mini-batch, 4 to 64, of the largest chunk */
  static const struct {
    int n;
    size_t bytes;
    int pipe, want;
  } rule[] = {{4, 1u << 20, 0, 4},           {4, 256u << 20, 0, 4},
              {4, 1u << 30, 0, 4},           {4, 2048u << 20, 0, 4},
              {4, (size_t)8 << 30, 0, 8},    {4, (size_t)16 << 30, 0, 16},
              {2, 256u << 20, 0, 4},         {4, 1u << 30, 1, 1},
              {4, 1u << 30, 5, 5},           {4, 1u << 10, 0, 1}};
  for (size_t i = 0; i < sizeof(rule) / sizeof(rule[0]); i++) {
    struct ar_schedule s;
    if (build_sched("async-ring", rule[i].n, &s) != AR_OK) continue;
    struct tp_prog *p = NULL;
    char reason[256] = "";
    ar_status st = lower_prog_build(&s, rule[i].bytes / 4, 4, TP_MODE_CE, rule[i].pipe, NULL,
                                    &tc_set, &p, reason, sizeof(reason));
    int got = st == AR_OK ? p->batches_max : -1, df = st == AR_OK && p->dataflow;
    int ok = got == rule[i].want && df;
    printf("%s async-ring n=%d %zu B ce pipe=%d: %s, %d mini-batches (want %d)%s%s\n",
           ok ? "ok  " : "FAIL", rule[i].n, rule[i].bytes, rule[i].pipe,
           df ? "dataflow" : "per-round", got, rule[i].want, st == AR_OK ? "" : ": ",
           st == AR_OK ? "" : reason);
    ok ? npass++ : nfail++;
    lower_prog_free(p);
    sched_free(&s);
  }
}

/* The sim command. */
int cmd_sim(int nmax, int seeds, const char *algos, int xq) {
  const char *names[64];
  int na = algo_list(algos, names, 64);
  static const size_t sizes[] = {1, 5, 67, 1003, 4099};
  for (int a = 0; a < na; a++)
    for (int n = 2; n <= nmax; n++) {
      struct ar_schedule s;
      if (!sched_for_sweep(names[a], n, &s)) continue;
      if (sched_verify(&s, NULL) != AR_OK) {
        printf("FAIL %s n=%d: the schedule does not verify\n", names[a], n);
        nfail++;
        sched_free(&s);
        continue;
      }
      long bad = 0;
      int cases = 0;
      /* degraded-link emulation: the last rank x2; with n >= 3 also rank 0 x1.5 and the last
       * x3 (the paces never touch data: the sums must not change, nothing may stall) */
      struct tp_degrade dg1 = {1, {n - 1}, {2.0}, 1e9, 0}, dg2 = {2, {0, n - 1}, {1.5, 3.0}, 1e9, 0};
      const struct tp_degrade *dgs[] = {NULL, NULL, NULL, NULL, &dg1, n >= 3 ? &dg2 : &dg1, &dg1};
      for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
        for (int variant = 0; variant < 7; variant++) {
          /* ce push p=1,2,3, sm; degraded: ce push p=1, ce push p=2, sm */
          int mode = variant == 3 || variant == 6 ? TP_MODE_SM : TP_MODE_CE;
          int pipe = variant == 5 ? 2 : variant == 4 ? 1 : variant + 1;
          const struct tp_degrade *dg = dgs[variant];
          struct tp_prog *p;
          char reason[256] = "", what[160];
          ar_status st = lower_prog_build(&s, sizes[si], 4, mode, pipe, dg, &tc_set, &p, reason,
                                          sizeof(reason));
          snprintf(what, sizeof(what), "%s n=%d nelem=%zu %s pipe=%d%s", names[a], n, sizes[si],
                   mode == TP_MODE_SM ? "sm" : "ce",
                   mode == TP_MODE_SM ? 1 : pipe, dg ? (dg == &dg2 ? " degraded 0,n-1" : " degraded n-1") : "");
          if (st != AR_OK) {
            printf("FAIL %s: build: %s: %s\n", what, ar_status_str(st), reason);
            bad++;
            continue;
          }
          if (!marks_ok(p, what)) bad++;
          int stamps = 0;
          for (int r = 0; r < n; r++)
            stamps += p->rank[r].nstamps;
          if (!dg != !stamps) { /* paces exactly when emulating */
            printf("FAIL %s: %d stamp slots\n", what, stamps);
            bad++;
          }
          for (int seed = 0; seed < (dg ? (seeds + 2) / 3 : seeds); seed++)
            for (int fifo = 0; fifo < 2; fifo++) {
              if (fifo && seed > 1) continue;
              if (xq && !fifo) continue;
              long w = sim_one(p, sizes[si], fifo, xq, (uint64_t)seed * 7919 + n * 31 + si, what);
              cases++;
              if (w) bad++;
            }
          lower_prog_free(p);
        }
      if (bad) {
        printf("FAIL %s n=%d: %ld of %d simulated runs wrong or stalled\n", names[a], n, bad,
               cases);
        nfail++;
      } else {
        printf("ok   %s n=%d: %d simulated runs\n", names[a], n, cases);
        npass++;
      }
      sched_free(&s);
    }
  return 0;
}
