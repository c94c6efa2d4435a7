/* ce pull program (experiments only: AR_CE_DIR=pull). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"

void lw_mark_ce(struct build *bd) {
  for (int w = 0; w < bd->n; w++)
    for (int k = 0; k < bd->nr; k++) {
      struct rr *x = lw_rr_at(bd, w, k);
      for (int g = 0; g < x->nseg; g++) {
        struct seg *sg = &x->segs[g];
        if (!sg->hazard) continue;
        for (int j = 0; j < sg->nb; j++) {
          size_t b, e;
          tp_batch_range(sg->b, sg->e, sg->nb, j, &b, &e);
          for (int i = 0; e > b && i < x->nreader; i++)
            lw_need_of(bd, x->readers[i], w, k, b, e);
        }
      }
    }
}

/* ce pull program of rank r (the receiver copies from its sources; see tp_prog.h). Kept for
 * experiments (AR_CE_DIR=pull): on 4 x H200 it hung at once, both with stream memory operations
 * and with flag kernels, while the CPU simulation of the same program passes; the push program
 * above is the default. */
ar_status lw_emit_ce(struct build *bd, int r) {
  int es = bd->esize;
  for (int k = 0; k < bd->nr; k++) {
    struct rr *x = lw_rr_at(bd, r, k);
    if (!x->nsrc && !x->nreader) continue;
    AR_CHECK(lw_emit_ready(bd, r, k, 0));
    int waited[AR_MAX_GPUS] = {0}, full[AR_MAX_GPUS];
    if (x->nsrc) {
      /* event 0 forks the copy streams off stream 0, 1+i joins copy stream i back, and the
       * copies that land in scratch get the ids after those */
      int nev = 1 + x->nsrc;
      struct tp_op o = lw_op_new(TP_OP_RECORD, 0, k);
      o.event = 0;
      AR_CHECK(lw_emit(bd->p, r, &o));
      for (int i = 0; i < x->nsrc; i++) {
        int src = x->srcs[i], cs = 1 + i;
        o = lw_op_new(TP_OP_WAIT_EVENT, cs, k);
        o.event = 0;
        AR_CHECK(lw_emit(bd->p, r, &o));
        o = lw_op_new(TP_OP_WAIT_FLAG, cs, k);
        o.slot = src;
        o.val = lw_ready_val(bd, k);
        AR_CHECK(lw_emit(bd->p, r, &o));
        for (int j = 0; j < x->nitem[i]; j++) {
          struct item *it = &x->items[i][j];
          o = lw_op_new(TP_OP_COPY, cs, k);
          o.bytes = (it->e - it->b) * es;
          o.nsrc = 1;
          o.src[0] = lw_ref(TP_BUF_DATA, src, it->b * es);
          o.dst =
              it->to_scratch ? lw_ref(TP_BUF_SCRATCH, r, it->soff) : lw_ref(TP_BUF_DATA, r, it->b * es);
          AR_CHECK(lw_emit(bd->p, r, &o));
          if (it->to_scratch) {
            it->event = nev++;
            o = lw_op_new(TP_OP_RECORD, cs, k);
            o.event = it->event;
            AR_CHECK(lw_emit(bd->p, r, &o));
          }
          if (it->signal || j == x->nitem[i] - 1) {
            o = lw_op_new(TP_OP_WRITE_FLAG, cs, k);
            o.peer = src;
            o.slot = bd->n + r;
            o.val = lw_done_val(bd, k, j + 1);
            AR_CHECK(lw_emit(bd->p, r, &o));
          }
        }
        o = lw_op_new(TP_OP_RECORD, cs, k);
        o.event = 1 + i;
        AR_CHECK(lw_emit(bd->p, r, &o));
      }
      /* stream 0: apply what landed in scratch, batch by batch */
      for (int g = 0; g < x->nseg; g++) {
        struct seg *sg = &x->segs[g];
        if (sg->op != AR_REDUCE && !sg->hazard) continue;
        for (int j = 0; j < sg->nb; j++) {
          size_t b, e;
          tp_batch_range(sg->b, sg->e, sg->nb, j, &b, &e);
          if (e <= b) continue;
          for (int i = 0; i < x->nsrc; i++)
            for (int t = 0; t < x->nitem[i]; t++)
              if (x->items[i][t].seg == g && x->items[i][t].batch == j) {
                o = lw_op_new(TP_OP_WAIT_EVENT, 0, k);
                o.event = x->items[i][t].event;
                AR_CHECK(lw_emit(bd->p, r, &o));
              }
          if (sg->hazard) {
            int want[AR_MAX_GPUS];
            for (int i = 0; i < x->nreader; i++)
              want[i] = lw_need_of(bd, x->readers[i], r, k, b, e);
            AR_CHECK(lw_emit_done_waits(bd, r, k, want, waited));
          }
          AR_CHECK(lw_emit_apply(bd, r, k, sg, b, e, es));
        }
      }
      for (int i = 0; i < x->nsrc; i++) {
        o = lw_op_new(TP_OP_WAIT_EVENT, 0, k);
        o.event = 1 + i;
        AR_CHECK(lw_emit(bd->p, r, &o));
      }
    }
    for (int i = 0; i < x->nreader; i++)
      full[i] = lw_reads_of(bd, x->readers[i], r, k);
    AR_CHECK(lw_emit_done_waits(bd, r, k, full, waited));
  }
  return AR_OK;
}

/* ce push: marks the copies after which a sender signals DATA because the receiver applies
 * that mini-batch as soon as it lands. */
