/* ce per-round push program (lower.h, "ce (TP_MODE_CE, push; emit_ce_push)"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"

void lower_mark_push(struct build *bd) {
  for (int r = 0; r < bd->n; r++)
    for (int k = 0; k < bd->nr; k++) {
      struct rr *x = lower_rr_at(bd, r, k);
      for (int i = 0; i < x->nsrc; i++)
        for (int j = 0; j < x->nitem[i]; j++)
          if (x->items[i][j].to_scratch) x->items[i][j].signal = 1;
    }
}

/* ce push program of rank r: the sender copies into the receiver's memory on its own streams,
 * so every cross-GPU wait is on local memory and every copy depends only on its own GPU:
 *   1. READY(k) to each rank that sends to us (our round k-1 is complete: scratch free, our
 *      data in its round-start state, our own round k-1 sends joined);
 *   2. per receiver q (copy stream 1+i): wait READY(k) from q, copy each item from our data into
 *      q's scratch (or q's data when q does not send that chunk this round), DATA(count) to q
 *      after the copies q applies;
 *   3. stream 0: per mini-batch, wait DATA from its senders, and for a range we also send this
 *      round, wait (events) for our own sends of it; then sum or copy scratch into data;
 *   4. round end: wait DATA(all) from every sender (direct copies landed), join the streams. */
ar_status lower_emit_ce_push(struct build *bd, int r) {
  int es = bd->esize;
  double fr = lower_fac(bd, r); /* emulation: > 0 when r is degraded */
  for (int k = 0; k < bd->nr; k++) {
    struct rr *x = lower_rr_at(bd, r, k);
    if (!x->nsrc && !x->nreader) continue;
    struct tp_op o;
    if (fr > 0) AR_CHECK(lower_emit_stamp(bd, r, 0, k, 0)); /* slot 0: the round's start */
    for (int i = 0; i < x->nsrc; i++) { /* we are ready to be written */
      o = lower_op_new(TP_OP_WRITE_FLAG, 0, k);
      o.peer = x->srcs[i];
      o.slot = r;
      o.val = lower_ready_val(bd, k);
      AR_CHECK(lower_emit(bd->p, r, &o));
    }
    int nev = 1 + x->nreader; /* 0 forks, 1+i joins stream 1+i, then the item events */
    if (x->nreader) {
      o = lower_op_new(TP_OP_RECORD, 0, k);
      o.event = 0;
      AR_CHECK(lower_emit(bd->p, r, &o));
    }
    for (int i = 0; i < x->nreader; i++) {
      int q = x->readers[i], cs = 1 + i;
      struct rr *y = lower_rr_at(bd, q, k);
      int si = lower_src_index(y, r);
      o = lower_op_new(TP_OP_WAIT_EVENT, cs, k);
      o.event = 0;
      AR_CHECK(lower_emit(bd->p, r, &o));
      o = lower_op_new(TP_OP_WAIT_FLAG, cs, k);
      o.slot = q;
      o.val = lower_ready_val(bd, k);
      AR_CHECK(lower_emit(bd->p, r, &o));
      /* emulation: a flow touching a degraded GPU starts now (slot 1+i), when both ends are
       * ready; its DATA flags wait for the slow link (and for r's shared egress budget) */
      double ff = fr > lower_fac(bd, q) ? fr : lower_fac(bd, q);
      if (ff > 0) AR_CHECK(lower_emit_stamp(bd, r, cs, k, cs));
      size_t sent = 0;
      for (int j = 0; j < y->nitem[si]; j++) {
        struct item *it = &y->items[si][j];
        sent += (it->e - it->b) * es;
        o = lower_op_new(TP_OP_COPY, cs, k);
        o.bytes = (it->e - it->b) * es;
        o.nsrc = 1;
        o.src[0] = lower_ref(TP_BUF_DATA, r, it->b * es);
        o.dst = it->to_scratch ? lower_ref(TP_BUF_SCRATCH, q, it->soff)
                               : lower_ref(TP_BUF_DATA, q, it->b * es);
        AR_CHECK(lower_emit(bd->p, r, &o));
        int overlaps = 0; /* does one of our own hazard writes of this round cover it? */
        for (int g = 0; g < x->nseg; g++)
          if (x->segs[g].hazard && x->segs[g].b < it->e && it->b < x->segs[g].e) overlaps = 1;
        it->pevent = -1;
        if (overlaps) {
          it->pevent = nev++;
          o = lower_op_new(TP_OP_RECORD, cs, k);
          o.event = it->pevent;
          AR_CHECK(lower_emit(bd->p, r, &o));
        }
        if (it->signal || j == y->nitem[si] - 1) {
          if (ff > 0)
            AR_CHECK(lower_emit_pace(bd, r, cs, k, cs, lower_pace_ns(bd, ff, (double)sent), 0,
                               lower_pace_ns(bd, fr, lower_shared_bytes(bd, r, k, 1, sent))));
          o = lower_op_new(TP_OP_WRITE_FLAG, cs, k);
          o.peer = q;
          o.slot = bd->n + r;
          o.val = lower_done_val(bd, k, j + 1);
          AR_CHECK(lower_emit(bd->p, r, &o));
        }
      }
      o = lower_op_new(TP_OP_RECORD, cs, k);
      o.event = 1 + i;
      AR_CHECK(lower_emit(bd->p, r, &o));
    }
    int waited[AR_MAX_GPUS] = {0};
    uint64_t gate = 0; /* emulation: r's ingress released so far this round (ns after slot 0) */
    for (int g = 0; g < x->nseg; g++) {
      struct seg *sg = &x->segs[g];
      if (sg->op != AR_REDUCE && !sg->hazard) continue;
      for (int j = 0; j < sg->nb; j++) {
        size_t b, e;
        lower_batch_range(sg->b, sg->e, sg->nb, j, &b, &e);
        if (e <= b) continue;
        for (int i = 0; i < x->nsrc; i++) /* the mini-batch landed */
          for (int t = 0; t < x->nitem[i]; t++)
            if (x->items[i][t].seg == g && x->items[i][t].batch == j && t + 1 > waited[i]) {
              o = lower_op_new(TP_OP_WAIT_FLAG, 0, k);
              o.slot = bd->n + x->srcs[i];
              o.val = lower_done_val(bd, k, t + 1);
              AR_CHECK(lower_emit(bd->p, r, &o));
              waited[i] = t + 1;
            }
        if (sg->hazard) /* our own sends of this range are done */
          for (int i = 0; i < x->nreader; i++) {
            struct rr *y = lower_rr_at(bd, x->readers[i], k);
            int si = lower_src_index(y, r);
            for (int t = 0; t < y->nitem[si]; t++) {
              struct item *it = &y->items[si][t];
              if (it->pevent >= 0 && it->b < e && b < it->e) {
                o = lower_op_new(TP_OP_WAIT_EVENT, 0, k);
                o.event = it->pevent;
                AR_CHECK(lower_emit(bd->p, r, &o));
              }
            }
          }
        if (fr > 0) { /* the mini-batch is usable once the shared ingress has carried it */
          uint64_t need = 0;
          for (int i = 0; i < x->nsrc; i++) {
            size_t got = 0;
            for (int t = 0; t < x->nitem[i]; t++) {
              got += (x->items[i][t].e - x->items[i][t].b) * es;
              if (x->items[i][t].seg != g || x->items[i][t].batch != j) continue;
              uint64_t v = lower_pace_ns(bd, fr, lower_shared_bytes(bd, r, k, 0, got));
              if (v > need) need = v;
            }
          }
          if (need > gate) AR_CHECK(lower_emit_pace(bd, r, 0, k, 0, need, -1, 0));
          if (need > gate) gate = need;
        }
        AR_CHECK(lower_emit_apply(bd, r, k, sg, b, e, es));
      }
    }
    for (int i = 0; i < x->nsrc; i++)
      if (x->nitem[i] > waited[i]) {
        o = lower_op_new(TP_OP_WAIT_FLAG, 0, k);
        o.slot = bd->n + x->srcs[i];
        o.val = lower_done_val(bd, k, x->nitem[i]);
        AR_CHECK(lower_emit(bd->p, r, &o));
      }
    if (fr > 0 && x->nsrc) { /* every byte received (direct copies too) */
      uint64_t all = lower_pace_ns(bd, fr, lower_shared_bytes(bd, r, k, 0, SIZE_MAX));
      if (all > gate) AR_CHECK(lower_emit_pace(bd, r, 0, k, 0, all, -1, 0));
    }
    for (int i = 0; i < x->nreader; i++) {
      o = lower_op_new(TP_OP_WAIT_EVENT, 0, k);
      o.event = 1 + i;
      AR_CHECK(lower_emit(bd->p, r, &o));
    }
  }
  return AR_OK;
}
