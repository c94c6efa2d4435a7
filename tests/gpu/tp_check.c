/* tp_check: focused checks of the ce and sm transports, independent of the harness.
 *
 *   tp_check sim [--ranks-max N] [--seeds K] [--algos LIST] [--xq 0|1|2]
 *       CPU only: compiles every schedule (registry + synthetic ones below) for n = 2..N into
 *       ce push (pipeline 1, 2, 3) and sm programs and runs them in a
 * simulator that interleaves ranks and streams at random (copies split into read and write steps,
 * sm blocks unordered between barriers, one rank made slow at times), also with every stream of a
 *       rank squeezed into one FIFO (worst-case hardware queue aliasing), three back-to-back
 *       iterations with the data re-initialised between them as the harness does, host threads
 *       enqueueing in a random interleaving. Any race the protocol allows shows up as a wrong
 *       sum; any deadlock as a stall. --xq 1|2 (an experiment, FIFO runs only): a copy between
 *       GPUs executes in the queue of the GPU owning its source (1) or destination (2).
 *       Also with degraded GPUs (the last x2; rank 0 x1.5 and the last x3), whose programs
 *       carry the emulation's STAMP and PACE ops (no-ops here), then the timed checks below.
 *   tp_check tsim [--algos LIST] [--ranks N] [--sizes LIST] [--degrade R:F[,R:F]]
 *                 [--segments K] [--transport ce|sm|nccl-p2p] [--pipelines P]
 *                 [--ring-batch BYTES] [--ring-streams S]
 *       CPU only: a timed simulation (every dependency of a program, the emulation's paces,
 *       fixed costs per op, each GPU's link shared by its copies; tsim_hw, or TSIM_COSTS:
 *       "copy_us=10,flag_us=15,sum_bw=0.46e12" overrides those fields) of one iteration,
 *       healthy and degraded (healthy bandwidth 400 GB/s), with OPTCC's lower bound. `sim`
 *       ends with its checks: the self-test's rates, the shared budget's split, a degraded
 *       ring, OPTCC. `sim` runs the ce push cases twice: with the default programs and with
 *       the flow program (tp_flow.cu; --program flow selects it for tsim, dump, gpu and time,
 *       as AR_CE_PROGRAM=flow does in the ce transport).
 *       --ring-batch / --ring-streams (tsim, dump, gpu, time): the dataflow ring's
 *       automatic mini-batch size (default 32M) and copy streams (default 2), as
 *       AR_CE_RING_BATCH (MiB; it wins when set) and AR_CE_RING_STREAMS set them in the ce
 *       transport. `sim` also puts every listed schedule flagged AR_SCHED_PIPELINED through
 *       sim_dataflow (the dataflow ring program: pipelines 0-64, 1-3 copy streams).
 *   tp_check gpu --transport ce|sm [--algos LIST] [--sizes LIST] [--dtypes LIST]
 *                [--pipelines LIST] [--iters N] [--ranks N] [--degrade R:F[,R:F]] [--marks 1]
 *       One pthread per GPU; each iteration re-initialises data from a pristine copy on the
 *       rank's stream and enqueues the AllReduce, iterations back to back with no host sync;
 *       every iteration's result is checked (sizes up to 64 MiB; the last one above).
 *       --degrade: every job emulates those GPUs slowed (OPTCC built for them), after the
 *       healthy bandwidth is measured; the results must not change (also for `time`).
 *       A pipeline of 0 is the transport's choice; each line says the count used (used=K).
 *       --marks 1: the last iteration passes --phases' round marks (struct tp_marks): each
 *       rank must mark exactly the rounds it takes part in, in order, between events around
 *       the enqueue (sm: clock stamps no later than that span); rank 0's round ends printed.
 *   tp_check time --transport ce|sm [--algos ..] [--sizes ..] [--pipelines ..] [--iters N]
 *       Back-to-back iterations between two host barriers: mean time per AllReduce.
 *   tp_check dump [--algos A] [--ranks N] [--sizes S] [--pipelines P] [--transport ce|sm]
 *       CPU only: prints every rank's compiled program (the first algorithm and size listed).
 *   tp_check reduce: bandwidth of ar_reduce_launch / ar_sum_launch on GPU 0.
 *   tp_check bw: copy-engine bandwidth, pull vs push, 1/2/4 streams, one pair and all.
 * Sizes: bytes with K/M/G, or a count of elements with a trailing e (1000003e). Prints one
 * line per case and ends with "N passed, N failed"; exit 1 on any failure. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ar.h"
#include "model.h"
#include "tp_degrade.h"
#include "tp_flags.h"
#include "tp_p2p_hold.h"
#include "tp_prog.h"

static int npass, nfail;

/* ------------------------------------------------------------------ schedules */

/* x-pair: pairs exchange with a copy one way and a reduce the other in the same round (both
 * sides read what they overwrite), then the pair leaders reduce into two leaders (several
 * reduces into one chunk in a round) which copy to everyone (multi-port). Even n. */
static ar_status build_x_pair(int n, struct ar_schedule *s) {
  if (n % 2) return sched_fail(s, AR_ERR_UNSUPPORTED, "x-pair needs even n");
  AR_CHECK(sched_init(s, "x-pair", n, 2));
  for (int a = 0; a < n; a += 2) {
    AR_CHECK(sched_add(s, 0, AR_COPY, a, a + 1, 0, 2));
    AR_CHECK(sched_add(s, 0, AR_REDUCE, a + 1, a, 0, 2));
    AR_CHECK(sched_add(s, 1, AR_COPY, a, a + 1, 0, 2));
  }
  if (n > 2) {
    for (int a = 2; a < n; a += 2)
      AR_CHECK(sched_add(s, 2, AR_REDUCE, a, 0, 0, 1));
    for (int a = 0; a < n; a += 2)
      if (a != 2) AR_CHECK(sched_add(s, 2, AR_REDUCE, a, 2, 1, 1));
    for (int r = 0; r < n; r++) {
      if (r != 0) AR_CHECK(sched_add(s, 3, AR_COPY, 0, r, 0, 1));
      if (r != 2) AR_CHECK(sched_add(s, 3, AR_COPY, 2, r, 1, 1));
    }
  }
  s->ports = n - 1;
  return AR_OK;
}

/* x-precond: a precondition among ranks 0..n-2 (a reduce chain over 5 chunks while the
 * straggler n-1 is away), then the straggler and rank n-2 exchange reduces of the whole
 * vector (each overwrites what the other reads), then n-2 copies to the rest. n >= 2. */
static ar_status build_x_precond(int n, struct ar_schedule *s) {
  AR_CHECK(sched_init(s, "x-precond", n, 5));
  int k = 0;
  for (; k < n - 2; k++)
    AR_CHECK(sched_add(s, k, AR_REDUCE, k, k + 1, 0, 5));
  AR_CHECK(sched_add(s, k, AR_REDUCE, n - 2, n - 1, 0, 5));
  AR_CHECK(sched_add(s, k, AR_REDUCE, n - 1, n - 2, 0, 5));
  for (int r = 0; r < n - 2; r++)
    AR_CHECK(sched_add(s, k + 1, AR_COPY, n - 2, r, 0, 5));
  s->nprecond = n - 2;
  s->straggler = n - 1;
  s->ports = n > 3 ? n - 2 : 1;
  return AR_OK;
}

/* x-rd: recursive doubling with every step sent as two transfers (chunks 0 and 1..2 of 3):
 * both partners overwrite what the other reads. Power-of-2 n. */
static ar_status build_x_rd(int n, struct ar_schedule *s) {
  if (!ar_is_pow2(n)) return sched_fail(s, AR_ERR_UNSUPPORTED, "x-rd needs a power of 2");
  AR_CHECK(sched_init(s, "x-rd", n, 3));
  for (int d = 1, k = 0; d < n; d <<= 1, k++)
    for (int r = 0; r < n; r++) {
      AR_CHECK(sched_add(s, k, AR_REDUCE, r, r ^ d, 0, 1));
      AR_CHECK(sched_add(s, k, AR_REDUCE, r, r ^ d, 1, 2));
    }
  return AR_OK;
}

/* x-ring-rev: async-ring with every rank r renamed n-1-r (the ring runs r -> r-1): a ring
 * that is not the identity layout, for the dataflow ring program's peers. Any n >= 2. */
static ar_status build_x_ring_rev(int n, struct ar_schedule *s) {
  struct ar_params p;
  ar_params_init(&p, n);
  AR_CHECK(ar_build(ar_algo_find("async-ring"), &p, s));
  int perm[AR_MAX_GPUS];
  for (int r = 0; r < n; r++)
    perm[r] = n - 1 - r;
  sched_relabel(s, perm);
  snprintf(s->algo, sizeof(s->algo), "x-ring-rev");
  return AR_OK;
}

/* x-rd-pipe: recursive doubling flagged AR_SCHED_PIPELINED: not a ring, so the ce push
 * program must fall back to the per-round one. Power-of-2 n. */
static ar_status build_x_rd_pipe(int n, struct ar_schedule *s) {
  AR_CHECK(build_x_rd(n, s));
  snprintf(s->algo, sizeof(s->algo), "x-rd-pipe");
  s->flags |= AR_SCHED_PIPELINED;
  return AR_OK;
}

/* x-late-copy (n = 3, one chunk): 0 -> 1 reduce, 1 -> 2 reduce (2 has the sum), 0 -> 1 copy
 * (a wasted transfer: 0 reads its data and 1's is overwritten), then 2 copies the sum to 0
 * and 1. No chain of transfers orders 0's read in round 2 before 2's copy into 0 in round 3,
 * nor 0's copy into 1 before 2's: only the receivers' RECV (the ce flow program) does. */
static ar_status build_x_late_copy(int n, struct ar_schedule *s) {
  if (n != 3) return sched_fail(s, AR_ERR_UNSUPPORTED, "x-late-copy: 3 ranks only");
  AR_CHECK(sched_init(s, "x-late-copy", n, 1));
  s->ports = 2; /* round 3: 2 sends to both */
  AR_CHECK(sched_add(s, 0, AR_REDUCE, 0, 1, 0, 1));
  AR_CHECK(sched_add(s, 1, AR_REDUCE, 1, 2, 0, 1));
  AR_CHECK(sched_add(s, 2, AR_COPY, 0, 1, 0, 1));
  AR_CHECK(sched_add(s, 3, AR_COPY, 2, 0, 0, 1));
  return sched_add(s, 3, AR_COPY, 2, 1, 0, 1);
}

static const char *const synth_names[] = {"x-pair", "x-precond", "x-rd", "x-ring-rev",
                                          "x-rd-pipe", "x-late-copy"};
#define NSYNTH 6

/* Builds algorithm `name` for n ranks: a synthetic one or a registry entry (OPTCC gets one
 * degraded GPU, optcc-multi two). Returns AR_OK, AR_ERR_UNSUPPORTED (skip) or an error. */
static ar_status build_sched(const char *name, int n, struct ar_schedule *s) {
  memset(s, 0, sizeof(*s));
  ar_status st;
  if (!strcmp(name, "x-pair"))
    st = build_x_pair(n, s);
  else if (!strcmp(name, "x-precond"))
    st = build_x_precond(n, s);
  else if (!strcmp(name, "x-rd"))
    st = build_x_rd(n, s);
  else if (!strcmp(name, "x-ring-rev"))
    st = n > AR_MAX_GPUS ? AR_ERR_UNSUPPORTED : build_x_ring_rev(n, s);
  else if (!strcmp(name, "x-rd-pipe"))
    st = build_x_rd_pipe(n, s);
  else if (!strcmp(name, "x-late-copy"))
    st = build_x_late_copy(n, s);
  else {
    const struct ar_algo *a = ar_algo_find(name);
    if (!a) {
      snprintf(s->reason, sizeof(s->reason), "unknown algorithm");
      return AR_ERR_INVALID;
    }
    struct ar_params p;
    ar_params_init(&p, n);
    if (a->flags & AR_ALGO_DEGRADE_AWARE) {
      p.ndegraded = strstr(name, "multi") && n > 3 ? 2 : 1;
      for (int i = 0; i < p.ndegraded; i++) {
        p.degraded[i] = n - 1 - i;
        p.factor[i] = 2.0;
      }
    }
    return ar_build(a, &p, s);
  }
  if (st == AR_OK) st = sched_finish(s);
  if (st != AR_OK) sched_free(s);
  return st;
}

/* Fills names[] with the algorithms of a comma list ("all": registry + synthetic); returns
 * the count. */
static int algo_list(const char *list, const char **names, int max) {
  int cnt = 0;
  if (!list || !strcmp(list, "all")) {
    size_t na;
    const struct ar_algo *const *all = ar_algo_all(&na);
    for (size_t i = 0; i < na && cnt < max; i++)
      if (all[i]->build) names[cnt++] = all[i]->name;
    for (int i = 0; i < NSYNTH && cnt < max; i++)
      names[cnt++] = synth_names[i];
    return cnt;
  }
  char *dup = strdup(list), *save = NULL;
  for (char *t = strtok_r(dup, ",", &save); t && cnt < max; t = strtok_r(NULL, ",", &save))
    names[cnt++] = strdup(t); /* lives until exit */
  free(dup);
  return cnt;
}

/* ------------------------------------------------------------------ data pattern */

/* Small integers, different per rank and element: sums are exact in bf16 and fp16 too. */
static float pattern(int r, size_t i) {
  return (float)((int)((i * 7 + (size_t)r * 13 + (i >> 5) * 3) % 17) - 8);
}
static float expected(int n, size_t i) {
  float s = 0;
  for (int r = 0; r < n; r++)
    s += pattern(r, i);
  return s;
}

/* ------------------------------------------------------------------ simulator */

enum {
  SIM_REINIT = 100,
  SIM_CAPTURE,
  SIM_KERNEL, /* harness items on stream 0 */
  SIM_XCOPY,
  SIM_XWAIT
}; /* --xq: a copy run by another GPU's queue, and its issuer's wait */

struct sim_item {
  const struct tp_op *op; /* NULL for harness items */
  int kind, iter;
  int rec;    /* RECORD: its record id; WAIT_EVENT: the captured record id (-1 none) */
  int step;   /* COPY/SUM progress: 0 read A, 1 write A, 2 read B, 3 write B */
  float *tmp; /* values read, awaiting their write */
  /* SIM_KERNEL (sm): the program runs region by region */
  size_t reg0, reg1; /* current region [reg0, reg1) of the rank's ops */
  unsigned char *done;
  int *kstep;
  float **ktmp;
  int xid; /* SIM_XCOPY / SIM_XWAIT pair */
};

struct sim_queue {
  struct sim_item *it;
  size_t n, head;
};

struct sim {
  const struct tp_prog *p;
  int n, iters, fifo, xq;
  const struct tp_op *outside; /* the first copy or sum outside its buffers, or NULL */
  unsigned char *xdone; /* per cross copy: done */
  int *xwaiting;        /* per cross copy: its issuer's queue has reached the wait */
  int nx;
  size_t nelem;
  float *data[AR_MAX_GPUS], *scratch[AR_MAX_GPUS], *result[4][AR_MAX_GPUS];
  uint32_t flags[AR_MAX_GPUS][2 * AR_MAX_GPUS];
  struct sim_queue q[AR_MAX_GPUS][2 * AR_MAX_GPUS + 2];
  int nq[AR_MAX_GPUS];
  unsigned char *rec_done[AR_MAX_GPUS];
  int nrec[AR_MAX_GPUS];
  double weight[AR_MAX_GPUS];
  uint64_t rng;
};

/* Returns a pseudo-random 64-bit number (xorshift). */
static uint64_t sim_rand(struct sim *m) {
  m->rng ^= m->rng << 13;
  m->rng ^= m->rng >> 7;
  m->rng ^= m->rng << 17;
  return m->rng;
}

static float *sim_ptr(struct sim *m, const struct tp_ref *x) {
  return (x->buf == TP_BUF_DATA ? m->data[x->rank] : m->scratch[x->rank]) + x->off / 4;
}

static void sim_push(struct sim_queue *q, struct sim_item it) {
  q->it = realloc(q->it, (q->n + 1) * sizeof(*q->it));
  q->it[q->n++] = it;
}

/* One host-side call of a rank: a program op of an iteration, or a harness item. */
struct sim_call {
  const struct tp_op *op;
  int kind, iter;
};

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
  case SIM_REINIT:
    for (size_t i = 0; i < m->nelem; i++)
      m->data[r][i] = pattern(r, i);
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
          w[nc] = m->weight[r];
          tot += w[nc++];
        }
    if (!left) return 0;
    /* try queues in a weighted random order until one moves */
    int moved = 0;
    while (nc && !moved) {
      double pick = (double)(sim_rand(m) % 1000000) / 1e6 * tot;
      int j = 0;
      while (j < nc - 1 && pick >= w[j])
        pick -= w[j++];
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
static long sim_one(const struct tp_prog *p, size_t nelem, int fifo, int xq, uint64_t seed,
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
  long wrong = sim_run(m, what) ? -1 : 0;
  if (m->outside) {
    printf("OUTSIDE %s: an op of round %d on stream %d leaves its buffers\n", what,
           m->outside->round, m->outside->stream);
    wrong = -1;
  }
  for (int it = 0; wrong >= 0 && it < m->iters; it++)
    for (int r = 0; r < m->n; r++)
      for (size_t i = 0; i < nelem; i++)
        if (m->result[it][r][i] != expected(m->n, i)) {
          if (!wrong)
            printf("WRONG %s: iter %d rank %d elem %zu: %g, want %g\n", what, it, r, i,
                   m->result[it][r][i], expected(m->n, i));
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

/* --phases marks (tp_prog_round_ends): checks that where rank r marks the end of round k, its
 * stream 0 (where the transports record the mark) is already past every op of round k on every
 * stream of r (followed through events: vector clocks in program order, the order enqueue
 * issues them), has waited for every flag a peer writes into r's DATA/DONE words in round k,
 * and (sm) every block is past the round: the mark follows a grid barrier unless the round is
 * r's last. The dataflow ring (p->dataflow) never joins its copy streams before the end: there
 * a round ends after its last apply, so only stream 0's ops and the DATA words count, and the
 * last round must have joined every stream. Every program must end with stream 0 past every
 * op of every stream (the harness's next writes follow them). Prints the first violation;
 * returns 1 when every mark is sound, else 0. */
static int marks_ok(const struct tp_prog *p, const char *what) {
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
    tp_prog_round_ends(p, r, at);
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

/* ce with pipeline 0 (the transport's choice, --pipeline 0) on ring, rhd and stragglar: with
 * the automatic batch lowered to 256 bytes, small vectors are split as big ones are at 8 MiB
 * (up to 8 mini-batches per transfer, per size); the sums must be right, nothing may stall.
 * Then, at the real 8 MiB, what ring on 4 ranks chooses per size (compiled only). */
static void sim_auto_pipeline(int nmax, int seeds) {
  static const char *const names[] = {"ring", "rhd", "stragglar"};
  static const size_t sizes[] = {67, 1003, 4099};
  size_t keep = tp_auto_batch_bytes, keep_flow = tp_flow_batch_bytes;
  tp_auto_batch_bytes = 256;
  tp_flow_batch_bytes = 256;
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
        if (tp_prog_build(&s, sizes[si], 4, TP_MODE_CE, 0, NULL, &p, reason, sizeof(reason)) !=
            AR_OK) {
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
        tp_prog_free(p);
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
  tp_auto_batch_bytes = keep;
  tp_flow_batch_bytes = keep_flow;
  /* the flow program's real rule: the largest chunk in pieces of at most 128 MiB, at most 16
   * (ring, n = 4: chunks of a quarter); stragglar (AR_SCHED_SUM_FORWARD, n = 4: chunks of a
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
  tp_ce_program = 2;
  for (size_t i = 0; i < sizeof(flow_rule) / sizeof(flow_rule[0]); i++) {
    struct ar_schedule fs;
    if (build_sched(flow_rule[i].algo, 4, &fs) != AR_OK) continue;
    struct tp_prog *p = NULL;
    char reason[256] = "";
    ar_status st = tp_prog_build(&fs, flow_rule[i].bytes / 4, 4, TP_MODE_CE, 0, NULL, &p, reason,
                                 sizeof(reason));
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
    tp_prog_free(p);
    sched_free(&fs);
  }
  tp_ce_program = 0;
  /* the per-round program's real rule: about 8 MiB a mini-batch, 1 to 8; ring on 4 ranks
   * moves quarter vectors */
  static const struct {
    size_t bytes;
    int want;
  } real[] = {{1u << 20, 1}, {64u << 20, 2}, {256u << 20, 8}, {1u << 30, 8}};
  struct ar_schedule s;
  if (build_sched("ring", 4, &s) != AR_OK) return;
  for (size_t i = 0; i < sizeof(real) / sizeof(real[0]); i++) {
    struct tp_prog *p = NULL;
    char reason[256] = "";
    ar_status st =
        tp_prog_build(&s, real[i].bytes / 4, 4, TP_MODE_CE, 0, NULL, &p, reason, sizeof(reason));
    int got = st == AR_OK ? p->batches_max : -1;
    if (got == real[i].want) {
      printf("ok   ring n=4 %zu B ce pipe=0: %d mini-batches\n", real[i].bytes, got);
      npass++;
    } else {
      printf("FAIL ring n=4 %zu B ce pipe=0: %d mini-batches, want %d (%s)\n", real[i].bytes, got,
             real[i].want, reason);
      nfail++;
    }
    tp_prog_free(p);
  }
  sched_free(&s);
}

/* The dataflow ring's mini-batches for nelem elements in n chunks (tp_prog.h): pipeline K > 0,
 * or for 0 the largest chunk over tp_ring_batch_bytes within 4..64; at most the smallest
 * chunk's 64-element blocks; at least 1. Written from the rule, not from the compiler. */
static int df_batches(size_t nelem, int n, int pipe) {
  size_t least = nelem / (size_t)n, most = (nelem + n - 1) / (size_t)n;
  size_t nb = (size_t)pipe;
  if (pipe <= 0) {
    nb = most * 4 / tp_ring_batch_bytes;
    nb = nb < 4 ? 4 : nb > 64 ? 64 : nb;
  }
  size_t units = (least + 63) / 64;
  if (nb > units) nb = units;
  return nb < 1 ? 1 : (int)nb;
}

/* ce push for schedules flagged AR_SCHED_PIPELINED (async-ring, x-ring-rev, x-rd-pipe): with
 * every chunk non-empty a ring gets the dataflow program (p->dataflow) with the mini-batches
 * of df_batches, other schedules and degraded jobs the per-round one; pipelines 0 (at 256-byte
 * batches, so small vectors split as 8 GiB ones do) 1 2 3 4 8 64, 1 to 3 copy streams, odd
 * sizes; marks sound, sums right, nothing stalls or leaves its buffers. Then the real rule at
 * 32 MiB for async-ring on 4 and 2 ranks (compiled only). */
static void sim_dataflow(int nmax, int seeds, const char *algos) {
  const char *names[64];
  int na = algo_list(algos, names, 64), real = 0;
  static const size_t sizes[] = {5, 67, 1003, 4099, 12345};
  static const int pipes[] = {0, 1, 2, 3, 4, 8, 64};
  size_t keep = tp_ring_batch_bytes;
  int keep_ns = tp_ring_streams;
  tp_ring_batch_bytes = 256;
  for (int a = 0; a < na; a++)
    for (int n = 2; n <= nmax; n++) {
      struct ar_schedule s;
      if (build_sched(names[a], n, &s) != AR_OK) continue;
      if (!(s.flags & AR_SCHED_PIPELINED)) {
        sched_free(&s);
        continue;
      }
      int ring = strcmp(names[a], "async-ring") == 0 || strcmp(names[a], "x-ring-rev") == 0;
      real |= strcmp(names[a], "async-ring") == 0;
      long bad = 0;
      int cases = 0, most = 0, want_most = 0;
      struct tp_degrade dg1 = {1, {n - 1}, {2.0}, 1e9};
      for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
        for (size_t pi = 0; pi <= sizeof(pipes) / sizeof(pipes[0]); pi++)
          for (int ns = 1; ns <= 3; ns++) {
            int degraded = pi == sizeof(pipes) / sizeof(pipes[0]); /* last: emulation, p=2 */
            int pipe = degraded ? 2 : pipes[pi];
            if (degraded && ns > 1) continue;
            tp_ring_streams = ns;
            struct tp_prog *p;
            char reason[256] = "", what[200];
            snprintf(what, sizeof(what), "%s n=%d nelem=%zu ce pipe=%d streams=%d%s", names[a], n,
                     sizes[si], pipe, ns, degraded ? " degraded n-1" : "");
            if (tp_prog_build(&s, sizes[si], 4, TP_MODE_CE, pipe, degraded ? &dg1 : NULL, &p,
                              reason, sizeof(reason)) != AR_OK) {
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
            tp_prog_free(p);
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
  tp_ring_batch_bytes = keep;
  tp_ring_streams = keep_ns;
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
    ar_status st = tp_prog_build(&s, rule[i].bytes / 4, 4, TP_MODE_CE, rule[i].pipe, NULL, &p,
                                 reason, sizeof(reason));
    int got = st == AR_OK ? p->batches_max : -1, df = st == AR_OK && p->dataflow;
    int ok = got == rule[i].want && df;
    printf("%s async-ring n=%d %zu B ce pipe=%d: %s, %d mini-batches (want %d)%s%s\n",
           ok ? "ok  " : "FAIL", rule[i].n, rule[i].bytes, rule[i].pipe,
           df ? "dataflow" : "per-round", got, rule[i].want, st == AR_OK ? "" : ": ",
           st == AR_OK ? "" : reason);
    ok ? npass++ : nfail++;
    tp_prog_free(p);
    sched_free(&s);
  }
}

/* The sim command. */
static int cmd_sim(int nmax, int seeds, const char *algos, int xq) {
  const char *names[64];
  int na = algo_list(algos, names, 64);
  static const size_t sizes[] = {1, 5, 67, 1003, 4099};
  for (int a = 0; a < na; a++)
    for (int n = 2; n <= nmax; n++) {
      struct ar_schedule s;
      ar_status st = build_sched(names[a], n, &s);
      if (st == AR_ERR_UNSUPPORTED) continue;
      if (st != AR_OK) {
        printf("SKIP %s n=%d: %s (%s)\n", names[a], n, ar_status_str(st), s.reason);
        continue;
      }
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
      struct tp_degrade dg1 = {1, {n - 1}, {2.0}, 1e9}, dg2 = {2, {0, n - 1}, {1.5, 3.0}, 1e9};
      const struct tp_degrade *dgs[] = {NULL, NULL, NULL, NULL, &dg1, n >= 3 ? &dg2 : &dg1, &dg1};
      for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
        for (int variant = 0; variant < 7; variant++) {
          /* ce push p=1,2,3, sm; degraded: ce push p=1, ce push p=2, sm */
          int mode = variant == 3 || variant == 6 ? TP_MODE_SM : TP_MODE_CE;
          int pipe = variant == 5 ? 2 : variant == 4 ? 1 : variant + 1;
          const struct tp_degrade *dg = dgs[variant];
          struct tp_prog *p;
          char reason[256] = "", what[160];
          st = tp_prog_build(&s, sizes[si], 4, mode, pipe, dg, &p, reason, sizeof(reason));
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
          tp_prog_free(p);
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

/* ------------------------------------------------------------------ GPU runs */

#define CU(call)                                                                                   \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) {                                                                       \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));       \
      exit(2);                                                                                     \
    }                                                                                              \
  } while (0)

#define CAPTURE_MAX (64u << 20) /* keep every iteration's result up to this size */

struct gpu {
  int n;
  struct tp_world w;
  cudaStream_t stream[AR_MAX_GPUS];
  void *pristine[AR_MAX_GPUS];
  void *capture[AR_MAX_GPUS]; /* iters x CAPTURE_MAX */
  int iters_max;
  pthread_barrier_t bar;
};

struct job_run {
  struct gpu *g;
  const struct tp_ops *tp;
  struct tp_ctx *ctx;
  struct tp_job job;
  int iters, reinit, capture;
  /* --marks: the pointers the job's marks array holds (set only around the last enqueue), each
   * rank's marks, and events around that enqueue */
  struct tp_marks *mk[AR_MAX_GPUS], mks[AR_MAX_GPUS];
  cudaEvent_t m0[AR_MAX_GPUS], m1[AR_MAX_GPUS];
  ar_status st[AR_MAX_GPUS];
  double t0, t1;
  volatile int finished;
};

struct rank_arg {
  struct job_run *j;
  int rank;
};

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* One rank's thread: iterations back to back on its stream, then wait for them. */
static void *rank_main(void *arg) {
  struct rank_arg *ra = arg;
  struct job_run *j = ra->j;
  struct gpu *g = j->g;
  int r = ra->rank;
  size_t bytes = j->job.nelem * ar_dtype_size(j->job.dtype);
  CU(cudaSetDevice(g->w.dev[r]));
  pthread_barrier_wait(&g->bar);
  if (r == 0) j->t0 = now_s();
  ar_status st = AR_OK;
  for (int it = 0; it < j->iters && st == AR_OK; it++) {
    if (j->reinit)
      CU(cudaMemcpyAsync(g->w.data[r], g->pristine[r], bytes, cudaMemcpyDeviceToDevice,
                         g->stream[r]));
    int mark = j->job.marks && it == j->iters - 1;
    if (mark) {
      CU(cudaEventRecord(j->m0[r], g->stream[r]));
      j->mk[r] = &j->mks[r];
    }
    st = j->tp->enqueue(j->ctx, r, g->stream[r]);
    if (mark) {
      j->mk[r] = NULL;
      CU(cudaEventRecord(j->m1[r], g->stream[r]));
    }
    if (j->capture && st == AR_OK)
      CU(cudaMemcpyAsync((char *)g->capture[r] + (size_t)it * CAPTURE_MAX, g->w.data[r], bytes,
                         cudaMemcpyDeviceToDevice, g->stream[r]));
  }
  cudaError_t e = cudaStreamSynchronize(g->stream[r]);
  if (e != cudaSuccess) {
    fprintf(stderr, "rank %d: %s\n", r, cudaGetErrorString(e));
    st = AR_ERR_CUDA;
  }
  j->st[r] = st;
  pthread_barrier_wait(&g->bar);
  if (r == 0) j->t1 = now_s();
  return NULL;
}

/* Runs a job's iterations on every rank; exits the process if it hangs. */
static ar_status run_job(struct job_run *j, double timeout_s) {
  pthread_t th[AR_MAX_GPUS];
  struct rank_arg ra[AR_MAX_GPUS];
  struct gpu *g = j->g;
  for (int r = 0; r < g->n; r++) {
    ra[r].j = j;
    ra[r].rank = r;
    pthread_create(&th[r], NULL, rank_main, &ra[r]);
  }
  double start = now_s();
  for (int r = 0; r < g->n; r++) {
    for (;;) {
      struct timespec ts;
      clock_gettime(CLOCK_REALTIME, &ts);
      ts.tv_sec += 1;
      if (pthread_timedjoin_np(th[r], NULL, &ts) == 0) break;
      if (now_s() - start > timeout_s) {
        printf("HANG %s on %s: rank %d did not finish in %.0f s\n", j->job.sched->algo, j->tp->name,
               r, timeout_s);
        fflush(stdout);
        _exit(3);
      }
    }
  }
  for (int r = 0; r < g->n; r++)
    if (j->st[r] != AR_OK) return j->st[r];
  return AR_OK;
}

/* Host value of element i of a buffer of dtype. */
static float host_get(const void *buf, int dtype, size_t i) {
  if (dtype == AR_DT_F32) return ((const float *)buf)[i];
  uint16_t h = ((const uint16_t *)buf)[i];
  if (dtype == AR_DT_BF16) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
  }
  int sign = h >> 15, ex = (h >> 10) & 31, man = h & 1023;
  float v = ex ? (1.0f + man / 1024.0f) * (float)(1 << ex) / 32768.0f : man / 1024.0f / 16384.0f;
  return sign ? -v : v;
}

/* Stores an exactly representable small integer v into element i. */
static void host_put(void *buf, int dtype, size_t i, float v) {
  if (dtype == AR_DT_F32) {
    ((float *)buf)[i] = v;
    return;
  }
  uint32_t u;
  memcpy(&u, &v, 4);
  if (dtype == AR_DT_BF16) {
    ((uint16_t *)buf)[i] = (uint16_t)(u >> 16);
    return;
  }
  uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
  int ex = (int)((u >> 23) & 255);
  uint16_t h = v == 0 ? 0 : (uint16_t)(sign | ((ex - 127 + 15) << 10) | ((u >> 13) & 1023));
  ((uint16_t *)buf)[i] = v == 0 ? sign : h;
}

struct fill_arg {
  struct gpu *g;
  int rank, dtype;
  size_t nelem;
  int iters, capture;
  long wrong;
  size_t first;
  int first_iter;
  float got, want;
};

/* Writes the rank's pristine input (fill) or checks its results (check). */
static void *fill_main(void *arg) {
  struct fill_arg *f = arg;
  size_t es = ar_dtype_size(f->dtype), bytes = f->nelem * es;
  void *h = malloc(bytes + 16);
  CU(cudaSetDevice(f->g->w.dev[f->rank]));
  for (size_t i = 0; i < f->nelem; i++)
    host_put(h, f->dtype, i, pattern(f->rank, i));
  CU(cudaMemcpy(f->g->pristine[f->rank], h, bytes, cudaMemcpyHostToDevice));
  free(h);
  return NULL;
}

static void *check_main(void *arg) {
  struct fill_arg *f = arg;
  size_t es = ar_dtype_size(f->dtype), bytes = f->nelem * es;
  void *h = malloc(bytes + 16);
  CU(cudaSetDevice(f->g->w.dev[f->rank]));
  f->wrong = 0;
  /* every iteration's captured result, or only the final data */
  for (int it = f->capture ? 0 : f->iters - 1; it < f->iters; it++) {
    const void *src = f->capture ? (const char *)f->g->capture[f->rank] + (size_t)it * CAPTURE_MAX
                                 : f->g->w.data[f->rank];
    CU(cudaMemcpy(h, src, bytes, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < f->nelem; i++) {
      float got = host_get(h, f->dtype, i), want = expected(f->g->n, i);
      if (got != want) {
        if (!f->wrong) {
          f->first = i;
          f->first_iter = it;
          f->got = got;
          f->want = want;
        }
        f->wrong++;
      }
    }
  }
  free(h);
  return NULL;
}

/* Runs fn(arg[r]) on one thread per rank and waits. */
static void per_rank(struct gpu *g, void *(*fn)(void *), struct fill_arg *fa) {
  pthread_t th[AR_MAX_GPUS];
  for (int r = 0; r < g->n; r++)
    pthread_create(&th[r], NULL, fn, &fa[r]);
  for (int r = 0; r < g->n; r++)
    pthread_join(th[r], NULL);
}

/* Returns bytes for "1K", "3M", "1G", "12345" or elements for "1000003e" (*is_elem set). */
static size_t parse_size(const char *t, int *is_elem) {
  char *end;
  double v = strtod(t, &end);
  *is_elem = 0;
  switch (*end) {
  case 'K':
  case 'k': v *= 1024; break;
  case 'M':
  case 'm': v *= 1024 * 1024; break;
  case 'G':
  case 'g': v *= 1024.0 * 1024 * 1024; break;
  case 'e': *is_elem = 1; break;
  default: break;
  }
  return (size_t)v;
}

static int split(const char *list, char **out, int max) {
  int cnt = 0;
  char *dup = strdup(list), *save = NULL;
  for (char *t = strtok_r(dup, ",", &save); t && cnt < max; t = strtok_r(NULL, ",", &save))
    out[cnt++] = strdup(t);
  free(dup);
  return cnt;
}

static int dtype_of(const char *s) {
  if (!strcmp(s, "bf16")) return AR_DT_BF16;
  if (!strcmp(s, "fp16") || !strcmp(s, "f16")) return AR_DT_F16;
  return AR_DT_F32;
}

/* Opens the GPUs: peer access everywhere, streams, data, pristine and capture buffers. */
static void gpu_open(struct gpu *g, int nranks, size_t max_bytes, int iters) {
  int count = 0;
  CU(cudaGetDeviceCount(&count));
  g->n = nranks > 0 && nranks <= count ? nranks : count;
  if (g->n > AR_MAX_GPUS) g->n = AR_MAX_GPUS;
  memset(&g->w, 0, sizeof(g->w));
  g->w.n = g->n;
  g->w.data_bytes = max_bytes;
  g->iters_max = iters;
  for (int r = 0; r < g->n; r++) {
    g->w.dev[r] = r;
    CU(cudaSetDevice(r));
    for (int q = 0; q < g->n; q++)
      if (q != r) {
        cudaError_t e = cudaDeviceEnablePeerAccess(q, 0);
        if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) CU(e);
        (void)cudaGetLastError();
      }
    CU(cudaStreamCreateWithFlags(&g->stream[r], cudaStreamNonBlocking));
    CU(cudaMalloc(&g->w.data[r], max_bytes));
    CU(cudaMalloc(&g->pristine[r], max_bytes));
    size_t cap = max_bytes < CAPTURE_MAX ? max_bytes : CAPTURE_MAX; /* per iteration */
    CU(cudaMalloc(&g->capture[r], (size_t)iters * CAPTURE_MAX));
    (void)cap;
  }
  pthread_barrier_init(&g->bar, NULL, g->n);
}

struct opts {
  const char *transport, *algos, *sizes, *dtypes, *pipelines;
  const char *degrade; /* "R:F[,R:F]" or "": the emulation's degraded GPUs */
  int iters, ranks, warmup, marks;
  double timeout;
};

/* --marks: each rank's marks (events, zeroed clock stamps, flags) for a schedule of nr rounds. */
static void marks_open(struct job_run *j, int nr) {
  for (int r = 0; r < j->g->n; r++) {
    struct tp_marks *m = &j->mks[r];
    CU(cudaSetDevice(j->g->w.dev[r]));
    m->nrounds = nr;
    m->ev = calloc(nr ? nr : 1, sizeof(cudaEvent_t));
    m->have = calloc(nr ? nr : 1, 1);
    for (int k = 0; k < nr; k++)
      CU(cudaEventCreate(&m->ev[k]));
    CU(cudaMalloc((void **)&m->ns, (nr + 1) * sizeof(unsigned long long)));
    CU(cudaMemset(m->ns, 0, (nr + 1) * sizeof(unsigned long long)));
    CU(cudaEventCreate(&j->m0[r]));
    CU(cudaEventCreate(&j->m1[r]));
    CU(cudaDeviceSynchronize());
  }
}

/* --marks: frees what marks_open made. */
static void marks_close(struct job_run *j) {
  for (int r = 0; r < j->g->n; r++) {
    struct tp_marks *m = &j->mks[r];
    CU(cudaSetDevice(j->g->w.dev[r]));
    for (int k = 0; k < m->nrounds; k++)
      cudaEventDestroy(m->ev[k]);
    cudaFree(m->ns);
    cudaEventDestroy(j->m0[r]);
    cudaEventDestroy(j->m1[r]);
    free(m->ev);
    free(m->have);
    memset(m, 0, sizeof(*m));
  }
}

/* --marks, after the job: every rank marked exactly the rounds in which it moves elements, in
 * order, inside the span of its marked enqueue (sm: stamps from the kernel's start no later
 * than that span, 5 us of clock slack). Prints one line; returns 1 when right. */
static int marks_check(struct job_run *j, const char *tag) {
  const struct ar_schedule *s = j->job.sched;
  char line[512] = "";
  int ok = 1;
  for (int r = 0; r < j->g->n && ok; r++) {
    struct tp_marks *m = &j->mks[r];
    CU(cudaSetDevice(j->g->w.dev[r]));
    float span = 0;
    CU(cudaEventElapsedTime(&span, j->m0[r], j->m1[r]));
    unsigned long long ns[1 + 512];
    if (m->in_ns)
      CU(cudaMemcpy(ns, m->ns, (size_t)(m->nrounds < 512 ? m->nrounds + 1 : 513) * sizeof(*ns),
                    cudaMemcpyDeviceToHost));
    double prev = 0;
    for (int k = 0; k < m->nrounds && k < 512 && ok; k++) {
      int part = 0;
      for (size_t i = 0; i < s->nxfers; i++) {
        const struct ar_xfer *x = &s->xfers[i];
        if (x->round == k && (x->src == r || x->dst == r) &&
            ar_chunk_begin(j->job.nelem, s->nchunks, x->chunk + x->count) >
                ar_chunk_begin(j->job.nelem, s->nchunks, x->chunk))
          part = 1;
      }
      if (part != m->have[k]) {
        printf("FAIL %s: marks: rank %d round %d %s\n", tag, r, k,
               part ? "not marked" : "marked, but the rank has nothing to do in it");
        ok = 0;
        break;
      }
      if (!part) continue;
      float ms = 0;
      double t;
      if (m->in_ns) {
        t = ns[1 + k] >= ns[0] ? (ns[1 + k] - ns[0]) / 1e6 : -1;
      } else {
        CU(cudaEventElapsedTime(&ms, j->m0[r], m->ev[k]));
        t = ms;
      }
      if (t < prev || t > span + (m->in_ns ? 0.005 : 0)) {
        printf("FAIL %s: marks: rank %d round %d ends at %.3f ms: before the previous (%.3f) or "
               "after the enqueue's span (%.3f)\n", tag, r, k, t, prev, span);
        ok = 0;
      }
      prev = t;
      if (r == 0 && strlen(line) < sizeof(line) - 32)
        snprintf(line + strlen(line), sizeof(line) - strlen(line), " %d:%.1f", k, t * 1e3);
    }
  }
  if (ok) printf("ok   %s: marks in order (%s), rank 0's round ends (us):%s\n", tag,
                 j->mks[0].in_ns ? "sm clock stamps" : "events", line);
  return ok;
}

static ar_status build_for(const char *name, int n, const struct tp_degrade *dg, int segments,
                           struct ar_schedule *s);

/* Parses "R:F[,R:F]" (F default 2) into dg (n = 0 for ""); bw is left as it was. */
static void parse_degrade(const char *text, struct tp_degrade *dg) {
  char *items[AR_MAX_DEGRADED];
  int nd = split(text, items, AR_MAX_DEGRADED);
  dg->n = 0;
  for (int i = 0; i < nd; i++) {
    dg->rank[dg->n] = atoi(items[i]);
    dg->factor[dg->n++] = strchr(items[i], ':') ? atof(strchr(items[i], ':') + 1) : 2.0;
    free(items[i]);
  }
}

/* The gpu and time commands. */
static int cmd_gpu(const struct opts *o, int timing) {
  const struct tp_ops *tp = tp_find(o->transport);
  if (!tp) {
    fprintf(stderr, "unknown transport %s\n", o->transport);
    return 2;
  }
  char *sz[64], *dt[8], *pl[16];
  const char *names[64];
  int nsz = split(o->sizes, sz, 64), ndt = split(o->dtypes, dt, 8),
      npl = split(o->pipelines, pl, 16);
  int na = algo_list(o->algos, names, 64);
  size_t max_bytes = 1024;
  for (int i = 0; i < nsz; i++) {
    int el;
    size_t v = parse_size(sz[i], &el);
    for (int d = 0; d < ndt; d++) {
      size_t b = el ? v * ar_dtype_size(dtype_of(dt[d])) : v;
      if (b > max_bytes) max_bytes = b;
    }
  }
  struct gpu g;
  gpu_open(&g, o->ranks, max_bytes, timing ? 1 : o->iters);
  printf("# %s on %d GPUs, flags by %s\n", tp->name, g.n, tp_flags_name(tp_flags_mode()));
  struct tp_degrade dg; /* --degrade: every job emulates these slow GPUs */
  memset(&dg, 0, sizeof(dg));
  parse_degrade(o->degrade, &dg);
  if (dg.n) {
    if (tp_degrade_measure_bw(g.w.dev[1], g.w.dev[0], 512u << 20, 5, &dg.bw) != AR_OK) {
      printf("FAIL cannot measure the healthy bandwidth GPU %d -> GPU %d\n", g.w.dev[1],
             g.w.dev[0]);
      nfail++;
      return 0;
    }
    printf("# degraded:");
    for (int i = 0; i < dg.n; i++)
      printf(" rank %d x%g", dg.rank[i], dg.factor[i]);
    printf("; healthy bandwidth %.2f GB/s (copy engine push GPU %d -> GPU %d)\n", dg.bw / 1e9,
           g.w.dev[1], g.w.dev[0]);
  }
  for (int d = 0; d < ndt; d++)
    for (int i = 0; i < nsz; i++) {
      int dtype = dtype_of(dt[d]), el;
      size_t v = parse_size(sz[i], &el), es = ar_dtype_size(dtype);
      size_t nelem = el ? v : v / es, bytes = nelem * es;
      struct fill_arg fa[AR_MAX_GPUS];
      memset(fa, 0, sizeof(fa));
      for (int r = 0; r < g.n; r++) {
        fa[r].g = &g;
        fa[r].rank = r;
        fa[r].dtype = dtype;
        fa[r].nelem = nelem;
      }
      per_rank(&g, fill_main, fa);
      for (int a = 0; a < na; a++) {
        struct ar_schedule s;
        ar_status st = dg.n && ar_algo_find(names[a]) ? build_for(names[a], g.n, &dg, 0, &s)
                                                      : build_sched(names[a], g.n, &s);
        if (st != AR_OK) {
          printf("n/a  %-12s %s: %s\n", names[a], ar_dtype_name(dtype), s.reason);
          continue;
        }
        for (int pi = 0; pi < npl; pi++) {
          int pipe = atoi(pl[pi]);
          if (strcmp(tp->name, "ce") && pi > 0) break; /* only ce pipelines */
          struct job_run j;
          memset(&j, 0, sizeof(j));
          j.g = &g;
          j.tp = tp;
          j.job.sched = &s;
          j.job.nelem = nelem;
          j.job.dtype = dtype;
          j.job.pipeline = pipe;
          j.job.degrade = dg;
          int used = -1;
          j.job.pipeline_used = &used;
          if (o->marks && !timing) {
            j.job.marks = j.mk;
            marks_open(&j, s.nrounds);
          }
          char reason[256] = "";
          double ts = now_s();
          st = tp->setup(&g.w, &j.job, &j.ctx, reason, sizeof(reason));
          double setup_ms = (now_s() - ts) * 1e3;
          char tag[200];
          snprintf(tag, sizeof(tag), "%-12s %-3s pipe=%-2d used=%-2d %-7s %11zu B (%zu elems)",
                   names[a], tp->name, pipe, used, ar_dtype_name(dtype), bytes, nelem);
          if (st != AR_OK) {
            printf("%s  %s: %s\n", st == AR_ERR_OOM ? "oom " : "FAIL", tag, reason);
            if (st != AR_ERR_OOM) nfail++;
            if (j.job.marks) marks_close(&j);
            continue;
          }
          if (!timing) {
            j.iters = o->iters;
            j.reinit = 1;
            j.capture = bytes <= CAPTURE_MAX;
            st = run_job(&j, o->timeout);
            long wrong = 0;
            if (st == AR_OK) {
              for (int r = 0; r < g.n; r++) {
                fa[r].iters = j.iters;
                fa[r].capture = j.capture;
              }
              per_rank(&g, check_main, fa);
              for (int r = 0; r < g.n; r++)
                wrong += fa[r].wrong;
            }
            if (st != AR_OK || wrong) {
              printf("FAIL %s: %s", tag, ar_status_str(st));
              for (int r = 0; st == AR_OK && r < g.n; r++)
                if (fa[r].wrong)
                  printf(" | rank %d: %ld wrong, first iter %d elem %zu got %g want %g", r,
                         fa[r].wrong, fa[r].first_iter, fa[r].first, fa[r].got, fa[r].want);
              printf("\n");
              nfail++;
            } else {
              printf("ok   %s: %d iters (setup %.1f ms)\n", tag, j.iters, setup_ms);
              npass++;
            }
            if (st == AR_OK && j.job.marks) {
              if (marks_check(&j, tag)) npass++;
              else nfail++;
            }
          } else {
            j.iters = o->warmup;
            st = run_job(&j, o->timeout);
            j.iters = o->iters;
            if (st == AR_OK) st = run_job(&j, o->timeout);
            if (st != AR_OK) {
              printf("FAIL %s: %s\n", tag, ar_status_str(st));
              nfail++;
            } else {
              double us = (j.t1 - j.t0) / j.iters * 1e6;
              printf("time %s: %10.1f us  algbw %7.2f GB/s  busbw %7.2f GB/s\n", tag, us,
                     bytes / us / 1e3, bytes / us / 1e3 * 2 * (g.n - 1) / g.n);
              npass++;
            }
          }
          fflush(stdout);
          tp->teardown(j.ctx);
          if (j.job.marks) marks_close(&j);
        }
        sched_free(&s);
      }
    }
  return 0;
}

/* The reduce command: bandwidth of the sum kernel (reads nsrc + writes 1 buffer). */
static int cmd_reduce(void) {
  size_t bytes = 1u << 30;
  void *buf[5];
  CU(cudaSetDevice(0));
  for (int i = 0; i < 5; i++) {
    CU(cudaMalloc(&buf[i], bytes));
    CU(cudaMemset(buf[i], 0, bytes));
  }
  cudaEvent_t e0, e1;
  CU(cudaEventCreate(&e0));
  CU(cudaEventCreate(&e1));
  for (int dtype = 0; dtype < 3; dtype++)
    for (int nsrc = 2; nsrc <= 4; nsrc++) {
      size_t nelem = bytes / ar_dtype_size(dtype);
      const void *srcs[4] = {buf[0], buf[1], buf[2], buf[3]};
      for (int w = 0; w < 2; w++)
        ar_sum_launch(buf[0], srcs, nsrc, nelem, dtype, 0, 0);
      CU(cudaEventRecord(e0, 0));
      for (int it = 0; it < 10; it++)
        if (ar_sum_launch(buf[0], srcs, nsrc, nelem, dtype, 0, 0) != AR_OK) return 2;
      CU(cudaEventRecord(e1, 0));
      CU(cudaEventSynchronize(e1));
      float ms;
      CU(cudaEventElapsedTime(&ms, e0, e1));
      double us = ms * 1e3 / 10;
      printf("reduce %-7s nsrc=%d 1 GiB: %8.1f us, %7.1f GB/s of memory traffic\n",
             ar_dtype_name(dtype), nsrc, us, (nsrc + 1) * bytes / us / 1e3);
      npass++;
    }
  /* misaligned and odd sizes agree with the host */
  size_t n = 1000003;
  float *h = malloc(n * 4 * 2);
  for (size_t i = 0; i < 2 * n; i++)
    h[i] = (float)(i % 11);
  CU(cudaMemcpy(buf[0], h, n * 8, cudaMemcpyHostToDevice));
  CU(cudaMemcpy(buf[1], h, n * 8, cudaMemcpyHostToDevice));
  ar_reduce_launch((float *)buf[0] + 1, (float *)buf[1] + 1, n, AR_DT_F32, 0); /* co-aligned */
  ar_reduce_launch((float *)buf[0] + n + 3, (float *)buf[1] + n + 2, n - 5, AR_DT_F32, 0); /* not */
  float *o = malloc(n * 8);
  CU(cudaMemcpy(o, buf[0], n * 8, cudaMemcpyDeviceToHost));
  long bad = 0;
  for (size_t i = 0; i < 2 * n; i++) {
    float want = h[i];
    if (i >= 1 && i < n + 1) want = h[i] + h[i];
    if (i >= n + 3 && i < 2 * n - 2) want = h[i] + h[i - 1];
    if (o[i] != want) bad++;
  }
  printf("%s reduce odd/misaligned ranges: %ld wrong\n", bad ? "FAIL" : "ok  ", bad);
  bad ? nfail++ : npass++;
  free(h);
  free(o);
  return 0;
}

/* The bw command: copy-engine bandwidth GPU1 -> GPU0 pulled (stream on 0) and pushed (stream
 * on 1), split over k streams; then all GPUs pulling from their ring predecessor at once. */
static int cmd_bw(void) {
  int n = 0;
  CU(cudaGetDeviceCount(&n));
  if (n < 2) return 0;
  if (n > AR_MAX_GPUS) n = AR_MAX_GPUS;
  size_t bytes = 1u << 30;
  void *buf[AR_MAX_GPUS];
  cudaStream_t st[AR_MAX_GPUS][4];
  for (int r = 0; r < n; r++) {
    CU(cudaSetDevice(r));
    for (int q = 0; q < n; q++)
      if (q != r) {
        cudaError_t e = cudaDeviceEnablePeerAccess(q, 0);
        if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) CU(e);
        (void)cudaGetLastError();
      }
    CU(cudaMalloc(&buf[r], 2 * bytes));
    for (int k = 0; k < 4; k++)
      CU(cudaStreamCreateWithFlags(&st[r][k], cudaStreamNonBlocking));
  }
  for (int all = 0; all < 2; all++)
    for (int push = 0; push < 2; push++)
      for (int k = 1; k <= 4; k *= 2) {
        double best = 1e30;
        for (int rep = 0; rep < 4; rep++) {
          for (int r = 0; r < n; r++) {
            CU(cudaSetDevice(r));
            CU(cudaDeviceSynchronize());
          }
          double t0 = now_s();
          for (int r = 0; r < (all ? n : 1); r++) {
            int dst = r, src = (r + 1) % n, dev = push ? src : dst;
            CU(cudaSetDevice(dev));
            for (int q = 0; q < k; q++)
              CU(cudaMemcpyAsync((char *)buf[dst] + bytes + q * (bytes / k),
                                 (char *)buf[src] + q * (bytes / k), bytes / k,
                                 cudaMemcpyDeviceToDevice, st[dev][q]));
          }
          for (int r = 0; r < n; r++) {
            CU(cudaSetDevice(r));
            CU(cudaDeviceSynchronize());
          }
          double t = now_s() - t0;
          if (rep && t < best) best = t;
        }
        printf("bw %s %-4s %d stream(s): 1 GiB in %7.1f us = %6.1f GB/s per GPU\n",
               all ? "all-ring" : "one-pair", push ? "push" : "pull", k, best * 1e6,
               bytes / best / 1e9);
      }
  npass++;
  return 0;
}

/* ------------------------------------------------------------------ timed simulation */

/* What the timed simulation assumes the GPUs cost: bandwidths in bytes/s, fixed costs in us.
 * It follows every dependency of a program (flags, events, stream order) and the emulation's
 * stamps and paces: enough to check the times the paces produce. One contention: a GPU's copy
 * engines move one copy between GPUs at a time out of it and one into it (copy_bw is a GPU's
 * port, DEVICE.md), in the order the copies become ready, so that copy streams sharing a
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

/* Times `iters` back-to-back iterations of program p, every stream starting at 0; fin[r] (may
 * be NULL) gets each rank's finish. Returns the last finish in us, or -1 on a stall. */
static double tsim_prog(const struct tp_prog *p, const struct tsim_hw *hw, int iters, double *fin) {
  struct tsim *T = calloc(1, sizeof(*T));
  T->p = p;
  T->hw = hw;
  T->iters = iters;
  for (int r = 0; r < p->n; r++) {
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

/* Times one iteration of s on the nccl-p2p transport's plans and holds (tp_p2p_hold.h): a
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
static ar_status build_for(const char *name, int n, const struct tp_degrade *dg, int segments,
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
    if (tp_prog_build(s, nelem, 4, tp == TS_SM ? TP_MODE_SM : TP_MODE_CE, pipeline, dg, &p,
                      reason, sizeof(reason)) != AR_OK) {
      printf("tsim: %s: %s\n", s->algo, reason);
      return -1;
    }
    t = tsim_prog(p, hw, 1, fin);
    tp_prog_free(p);
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
  struct model_hw mh = {0, 0, 1e6 / dg->bw, 0};
  return model_degraded_bound_us(n, dg->n, dg->factor, &mh, bytes);
}

/* The timed checks of the degraded-link emulation (run by `sim`): the rates the self-test
 * expects, the shared budget's split between flows, a degraded ring's time, and OPTCC against
 * ring and the lower bound, with the costs of tsim_default. */
static void tsim_checks(void) {
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
            struct tp_degrade dg = {1, {0}, {(double)f}, bw};
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
      struct tp_degrade dg = {1, {0}, {2.0}, bw};
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
      struct tp_degrade dg = {1, {0}, {2.0}, bw};
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
  struct tp_degrade dg2 = {1, {3}, {2.0}, bw};
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
static int cmd_tsim(const char *algos, const char *sizes, const char *degrade, int ranks,
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

/* The dump command: the compiled program of every rank (tp_prog_print) for the first listed
 * algorithm, size and pipeline on --ranks ranks (default 4), ce push or --transport sm. */
static int cmd_dump(const char *algo, const char *size, int ranks, const char *transport,
                    int pipeline) {
  struct ar_schedule s;
  int el, n = ranks > 1 ? ranks : 4;
  char name[64];
  snprintf(name, sizeof(name), "%.*s", (int)strcspn(algo, ","), algo);
  size_t v = parse_size(size, &el), nelem = el ? v : v / 4;
  if (build_sched(name, n, &s) != AR_OK) {
    printf("FAIL %s n=%d: %s\n", name, n, s.reason);
    nfail++;
    return 0;
  }
  struct tp_prog *p;
  char reason[256] = "";
  int mode = !strcmp(transport, "sm") ? TP_MODE_SM : TP_MODE_CE;
  if (tp_prog_build(&s, nelem, 4, mode, pipeline, NULL, &p, reason, sizeof(reason)) != AR_OK) {
    printf("FAIL %s n=%d: %s\n", name, n, reason);
    nfail++;
  } else {
    printf("# %s n=%d, %zu elements, %s, %s program, %d mini-batches, span %u\n", name, n, nelem,
           transport, p->dataflow ? "dataflow" : "per-round", p->batches_max, p->span);
    for (int r = 0; r < n; r++)
      tp_prog_print(p, r, stdout);
    tp_prog_free(p);
    npass++;
  }
  sched_free(&s);
  return 0;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  /* as arbench (harness/run.c): every kernel loaded when a context starts, since a lazy load on
   * first launch may wait for a running kernel, e.g. a sum spinning on its inputs' flags */
  setenv("CUDA_MODULE_LOADING", "EAGER", 0);
  if (argc < 2) {
    fprintf(stderr,
            "usage: tp_check sim|tsim|dump|gpu|time|reduce|bw [options] (see the file comment)\n");
    return 2;
  }
  struct opts o = {.transport = "ce",
                   .degrade = "",
                   .algos = "all",
                   .sizes = "1K,12345e,1M,1000003e,16M",
                   .dtypes = "f32",
                   .pipelines = "1",
                   .iters = 3,
                   .ranks = 0,
                   .warmup = 3,
                   .timeout = 120};
  int nmax = 8, seeds = 6, xq = 0, segments = 0;
  const char *degrade = "";
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
    if (!strcmp(a, "--transport"))
      o.transport = v;
    else if (!strcmp(a, "--algos"))
      o.algos = v;
    else if (!strcmp(a, "--sizes"))
      o.sizes = v;
    else if (!strcmp(a, "--dtypes"))
      o.dtypes = v;
    else if (!strcmp(a, "--pipelines"))
      o.pipelines = v;
    else if (!strcmp(a, "--iters"))
      o.iters = atoi(v);
    else if (!strcmp(a, "--warmup"))
      o.warmup = atoi(v);
    else if (!strcmp(a, "--ranks"))
      o.ranks = atoi(v);
    else if (!strcmp(a, "--timeout"))
      o.timeout = atof(v);
    else if (!strcmp(a, "--ranks-max"))
      nmax = atoi(v);
    else if (!strcmp(a, "--seeds"))
      seeds = atoi(v);
    else if (!strcmp(a, "--xq"))
      xq = atoi(v);
    else if (!strcmp(a, "--degrade"))
      degrade = o.degrade = v;
    else if (!strcmp(a, "--segments"))
      segments = atoi(v);
    else if (!strcmp(a, "--marks"))
      o.marks = atoi(v);
    else if (!strcmp(a, "--program")) /* as AR_CE_PROGRAM: flow, round (else the default) */
      tp_ce_program = !strcmp(v, "flow") ? 2 : !strcmp(v, "round") ? 1 : 0;
    else if (!strcmp(a, "--ring-batch")) { /* the dataflow ring's automatic mini-batch */
      int el;
      tp_ring_batch_bytes = parse_size(v, &el);
    } else if (!strcmp(a, "--ring-streams"))
      tp_ring_streams = atoi(v);
    else {
      fprintf(stderr, "unknown option %s\n", a);
      return 2;
    }
    i++;
  }
  if (!strcmp(argv[1], "gpu") && o.iters > 4) o.iters = 4; /* capture buffers hold 4 */
  if (!strcmp(argv[1], "sim")) {
    cmd_sim(nmax, seeds, o.algos, xq);
    if (!xq && tp_ce_program != 2) { /* again with the flow program (AR_CE_PROGRAM=flow) */
      printf("# ce push: the flow program\n");
      tp_ce_program = 2;
      cmd_sim(nmax, seeds, o.algos, xq);
      tp_ce_program = 0;
    }
    if (!xq) sim_dataflow(nmax, seeds, o.algos);
    if (!strcmp(o.algos, "all")) sim_auto_pipeline(nmax, seeds);
    tsim_checks();
  } else if (!strcmp(argv[1], "tsim"))
    cmd_tsim(o.algos, o.sizes, degrade, o.ranks, segments, o.transport, atoi(o.pipelines));
  else if (!strcmp(argv[1], "gpu"))
    cmd_gpu(&o, 0);
  else if (!strcmp(argv[1], "time"))
    cmd_gpu(&o, 1);
  else if (!strcmp(argv[1], "dump"))
    cmd_dump(o.algos, o.sizes, o.ranks, o.transport, atoi(o.pipelines));
  else if (!strcmp(argv[1], "reduce"))
    cmd_reduce();
  else if (!strcmp(argv[1], "bw"))
    cmd_bw();
  else {
    fprintf(stderr, "unknown command %s\n", argv[1]);
    return 2;
  }
  printf("%d passed, %d failed\n", npass, nfail);
  return nfail != 0;
}
