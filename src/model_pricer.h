/* model_price.c's pricer, shared with model_stream.c (streaming): not part of model.h. A
 * round is priced as round_begin, round_flow for each flow, round_end; a phase sums rounds. */
#ifndef MODEL_PRICER_H
#define MODEL_PRICER_H

#include "model.h"

struct round_cost {
  double hops, load, ideal, reduce;
  double msgs; /* the most messages sent by one port */
  int remote; /* a flow left its node (two tiers; always 1 elsewhere): alpha, not alpha_local */
};

/* One flow of a round: its ends and its share of the buffer. */
struct flow {
  int src, dst, count, reduce;
};

struct pricer {
  const struct model_net *net;
  int n, D2, topo;
  size_t nlinks;
  double inv_chunks;
  double *link_slow;                   /* per link: slowdown (and tier) of the link */
  double *load, *ideal_out, *ideal_in; /* per link; ideal_in keyed by the arriving link */
  double *diff;                        /* torus, dense rounds: runs along each line */
  unsigned *link_stamp;
  int *links; /* sparse rounds: links touched */
  size_t nlinks_used;
  double *reduced; /* per rank */
  unsigned *rank_stamp;
  int *ranks; /* sparse rounds: ranks that reduced */
  size_t nranks_used;
  unsigned stamp; /* the round being priced, from 1 */
  int dense;      /* this round clears and scans everything */
  int maxhops, remote;
  int *coord; /* torus: coordinates of every rank, n x ndims */
  int stride[AR_MAX_TORUS_DIMS];
  int *sends;            /* per port: messages sent this round (valid where send_stamp) */
  unsigned *send_stamp;
  int maxsend;
  /* Set by the flow mode (model_flow.c) to record one flow's route: each link it loads, with
   * the share of the flow crossing it (a tie split both ways round a ring: half each). */
  int *trace_link;
  double *trace_amount;
  size_t ntrace, trace_cap;
};

/* Records link id with amount in the route being traced (the flow mode), if one is. */
static inline void pricer_trace(struct pricer *pc, size_t id, double amount) {
  if (pc->ntrace < pc->trace_cap) {
    pc->trace_link[pc->ntrace] = (int)id;
    pc->trace_amount[pc->ntrace++] = amount;
  }
}

/* Sets up a pricer for n ranks of nchunks on net; AR_ERR_INVALID when the topology does not
 * fit n, AR_ERR_NOMEM (everything freed). pricer_free releases it. */
ar_status pricer_init(struct pricer *pc, int n, int nchunks, const struct model_net *net);
void pricer_free(struct pricer *pc);
/* Starts a round: dense (runs summed, every link scanned) or sparse (only what it touched). */
void round_begin(struct pricer *pc, int dense);
/* Returns the hops of a flow src -> dst (1 off the torus): what a sparse round walks. */
int flow_hops(const struct pricer *pc, int src, int dst);
/* Returns 1 when a round whose flows walk `hops` links in all is cheaper priced dense. */
int is_dense(const struct pricer *pc, double hops);
/* Counts a flow's reduced bytes at dst. */
void count_reduce(struct pricer *pc, int dst, double amount);
/* Routes one flow of the round (its reduce, if any, counts at dst). */
void round_flow(struct pricer *pc, int src, int dst, int count, int reduce);
/* Ends a round: its costs into rc (only its reduce when reduce_only: the links' costs were the
 * last round's), every entry back to zero. */
void round_end(struct pricer *pc, struct round_cost *rc, int reduce_only);
/* Adds a round priced on net to phase c (and, pipelined, to its class). */
void phase_add(struct model_cost *c, const struct round_cost *rc, int pipelined,
               const struct model_net *net);

#endif
