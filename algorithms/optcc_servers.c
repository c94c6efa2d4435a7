/* optcc-servers: OPTCC on servers of g GPUs, one server degraded (optcc.txt App. E). The g GPUs
 * of a server act as one logical GPU: g copies of the one-GPU schedule (optcc-ring on the
 * q = p/g servers, the degraded server's GPUs at its slowdown l) run side by side, copy i on
 * the i-th of g equal parts of the vector among the servers' GPUs of local index i (each over
 * its own NIC: a rail). Before a leading GPU (server j, index i) first sends a chunk of its
 * part, the server's other g-1 GPUs reduce their copies of it onto the leader over NVLink
 * (App. E's collect, N1/N3), in the round before; after the leader's copy of the chunk is
 * final, the leader hands it to the other g-1 (distribute, N2/N4) in the round after. These
 * NVLink rounds are the NIC rounds of other chunks, so on the two-tier model (NVLink at (g-1)
 * x a NIC, --bw-local's default) they overlap the NIC work as E.4 argues: the time tends to
 * Table 3's l n/g (l >= 2; one-GPU OPTCC's own bubble filling below l = 2, Theorem 13's bound).
 * One round more at each end than optcc-ring on q ranks. Takes --gpus-per-node g (p = q g,
 * q >= 3; without it a GPU a server: optcc-ring's schedule) and one degraded server: --degrade
 * all g of its GPUs at one factor (PXN pools them); healthy, the last server at l = 1. */
#include <stdlib.h>
#include <string.h>

#include "ar.h"

/* A chunk of one leader and the inner round that orders its NVLink step. */
struct nv_step {
  int round, rank, chunk;
};

static int nv_cmp(const void *a, const void *b) {
  const struct nv_step *x = a, *y = b;
  if (x->round != y->round) return x->round < y->round ? -1 : 1;
  if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
  return x->chunk < y->chunk ? -1 : x->chunk > y->chunk;
}

/* Finds the one degraded server (every GPU of it, one factor); returns its index, or -1 with
 * the reason in s. */
static int degraded_server(const struct ar_params *p, int g, struct ar_schedule *s, double *l) {
  if (p->ndegraded < 1) { /* healthy: the last server at l = 1, as optcc takes its last GPU */
    *l = 1;
    return p->nranks / g - 1;
  }
  int srv = p->degraded[0] / g;
  *l = p->factor[0];
  int ok = p->ndegraded == g;
  for (int i = 0; i < p->ndegraded && ok; i++)
    ok = p->degraded[i] / g == srv && p->factor[i] == *l;
  if (!ok) {
    sched_fail(s, AR_ERR_UNSUPPORTED,
               "optcc-servers takes one degraded server: all %d GPUs of one server at one factor "
               "(PXN pools its NICs; optcc.txt App. E), %d GPUs given",
               g, p->ndegraded);
    return -1;
  }
  return srv;
}

/* Sorts steps[0..n) by (round, rank, chunk) and adds each run of consecutive chunks of one
 * leader as one transfer per sibling at outer round step.round + shift: collects (siblings
 * reduce onto the leader) or distributes (the leader copies to the siblings). */
static ar_status nv_emit(struct ar_schedule *s, struct nv_step *st, size_t n, size_t *at,
                         int round, int g, int C, int gather) {
  while (*at < n && st[*at].round == round) {
    size_t j = *at + 1;
    while (j < n && st[j].round == round && st[j].rank == st[*at].rank &&
           st[j].chunk == st[j - 1].chunk + 1)
      j++;
    int r = st[*at].rank, c = st[*at].chunk, cnt = (int)(j - *at);
    for (int i = 0; i < g; i++) /* r is server r's leader of each rail i: GPU r g + i */
      for (int u = 0; u < g; u++) {
        if (u == i) continue;
        int lead = r * g + i, sib = r * g + u, ch = i * C + c;
        AR_CHECK(sched_add(s, round, gather ? AR_COPY : AR_REDUCE, gather ? lead : sib,
                           gather ? sib : lead, ch, cnt));
      }
    *at = j;
  }
  return AR_OK;
}

static ar_status build_optcc_servers(const struct ar_params *p, struct ar_schedule *s) {
  int n = p->nranks, g = p->gpus_per_node > 0 ? p->gpus_per_node : 1; /* a GPU a server */
  if (n % g)
    return sched_fail(s, AR_ERR_UNSUPPORTED, "optcc-servers needs --gpus-per-node G dividing %d", n);
  int q = n / g;
  double l;
  int srv = degraded_server(p, g, s, &l);
  if (srv < 0) return AR_ERR_UNSUPPORTED;
  if (q < 3) return sched_fail(s, AR_ERR_UNSUPPORTED, "optcc-servers needs at least 3 servers (%d)", q);
  /* s first: building the one-GPU schedule (ar_build) ends this thread's stream, which s must
   * have taken by then; its chunk count is set once the inner one's is known */
  AR_CHECK(sched_init(s, "optcc-servers", n, 1));
  ar_status st;
  struct ar_params ip;
  struct ar_schedule in;
  if (g == 1) { /* a GPU a server: optcc-ring itself, streamed on to where s streams */
    ar_status (*sink)(void *, const struct ar_schedule *, const struct ar_xfer *) = s->sink;
    void *ctx = s->sink_ctx;
    ip = *p;
    ip.gpus_per_node = 0;
    const struct ar_algo *ring = ar_algo_find("optcc-ring");
    st = sink ? ar_build_stream(ring, &ip, s, sink, ctx) : ar_build(ring, &ip, s);
    snprintf(s->algo, sizeof(s->algo), "optcc-servers");
    return st;
  }
  ar_params_init(&ip, q);
  ip.ndegraded = 1;
  ip.degraded[0] = srv;
  ip.factor[0] = l;
  ip.segments = p->segments;
  st = ar_build(ar_algo_find("optcc-ring"), &ip, &in);
  if (st != AR_OK) return sched_fail(s, st, "optcc-servers on %d servers: %s", q, in.reason);
  int C = in.nchunks;
  /* per (leader, chunk): the inner round of its first send and of its last write */
  int *first = malloc(sizeof(int) * (size_t)q * C), *last = malloc(sizeof(int) * (size_t)q * C);
  struct nv_step *col = malloc(sizeof(*col) * (size_t)q * C), *dis = malloc(sizeof(*dis) * (size_t)q * C);
  if (!first || !last || !col || !dis) st = AR_ERR_NOMEM;
  for (size_t i = 0; st == AR_OK && i < (size_t)q * C; i++)
    first[i] = last[i] = -1;
  for (size_t t = 0; st == AR_OK && t < in.nxfers; t++) {
    const struct ar_xfer *x = &in.xfers[t];
    for (int c = x->chunk; c < x->chunk + x->count; c++) {
      int *f = &first[(size_t)x->src * C + c];
      if (*f < 0) *f = x->round;
      last[(size_t)x->dst * C + c] = x->round;
    }
  }
  /* each NVLink step goes where it fits: the NIC's busiest rank's load in every outer round
   * (chunks x slowdown), and each server's NVLink load there (a collect or a distribute of c
   * chunks costs c at (g-1) x a NIC's speed); a collect as late as it fits before its first
   * send, a distribute as early as it fits after its chunk is final, else the least loaded */
  int R = in.nrounds + 2;
  double *nic = calloc((size_t)R, sizeof(double)), *nv = calloc((size_t)R * q, sizeof(double));
  double *snd = calloc((size_t)R * q, sizeof(double)), *rcv = calloc((size_t)R * q, sizeof(double));
  if (!nic || !nv || !snd || !rcv) st = AR_ERR_NOMEM;
  for (size_t t = 0; st == AR_OK && t < in.nxfers; t++) {
    const struct ar_xfer *x = &in.xfers[t];
    snd[(size_t)(x->round + 1) * q + x->src] += x->count * (double)x->weight;
    rcv[(size_t)(x->round + 1) * q + x->dst] += x->count * (double)x->weight;
  }
  for (int r = 0; st == AR_OK && r < R; r++)
    for (int k = 0; k < q; k++) {
      double v = snd[(size_t)r * q + k] > rcv[(size_t)r * q + k] ? snd[(size_t)r * q + k] : rcv[(size_t)r * q + k];
      if (v > nic[r]) nic[r] = v;
    }
  size_t nc = 0;
  for (int r = 0; st == AR_OK && r < q; r++)
    for (int c = 0; c < C; c++) {
      int f = first[(size_t)r * C + c], w = last[(size_t)r * C + c];
      /* outer round t + 1 runs inner round t: collect by round f (before the first send),
       * distribute from max(f, w) + 2 (the copy final, the collect sent on) */
      int lo = 0, hi = f < 0 ? 0 : f, best = hi;
      for (int t = hi; t >= lo; t--) {
        if (nv[(size_t)t * q + r] + 1 <= nic[t]) { best = t; break; }
        if (nv[(size_t)t * q + r] < nv[(size_t)best * q + r]) best = t;
      }
      nv[(size_t)best * q + r] += 1;
      col[nc] = (struct nv_step){.round = best, .rank = r, .chunk = c};
      lo = (w > f ? w : f) + 2, hi = R - 1, best = lo;
      for (int t = lo; t <= hi; t++) {
        if (nv[(size_t)t * q + r] + 1 <= nic[t]) { best = t; break; }
        if (nv[(size_t)t * q + r] < nv[(size_t)best * q + r]) best = t;
      }
      nv[(size_t)best * q + r] += 1;
      dis[nc++] = (struct nv_step){.round = best, .rank = r, .chunk = c};
    }
  free(nic);
  free(nv);
  free(snd);
  free(rcv);
  if (st == AR_OK) {
    qsort(col, nc, sizeof(*col), nv_cmp);
    qsort(dis, nc, sizeof(*dis), nv_cmp);
    s->nchunks = g * C;
  }
  size_t ic = 0, id = 0, t = 0;
  for (int round = 0; st == AR_OK && round <= in.nrounds + 1; round++) { /* in round order */
    st = nv_emit(s, col, nc, &ic, round, g, C, 0);
    for (; st == AR_OK && t < in.nxfers && in.xfers[t].round == round - 1; t++) {
      const struct ar_xfer *x = &in.xfers[t];
      for (int i = 0; i < g && st == AR_OK; i++)
        st = sched_add_w(s, round, x->op, x->src * g + i, x->dst * g + i, i * C + x->chunk,
                         x->count, x->weight);
    }
    if (st == AR_OK) st = nv_emit(s, dis, nc, &id, round, g, C, 1);
  }
  if (st == AR_OK) s->segments = in.segments;
  s->ports = 2 * g - 1; /* its NIC, and NVLink to the other g-1 as a sibling and as a leader */
  free(first);
  free(last);
  free(col);
  free(dis);
  sched_free(&in);
  return st;
}

const struct ar_algo ar_algo_optcc_servers = {
    .name = "optcc-servers",
    .ranks = "3..~2048 servers of G GPUs (--gpus-per-node G, else 1), one degraded server",
    .desc = "OPTCC on G-GPU servers: G rails of one-GPU OPTCC, NVLink reduce/broadcast overlapped",
    .paper = "optcc.txt App. E (E.4, Table 3's l n/g, Theorem 13)",
    .family = "optcc",
    .build = build_optcc_servers,
    .segments = ar_optcc_segments,
    .flags = AR_ALGO_DEGRADE_AWARE,
};
