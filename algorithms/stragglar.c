/* stragglar: StragglAR, AllReduce with one persistent straggler (stragglar.txt s3, Algorithm 1,
 * App. B and C). The buffer is cut into n-1 chunks.
 * Precondition, rounds [0, n-2), run by the n-1 non-stragglers while the straggler is delayed:
 * a ring ReduceScatter after which non-straggler g holds chunk g summed over all
 * non-stragglers; each sends (n-2)/(n-1) of the buffer; the straggler takes no part.
 * After the straggler arrives: in round j < n-1 non-straggler j and the straggler exchange
 * chunk j (a reduce each way), so both hold it fully reduced; fully reduced chunks then spread
 * by copies. One port: per round a rank sends at most one chunk to one peer and receives at
 * most one from one peer, so R post-arrival rounds cost R/(n-1) buffers (Table 1's beta term).
 * The straggler sends n-1 chunks while it pairs, then helps spread the last ones.
 *  - n a power of 2: Algorithm 1, exactly n + log2 n - 2 rounds (Theorem 1).
 *  - other even n: like App. C, each round comes from a maximum-weight matching, here of
 *    senders to receivers (as many transfers as possible first, then weights favouring young
 *    chunks, receivers with nothing else to spread, and sparing ranks about to pair with the
 *    straggler). Every even n up to 1024 gets n + ceil(log2 n) - 2 rounds, the floor for this
 *    shape of schedule (each rank needs n-1 receives, and in the first rounds few ranks hold
 *    anything to send); the paper reports about n + 2 log2 n - 2. Powers of 2 are the same floor.
 * Limits: even n only (the paper has no schedule for odd n). Built for straggler n-1, then
 * relabelled so that any rank can be the straggler. Planning n = 1024 takes well under 1 s. */
#include <stdlib.h>
#include <string.h>

#include "ar.h"
#include "gen.h"

/* Post-arrival copies, 4 ints each: round, src, dst, chunk. */
struct sg_plan {
  int *x;
  size_t len, cap;
  int rounds; /* post-arrival rounds, the straggler's exchanges included */
};

/* Appends one copy; AR_ERR_NOMEM when the list cannot grow. */
static ar_status plan_add(struct sg_plan *pl, int round, int src, int dst, int chunk) {
  if (pl->len + 4 > pl->cap) {
    size_t cap = pl->cap ? 2 * pl->cap : 1024;
    int *x = realloc(pl->x, cap * sizeof(*x));
    if (!x) return AR_ERR_NOMEM;
    pl->x = x;
    pl->cap = cap;
  }
  pl->x[pl->len++] = round;
  pl->x[pl->len++] = src;
  pl->x[pl->len++] = dst;
  pl->x[pl->len++] = chunk;
  return AR_OK;
}

/* ---- n = 2^k: Algorithm 1 ----------------------------------------------------------------- */

/* Fills pl with Algorithm 1's copies for straggler n-1; AR_ERR_VERIFY if an invariant of
 * App. B fails (it cannot for a power of 2; the check guards the code). token[g] is the one
 * active chunk non-straggler g holds, -1 for none. */
static ar_status plan_pow2(int n, struct sg_plan *pl) {
  int m = n - 1, k = ar_log2(n), sg = n - 1, nr = n + k - 2;
  int *token = malloc(sizeof(int) * m), *next = malloc(sizeof(int) * m);
  int *pset = malloc(sizeof(int) * n), *qset = malloc(sizeof(int) * n);
  int *mate = malloc(sizeof(int) * n), *used = malloc(sizeof(int) * n);
  ar_status st = AR_OK;
  if (!token || !next || !pset || !qset || !mate || !used) {
    st = AR_ERR_NOMEM;
    goto out;
  }
  for (int g = 0; g < m; g++)
    token[g] = -1;
  for (int r = 0; r < nr && st == AR_OK; r++) {
    memcpy(next, token, sizeof(int) * m);
    if (r >= 1 && r < k) {
      /* Phase 1: rank r-1 hands its fresh chunk to rank r-1+k; every other holder seeds a rank
       * above 2(k-1) that holds nothing (ranks below stay free for their straggler round) */
      if ((st = plan_add(pl, r, r - 1, r - 1 + k, r - 1)) != AR_OK) break;
      next[r - 1 + k] = r - 1;
      int g = 2 * (k - 1) + 1;
      for (int u = 0; u < m && st == AR_OK; u++) {
        if (token[u] < 0 || u == r - 1) continue;
        while (g < m && token[g] >= 0)
          g++;
        if (g >= m) {
          st = AR_ERR_VERIFY;
          break;
        }
        st = plan_add(pl, r, u, g, token[u]);
        next[g++] = token[u];
      }
    } else if (r >= k) {
      /* Phase 2: P holds the chunk due now, Q the younger ones (and, once it has everything,
       * the straggler, which only sends the last chunk); P\{r} and Q swap their chunks */
      int old = r - k, np = 0, nq = 0;
      if (r <= n - 2 && token[r] != old) {
        st = AR_ERR_VERIFY;
        break;
      }
      for (int g = 0; g < m; g++) {
        if (g == r || token[g] < 0) continue;
        if (token[g] == old)
          pset[np++] = g;
        else
          qset[nq++] = g;
      }
      if (r >= n - 1) qset[nq++] = sg;
      if (np != nq) {
        st = AR_ERR_VERIFY;
        break;
      }
      for (int i = 0; i < np; i++)
        mate[i] = -1, used[i] = 0;
      /* the critical window: rank l pairs with the straggler within k-1 rounds, so it may only
       * take chunk l-k, which is due exactly in its own round */
      for (int i = 0; i < np; i++) {
        int l = pset[i];
        if (l <= r || l >= r + k || l > n - 2) continue;
        for (int j = 0; j < nq && mate[i] < 0; j++)
          if (!used[j] && qset[j] != sg && token[qset[j]] == l - k) mate[i] = j, used[j] = 1;
        if (mate[i] < 0) st = AR_ERR_VERIFY;
      }
      for (int i = 0, j = 0; i < np && st == AR_OK; i++) {
        if (mate[i] >= 0) continue;
        while (used[j])
          j++;
        mate[i] = j;
        used[j] = 1;
      }
      for (int i = 0; i < np && st == AR_OK; i++) {
        int p = pset[i], q = qset[mate[i]], qc = q == sg ? n - 2 : token[q];
        if (q != sg) st = plan_add(pl, r, p, q, old);
        if (st == AR_OK) st = plan_add(pl, r, q, p, qc);
        next[p] = qc;
      }
    }
    if (r <= n - 2) next[r] = r;
    int *t = token;
    token = next;
    next = t;
  }
  pl->rounds = nr;
out:
  free(token);
  free(next);
  free(pset);
  free(qset);
  free(mate);
  free(used);
  return st;
}

/* ---- other even n: one weighted matching per round --------------------------------------- */

/* Weights of one matching run (App. C weighs edges 2/1; these are finer). */
struct sg_weights {
  int youth;   /* per chunk index: prefer sending the youngest chunk */
  int load;    /* per still-spreading chunk a receiver holds: it has something else to send */
  int window;  /* ranks pairing with the straggler within this many rounds are guarded */
  int guard;   /* penalty for giving such a rank a chunk it would still have to spread then */
  int frac100; /* "still has to spread": holders, doubled until then, below frac100% of n/2 */
};

/* Min-cost max-flow on the small graph of sender classes -> receiver classes. */
struct sg_flow {
  int nv, ne, cap_e;
  int *head, *nxt, *to, *cap;
  long long *cost;
  long long *dist;
  int *pe, *inq, *queue;
};

/* Resets the graph to nv vertices with room for ne_max edges; AR_ERR_NOMEM on failure. */
static ar_status flow_reset(struct sg_flow *f, int nv, int ne_max) {
  if (ne_max > f->cap_e) {
    free(f->nxt);
    free(f->to);
    free(f->cap);
    free(f->cost);
    f->nxt = malloc(sizeof(int) * ne_max);
    f->to = malloc(sizeof(int) * ne_max);
    f->cap = malloc(sizeof(int) * ne_max);
    f->cost = malloc(sizeof(long long) * ne_max);
    f->cap_e = f->nxt && f->to && f->cap && f->cost ? ne_max : 0;
    if (!f->cap_e) return AR_ERR_NOMEM;
  }
  f->nv = nv;
  f->ne = 0;
  for (int v = 0; v < nv; v++)
    f->head[v] = -1;
  return AR_OK;
}

/* Adds edge a->b and its residual; returns the edge's index. */
static int flow_edge(struct sg_flow *f, int a, int b, int cap, long long cost) {
  int e = f->ne;
  f->to[e] = b, f->cap[e] = cap, f->cost[e] = cost, f->nxt[e] = f->head[a], f->head[a] = e;
  f->to[e + 1] = a, f->cap[e + 1] = 0, f->cost[e + 1] = -cost, f->nxt[e + 1] = f->head[b];
  f->head[b] = e + 1;
  f->ne += 2;
  return e;
}

/* Pushes the most flow from s to t at the least cost (successive shortest paths, Bellman-Ford
 * with a queue since costs are negative). Returns nothing: flows are left in the residuals. */
static void flow_run(struct sg_flow *f, int s, int t) {
  for (;;) {
    for (int v = 0; v < f->nv; v++)
      f->dist[v] = (long long)1 << 62, f->pe[v] = -1, f->inq[v] = 0;
    int qh = 0, qn = 0, qsize = f->nv + 1;
    f->dist[s] = 0;
    f->queue[qn++] = s;
    f->inq[s] = 1;
    while (qn > 0) {
      int a = f->queue[qh];
      qh = (qh + 1) % qsize, qn--, f->inq[a] = 0;
      for (int e = f->head[a]; e >= 0; e = f->nxt[e]) {
        int b = f->to[e];
        if (f->cap[e] <= 0 || f->dist[a] + f->cost[e] >= f->dist[b]) continue;
        f->dist[b] = f->dist[a] + f->cost[e];
        f->pe[b] = e;
        if (!f->inq[b]) f->inq[b] = 1, f->queue[(qh + qn++) % qsize] = b;
      }
    }
    if (f->pe[t] < 0) return;
    int push = 1 << 30;
    for (int v = t; v != s; v = f->to[f->pe[v] ^ 1])
      if (f->cap[f->pe[v]] < push) push = f->cap[f->pe[v]];
    for (int v = t; v != s; v = f->to[f->pe[v] ^ 1]) {
      f->cap[f->pe[v]] -= push;
      f->cap[f->pe[v] ^ 1] += push;
    }
  }
}

/* State of the matching generator: who holds which fully reduced chunk, and round scratch. */
struct sg_state {
  int n, m, words, aw, nact;
  uint64_t *have;   /* [rank][words]: fully reduced chunks a non-straggler holds */
  int *hold, *lack; /* per chunk: non-stragglers holding / lacking it fully reduced */
  int *act;         /* this round's active chunks: reduced, not yet everywhere */
  uint64_t *amask;  /* [rank][aw]: which active chunks a rank holds */
  int cs, cr;       /* sender and receiver classes this round */
  int *scls, *rcls, *srep, *rrep, *rwin, *scnt, *rcnt, *sfirst, *rfirst, *scur;
  int *smember, *rmember, *fi, *fl;
  int *best, *eidx; /* [sender class * cr + receiver class]: chunk sent, flow edge */
  size_t pair_cap;
  struct sg_flow flow;
};

/* Whether non-straggler v holds chunk c fully reduced. */
static int has_chunk(const struct sg_state *g, int v, int c) {
  return (int)(g->have[(size_t)v * g->words + c / 64] >> (c % 64) & 1);
}

/* Records that non-straggler v now holds chunk c fully reduced. */
static void give_chunk(struct sg_state *g, int v, int c) {
  g->have[(size_t)v * g->words + c / 64] |= 1ull << (c % 64);
  g->hold[c]++;
  g->lack[c]--;
}

/* Whether rank v holds the a-th active chunk. */
static int holds_active(const struct sg_state *g, int v, int a) {
  return (int)(g->amask[(size_t)v * g->aw + a / 64] >> (a % 64) & 1);
}

/* Frees everything the state owns. */
static void state_free(struct sg_state *g) {
  int **ints[] = {&g->scls,   &g->rcls,   &g->srep, &g->rrep,    &g->rwin,    &g->scnt, &g->rcnt,
                  &g->sfirst, &g->rfirst, &g->scur, &g->smember, &g->rmember, &g->fi,   &g->fl,
                  &g->best,   &g->eidx,   &g->hold, &g->lack,    &g->act};
  for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
    free(*ints[i]);
  free(g->have);
  free(g->amask);
  struct sg_flow *f = &g->flow;
  int *fints[] = {f->head, f->nxt, f->to, f->cap, f->pe, f->inq, f->queue};
  for (size_t i = 0; i < sizeof(fints) / sizeof(fints[0]); i++)
    free(fints[i]);
  free(f->cost);
  free(f->dist);
  memset(g, 0, sizeof(*g));
}

/* Allocates the state for n ranks, nobody holding anything; AR_ERR_NOMEM on failure. */
static ar_status state_init(struct sg_state *g, int n) {
  memset(g, 0, sizeof(*g));
  int m = n - 1, nv = 2 * n + 2;
  g->n = n, g->m = m, g->words = (m + 63) / 64;
  g->have = calloc((size_t)n * g->words, sizeof(uint64_t));
  g->amask = malloc((size_t)n * g->words * sizeof(uint64_t));
  int ok = g->have && g->amask;
  int **ints[] = {&g->scls, &g->rcls,   &g->srep,   &g->rrep, &g->rwin,    &g->scnt,
                  &g->rcnt, &g->sfirst, &g->rfirst, &g->scur, &g->smember, &g->rmember,
                  &g->fi,   &g->fl,     &g->hold,   &g->lack, &g->act};
  for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
    ok &= (*ints[i] = calloc((size_t)n + 1, sizeof(int))) != NULL;
  struct sg_flow *f = &g->flow;
  f->head = malloc(sizeof(int) * nv), f->dist = malloc(sizeof(long long) * nv);
  f->pe = malloc(sizeof(int) * nv), f->inq = malloc(sizeof(int) * nv);
  f->queue = malloc(sizeof(int) * (nv + 1));
  ok &= f->head && f->dist && f->pe && f->inq && f->queue;
  if (!ok) {
    state_free(g);
    return AR_ERR_NOMEM;
  }
  for (int c = 0; c < m; c++)
    g->lack[c] = m;
  return AR_OK;
}

/* Groups round r's free ranks into sender classes (same active chunks held) and receiver
 * classes (same active chunks, and inside the guarded window the same distance to their own
 * straggler round), with member lists. Receivers are listed in the order they should get
 * young chunks: ranks past their straggler round first (they never pause again), then the
 * ones that pair last. */
static void round_classes(struct sg_state *g, const struct sg_weights *w, int r) {
  int n = g->n, m = g->m, sg = n - 1, aw = g->aw, busy = r <= n - 2 ? r : -1;
  size_t bytes = sizeof(uint64_t) * aw;
  int cs = 0, cr = 0;
  for (int u = 0; u < n; u++) {
    g->scls[u] = -1;
    if (u == busy || (u == sg && r <= n - 2)) continue;
    int c = 0;
    while (c < cs && memcmp(g->amask + (size_t)u * aw, g->amask + (size_t)g->srep[c] * aw, bytes))
      c++;
    if (c == cs) g->srep[cs] = u, g->scnt[cs++] = 0;
    g->scls[u] = c, g->scnt[c]++;
  }
  for (int x = 0; x < m; x++) {
    int v = x < r ? x : m - 1 - (x - r); /* the preference order */
    g->rcls[v] = -1;
    if (v == busy) continue;
    int lacks = 0;
    for (int a = 0; a < g->nact && !lacks; a++)
      lacks = !holds_active(g, v, a);
    if (!lacks) continue; /* nothing this round could bring it */
    int win = v > r && v <= n - 2 && v - r <= w->window ? v - r : 0, c = 0;
    while (c < cr && (g->rwin[c] != win ||
                      memcmp(g->amask + (size_t)v * aw, g->amask + (size_t)g->rrep[c] * aw, bytes)))
      c++;
    if (c == cr) g->rrep[cr] = v, g->rwin[cr] = win, g->rcnt[cr++] = 0;
    g->rcls[v] = c, g->rcnt[c]++;
  }
  for (int c = 0, pos = 0; c < cs; c++)
    g->sfirst[c] = g->scur[c] = pos, pos += g->scnt[c];
  for (int c = 0, pos = 0; c < cr; c++)
    g->rfirst[c] = g->fi[c] = pos, pos += g->rcnt[c];
  for (int u = 0; u < n; u++)
    if (g->scls[u] >= 0) g->smember[g->scur[g->scls[u]]++] = u;
  for (int x = 0; x < m; x++) {
    int v = x < r ? x : m - 1 - (x - r);
    if (g->rcls[v] >= 0) g->rmember[g->fi[g->rcls[v]]++] = v;
  }
  for (int c = 0; c < cs; c++)
    g->scur[c] = g->sfirst[c];
  g->cs = cs, g->cr = cr;
}

/* The chunk sender class i should send receiver class j (the youngest it has and they lack,
 * unless that would load a guarded rank), with its score in *score; -1 when there is none. */
static int pair_chunk(const struct sg_state *g, const struct sg_weights *w, int i, int j,
                      long long *score) {
  int u = g->srep[i], v = g->rrep[j], chunk = -1;
  for (int a = 0; a < g->nact; a++) {
    if (!holds_active(g, u, a) || holds_active(g, v, a)) continue;
    int c = g->act[a];
    long long sc = (long long)w->youth * c;
    /* a guarded rank pauses in rwin rounds: if c's holders, doubling until then, are still
     * few (under frac100% of n/2), c would need its send exactly when it cannot send */
    if (g->rwin[j] && 200LL * ((long long)g->hold[c] << g->rwin[j]) < (long long)w->frac100 * g->n)
      sc -= w->guard;
    if (chunk < 0 || sc >= *score) chunk = c, *score = sc;
  }
  return chunk;
}

/* Plans round r's copies (everything but the straggler's exchange) into pl and applies them
 * to the state: a min-cost maximum flow from sender classes to receiver classes. */
static ar_status round_match(struct sg_state *g, const struct sg_weights *w, int r,
                             struct sg_plan *pl) {
  int n = g->n, m = g->m, sg = n - 1, born = r < m ? r : m;
  g->nact = 0;
  for (int c = 0; c < born; c++)
    if (g->lack[c] > 0) g->act[g->nact++] = c;
  if (g->nact == 0) return AR_OK;
  g->aw = (g->nact + 63) / 64;
  memset(g->amask, 0, (size_t)n * g->aw * sizeof(uint64_t));
  for (int v = 0; v < n; v++)
    for (int a = 0; a < g->nact; a++)
      if (v == sg || has_chunk(g, v, g->act[a]))
        g->amask[(size_t)v * g->aw + a / 64] |= 1ull << (a % 64);
  round_classes(g, w, r);
  int cs = g->cs, cr = g->cr;
  if (cs == 0 || cr == 0) return AR_OK;
  size_t pairs = (size_t)cs * cr;
  if (pairs > g->pair_cap) {
    free(g->best);
    free(g->eidx);
    g->best = malloc(sizeof(int) * pairs);
    g->eidx = malloc(sizeof(int) * pairs);
    g->pair_cap = g->best && g->eidx ? pairs : 0;
    if (!g->pair_cap) return AR_ERR_NOMEM;
  }
  struct sg_flow *f = &g->flow;
  int src = cs + cr, snk = src + 1;
  AR_CHECK(flow_reset(f, cs + cr + 2, (int)(2 * (pairs + cs + cr))));
  for (int i = 0; i < cs; i++)
    flow_edge(f, src, i, g->scnt[i], 0);
  for (int j = 0; j < cr; j++) {
    long long load = 0; /* still-spreading chunks the receiver holds: it has its own to send */
    for (int a = 0; a < g->nact; a++)
      if (holds_active(g, g->rrep[j], a) && g->hold[g->act[a]] < g->lack[g->act[a]]) load++;
    for (int i = 0; i < cs; i++) {
      long long score = 0;
      int c = pair_chunk(g, w, i, j, &score);
      g->best[(size_t)i * cr + j] = c;
      g->eidx[(size_t)i * cr + j] =
          c < 0 ? -1 : flow_edge(f, i, cs + j, g->scnt[i], load * w->load - score);
    }
    flow_edge(f, cs + j, snk, g->rcnt[j], 0);
  }
  flow_run(f, src, snk);
  /* per receiver class, the youngest chunks go to the first-listed receivers */
  for (int j = 0; j < cr; j++) {
    int nf = 0, pos = g->rfirst[j];
    for (int i = 0; i < cs; i++) {
      int e = g->eidx[(size_t)i * cr + j];
      if (e < 0 || f->cap[e ^ 1] <= 0) continue;
      int x = nf++;
      while (x > 0 && g->best[(size_t)g->fi[x - 1] * cr + j] < g->best[(size_t)i * cr + j])
        g->fi[x] = g->fi[x - 1], g->fl[x] = g->fl[x - 1], x--;
      g->fi[x] = i, g->fl[x] = f->cap[e ^ 1];
    }
    for (int x = 0; x < nf; x++)
      for (int t = 0; t < g->fl[x]; t++) {
        int i = g->fi[x], u = g->smember[g->scur[i]++], v = g->rmember[pos++];
        int c = g->best[(size_t)i * cr + j];
        AR_CHECK(plan_add(pl, r, u, v, c));
        give_chunk(g, v, c); /* safe now: the round's choices are all made from amask */
      }
  }
  return AR_OK;
}

/* Plans the post-arrival copies for straggler n-1 with weights w; gives up (pl->rounds = -1)
 * once it reaches `limit` rounds unfinished. AR_ERR_NOMEM on failure. */
static ar_status plan_matching(int n, const struct sg_weights *w, int limit, struct sg_plan *pl) {
  struct sg_state g;
  AR_CHECK(state_init(&g, n));
  ar_status st = AR_OK;
  int r = 0, done = 0;
  for (;; r++) {
    while (done < g.m && g.lack[done] == 0)
      done++;
    if (done == g.m) break;
    if (r >= limit) {
      r = -1;
      break;
    }
    if ((st = round_match(&g, w, r, pl)) != AR_OK) break;
    if (r <= n - 2) give_chunk(&g, r, r); /* the exchange with the straggler */
  }
  pl->rounds = r;
  state_free(&g);
  return st;
}

/* Weight sets tried in turn for n not a power of 2, until one reaches the floor (found by
 * sweeping: the first reaches it for every even n up to 1024 but 500, 984 and 1012, the second
 * for all of those three). */
static const struct sg_weights sg_portfolio[] = {
    {.youth = 1, .load = 3, .window = 2, .guard = 10, .frac100 = 50},
    {.youth = 1, .load = 1, .window = 3, .guard = 10, .frac100 = 50},
};

/* Plans the post-arrival copies for straggler n-1 into pl; AR_ERR_VERIFY if no plan came out
 * (an internal error), AR_ERR_NOMEM. */
static ar_status plan_post_arrival(int n, struct sg_plan *pl) {
  *pl = (struct sg_plan){0};
  if (ar_is_pow2(n)) return plan_pow2(n, pl);
  int k = ar_log2(n - 1) + 1, floor_rounds = n + k - 2; /* k = ceil(log2 n) for even n */
  struct sg_plan best = {.rounds = -1}, cur;
  ar_status st = AR_OK;
  for (size_t i = 0; i < sizeof(sg_portfolio) / sizeof(sg_portfolio[0]); i++) {
    memset(&cur, 0, sizeof(cur));
    st = plan_matching(n, &sg_portfolio[i], best.rounds > 0 ? best.rounds : 4 * n + 64, &cur);
    if (st == AR_OK && cur.rounds > 0 && (best.rounds < 0 || cur.rounds < best.rounds)) {
      struct sg_plan t = best;
      best = cur, cur = t;
    }
    free(cur.x);
    if (st != AR_OK || best.rounds == floor_rounds) break;
  }
  if (st == AR_OK && best.rounds < 0) st = AR_ERR_VERIFY;
  *pl = best; /* the caller frees pl->x, also on failure */
  return st;
}

/* Builds the schedule (precondition, exchanges, copies) and moves the straggler to
 * p->straggler; AR_ERR_UNSUPPORTED for odd n. */
static ar_status build_stragglar(const struct ar_params *p, struct ar_schedule *s) {
  int n = p->nranks, m = n - 1, sg = n - 1, pre = n - 2;
  AR_CHECK(sched_init(s, "stragglar", n, m > 0 ? m : 1));
  AR_CHECK(gen_quadratic(s, "stragglar", n, (double)m * (m - 1) + (double)n * n));
  if (n % 2) return sched_fail(s, AR_ERR_UNSUPPORTED, "stragglar needs an even number of GPUs");
  /* precondition: ring ReduceScatter over ranks 0..m-1, rank i ends owning chunk i */
  for (int t = 0; t < m - 1; t++)
    for (int i = 0; i < m; i++)
      AR_CHECK(sched_add(s, t, AR_REDUCE, i, (i + 1) % m, ((i - t - 1) % m + m) % m, 1));
  s->nprecond = pre;
  s->straggler = sg;
  struct sg_plan pl = {0};
  ar_status st = plan_post_arrival(n, &pl);
  if (st != AR_OK) {
    free(pl.x);
    if (st == AR_ERR_VERIFY) return sched_fail(s, st, "stragglar: internal error planning n=%d", n);
    return st;
  }
  /* round by round (each round's exchange, then its copies: the order sched_finish gives),
   * so the model can price the rounds as they come */
  size_t i = 0;
  for (int j = 0; st == AR_OK && (j < m || i + 3 < pl.len); j++) {
    if (j < m) st = sched_add(s, pre + j, AR_REDUCE, j, sg, j, 1);
    if (j < m && st == AR_OK) st = sched_add(s, pre + j, AR_REDUCE, sg, j, j, 1);
    for (; i + 3 < pl.len && pl.x[i] <= j && st == AR_OK; i += 4)
      st = sched_add(s, pre + pl.x[i], AR_COPY, pl.x[i + 1], pl.x[i + 2], pl.x[i + 3], 1);
  }
  free(pl.x);
  AR_CHECK(st);
  if (p->straggler >= 0 && p->straggler != sg) { /* swap the straggler into place */
    int *perm = malloc(sizeof(int) * n);
    if (!perm) return AR_ERR_NOMEM;
    for (int r = 0; r < n; r++)
      perm[r] = r;
    perm[sg] = p->straggler;
    perm[p->straggler] = sg;
    sched_relabel(s, perm);
    free(perm);
  }
  return AR_OK;
}

const struct ar_algo ar_algo_stragglar = {
    .name = "stragglar",
    .ranks = "even n, 2..4096 (n^2 transfers)",
    .desc = "StragglAR: ReduceScatter during the delay, then n+log2 n-2 rounds",
    .paper = "stragglar.txt s3, App. B, C",
    .family = "straggler-aware",
    .build = build_stragglar,
    .flags = AR_ALGO_STRAGGLER_AWARE,
    .traits = AR_TRAIT_SUM_FORWARD,
};
