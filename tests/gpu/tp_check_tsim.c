/* The timed simulation (tsim): every dependency of a program, the emulation's paces, fixed
 * costs per op, each GPU's link shared by its copies. */
#include "tp_check.h"

/* ------------------------------------------------------------------ timed simulation */

/* What the timed simulation assumes the GPUs cost: bandwidths in bytes/s, fixed costs in us.
 * It follows every dependency of a program (flags, events, stream order) and the emulation's
 * stamps and paces: enough to check the times the paces produce. One contention: a GPU's copy
 * engines move one copy between GPUs at a time out of it and one into it (copy_bw is a GPU's
 * port), in the order the copies become ready, so that copy streams sharing a
 * link share its bandwidth; copy_us, a copy's issue latency, overlaps another stream's
 * transfer (the dataflow ring's second copy stream is there to hide it). Sums and copies do
 * not slow each other down. */
struct tsim_hw {
  double copy_bw, sum_bw, sm_bw, p2p_bw;
  double copy_us, kernel_us, flag_us, sync_us, group_us;
};

static const struct tsim_hw tsim_default = {400e9, 1.2e12, 400e9, 380e9, 4, 3, 2, 2, 8};

struct tsim_flag {
  uint32_t v;
  double t;
};

#define TSIM_SLOTS (3 * AR_MAX_GPUS) /* flag words per rank: the flow program has 3n */

struct tsim {
  const struct tp_prog *p;
  const struct tsim_hw *hw;
  int iters;
  struct tsim_flag *hist[AR_MAX_GPUS][TSIM_SLOTS];
  int nhist[AR_MAX_GPUS][TSIM_SLOTS];
  double *stamp[AR_MAX_GPUS]; /* [nstamps] */
  double *rec[AR_MAX_GPUS];  /* per (iteration, op): when a RECORD ran, -1 before */
  long *ref[AR_MAX_GPUS];    /* per op: the RECORD a wait joins in its iteration, or -1 */
  long *prev[AR_MAX_GPUS];   /* ... else the last one of the iteration before, or -1 */
  size_t at[AR_MAX_GPUS][2 * AR_MAX_GPUS + 2]; /* next (iteration * nops + op) per stream */
  double clock[AR_MAX_GPUS][2 * AR_MAX_GPUS + 2];
  double egress[AR_MAX_GPUS], ingress[AR_MAX_GPUS]; /* when each GPU's link is next free */
  double budget[AR_MAX_GPUS][2]; /* RESERVE: when each GPU's egress, ingress budget is free */
  double *first; /* [iteration * n + rank]: when its first copy between GPUs started, or NULL */
  double *last;  /* ... when its last op of the iteration ended, or NULL */
};

/* Runs op i (iteration it) of rank r on stream st if it can; returns 1 if it ran. */
static int tsim_op(struct tsim *T, int r, int st, int it, size_t i) {
  const struct tp_rank_prog *rp = &T->p->rank[r];
  const struct tp_op *o = &rp->ops[i];
  const struct tsim_hw *hw = T->hw;
  double *c = &T->clock[r][st];
  int sm = T->p->mode == TP_MODE_SM;
  uint32_t base = (uint32_t)it * T->p->span;
  switch (o->kind) {
  case TP_OP_WRITE_FLAG: {
    *c += hw->flag_us;
    int *nh = &T->nhist[o->peer][o->slot];
    T->hist[o->peer][o->slot] = realloc(T->hist[o->peer][o->slot], (*nh + 1) * sizeof(struct tsim_flag));
    T->hist[o->peer][o->slot][(*nh)++] = (struct tsim_flag){base + o->val, *c};
    return 1;
  }
  case TP_OP_WAIT_FLAG: {
    uint32_t want = base + o->val;
    if ((int32_t)(0u - want) >= 0) return 1; /* every flag word starts at 0 */
    for (int j = 0; j < T->nhist[r][o->slot]; j++)
      if ((int32_t)(T->hist[r][o->slot][j].v - want) >= 0) {
        if (T->hist[r][o->slot][j].t > *c) *c = T->hist[r][o->slot][j].t;
        return 1;
      }
    return 0;
  }
  case TP_OP_COPY: {
    int a = o->src[0].rank, b = o->dst.rank;
    double start = *c + hw->copy_us;
    if (a != b && T->egress[a] > start) start = T->egress[a];
    if (a != b && T->ingress[b] > start) start = T->ingress[b];
    *c = start + o->bytes / hw->copy_bw * 1e6;
    if (a != b) T->egress[a] = T->ingress[b] = *c;
    if (a != b && T->first && T->first[(size_t)it * T->p->n + r] < 0)
      T->first[(size_t)it * T->p->n + r] = start;
    return 1;
  }
  case TP_OP_SUM:
    *c += sm ? o->bytes / hw->sm_bw * 1e6 : hw->kernel_us + o->bytes / hw->sum_bw * 1e6;
    return 1;
  case TP_OP_RECORD: T->rec[r][(size_t)it * rp->nops + i] = *c; return 1;
  case TP_OP_WAIT_EVENT: {
    long at = T->ref[r][i] >= 0                  ? (long)((size_t)it * rp->nops) + T->ref[r][i]
              : it > 0 && T->prev[r][i] >= 0 ? (long)((size_t)(it - 1) * rp->nops) + T->prev[r][i]
                                                 : -1;
    if (at < 0) return 1; /* nothing recorded yet: no wait, as cudaStreamWaitEvent */
    if (T->rec[r][at] < 0) return 0;
    if (T->rec[r][at] > *c) *c = T->rec[r][at];
    return 1;
  }
  case TP_OP_STAMP:
    *c += sm ? 0 : hw->kernel_us;
    T->stamp[r][o->tslot[0]] = *c;
    return 1;
  case TP_OP_PACE: {
    double until = T->stamp[r][o->tslot[0]] + (double)(int64_t)o->ns[0] * 1e-3; /* may be < 0 */
    if (o->tslot[1] >= 0 && T->stamp[r][o->tslot[1]] + (double)(int64_t)o->ns[1] * 1e-3 > until)
      until = T->stamp[r][o->tslot[1]] + (double)(int64_t)o->ns[1] * 1e-3;
    *c += sm ? 0 : hw->kernel_us;
    if (until > *c) *c = until;
    if (o->tout >= 0) T->stamp[r][o->tout] = *c; /* the release: no banked idle time */
    return 1;
  }
  case TP_OP_RESERVE: { /* one clock for every GPU here: no offsets */
    *c += hw->kernel_us;
    double rel = *c;
    for (int d = 0; d < 2; d++) {
      double *b = &T->budget[d ? o->peer : r][d];
      if (!o->ns[d]) continue;
      *b = (*b > *c ? *b : *c) + o->ns[d] * 1e-3;
      if (*b > rel) rel = *b;
    }
    T->stamp[r][o->tout] = rel;
    return 1;
  }
  case TP_OP_SYNC: *c += hw->sync_us; return 1;
  default: return 1;
  }
}

/* A stream that may run its next op, with its clock. */
struct tsim_cand {
  double t;
  int r, st;
};

/* qsort order: earlier clock first, then rank and stream (deterministic). */
static int tsim_cand_cmp(const void *x, const void *y) {
  const struct tsim_cand *a = x, *b = y;
  if (a->t != b->t) return a->t < b->t ? -1 : 1;
  return a->r != b->r ? a->r - b->r : a->st - b->st;
}

/* Times `iters` back-to-back iterations of program p, every stream of rank r starting at
 * start[r] (NULL: 0); fin[r] (may be NULL) gets each rank's finish; first[it * n + r] (may be
 * NULL) when rank r's first copy between GPUs of iteration it started (-1: none) and
 * ends[it * n + r] when its last op of that iteration ended (with first). Returns the last
 * finish in us, or -1 on a stall. */
static double tsim_prog(const struct tp_prog *p, const struct tsim_hw *hw, int iters,
                        const double *start, double *fin, double *first, double *ends) {
  struct tsim *T = calloc(1, sizeof(*T));
  T->p = p;
  T->hw = hw;
  T->iters = iters;
  T->first = first;
  T->last = ends;
  for (size_t i = 0; first && i < (size_t)iters * p->n; i++)
    first[i] = ends[i] = -1;
  for (int r = 0; r < p->n; r++) {
    for (int st = 0; start && st < 2 * AR_MAX_GPUS + 2; st++)
      T->clock[r][st] = start[r];
    const struct tp_rank_prog *rp = &p->rank[r];
    T->stamp[r] = calloc(rp->nstamps + 1, sizeof(double));
    T->rec[r] = malloc((rp->nops * iters + 1) * sizeof(double));
    for (size_t i = 0; i < rp->nops * iters; i++)
      T->rec[r][i] = -1;
    /* a wait joins the latest RECORD of its event enqueued before it */
    T->ref[r] = malloc((rp->nops + 1) * sizeof(long));
    T->prev[r] = malloc((rp->nops + 1) * sizeof(long));
    for (size_t i = 0; i < rp->nops; i++) {
      T->ref[r][i] = T->prev[r][i] = -1;
      if (rp->ops[i].kind != TP_OP_WAIT_EVENT) continue;
      for (size_t j = rp->nops; j-- > 0;)
        if (rp->ops[j].kind == TP_OP_RECORD && rp->ops[j].event == rp->ops[i].event) {
          if (j < i && T->ref[r][i] < 0) T->ref[r][i] = (long)j;
          if (T->prev[r][i] < 0) T->prev[r][i] = (long)j;
        }
    }
  }
  /* one op at a time, the stream whose clock is earliest first (among those that can move),
   * so that the links are granted in about the order the copies become ready */
  struct tsim_cand *cand = malloc((size_t)p->n * (2 * AR_MAX_GPUS + 2) * sizeof(*cand));
  int trace = getenv("TSIM_TRACE") != NULL;
  for (;;) {
    int nc = 0;
    for (int r = 0; r < p->n; r++) {
      const struct tp_rank_prog *rp = &p->rank[r];
      size_t total = rp->nops * iters;
      for (int st = 0; st < rp->nstreams; st++) {
        size_t *a = &T->at[r][st];
        while (*a < total && rp->ops[*a % rp->nops].stream != st)
          (*a)++;
        if (*a < total) cand[nc++] = (struct tsim_cand){T->clock[r][st], r, st};
      }
    }
    qsort(cand, nc, sizeof(*cand), tsim_cand_cmp);
    int moved = 0;
    for (int c = 0; c < nc && !moved; c++) {
      const struct tp_rank_prog *rp = &p->rank[cand[c].r];
      size_t *a = &T->at[cand[c].r][cand[c].st];
      if (tsim_op(T, cand[c].r, cand[c].st, (int)(*a / rp->nops), *a % rp->nops)) {
        if (trace) { /* TSIM_TRACE=1: when each copy, sum, pace and flag wait ends */
          const struct tp_op *o = &rp->ops[*a % rp->nops];
          if (o->kind == TP_OP_COPY || o->kind == TP_OP_SUM || o->kind == TP_OP_PACE ||
              o->kind == TP_OP_WAIT_FLAG)
            fprintf(stderr, "T r%d s%d k%d op%d kind%d end %.1f peer %d bytes %zu\n", cand[c].r,
                    cand[c].st, o->round, (int)(*a % rp->nops), o->kind,
                    T->clock[cand[c].r][cand[c].st], o->kind == TP_OP_COPY ? o->dst.rank : -1,
                    o->bytes);
        }
        double *end = T->last ? &T->last[*a / rp->nops * p->n + cand[c].r] : NULL;
        if (end && T->clock[cand[c].r][cand[c].st] > *end) *end = T->clock[cand[c].r][cand[c].st];
        (*a)++;
        moved = 1;
      }
    }
    if (!moved) break;
  }
  free(cand);
  double last = 0;
  int stalled = 0;
  for (int r = 0; r < p->n; r++) {
    double f = 0;
    for (int st = 0; st < p->rank[r].nstreams; st++) {
      if (T->at[r][st] < p->rank[r].nops * iters) stalled = 1;
      if (T->clock[r][st] > f) f = T->clock[r][st];
    }
    if (fin) fin[r] = f;
    if (f > last) last = f;
    free(T->rec[r]);
    free(T->ref[r]);
    free(T->prev[r]);
    free(T->stamp[r]);
    for (int q = 0; q < TSIM_SLOTS; q++)
      free(T->hist[r][q]);
  }
  free(T);
  return stalled ? -1 : last;
}

/* Times one iteration of s on the nccl-p2p transport's plans and holds (p2p_hold.h): a
 * rank posts a round's group when its previous round is over; its sends and receives with one
 * peer end at the later post of the two + their bytes / p2p_bw; then the hold, then the
 * applies. fin as tsim_prog. Returns the last finish in us, or -1 on a stall. */
static double tsim_p2p(const struct ar_schedule *s, size_t nelem, const struct tp_degrade *dg,
                       const struct tsim_hw *hw, double *fin) {
  int n = s->nranks, stalled = 0;
  struct p2p_plan plans[AR_MAX_GPUS];
  uint64_t *hold[AR_MAX_GPUS];
  double *post[AR_MAX_GPUS], clock[AR_MAX_GPUS], last = 0;
  int ri[AR_MAX_GPUS];
  for (int r = 0; r < n; r++)
    p2p_plan_build(s, r, nelem, 4, &plans[r]);
  for (int r = 0; r < n; r++) {
    hold[r] = NULL;
    if (dg) p2p_holds(plans, n, 4, dg, r, &hold[r]);
    post[r] = malloc((plans[r].nrounds + 1) * sizeof(double));
    for (int i = 0; i <= plans[r].nrounds; i++)
      post[r][i] = -1;
    ri[r] = 0;
    clock[r] = 0;
  }
  for (int progress = 1; progress;) {
    progress = 0;
    for (int r = 0; r < n; r++) {
      int i = ri[r];
      if (i >= plans[r].nrounds) continue;
      const struct p2p_round *R = &plans[r].rounds[i];
      uint64_t h = hold[r] ? hold[r][i] : 0;
      double stamp = clock[r] + (h ? hw->kernel_us : 0);
      if (post[r][i] < 0) {
        post[r][i] = stamp + hw->group_us;
        progress = 1;
      }
      double end = post[r][i];
      int ready = 1;
      for (int k = 0; k < R->nsend + R->nrecv && ready; k++) {
        const struct p2p_op *o = k < R->nsend ? &R->send[k] : &R->recv[k - R->nsend];
        int q = o->peer, j = 0;
        while (j < plans[q].nrounds && plans[q].rounds[j].round != R->round)
          j++;
        if (j == plans[q].nrounds || post[q][j] < 0) {
          ready = 0;
          break;
        }
        double t = (post[r][i] > post[q][j] ? post[r][i] : post[q][j]) +
                   (double)o->cnt * 4 / hw->p2p_bw * 1e6;
        if (t > end) end = t;
      }
      if (!ready) continue;
      if (h && stamp + h * 1e-3 > end) end = stamp + h * 1e-3;
      if (h) end += hw->kernel_us;
      for (int k = 0; k < R->nrecv; k++)
        if (!R->recv[k].direct) end += hw->kernel_us + (double)R->recv[k].cnt * 4 / hw->sum_bw * 1e6;
      clock[r] = end;
      ri[r]++;
      progress = 1;
    }
  }
  for (int r = 0; r < n; r++) {
    if (ri[r] < plans[r].nrounds) stalled = 1;
    if (fin) fin[r] = clock[r];
    if (clock[r] > last) last = clock[r];
    p2p_plan_free(&plans[r]);
    free(hold[r]);
    free(post[r]);
  }
  return stalled ? -1 : last;
}

/* Builds registry algorithm `name` for n ranks with dg's GPUs as OPTCC's degraded ones and k
 * segments (0: the generator's default); returns the status. */
ar_status build_for(const char *name, int n, const struct tp_degrade *dg, int segments,
                           struct ar_schedule *s) {
  memset(s, 0, sizeof(*s));
  const struct ar_algo *a = ar_algo_find(name);
  if (!a) return AR_ERR_INVALID;
  struct ar_params p;
  ar_params_init(&p, n);
  for (int i = 0; dg && i < dg->n; i++) {
    p.degraded[p.ndegraded] = dg->rank[i];
    p.factor[p.ndegraded++] = dg->factor[i];
  }
  p.segments = segments;
  return ar_build(a, &p, s);
}

enum { TS_CE = 0, TS_SM = 1, TS_P2P = 2 };
static const char *const ts_name[] = {"ce", "sm", "nccl-p2p"};

/* Times one iteration of s (float32) on transport tp's model; fin as tsim_prog. Returns us, or
 * -1 (printed) when the program cannot be built or stalls. */
static double tsim_time(const struct ar_schedule *s, size_t nelem, int tp, int pipeline,
                        const struct tp_degrade *dg, const struct tsim_hw *hw, double *fin) {
  double t;
  if (tp == TS_P2P) {
    t = tsim_p2p(s, nelem, dg, hw, fin);
  } else {
    struct tp_prog *p;
    char reason[256] = "";
    if (lower_prog_build(s, nelem, 4, tp == TS_SM ? TP_MODE_SM : TP_MODE_CE, pipeline, dg, &tc_set,
                         &p, reason, sizeof(reason)) != AR_OK) {
      printf("tsim: %s: %s\n", s->algo, reason);
      return -1;
    }
    t = tsim_prog(p, hw, 1, NULL, fin, NULL, NULL);
    lower_prog_free(p);
  }
  if (t < 0) printf("tsim: %s on %s stalled\n", s->algo, ts_name[tp]);
  return t;
}

/* Counts and prints one timed check. */
static void tcheck(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tcheck(int ok, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  printf("%s tsim ", ok ? "ok  " : "FAIL");
  vprintf(fmt, ap);
  printf("\n");
  va_end(ap);
  ok ? npass++ : nfail++;
}

/* |got / want - 1| <= tol */
static int near_rel(double got, double want, double tol) {
  return got > 0 && want > 0 && fabs(got / want - 1) <= tol;
}

/* The lower bound of optcc.txt (Theorems 1/6 and 2) for dg on n ranks at bandwidth bw, us. */
static double tsim_bound(int n, const struct tp_degrade *dg, double bytes) {
  struct model_hw mh = {.beta = 1e6 / dg->bw};
  return model_degraded_bound_us(n, dg->n, dg->factor, &mh, bytes);
}

/* 5. direct back to back: the dataflow direct program (4 ranks, 1 GiB, automatic mini-batches)
 *    for 4 iterations with nothing between them, rank 1 starting 100 us late. Its shift order is
 *    a permutation only while the ranks are at the same copy, so no rank may start copying an
 *    iteration before every rank has ended the one before (READY); ranks that start on their
 *    own inbound data drift apart on the GPUs (docs/timing.md), which this model, serialising a
 *    shared receiver, does not show: the check is on the order, not on the time. */
static void tsim_b2b_check(const struct tsim_hw *hw) {
  struct ar_schedule s;
  struct tp_prog *p;
  char reason[256] = "";
  enum { N = 4, IT = 4 };
  if (build_for("direct", N, NULL, 0, &s) != AR_OK) return;
  if (lower_prog_build(&s, (1u << 30) / 4, 4, TP_MODE_CE, 0, NULL, &tc_set, &p, reason,
                    sizeof(reason)) != AR_OK) {
    tcheck(0, "direct back to back: %s", reason);
    sched_free(&s);
    return;
  }
  double start[N] = {0, 100, 0, 0}, first[IT * N], ends[IT * N], gap = 1e30;
  double t = tsim_prog(p, hw, IT, start, NULL, first, ends);
  for (int it = 1; it < IT; it++)
    for (int r = 0; r < N; r++)
      for (int q = 0; q < N; q++) /* r's first copy of it after q's end of it - 1 */
        if (first[it * N + r] - ends[(it - 1) * N + q] < gap)
          gap = first[it * N + r] - ends[(it - 1) * N + q];
  tcheck(t > 0 && gap >= 0, "direct on ce back to back, rank 1 100 us late: every rank's first "
         "copy of iterations 2-%d starts after every rank ended the iteration before (the "
         "earliest %+.1f us after)", IT, gap);
  lower_prog_free(p);
  sched_free(&s);
}

/* The timed checks of the degraded-link emulation (run by `sim`): the rates the self-test
 * expects, the shared budget's split between flows, a degraded ring's time, and OPTCC against
 * ring and the lower bound, with the costs of tsim_default. */
void tsim_checks(void) {
  const struct tsim_hw *hw = &tsim_default;
  const double bw = 400e9;
  const size_t peer = 256u << 20;
  /* 1. the self-test: 1..3 peers into, out of, and both ways through GPU 0 at once */
  for (int tp = 0; tp < 3; tp++)
    for (int pipe = 0; pipe < (tp == TS_CE ? 2 : 1); pipe++)
      for (int f = 2; f <= 4; f += 2) {
        double worst = 0;
        int bad = 0;
        for (int k = 1; k <= 3; k++)
          for (int dir = 0; dir < 3; dir++) {
            struct ar_schedule s;
            memset(&s, 0, sizeof(s));
            struct tp_degrade dg = {1, {0}, {(double)f}, bw, 0};
            if (tp_degrade_selftest_schedule(k, dir, &s) != AR_OK) {
              bad = 1;
              continue;
            }
            double t = tsim_time(&s, 2 * (size_t)k * peer / 4, tp, pipe ? 0 : 1, &dg, hw, NULL);
            double err = t > 0 ? (double)k * peer / (t * 1e-6) / (bw / f) - 1 : 1;
            if (fabs(err) > fabs(worst)) worst = err;
            if (fabs(err) > 0.02) {
              bad = 1;
              printf("     self-test %s k=%d dir=%d x%d: %.1f us, rate off by %.2f%%\n",
                     ts_name[tp], k, dir, f, t, 100 * err);
            }
            sched_free(&s);
          }
        tcheck(!bad, "self-test on %s%s, x%d: 1-3 peers in/out/both at bw/%d, worst %+.2f%%",
               ts_name[tp], tp == TS_CE ? (pipe ? " (auto mini-batches)" : " (pipeline 1)") : "",
               f, f, 100 * worst);
      }
  /* 2. one budget, fair shares: GPU 0 sends 64 and 192 MiB to ranks 1 and 2 at once (out), or
   *    receives them (in): the small flow ends F (2 x 64) / bw after the round's start (ce:
   *    in turn, at least F 64 / bw), the large F (64 + 192) / bw after it. Timed as the second round, after one in which GPU 0
   *    alone moves 64 MiB, so that the round's start is not 0 and the peers are early; except
   *    on nccl-p2p, whose receivers time d's egress from their own round start (transport.h:
   *    a late sender is not charged from its own start there), as the first round */
  for (int tp = 0; tp < 3; tp++)
    for (int dir = 0; dir < 2; dir++) {
      struct ar_schedule s;
      memset(&s, 0, sizeof(s));
      int first = tp != TS_P2P;
      sched_init(&s, "x-shares", 3, 8);
      if (first) sched_add(&s, 0, AR_COPY, dir ? 0 : 1, dir ? 1 : 0, 4, 1);
      sched_add(&s, first, AR_COPY, dir ? 0 : 1, dir ? 1 : 0, 0, 1);
      sched_add(&s, first, AR_COPY, dir ? 0 : 2, dir ? 2 : 0, 1, 3);
      s.ports = 2;
      sched_finish(&s);
      struct tp_degrade dg = {1, {0}, {2.0}, bw, 0};
      double fin[AR_MAX_GPUS], mib = 1 << 20;
      double t = tsim_time(&s, (512u << 20) / 4, tp, 1, &dg, hw, fin);
      double t0 = first ? 2 * 64 * mib / bw * 1e6 : 0, small = t0 + 2 * 128 * mib / bw * 1e6,
             all = t0 + 2 * 256 * mib / bw * 1e6;
      int ok = t > 0 && near_rel(fin[0], all, 0.02);
      /* the ce flow program serves its budget first come, first served instead: the small
       * flow then ends F x 64 MiB / bw after the start at the earliest, never after the end */
      if (tp == TS_CE) small = t0 + 2 * 64 * mib / bw * 1e6;
      if (dir && tp == TS_CE)
        ok = ok && fin[1] >= small * 0.98 && fin[1] <= all * 1.02 && near_rel(fin[2], all, 0.02);
      else if (dir)
        ok = ok && near_rel(fin[1], small, 0.03) && near_rel(fin[2], all, 0.02);
      if (dir)
        tcheck(ok, "shared egress budget on %s: GPU 0 %.0f us (want %.0f), its 64 MiB flow %.0f "
               "us (want %.0f)", ts_name[tp], fin[0], all, fin[1], small);
      else
        tcheck(ok, "shared ingress budget on %s: GPU 0 %.0f us (want %.0f)", ts_name[tp], fin[0],
               all);
      sched_free(&s);
    }
  /* 2b. a late peer: rank 1 receives chunk 0 from rank 2 in the first round while GPU 0 idles,
   *     then GPU 0 overwrites it with 64 MiB (out) or receives it (in): the slow link counts from
   *     when rank 1 arrives, so rank 1 (out) or GPU 0 (in) ends F x 64 MiB / bw after that
   *     (ce and sm; nccl-p2p times it from the degraded rank's own start, see transport.h) */
  for (int tp = 0; tp < 2; tp++)
    for (int dir = 0; dir < 2; dir++) {
      struct ar_schedule s;
      memset(&s, 0, sizeof(s));
      sched_init(&s, "x-late", 3, 2);
      sched_add(&s, 0, AR_COPY, 2, 1, 0, 1); /* rank 1's chunk 0 arrives late */
      sched_add(&s, 1, AR_COPY, dir ? 0 : 1, dir ? 1 : 0, 0, 1);
      sched_finish(&s);
      struct tp_degrade dg = {1, {0}, {2.0}, bw, 0};
      double fin[AR_MAX_GPUS];
      double t = tsim_time(&s, (128u << 20) / 4, tp, 1, &dg, hw, fin);
      double want = (64u << 20) / (tp == TS_SM ? hw->sm_bw : hw->copy_bw) * 1e6 + 2.0 * (64u << 20) / bw * 1e6;
      double got = fin[dir ? 1 : 0];
      tcheck(t > 0 && got >= want * 0.98 && got <= want * 1.08, "late peer, %s %s: %s ends at %.0f "
             "us (want about %.0f)", ts_name[tp], dir ? "egress" : "ingress",
             dir ? "rank 1" : "GPU 0", got, want);
      sched_free(&s);
    }
  /* 3. a ring through a GPU degraded x2: every round waits for its slow link, plus what the
   *    transport does beyond moving bytes (its healthy time less the bytes at full speed);
   *    OPTCC on the same link is faster and never beats optcc.txt's lower bound */
  const size_t gib = 1u << 30;
  struct tp_degrade dg2 = {1, {3}, {2.0}, bw, 0};
  struct ar_schedule ring, optcc;
  if (build_for("ring", 4, NULL, 0, &ring) != AR_OK) return;
  if (build_for("optcc", 4, &dg2, 16, &optcc) != AR_OK) {
    sched_free(&ring);
    return;
  }
  double slow = 6 * 2.0 * (gib / 4) / bw * 1e6, bound = tsim_bound(4, &dg2, (double)gib);
  double tpbw[3] = {hw->copy_bw, hw->sm_bw, hw->p2p_bw};
  for (int tp = 0; tp < 3; tp++) {
    double t = tsim_time(&ring, gib / 4, tp, 0, &dg2, hw, NULL);
    double healthy = tsim_time(&ring, gib / 4, tp, 0, NULL, hw, NULL);
    double extra = healthy - 6.0 * (gib / 4) / tpbw[tp] * 1e6;
    tcheck(t >= slow * 0.999 && t <= (slow + extra) * 1.01,
           "ring, 4 GPUs, 1 GiB, rank 3 x2, %s: %.0f us (slow link %.0f + transport %.0f; "
           "healthy %.0f)", ts_name[tp], t, slow, extra, healthy);
    double to = tsim_time(&optcc, gib / 4, tp, 0, &dg2, hw, NULL);
    tcheck(to >= bound && to < t, "optcc k=16 on the same link, %s: %.0f us, %.2fx faster than "
           "ring, %.3f x the lower bound %.0f us (the done-when targets: >= 1.3x, <= 1.15x)",
           ts_name[tp], to, t / to, to / bound, bound);
  }
  /* 4. with no cost but bytes (an ideal transport), the paper's numbers: OPTCC at
   *    l (k + 1.5) / k n at most (optcc.c), ring at 2 (n - 1) l n / n: 1.5x for l = 2, k -> inf */
  struct tsim_hw ideal = {bw, 1e30, bw, bw, 0, 0, 0, 0, 0};
  for (int tp = 0; tp < 3; tp++) {
    double t = tsim_time(&ring, gib / 4, tp, 0, &dg2, &ideal, NULL);
    double to = tsim_time(&optcc, gib / 4, tp, 0, &dg2, &ideal, NULL);
    tcheck(near_rel(t, slow, 1e-3) && to >= bound && to <= bound * 17.5 / 16 * 1.001,
           "ideal %s: ring %.0f us (want %.0f), optcc k=16 %.0f us = %.4f x the bound (at most "
           "%.4f), %.3fx faster", ts_name[tp], t, slow, to, to / bound, 17.5 / 16, t / to);
  }
  sched_free(&ring);
  sched_free(&optcc);
  tsim_b2b_check(hw);
}

/* The costs cmd_tsim uses: tsim_default, with TSIM_COSTS="copy_us=10,flag_us=15,sum_bw=0.46e12"
 * (any tsim_hw field) overriding some, e.g. with costs measured on the GPUs. */
static struct tsim_hw tsim_costs(void) {
  struct tsim_hw hw = tsim_default;
  const char *e = getenv("TSIM_COSTS");
  struct {
    const char *name;
    double *v;
  } f[] = {{"copy_bw", &hw.copy_bw}, {"sum_bw", &hw.sum_bw},       {"sm_bw", &hw.sm_bw},
           {"p2p_bw", &hw.p2p_bw},   {"copy_us", &hw.copy_us},     {"kernel_us", &hw.kernel_us},
           {"flag_us", &hw.flag_us}, {"sync_us", &hw.sync_us},     {"group_us", &hw.group_us}};
  while (e && *e) {
    size_t len = strcspn(e, "=");
    int hit = 0;
    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
      if (strlen(f[i].name) == len && !strncmp(e, f[i].name, len)) {
        *f[i].v = atof(e + len + 1);
        hit = 1;
      }
    if (!hit) fprintf(stderr, "tp_check: TSIM_COSTS: unknown field in '%s'\n", e);
    e = strchr(e, ',');
    if (e) e++;
  }
  return hw;
}

/* The tsim command: times of the listed algorithms (float32) on a transport's model, healthy
 * and with --degrade R:F[,R:F] (bw 400 GB/s), against OPTCC's lower bound. */
int cmd_tsim(const char *algos, const char *sizes, const char *degrade, int ranks,
                    int segments, const char *transport, int pipeline) {
  const struct tsim_hw hw = tsim_costs();
  struct tp_degrade dg;
  memset(&dg, 0, sizeof(dg));
  dg.bw = 400e9;
  parse_degrade(degrade, &dg);
  char *sz[64];
  const char *names[64];
  int nsz = split(sizes, sz, 64);
  int tp = !strcmp(transport, "sm") ? TS_SM : !strcmp(transport, "nccl-p2p") ? TS_P2P : TS_CE;
  int na = algo_list(algos, names, 64), n = ranks > 2 ? ranks : 4;
  for (int i = 0; i < nsz; i++) {
    int el;
    size_t bytes = parse_size(sz[i], &el), nelem = el ? bytes : bytes / 4;
    double bound = dg.n ? tsim_bound(n, &dg, nelem * 4.0) : -1;
    for (int a = 0; a < na; a++) {
      struct ar_schedule s;
      if (build_for(names[a], n, &dg, segments, &s) != AR_OK) {
        printf("n/a  %-12s %s\n", names[a], s.reason);
        continue;
      }
      double h = tsim_time(&s, nelem, tp, pipeline, NULL, &hw, NULL);
      double t = dg.n ? tsim_time(&s, nelem, tp, pipeline, &dg, &hw, NULL) : h;
      printf("tsim %-12s %-8s %12zu B: healthy %10.1f us, degraded %10.1f us, %d rounds",
             names[a], ts_name[tp], nelem * 4, h, t, s.nrounds);
      if (bound > 0) printf(", %.3f x the bound %.1f us", t / bound, bound);
      printf("\n");
      npass++;
      sched_free(&s);
    }
  }
  return 0;
}

/* The dump command: the compiled program of every rank (lower_prog_print) for the first listed
 * algorithm, size and pipeline on --ranks ranks (default 4), ce push or --transport sm. */
