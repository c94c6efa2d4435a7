/* The nccl-p2p transport's plan for one rank: per round in which the rank takes part, its sends
 * and receives in the schedule's order (so the k-th send from a to b meets the k-th receive on b
 * from a, as NCCL matches them), with element offsets for a given vector length. Receives land
 * in scratch and are applied after the round's group (round-snapshot semantics), except a copy
 * into a range the rank does not send in that round, which may land in the data directly.
 * Pure C (also C++), header-only, beside the other programs of the lowering (the one executor
 * without a program of stream operations): tp_nccl.cu builds it, tests/test_p2p_plan.c
 * emulates it. */
#ifndef AR_P2P_PLAN_H
#define AR_P2P_PLAN_H

#include <stdlib.h>
#include <string.h>

#include "ar.h"

struct p2p_op {
  int peer;
  int op;     /* enum ar_op, receives only */
  int direct; /* receive straight into the data buffer (a copy into a range not sent) */
  size_t off, cnt; /* elements of the data buffer */
  size_t soff;     /* elements into scratch (receives that are not direct) */
};

struct p2p_round {
  int round;
  int nsend, nrecv;
  struct p2p_op *send, *recv; /* into the plan's ops */
};

struct p2p_plan {
  int nrounds;
  struct p2p_round *rounds;
  struct p2p_op *ops;
  size_t scratch; /* elements of scratch the rank needs */
};

/* The element range [*off, *off + *cnt) of transfer x for vectors of nelem elements. */
static inline void p2p_range(const struct ar_schedule *s, const struct ar_xfer *x, size_t nelem,
                             size_t *off, size_t *cnt) {
  size_t b = ar_chunk_begin(nelem, s->nchunks, x->chunk);
  *off = b;
  *cnt = ar_chunk_begin(nelem, s->nchunks, x->chunk + x->count) - b;
}

static inline void p2p_plan_free(struct p2p_plan *p) {
  free(p->rounds);
  free(p->ops);
  memset(p, 0, sizeof(*p));
}

/* Builds rank's plan for vectors of nelem elements; scratch slots start on multiples of align
 * elements (>= 1). Empty transfers (fewer elements than chunks) are left out on both sides.
 * Returns AR_OK or AR_ERR_NOMEM. The schedule must be sorted by round (sched_finish). */
static inline ar_status p2p_plan_build(const struct ar_schedule *s, int rank, size_t nelem,
                                       size_t align, struct p2p_plan *p) {
  memset(p, 0, sizeof(*p));
  size_t nops = 0;
  int nrounds = 0;
  for (size_t lo = 0; lo < s->nxfers;) {
    size_t hi = lo;
    int mine = 0;
    for (; hi < s->nxfers && s->xfers[hi].round == s->xfers[lo].round; hi++) {
      const struct ar_xfer *x = &s->xfers[hi];
      size_t off, cnt;
      p2p_range(s, x, nelem, &off, &cnt);
      if (cnt && (x->src == rank || x->dst == rank)) {
        nops++;
        mine = 1;
      }
    }
    nrounds += mine;
    lo = hi;
  }
  /* one spare slot: rounds without this rank are filled in, then not counted */
  p->rounds = (struct p2p_round *)calloc((size_t)nrounds + 1, sizeof(*p->rounds));
  p->ops = (struct p2p_op *)calloc(nops ? nops : 1, sizeof(*p->ops));
  if (!p->rounds || !p->ops) {
    p2p_plan_free(p);
    return AR_ERR_NOMEM;
  }
  struct p2p_op *next = p->ops;
  for (size_t lo = 0; lo < s->nxfers;) {
    size_t hi = lo;
    while (hi < s->nxfers && s->xfers[hi].round == s->xfers[lo].round) hi++;
    struct p2p_round *R = &p->rounds[p->nrounds];
    R->round = s->xfers[lo].round;
    R->send = next;
    for (size_t i = lo; i < hi; i++) { /* sends first, in schedule order */
      const struct ar_xfer *x = &s->xfers[i];
      struct p2p_op o = {x->dst, x->op, 0, 0, 0, 0};
      p2p_range(s, x, nelem, &o.off, &o.cnt);
      if (x->src == rank && o.cnt) *next++ = o, R->nsend++;
    }
    R->recv = next;
    size_t soff = 0;
    for (size_t i = lo; i < hi; i++) { /* then receives, in schedule order */
      const struct ar_xfer *x = &s->xfers[i];
      struct p2p_op o = {x->src, x->op, 0, 0, 0, 0};
      p2p_range(s, x, nelem, &o.off, &o.cnt);
      if (x->dst != rank || !o.cnt) continue;
      if (x->op == AR_COPY) { /* direct unless this rank sends an overlapping range now */
        o.direct = 1;
        for (int k = 0; k < R->nsend; k++)
          if (R->send[k].off < o.off + o.cnt && o.off < R->send[k].off + R->send[k].cnt)
            o.direct = 0;
      }
      if (!o.direct) {
        o.soff = soff;
        soff += (o.cnt + align - 1) / align * align;
      }
      *next++ = o;
      R->nrecv++;
    }
    if (soff > p->scratch) p->scratch = soff;
    if (R->nsend || R->nrecv) p->nrounds++;
    lo = hi;
  }
  return AR_OK;
}

#endif
