/* The per-round plan the push and sm programs are emitted from: each rank's segments,
 * sources, readers and copies per round, flag values, and the degraded-link paces. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"

ar_status lower_build_round(struct build *bd, int k, size_t lo, size_t hi) {
  const struct ar_schedule *s = bd->s;
  int n = bd->n, nc = s->nchunks;
  size_t cells = (size_t)n * nc;
  uint32_t *mask = (uint32_t *)calloc(cells, sizeof(uint32_t));
  signed char *cop = (signed char *)malloc(cells);
  unsigned char *sent = (unsigned char *)calloc(cells, 1);
  ar_status st = AR_OK;
  if (!mask || !cop || !sent) {
    st = AR_ERR_NOMEM;
    goto out;
  }
  memset(cop, -1, cells);
  for (size_t i = lo; i < hi; i++) {
    const struct ar_xfer *x = &s->xfers[i];
    if (x->src == x->dst) {
      st = lower_fail(bd, "a transfer to itself", k, x->src, x->chunk);
      goto out;
    }
    for (int c = x->chunk; c < x->chunk + x->count; c++) {
      size_t at = (size_t)x->dst * nc + c;
      if (mask[at] & (1u << x->src)) {
        st = lower_fail(bd, "the same source twice", k, x->dst, c);
        goto out;
      }
      if (cop[at] >= 0 && (cop[at] != x->op || x->op == AR_COPY)) {
        st = lower_fail(bd, "a copy together with other transfers into one chunk", k, x->dst, c);
        goto out;
      }
      cop[at] = (signed char)x->op;
      mask[at] |= 1u << x->src;
      sent[(size_t)x->src * nc + c] = 1;
    }
  }
  for (int r = 0; r < n; r++) {
    struct rr *x = lower_rr_at(bd, r, k);
    const uint32_t *m = mask + (size_t)r * nc;
    const signed char *o = cop + (size_t)r * nc;
    const unsigned char *sn = sent + (size_t)r * nc;
    for (int c = 0; c < nc;) {
      if (!m[c]) {
        c++;
        continue;
      }
      int c1 = c + 1;
      while (c1 < nc && m[c1] == m[c] && o[c1] == o[c] && sn[c1] == sn[c])
        c1++;
      struct seg g;
      memset(&g, 0, sizeof(g));
      g.b = ar_chunk_begin(bd->nelem, nc, c);
      g.e = ar_chunk_begin(bd->nelem, nc, c1);
      g.op = o[c];
      g.hazard = sn[c];
      for (int q = 0; q < n; q++)
        if (m[c] & (1u << q)) g.src[g.nsrc++] = q;
      if (g.e > g.b) {
        struct seg *ns = (struct seg *)realloc(x->segs, (x->nseg + 1) * sizeof(*ns));
        if (!ns) {
          st = AR_ERR_NOMEM;
          goto out;
        }
        x->segs = ns;
        x->segs[x->nseg++] = g;
        for (int q = 0; q < g.nsrc; q++)
          if (lower_src_index(x, g.src[q]) < 0) x->srcs[x->nsrc++] = g.src[q];
      }
      c = c1;
    }
    /* sources in rank order, so every rank lays its copy streams out the same way */
    for (int i = 1; i < x->nsrc; i++)
      for (int j = i; j > 0 && x->srcs[j - 1] > x->srcs[j]; j--) {
        int t = x->srcs[j];
        x->srcs[j] = x->srcs[j - 1];
        x->srcs[j - 1] = t;
      }
  }
out:
  free(mask);
  free(cop);
  free(sent);
  return st;
}

/* Appends a ce item for source index si of rank-round x; returns its index or -1 (no memory). */
static int item_add(struct rr *x, int si, const struct item *it) {
  struct item *ni = (struct item *)realloc(x->items[si], (x->nitem[si] + 1) * sizeof(*ni));
  if (!ni) return -1;
  x->items[si] = ni;
  ni[x->nitem[si]] = *it;
  return x->nitem[si]++;
}

/* ce: batches, scratch and the copy items of every rank-round. */
ar_status lower_plan_ce(struct build *bd) {
  int es = bd->esize;
  for (int r = 0; r < bd->n; r++)
    for (int k = 0; k < bd->nr; k++) {
      struct rr *x = lower_rr_at(bd, r, k);
      size_t cursor = 0;
      for (int g = 0; g < x->nseg; g++) {
        struct seg *sg = &x->segs[g];
        int main_writes = sg->op == AR_REDUCE || sg->hazard;
        sg->nb = main_writes ? lower_batches_for(bd, sg->e - sg->b) : 1;
        if (sg->nb > bd->p->batches_max) bd->p->batches_max = sg->nb;
        if (main_writes)
          for (int q = 0; q < (sg->op == AR_REDUCE ? sg->nsrc : 1); q++)
            sg->scr[q] = lower_scratch_take(&cursor, sg->b * es, (sg->e - sg->b) * es);
        for (int q = 0; q < sg->nsrc; q++)
          for (int j = 0; j < sg->nb; j++) {
            struct item it;
            memset(&it, 0, sizeof(it));
            it.seg = g;
            it.batch = j;
            lower_batch_range(sg->b, sg->e, sg->nb, j, &it.b, &it.e);
            if (it.e <= it.b) continue;
            it.to_scratch = main_writes;
            it.soff = sg->scr[sg->op == AR_REDUCE ? q : 0] + (it.b - sg->b) * es;
            it.event = -1;
            it.pevent = -1;
            if (item_add(x, lower_src_index(x, sg->src[q]), &it) < 0) return AR_ERR_NOMEM;
          }
      }
      x->scratch = cursor;
    }
  return AR_OK;
}

/* sm: scratch for the hazard segments (the sum lands there until readers are done). */
void lower_plan_sm(struct build *bd) {
  int es = bd->esize;
  for (int r = 0; r < bd->n; r++)
    for (int k = 0; k < bd->nr; k++) {
      struct rr *x = lower_rr_at(bd, r, k);
      size_t cursor = 0;
      for (int g = 0; g < x->nseg; g++) {
        struct seg *sg = &x->segs[g];
        sg->nb = 1;
        if (sg->hazard) sg->scr[0] = lower_scratch_take(&cursor, sg->b * es, (sg->e - sg->b) * es);
      }
      x->scratch = cursor;
    }
}

/* Fills every rank-round's readers from the others' sources. */
void lower_find_readers(struct build *bd) {
  for (int k = 0; k < bd->nr; k++)
    for (int p = 0; p < bd->n; p++) {
      struct rr *x = lower_rr_at(bd, p, k);
      for (int i = 0; i < x->nsrc; i++) {
        struct rr *w = lower_rr_at(bd, x->srcs[i], k);
        w->readers[w->nreader++] = p;
      }
    }
}

/* Number of copies reader p makes from w in round k (ce), or 1 (sm). */
int lower_reads_of(struct build *bd, int p, int w, int k) {
  struct rr *x = lower_rr_at(bd, p, k);
  int si = lower_src_index(x, w);
  if (si < 0) return 0;
  return bd->mode == TP_MODE_SM ? 1 : x->nitem[si];
}

/* ce: the DONE count of reader p that must be reached before w writes [b, e) in round k (0:
 * none), and marks p's copy after which it signals. */
int lower_need_of(struct build *bd, int p, int w, int k, size_t b, size_t e) {
  struct rr *x = lower_rr_at(bd, p, k);
  int si = lower_src_index(x, w), need = 0;
  if (si < 0) return 0;
  for (int j = 0; j < x->nitem[si]; j++)
    if (x->items[si][j].b < e && b < x->items[si][j].e) need = j + 1;
  if (need) x->items[si][need - 1].signal = 1;
  return need;
}

/* Flag values (iteration-relative) of READY in round k and of the c-th DONE/DATA. */
uint32_t lower_ready_val(const struct build *bd, int k) {
  return (uint32_t)(k + 1) * bd->p->stride;
}
uint32_t lower_done_val(const struct build *bd, int k, int c) {
  return (uint32_t)k * bd->p->stride + (uint32_t)c;
}

/* Emits the READY writes of rank r for round k on `stream`. */
ar_status lower_emit_ready(struct build *bd, int r, int k, int stream) {
  struct rr *x = lower_rr_at(bd, r, k);
  for (int i = 0; i < x->nreader; i++) {
    struct tp_op o = lower_op_new(TP_OP_WRITE_FLAG, stream, k);
    o.peer = x->readers[i];
    o.slot = r;
    o.val = lower_ready_val(bd, k);
    AR_CHECK(lower_emit(bd->p, r, &o));
  }
  return AR_OK;
}

/* Emits waits for DONE(k, count) from each reader whose count exceeds waited[]. */
ar_status lower_emit_done_waits(struct build *bd, int r, int k, const int *want, int *waited) {
  struct rr *x = lower_rr_at(bd, r, k);
  for (int i = 0; i < x->nreader; i++) {
    if (want[i] <= waited[i]) continue;
    struct tp_op o = lower_op_new(TP_OP_WAIT_FLAG, 0, k);
    o.slot = bd->n + x->readers[i];
    o.val = lower_done_val(bd, k, want[i]);
    AR_CHECK(lower_emit(bd->p, r, &o));
    waited[i] = want[i];
  }
  return AR_OK;
}

/* ---- degraded-link emulation (transport.h, struct tp_degrade) ---- */

/* The factor of rank r, 0 when it is healthy or nothing is emulated. */
double lower_fac(const struct build *bd, int r) {
  return bd->dg ? lower_degrade_factor(bd->dg, r) : 0;
}

/* Bytes src sends to dst in round k (dst's segments that read src). */
size_t lower_flow_bytes(struct build *bd, int src, int dst, int k) {
  struct rr *x = lower_rr_at(bd, dst, k);
  size_t t = 0;
  for (int g = 0; g < x->nseg; g++)
    for (int q = 0; q < x->segs[g].nsrc; q++)
      if (x->segs[g].src[q] == src) t += (x->segs[g].e - x->segs[g].b) * bd->esize;
  return t;
}

/* What r's shared budget has carried in round k when one of its flows has carried `x` bytes:
 * sum over r's flows in (out = 0) or out (out = 1) of min(flow, x); x = SIZE_MAX: every byte. */
double lower_shared_bytes(struct build *bd, int r, int k, int out, size_t x) {
  struct rr *y = lower_rr_at(bd, r, k);
  double t = 0;
  int cnt = out ? y->nreader : y->nsrc;
  for (int i = 0; i < cnt; i++) {
    size_t b =
        out ? lower_flow_bytes(bd, r, y->readers[i], k) : lower_flow_bytes(bd, y->srcs[i], r, k);
    t += (double)(b < x ? b : x);
  }
  return t;
}

/* Nanoseconds `bytes` take at factor f (0: healthy, no wait). */
uint64_t lower_pace_ns(const struct build *bd, double f, double bytes) {
  return lower_degrade_ns(bd->dg, f, bytes);
}

/* Emits a STAMP of slot on rank r's stream. */
ar_status lower_emit_stamp(struct build *bd, int r, int stream, int k, int slot) {
  struct tp_op o = lower_op_new(TP_OP_STAMP, stream, k);
  o.tslot[0] = slot;
  return lower_emit(bd->p, r, &o);
}

/* Emits, on rank r's main stream in round k, the apply of segment sg's elements [b, e) from
 * scratch into data: a sum with the data for a reduce, a copy otherwise. */
ar_status lower_emit_apply(struct build *bd, int r, int k, const struct seg *sg, size_t b,
                            size_t e, size_t es) {
  size_t off = (b - sg->b) * es;
  struct tp_op o;
  if (sg->op == AR_REDUCE) {
    o = lower_op_new(TP_OP_SUM, 0, k);
    o.src[o.nsrc++] = lower_ref(TP_BUF_DATA, r, b * es);
    for (int q = 0; q < sg->nsrc; q++)
      o.src[o.nsrc++] = lower_ref(TP_BUF_SCRATCH, r, sg->scr[q] + off);
  } else {
    o = lower_op_new(TP_OP_COPY, 0, k);
    o.nsrc = 1;
    o.src[0] = lower_ref(TP_BUF_SCRATCH, r, sg->scr[0] + off);
  }
  o.dst = lower_ref(TP_BUF_DATA, r, b * es);
  o.bytes = (e - b) * es;
  return lower_emit(bd->p, r, &o);
}

/* Emits a PACE until stamp s0 + n0 and stamp s1 + n1 (s1 -1: none); nothing when both are 0. */
ar_status lower_emit_pace(struct build *bd, int r, int stream, int k, int s0, uint64_t n0, int s1,
                           uint64_t n1) {
  if (!n0 && !n1) return AR_OK;
  struct tp_op o = lower_op_new(TP_OP_PACE, stream, k);
  o.tslot[0] = s0;
  o.ns[0] = n0;
  if (n1) {
    o.tslot[1] = s1;
    o.ns[1] = n1;
  }
  return lower_emit(bd->p, r, &o);
}

/* ce: marks, before any program is emitted, every reader copy after which the reader must
 * signal DONE because a writer waits for exactly that count. */
