/* The nccl-p2p transport's degraded-link emulation (transport.h, struct tp_degrade): per round
 * of a rank's plan, how long after the round's start its stream is held once the round's group
 * is done. A degraded rank holds until F * max(in, out) / bw (its two budgets); a receiver of a
 * degraded d until its share of d's egress budget, F_d * sum over d's sends of the round of
 * min(b, its own bytes from d) / bw. With a degraded network (per_host > 0) only bytes between
 * hosts count (lower_degrade_crosses). Pure C (also C++), header-only: tp_nccl.cu uses it,
 * tests/test_degrade.c checks the holds and tests/gpu/tp_check.c times them on the CPU. */
#ifndef TP_P2P_HOLD_H
#define TP_P2P_HOLD_H

#include <stdlib.h>

#include "p2p_plan.h"
#include "lower.h"

/* Bytes of rank me's plan round's sends (out = 1) or receives (out = 0) that dg slows
 * (lower_degrade_crosses); only those with `peer` when peer >= 0. */
static inline double p2p_round_bytes(const struct p2p_round *R, size_t esize, int out, int peer,
                                     const struct tp_degrade *dg, int me) {
  double t = 0;
  for (int i = 0; i < (out ? R->nsend : R->nrecv); i++) {
    const struct p2p_op *o = out ? &R->send[i] : &R->recv[i];
    if ((peer < 0 || o->peer == peer) && lower_degrade_crosses(dg, me, o->peer))
      t += (double)o->cnt * (double)esize;
  }
  return t;
}

/* The round of plan p for schedule round `round`, or NULL when the rank sits it out. */
static inline const struct p2p_round *p2p_round_of(const struct p2p_plan *p, int round) {
  for (int i = 0; i < p->nrounds; i++)
    if (p->rounds[i].round == round) return &p->rounds[i];
  return NULL;
}

/* Rank r's holds in ns per round of plans[r] (plans of all n ranks) into *out (malloc'd), or
 * *out = NULL when r never holds. Returns AR_OK or AR_ERR_NOMEM. */
static inline ar_status p2p_holds(const struct p2p_plan *plans, int n, size_t esize,
                                  const struct tp_degrade *dg, int r, uint64_t **out) {
  const struct p2p_plan *p = &plans[r];
  double fr = lower_degrade_factor(dg, r);
  int any = 0;
  uint64_t *h = (uint64_t *)calloc(p->nrounds ? p->nrounds : 1, sizeof(uint64_t));
  *out = NULL;
  if (!h) return AR_ERR_NOMEM;
  for (int i = 0; i < p->nrounds; i++) {
    const struct p2p_round *R = &p->rounds[i];
    double in = p2p_round_bytes(R, esize, 0, -1, dg, r);
    double outb = p2p_round_bytes(R, esize, 1, -1, dg, r);
    h[i] = lower_degrade_ns(dg, fr, in > outb ? in : outb);
    for (int j = 0; j < R->nrecv; j++) {
      int d = R->recv[j].peer;
      double fd = lower_degrade_factor(dg, d), mine = p2p_round_bytes(R, esize, 0, d, dg, r);
      double shared = 0;
      const struct p2p_round *D = fd > 0 && mine > 0 ? p2p_round_of(&plans[d], R->round) : NULL;
      for (int q = 0; D && q < n; q++) {
        double b = p2p_round_bytes(D, esize, 1, q, dg, d);
        shared += b < mine ? b : mine;
      }
      uint64_t v = lower_degrade_ns(dg, fd, shared);
      if (v > h[i]) h[i] = v;
    }
    any |= h[i] > 0;
  }
  if (any) *out = h;
  else free(h);
  return AR_OK;
}

#endif
