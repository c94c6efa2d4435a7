/* The flow mode's graph (model.h, "flows"), shared by its builder (model_flow_graph.c) and its
 * event pricer (model_flow.c): not part of model.h. Nodes [0, nx) are the schedule's transfers
 * in its order; the nodes after them join what a transfer waits for (the writers of a chunk in
 * one round, a port's transfers of one round) and end when their last predecessor ends. */
#ifndef MODEL_FLOW_INT_H
#define MODEL_FLOW_INT_H

#include "model.h"

enum flow_flags {
  FLOW_REDUCE = 1u << 0, /* sums at dst once its bytes land */
  FLOW_LOCAL = 1u << 1,  /* two tiers: stays inside its node (the local tier's alpha) */
  FLOW_SELF = 1u << 2,   /* onto its own rank: no link, no cost */
  FLOW_PRE = 1u << 3,    /* a precondition round's */
};

struct model_flow_graph {
  int n;
  size_t nx, nnodes, nlinks;
  int *src, *dst, *hops;  /* per transfer */
  int *port, *port2;      /* per transfer: the port(s) its message leaves by (a GPU's: its
                           * rank; a NIC's: a link; port2 -1 unless a tie leaves by two) */
  double *frac;           /* per transfer: its share of the buffer */
  unsigned char *flags;   /* per transfer: enum flow_flags */
  size_t *route_off;      /* per transfer, nx + 1: its links route_link[off[x] .. off[x + 1]) */
  int *route_link;
  float *route_w;         /* the share of the flow that crosses that link (1, or 1/2 a way) */
  int *npred;             /* per node: what it waits for */
  size_t *succ_off;       /* per node, nnodes + 1: what waits for it, succ[off[v] .. off[v + 1]) */
  int *succ;
  double *link_slow;      /* per link: its time per byte in units of beta */
  double local_alpha_us;  /* two tiers: alpha inside a node */
};

#endif
