/* The ll program simulator's cases (tp_check llsim; the simulator is tp_check_ll.c): the
 * protocol, slice, warps and speeds of each case from its seed, the lint of a program (LINT:
 * its PUTs and TAKEs must pair up: every TAKE source needs exactly one PUT of the same round and
 * range, into its region and flag words, and every PUT a TAKE source), the negative cases
 * (ll_negative: corrupted programs must fail) and the llsim command, which lints and simulates
 * every algorithm's programs. */
#include "tp_check.h"

/* The program's PUTs and TAKEs pair up: every source of a TAKE (flag slot f of rank w) is fed
 * by exactly one PUT to (w, f), of the same round and data range, into the region and flag
 * words the TAKE reads; every PUT feeds a TAKE source; a rank's rounds come in
 * order, each one's PUTs before its TAKEs. 0 when so, else 1 with the first problem in err. */
static int ll_lint(const struct tp_prog *p, char *err, size_t len) {
  int ns = p->nslots > 0 ? p->nslots : 1;
  for (int w = 0; w < p->n; w++) {
    const struct tp_op **put = calloc((size_t)ns, sizeof(*put));
    unsigned char *puts = calloc((size_t)ns, 1), *takes = calloc((size_t)ns, 1);
    int bad = 0;
    for (int r = 0; r < p->n && !bad; r++)
      for (size_t i = 0; i < p->rank[r].nops && !bad; i++) {
        const struct tp_op *o = &p->rank[r].ops[i];
        if (o->kind != TP_OP_PUT || o->peer != w) continue;
        if (o->slot < 0 || o->slot >= ns || o->src[0].rank != r || o->src[0].buf != TP_BUF_DATA ||
            o->dst.buf != TP_BUF_SCRATCH || o->dst.rank != w) {
          snprintf(err, len, "LINT: rank %d op %zu: a PUT to rank %d flag %d with wrong buffers", r,
                   i, w, o->slot);
          bad = 1;
        } else if (puts[o->slot]++) {
          snprintf(err, len, "LINT: rank %d op %zu: a second PUT to rank %d flag %d", r, i, w,
                   o->slot);
          bad = 1;
        } else
          put[o->slot] = o;
      }
    const struct tp_rank_prog *rp = &p->rank[w];
    int round = -1, taking = 0;
    for (size_t i = 0; i < rp->nops && !bad; i++) {
      const struct tp_op *o = &rp->ops[i];
      if (o->round < round || (o->round == round && taking && o->kind == TP_OP_PUT)) {
        snprintf(err, len, "LINT: rank %d op %zu (round %d): out of the order rounds, PUTs, TAKEs",
                 w, i, o->round);
        bad = 1;
        break;
      }
      taking = o->round == round ? taking || o->kind == TP_OP_TAKE : o->kind == TP_OP_TAKE;
      round = o->round;
      if (o->kind != TP_OP_TAKE) continue;
      int red = ll_reduce(o);
      if (o->dst.buf != TP_BUF_DATA || o->dst.rank != w || (red && o->src[0].off != o->dst.off)) {
        snprintf(err, len, "LINT: rank %d op %zu: a TAKE with wrong buffers", w, i);
        bad = 1;
      }
      for (int q = 0; q < o->nsrc - red && !bad; q++) {
        int f = o->slot + q;
        const struct tp_op *u = f >= 0 && f < ns ? put[f] : NULL;
        if (f < 0 || f >= ns || takes[f]++ || !u) {
          snprintf(err, len, "LINT: rank %d op %zu (round %d): flag slot %d %s", w, i, o->round, f,
                   f < 0 || f >= ns ? "out of range"
                   : !u             ? "has no PUT"
                                    : "read twice");
          bad = 1;
        } else if (u->round != o->round || u->src[0].off != o->dst.off || u->bytes != o->bytes ||
                   o->src[red + q].buf != TP_BUF_SCRATCH || o->src[red + q].rank != w ||
                   u->dst.off != o->src[red + q].off || u->ll_flag[0] != o->ll_flag[red + q]) {
          snprintf(err, len,
                   "LINT: rank %d op %zu (round %d): flag slot %d: the PUT (round %d, "
                   "data+%zu, %zu bytes, into +%zu, flag word %zu) does not match the TAKE "
                   "(data+%zu, %zu bytes, from +%zu, flag word %zu)",
                   w, i, o->round, f, u->round, u->src[0].off, u->bytes, u->dst.off,
                   u->ll_flag[0], o->dst.off, o->bytes, o->src[red + q].off,
                   o->ll_flag[red + q]);
          bad = 1;
        }
      }
    }
    for (int f = 0; f < ns && !bad; f++)
      if (puts[f] && !takes[f]) {
        snprintf(err, len, "LINT: rank %d flag slot %d: a PUT no TAKE reads", w, f);
        bad = 1;
      }
    free(put);
    free(puts);
    free(takes);
    if (bad) return 1;
  }
  return 0;
}

/* Case `seed` of a program: protocol and slice, warps per rank and speeds, all from the seed.
 * Signals with slices of 24 to 64 bytes or the lines protocols (above 64 KiB of data the lines
 * protocols or signals of 192: slices near the kernel's own, so that long runs stay short);
 * every third makes random ranks slow, every other one skews warps, and with a straggler
 * (straggler < 0: none) some make it the slow one. */
static struct ll_case ll_case_for(int n, int esize, int straggler, size_t nbytes, uint64_t seed) {
  static const struct {
    int proto;
    size_t sb;
  } small[] = {{TP_LL_SIGNALS, 32}, {TP_LL_SIGNALS, 24}, {TP_LL_LINES, 0}, {TP_LL_SIGNALS, 64},
               {TP_LL_LINES128, 0}},
    big[] = {{TP_LL_LINES128, 0}, {TP_LL_LINES, 0}, {TP_LL_SIGNALS, 192}};
  struct ll_case c;
  memset(&c, 0, sizeof(c));
  c.esize = esize;
  c.parities = 2;
  if (nbytes > 65536)
    c.proto = big[seed % 3].proto, c.sb = big[seed % 3].sb;
  else
    c.proto = small[seed % 5].proto, c.sb = small[seed % 5].sb;
  c.seed = seed;
  uint64_t rng = seed * 0xD1B54A32D192ED03ull + 7;
  int same = xorshift64(&rng) % 3 == 0; /* every rank the same grid, as the kernel launches */
  int w0 = 1 + (int)(xorshift64(&rng) % LL_MAX_WARPS);
  for (int r = 0; r < n; r++) {
    c.nw[r] = same ? w0 : 1 + (int)(xorshift64(&rng) % LL_MAX_WARPS);
    c.rank_weight[r] = seed % 3 == 1 && xorshift64(&rng) % 3 == 0 ? 0.02 : 1.0;
  }
  if (straggler >= 0 && straggler < n && seed % 3 == 2) c.rank_weight[straggler] = 0.01;
  c.warp_skew = (int)((seed / 3) % 2);
  c.forward = xorshift64(&rng) % 4 != 0;
  return c;
}

/* Lowers s for case c (its protocol and slice). */
static ar_status ll_build(const struct ar_schedule *s, size_t nelem, const struct ll_case *c,
                          struct tp_prog **p, char *reason, size_t len) {
  tc_set.ll_protocol = c->proto;
  tc_set.ll_slice = c->sb;
  tc_set.ll_forward = c->forward;
  return lower_prog_build(s, nelem, c->esize, TP_MODE_LL, 1, NULL, &tc_set, p, reason, len);
}

/* Prints a case in a failure line. */
static void ll_case_text(const struct ll_case *c, int n, char *out, size_t len) {
  static const char *const protos[] = {"lines", "lines128", "signals"};
  size_t l = (size_t)snprintf(out, len, "%s", protos[c->proto]);
  if (c->proto == TP_LL_SIGNALS) l += (size_t)snprintf(out + l, len - l, " of %zu", c->sb);
  l += (size_t)snprintf(out + l, len - l, ", seed %llu, warps", (unsigned long long)c->seed);
  for (int r = 0; r < n && l < len; r++)
    l += (size_t)snprintf(out + l, len - l, "%s%d", r ? "," : " ", c->nw[r]);
  if (!c->forward && l < len) l += (size_t)snprintf(out + l, len - l, ", forward off");
  if (c->parities != 2 && l < len) snprintf(out + l, len - l, ", one parity");
}

/* Corrupts p (in place) for a negative case: "overlap" moves the region of rank 1's flag slot
 * 1 to 16 bytes past the start of its flag slot 0's, "flags" its flag words onto slot 0's (PUT
 * and TAKE alike: the lint passes); "order" puts every rank's first TAKE before its first PUT.
 * 1 when done. */
static int ll_corrupt(struct tp_prog *p, const char *how) {
  if (!strcmp(how, "order")) {
    for (int r = 0; r < p->n; r++) {
      struct tp_rank_prog *rp = &p->rank[r];
      size_t a = 0, b = 0;
      while (a < rp->nops && rp->ops[a].kind != TP_OP_PUT)
        a++;
      while (b < rp->nops && rp->ops[b].kind != TP_OP_TAKE)
        b++;
      if (a == rp->nops || b == rp->nops || b < a) return 0;
      struct tp_op t = rp->ops[a];
      rp->ops[a] = rp->ops[b];
      rp->ops[b] = t;
    }
    return 1;
  }
  /* overlap, flags: rank 1's flag slots 0 and 1 */
  int w = 1, flags = !strcmp(how, "flags");
  size_t off0 = SIZE_MAX, f0 = 0;
  for (size_t i = 0; i < p->rank[w].nops; i++) {
    const struct tp_op *o = &p->rank[w].ops[i];
    if (o->kind == TP_OP_TAKE && o->slot == 0)
      off0 = o->src[ll_reduce(o)].off, f0 = o->ll_flag[ll_reduce(o)];
  }
  if (off0 == SIZE_MAX) return 0;
  int done = 0;
  for (int r = 0; r < p->n; r++)
    for (size_t i = 0; i < p->rank[r].nops; i++) {
      struct tp_op *o = &p->rank[r].ops[i];
      int q = -1; /* slot 1's ref */
      struct tp_ref *ref = NULL;
      if (o->kind == TP_OP_PUT && o->peer == w && o->slot == 1) q = 0, ref = &o->dst;
      if (r == w && o->kind == TP_OP_TAKE && o->slot <= 1 && o->slot + o->nsrc - ll_reduce(o) > 1)
        q = ll_reduce(o) + 1 - o->slot, ref = &o->src[q];
      if (q < 0) continue;
      if (flags)
        o->ll_flag[q] = f0;
      else
        ref->off = off0 + 16;
      done++;
    }
  return done == 2;
}

/* The simulator must fail: corrupted ring programs (overlapping slot regions; shared flag words
 * under signals; a TAKE before the PUT that feeds it, on every rank: a cycle of waits), and
 * oneshot with one parity of slots (a rank's next iteration overwrites slots a slow peer still
 * reads: ring would pass, since there every slot is read before its sender can finish the
 * iteration). */
static void ll_negative(void) {
  static const struct {
    const char *name, *algo, *how;
    int signals, parities, seeds; /* signals: the case's protocol forced to signals */
  } neg[] = {{"overlapping slot regions", "ring", "overlap", 0, 2, 1},
             {"shared flag words", "ring", "flags", 1, 2, 1},
             {"a TAKE before the PUT that feeds it", "ring", "order", 0, 2, 1},
             {"one parity of slots", "oneshot", "", 0, 1, 24}};
  for (size_t t = 0; t < sizeof(neg) / sizeof(neg[0]); t++) {
    struct ar_schedule s;
    struct tp_prog *p = NULL;
    char reason[256] = "", err[600] = "", lint[300] = "", cs[160] = "";
    if (build_sched(neg[t].algo, 4, &s) != AR_OK) {
      printf("FAIL ll negative %s: %s n=4 does not build\n", neg[t].name, neg[t].algo);
      nfail++;
      continue;
    }
    int caught = 0, seed = 0, built = 1, linted = 0;
    for (; seed < neg[t].seeds && !caught && built; seed++) {
      struct ll_case c = ll_case_for(4, 4, -1, 4100, (uint64_t)seed * 2 + 1);
      c.parities = neg[t].parities;
      if (neg[t].signals) c.proto = TP_LL_SIGNALS, c.sb = 32;
      if (!strcmp(neg[t].how, "order")) /* one warp a rank: every rank's only warp waits */
        for (int r = 0; r < 4; r++)
          c.nw[r] = 1;
      if (neg[t].parities == 1) /* a slow rank, the others racing ahead */
        for (int r = 0; r < 4; r++)
          c.rank_weight[r] = r == seed % 4 ? 0.02 : 1.0;
      lower_prog_free(p);
      p = NULL;
      built = ll_build(&s, 1025, &c, &p, reason, sizeof(reason)) == AR_OK &&
              (!neg[t].how[0] || ll_corrupt(p, neg[t].how));
      if (!built) break;
      caught = ll_sim_one(p, &c, err, sizeof(err), NULL);
      linted = ll_lint(p, lint, sizeof(lint));
      ll_case_text(&c, 4, cs, sizeof(cs));
    }
    if (!built) {
      printf("FAIL ll negative %s: cannot lower or corrupt %s n=4 (%s)\n", neg[t].name,
             neg[t].algo, reason);
      nfail++;
    } else if (caught) {
      printf("ok   ll negative: %s (%s n=4, 1025 f32, %s) fails as it must: %.300s [lint: %s]\n",
             neg[t].name, neg[t].algo, cs, err, linted ? lint : "passes it");
      npass++;
    } else {
      printf("FAIL ll negative: %s (%s n=4): the simulator passed it in %d cases\n", neg[t].name,
             neg[t].algo, seed);
      nfail++;
    }
    lower_prog_free(p);
    sched_free(&s);
  }
}

/* The llsim command: every algorithm of `algos` (all: the registry's and tp_check's synthetic
 * schedules) for n = 2..nmax, lowered to ll programs for every size (element counts) in f32 and
 * bf16, in `seeds` cases each (protocols, slices, warps, speeds: see ll_case_for), each case's
 * program linted and simulated, then (negative) the negative cases. One line per algorithm and
 * n. */
int cmd_llsim(int nmax, int seeds, const char *algos, const char *sizes, int negative) {
  const char *names[64];
  int na = algo_list(algos, names, 64);
  char *sz[32];
  int nsz = split(sizes, sz, 32);
  long steps = 0;
  int total = 0;
  for (int a = 0; a < na; a++)
    for (int n = 2; n <= nmax; n++) {
      struct ar_schedule s;
      if (!sched_for_sweep(names[a], n, &s)) continue;
      int cases = 0, bad = 0, moved = 0;
      /* a schedule with a straggler precondition runs again with the straggler moved (ranks
       * rotated: n-1 becomes 0), as --straggler R relabels it */
      for (int rel = 0; rel < (s.nprecond > 0 && n >= 3 ? 2 : 1) && !bad; rel++) {
        if (rel) {
          int perm[AR_MAX_GPUS];
          for (int r = 0; r < n; r++)
            perm[r] = (r + 1) % n;
          sched_relabel(&s, perm);
          if (s.stream_bad) break;
          moved = 1;
        }
        int straggler = s.nprecond > 0 ? s.straggler : -1;
        for (int si = 0; si < nsz && bad < 3; si++)
          for (int es = 4; es >= 2 && bad < 3; es -= 2) {
            int el;
            size_t nelem = parse_size(sz[si], &el);
            if (!el) nelem /= (size_t)es;
            char what[200];
            snprintf(what, sizeof(what), "%s n=%d%s nelem=%zu %s ll", names[a], n,
                     rel ? " (straggler moved)" : "", nelem, es == 4 ? "f32" : "bf16");
            for (int seed = 0; seed < seeds && !bad; seed++) {
              struct ll_case c = ll_case_for(n, es, straggler, nelem * (size_t)es,
                                             (uint64_t)seed + (uint64_t)(n * 1000 + si * 10 + es));
              struct tp_prog *p;
              char reason[256] = "", err[600] = "", cs[160];
              ll_case_text(&c, n, cs, sizeof(cs));
              ar_status st = ll_build(&s, nelem, &c, &p, reason, sizeof(reason));
              if (st != AR_OK) {
                printf("FAIL %s (%s): build: %s: %s\n", what, cs, ar_status_str(st), reason);
                bad++;
                continue;
              }
              cases++;
              if (ll_lint(p, err, sizeof(err)) || ll_sim_one(p, &c, err, sizeof(err), &steps)) {
                printf("FAIL %s (%s): %s\n", what, cs, err);
                bad++;
              }
              lower_prog_free(p);
            }
          }
      }
      total += cases;
      if (bad) {
        printf("FAIL %s n=%d ll: %d of %d simulated runs wrong, stalled or not built\n", names[a],
               n, bad, cases);
        nfail++;
      } else {
        printf("ok   %s n=%d ll: %d simulated runs%s\n", names[a], n, cases,
               moved ? " (half with the straggler moved)" : "");
        npass++;
      }
      sched_free(&s);
    }
  printf("# ll: %d simulated runs, %ld warp steps\n", total, steps);
  if (negative) ll_negative();
  return 0;
}
