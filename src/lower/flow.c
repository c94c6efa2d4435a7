/* The ce dataflow program for any schedule (exec_prog.h, "ce flow"): dependencies per unit (a
 * chunk's mini-batch) instead of per round, one copy stream per rank carrying its sends in
 * round order and nothing else, the sums on the harness's stream as their inputs land.
 * Streams of a rank: 0 sums and landings, 1 copies, 2 RECV writes, 3 DATA writes (each after
 * its copy's event, by a kernel: a copy stream with flag ops between its copies lost 10-15 us
 * per copy on 4 x H200, and a memop's 4-byte copy from another stream queues behind the next
 * big copy on the copy engine, runs/reference/h200x4-issue4, knobs_call*.log), 4 the start stamps of the
 * degraded-link emulation, 5 the DATA writes of flows with a degraded end (behind their
 * releases: on stream 3 they held back the DATA of later healthy copies; optcc-switch at 1 GiB,
 * GPU 3 2x slower, k = 16: 6230-6235 us against 6509-6519 in one call,
 * runs/reference/h200x4-degraded-flow/degraded.log).
 * Degraded GPUs (struct tp_degrade): when the copy of a flow with a degraded end starts, its
 * sender takes F x / bw of each degraded end's budget (a RESERVE on stream 4: a clock per
 * direction of d, moved atomically to max(clock, now) + F x / bw, first come first served)
 * and holds the flow's DATA until both are spent (stream 5). So no flow of d ends before F x /
 * bw after its start, each direction of d moves at most bw / F however many peers share it,
 * and an idle budget is not banked (a flow starting late is charged from its start). The
 * clocks compare GPU times of different GPUs, through offsets the ce transport measures per
 * job. (A receiver-side chain of paces served flows in program order from the first landing,
 * so three peers copying into d at once, each slowed by the others physically, were charged 7
 * transfers for 6: -14% in the self-test on 4 x H200, selftest_flow_ccee96f.log.) Only signal
 * streams wait: a healthy sender's copy engine goes on once its copy has landed (a slow NIC
 * slows what it receives, the sender serves others meanwhile: optcc.txt Theorem 1's model).
 * Host code only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"

/* automatic mini-batches (TP_FLOW_BATCH, build.h): a chunk of a schedule with many (optcc's
 * sections) is one; at most 16 */
#define TP_FLOW_MAX 16
/* a schedule that sums and forwards its chunks after the straggler's arrival
 * (AR_TRAIT_SUM_FORWARD: stragglar) splits chunks of at least 8 MiB in 2, so that a sum runs
 * beside the next batch's copy (8 ms straggler, after arrival, 2 batches against 1: 16 MiB
 * 178 / 155 us, 32 MiB 233 / 241, 64 MiB..1 GiB 379, 609, 1063, 1989, 3833 against 420, 707,
 * 1252, 2363, 4584; 4 and 8 slower than 2; bcast gained nothing from 2 at 1 MiB..1 GiB:
 * runs/reference/h200x4-issue4-all, midsize_call*.log) */
#define TP_FLOW_SPLIT_BYTES (8u << 20)
#define TP_FLOW_SPLIT 2
#define TP_FLOW_STREAMS 6



struct flow {
  const struct ar_schedule *s;
  const struct tp_degrade *dg; /* NULL: no emulation */
  const struct lower_settings *set;
  struct tp_prog *p;
  int n, nc, nb, nu, es;
  size_t *ub, *ue; /* unit u = chunk * nb + batch: elements [ub, ue) */
  /* per rank r and unit u (index r * nu + u): the last write of r's data[u] (kind: 0 the
   * iteration's input, 1 r's own sum, whose event is w_ev, 2 a copy from w_peer, DATA value
   * w_val) and the event after r's last copy reading it (-1 none) */
  int *w_kind, *w_ev, *w_peer, *rd_ev;
  uint32_t *w_val;
  /* per rank: the stream of each event, and per (stream, stream) the latest event waited */
  int *ev_stream[AR_MAX_GPUS], ev_cap[AR_MAX_GPUS];
  int ev_waited[AR_MAX_GPUS][TP_FLOW_STREAMS][TP_FLOW_STREAMS];
  uint32_t *flag_waited;                     /* [(r * TP_FLOW_STREAMS + stream) * nslots + slot] */
  int tnext[AR_MAX_GPUS];                    /* next free stamp slot: one per flow with a degraded end */
  int out_rel[AR_MAX_GPUS], out_ev[AR_MAX_GPUS]; /* a degraded sender's last release: slot, event (-1) */
  uint32_t sent[AR_MAX_GPUS][AR_MAX_GPUS];   /* copies r -> q so far (DATA values) */
  uint32_t rr[AR_MAX_GPUS][AR_MAX_GPUS];     /* RECV writes q -> r so far: rr[q][r] */
  uint32_t rr_now[AR_MAX_GPUS][AR_MAX_GPUS]; /* this round's RECV value q -> r, 0 none */
  int active[AR_MAX_GPUS];                   /* r has any op yet */
  size_t cursor[AR_MAX_GPUS];                /* scratch */
  /* this round's incoming copies into q from p, unit u ([(q * n + p) * nu + u]) */
  size_t *in_off;
  uint32_t *in_val;
  char *reason;
  size_t reason_len;
};

/* flag slots of rank r: READY[q] q is in this iteration; RECV[q] q may receive our copies of
 * the current round; DATA[s] s's copies into r, counted */
#define SLOT_READY(f, q) (q)
#define SLOT_RECV(f, q) ((f)->n + (q))
#define SLOT_DATA(f, s) (2 * (f)->n + (s))

/* Returns the transfer list of round k ([*lo, *hi) in s->xfers, sorted by round). */
static void round_span(const struct ar_schedule *s, int k, size_t *lo, size_t *hi) {
  size_t a = 0;
  while (a < s->nxfers && s->xfers[a].round < k)
    a++;
  size_t b = a;
  while (b < s->nxfers && s->xfers[b].round == k)
    b++;
  *lo = a;
  *hi = b;
}

/* Emits op on rank r's stream, labelled round k. */
static ar_status put(struct flow *f, int r, struct tp_op *o) {
  f->active[r] = 1;
  return lower_emit(f->p, r, o);
}

/* Emits a flag write to peer's slot (by a kernel from the signal streams). */
static ar_status flag_write(struct flow *f, int r, int stream, int k, int peer, int slot,
                            uint32_t val) {
  struct tp_op o = lower_op_new(TP_OP_WRITE_FLAG, stream, k);
  o.peer = peer;
  o.slot = slot;
  o.val = val;
  o.kflag = stream >= 2;
  return put(f, r, &o);
}

/* Emits a wait until r's own slot reaches val, unless the stream already waited for as much. */
static ar_status flag_wait(struct flow *f, int r, int stream, int k, int slot, uint32_t val) {
  uint32_t *w = &f->flag_waited[((size_t)r * TP_FLOW_STREAMS + stream) * f->p->nslots + slot];
  if (*w >= val) return AR_OK;
  *w = val;
  struct tp_op o = lower_op_new(TP_OP_WAIT_FLAG, stream, k);
  o.slot = slot;
  o.val = val;
  return put(f, r, &o);
}

/* Records a new event on r's stream; returns its id in *ev. */
static ar_status ev_record(struct flow *f, int r, int stream, int k, int *ev) {
  int id = f->p->rank[r].nevents;
  if (id >= f->ev_cap[r]) {
    int cap = f->ev_cap[r] ? 2 * f->ev_cap[r] : 64;
    int *ns = (int *)realloc(f->ev_stream[r], cap * sizeof(int));
    if (!ns) return AR_ERR_NOMEM;
    f->ev_stream[r] = ns;
    f->ev_cap[r] = cap;
  }
  f->ev_stream[r][id] = stream;
  struct tp_op o = lower_op_new(TP_OP_RECORD, stream, k);
  o.event = id;
  *ev = id;
  return put(f, r, &o);
}

/* Makes r's stream wait for event ev (of another stream), unless it already waited for that
 * stream's ev or a later one (events of one stream complete in order). */
static ar_status ev_wait(struct flow *f, int r, int stream, int k, int ev) {
  if (ev < 0) return AR_OK;
  int from = f->ev_stream[r][ev];
  if (from == stream || f->ev_waited[r][stream][from] >= ev) return AR_OK;
  f->ev_waited[r][stream][from] = ev;
  struct tp_op o = lower_op_new(TP_OP_WAIT_EVENT, stream, k);
  o.event = ev;
  return put(f, r, &o);
}

/* Returns the stream that writes the DATA of r's copies to q: 5 for a flow with a degraded
 * end, whose release waits out the budgets, so that it does not hold back the DATA of r's
 * later copies between healthy GPUs (stream 3, in copy order), else 3. */
static int data_stream(const struct flow *f, int r, int q) {
  return lower_degrade_factor(f->dg, r) > 0 || lower_degrade_factor(f->dg, q) > 0 ? 5 : 3;
}

/* Before r's copy of `bytes` to q (emitted next on stream 1): when either end is degraded,
 * takes the flow's share of the budgets on stream 4 (which never waits for anything else, so
 * the copy's start is when the copy stream gets there) and makes the flow's DATA stream wait
 * for it; returns the release's stamp slot in *slot (else -1). */
static ar_status reserve_start(struct flow *f, int r, int q, int k, size_t bytes, int *slot) {
  *slot = -1;
  double fr = lower_degrade_factor(f->dg, r), fq = lower_degrade_factor(f->dg, q);
  if (!(fr > 0) && !(fq > 0)) return AR_OK;
  int ev;
  AR_CHECK(ev_record(f, r, 1, k, &ev));
  AR_CHECK(ev_wait(f, r, 4, k, ev));
  struct tp_op o = lower_op_new(TP_OP_RESERVE, 4, k);
  o.peer = q;
  o.ns[0] = lower_degrade_ns(f->dg, fr, (double)bytes);
  o.ns[1] = lower_degrade_ns(f->dg, fq, (double)bytes);
  o.tout = *slot = f->tnext[r]++;
  AR_CHECK(put(f, r, &o));
  AR_CHECK(ev_record(f, r, 4, k, &ev));
  return ev_wait(f, r, data_stream(f, r, q), k, ev);
}

/* Before a degraded r's copy of `bytes`: r's copy stream waits until one healthy transfer time
 * before its previous flow's release, so that r's bytes cross while its budget runs, as a
 * slow NIC's would, and not all up front (its copy engine ran far ahead and its copies slowed
 * the healthy GPUs' at their receivers: optcc-switch at 1 GiB, k = 12, GPU 3 2x slower,
 * 6559-6669 us against 6828-6887 without, runs/reference/h200x4-degraded-flow). */
static ar_status gate_send(struct flow *f, int r, int k, size_t bytes) {
  if (!(lower_degrade_factor(f->dg, r) > 0) || f->out_rel[r] < 0) return AR_OK;
  AR_CHECK(ev_wait(f, r, 1, k, f->out_ev[r]));
  struct tp_op o = lower_op_new(TP_OP_PACE, 1, k);
  o.tslot[0] = f->out_rel[r];
  o.ns[0] = (uint64_t)0 - lower_degrade_ns(f->dg, 1.0, (double)bytes); /* wraps: a time before */
  return put(f, r, &o);
}

/* On r's DATA stream of the flow, after the copy whose budgets `slot` holds, before its DATA:
 * the release. Nothing when slot < 0. */
static ar_status pace_send(struct flow *f, int r, int stream, int k, int slot) {
  if (slot < 0) return AR_OK;
  struct tp_op o = lower_op_new(TP_OP_PACE, stream, k);
  o.tslot[0] = slot;
  return put(f, r, &o);
}

/* Makes r's stream wait until data[u]'s last write is complete. */
static ar_status wait_written(struct flow *f, int r, int stream, int k, int u) {
  size_t i = (size_t)r * f->nu + u;
  if (f->w_kind[i] == 1) return ev_wait(f, r, stream, k, f->w_ev[i]);
  if (f->w_kind[i] == 2) return flag_wait(f, r, stream, k, SLOT_DATA(f, f->w_peer[i]), f->w_val[i]);
  return AR_OK;
}

/* Returns the step (1..n-1) of a round in which r's send to q goes: its peer shift (peers
 * r + 1, r + 2, ...: all ranks together send to a permutation at a time), or 1 for every send
 * of a schedule that orders its sends itself (AR_TRAIT_SEND_ORDER). */
static int send_step(const struct flow *f, int r, int q) {
  return f->s->traits & AR_TRAIT_SEND_ORDER ? 1 : (q - r + f->n) % f->n;
}
/* Emits rank r's sends of round k on its copy stream: per batch, per step (send_step), per
 * chunk; each waits for the unit's last write on r, for q's READY (first copy to q) and RECV
 * (when q must be ready for this round), copies (REDUCE: into fresh scratch of q), records an
 * event (r's later writes of the unit wait for it), and the flow's DATA stream (data_stream),
 * behind that event and the budgets' release, writes DATA to q. */
static ar_status emit_sends(struct flow *f, int r, int k, size_t lo, size_t hi) {
  const struct ar_schedule *s = f->s;
  for (int j = 0; j < f->nb; j++)
    for (int sh = 1; sh < f->n; sh++)
      for (size_t i = lo; i < hi; i++) {
        const struct ar_xfer *x = &s->xfers[i];
        if (x->src != r || send_step(f, r, x->dst) != sh) continue;
        int q = x->dst;
        for (int c = x->chunk; c < x->chunk + x->count; c++) {
          int u = c * f->nb + j;
          if (f->ue[u] <= f->ub[u]) continue;
          AR_CHECK(wait_written(f, r, 1, k, u));
          AR_CHECK(flag_wait(f, r, 1, k, SLOT_READY(f, q), 1));
          if (f->rr_now[q][r]) AR_CHECK(flag_wait(f, r, 1, k, SLOT_RECV(f, q), f->rr_now[q][r]));
          size_t bytes = (f->ue[u] - f->ub[u]) * f->es, at = (size_t)(q * f->n + r) * f->nu + u;
          int slot;
          AR_CHECK(gate_send(f, r, k, bytes));
          AR_CHECK(reserve_start(f, r, q, k, bytes, &slot));
          if (slot >= 0 && lower_degrade_factor(f->dg, r) > 0) {
            f->out_rel[r] = slot;
            f->out_ev[r] = f->p->rank[r].nevents - 1; /* stream 4's, after the RESERVE */
          }
          struct tp_op o = lower_op_new(TP_OP_COPY, 1, k);
          o.bytes = bytes;
          o.nsrc = 1;
          o.src[0] = lower_ref(TP_BUF_DATA, r, f->ub[u] * f->es);
          if (x->op == AR_REDUCE) {
            f->in_off[at] = lower_scratch_take(&f->cursor[q], f->ub[u] * f->es, bytes);
            o.dst = lower_ref(TP_BUF_SCRATCH, q, f->in_off[at]);
          } else {
            o.dst = lower_ref(TP_BUF_DATA, q, f->ub[u] * f->es);
          }
          AR_CHECK(put(f, r, &o));
          int ds = data_stream(f, r, q);
          AR_CHECK(ev_record(f, r, 1, k, &f->rd_ev[(size_t)r * f->nu + u]));
          AR_CHECK(ev_wait(f, r, ds, k, f->rd_ev[(size_t)r * f->nu + u]));
          AR_CHECK(pace_send(f, r, ds, k, slot));
          f->in_val[at] = ++f->sent[r][q];
          AR_CHECK(flag_write(f, r, ds, k, q, SLOT_DATA(f, r), f->in_val[at]));
        }
      }
  return AR_OK;
}

/* Plans round k's RECV words: q must be ready before r's copies of round k land when they
 * overwrite q's data (q's reads and writes of those units done) or, in a one-port schedule,
 * when q received from others in its previous receiving round (their copies landed first, so
 * that round k's senders do not share q's ingress with round k - 1's: the port model). */
static void plan_recv(struct flow *f, int k, size_t lo, size_t hi) {
  const struct ar_schedule *s = f->s;
  memset(f->rr_now, 0, sizeof(f->rr_now));
  for (size_t i = lo; i < hi; i++) {
    const struct ar_xfer *x = &s->xfers[i];
    int q = x->dst, r = x->src, need = x->op == AR_COPY;
    if (!need && s->ports <= 1) { /* did q receive from anyone else in its previous round? */
      size_t a, b;
      for (int k2 = k - 1; k2 >= 0 && !need; k2--) {
        round_span(s, k2, &a, &b);
        int got = 0;
        for (size_t t = a; t < b; t++)
          if (s->xfers[t].dst == q) {
            got = 1;
            if (s->xfers[t].src != r) need = 1;
          }
        if (got) break;
      }
    }
    if (need && !f->rr_now[q][r]) f->rr_now[q][r] = ++f->rr[q][r];
  }
}

/* Emits rank q's RECV writes of round k on its signal stream (2, so that they never wait
 * behind q's sums): for each sender r that needs one, wait until the units r overwrites are
 * free (q's copies reading them, the writes before) and, in a one-port schedule, until every
 * earlier copy into q from the other senders landed, then RECV to r. */
static ar_status emit_recv(struct flow *f, int q, int k, size_t lo, size_t hi) {
  const struct ar_schedule *s = f->s;
  for (int r = 0; r < f->n; r++) {
    if (!f->rr_now[q][r]) continue;
    for (size_t i = lo; i < hi; i++) {
      const struct ar_xfer *x = &s->xfers[i];
      if (x->src != r || x->dst != q || x->op != AR_COPY) continue;
      for (int c = x->chunk; c < x->chunk + x->count; c++)
        for (int j = 0; j < f->nb; j++) {
          int u = c * f->nb + j;
          AR_CHECK(ev_wait(f, q, 2, k, f->rd_ev[(size_t)q * f->nu + u]));
          AR_CHECK(wait_written(f, q, 2, k, u));
        }
    }
    for (int p = 0; s->ports <= 1 && p < f->n; p++) /* (emitted before this round's sends) */
      if (p != q && p != r && f->sent[p][q])        /* r's own copies go in order */
        AR_CHECK(flag_wait(f, q, 2, k, SLOT_DATA(f, p), f->sent[p][q]));
    AR_CHECK(flag_write(f, q, 2, k, r, SLOT_RECV(f, q), f->rr_now[q][r]));
  }
  return AR_OK;
}

/* Emits rank q's stream-0 work of round k: per batch and chunk the sum of
 * every reduce into q (wait for the sources' DATA, for q's own reads and the unit's last
 * write, sum, record), then the wait for every copy of round k into q's data (which becomes
 * the units' last write). */
static ar_status emit_receives(struct flow *f, int q, int k, size_t lo, size_t hi) {
  const struct ar_schedule *s = f->s;
  int n = f->n;
  for (int j = 0; j < f->nb; j++)
    for (int c = 0; c < f->nc; c++) {
      int u = c * f->nb + j, srcs[AR_MAX_GPUS], ns = 0;
      if (f->ue[u] <= f->ub[u]) continue;
      for (size_t i = lo; i < hi; i++) {
        const struct ar_xfer *x = &s->xfers[i];
        if (x->dst == q && x->op == AR_REDUCE && c >= x->chunk && c < x->chunk + x->count)
          srcs[ns++] = x->src;
      }
      if (!ns) continue;
      for (int a = 1; a < ns; a++) /* rank order */
        for (int b = a; b > 0 && srcs[b - 1] > srcs[b]; b--) {
          int t = srcs[b];
          srcs[b] = srcs[b - 1];
          srcs[b - 1] = t;
        }
      struct tp_op o = lower_op_new(TP_OP_SUM, 0, k);
      o.src[o.nsrc++] = lower_ref(TP_BUF_DATA, q, f->ub[u] * f->es);
      for (int a = 0; a < ns; a++) {
        size_t at = (size_t)(q * n + srcs[a]) * f->nu + u;
        AR_CHECK(flag_wait(f, q, 0, k, SLOT_DATA(f, srcs[a]), f->in_val[at]));
        o.src[o.nsrc++] = lower_ref(TP_BUF_SCRATCH, q, f->in_off[at]);
      }
      AR_CHECK(ev_wait(f, q, 0, k, f->rd_ev[(size_t)q * f->nu + u]));
      AR_CHECK(wait_written(f, q, 0, k, u));
      o.dst = lower_ref(TP_BUF_DATA, q, f->ub[u] * f->es);
      o.bytes = (f->ue[u] - f->ub[u]) * f->es;
      o.blocks = f->set->flow_sum_blocks > 0 ? f->set->flow_sum_blocks : TP_FLOW_SUM_BLOCKS;
      AR_CHECK(put(f, q, &o));
      size_t w = (size_t)q * f->nu + u;
      AR_CHECK(ev_record(f, q, 0, k, &f->w_ev[w]));
      f->w_kind[w] = 1;
    }
  /* copies into q's data: landed, batch by batch as they come */
  for (int j = 0; j < f->nb; j++)
    for (size_t i = lo; i < hi; i++) {
      const struct ar_xfer *x = &s->xfers[i];
      if (x->dst != q || x->op != AR_COPY) continue;
      for (int c = x->chunk; c < x->chunk + x->count; c++) {
        int u = c * f->nb + j;
        if (f->ue[u] <= f->ub[u]) continue;
        size_t w = (size_t)q * f->nu + u, at = (size_t)(q * n + x->src) * f->nu + u;
        f->w_kind[w] = 2;
        f->w_peer[w] = x->src;
        f->w_val[w] = f->in_val[at];
        AR_CHECK(flag_wait(f, q, 0, k, SLOT_DATA(f, x->src), f->in_val[at]));
      }
    }
  return AR_OK;
}

/* Returns the mini-batches per chunk: the pipeline asked for, else the largest chunk in
 * pieces of at most set->flow_batch_bytes (at most TP_FLOW_MAX; at least TP_FLOW_SPLIT for big
 * chunks of an AR_TRAIT_SUM_FORWARD schedule); at most the smallest non-empty chunk's TP_UNIT
 * blocks. */
static int flow_batches(const struct flow *f, size_t nelem, int pipeline) {
  size_t most = 0, least = SIZE_MAX;
  for (int c = 0; c < f->nc; c++) {
    size_t len = ar_chunk_begin(nelem, f->nc, c + 1) - ar_chunk_begin(nelem, f->nc, c);
    if (len > most) most = len;
    if (len && len < least) least = len;
  }
  size_t nb = (size_t)pipeline;
  size_t batch = f->set->flow_batch_bytes ? f->set->flow_batch_bytes : TP_FLOW_BATCH;
  if (pipeline <= 0) {
    nb = (most * f->es + batch - 1) / batch;
    if (nb > TP_FLOW_MAX) nb = TP_FLOW_MAX;
    if (f->s->traits & AR_TRAIT_SUM_FORWARD && most * f->es >= TP_FLOW_SPLIT_BYTES &&
        nb < TP_FLOW_SPLIT)
      nb = TP_FLOW_SPLIT;
  }
  size_t units = least == SIZE_MAX ? 1 : (least + TP_UNIT - 1) / TP_UNIT;
  if (nb > units) nb = units;
  return nb < 1 ? 1 : (int)nb;
}

/* Returns 1 when some round copies into a chunk that its receiver sends in the same round
 * (a swap: each side's RECV would wait for its own copy, which waits for the other's RECV). */
static int has_swap(const struct ar_schedule *s) {
  for (size_t i = 0; i < s->nxfers; i++) {
    const struct ar_xfer *x = &s->xfers[i];
    if (x->op != AR_COPY) continue;
    for (size_t t = 0; t < s->nxfers; t++) {
      const struct ar_xfer *y = &s->xfers[t];
      if (y->round == x->round && y->src == x->dst && y->chunk < x->chunk + x->count &&
          x->chunk < y->chunk + y->count)
        return 1;
    }
  }
  return 0;
}

/* Compiles every rank; see exec_prog.h. */
static ar_status flow_all(struct flow *f) {
  const struct ar_schedule *s = f->s;
  int n = f->n, nr = s->nrounds;
  if (has_swap(s)) {
    snprintf(f->reason, f->reason_len, "a round copies into a chunk its receiver sends");
    return AR_ERR_UNSUPPORTED;
  }
  for (int k = 0; k < nr; k++) {
    size_t lo, hi;
    round_span(s, k, &lo, &hi);
    if (lo == hi) continue;
    for (int r = 0; r < n; r++) { /* the iteration's start, in r's first round with work */
      int has = 0;
      for (size_t i = lo; i < hi; i++)
        has |= s->xfers[i].src == r || s->xfers[i].dst == r;
      if (!has || f->active[r]) continue;
      /* the copy stream starts here; READY to everyone who copies into r goes from a signal
       * stream, by kernels, beside it (as memop copies on stream 0 before the start they held
       * a straggler's first copy back 22 us, 64 MiB timelines, runs/reference/h200x4-issue4-all) */
      int ev;
      AR_CHECK(ev_record(f, r, 0, k, &ev));
      AR_CHECK(ev_wait(f, r, 1, k, ev));
      AR_CHECK(ev_wait(f, r, 2, k, ev));
      for (int q = 0; q < n; q++)
        for (size_t i = 0; i < s->nxfers; i++)
          if (s->xfers[i].src == q && s->xfers[i].dst == r) {
            AR_CHECK(flag_write(f, r, 2, k, q, SLOT_READY(f, r), 1));
            break;
          }
    }
    /* per round: RECV writes, sends, sums, so that the program order of every rank is a
     * valid serial order too (tp_check sim squeezes a rank's streams into one queue) */
    plan_recv(f, k, lo, hi);
    for (int q = 0; q < n; q++)
      AR_CHECK(emit_recv(f, q, k, lo, hi));
    for (int r = 0; r < n; r++)
      AR_CHECK(emit_sends(f, r, k, lo, hi));
    for (int q = 0; q < n; q++)
      AR_CHECK(emit_receives(f, q, k, lo, hi));
  }
  for (int r = 0; r < n; r++) { /* the end: every copy into r landed, the copy stream joined */
    if (!f->active[r]) continue;
    for (int p = 0; p < n; p++)
      if (f->sent[p][r]) AR_CHECK(flag_wait(f, r, 0, nr - 1, SLOT_DATA(f, p), f->sent[p][r]));
    for (int st = 1; st < f->p->rank[r].nstreams; st++) {
      int ev;
      AR_CHECK(ev_record(f, r, st, nr - 1, &ev));
      AR_CHECK(ev_wait(f, r, 0, nr - 1, ev));
    }
  }
  uint32_t most = 1;
  for (int r = 0; r < n; r++) {
    f->p->rank[r].scratch_bytes = f->cursor[r];
    for (int q = 0; q < n; q++) {
      if (f->sent[r][q] > most) most = f->sent[r][q];
      if (f->rr[r][q] > most) most = f->rr[r][q];
    }
  }
  f->p->span = most + 1;
  return AR_OK;
}

ar_status lower_flow_build(const struct ar_schedule *s, size_t nelem, int esize,
                        int pipeline, const struct tp_degrade *dg,
                        const struct lower_settings *set, struct tp_prog *p, char *reason,
                        size_t reason_len) {
  struct flow f;
  memset(&f, 0, sizeof(f));
  f.s = s;
  f.dg = dg && dg->n > 0 ? dg : NULL;
  f.set = set;
  for (int r = 0; r < AR_MAX_GPUS; r++)
    f.out_rel[r] = f.out_ev[r] = -1;
  f.p = p;
  f.n = s->nranks;
  f.nc = s->nchunks;
  f.es = esize;
  f.reason = reason;
  f.reason_len = reason_len;
  f.nb = flow_batches(&f, nelem, pipeline);
  f.nu = f.nc * f.nb;
  p->nslots = 3 * f.n;
  p->dataflow = 3;
  p->batches_max = f.nb;
  p->stride = (uint32_t)f.nb;
  size_t cells = (size_t)f.n * f.nu;
  f.ub = (size_t *)calloc(f.nu, sizeof(size_t));
  f.ue = (size_t *)calloc(f.nu, sizeof(size_t));
  f.w_kind = (int *)calloc(cells, sizeof(int));
  f.w_ev = (int *)calloc(cells, sizeof(int));
  f.w_peer = (int *)calloc(cells, sizeof(int));
  f.rd_ev = (int *)malloc(cells * sizeof(int));
  f.w_val = (uint32_t *)calloc(cells, sizeof(uint32_t));
  f.flag_waited = (uint32_t *)calloc((size_t)f.n * TP_FLOW_STREAMS * p->nslots, sizeof(uint32_t));
  f.in_off = (size_t *)calloc(cells * f.n, sizeof(size_t));
  f.in_val = (uint32_t *)calloc(cells * f.n, sizeof(uint32_t));
  ar_status st = AR_ERR_NOMEM;
  if (f.ub && f.ue && f.w_kind && f.w_ev && f.w_peer && f.rd_ev && f.w_val && f.flag_waited &&
      f.in_off && f.in_val) {
    for (size_t i = 0; i < cells; i++)
      f.rd_ev[i] = -1;
    for (int r = 0; r < f.n; r++)
      for (int a = 0; a < TP_FLOW_STREAMS; a++)
        for (int b = 0; b < TP_FLOW_STREAMS; b++)
          f.ev_waited[r][a][b] = -1;
    for (int c = 0; c < f.nc; c++)
      for (int j = 0; j < f.nb; j++)
        lower_batch_range(ar_chunk_begin(nelem, f.nc, c), ar_chunk_begin(nelem, f.nc, c + 1), f.nb,
                          j, &f.ub[c * f.nb + j], &f.ue[c * f.nb + j]);
    st = flow_all(&f);
  }
  free(f.ub);
  free(f.ue);
  free(f.w_kind);
  free(f.w_ev);
  free(f.w_peer);
  free(f.rd_ev);
  free(f.w_val);
  free(f.flag_waited);
  free(f.in_off);
  free(f.in_val);
  for (int r = 0; r < AR_MAX_GPUS; r++)
    free(f.ev_stream[r]);
  return st;
}
