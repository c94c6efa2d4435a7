/* ce dataflow direct program (lower.h, "ce dataflow direct"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"

/* ---- the dataflow direct program (emit_ce_direct, exec_prog.h) ---- */

/* Returns 1 when the schedule is a direct AllReduce: two rounds; in round 0 every rank r
 * receives one range O_r reduced from all n - 1 others (so it sends O_q to every q); in round 1
 * every rank receives O_q copied from q for every q != r; the O_r disjoint and non-empty. Fills
 * bd->own. Else 0 (the reason logged at trace level). */
int lower_direct_check(struct build *bd) {
  const char *why = bd->nr != 2 ? "not two rounds" : NULL;
  int n = bd->n;
  for (int r = 0; !why && r < n; r++) {
    const struct rr *x = lower_rr_at(bd, r, 0);
    if (x->nseg != 1 || x->segs[0].op != AR_REDUCE || x->segs[0].nsrc != n - 1 ||
        x->segs[0].hazard)
      why = "round 0 is not every rank reducing one range from all others";
    else
      bd->own_b[r] = x->segs[0].b, bd->own_e[r] = x->segs[0].e;
  }
  for (int r = 0; !why && r < n; r++) {
    const struct rr *x = lower_rr_at(bd, r, 1);
    if (x->nseg != n - 1) why = "round 1 is not every rank receiving n - 1 ranges";
    for (int g = 0; !why && g < x->nseg; g++) {
      const struct seg *sg = &x->segs[g];
      int q = sg->src[0];
      if (sg->op != AR_COPY || sg->nsrc != 1 || sg->hazard || sg->b != bd->own_b[q] ||
          sg->e != bd->own_e[q])
        why = "round 1 does not copy each owner's range from its owner";
    }
    for (int t = r + 1; !why && t < n; t++)
      if (bd->own_b[r] < bd->own_e[t] && bd->own_b[t] < bd->own_e[r]) why = "owners overlap";
  }
  if (why) ar_log(AR_LOG_TRACE, "ce: %s: the per-round program: %s", bd->s->algo, why);
  return !why;
}

/* Plans the mini-batches (the pipeline asked for, else about set->direct_batch_bytes of the
 * largest owned range, TP_DIRECT_MIN..TP_DIRECT_MAX; at most the smallest range's TP_UNIT
 * blocks), the scratch slots (one per source and batch) and the flag layout. */
void lower_direct_plan(struct build *bd) {
  size_t most = 0, least = SIZE_MAX;
  for (int r = 0; r < bd->n; r++) {
    size_t len = bd->own_e[r] - bd->own_b[r];
    if (len > most) most = len;
    if (len < least) least = len;
  }
  size_t nb = (size_t)bd->pipeline;
  if (bd->pipeline <= 0) {
    nb = most * bd->esize /
         (bd->set->direct_batch_bytes ? bd->set->direct_batch_bytes : TP_DIRECT_BATCH);
    if (nb < TP_DIRECT_MIN) nb = TP_DIRECT_MIN;
    if (nb > TP_DIRECT_MAX) nb = TP_DIRECT_MAX;
  }
  size_t units = (least + TP_UNIT - 1) / TP_UNIT;
  if (nb > units) nb = units;
  bd->nb = nb < 1 ? 1 : (int)nb;
  size_t big = 0; /* the largest batch, bytes */
  for (int r = 0; r < bd->n; r++)
    for (int j = 0; j < bd->nb; j++) {
      size_t b, e;
      lower_batch_range(bd->own_b[r], bd->own_e[r], bd->nb, j, &b, &e);
      if ((e - b) * bd->esize > big) big = (e - b) * bd->esize;
    }
  bd->slot_bytes = ((big + 255) & ~(size_t)255) + 256;
  for (int r = 0; r < bd->n; r++)
    bd->p->rank[r].scratch_bytes = (size_t)(bd->n - 1) * bd->nb * bd->slot_bytes;
  bd->p->dataflow = 2;
  bd->p->batches_max = bd->nb;
  bd->p->stride = (uint32_t)bd->nb;
  bd->p->span = 2 * (uint32_t)bd->nb + 1; /* above every DATA value */
}

/* Byte offset in the receiver's scratch of batch j (starting at element b) from the source
 * `shift` ranks before it: slot (shift - 1, j), at the data's offset modulo 256. */
static size_t direct_slot(const struct build *bd, int shift, int j, size_t b) {
  return ((size_t)(shift - 1) * bd->nb + j) * bd->slot_bytes + b * bd->esize % 256;
}

/* Event ids: 0..nb-1 the sum of each batch, then the iteration's start, then the join. */
#define DIRECT_EV_START(bd) ((bd)->nb)
#define DIRECT_EV_JOIN(bd) ((bd)->nb + 1)

/* Emits rank r's copies of batch j in round k (0: O_q into q's scratch for every q; 1: O_r
 * into every q's data) on copy stream 1, peers in shift order so that all ranks together move
 * a permutation at a time, each followed by DATA to its receiver (slot n + r; round 0 batch j
 * says j + 1, round 1 says nb + j + 1). */
static ar_status direct_emit_sends(struct build *bd, int r, int k, int j) {
  int n = bd->n, es = bd->esize;
  for (int sh = 1; sh < n; sh++) {
    int q = (r + sh) % n, owner = k == 0 ? q : r;
    size_t b, e;
    lower_batch_range(bd->own_b[owner], bd->own_e[owner], bd->nb, j, &b, &e);
    struct tp_op o = lower_op_new(TP_OP_COPY, 1, k);
    o.bytes = (e - b) * es;
    o.nsrc = 1;
    o.src[0] = lower_ref(TP_BUF_DATA, r, b * es);
    o.dst = k == 0 ? lower_ref(TP_BUF_SCRATCH, q, direct_slot(bd, sh, j, b))
                   : lower_ref(TP_BUF_DATA, q, b * es);
    AR_CHECK(lower_emit(bd->p, r, &o));
    AR_CHECK(lower_ring_flag(bd, r, 1, k, q, n + r, (uint32_t)(k * bd->nb + j + 1)));
  }
  return AR_OK;
}

/* Emits rank r's sum of batch j on stream 0: wait until every source's copy landed, sum the
 * n - 1 slots into O_r, record the batch's event (its allgather copies wait for it). */
static ar_status direct_emit_sum(struct build *bd, int r, int j) {
  int n = bd->n, es = bd->esize;
  size_t b, e;
  lower_batch_range(bd->own_b[r], bd->own_e[r], bd->nb, j, &b, &e);
  for (int sh = 1; sh < n; sh++)
    AR_CHECK(lower_ring_flag(bd, r, 0, 0, -1, n + (r - sh + n) % n, (uint32_t)(j + 1)));
  struct tp_op o = lower_op_new(TP_OP_SUM, 0, 0);
  o.src[o.nsrc++] = lower_ref(TP_BUF_DATA, r, b * es);
  for (int sh = 1; sh < n; sh++)
    o.src[o.nsrc++] = lower_ref(TP_BUF_SCRATCH, r, direct_slot(bd, sh, j, b));
  o.dst = lower_ref(TP_BUF_DATA, r, b * es);
  o.bytes = (e - b) * es;
  o.blocks = TP_DIRECT_SUM_BLOCKS;
  AR_CHECK(lower_emit(bd->p, r, &o));
  return lower_ring_event(bd, r, TP_OP_RECORD, 0, 0, j);
}

/* ce dataflow direct program of rank r (exec_prog.h). Round 0: the start event (stream 0); once
 * every peer is READY, every reduce-scatter copy, batch by batch (stream 1: they depend on
 * nothing else, so the copy engine never waits); the sums as batches land (stream 0). Round 1:
 * the allgather copies of batch j once its sum is done (stream 1); stream 0 waits for every
 * peer's last copy into r, joins stream 1 and tells every peer r is READY for the next
 * iteration.
 * READY is a barrier between iterations: the shift order is a permutation only while every rank
 * is at the same copy. Back to back (no host barrier between AllReduces) a rank would start as
 * soon as its own inbound copies landed, a copy or so before the rank that sent last; two
 * senders then share one receiver while another idles, which slows both and keeps the ranks
 * apart (1 GiB on 4 x H200: 7.0 ms back to back against 4.2 with a barrier between
 * iterations). It is written at the end of an iteration, by kernels (a store, no copy
 * engine), so that with a barrier between iterations the next one finds it already there. */
ar_status lower_emit_ce_direct(struct build *bd, int r) {
  int n = bd->n;
  AR_CHECK(lower_ring_event(bd, r, TP_OP_RECORD, 0, 0, DIRECT_EV_START(bd)));
  AR_CHECK(lower_ring_event(bd, r, TP_OP_WAIT_EVENT, 1, 0, DIRECT_EV_START(bd)));
  for (int sh = 1; sh < n; sh++) /* READY[q] = this iteration's base: q ended the previous one */
    AR_CHECK(lower_ring_flag(bd, r, 1, 0, -1, (r + sh) % n, 0));
  for (int j = 0; j < bd->nb; j++)
    AR_CHECK(direct_emit_sends(bd, r, 0, j));
  for (int j = 0; j < bd->nb; j++)
    AR_CHECK(direct_emit_sum(bd, r, j));
  for (int j = 0; j < bd->nb; j++) {
    AR_CHECK(lower_ring_event(bd, r, TP_OP_WAIT_EVENT, 1, 1, j));
    AR_CHECK(direct_emit_sends(bd, r, 1, j));
  }
  for (int q = 0; q < n; q++)
    if (q != r) AR_CHECK(lower_ring_flag(bd, r, 0, 1, -1, n + q, (uint32_t)(2 * bd->nb)));
  AR_CHECK(lower_ring_event(bd, r, TP_OP_RECORD, 1, 1, DIRECT_EV_JOIN(bd)));
  AR_CHECK(lower_ring_event(bd, r, TP_OP_WAIT_EVENT, 0, 1, DIRECT_EV_JOIN(bd)));
  for (int sh = 1; sh < n; sh++) { /* READY[r] in every peer: the next iteration's base */
    struct tp_op o = lower_op_new(TP_OP_WRITE_FLAG, 0, 1);
    o.peer = (r + sh) % n;
    o.slot = r;
    o.val = bd->p->span;
    o.kflag = 1;
    AR_CHECK(lower_emit(bd->p, r, &o));
  }
  return AR_OK;
}

/* sm program of rank r (one stream, interpreted by every block of a persistent kernel). */
