/* Model mode, flows: prices a flow graph (model_flow_graph.c) by events (model.h says what a
 * transfer waits for and what it costs). Between two events every active flow moves at a
 * fixed rate; at an event (a flow starts or its last byte leaves) the rates of the flows that
 * share links with it, directly or through others, are computed again by progressive filling:
 * the link whose capacity left per unfrozen flow (by the share of each crossing it) is the
 * smallest fixes that rate for its flows, which then leave the other links' counts, and so on.
 * Events at one time are all taken before the rates are computed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model_flow_int.h"

enum ev_kind { EV_BYTES = 0, EV_END = 1, EV_READY = 2, EV_START = 3 };

/* A timed event: at t, of a kind, for a node (a flow's completions carry its version). */
struct event {
  double t;
  int kind, node, ver;
};

/* A binary heap by (t, kind, node): at one time, ends before starts, nodes in order. */
struct heap {
  struct event *e;
  size_t n, cap;
};

static int ev_less(const struct event *a, const struct event *b) {
  if (a->t != b->t) return a->t < b->t;
  if (a->kind != b->kind) return a->kind < b->kind;
  return a->node < b->node;
}

static int heap_push(struct heap *h, struct event ev) {
  if (h->n == h->cap) {
    size_t cap = h->cap ? 2 * h->cap : 1024;
    struct event *e = realloc(h->e, cap * sizeof(*e));
    if (!e) return -1;
    h->e = e;
    h->cap = cap;
  }
  size_t i = h->n++;
  while (i > 0 && ev_less(&ev, &h->e[(i - 1) / 2])) {
    h->e[i] = h->e[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h->e[i] = ev;
  return 0;
}

static struct event heap_pop(struct heap *h) {
  struct event top = h->e[0], last = h->e[--h->n];
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= h->n) break;
    if (c + 1 < h->n && ev_less(&h->e[c + 1], &h->e[c])) c++;
    if (!ev_less(&h->e[c], &last)) break;
    h->e[i] = h->e[c];
    i = c;
  }
  if (h->n) h->e[i] = last;
  return top;
}

/* The state of one pricing. */
struct sim {
  const struct model_flow_graph *g;
  const struct model_hw *hw;
  double msg_us, bytes, delay_us, now;
  int straggler;
  struct heap ev;
  int *npl;              /* per node: predecessors not yet ended */
  int *stack, nstack;    /* nodes ending now, to be taken */
  int *readyq, nready;   /* transfers ready now, to be injected in node order */
  double *rem, *rate, *last; /* per transfer: bytes left, at rate since last */
  int *ver;              /* per transfer: its completion event's version */
  int *pos;              /* per route entry: its place in its link's list */
  size_t *owner;         /* per route entry: its transfer */
  int **lflow;           /* per link: the route entries of the flows crossing it */
  int *lcount, *lcap;
  double *sender_free, *sum_free; /* per port (a rank or a link), per rank */
  size_t nls;            /* links: the network's, and with overlapped sums a rank's summing */
  /* a recomputation: links and flows reached, their marks */
  unsigned epoch, *lmark, *fmark;
  int *dirty, ndirty, *lqueue;
  size_t *fqueue;
  double *capr, *wsum;   /* per link: capacity left, shares of unfrozen flows */
  int *lver;
  unsigned char *frozen;
  struct heap lheap;     /* links by capacity left per share (t: the key, node: the link) */
  size_t ended;
  double end_us, pre_us;
  int oom;
};

/* Events this close to the first of a moment are taken with it (us). */
static double slack(double t) {
  return 1e-9 * (fabs(t) > 1 ? fabs(t) : 1);
}

static void push(struct sim *s, double t, int kind, int node, int ver) {
  if (heap_push(&s->ev, (struct event){t, kind, node, ver})) s->oom = 1;
}

/* Marks link l for the next recomputation. */
static void dirty(struct sim *s, int l) {
  if (s->lmark[l] == s->epoch) return;
  s->lmark[l] = s->epoch;
  s->dirty[s->ndirty++] = l;
}

/* Returns 1 when x's sum overlaps its bytes (--gamma-overlap): its dst's summing, a link of
 * 1 / gamma bytes a us after the network's (link nlinks + dst), is the last of its route. */
static int sums_overlap(const struct sim *s, size_t x) {
  return (s->g->flags[x] & FLOW_REDUCE) && s->hw->gamma > 0 && s->hw->sums_overlap;
}

#define ROUTE_END ((size_t)-1)

/* x's route entries in order: its links' [route_off[x], route_off[x + 1]), then its summing's
 * (entry ne + x, where ne = route_off[nx]), until ROUTE_END. */
static size_t route_first(const struct sim *s, size_t x) {
  const struct model_flow_graph *g = s->g;
  if (g->route_off[x] < g->route_off[x + 1]) return g->route_off[x];
  return sums_overlap(s, x) ? g->route_off[g->nx] + x : ROUTE_END;
}

static size_t route_next(const struct sim *s, size_t x, size_t e) {
  const struct model_flow_graph *g = s->g;
  if (e >= g->route_off[g->nx]) return ROUTE_END;
  if (e + 1 < g->route_off[x + 1]) return e + 1;
  return sums_overlap(s, x) ? g->route_off[g->nx] + x : ROUTE_END;
}

/* Route entry e's link and the share of its flow crossing it. */
static int entry_link(const struct sim *s, size_t e) {
  const struct model_flow_graph *g = s->g;
  size_t ne = g->route_off[g->nx];
  return e < ne ? g->route_link[e] : (int)g->nlinks + g->dst[e - ne];
}

static double entry_w(const struct sim *s, size_t e) {
  return e < s->g->route_off[s->g->nx] ? s->g->route_w[e] : 1.0;
}

#define FOR_ROUTE(s, x, e) for (size_t e = route_first(s, x); e != ROUTE_END; e = route_next(s, x, e))

/* Puts transfer x's flow on its links. */
static void flow_start(struct sim *s, size_t x) {
  const struct model_flow_graph *g = s->g;
  s->rem[x] = g->frac[x] * s->bytes;
  s->rate[x] = 0;
  s->last[x] = s->now;
  FOR_ROUTE(s, x, e) {
    int l = entry_link(s, e);
    if (s->lcount[l] == s->lcap[l]) {
      int cap = s->lcap[l] ? 2 * s->lcap[l] : 4, *f = realloc(s->lflow[l], cap * sizeof(int));
      if (!f) {
        s->oom = 1;
        return;
      }
      s->lflow[l] = f;
      s->lcap[l] = cap;
    }
    s->pos[e] = s->lcount[l];
    s->lflow[l][s->lcount[l]++] = (int)e;
    dirty(s, l);
  }
}

/* Takes transfer x's flow off its links. */
static void flow_stop(struct sim *s, size_t x) {
  FOR_ROUTE(s, x, e) {
    int l = entry_link(s, e), p = s->pos[e], moved = s->lflow[l][--s->lcount[l]];
    s->lflow[l][p] = moved;
    s->pos[moved] = p;
    dirty(s, l);
  }
  s->ver[x]++; /* any completion still queued is stale */
}

/* When transfer x's byte leaving at t lands: alpha (the local tier's inside a node) and its
 * hops later. */
static double landing(const struct sim *s, size_t x, double t) {
  const struct model_flow_graph *g = s->g;
  double alpha = g->flags[x] & FLOW_LOCAL ? g->local_alpha_us : s->hw->alpha_us;
  return t + alpha + g->hops[x] * s->hw->hop_us;
}


/* The flow of x left its last byte: it ends after the latency and, for a reduce, its sum
 * (overlapped: its sum kept pace with its bytes). */
static void bytes_done(struct sim *s, size_t x) {
  const struct model_flow_graph *g = s->g;
  if (s->hw->beta > 0 || sums_overlap(s, x)) flow_stop(s, x); /* else never on its links */
  double t = landing(s, x, s->now);
  if ((g->flags[x] & FLOW_REDUCE) && s->hw->gamma > 0 && !s->hw->sums_overlap) {
    /* dst's sums one after another, after the bytes */
    int d = g->dst[x];
    double at = t > s->sum_free[d] ? t : s->sum_free[d];
    t = s->sum_free[d] = at + g->frac[x] * s->bytes * s->hw->gamma;
  }
  push(s, t, EV_END, (int)x, 0);
}

/* Returns 1 when transfer x waits for the straggler's arrival, which is later than t. */
static int held(const struct sim *s, int x, double t) {
  const struct model_flow_graph *g = s->g;
  return s->straggler >= 0 && (size_t)x < g->nx && t + slack(t) < s->delay_us &&
         (g->src[x] == s->straggler || g->dst[x] == s->straggler);
}

/* Transfer x's bytes start moving now (no links, or links infinitely fast: they take none;
 * an overlapped sum's rank takes its bytes at 1 / gamma). */
static void start(struct sim *s, size_t x) {
  if ((!(s->hw->beta > 0) && !sums_overlap(s, x)) || route_first(s, x) == ROUTE_END) {
    s->rem[x] = 0;
    s->ver[x]++;
    push(s, s->now, EV_BYTES, (int)x, s->ver[x]);
    return;
  }
  flow_start(s, x);
}

/* Node v is ready at s->now (what it waits for has ended). */
static void node_ready(struct sim *s, int v) {
  const struct model_flow_graph *g = s->g;
  size_t x = (size_t)v;
  if (x >= g->nx || (g->flags[x] & FLOW_SELF) || !(g->frac[x] * s->bytes > 0)) {
    push(s, s->now, EV_END, v, 0); /* a join, a copy onto its own rank, nothing to move */
    return;
  }
  int p = g->port[x], p2 = g->port2[x]; /* a port's messages one after another */
  double at = s->now > s->sender_free[p] ? s->now : s->sender_free[p];
  if (p2 >= 0 && s->sender_free[p2] > at) at = s->sender_free[p2];
  s->sender_free[p] = at + s->msg_us;
  if (p2 >= 0) s->sender_free[p2] = at + s->msg_us;
  if (at + s->msg_us > s->now) push(s, at + s->msg_us, EV_START, v, 0);
  else start(s, x);
}

/* Node v ended at s->now: what waits for it may become ready. A join, a copy onto its own
 * rank and, without a per-message cost (no order among a sender's messages to keep), a
 * transfer start at once; the rest go through the queue (a sender's messages in order). */
static void node_end(struct sim *s, int v) {
  const struct model_flow_graph *g = s->g;
  s->stack[s->nstack++] = v;
  while (s->nstack) {
    v = s->stack[--s->nstack];
    s->ended++;
    if (s->now > s->end_us) s->end_us = s->now;
    if ((size_t)v < g->nx && (g->flags[v] & FLOW_PRE) && s->now > s->pre_us) s->pre_us = s->now;
    for (size_t i = g->succ_off[v]; i < g->succ_off[v + 1]; i++) {
      int w = g->succ[i];
      if (--s->npl[w]) continue;
      size_t x = (size_t)w;
      if (held(s, w, s->now)) {
        push(s, s->delay_us, EV_READY, w, 0);
      } else if (x >= g->nx || (g->flags[x] & FLOW_SELF) || !(g->frac[x] * s->bytes > 0)) {
        s->stack[s->nstack++] = w; /* ends now */
      } else if (s->msg_us > 0) {
        push(s, s->now, EV_READY, w, 0);
      } else {
        start(s, x);
      }
    }
  }
}

/* Link l's capacity in bytes per us. */
static double link_cap(const struct sim *s, int l) {
  if ((size_t)l >= s->g->nlinks) return 1.0 / s->hw->gamma; /* a rank's summing */
  return 1.0 / (s->hw->beta * s->g->link_slow[l]);
}

static void lheap_push(struct sim *s, int l) {
  if (s->wsum[l] > 1e-12 && heap_push(&s->lheap, (struct event){s->capr[l] / s->wsum[l], 0, l, s->lver[l]}))
    s->oom = 1;
}

/* Collects the flows sharing links with the dirty links (transitively) into s->fqueue;
 * returns their count (the links reached are s->lqueue[0 .. *nl)). */
static size_t reach(struct sim *s, int *nl) {
  size_t nf = 0;
  int n = 0;
  s->epoch++;
  for (int i = 0; i < s->ndirty; i++) {
    s->lmark[s->dirty[i]] = s->epoch;
    s->lqueue[n++] = s->dirty[i];
  }
  for (int i = 0; i < n; i++) {
    int l = s->lqueue[i];
    for (int j = 0; j < s->lcount[l]; j++) {
      size_t x = s->owner[s->lflow[l][j]];
      if (s->fmark[x] == s->epoch) continue;
      s->fmark[x] = s->epoch;
      s->fqueue[nf++] = x;
      FOR_ROUTE(s, x, e) {
        int l2 = entry_link(s, e);
        if (s->lmark[l2] != s->epoch) {
          s->lmark[l2] = s->epoch;
          s->lqueue[n++] = l2;
        }
      }
    }
  }
  *nl = n;
  return nf;
}

/* Max-min fair rates for the flows reached from the dirty links, and their completions. */
static void share(struct sim *s) {
  int nl;
  size_t nf = reach(s, &nl);
  s->ndirty = 0;
  s->epoch++; /* new marks for the next collection (lmark was used by reach) */
  for (size_t i = 0; i < nf; i++) {
    size_t x = s->fqueue[i];
    s->rem[x] -= s->rate[x] * (s->now - s->last[x]);
    s->last[x] = s->now;
    s->frozen[x] = 0;
  }
  if (nf == 1) { /* alone on its links: the slowest of them, by its share there */
    size_t x = s->fqueue[0];
    double r = INFINITY;
    FOR_ROUTE(s, x, e) {
      double c = link_cap(s, entry_link(s, e)) / entry_w(s, e);
      r = c < r ? c : r;
    }
    s->rate[x] = r;
    nl = 0;
  }
  s->lheap.n = 0;
  for (int i = 0; i < nl; i++) {
    int l = s->lqueue[i];
    s->capr[l] = link_cap(s, l);
    s->wsum[l] = 0;
    for (int j = 0; j < s->lcount[l]; j++)
      s->wsum[l] += entry_w(s, (size_t)s->lflow[l][j]);
    lheap_push(s, l);
  }
  double level = 0;
  while (s->lheap.n) {
    struct event top = heap_pop(&s->lheap);
    int l = top.node;
    if (top.ver != s->lver[l] || !(s->wsum[l] > 1e-12)) continue;
    double r = s->capr[l] / s->wsum[l];
    level = r > level ? r : level; /* levels only rise; rounding must not lower one */
    for (int j = 0; j < s->lcount[l]; j++) {
      size_t x = s->owner[s->lflow[l][j]];
      if (s->frozen[x]) continue;
      s->frozen[x] = 1;
      s->rate[x] = level;
      FOR_ROUTE(s, x, e) {
        int l2 = entry_link(s, e);
        s->capr[l2] -= entry_w(s, e) * level;
        s->wsum[l2] -= entry_w(s, e);
        if (s->capr[l2] < 0) s->capr[l2] = 0;
        s->lver[l2]++;
        if (l2 != l) lheap_push(s, l2);
      }
    }
    s->wsum[l] = 0;
  }
  for (size_t i = 0; i < nf; i++) {
    size_t x = s->fqueue[i];
    double left = s->rem[x] > 0 ? s->rem[x] : 0;
    s->ver[x]++;
    push(s, s->now + (s->rate[x] > 0 ? left / s->rate[x] : INFINITY), EV_BYTES, (int)x, s->ver[x]);
  }
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Takes one event at s->now. */
static void take(struct sim *s, struct event ev) {
  size_t x = (size_t)ev.node;
  switch (ev.kind) {
  case EV_BYTES:
    if (ev.ver == s->ver[x]) bytes_done(s, x);
    break;
  case EV_END: node_end(s, ev.node); break;
  case EV_READY: /* taken in node order once the moment's events are (near-ties alike) */
    if (held(s, ev.node, s->now)) push(s, s->delay_us, EV_READY, ev.node, 0);
    else s->readyq[s->nready++] = ev.node;
    break;
  case EV_START: start(s, x); break;
  }
}

/* Frees what sim_alloc allocated. */
static void sim_free(struct sim *s) {
  for (size_t l = 0; s->lflow && l < s->nls; l++)
    free(s->lflow[l]);
  void *all[] = {s->npl, s->stack, s->readyq, s->rem, s->rate, s->last, s->ver, s->pos, s->owner,
                 s->lflow, s->lcount, s->lcap, s->sender_free, s->sum_free, s->lmark,
                 s->fmark, s->dirty, s->lqueue, s->fqueue, s->capr, s->wsum, s->lver,
                 s->frozen, s->ev.e, s->lheap.e};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
    free(all[i]);
}

/* Allocates the state of one pricing; returns 0, or -1 on no memory. */
static int sim_alloc(struct sim *s) {
  const struct model_flow_graph *g = s->g;
  int sums = s->hw->sums_overlap && s->hw->gamma > 0; /* a summing link a rank, an entry a flow */
  size_t nn = g->nnodes, nx = g->nx, nl = g->nlinks + (sums ? g->n : 0);
  size_t ne = g->route_off[nx] + (sums ? nx : 0);
  s->nls = nl;
  s->npl = malloc(nn * sizeof(int) + 1);
  s->stack = malloc(nn * sizeof(int) + 1);
  s->readyq = malloc(nn * sizeof(int) + 1);
  s->rem = calloc(nx + 1, sizeof(double));
  s->rate = calloc(nx + 1, sizeof(double));
  s->last = calloc(nx + 1, sizeof(double));
  s->ver = calloc(nx + 1, sizeof(int));
  s->frozen = calloc(nx + 1, 1);
  s->fmark = calloc(nx + 1, sizeof(unsigned));
  s->fqueue = malloc((nx + 1) * sizeof(size_t));
  s->pos = malloc((ne + 1) * sizeof(int));
  s->owner = malloc((ne + 1) * sizeof(size_t));
  s->lflow = calloc(nl + 1, sizeof(int *));
  s->lcount = calloc(nl + 1, sizeof(int));
  s->lcap = calloc(nl + 1, sizeof(int));
  s->lmark = calloc(nl + 1, sizeof(unsigned));
  s->dirty = malloc((nl + 1) * sizeof(int));
  s->lqueue = malloc((nl + 1) * sizeof(int));
  s->capr = calloc(nl + 1, sizeof(double));
  s->wsum = calloc(nl + 1, sizeof(double));
  s->lver = calloc(nl + 1, sizeof(int));
  s->sender_free = calloc(g->nlinks + 1, sizeof(double)); /* by port: a rank or a link */
  s->sum_free = calloc(g->n, sizeof(double));
  if (!s->npl || !s->stack || !s->readyq || !s->rem || !s->rate || !s->last || !s->ver || !s->frozen ||
      !s->fmark || !s->fqueue || !s->pos || !s->owner || !s->lflow || !s->lcount || !s->lcap ||
      !s->lmark || !s->dirty || !s->lqueue || !s->capr || !s->wsum || !s->lver ||
      !s->sender_free || !s->sum_free)
    return -1;
  memcpy(s->npl, g->npred, nn * sizeof(int));
  for (size_t x = 0; x < nx; x++)
    for (size_t e = g->route_off[x]; e < g->route_off[x + 1]; e++)
      s->owner[e] = x;
  for (size_t x = 0; sums && x < nx; x++)
    s->owner[g->route_off[nx] + x] = x;
  return 0;
}

ar_status model_flow_times(const struct model_flow_graph *g, const struct model_hw *hw,
                           double msg_us, double bytes, int straggler, double delay_us,
                           struct model_times *out) {
  struct sim s = {.g = g, .hw = hw, .msg_us = msg_us, .bytes = bytes, .straggler = straggler, .epoch = 1,
                  .delay_us = straggler >= 0 && delay_us > 0 ? delay_us : 0};
  memset(out, 0, sizeof(*out));
  ar_status st = AR_OK;
  if (sim_alloc(&s)) {
    sim_free(&s);
    return AR_ERR_NOMEM;
  }
  for (size_t v = 0; v < g->nnodes; v++)
    if (!g->npred[v]) push(&s, 0, EV_READY, (int)v, 0);
  while (s.ev.n && !s.oom) {
    s.now = s.ev.e[0].t;
    /* every event of this moment (and those it makes at it), then the rates once */
    double until = s.now + slack(s.now);
    do {
      while (s.ev.n && s.ev.e[0].t <= until && !s.oom)
        take(&s, heap_pop(&s.ev));
      qsort(s.readyq, s.nready, sizeof(int), cmp_int);
      for (int i = 0; i < s.nready; i++)
        node_ready(&s, s.readyq[i]);
      s.nready = 0;
    } while (s.ev.n && s.ev.e[0].t <= until && !s.oom);
    if (s.ndirty) share(&s);
  }
  if (s.oom) st = AR_ERR_NOMEM;
  else if (s.ended != g->nnodes) st = AR_ERR_VERIFY; /* a node never ran: the graph is wrong */
  out->time_us = s.end_us > s.delay_us ? s.end_us : s.delay_us;
  out->pre_us = s.pre_us;
  out->after_arrival_us = out->time_us - s.delay_us;
  double from = s.pre_us > s.delay_us ? s.pre_us : s.delay_us;
  out->main_us = out->time_us - from;
  sim_free(&s);
  return st;
}
