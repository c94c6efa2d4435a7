/* sm program: one stream, interpreted by every block of the persistent kernel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"

ar_status lower_emit_sm(struct build *bd, int r) {
  int es = bd->esize, first = 1;
  double fr = lower_fac(bd, r); /* emulation: > 0 when r is degraded */
  for (int k = 0; k < bd->nr; k++) {
    struct rr *x = lower_rr_at(bd, r, k);
    if (!x->nsrc && !x->nreader) continue;
    struct tp_op o;
    if (!first) { /* our earlier writes are complete and visible before anyone reads them */
      o = lower_op_new(TP_OP_SYNC, 0, k);
      AR_CHECK(lower_emit(bd->p, r, &o));
    }
    first = 0;
    if (fr > 0) AR_CHECK(lower_emit_stamp(bd, r, 0, k, 0)); /* slot 0: the round's start */
    AR_CHECK(lower_emit_ready(bd, r, k, 0));
    int waited[AR_MAX_GPUS] = {0}, full[AR_MAX_GPUS], nhaz = 0;
    for (int i = 0; i < x->nsrc; i++) {
      o = lower_op_new(TP_OP_WAIT_FLAG, 0, k);
      o.slot = x->srcs[i];
      o.val = lower_ready_val(bd, k);
      AR_CHECK(lower_emit(bd->p, r, &o));
    }
    /* emulation: our reads start now (slot 1), every source ready; they are done once our
     * own ingress has carried them all and each degraded source's shared egress has carried
     * our share of it */
    uint64_t rd = x->nsrc ? lower_pace_ns(bd, fr, lower_shared_bytes(bd, r, k, 0, SIZE_MAX)) : 0;
    for (int i = 0; i < x->nsrc; i++) {
      int src = x->srcs[i];
      uint64_t v =
          lower_pace_ns(bd, lower_fac(bd, src),
                        lower_shared_bytes(bd, src, k, 1, lower_flow_bytes(bd, src, r, k)));
      if (v > rd) rd = v;
    }
    if (rd) AR_CHECK(lower_emit_stamp(bd, r, 0, k, 1));
    for (int g = 0; g < x->nseg; g++) { /* read and sum in one pass */
      struct seg *sg = &x->segs[g];
      o = lower_op_new(TP_OP_SUM, 0, k);
      if (sg->op == AR_REDUCE) o.src[o.nsrc++] = lower_ref(TP_BUF_DATA, r, sg->b * es);
      for (int q = 0; q < sg->nsrc; q++)
        o.src[o.nsrc++] = lower_ref(TP_BUF_DATA, sg->src[q], sg->b * es);
      o.dst = sg->hazard ? lower_ref(TP_BUF_SCRATCH, r, sg->scr[0])
                         : lower_ref(TP_BUF_DATA, r, sg->b * es);
      o.bytes = (sg->e - sg->b) * es;
      nhaz += sg->hazard;
      AR_CHECK(lower_emit(bd->p, r, &o));
    }
    if (rd) AR_CHECK(lower_emit_pace(bd, r, 0, k, 1, rd, -1, 0));
    if (x->nsrc) { /* every block's reads are done: release the sources */
      o = lower_op_new(TP_OP_SYNC, 0, k);
      AR_CHECK(lower_emit(bd->p, r, &o));
      for (int i = 0; i < x->nsrc; i++) {
        o = lower_op_new(TP_OP_WRITE_FLAG, 0, k);
        o.peer = x->srcs[i];
        o.slot = bd->n + r;
        o.val = lower_done_val(bd, k, 1);
        AR_CHECK(lower_emit(bd->p, r, &o));
      }
    }
    for (int i = 0; i < x->nreader; i++)
      full[i] = lower_reads_of(bd, x->readers[i], r, k);
    if (nhaz) {
      AR_CHECK(lower_emit_done_waits(bd, r, k, full, waited));
      for (int g = 0; g < x->nseg; g++) {
        struct seg *sg = &x->segs[g];
        if (!sg->hazard) continue;
        o = lower_op_new(TP_OP_SUM, 0, k);
        o.nsrc = 1;
        o.src[0] = lower_ref(TP_BUF_SCRATCH, r, sg->scr[0]);
        o.dst = lower_ref(TP_BUF_DATA, r, sg->b * es);
        o.bytes = (sg->e - sg->b) * es;
        AR_CHECK(lower_emit(bd->p, r, &o));
      }
    }
    AR_CHECK(lower_emit_done_waits(bd, r, k, full, waited));
    if (fr > 0 && x->nreader) /* our egress budget carried everything read from us */
      AR_CHECK(lower_emit_pace(
          bd, r, 0, k, 0, lower_pace_ns(bd, fr, lower_shared_bytes(bd, r, k, 1, SIZE_MAX)), -1, 0));
  }
  return AR_OK;
}

/* Frees the builder's per-round records. */
