/* Model mode, flows: a schedule's flow graph (model.h says what a transfer waits for). Each
 * transfer is routed as the round pricer routes it (model_price.c, its route traced link by
 * link); what it waits for is found round by round, reads before writes (a round's transfers
 * see the data as the round began):
 *  - data: every rank keeps, over its chunks, which node last wrote each range (an interval
 *    map); a transfer waits for the writers of the chunks it sends, and its writes replace
 *    them at dst (several writers of one range in one round: a join of them);
 *  - ports: each port keeps the node of its last round's transfers (a join when there are
 *    several); a transfer waits for the one before its own round on the ports it leaves src
 *    and enters dst by. On a GPU's links (a switch, a mesh, two tiers) a rank has one port
 *    each way, its program's order (the lowering runs a rank's rounds in order), whatever
 *    link a transfer takes; on a network of NICs (tori, HammingMesh, HyperX) every link is a
 *    port of the rank it leaves and of the rank it enters. */
#include <stdlib.h>
#include <string.h>

#include "model_flow_int.h"
#include "model_pricer.h"

#define DENSE_MAX (1 << 24) /* ranks x chunks kept one entry a chunk (64 MB) */

/* One rank's chunks: segment i covers [st[i], st[i + 1]) (the last up to nchunks), last written
 * by node nd[i] (-1: the rank's own data). */
struct imap {
  int *st, *nd;
  int len, cap;
};

/* One side of the links' ports (sending or receiving): per link, the last round that used it,
 * that round's node (a join when several), the node of the round before. */
struct ports {
  int *round, *cur, *prev;
  unsigned char *join; /* cur is a join of its round */
};

/* Growable arrays of the build: edges (pred -> succ) and each node's round. */
struct gbuild {
  struct model_flow_graph *g;
  int *epred, *esucc;
  size_t nedges, cap_edges;
  int *nround; /* per node */
  size_t cap_nodes;
  int nchunks;
  int *dense;        /* n x nchunks: each chunk's last writer, where that fits DENSE_MAX */
  struct imap *maps; /* else each rank's ranges */
  struct ports out, in; /* per link: the ranks sending by it, receiving by it */
  int oom;
};

static int edge(struct gbuild *b, int pred, int succ) {
  if (pred < 0) return 0;
  if (b->nedges == b->cap_edges) {
    size_t cap = b->cap_edges ? 2 * b->cap_edges : 1 << 16;
    int *p = realloc(b->epred, cap * sizeof(int)), *s = p ? realloc(b->esucc, cap * sizeof(int)) : NULL;
    if (p) b->epred = p;
    if (!s) return b->oom = -1;
    b->esucc = s;
    b->cap_edges = cap;
  }
  b->epred[b->nedges] = pred;
  b->esucc[b->nedges++] = succ;
  return 0;
}

/* Returns a new join node of round k, or -1 on no memory. */
static int join_new(struct gbuild *b, int k) {
  if (b->g->nnodes == b->cap_nodes) {
    size_t cap = 2 * b->cap_nodes;
    int *r = realloc(b->nround, cap * sizeof(int));
    if (!r) return b->oom = -1;
    b->nround = r;
    b->cap_nodes = cap;
  }
  b->nround[b->g->nnodes] = k;
  return (int)b->g->nnodes++;
}

/* Returns the node that ends when both a and b (of round k) have: a new join. */
static int join2(struct gbuild *b, int a, int x, int k) {
  int j = join_new(b, k);
  if (j < 0) return -1;
  edge(b, a, j);
  edge(b, x, j);
  return j;
}

/* Returns the segment of m holding chunk c. */
static int imap_find(const struct imap *m, int c) {
  int lo = 0, hi = m->len - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (m->st[mid] <= c) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/* Makes chunk c start a segment; returns that segment's index, or -1 on no memory. */
static int imap_split(struct imap *m, int c) {
  int i = imap_find(m, c);
  if (m->st[i] == c) return i;
  if (m->len == m->cap) {
    int cap = 2 * m->cap, *st = realloc(m->st, cap * sizeof(int));
    if (st) m->st = st;
    int *nd = st ? realloc(m->nd, cap * sizeof(int)) : NULL;
    if (!nd) return -1;
    m->nd = nd;
    m->cap = cap;
  }
  memmove(m->st + i + 2, m->st + i + 1, (m->len - i - 1) * sizeof(int));
  memmove(m->nd + i + 2, m->nd + i + 1, (m->len - i - 1) * sizeof(int));
  m->st[i + 1] = c;
  m->nd[i + 1] = m->nd[i];
  m->len++;
  return i + 1;
}

/* Transfer x waits for the writers of chunks [a, e) at its source. */
static void read_deps(struct gbuild *b, int x, int rank, int a, int e) {
  int last = -1;
  if (b->dense) {
    const int *w = b->dense + (size_t)rank * b->nchunks;
    for (int c = a; c < e; c++)
      if (w[c] != last) edge(b, last = w[c], x);
    return;
  }
  const struct imap *m = &b->maps[rank];
  for (int i = imap_find(m, a); i < m->len && m->st[i] < e; i++)
    if (m->nd[i] != last) edge(b, last = m->nd[i], x);
}

/* Returns chunk writer old's successor when x of round k writes it too: x, or a join of the
 * two when old wrote it in round k (*old_last, *new_last: the last such pair, reused). */
static int writer(struct gbuild *b, int old, int x, int k, int *old_last, int *new_last) {
  if (old < 0 || b->nround[old] != k) return x;
  if (old != *old_last) {
    *old_last = old;
    *new_last = join2(b, old, x, k);
  }
  return *new_last;
}

/* Transfer x of round k writes chunks [a, e) at rank: it becomes their writer, joined with
 * any other writer of theirs in round k. */
static void write_chunks(struct gbuild *b, int x, int rank, int a, int e, int k) {
  int old_last = -2, new_last = -1;
  if (a >= e) return;
  if (b->dense) {
    int *w = b->dense + (size_t)rank * b->nchunks;
    for (int c = a; c < e; c++)
      w[c] = writer(b, w[c], x, k, &old_last, &new_last);
    return;
  }
  struct imap *m = &b->maps[rank];
  int ia = imap_split(m, a), ib = e < b->nchunks ? imap_split(m, e) : m->len;
  if (ia < 0 || ib < 0) {
    b->oom = -1;
    return;
  }
  for (int i = ia; i < ib; i++)
    m->nd[i] = writer(b, m->nd[i], x, k, &old_last, &new_last);
  /* merge neighbours written by one node again */
  int lo = ia > 0 ? ia - 1 : 0, hi = ib < m->len ? ib + 1 : m->len, w = lo + 1;
  for (int i = lo + 1; i < hi; i++)
    if (m->nd[i] != m->nd[w - 1]) {
      m->st[w] = m->st[i];
      m->nd[w++] = m->nd[i];
    }
  if (w < hi) {
    memmove(m->st + w, m->st + hi, (m->len - hi) * sizeof(int));
    memmove(m->nd + w, m->nd + hi, (m->len - hi) * sizeof(int));
    m->len -= hi - w;
  }
}

/* Transfer x of round k uses link L on side p: it waits for that port's last earlier round
 * and joins its round's group there. */
static void port_use(struct gbuild *b, struct ports *p, int x, size_t L, int k) {
  if (p->round[L] != k) {
    p->prev[L] = p->round[L] >= 0 ? p->cur[L] : -1;
    p->round[L] = k;
    p->cur[L] = x;
    p->join[L] = 0;
  } else {
    if (!p->join[L]) { /* a second transfer of the round on this port: a join */
      int j = join_new(b, k);
      if (j < 0) return;
      edge(b, p->cur[L], j);
      p->cur[L] = j;
      p->join[L] = 1;
    }
    edge(b, x, p->cur[L]);
  }
  edge(b, p->prev[L], x);
}

/* Returns the rank link id enters on a torus or a grid, -1 for a tree (the links' numbering:
 * model_price.c). */
static int link_head(const struct pricer *pc, size_t id) {
  int r = (int)(id / pc->D2), k = (int)(id % pc->D2);
  const struct model_net *net = pc->net;
  if (pc->topo == MODEL_HYPERX) /* k: coordinate k of r's row, or k - dims[0] of its column */
    return k < net->dims[0] ? r + (k - pc->coord[2 * r]) * pc->stride[0]
                            : r + (k - net->dims[0] - pc->coord[2 * r + 1]) * pc->stride[1];
  if (pc->topo != MODEL_TORUS && k >= 4) return r; /* HammingMesh: down from a tree */
  int d = k / 2, dir = k % 2, dim = net->dims[d], a = pc->coord[(size_t)r * net->ndims + d];
  if (pc->topo != MODEL_TORUS && (dir ? a % net->board == 0 : a % net->board == net->board - 1))
    return -1; /* HammingMesh: up into a tree at the board's edge */
  int b = dir ? (a + dim - 1) % dim : (a + 1) % dim;
  return r + (b - a) * pc->stride[d];
}

/* Routes transfer x (its links, their shares, its hops) through the round pricer pc, whose
 * trace arrays are set; returns 0, or -1 on no memory. */
static int route_xfer(struct gbuild *b, struct pricer *pc, size_t x, const struct ar_xfer *t,
                      size_t *cap_route) {
  struct model_flow_graph *g = b->g;
  struct round_cost rc;
  round_begin(pc, 0);
  pc->ntrace = 0;
  round_flow(pc, t->src, t->dst, t->count, 0);
  g->hops[x] = pc->maxhops;
  if (pc->topo == MODEL_TWO_TIER && !pc->remote) g->flags[x] |= FLOW_LOCAL;
  round_end(pc, &rc, 0); /* every load back to zero */
  double amount = t->count * pc->inv_chunks;
  size_t at = g->route_off[x];
  if (at + pc->ntrace > *cap_route) {
    size_t cap = 2 * *cap_route + pc->ntrace;
    int *l = realloc(g->route_link, cap * sizeof(int));
    if (l) g->route_link = l;
    float *w = l ? realloc(g->route_w, cap * sizeof(float)) : NULL;
    if (!w) return -1;
    g->route_w = w;
    *cap_route = cap;
  }
  size_t k = at;
  for (size_t i = 0; i < pc->ntrace; i++) { /* a link met twice (after a split) adds up */
    size_t j = at;
    while (j < k && g->route_link[j] != pc->trace_link[i])
      j++;
    if (j == k) {
      g->route_link[k] = pc->trace_link[i];
      g->route_w[k++] = 0;
    }
    g->route_w[j] += (float)(pc->trace_amount[i] / amount);
  }
  g->route_off[x + 1] = k;
  g->port[x] = g->port2[x] = -1;
  if (pc->topo == MODEL_SWITCH || pc->topo == MODEL_MESH || pc->topo == MODEL_TWO_TIER) {
    port_use(b, &b->out, (int)x, (size_t)t->src, t->round); /* a GPU: its program's order */
    port_use(b, &b->in, (int)x, (size_t)t->dst, t->round);
    g->port[x] = t->src;
    return 0;
  }
  for (size_t j = at; j < k; j++) { /* a NIC's ports: the links it leaves src, enters dst by */
    size_t L = (size_t)g->route_link[j];
    if ((int)(L / pc->D2) == t->src) {
      port_use(b, &b->out, (int)x, L, t->round);
      *(g->port[x] < 0 ? &g->port[x] : &g->port2[x]) = (int)L;
    }
    if (link_head(pc, L) == t->dst) port_use(b, &b->in, (int)x, L, t->round);
  }
  return 0;
}

void model_flow_free(struct model_flow_graph *g) {
  if (!g) return;
  free(g->src);
  free(g->dst);
  free(g->hops);
  free(g->port);
  free(g->port2);
  free(g->frac);
  free(g->flags);
  free(g->route_off);
  free(g->route_link);
  free(g->route_w);
  free(g->npred);
  free(g->succ_off);
  free(g->succ);
  free(g->link_slow);
  free(g);
}

/* The edges into CSR form (succ by pred) and each node's predecessor count. */
static ar_status graph_finish(struct gbuild *b) {
  struct model_flow_graph *g = b->g;
  g->npred = calloc(g->nnodes, sizeof(int));
  g->succ_off = calloc(g->nnodes + 1, sizeof(size_t));
  g->succ = malloc((b->nedges ? b->nedges : 1) * sizeof(int));
  if (!g->npred || !g->succ_off || !g->succ) return AR_ERR_NOMEM;
  for (size_t e = 0; e < b->nedges; e++) {
    g->succ_off[b->epred[e] + 1]++;
    g->npred[b->esucc[e]]++;
  }
  for (size_t v = 0; v < g->nnodes; v++)
    g->succ_off[v + 1] += g->succ_off[v];
  size_t *fill = malloc(g->nnodes * sizeof(size_t));
  if (!fill) return AR_ERR_NOMEM;
  memcpy(fill, g->succ_off, g->nnodes * sizeof(size_t));
  for (size_t e = 0; e < b->nedges; e++)
    g->succ[fill[b->epred[e]]++] = b->esucc[e];
  free(fill);
  return AR_OK;
}

/* Allocates one side's port arrays for nl links, none used yet; returns 0, or -1. */
static int ports_alloc(struct ports *p, size_t nl) {
  p->round = malloc(nl * sizeof(int));
  p->cur = malloc(nl * sizeof(int));
  p->prev = malloc(nl * sizeof(int));
  p->join = calloc(nl, 1);
  if (!p->round || !p->cur || !p->prev || !p->join) return -1;
  for (size_t l = 0; l < nl; l++)
    p->round[l] = p->cur[l] = p->prev[l] = -1;
  return 0;
}

static void ports_free(struct ports *p) {
  free(p->round);
  free(p->cur);
  free(p->prev);
  free(p->join);
}

/* Allocates the build's and the graph's arrays for s on pc; returns AR_OK or AR_ERR_NOMEM. */
static ar_status build_alloc(struct gbuild *b, const struct ar_schedule *s, struct pricer *pc,
                             size_t *cap_route) {
  struct model_flow_graph *g = b->g;
  size_t nx = s->nxfers, nl = pc->nlinks;
  g->src = malloc(nx * sizeof(int) + 1);
  g->dst = malloc(nx * sizeof(int) + 1);
  g->hops = malloc(nx * sizeof(int) + 1);
  g->port = malloc(nx * sizeof(int) + 1);
  g->port2 = malloc(nx * sizeof(int) + 1);
  g->frac = malloc(nx * sizeof(double) + 1);
  g->flags = calloc(nx + 1, 1);
  g->route_off = calloc(nx + 1, sizeof(size_t));
  *cap_route = 2 * nx + 16;
  g->route_link = malloc(*cap_route * sizeof(int));
  g->route_w = malloc(*cap_route * sizeof(float));
  g->link_slow = malloc(nl * sizeof(double));
  b->cap_nodes = nx + nx / 2 + 16;
  b->nround = malloc(b->cap_nodes * sizeof(int));
  if ((size_t)s->nranks * b->nchunks <= DENSE_MAX) {
    b->dense = malloc((size_t)s->nranks * b->nchunks * sizeof(int) + 1);
    if (!b->dense) return AR_ERR_NOMEM;
    for (size_t i = 0; i < (size_t)s->nranks * b->nchunks; i++)
      b->dense[i] = -1;
  } else {
    b->maps = calloc(s->nranks, sizeof(struct imap));
    if (!b->maps) return AR_ERR_NOMEM;
  }
  if (!g->src || !g->dst || !g->hops || !g->port || !g->port2 || !g->frac || !g->flags || !g->route_off || !g->route_link ||
      !g->route_w || !g->link_slow || !b->nround || ports_alloc(&b->out, nl) ||
      ports_alloc(&b->in, nl))
    return AR_ERR_NOMEM;
  for (int r = 0; b->maps && r < s->nranks; r++) {
    struct imap *m = &b->maps[r];
    m->cap = 8;
    m->st = malloc(m->cap * sizeof(int));
    m->nd = malloc(m->cap * sizeof(int));
    if (!m->st || !m->nd) return AR_ERR_NOMEM;
    m->len = 1;
    m->st[0] = 0;
    m->nd[0] = -1;
  }
  memcpy(g->link_slow, pc->link_slow, nl * sizeof(double));
  /* a route walks at most every dimension's ring both ways (a tie split at each) */
  size_t hops = 16;
  for (int d = 0; d < pc->net->ndims; d++)
    hops += (size_t)pc->net->dims[d] * 2;
  pc->trace_cap = hops;
  pc->trace_link = malloc(hops * sizeof(int));
  pc->trace_amount = malloc(hops * sizeof(double));
  return pc->trace_link && pc->trace_amount ? AR_OK : AR_ERR_NOMEM;
}

/* Adds round [lo, hi) of s: reads, ports and routes first, then writes. */
static ar_status build_round(struct gbuild *b, const struct ar_schedule *s, struct pricer *pc,
                             size_t lo, size_t hi, size_t *cap_route) {
  struct model_flow_graph *g = b->g;
  for (size_t x = lo; x < hi; x++) {
    const struct ar_xfer *t = &s->xfers[x];
    g->src[x] = t->src;
    g->dst[x] = t->dst;
    g->frac[x] = t->count * pc->inv_chunks;
    g->hops[x] = 0;
    g->port[x] = g->port2[x] = -1;
    g->flags[x] |= (t->op == AR_REDUCE ? FLOW_REDUCE : 0) | (t->src == t->dst ? FLOW_SELF : 0) |
                   (t->round < s->nprecond ? FLOW_PRE : 0);
    b->nround[x] = t->round;
    read_deps(b, (int)x, t->src, t->chunk, t->chunk + t->count);
    g->route_off[x + 1] = g->route_off[x];
    if (t->src != t->dst && route_xfer(b, pc, x, t, cap_route)) return AR_ERR_NOMEM;
  }
  for (size_t x = lo; x < hi; x++) {
    const struct ar_xfer *t = &s->xfers[x];
    write_chunks(b, (int)x, t->dst, t->chunk, t->chunk + t->count, t->round);
  }
  return b->oom ? AR_ERR_NOMEM : AR_OK;
}

/* Frees the build's own arrays (the graph's stay). */
static void build_free(struct gbuild *b, int nranks) {
  free(b->epred);
  free(b->esucc);
  free(b->nround);
  for (int r = 0; b->maps && r < nranks; r++) {
    free(b->maps[r].st);
    free(b->maps[r].nd);
  }
  free(b->maps);
  free(b->dense);
  ports_free(&b->out);
  ports_free(&b->in);
}

ar_status model_flow_build(const struct ar_schedule *s, const struct model_net *net,
                           struct model_flow_graph **out) {
  *out = NULL;
  if (s->nxfers > MODEL_FLOW_MAX_XFERS) return AR_ERR_UNSUPPORTED;
  struct pricer pc;
  ar_status st = pricer_init(&pc, s->nranks, s->nchunks > 0 ? s->nchunks : 1, net);
  if (st != AR_OK) return st;
  struct gbuild b = {.nchunks = s->nchunks};
  struct model_flow_graph *g = b.g = calloc(1, sizeof(*g));
  size_t cap_route = 0;
  st = g ? build_alloc(&b, s, &pc, &cap_route) : AR_ERR_NOMEM;
  if (st == AR_OK) {
    g->n = s->nranks;
    g->nx = g->nnodes = s->nxfers;
    g->nlinks = pc.nlinks;
    g->local_alpha_us = net->local_alpha_us;
    for (size_t lo = 0; lo < s->nxfers && st == AR_OK;) {
      size_t hi = lo;
      while (hi < s->nxfers && s->xfers[hi].round == s->xfers[lo].round)
        hi++;
      st = build_round(&b, s, &pc, lo, hi, &cap_route);
      lo = hi;
    }
  }
  if (st == AR_OK) st = graph_finish(&b);
  build_free(&b, s->nranks);
  free(pc.trace_link);
  free(pc.trace_amount);
  pricer_free(&pc);
  if (st != AR_OK) {
    model_flow_free(g);
    return st;
  }
  *out = g;
  return AR_OK;
}

ar_status model_flow_algo(const struct ar_algo *a, const struct ar_params *p,
                          const struct model_net *net, struct model_flow_graph **out,
                          char *reason, size_t rlen) {
  struct ar_schedule s;
  memset(&s, 0, sizeof(s));
  *out = NULL;
  ar_status st = ar_build(a, p, &s);
  if (st != AR_OK) {
    snprintf(reason, rlen, "%s", s.reason);
  } else if ((st = model_flow_build(&s, net, out)) != AR_OK) {
    if (st == AR_ERR_UNSUPPORTED)
      snprintf(reason, rlen, "%zu transfers: the flow mode takes at most %d (--pricing rounds "
               "prices it)", s.nxfers, MODEL_FLOW_MAX_XFERS);
    else
      snprintf(reason, rlen, "pricing failed: %s", ar_status_str(st));
  }
  sched_free(&s);
  return st;
}

size_t model_flow_xfers(const struct model_flow_graph *g) {
  return g->nx;
}
