/* The adversarial program simulator: ranks and streams interleaved at random, copies split
 * into read and write steps, stalls and wrong sums reported. */
#include "tp_check.h"


#define SIM_ITER_SHIFT 5 /* iteration k sums pattern(r, i + 5k): 5 x 7 is 1 mod 17 */
/* ------------------------------------------------------------------ simulator */


/* Appends rank r's calls, in its thread's order, to *out; returns their count. */
static int sim_calls(const struct sim *m, int r, struct sim_call **out) {
  const struct tp_rank_prog *rp = &m->p->rank[r];
  int cnt = 0, cap = (int)(m->iters * (rp->nops + 3));
  struct sim_call *c = calloc(cap + 1, sizeof(*c));
  for (int it = 0; it < m->iters; it++) {
    c[cnt++] = (struct sim_call){NULL, SIM_REINIT, it};
    if (m->p->mode == TP_MODE_SM)
      c[cnt++] = (struct sim_call){NULL, SIM_KERNEL, it};
    else
      for (size_t i = 0; i < rp->nops; i++)
        c[cnt++] = (struct sim_call){&rp->ops[i], rp->ops[i].kind, it};
    c[cnt++] = (struct sim_call){NULL, SIM_CAPTURE, it};
  }
  *out = c;
  return cnt;
}

/* Enqueues everything of every rank, as the harness and the transports would: host threads
 * interleave at random. With xq (fifo only), a copy between GPUs is executed in the FIFO of
 * the GPU owning its source (xq 1) or its destination (xq 2), in the order the calls reach
 * that GPU, while the issuing stream waits for it. */
static void sim_enqueue(struct sim *m) {
  struct sim_call *calls[AR_MAX_GPUS];
  int ncall[AR_MAX_GPUS], at[AR_MAX_GPUS], *latest[AR_MAX_GPUS], left = 0;
  for (int r = 0; r < m->n; r++) {
    const struct tp_rank_prog *rp = &m->p->rank[r];
    m->nq[r] = m->fifo ? 1 : rp->nstreams;
    ncall[r] = sim_calls(m, r, &calls[r]);
    at[r] = 0;
    left += ncall[r];
    latest[r] = calloc(rp->nevents + 1, sizeof(int));
    for (int e = 0; e <= rp->nevents; e++)
      latest[r][e] = -1;
  }
  m->xdone = calloc(left + 1, 1);
  m->xwaiting = calloc(left + 1, sizeof(int));
  while (left) {
    int r = (int)(sim_rand(m) % m->n);
    if (at[r] == ncall[r]) continue;
    struct sim_call *c = &calls[r][at[r]++];
    left--;
    const struct tp_op *o = c->op;
    struct sim_item x = {.op = o, .kind = c->kind, .iter = c->iter, .rec = -1};
    int q = !o || m->fifo ? 0 : o->stream;
    if (o && o->kind == TP_OP_RECORD) latest[r][o->event] = x.rec = m->nrec[r]++;
    if (o && o->kind == TP_OP_WAIT_EVENT) x.rec = latest[r][o->event];
    int exec = !o || !m->fifo || o->kind != TP_OP_COPY ? r
               : m->xq == 1                            ? o->src[0].rank
               : m->xq == 2                            ? o->dst.rank
                                                       : r;
    if (exec != r) {
      struct sim_item w = {.kind = SIM_XWAIT, .iter = c->iter, .xid = m->nx};
      x.kind = SIM_XCOPY;
      x.xid = m->nx++;
      sim_push(&m->q[exec][0], x);
      sim_push(&m->q[r][q], w);
    } else
      sim_push(&m->q[r][q], x);
  }
  for (int r = 0; r < m->n; r++) {
    m->rec_done[r] = calloc(m->nrec[r] + 1, 1);
    free(latest[r]);
    free(calls[r]);
  }
}

/* Flag value of an op for an iteration. */
static uint32_t sim_val(const struct sim *m, const struct tp_op *o, int iter) {
  return (uint32_t)iter * m->p->span + o->val;
}

static int sim_flag_ok(const struct sim *m, int r, const struct tp_op *o, int iter) {
  return (int32_t)(m->flags[r][o->slot] - sim_val(m, o, iter)) >= 0;
}

/* Returns 1 when [x->off, x->off + bytes) lies inside its buffer (a program that reads or
 * writes past its scratch would corrupt the simulator's heap before a sum went wrong). */
static int sim_inside(const struct sim *m, const struct tp_ref *x, size_t bytes) {
  size_t size = x->buf == TP_BUF_DATA ? m->nelem * 4 : m->p->rank[x->rank].scratch_bytes;
  return x->rank >= 0 && x->rank < m->n && x->off <= size && bytes <= size - x->off;
}

/* One step of a copy or sum (half the range read, or half written); returns 1 when done. */
static int sim_data_step(struct sim *m, const struct tp_op *o, int *step, float **tmp) {
  int inside = sim_inside(m, &o->dst, o->bytes);
  for (int q = 0; q < o->nsrc; q++)
    inside &= sim_inside(m, &o->src[q], o->bytes);
  if (!inside) { /* counted as a failure by sim_one; the op does nothing */
    if (!m->outside) m->outside = o;
    return 1;
  }
  size_t ne = o->bytes / 4, half = ne / 2;
  size_t lo = *step < 2 ? 0 : half, hi = *step < 2 ? half : ne;
  float *dst = sim_ptr(m, &o->dst);
  if (!*tmp) *tmp = calloc(ne + 1, sizeof(float));
  if (*step % 2 == 0)
    for (size_t i = lo; i < hi; i++) {
      float s = 0;
      for (int q = 0; q < o->nsrc; q++)
        s += sim_ptr(m, &o->src[q])[i];
      (*tmp)[i] = s;
    }
  else
    for (size_t i = lo; i < hi; i++)
      dst[i] = (*tmp)[i];
  if (++*step < 4) return 0;
  free(*tmp);
  *tmp = NULL;
  *step = 0;
  return 1;
}

/* sm kernel: extends the current region to the next SYNC (exclusive). */
static void sim_region(const struct tp_rank_prog *rp, struct sim_item *k) {
  size_t e = k->reg0;
  while (e < rp->nops && rp->ops[e].kind != TP_OP_SYNC)
    e++;
  k->reg1 = e;
}

/* sm kernel: the op indices runnable now (every WAIT before them in the region satisfied). */
static int sim_kernel_ready(struct sim *m, int r, struct sim_item *k, size_t *out) {
  const struct tp_rank_prog *rp = &m->p->rank[r];
  int cnt = 0;
  for (size_t i = k->reg0; i < k->reg1; i++) {
    const struct tp_op *o = &rp->ops[i];
    if (k->done[i]) continue;
    if (o->kind == TP_OP_WAIT_FLAG) {
      if (sim_flag_ok(m, r, o, k->iter)) out[cnt++] = i;
      break; /* later ops wait for this one */
    }
    out[cnt++] = i;
  }
  return cnt;
}

/* Runs one step of queue head (r, qi) if it can; returns 1 if it did something. */
static int sim_step(struct sim *m, int r, int qi) {
  struct sim_queue *q = &m->q[r][qi];
  if (q->head == q->n) return 0;
  struct sim_item *x = &q->it[q->head];
  const struct tp_op *o = x->op;
  int done = 1;
  switch (x->kind) {
  case SIM_REINIT: /* each iteration its own inputs, as the harness: a read of an earlier
                    * iteration's bytes sums wrong instead of passing unseen */
    for (size_t i = 0; i < m->nelem; i++)
      m->data[r][i] = pattern(r, i + SIM_ITER_SHIFT * (size_t)x->iter);
    break;
  case SIM_CAPTURE: memcpy(m->result[x->iter][r], m->data[r], m->nelem * sizeof(float)); break;
  case SIM_KERNEL: {
    const struct tp_rank_prog *rp = &m->p->rank[r];
    if (!x->done) {
      x->done = calloc(rp->nops + 1, 1);
      x->kstep = calloc(rp->nops + 1, sizeof(int));
      x->ktmp = calloc(rp->nops + 1, sizeof(float *));
      x->reg0 = 0;
      sim_region(rp, x);
    }
    size_t *cand = malloc((rp->nops + 1) * sizeof(size_t));
    int nc = sim_kernel_ready(m, r, x, cand);
    size_t pick = nc ? cand[sim_rand(m) % nc] : 0;
    free(cand);
    if (nc) {
      size_t i = pick;
      const struct tp_op *ko = &rp->ops[i];
      if (ko->kind == TP_OP_WAIT_FLAG || ko->kind == TP_OP_STAMP || ko->kind == TP_OP_PACE)
        x->done[i] = 1; /* the emulation's ops only delay: no-ops here, timed by tsim */
      else if (ko->kind == TP_OP_WRITE_FLAG) {
        m->flags[ko->peer][ko->slot] = sim_val(m, ko, x->iter);
        x->done[i] = 1;
      } else
        x->done[i] = (unsigned char)sim_data_step(m, ko, &x->kstep[i], &x->ktmp[i]);
      done = 0;
    } else {
      size_t i = x->reg0;
      while (i < x->reg1 && x->done[i])
        i++;
      if (i < x->reg1) return 0; /* blocked on a flag */
      if (x->reg1 == rp->nops) { /* kernel finished */
        free(x->done);
        free(x->kstep);
        free(x->ktmp);
        break;
      }
      x->reg0 = x->reg1 + 1; /* pass the SYNC */
      sim_region(rp, x);
      done = 0;
    }
    if (!done) return 1;
    break;
  }
  case TP_OP_WRITE_FLAG: m->flags[o->peer][o->slot] = sim_val(m, o, x->iter); break;
  case TP_OP_WAIT_FLAG:
    if (!sim_flag_ok(m, r, o, x->iter)) return 0;
    break;
  case TP_OP_RECORD: m->rec_done[r][x->rec] = 1; break;
  case TP_OP_STAMP:
  case TP_OP_PACE:
  case TP_OP_RESERVE: break; /* the degraded-link emulation only delays: see tsim */
  case TP_OP_WAIT_EVENT:
    if (x->rec >= 0 && !m->rec_done[r][x->rec]) return 0;
    break;
  case TP_OP_COPY:
  case TP_OP_SUM: done = sim_data_step(m, o, &x->step, &x->tmp); break;
  case SIM_XWAIT:
    m->xwaiting[x->xid] = 1;
    if (!m->xdone[x->xid]) return 0;
    break;
  case SIM_XCOPY:
    if (!m->xwaiting[x->xid]) return 0; /* its stream has not reached it */
    done = sim_data_step(m, o, &x->step, &x->tmp);
    if (done) m->xdone[x->xid] = 1;
    break;
  default: fprintf(stderr, "sim: unknown op %d\n", x->kind); exit(2);
  }
  if (done) q->head++;
  return 1;
}

/* Runs the simulation to the end; returns 0, or -1 on a stall (printed). */
static int sim_run(struct sim *m, const char *what) {
  for (;;) {
    int cand_r[AR_MAX_GPUS * (2 * AR_MAX_GPUS + 2)], cand_q[AR_MAX_GPUS * (2 * AR_MAX_GPUS + 2)];
    double w[AR_MAX_GPUS * (2 * AR_MAX_GPUS + 2)], tot = 0;
    int nc = 0, left = 0;
    for (int r = 0; r < m->n; r++)
      for (int qi = 0; qi < m->nq[r]; qi++)
        if (m->q[r][qi].head < m->q[r][qi].n) {
          left = 1;
          cand_r[nc] = r;
          cand_q[nc] = qi;
          w[nc] = m->weight[r] * m->qweight[r][qi];
          tot += w[nc++];
        }
    if (!left) return 0;
    /* try queues in a weighted random order until one moves */
    int moved = 0;
    while (nc && !moved) {
      int j = sim_pick(sim_rand(m), w, nc, tot);
      moved = sim_step(m, cand_r[j], cand_q[j]);
      if (!moved) {
        tot -= w[j];
        cand_r[j] = cand_r[nc - 1];
        cand_q[j] = cand_q[nc - 1];
        w[j] = w[nc - 1];
        nc--;
      }
    }
    if (!moved) {
      printf("STALL %s:", what);
      for (int r = 0; r < m->n; r++)
        for (int qi = 0; qi < m->nq[r]; qi++) {
          struct sim_queue *q = &m->q[r][qi];
          if (q->head < q->n)
            printf(" r%d.s%d@%zu(kind %d it %d round %d)", r, qi, q->head, q->it[q->head].kind,
                   q->it[q->head].iter, q->it[q->head].op ? q->it[q->head].op->round : -1);
        }
      printf("\n");
      return -1;
    }
  }
}

/* Simulates one program; returns the number of wrong elements (or -1 for a stall). */
long sim_one(const struct tp_prog *p, size_t nelem, int fifo, int xq, uint64_t seed,
                    const char *what) {
  struct sim *m = calloc(1, sizeof(*m));
  m->p = p;
  m->n = p->n;
  m->iters = 3;
  m->fifo = fifo;
  m->xq = xq;
  m->nelem = nelem;
  m->rng = seed * 0x9E3779B97F4A7C15ull + 1;
  for (int r = 0; r < m->n; r++) {
    m->data[r] = calloc(nelem + 1, sizeof(float));
    m->scratch[r] = calloc(p->rank[r].scratch_bytes / 4 + 1, sizeof(float));
    for (int it = 0; it < m->iters; it++)
      m->result[it][r] = calloc(nelem + 1, sizeof(float));
    /* some seeds make one rank (or a few) much slower: a straggler, a busy GPU */
    m->weight[r] = (seed % 3 == 1 && sim_rand(m) % 3 == 0) ? 0.02 : 1.0;
  }
  sim_enqueue(m);
  /* other seeds make single queues much slower than their rank's others: a copy engine
   * behind while the same GPU's kernels go on (a program must not rely on either) */
  for (int r = 0; r < m->n; r++)
    for (int qi = 0; qi < m->nq[r]; qi++)
      m->qweight[r][qi] = seed % 3 == 2 && sim_rand(m) % 3 == 0 ? 0.02 : 1.0;
  long wrong = sim_run(m, what) ? -1 : 0;
  if (m->outside) {
    printf("OUTSIDE %s: an op of round %d on stream %d leaves its buffers\n", what,
           m->outside->round, m->outside->stream);
    wrong = -1;
  }
  for (int it = 0; wrong >= 0 && it < m->iters; it++)
    for (int r = 0; r < m->n; r++)
      for (size_t i = 0; i < nelem; i++)
        if (m->result[it][r][i] != expected(m->n, i + SIM_ITER_SHIFT * (size_t)it)) {
          if (!wrong)
            printf("WRONG %s: iter %d rank %d elem %zu: %g, want %g\n", what, it, r, i,
                   m->result[it][r][i], expected(m->n, i + SIM_ITER_SHIFT * (size_t)it));
          wrong++;
        }
  for (int r = 0; r < m->n; r++) {
    free(m->data[r]);
    free(m->scratch[r]);
    for (int it = 0; it < m->iters; it++)
      free(m->result[it][r]);
    for (int qi = 0; qi < 2 * AR_MAX_GPUS + 2; qi++)
      free(m->q[r][qi].it);
    free(m->rec_done[r]);
  }
  free(m->xdone);
  free(m->xwaiting);
  free(m);
  return wrong;
}

/* --phases marks (lower_prog_round_ends): checks that where rank r marks the end of round k, its
 * stream 0 (where the transports record the mark) is already past every op of round k on every
 * stream of r (followed through events: vector clocks in program order, the order enqueue
 * issues them), has waited for every flag a peer writes into r's DATA/DONE words in round k,
 * and (sm) every block is past the round: the mark follows a grid barrier unless the round is
 * r's last. The dataflow ring (p->dataflow) never joins its copy streams before the end: there
 * a round ends after its last apply, so only stream 0's ops and the DATA words count, and the
 * last round must have joined every stream. Every program must end with stream 0 past every
 * op of every stream (the harness's next writes follow them). Prints the first violation;
 * returns 1 when every mark is sound, else 0. */
int marks_ok(const struct tp_prog *p, const char *what) {
  int nr = p->nrounds, ok = 1;
  size_t *at = calloc(nr ? nr : 1, sizeof(size_t));
  for (int r = 0; r < p->n && ok; r++) {
    const struct tp_rank_prog *rp = &p->rank[r];
    int ns = rp->nstreams, ne = rp->nevents ? rp->nevents : 1;
    size_t *vc = calloc((size_t)ns * ns, sizeof(size_t)); /* vc[s * ns + t]: ops of t seen by s */
    size_t *ev = calloc((size_t)ne * ns, sizeof(size_t));
    size_t *last = calloc((size_t)nr * ns, sizeof(size_t)); /* last op (+1) of round k on s */
    uint32_t *need = calloc((size_t)nr * p->nslots, sizeof(uint32_t)); /* peers' DATA/DONE */
    uint32_t *got = calloc((size_t)nr * p->nslots, sizeof(uint32_t));  /* waited on stream 0 */
    int data0 = p->dataflow == 1 ? TP_DF_DATA : p->dataflow == 3 ? 2 * p->n : p->n; /* DATA/DONE */
    lower_prog_round_ends(p, r, at);
    for (int q = 0; q < p->n; q++)
      for (size_t i = 0; q != r && i < p->rank[q].nops; i++) {
        const struct tp_op *o = &p->rank[q].ops[i];
        if (o->kind == TP_OP_WRITE_FLAG && o->peer == r && o->slot >= data0 &&
            o->val > need[(size_t)o->round * p->nslots + o->slot])
          need[(size_t)o->round * p->nslots + o->slot] = o->val;
      }
    int seen = -1; /* the last round with ops so far */
    for (size_t i = 0; i < rp->nops && ok; i++) {
      const struct tp_op *o = &rp->ops[i];
      size_t *me = vc + (size_t)o->stream * ns;
      if (o->kind == TP_OP_WAIT_EVENT)
        for (int t = 0; t < ns; t++)
          if (ev[(size_t)o->event * ns + t] > me[t]) me[t] = ev[(size_t)o->event * ns + t];
      me[o->stream] = i + 1;
      if (o->kind == TP_OP_RECORD) memcpy(ev + (size_t)o->event * ns, me, ns * sizeof(size_t));
      if (o->kind == TP_OP_WAIT_FLAG && o->stream == 0 &&
          o->val > got[(size_t)o->round * p->nslots + o->slot])
        got[(size_t)o->round * p->nslots + o->slot] = o->val;
      if (o->round != seen && o->round < seen) {
        printf("FAIL %s: rank %d: round %d's ops are not contiguous\n", what, r, o->round);
        ok = 0;
      }
      seen = o->round;
      last[(size_t)o->round * ns + o->stream] = i + 1;
      for (int k = 0; k < nr && ok; k++) {
        if (at[k] != i + 1) continue;
        for (int t = 0; t < ns && ok; t++)
          if (vc[t] < last[(size_t)k * ns + t] && (!p->dataflow || t == 0 || k == nr - 1)) {
            printf("FAIL %s: rank %d: round %d marked after op %zu, before op %zu of stream %d\n",
                   what, r, k, i, last[(size_t)k * ns + t] - 1, t);
            ok = 0;
          }
        for (int sl = data0; sl < p->nslots && ok; sl++)
          if (need[(size_t)k * p->nslots + sl] > got[(size_t)k * p->nslots + sl]) {
            printf("FAIL %s: rank %d: round %d marked before its wait for flag %d >= %u\n", what,
                   r, k, sl, need[(size_t)k * p->nslots + sl]);
            ok = 0;
          }
        if (ok && p->mode == TP_MODE_SM && at[k] < rp->nops && o->kind != TP_OP_SYNC) {
          printf("FAIL %s: rank %d: round %d marked after op %zu, not after a grid barrier\n",
                 what, r, k, i);
          ok = 0;
        }
      }
    }
    for (int t = 0; t < ns && ok; t++) { /* the end joins every stream */
      size_t total = 0;
      for (size_t i = 0; i < rp->nops; i++)
        if (rp->ops[i].stream == t) total = i + 1;
      if (vc[t] < total) {
        printf("FAIL %s: rank %d: the program ends before stream 0 joins op %zu of stream %d\n",
               what, r, total - 1, t);
        ok = 0;
      }
    }
    for (int k = 0; k < nr && ok; k++) { /* every round with ops is marked, and only those */
      int has = 0;
      for (int t = 0; t < ns; t++)
        has |= last[(size_t)k * ns + t] > 0;
      if (has != (at[k] > 0)) {
        printf("FAIL %s: rank %d: round %d %s\n", what, r, k, has ? "is not marked" : "marked idle");
        ok = 0;
      }
    }
    free(vc);
    free(ev);
    free(last);
    free(need);
    free(got);
  }
  free(at);
  return ok;
}
