/* Model mode: pricing a schedule round by round on a switch, a torus, a two-tier cluster, or
 * a torus-like grid (HammingMesh, HyperX).
 *
 * A round's flows are routed and their loads summed per link (a link is numbered
 * rank * links_per_rank + k: on a switch k = 0 is the rank's egress and 1 its ingress; on a
 * torus k = 2 * dim + dir is the link leaving that rank; on two tiers 0/1 are the rank's
 * links into its node's switch and 2/3 its NIC; on HammingMesh k = 2 * dim + dir leaves the
 * rank, on the board or, at a board's edge, up into that row's or column's tree, and 4 + k comes
 * down from the tree on that side; on HyperX k = x is the link to coordinate x of its row,
 * dims[0] + y to coordinate y of its column). Loads are kept unweighted and multiplied by
 * each link's slowdown when the round is read. Every entry is zero between rounds.
 *
 * What keeps the papers' scales cheap (4096 ranks, 1e7-1e8 transfers):
 *  - a round whose flows walk few links walks each route hop by hop and touches only the
 *    links it listed (sparse); one that walks many adds each route's straight runs to
 *    difference arrays along the torus lines, O(dimensions) per flow, and sums and reads
 *    every link once (dense);
 *  - a round whose flows (ends and sizes, in order) repeat the round before takes that
 *    round's link loads without routing again (a ring routes one round of each kind);
 *  - generators that emit their rounds in order are priced as they build (streaming,
 *    model_stream.c: nothing is stored but the round at hand). */
#include "model.h"
#include "model_pricer.h"
#include "settings.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What one round costs, before it is added to a phase. */
/* In a sparse round, lists link id on its first touch (every entry is zero between rounds). */
static inline void link_fresh(struct pricer *pc, size_t id) {
  if (pc->dense || pc->link_stamp[id] == pc->stamp) return;
  pc->link_stamp[id] = pc->stamp;
  pc->links[pc->nlinks_used++] = (int)id;
}

/* Counts a message on the port it leaves by (a GPU's: its rank; a NIC's: its first link): a
 * port's messages pay the per-message cost one after another. */
static inline void count_msg(struct pricer *pc, size_t port) {
  if (pc->send_stamp[port] != pc->stamp) {
    pc->send_stamp[port] = pc->stamp;
    pc->sends[port] = 0;
  }
  if (++pc->sends[port] > pc->maxsend) pc->maxsend = pc->sends[port];
}

/* Returns the rank at coordinate x of torus dimension d on the line through rank r. */
static inline int line_rank(const struct pricer *pc, int r, int d, int x) {
  return r + (x - pc->coord[(size_t)r * pc->net->ndims + d]) * pc->stride[d];
}

/* Adds amount to the links at coordinates [lo, lo + h) (mod dim) of dimension d, direction
 * dir, on r's line: dense rounds through the difference array, sparse ones hop by hop. */
static void add_run(struct pricer *pc, int r, int d, int dir, int lo, int h, double amount) {
  int dim = pc->net->dims[d], k = 2 * d + dir;
  lo = ((lo % dim) + dim) % dim;
  if (pc->dense) {
    int hi = lo + h;
    pc->diff[(size_t)line_rank(pc, r, d, lo) * pc->D2 + k] += amount;
    if (hi < dim) {
      pc->diff[(size_t)line_rank(pc, r, d, hi) * pc->D2 + k] -= amount;
    } else if (hi > dim) { /* wraps: [lo, dim) and [0, hi - dim) */
      pc->diff[(size_t)line_rank(pc, r, d, 0) * pc->D2 + k] += amount;
      pc->diff[(size_t)line_rank(pc, r, d, hi - dim) * pc->D2 + k] -= amount;
    }
    return;
  }
  for (int x = lo, i = 0; i < h; i++, x = x + 1 == dim ? 0 : x + 1) {
    size_t id = (size_t)line_rank(pc, r, d, x) * pc->D2 + k;
    link_fresh(pc, id);
    pc->load[id] += amount;
    pricer_trace(pc, id, amount);
  }
}

/* Walks `hops` steps from rank r along dimension d in direction dir (0: +, 1: -) with
 * amount; first/last mark the route's first and last hop for the ideal load. Returns the
 * rank reached. */
static int walk(struct pricer *pc, int r, int d, int dir, int hops, double amount, int first,
                int last) {
  int dim = pc->net->dims[d], a = pc->coord[(size_t)r * pc->net->ndims + d], k = 2 * d + dir;
  int end = dir == 0 ? (a + hops) % dim : ((a - hops) % dim + dim) % dim;
  int last_x = dir == 0 ? (a + hops - 1) % dim : ((a - hops + 1) % dim + dim) % dim;
  add_run(pc, r, d, dir, dir == 0 ? a : a - hops + 1, hops, amount);
  if (first) {
    size_t id = (size_t)r * pc->D2 + k;
    link_fresh(pc, id);
    pc->ideal_out[id] += amount;
    count_msg(pc, id);
  }
  if (last) {
    size_t id = (size_t)line_rank(pc, r, d, last_x) * pc->D2 + k;
    link_fresh(pc, id);
    pc->ideal_in[id] += amount;
  }
  return line_rank(pc, r, d, end);
}

/* Routes one flow of `amount` (buffer fraction) from src to dst: dimension order, shortest way
 * round each ring, an exact tie split evenly both ways. Returns its hop count. */
static int route_torus(struct pricer *pc, int src, int dst, double amount) {
  int D = pc->net->ndims, hops = 0, first_dim = -1, last_dim = -1;
  const int *cs = pc->coord + (size_t)src * D, *cd = pc->coord + (size_t)dst * D;
  for (int d = 0; d < D; d++)
    if (cs[d] != cd[d]) {
      if (first_dim < 0) first_dim = d;
      last_dim = d;
    }
  int r = src;
  for (int d = first_dim; d >= 0 && d <= last_dim; d++) {
    int dim = pc->net->dims[d], fwd = cd[d] - cs[d];
    if (fwd < 0) fwd += dim;
    if (!fwd) continue;
    int bwd = dim - fwd, f = d == first_dim, l = d == last_dim;
    if (fwd < bwd) {
      r = walk(pc, r, d, 0, fwd, amount, f, l);
    } else if (bwd < fwd) {
      r = walk(pc, r, d, 1, bwd, amount, f, l);
    } else {
      walk(pc, r, d, 1, bwd, amount / 2, f, l);
      r = walk(pc, r, d, 0, fwd, amount / 2, f, l);
    }
    hops += fwd < bwd ? fwd : bwd;
  }
  return hops;
}

/* ---- grid topologies: HammingMesh, HyperX ---- */

/* Adds amount to link id of a grid route, the route's first link (for the ideal load) kept in
 * *first, its last in *last. */
static inline void grid_link(struct pricer *pc, size_t id, double amount, long *first, long *last) {
  link_fresh(pc, id);
  pc->load[id] += amount;
  pricer_trace(pc, id, amount);
  if (*first < 0) *first = (long)id;
  *last = (long)id;
}

/* Walks a HammingMesh board from coordinate x to y of dimension d on r's line (on one board);
 * returns the rank reached, the hops added to *hops. */
static int board_walk(struct pricer *pc, int r, int d, int x, int y, double amount, int *hops,
                      long *first, long *last) {
  int dir = y > x ? 0 : 1;
  for (; x != y; x += dir ? -1 : 1, (*hops)++) {
    grid_link(pc, (size_t)r * pc->D2 + 2 * d + dir, amount, first, last);
    r = line_rank(pc, r, d, dir ? x - 1 : x + 1);
  }
  return r;
}

/* Routes one flow on a grid topology, dimension 0 first: HyperX one direct link a dimension;
 * HammingMesh along the board, or off it through the nearer board edge, the line's tree
 * (2 hops: up, down) and the target board's nearer edge. Returns its hops. */
static int route_grid(struct pricer *pc, int src, int dst, double amount) {
  int hops = 0, r = src, a = pc->net->board;
  long first = -1, last = -1;
  for (int d = 0; d < 2; d++) {
    int x = pc->coord[(size_t)r * 2 + d], y = pc->coord[(size_t)dst * 2 + d];
    if (x == y) continue;
    if (!a) { /* HyperX */
      grid_link(pc, (size_t)r * pc->D2 + (d ? pc->net->dims[0] : 0) + y, amount, &first, &last);
      r = line_rank(pc, r, d, y);
      hops++;
      continue;
    }
    int bx = x - x % a, by = y - y % a;
    if (bx == by) {
      r = board_walk(pc, r, d, x, y, amount, &hops, &first, &last);
      continue;
    }
    int out_west = x % a <= a - 1 - x % a, in_west = y % a <= a - 1 - y % a;
    int ex = out_west ? bx : bx + a - 1, ey = in_west ? by : by + a - 1;
    r = board_walk(pc, r, d, x, ex, amount, &hops, &first, &last);
    grid_link(pc, (size_t)r * pc->D2 + 2 * d + (out_west ? 1 : 0), amount, &first, &last);
    r = line_rank(pc, r, d, ey);
    grid_link(pc, (size_t)r * pc->D2 + 4 + 2 * d + (in_west ? 1 : 0), amount, &first, &last);
    hops += 2;
    r = board_walk(pc, r, d, ey, y, amount, &hops, &first, &last);
  }
  if (first >= 0) {
    pc->ideal_out[first] += amount;
    pc->ideal_in[last] += amount;
    count_msg(pc, (size_t)first);
  }
  return hops;
}

/* Adds `amount` to link id (switch, mesh and two-tier ports: one link each end). */
static inline void add_port(struct pricer *pc, size_t id, double amount) {
  link_fresh(pc, id);
  pc->load[id] += amount;
  pricer_trace(pc, id, amount);
}

/* Starts a round: dense (runs summed, every link scanned) when it carries about as many
 * flows as there are links, sparse (only what it touched) otherwise. */
void round_begin(struct pricer *pc, int dense) {
  pc->stamp++;
  pc->nlinks_used = pc->nranks_used = 0;
  pc->dense = dense;
  pc->maxhops = 0;
  pc->maxsend = 0;
  pc->remote = pc->topo != MODEL_TWO_TIER;
}

/* Returns the hops of a flow src -> dst (1 off the torus): what a sparse round walks. */
int flow_hops(const struct pricer *pc, int src, int dst) {
  if (pc->topo != MODEL_TORUS) return 1;
  int h = 0, D = pc->net->ndims;
  for (int d = 0; d < D; d++) {
    int dim = pc->net->dims[d], f = pc->coord[(size_t)dst * D + d] - pc->coord[(size_t)src * D + d];
    f = f < 0 ? f + dim : f;
    h += f < dim - f ? f : dim - f;
  }
  return h;
}

/* Returns 1 when a round whose flows walk `hops` links in all is cheaper dense (every link
 * summed and read once, about 3 link-walks' worth each) than sparse (each hop walked). */
int is_dense(const struct pricer *pc, double hops) {
  return hops > 3.0 * pc->nlinks;
}

/* Counts a flow's reduced bytes at dst (ranks listed as in a sparse round). */
void count_reduce(struct pricer *pc, int dst, double amount) {
  if (!pc->dense && pc->rank_stamp[dst] != pc->stamp) {
    pc->rank_stamp[dst] = pc->stamp;
    pc->ranks[pc->nranks_used++] = dst;
  }
  pc->reduced[dst] += amount;
}

/* Routes one flow of the round (its reduce, if any, counts at dst). */
void round_flow(struct pricer *pc, int src, int dst, int count, int reduce) {
  if (src == dst) return; /* a local copy uses no link */
  double amount = count * pc->inv_chunks;
  int hops = 1;
  if (pc->topo == MODEL_TORUS) {
    hops = route_torus(pc, src, dst, amount);
  } else if (model_topology_grid(pc->topo)) {
    hops = route_grid(pc, src, dst, amount);
  } else if (pc->topo == MODEL_TWO_TIER &&
             src / pc->net->gpus_per_node != dst / pc->net->gpus_per_node) {
    add_port(pc, (size_t)4 * src + 2, amount); /* NIC out, NIC in */
    add_port(pc, (size_t)4 * dst + 3, amount);
    pc->remote = 1;
    count_msg(pc, (size_t)src);
  } else if (pc->topo == MODEL_MESH) {
    add_port(pc, (size_t)pc->n * src + dst, amount); /* the link between the two */
    count_msg(pc, (size_t)src);
  } else {
    add_port(pc, (size_t)pc->D2 * src, amount); /* the switch (or the node's) out, in */
    add_port(pc, (size_t)pc->D2 * dst + 1, amount);
    count_msg(pc, (size_t)src);
  }
  if (hops > pc->maxhops) pc->maxhops = hops;
  if (reduce) count_reduce(pc, dst, amount);
}

/* Reads link id's weighted load (and, on a torus, its first/last-hop loads into *ideal) and
 * leaves its entries zero for the next round. */
static inline double link_take(struct pricer *pc, size_t id, int torus, double *ideal) {
  double w = pc->link_slow[id], v = pc->load[id] * w;
  pc->load[id] = 0;
  if (torus) {
    double a = pc->ideal_out[id] * w, b = pc->ideal_in[id] * w;
    if (a > *ideal) *ideal = a;
    if (b > *ideal) *ideal = b;
    pc->ideal_out[id] = pc->ideal_in[id] = 0;
  }
  return v;
}

/* A dense torus round: sums the difference arrays along each line into the link loads and
 * reads every link on the way (one pass); returns the busiest link, its ideal in *ideal. */
static double take_runs(struct pricer *pc, double *ideal) {
  double worst = 0;
  for (int d = 0; d < pc->net->ndims; d++) {
    int dim = pc->net->dims[d];
    for (int r0 = 0; r0 < pc->n; r0++) {
      if (pc->coord[(size_t)r0 * pc->net->ndims + d]) continue; /* each line once, from 0 */
      for (int dir = 0; dir < 2; dir++) {
        double run = 0;
        for (int x = 0; x < dim; x++) {
          size_t id = (size_t)(r0 + x * pc->stride[d]) * pc->D2 + 2 * d + dir;
          run += pc->diff[id];
          pc->diff[id] = 0;
          pc->load[id] += run;
          double v = link_take(pc, id, 1, ideal);
          if (v > worst) worst = v;
        }
      }
    }
  }
  return worst;
}

/* Ends a round: its costs into rc (reduce only when reduce_only), and every entry back to
 * zero. reduce_only: the link loads were taken from the round before (same flows). */
void round_end(struct pricer *pc, struct round_cost *rc, int reduce_only) {
  int torus = pc->topo == MODEL_TORUS, ideal = torus || model_topology_grid(pc->topo);
  double worst = 0, worst_ideal = 0, worst_red = 0;
  if (reduce_only) {
  } else if (pc->dense && torus) {
    worst = take_runs(pc, &worst_ideal);
  } else {
    size_t nl = pc->dense ? pc->nlinks : pc->nlinks_used;
    for (size_t t = 0; t < nl; t++) {
      double v = link_take(pc, pc->dense ? t : (size_t)pc->links[t], ideal, &worst_ideal);
      if (v > worst) worst = v;
    }
  }
  size_t nr = pc->dense ? (size_t)pc->n : pc->nranks_used;
  for (size_t t = 0; t < nr; t++) {
    int r = pc->dense ? (int)t : pc->ranks[t];
    if (pc->reduced[r] > worst_red) worst_red = pc->reduced[r];
    pc->reduced[r] = 0;
  }
  rc->reduce = worst_red;
  if (reduce_only) return;
  rc->hops = pc->maxhops;
  rc->msgs = pc->maxsend;
  rc->load = worst;
  rc->ideal = ideal ? worst_ideal : worst;
  rc->remote = pc->remote;
}

/* Frees what pricer_init allocated. */
void pricer_free(struct pricer *pc) {
  free(pc->link_slow);
  free(pc->load);
  free(pc->link_stamp);
  free(pc->links);
  free(pc->reduced);
  free(pc->rank_stamp);
  free(pc->ranks);
  free(pc->ideal_out);
  free(pc->ideal_in);
  free(pc->diff);
  free(pc->coord);
  free(pc->sends);
  free(pc->send_stamp);
}

/* Fills the links' slowdowns: a torus link is as slow as the slower rank it joins; a switch
 * port only its own rank's (a healthy sender keeps its bandwidth for its other flows); on two
 * tiers a degraded rank's NIC, and the links into a node at the local tier's speed. */
static void pricer_slowdowns(struct pricer *pc, const double *slow) {
  const struct model_net *net = pc->net;
  for (int r = 0; r < pc->n; r++) {
    if (pc->topo == MODEL_TORUS) {
      for (int d = 0; d < net->ndims; d++) {
        int a = pc->coord[(size_t)r * net->ndims + d], dim = net->dims[d];
        int up = line_rank(pc, r, d, (a + 1) % dim), down = line_rank(pc, r, d, (a + dim - 1) % dim);
        pc->link_slow[r * pc->D2 + 2 * d] = slow[r] > slow[up] ? slow[r] : slow[up];
        pc->link_slow[r * pc->D2 + 2 * d + 1] = slow[r] > slow[down] ? slow[r] : slow[down];
      }
    } else if (model_topology_grid(pc->topo)) {
      for (int d = 0; d < 2; d++) {
        int a = pc->coord[(size_t)r * 2 + d], dim = net->dims[d], b = net->board;
        if (!b) { /* HyperX: the link to each rank of the line, as slow as the slower end */
          for (int x = 0; x < dim; x++) {
            int q = line_rank(pc, r, d, x);
            pc->link_slow[(size_t)r * pc->D2 + (d ? net->dims[0] : 0) + x] = slow[r] > slow[q] ? slow[r] : slow[q];
          }
          continue;
        }
        for (int dir = 0; dir < 2; dir++) { /* a board link, else the port into the tree */
          int edge = dir ? a % b == 0 : a % b == b - 1;
          int q = edge ? r : line_rank(pc, r, d, dir ? a - 1 : a + 1);
          double w = slow[q] > slow[r] ? slow[q] : slow[r];
          pc->link_slow[(size_t)r * pc->D2 + 2 * d + dir] = w;
          pc->link_slow[(size_t)r * pc->D2 + 4 + 2 * d + dir] = slow[r];
        }
      }
    } else if (pc->topo == MODEL_MESH) { /* n - 1 links share the GPU's bandwidth; a link is
                                          * as slow as the slower GPU it joins */
      for (int q = 0; q < pc->n; q++)
        pc->link_slow[(size_t)r * pc->n + q] = (pc->n - 1) * (slow[r] > slow[q] ? slow[r] : slow[q]);
    } else if (pc->topo == MODEL_TWO_TIER) {
      double local = net->local_speed > 0 ? 1 / net->local_speed : 1;
      pc->link_slow[4 * r] = pc->link_slow[4 * r + 1] = local;
      pc->link_slow[4 * r + 2] = pc->link_slow[4 * r + 3] = slow[r];
    } else {
      pc->link_slow[2 * r] = pc->link_slow[2 * r + 1] = slow[r];
    }
  }
}

/* Sets up a pricer for n ranks of nchunks on net; returns AR_OK, AR_ERR_INVALID for a
 * topology that does not fit the ranks, or AR_ERR_NOMEM (with everything freed). */
ar_status pricer_init(struct pricer *pc, int n, int nchunks, const struct model_net *net) {
  int topo = net->topology, torus = topo == MODEL_TORUS, grid = model_topology_grid(topo);
  memset(pc, 0, sizeof(*pc));
  pc->net = net;
  pc->n = n;
  pc->topo = topo;
  pc->inv_chunks = 1.0 / nchunks;
  if (grid && net->ndims != 2) return AR_ERR_INVALID;
  if (torus || grid) {
    long prod = 1;
    if (net->ndims < 1 || net->ndims > AR_MAX_TORUS_DIMS) return AR_ERR_INVALID;
    for (int d = 0; d < net->ndims; d++)
      prod *= net->dims[d];
    if (prod != n) return AR_ERR_INVALID;
  }
  if (topo == MODEL_TWO_TIER && net->gpus_per_node < 1) return AR_ERR_INVALID;
  if (topo == MODEL_MESH && n > MODEL_MESH_MAX) return AR_ERR_INVALID;
  pc->D2 = torus                      ? 2 * net->ndims
           : topo == MODEL_TWO_TIER    ? 4
           : topo == MODEL_MESH        ? n
           : grid && net->board        ? 8
           : grid                      ? net->dims[0] + net->dims[1]
                                       : 2;
  size_t nlinks = pc->nlinks = (size_t)n * pc->D2;
  double *slow = malloc(sizeof(double) * n);
  pc->link_slow = malloc(sizeof(double) * nlinks);
  pc->load = calloc(nlinks, sizeof(double));
  pc->link_stamp = calloc(nlinks, sizeof(unsigned));
  pc->links = malloc(sizeof(int) * nlinks);
  pc->reduced = calloc(n, sizeof(double));
  pc->rank_stamp = calloc(n, sizeof(unsigned));
  pc->ranks = malloc(sizeof(int) * n);
  pc->sends = calloc(nlinks, sizeof(int)); /* by port: a rank or a link (nlinks >= n) */
  pc->send_stamp = calloc(nlinks, sizeof(unsigned));
  if (torus || grid) {
    pc->ideal_out = calloc(nlinks, sizeof(double));
    pc->ideal_in = calloc(nlinks, sizeof(double));
    pc->diff = torus ? calloc(nlinks, sizeof(double)) : NULL;
    pc->coord = malloc(sizeof(int) * (size_t)n * net->ndims);
  }
  if (!slow || !pc->link_slow || !pc->load || !pc->link_stamp || !pc->links || !pc->reduced ||
      !pc->rank_stamp || !pc->ranks || !pc->sends || !pc->send_stamp ||
      ((torus || grid) && (!pc->ideal_out || !pc->ideal_in || (torus && !pc->diff) || !pc->coord))) {
    free(slow);
    pricer_free(pc);
    return AR_ERR_NOMEM;
  }
  for (int r = 0; r < n; r++)
    slow[r] = 1;
  for (int i = 0; i < net->ndegraded; i++)
    if (net->degraded[i] >= 0 && net->degraded[i] < n) slow[net->degraded[i]] = net->factor[i];
  if (torus || grid) {
    for (int d = 0, stride = 1; d < net->ndims; stride *= net->dims[d], d++)
      pc->stride[d] = stride;
    for (int r = 0; r < n; r++)
      for (int d = 0, rest = r; d < net->ndims; d++) {
        pc->coord[(size_t)r * net->ndims + d] = rest % net->dims[d];
        rest /= net->dims[d];
      }
  }
  pricer_slowdowns(pc, slow);
  free(slow);
  return AR_OK;
}

/* ---- phases: rounds summed, and the classes of rounds that pipelining overlaps ---- */

/* Adds one round (priced on net) to phase c; pipelined schedules also count it in its
 * (load, reduce) class (rounds beyond MODEL_CLASSES distinct ones are priced without overlap). */
void phase_add(struct model_cost *c, const struct round_cost *rc, int pipelined,
                      const struct model_net *net) {
  c->rounds++;
  c->rounds_local += !rc->remote;
  c->local_us += rc->remote ? 0 : net->local_alpha_us;
  c->hops += rc->hops;
  c->load += rc->load;
  c->load_ideal += rc->ideal;
  c->reduce += rc->reduce;
  c->msgs += rc->msgs;
  model_cost_ratio_add(c, rc->load, rc->reduce, 1);
  if (!pipelined) return;
  for (int i = 0; i < c->nclass; i++)
    if (c->cls[i].load == rc->load && c->cls[i].reduce == rc->reduce) {
      c->cls[i].count++;
      return;
    }
  if (c->nclass < MODEL_CLASSES)
    c->cls[c->nclass++] = (struct model_class){.load = rc->load, .reduce = rc->reduce, .count = 1};
}

/* Adds phase b into a (classes merged by value). */
static void phase_merge(struct model_cost *a, const struct model_cost *b) {
  a->rounds += b->rounds;
  a->rounds_local += b->rounds_local;
  a->local_us += b->local_us;
  a->hops += b->hops;
  a->load += b->load;
  a->load_ideal += b->load_ideal;
  a->reduce += b->reduce;
  a->msgs += b->msgs;
  model_cost_ratio_merge(a, b);
  for (int j = 0; j < b->nclass; j++) {
    int i = 0;
    while (i < a->nclass && !(a->cls[i].load == b->cls[j].load && a->cls[i].reduce == b->cls[j].reduce))
      i++;
    if (i < a->nclass)
      a->cls[i].count += b->cls[j].count;
    else if (a->nclass < MODEL_CLASSES)
      a->cls[a->nclass++] = b->cls[j];
  }
}

/* ---- stored schedules ---- */

/* Returns 1 when transfers [lo, hi) and [plo, phi) are the same flows in the same order
 * (ends and sizes; a round that repeats the one before loads the links alike). */
static int same_flows(const struct ar_xfer *xs, size_t lo, size_t hi, size_t plo, size_t phi) {
  if (hi - lo != phi - plo) return 0;
  for (size_t i = 0; i < hi - lo; i++)
    if (xs[lo + i].src != xs[plo + i].src || xs[lo + i].dst != xs[plo + i].dst ||
        xs[lo + i].count != xs[plo + i].count)
      return 0;
  return 1;
}

/* One thread's share of the rounds: transfers [lo, hi), whole rounds only. */
struct price_part {
  const struct ar_schedule *s;
  const struct model_net *net;
  size_t lo, hi;
  struct model_price out;
  ar_status st;
};

/* Prices a part's rounds into part->out; returns NULL (a thread body). */
static void *price_part_run(void *arg) {
  struct price_part *pt = arg;
  const struct ar_schedule *s = pt->s;
  struct pricer pc;
  struct round_cost rc = {0};
  memset(&pt->out, 0, sizeof(pt->out));
  if ((pt->st = pricer_init(&pc, s->nranks, s->nchunks, pt->net)) != AR_OK) return NULL;
  const struct ar_xfer *xs = s->xfers;
  int pipelined = (ar_sched_traits(s) & AR_TRAIT_PIPELINED) != 0;
  size_t plo = 0, phi = 0;
  for (size_t lo = pt->lo; lo < pt->hi;) {
    size_t hi = lo;
    while (hi < pt->hi && xs[hi].round == xs[lo].round)
      hi++;
    /* a repeat keeps the last round's link costs in rc; its reduced bytes still count */
    int again = phi > plo && same_flows(xs, lo, hi, plo, phi);
    double hops = 0;
    for (size_t i = lo; i < hi && !again; i++)
      hops += flow_hops(&pc, xs[i].src, xs[i].dst);
    round_begin(&pc, !again && is_dense(&pc, hops));
    for (size_t i = lo; i < hi; i++)
      if (!again)
        round_flow(&pc, xs[i].src, xs[i].dst, xs[i].count, xs[i].op == AR_REDUCE);
      else if (xs[i].op == AR_REDUCE && xs[i].src != xs[i].dst)
        count_reduce(&pc, xs[i].dst, xs[i].count * pc.inv_chunks);
    round_end(&pc, &rc, again);
    phase_add(xs[lo].round < s->nprecond ? &pt->out.pre : &pt->out.main, &rc, pipelined,
              pt->net);
    plo = lo;
    phi = hi;
    lo = hi;
  }
  pricer_free(&pc);
  return NULL;
}

#define PRICE_MAX_THREADS 16
#define PRICE_PER_THREAD 4000000 /* transfers: below this one thread is quicker */

ar_status model_price_schedule(const struct ar_schedule *s, const struct model_net *net,
                               struct model_price *out) {
  memset(out, 0, sizeof(*out));
  out->nranks = s->nranks;
  out->pipelined = (ar_sched_traits(s) & AR_TRAIT_PIPELINED) != 0;
  /* rounds are priced independently, so big schedules split across threads at round
   * boundaries (OPTCC at n = 1024 has ~1.3e8 transfers) */
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  int nt = (int)(s->nxfers / PRICE_PER_THREAD) + 1;
  if (nt > cpus) nt = cpus > 1 ? (int)cpus : 1;
  if (ar_setting(AR_SET_MODEL_THREADS) > 0) nt = (int)ar_setting(AR_SET_MODEL_THREADS);
  if (nt > PRICE_MAX_THREADS) nt = PRICE_MAX_THREADS;
  struct price_part parts[PRICE_MAX_THREADS];
  pthread_t tids[PRICE_MAX_THREADS];
  int started[PRICE_MAX_THREADS] = {0};
  size_t lo = 0;
  for (int t = 0; t < nt; t++) {
    size_t hi = t == nt - 1 ? s->nxfers : s->nxfers / nt * (t + 1);
    if (hi < lo) hi = lo;
    while (hi > 0 && hi < s->nxfers && s->xfers[hi].round == s->xfers[hi - 1].round)
      hi++;
    parts[t] = (struct price_part){.s = s, .net = net, .lo = lo, .hi = hi};
    lo = hi;
  }
  for (int t = 1; t < nt; t++)
    started[t] = !pthread_create(&tids[t], NULL, price_part_run, &parts[t]);
  price_part_run(&parts[0]);
  ar_status st = AR_OK;
  for (int t = 0; t < nt; t++) {
    if (t > 0 && started[t]) pthread_join(tids[t], NULL);
    if (t > 0 && !started[t]) price_part_run(&parts[t]); /* no thread: price it here */
    if (parts[t].st != AR_OK && st == AR_OK) st = parts[t].st;
    phase_merge(&out->pre, &parts[t].out.pre);
    phase_merge(&out->main, &parts[t].out.main);
  }
  return st;
}

