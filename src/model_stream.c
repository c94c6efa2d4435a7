/* Model mode: pricing a schedule while its generator builds it (streaming), so the papers'
 * scales need no stored transfers: each round's flows are routed once the next round starts,
 * or, when they repeat the last round's (ends and sizes, in order), take its link costs; a
 * generator that knows a round repeats the last one says so (sched_repeat_round) instead of
 * adding its flows. A generator that builds out of round order, or reads its transfers back,
 * is built again stored and priced by model_price_schedule. */
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "model_pricer.h"

/* Flows kept of a round to compare with the round before (16 bytes each): a direct AllReduce
 * at 4096 ranks has 1.7e7 a round; beyond this a round is routed as its flows come. */
#define STREAM_BUFFER (1 << 25)

struct stream {
  struct pricer pc;
  int ready;       /* pc set up (on the first transfer: nchunks is known then) */
  int round;       /* the round at hand, -1 before the first */
  int closed;      /* the round at hand was a repeat, priced already */
  int overflow;    /* the round outgrew the buffer: its flows are routed as they come */
  int match;       /* the round's flows so far are prev's first ncur (not copied to cur) */
  struct flow *cur, *prev;
  size_t ncur, nprev, cap_cur, cap_prev;
  int have_prev;   /* prev holds the last round's flows (it fitted the buffer) */
  struct round_cost prev_cost;
  struct round_cost *rounds; /* per round number; rounds never seen stay absent */
  unsigned char *seen;
  size_t cap_rounds;
  int nchunks;
  ar_status st;
};

/* Routes the buffered flows of the round (their reduces were counted as they came). */
static void stream_route_buffer(struct stream *sm) {
  for (size_t i = 0; i < sm->ncur; i++)
    round_flow(&sm->pc, sm->cur[i].src, sm->cur[i].dst, sm->cur[i].count, 0);
}

/* Makes room for one more flow in cur; returns 0, or -1 when the buffer is full. */
static int stream_room(struct stream *sm) {
  if (sm->ncur < sm->cap_cur) return 0;
  if (sm->cap_cur >= STREAM_BUFFER) return -1;
  size_t cap = sm->cap_cur ? 2 * sm->cap_cur : 4096;
  while (cap < sm->ncur + 1)
    cap *= 2;
  struct flow *c = realloc(sm->cur, cap * sizeof(*c));
  if (!c) return -1;
  sm->cur = c;
  sm->cap_cur = cap;
  return 0;
}

/* The round's flows so far matched the last round's: copies them into cur to go on from
 * there; returns 0, or -1 on no memory. */
static int stream_keep_prefix(struct stream *sm) {
  size_t k = sm->ncur;
  sm->match = 0;
  if (k > 0) {
    sm->ncur = k - 1;
    if (stream_room(sm)) return -1; /* room for k */
  }
  if (k) memcpy(sm->cur, sm->prev, k * sizeof(*sm->cur)); /* both may be NULL when empty */
  sm->ncur = k;
  return 0;
}

/* Records round r's cost; returns AR_ERR_NOMEM when the table cannot grow. */
static ar_status stream_record(struct stream *sm, int r, const struct round_cost *rc) {
  if ((size_t)r >= sm->cap_rounds) {
    size_t cap = sm->cap_rounds ? 2 * sm->cap_rounds : 1024;
    while (cap <= (size_t)r)
      cap *= 2;
    struct round_cost *t = realloc(sm->rounds, cap * sizeof(*t));
    unsigned char *sn = t ? realloc(sm->seen, cap) : NULL;
    if (t) sm->rounds = t;
    if (!t || !sn) return AR_ERR_NOMEM;
    memset(sn + sm->cap_rounds, 0, cap - sm->cap_rounds);
    sm->seen = sn;
    sm->cap_rounds = cap;
  }
  sm->rounds[r] = *rc;
  sm->seen[r] = 1;
  return AR_OK;
}

/* Closes the round at hand: its cost into sm->rounds. A round whose flows repeat the last
 * one's takes its link costs; its own reduces were counted as its flows came. */
static ar_status stream_close(struct stream *sm) {
  if (sm->round < 0 || sm->closed) return AR_OK;
  struct round_cost rc = {0};
  int again = !sm->overflow && sm->match && sm->ncur == sm->nprev;
  if (!again && !sm->overflow) {
    if (sm->match && stream_keep_prefix(sm)) return AR_ERR_NOMEM; /* a shorter repeat */
    double hops = 0;
    for (size_t i = 0; i < sm->ncur; i++)
      hops += flow_hops(&sm->pc, sm->cur[i].src, sm->cur[i].dst);
    sm->pc.dense = is_dense(&sm->pc, hops);
    stream_route_buffer(sm);
  }
  round_end(&sm->pc, &rc, again);
  if (again) {
    double red = rc.reduce;
    rc = sm->prev_cost;
    rc.reduce = red;
  }
  ar_status st = stream_record(sm, sm->round, &rc);
  sm->prev_cost = rc;
  if (!again) { /* this round becomes the one before */
    struct flow *t = sm->prev;
    size_t tc = sm->cap_prev;
    sm->prev = sm->cur;
    sm->cap_prev = sm->cap_cur;
    sm->cur = t;
    sm->cap_cur = tc;
    sm->nprev = sm->ncur;
    sm->have_prev = !sm->overflow;
  }
  sm->ncur = 0;
  return st;
}

/* The schedule's sink: prices each round once the next one starts. A transfer of an earlier
 * round means the generator does not build in round order: the stream gives up. */
static ar_status stream_sink(void *ctx, const struct ar_schedule *s, const struct ar_xfer *x) {
  struct stream *sm = ctx;
  if (!sm->ready) {
    if ((sm->st = pricer_init(&sm->pc, s->nranks, s->nchunks, sm->pc.net)) != AR_OK) return sm->st;
    sm->ready = 1;
    sm->nchunks = s->nchunks;
  }
  if (x->round < sm->round || s->nchunks != sm->nchunks) return sm->st = AR_ERR_UNSUPPORTED;
  if (x->round > sm->round) {
    if ((sm->st = stream_close(sm)) != AR_OK) return sm->st;
    sm->round = x->round;
    sm->closed = 0;
    sm->overflow = 0;
    sm->match = sm->have_prev;
    round_begin(&sm->pc, 0); /* sparse until the round's size says otherwise */
  }
  struct flow f = {x->src, x->dst, x->count, x->op == AR_REDUCE};
  if (f.reduce && f.src != f.dst) count_reduce(&sm->pc, f.dst, f.count * sm->pc.inv_chunks);
  if (sm->overflow) {
    round_flow(&sm->pc, f.src, f.dst, f.count, 0);
    return AR_OK;
  }
  if (sm->match) {
    const struct flow *p = &sm->prev[sm->ncur];
    if (sm->ncur < sm->nprev && p->src == f.src && p->dst == f.dst && p->count == f.count) {
      sm->ncur++; /* the same as the last round so far: nothing to keep */
      return AR_OK;
    }
    if (stream_keep_prefix(sm)) return sm->st = AR_ERR_NOMEM; /* it differs: keep going */
  }
  if (!stream_room(sm)) {
    sm->cur[sm->ncur++] = f;
    return AR_OK;
  }
  /* too many to keep: route what is held, then each as it comes */
  sm->pc.dense = 1;
  stream_route_buffer(sm);
  sm->overflow = 1;
  sm->ncur = 0;
  round_flow(&sm->pc, f.src, f.dst, f.count, 0);
  return AR_OK;
}

/* The schedule's repeat (sched_repeat_round): round r moves what the round at hand moved,
 * so it costs what that one cost, its reduces too (the same flows and ops, counted in the same
 * order: what stream_close finds for a repeat it is handed flow by flow). */
static ar_status stream_repeat(void *ctx, const struct ar_schedule *s, int r) {
  struct stream *sm = ctx;
  (void)s;
  if (!sm->ready || r != sm->round + 1) return sm->st = AR_ERR_UNSUPPORTED;
  if ((sm->st = stream_close(sm)) != AR_OK) return sm->st;
  sm->round = r;
  sm->closed = 1;
  return sm->st = stream_record(sm, r, &sm->prev_cost);
}

/* Prices s's rounds streamed into sm (nprecond known only now) into out. */
static void stream_collect(struct stream *sm, const struct ar_schedule *s, struct model_price *out) {
  memset(out, 0, sizeof(*out));
  out->nranks = s->nranks;
  out->pipelined = (ar_sched_traits(s) & AR_TRAIT_PIPELINED) != 0;
  for (size_t r = 0; r < sm->cap_rounds; r++)
    if (sm->seen[r])
      phase_add((int)r < s->nprecond ? &out->pre : &out->main, &sm->rounds[r], out->pipelined,
                sm->pc.net);
}

ar_status model_price_algo(const struct ar_algo *a, const struct ar_params *p,
                           const struct model_net *net, struct model_price *out, char *reason,
                           size_t rlen) {
  struct stream sm = {.round = -1};
  struct ar_schedule s;
  if (a->price && a->price(p, net, out)) { /* priced by its rounds, no transfers built */
    ar_log(AR_LOG_INFO, "model: %s at %d ranks priced by its generator", a->name, p->nranks);
    return AR_OK;
  }
  memset(&s, 0, sizeof(s));
  sm.pc.net = net;
  sched_stream_repeats(stream_repeat);
  ar_status st = ar_build_stream(a, p, &s, stream_sink, &sm);
  sched_stream_repeats(NULL);
  int streamed = sm.st == AR_OK && !s.stream_bad;
  if (streamed && st == AR_OK) {
    if ((st = stream_close(&sm)) == AR_OK) stream_collect(&sm, &s, out);
    if (!sm.ready) { /* no transfers at all: an empty price */
      memset(out, 0, sizeof(*out));
      out->nranks = p->nranks;
    }
  }
  if (sm.ready) pricer_free(&sm.pc);
  sched_free(&s);
  free(sm.cur);
  free(sm.prev);
  free(sm.rounds);
  free(sm.seen);
  if (streamed) {
    if (st != AR_OK) snprintf(reason, rlen, "%s", s.reason);
    return st;
  }
  /* the generator needs its transfers back, or builds out of round order: store them */
  ar_log(AR_LOG_INFO, "model: %s at %d ranks priced stored (%s)", a->name, p->nranks,
         sm.st != AR_OK ? "built out of round order" : "reads its transfers back");
  if ((st = ar_build(a, p, &s)) != AR_OK) {
    snprintf(reason, rlen, "%s", s.reason);
    return st;
  }
  st = model_price_schedule(&s, net, out);
  if (st != AR_OK) snprintf(reason, rlen, "pricing failed: %s", ar_status_str(st));
  sched_free(&s);
  return st;
}
