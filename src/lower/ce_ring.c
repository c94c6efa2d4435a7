/* ce dataflow ring program (lower.h, "ce dataflow ring"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"

/* ---- ce dataflow ring (AR_TRAIT_PIPELINED schedules with ring structure; exec_prog.h) ----
 * Rounds: the schedule's 2(n-1), but no rank waits for a whole round: mini-batch j of round k
 * depends only on batch j of round k-1 (and its scratch slot's previous user), so the copy
 * engines stay busy across round boundaries. Bytes: the schedule's. Source: asyncallreduce.md
 * (mini-batches, double-buffered streams and scratch) with per-batch dependencies. Limits: ring
 * structure (ring_check), no degraded-link emulation; anything else gets emit_ce_push. */

/* Returns the op (AR_COPY / AR_REDUCE) of every transfer of round k (ring_check made them
 * equal). */
static int ring_op(struct build *bd, int k) {
  return lower_rr_at(bd, 0, k)->segs[0].op;
}

/* Returns the latest REDUCE round before k with k's parity (the previous user of k's scratch
 * slots), or -1. */
static int ring_prev_user(struct build *bd, int k) {
  for (int k2 = k - 2; k2 >= 0; k2 -= 2)
    if (ring_op(bd, k2) == AR_REDUCE) return k2;
  return -1;
}

/* Returns the next REDUCE round after k with k's parity (the next user of k's slots), or -1. */
static int ring_next_user(struct build *bd, int k) {
  for (int k2 = k + 2; k2 < bd->nr; k2 += 2)
    if (ring_op(bd, k2) == AR_REDUCE) return k2;
  return -1;
}

/* Returns 1 when the schedule has the dataflow ring's structure, filling bd->succ and
 * bd->pred; else 0 (the reason logged at trace level). Needs find_readers. The structure
 * makes every element's accesses one chain of hops (exec_prog.h), which is what lets the
 * program order them batch by batch instead of round by round. */
int lower_ring_check(struct build *bd) {
  const char *why = bd->nr < 1 ? "no rounds" : NULL;
  int copying = 0;
  for (int k = 0; !why && k < bd->nr; k++) {
    for (int r = 0; !why && r < bd->n; r++) {
      const struct rr *x = lower_rr_at(bd, r, k);
      if (x->nseg != 1 || x->nsrc != 1 || x->nreader != 1) {
        why = "a rank does not receive one range from one peer and send one to one peer";
        break;
      }
      if (x->segs[0].hazard) why = "a rank sends what it receives in the same round";
      if (x->segs[0].op != lower_rr_at(bd, 0, k)->segs[0].op)
        why = "a round mixes copies and reduces";
      if (k == 0) {
        bd->pred[r] = x->srcs[0];
        bd->succ[r] = x->readers[0];
      } else if (bd->pred[r] != x->srcs[0] || bd->succ[r] != x->readers[0]) {
        why = "a rank's peers change between rounds";
      } else {
        const struct seg *sent = &lower_rr_at(bd, bd->succ[r], k)->segs[0];
        const struct seg *got = &lower_rr_at(bd, r, k - 1)->segs[0];
        if (sent->b != got->b || sent->e != got->e)
          why = "a rank does not send what it received the round before";
      }
    }
    if (!why && ring_op(bd, k) == AR_COPY) copying = 1;
    if (!why && ring_op(bd, k) == AR_REDUCE && copying) why = "a reduce round after a copy round";
  }
  /* the chains (one per round-0 transfer) must not share elements */
  for (int r = 0; !why && r < bd->n; r++)
    for (int t = r + 1; !why && t < bd->n; t++) {
      const struct seg *a = &lower_rr_at(bd, r, 0)->segs[0], *b = &lower_rr_at(bd, t, 0)->segs[0];
      if (a->b < b->e && b->b < a->e) why = "two chains share elements";
    }
  if (why) ar_log(AR_LOG_TRACE, "ce: %s: the per-round program: %s", bd->s->algo, why);
  return !why;
}

/* Returns the mini-batches per transfer: the pipeline asked for, else about
 * set->ring_batch_bytes each (TP_RING_MIN..TP_RING_MAX); at most the TP_UNIT blocks of the
 * smallest transfer, so that every batch of every transfer is non-empty. One count for the
 * whole program: a chain's batches are then the same ranges at every hop. */
static int ring_batches(struct build *bd) {
  size_t most = 0, least = SIZE_MAX;
  for (int r = 0; r < bd->n; r++)
    for (int k = 0; k < bd->nr; k++) {
      const struct seg *g = &lower_rr_at(bd, r, k)->segs[0];
      if (g->e - g->b > most) most = g->e - g->b;
      if (g->e - g->b < least) least = g->e - g->b;
    }
  size_t nb = (size_t)bd->pipeline;
  if (bd->pipeline <= 0) {
    nb = most * (size_t)bd->esize /
         (bd->set->ring_batch_bytes ? bd->set->ring_batch_bytes : TP_RING_BATCH);
    if (nb < TP_RING_MIN) nb = TP_RING_MIN;
    if (nb > TP_RING_MAX) nb = TP_RING_MAX;
  }
  size_t units = (least + TP_UNIT - 1) / TP_UNIT;
  if (nb > units) nb = units;
  return nb < 1 ? 1 : (int)nb;
}

/* Plans mini-batches, copy streams and scratch slots, and the program's flag layout. */
void lower_ring_plan(struct build *bd) {
  int es = bd->esize, nred = 0;
  bd->nb = ring_batches(bd);
  bd->ns = bd->set->ring_streams;
  if (bd->ns > TP_DF_MAX_STREAMS) bd->ns = TP_DF_MAX_STREAMS;
  if (bd->ns > bd->nb) bd->ns = bd->nb; /* every stream carries a batch of every round */
  if (bd->ns < 1) bd->ns = 1;
  size_t most = 0; /* the largest mini-batch landing in scratch, bytes */
  for (int k = 0; k < bd->nr; k++) {
    if (ring_op(bd, k) != AR_REDUCE) continue;
    nred++;
    for (int r = 0; r < bd->n; r++)
      for (int j = 0; j < bd->nb; j++) {
        const struct seg *g = &lower_rr_at(bd, r, k)->segs[0];
        size_t b, e;
        lower_batch_range(g->b, g->e, bd->nb, j, &b, &e);
        if ((e - b) * es > most) most = (e - b) * es;
      }
  }
  /* a slot holds any batch at the data's offset modulo 256 (16-byte vectors in the sum) */
  bd->slot_bytes = ((most + 255) & ~(size_t)255) + 256;
  size_t scratch = (size_t)(nred < 2 ? nred : 2) * bd->nb * bd->slot_bytes;
  for (int r = 0; r < bd->n; r++)
    bd->p->rank[r].scratch_bytes = scratch;
  bd->p->dataflow = 1;
  bd->p->batches_max = bd->nb;
  bd->p->stride = (uint32_t)bd->nb;
  bd->p->span = (uint32_t)bd->nr * bd->nb + 1; /* above every v(k, j) */
  if (TP_DF_DATA + bd->ns > bd->p->nslots) bd->p->nslots = TP_DF_DATA + bd->ns;
}

/* Flag value v(k, j) of mini-batch j of round k (DATA, FREE); READY is 1. */
static uint32_t ring_val(const struct build *bd, int k, int j) {
  return (uint32_t)k * bd->nb + j + 1;
}

/* Returns the byte offset of batch [b, ...) of round k, mini-batch j, in a rank's scratch:
 * slot (k % 2, j), at the data's offset modulo 256. */
static size_t ring_slot(const struct build *bd, int k, int j, size_t b) {
  return ((size_t)(k % 2) * bd->nb + j) * bd->slot_bytes + b * bd->esize % 256;
}

/* Emits a flag op (WRITE_FLAG to peer, or WAIT_FLAG when peer < 0) on rank r's stream. */
ar_status lower_ring_flag(struct build *bd, int r, int stream, int k, int peer, int slot,
                           uint32_t val) {
  struct tp_op o = lower_op_new(peer >= 0 ? TP_OP_WRITE_FLAG : TP_OP_WAIT_FLAG, stream, k);
  o.peer = peer >= 0 ? peer : 0;
  o.slot = slot;
  o.val = val;
  return lower_emit(bd->p, r, &o);
}

/* Emits an event op (RECORD or WAIT_EVENT) on rank r's stream. */
ar_status lower_ring_event(struct build *bd, int r, int kind, int stream, int k, int event) {
  struct tp_op o = lower_op_new(kind, stream, k);
  o.event = event;
  return lower_emit(bd->p, r, &o);
}

/* Event ids: 0..nb-1 the applies of each mini-batch (reused every round: a send waits for the
 * previous round's record, enqueued before it), then the iteration's start, then one join per
 * copy stream. */
#define RING_EV_START(bd) ((bd)->nb)
#define RING_EV_JOIN(bd, cs) ((bd)->nb + (cs))

/* Emits the start of rank r's iteration on stream 0: READY to the predecessor (stream 0 is
 * past r's previous iteration, whose copies it joined and whose incoming data it waited for,
 * and past the harness's writes of this one), and the event r's first copies wait for. */
static ar_status ring_emit_start(struct build *bd, int r) {
  AR_CHECK(lower_ring_flag(bd, r, 0, 0, bd->pred[r], TP_DF_READY, 1));
  return lower_ring_event(bd, r, TP_OP_RECORD, 0, 0, RING_EV_START(bd));
}

/* Emits the send of mini-batch j of round k by rank r, on copy stream 1 + j % ns: wait for
 * what it reads and where it writes, copy, DATA(k, j) to the successor. */
static ar_status ring_emit_send(struct build *bd, int r, int k, int j) {
  int cs = 1 + j % bd->ns, q = bd->succ[r], es = bd->esize;
  const struct seg *g = &lower_rr_at(bd, q, k)->segs[0]; /* what q receives from r */
  size_t b, e;
  lower_batch_range(g->b, g->e, bd->nb, j, &b, &e);
  if (k == 0 && j < bd->ns) { /* the stream's first copy of the iteration */
    AR_CHECK(lower_ring_event(bd, r, TP_OP_WAIT_EVENT, cs, k, RING_EV_START(bd)));
    AR_CHECK(lower_ring_flag(bd, r, cs, k, -1, TP_DF_READY, 1));
  }
  if (k > 0 && ring_op(bd, k - 1) == AR_REDUCE) /* our sum of this batch, one round back */
    AR_CHECK(lower_ring_event(bd, r, TP_OP_WAIT_EVENT, cs, k, j));
  else if (k > 0) /* it landed straight in our data: the predecessor's DATA says when */
    AR_CHECK(lower_ring_flag(bd, r, cs, k, -1, TP_DF_DATA + j % bd->ns, ring_val(bd, k - 1, j)));
  int prev = g->op == AR_REDUCE ? ring_prev_user(bd, k) : -1;
  if (prev >= 0) /* q has summed the slot's previous contents */
    AR_CHECK(lower_ring_flag(bd, r, cs, k, -1, TP_DF_FREE, ring_val(bd, prev, j)));
  struct tp_op o = lower_op_new(TP_OP_COPY, cs, k);
  o.bytes = (e - b) * es;
  o.nsrc = 1;
  o.src[0] = lower_ref(TP_BUF_DATA, r, b * es);
  o.dst = g->op == AR_REDUCE ? lower_ref(TP_BUF_SCRATCH, q, ring_slot(bd, k, j, b))
                             : lower_ref(TP_BUF_DATA, q, b * es);
  AR_CHECK(lower_emit(bd->p, r, &o));
  return lower_ring_flag(bd, r, cs, k, q, TP_DF_DATA + j % bd->ns, ring_val(bd, k, j));
}

/* Emits rank r's apply of mini-batch j of REDUCE round k on stream 0: wait until it landed,
 * sum the slot into data, record the batch's event (r's send of (k + 1, j) waits for it; the
 * record comes before the FREE write so that the send does not wait for the flag's copy), and
 * FREE to the predecessor when a later round reuses the slot. */
static ar_status ring_emit_apply(struct build *bd, int r, int k, int j) {
  int es = bd->esize;
  const struct seg *g = &lower_rr_at(bd, r, k)->segs[0];
  size_t b, e;
  lower_batch_range(g->b, g->e, bd->nb, j, &b, &e);
  AR_CHECK(lower_ring_flag(bd, r, 0, k, -1, TP_DF_DATA + j % bd->ns, ring_val(bd, k, j)));
  struct tp_op o = lower_op_new(TP_OP_SUM, 0, k);
  o.src[o.nsrc++] = lower_ref(TP_BUF_DATA, r, b * es);
  o.src[o.nsrc++] = lower_ref(TP_BUF_SCRATCH, r, ring_slot(bd, k, j, b));
  o.dst = lower_ref(TP_BUF_DATA, r, b * es);
  o.bytes = (e - b) * es;
  AR_CHECK(lower_emit(bd->p, r, &o));
  if (k + 1 < bd->nr) AR_CHECK(lower_ring_event(bd, r, TP_OP_RECORD, 0, k, j));
  if (ring_next_user(bd, k) >= 0)
    AR_CHECK(lower_ring_flag(bd, r, 0, k, bd->pred[r], TP_DF_FREE, ring_val(bd, k, j)));
  return AR_OK;
}

/* Emits the end of COPY round k on rank r's stream 0: every mini-batch landed in r's data
 * (each DATA word's last value of the round). Only marks and the iteration's end need it:
 * the copy streams forward a batch on its own DATA. */
static ar_status ring_emit_landed(struct build *bd, int r, int k) {
  for (int s = 0; s < bd->ns; s++) {
    int last = s + (bd->nb - 1 - s) / bd->ns * bd->ns; /* the round's last batch on stream s */
    AR_CHECK(lower_ring_flag(bd, r, 0, k, -1, TP_DF_DATA + s, ring_val(bd, k, last)));
  }
  return AR_OK;
}

/* Emits the join of rank r's copy streams into stream 0 at the iteration's end, so that the
 * harness's next writes of r's data follow r's last reads of it. */
static ar_status ring_emit_join(struct build *bd, int r) {
  int k = bd->nr - 1;
  for (int cs = 1; cs <= bd->ns; cs++) {
    AR_CHECK(lower_ring_event(bd, r, TP_OP_RECORD, cs, k, RING_EV_JOIN(bd, cs)));
    AR_CHECK(lower_ring_event(bd, r, TP_OP_WAIT_EVENT, 0, k, RING_EV_JOIN(bd, cs)));
  }
  return AR_OK;
}

/* ce dataflow ring program of rank r (exec_prog.h). Per round: the sends of every mini-batch
 * (copy streams), then its applies or landed waits (stream 0), so that a round's last op is on
 * stream 0 (marks) and every event is recorded before the waits that refer to it. */
ar_status lower_emit_ce_ring(struct build *bd, int r) {
  AR_CHECK(ring_emit_start(bd, r));
  for (int k = 0; k < bd->nr; k++) {
    for (int j = 0; j < bd->nb; j++)
      AR_CHECK(ring_emit_send(bd, r, k, j));
    if (ring_op(bd, k) == AR_REDUCE)
      for (int j = 0; j < bd->nb; j++)
        AR_CHECK(ring_emit_apply(bd, r, k, j));
    else
      AR_CHECK(ring_emit_landed(bd, r, k));
  }
  return ring_emit_join(bd, r);
}
