/* ll program (lower.h, TP_MODE_LL): per round every PUT of a rank, then its TAKEs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"


/* The most bytes one rank sends in one round. */
static size_t busiest_round(struct build *bd) {
  size_t most = 0, es = (size_t)bd->esize;
  for (int k = 0; k < bd->nr; k++)
    for (int r = 0; r < bd->n; r++) {
      size_t sent = 0;
      for (int w = 0; w < bd->n; w++) {
        struct rr *x = lower_rr_at(bd, w, k);
        for (int g = 0; g < x->nseg; g++)
          for (int i = 0; i < x->segs[g].nsrc; i++)
            if (x->segs[g].src[i] == r) sent += (x->segs[g].e - x->segs[g].b) * es;
      }
      if (sent > most) most = sent;
    }
  return most;
}

/* Signals' slice by size: the largest of 16K, 8K, ... 512 that still gives every warp of a
 * full grid a slice of the busiest round (fewer, larger slices pay fewer fences and flags,
 * but a warp without a slice leaves its share of the link idle); 0 when even `least` does not. */
static size_t signals_slice(size_t busiest, size_t least) {
  for (size_t sb = TP_LL_SIGNALS_SLICE_MAX; sb >= least; sb /= 2)
    if (busiest / sb >= TP_LL_GRID_WARPS) return sb;
  return 0;
}

/* The protocol and the slice for this buffer (lower.h). */
static void choose_protocol(struct build *bd) {
  struct tp_prog *p = bd->p;
  size_t nbytes = bd->nelem * (size_t)bd->esize;
  p->ll_protocol = bd->set->ll_protocol;
  p->ll_forward = bd->set->ll_forward;
  size_t busiest = busiest_round(bd);
  if (p->ll_protocol == TP_LL_AUTO) /* signals' slice by size is then at least the minimum */
    p->ll_protocol = nbytes <= bd->set->ll_lines_max                         ? TP_LL_LINES
                     : signals_slice(busiest, TP_LL_SIGNALS_SLICE_MIN) ? TP_LL_SIGNALS
                                                                       : TP_LL_LINES128;
  if (p->ll_protocol == TP_LL_LINES) {
    p->ll_slice = TP_LL_LINES_SLICE;
    p->ll_slot = 2 * TP_LL_LINES_SLICE;
  } else if (p->ll_protocol == TP_LL_LINES128) {
    p->ll_slice = TP_LL_LINES128_SLICE;
    p->ll_slot = TP_LL_LINES128_SLOT;
  } else {
    size_t sb = bd->set->ll_slice ? bd->set->ll_slice : signals_slice(busiest, 512);
    p->ll_slice = p->ll_slot = sb ? sb : 512;
  }
}

/* Lays out every rank's receive slots and flag words, in (round, range, source) order: per
 * source a region of the range's whole slices and a flag word per slice (an empty range has
 * none: offset 0, word 0). */
static void plan_slots(struct build *bd) {
  size_t es = (size_t)bd->esize, sb = bd->p->ll_slice, ss = bd->p->ll_slot;
  for (int w = 0; w < bd->n; w++) {
    size_t cursor = 0, words = 0;
    int flags = 0;
    for (int k = 0; k < bd->nr; k++) {
      struct rr *x = lower_rr_at(bd, w, k);
      for (int g = 0; g < x->nseg; g++) {
        struct seg *sg = &x->segs[g];
        size_t x0 = sg->b * es, x1 = sg->e * es;
        size_t nsl = x1 > x0 ? (x1 - 1) / sb - x0 / sb + 1 : 0;
        sg->flag0 = flags;
        flags += sg->nsrc;
        for (int i = 0; i < sg->nsrc; i++) {
          sg->scr[i] = nsl ? cursor : 0;
          sg->flagw[i] = nsl ? words : 0;
          cursor += nsl * ss;
          words += nsl;
        }
      }
    }
    bd->p->rank[w].scratch_bytes = cursor;
    bd->p->rank[w].ll_flags = words;
    if (flags > bd->p->nslots) bd->p->nslots = flags;
  }
}

/* Rank r's sends of round k: every range a peer receives from r, into that peer's slot;
 * peers in shift order (r + 1, r + 2, ...), so that while every rank sends to several, the
 * ranks together send one permutation at a time rather than all to rank 0 first. */
static ar_status emit_puts(struct build *bd, int r, int k) {
  size_t es = (size_t)bd->esize;
  for (int j = 1; j <= bd->n; j++) {
    int w = (r + j) % bd->n;
    struct rr *x = lower_rr_at(bd, w, k);
    for (int g = 0; g < x->nseg; g++) {
      struct seg *sg = &x->segs[g];
      for (int i = 0; i < sg->nsrc; i++) {
        if (sg->src[i] != r) continue;
        struct tp_op o = lower_op_new(TP_OP_PUT, 0, k);
        o.peer = w;
        o.slot = sg->flag0 + i;
        o.nsrc = 1;
        o.src[0] = lower_ref(TP_BUF_DATA, r, sg->b * es);
        o.dst = lower_ref(TP_BUF_SCRATCH, w, sg->scr[i]);
        o.ll_flag[0] = sg->flagw[i];
        o.bytes = (sg->e - sg->b) * es;
        AR_CHECK(lower_emit(bd->p, r, &o));
      }
    }
  }
  return AR_OK;
}

/* Rank r's receives of round k: each range from its slots into its data. */
static ar_status emit_takes(struct build *bd, int r, int k) {
  size_t es = (size_t)bd->esize;
  struct rr *x = lower_rr_at(bd, r, k);
  for (int g = 0; g < x->nseg; g++) {
    struct seg *sg = &x->segs[g];
    struct tp_op o = lower_op_new(TP_OP_TAKE, 0, k);
    o.dst = lower_ref(TP_BUF_DATA, r, sg->b * es);
    o.slot = sg->flag0;
    if (sg->op == AR_REDUCE) o.src[o.nsrc++] = o.dst;
    for (int i = 0; i < sg->nsrc; i++) {
      o.ll_flag[o.nsrc] = sg->flagw[i];
      o.src[o.nsrc++] = lower_ref(TP_BUF_SCRATCH, r, sg->scr[i]);
    }
    o.bytes = (sg->e - sg->b) * es;
    AR_CHECK(lower_emit(bd->p, r, &o));
  }
  return AR_OK;
}

ar_status lower_emit_ll(struct build *bd) {
  if (bd->dg) {
    const struct ar_transport *t = ar_transport_at(AR_TP_LL);
    snprintf(bd->reason, bd->reason_len, "%s: %s", t->name, t->na[AR_TP_DEGRADE]);
    return AR_ERR_UNSUPPORTED;
  }
  bd->p->nslots = 0;
  choose_protocol(bd);
  plan_slots(bd);
  bd->p->stride = 1;
  bd->p->span = 1;
  for (int r = 0; r < bd->n; r++) {
    for (int k = 0; k < bd->nr; k++) {
      AR_CHECK(emit_puts(bd, r, k));
      AR_CHECK(emit_takes(bd, r, k));
    }
    bd->p->rank[r].nstreams = 1;
  }
  return AR_OK;
}

int lower_ll_forwards(const struct tp_prog *p, int r, size_t i) {
  if (p->mode != TP_MODE_LL || !p->ll_forward || r < 0 || r >= p->n) return 0;
  const struct tp_rank_prog *rp = &p->rank[r];
  if (i >= rp->nops) return 0;
  const struct tp_op *t = &rp->ops[i];
  if (t->kind != TP_OP_TAKE || !t->bytes) return 0;
  int k = 0;
  for (size_t j = i + 1; j < rp->nops; j++, k++) {
    const struct tp_op *o = &rp->ops[j];
    if (o->kind != TP_OP_PUT || o->round != t->round + 1 || !o->bytes ||
        o->src[0].off < t->dst.off || o->src[0].off + o->bytes > t->dst.off + t->bytes)
      break;
  }
  return k;
}
