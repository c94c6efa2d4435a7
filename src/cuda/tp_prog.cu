/* Compiles a schedule into per-rank programs for the ce and sm transports (see tp_prog.h for
 * the protocol). Host code only: tests/gpu/tp_check.c simulates the result on the CPU. */
#include <stdlib.h>
#include <string.h>

#include "tp_prog.h"

/* automatic pipelining: a mini-batch costs a flag write (a few us of copy-engine bubble) and
 * the last one's sum is not overlapped, so aim at about 8 MiB each, at most 8 */
#define TP_AUTO_BATCH (8u << 20)
#define TP_AUTO_MAX 8

size_t tp_auto_batch_bytes = TP_AUTO_BATCH; /* C linkage from tp_prog.h */

/* the dataflow ring (emit_ce_ring) has no round boundaries to drain; what a mini-batch costs
 * is its copy's start and flag ops. Measured (docs/performance.md, v2): on 4 x H200 one copy
 * stream with 256 MiB batches was the best of {1, 2} x {64, 128, 256} MiB at 8 GiB (34.40 ms;
 * 2 streams with 64 MiB: 36.61) and within 2% of the best at 1 GiB. So about 256 MiB each,
 * at least 4 per transfer (1 GiB on 4 GPUs: 4 of 64 MiB; 8 GiB: 8), at most 64, one stream */
#define TP_RING_BATCH (256u << 20)
#define TP_RING_MIN 4
#define TP_RING_MAX 64
#define TP_RING_STREAMS 1 /* copy streams per rank (batches alternate when more) */

size_t tp_ring_batch_bytes = TP_RING_BATCH;
int tp_ring_streams = TP_RING_STREAMS;

/* the dataflow direct program (emit_ce_direct): its reduce-scatter copies wait for nothing, so
 * two batches already hide every sum but the last under copies; more only add copy starts */
#define TP_DIRECT_BATCH (1u << 30)
#define TP_DIRECT_MIN 2
#define TP_DIRECT_MAX 16
/* ... and its sums, hidden under copies, use few blocks: with the default 4 per SM the copy
 * engines' streams lost time beside them (1 GiB median 4409 us; 33 blocks 4234, 66 4295, 132
 * 4321: runs/reference/h200x4-knobs) */
#define TP_DIRECT_SUM_BLOCKS 32

size_t tp_direct_batch_bytes = TP_DIRECT_BATCH;
int tp_ce_program = 0;

/* One destination range of a rank in a round: the chunks with the same sources and op. */
struct seg {
  size_t b, e; /* elements */
  int op;      /* AR_COPY / AR_REDUCE */
  int nsrc, src[AR_MAX_GPUS];
  int hazard;              /* we also send these chunks this round (snapshot at stake) */
  int nb;                  /* mini-batches (ce) */
  size_t scr[AR_MAX_GPUS]; /* ce: scratch byte offset per source; sm: scr[0] for a hazard */
};

/* ce: one copy of a round from one source to one receiver (kept in the receiver's record). */
struct item {
  int seg, batch;
  size_t b, e;
  int to_scratch;
  size_t soff;
  int signal; /* pull: write DONE(count) to the source after this copy; push: DATA(count) to
               * the receiver */
  int event;  /* pull: event recorded after it (main waits for it), -1 none */
  int pevent; /* push: event the sender records after it (its own hazard writes wait), -1 */
};

/* A rank's view of one round. */
struct rr {
  int nseg;
  struct seg *segs;
  int nsrc, srcs[AR_MAX_GPUS]; /* sources with something to read, in rank order */
  int nitem[AR_MAX_GPUS];      /* ce: items per source index */
  struct item *items[AR_MAX_GPUS];
  int nreader, readers[AR_MAX_GPUS]; /* who reads us this round */
  size_t scratch;                    /* bytes of scratch this round */
};

struct build {
  const struct ar_schedule *s;
  const struct tp_degrade *dg; /* NULL: no emulation */
  int n, nr, mode, esize, pipeline;
  size_t nelem;
  struct rr *rr; /* [rank * nr + round] */
  struct tp_prog *p;
  /* the dataflow ring (emit_ce_ring) */
  int succ[AR_MAX_GPUS], pred[AR_MAX_GPUS]; /* fixed peers of every round */
  int nb, ns;                               /* mini-batches per transfer, copy streams */
  size_t slot_bytes;                        /* one scratch slot (round parity, batch) */
  size_t own_b[AR_MAX_GPUS], own_e[AR_MAX_GPUS]; /* the direct program: ranges each rank owns */
  char *reason;
  size_t reason_len;
};

/* Returns the rank-round record. */
static struct rr *rr_at(struct build *bd, int r, int k) {
  return &bd->rr[(size_t)r * bd->nr + k];
}

/* Returns the index of src in rr's sources, or -1. */
static int src_index(const struct rr *x, int src) {
  for (int i = 0; i < x->nsrc; i++)
    if (x->srcs[i] == src) return i;
  return -1;
}

/* Returns AR_ERR_UNSUPPORTED with the reason filled in. */
static ar_status fail(struct build *bd, const char *msg, int k, int r, int c) {
  snprintf(bd->reason, bd->reason_len, "round %d, rank %d, chunk %d: %s", k, r, c, msg);
  return AR_ERR_UNSUPPORTED;
}

/* Appends an op to rank r's program; returns AR_OK or AR_ERR_NOMEM. */
static ar_status emit(struct tp_prog *p, int r, const struct tp_op *op) {
  struct tp_rank_prog *rp = &p->rank[r];
  if (rp->nops == rp->cap) {
    size_t cap = rp->cap ? 2 * rp->cap : 64;
    struct tp_op *o = (struct tp_op *)realloc(rp->ops, cap * sizeof(*o));
    if (!o) return AR_ERR_NOMEM;
    rp->ops = o;
    rp->cap = cap;
  }
  rp->ops[rp->nops++] = *op;
  if (op->stream + 1 > rp->nstreams) rp->nstreams = op->stream + 1;
  if ((op->kind == TP_OP_RECORD || op->kind == TP_OP_WAIT_EVENT) && op->event + 1 > rp->nevents)
    rp->nevents = op->event + 1;
  for (int i = 0; i < 2; i++)
    if ((op->kind == TP_OP_STAMP || op->kind == TP_OP_PACE) && op->tslot[i] + 1 > rp->nstamps)
      rp->nstamps = op->tslot[i] + 1;
  if ((op->kind == TP_OP_PACE || op->kind == TP_OP_RESERVE) && op->tout + 1 > rp->nstamps)
    rp->nstamps = op->tout + 1;
  if (op->kind == TP_OP_RESERVE) p->reserves = 1;
  return AR_OK;
}

/* Appends an op to rank r's program (for tp_flow.cu). */
extern "C" ar_status tp_prog_emit(struct tp_prog *p, int r, const struct tp_op *op) {
  return emit(p, r, op);
}

/* Returns a zeroed op of the given kind on a stream. */
static struct tp_op op_new(int kind, int stream, int round) {
  struct tp_op o;
  memset(&o, 0, sizeof(o));
  o.kind = kind;
  o.stream = stream;
  o.round = round;
  o.event = -1;
  o.tslot[0] = o.tslot[1] = -1;
  o.tout = -1;
  return o;
}

extern "C" struct tp_op tp_op_new(int kind, int stream, int round) {
  return op_new(kind, stream, round);
}

/* Returns a buffer reference. */
static struct tp_ref ref(int buf, int rank, size_t off) {
  struct tp_ref x = {buf, rank, off};
  return x;
}

extern "C" struct tp_ref tp_ref_at(int buf, int rank, size_t off) {
  return ref(buf, rank, off);
}

/* Scratch offsets are co-aligned with the data offset modulo 256 bytes so that the sum kernel
 * can use 16-byte vectors; returns the offset for a region of `bytes` and advances *cursor. */
static size_t scratch_take(size_t *cursor, size_t data_off, size_t bytes) {
  size_t base = (*cursor + 255) & ~(size_t)255;
  size_t off = base + data_off % 256;
  *cursor = off + bytes;
  return off;
}

extern "C" size_t tp_scratch_take(size_t *cursor, size_t data_off, size_t bytes) {
  return scratch_take(cursor, data_off, bytes);
}

/* Number of mini-batches for a segment that the ce main stream writes. */
static int batches_for(const struct build *bd, size_t len) {
  size_t units = (len + TP_UNIT - 1) / TP_UNIT;
  size_t nb;
  if (bd->pipeline > 0)
    nb = (size_t)bd->pipeline;
  else {
    nb = len * (size_t)bd->esize / (tp_auto_batch_bytes ? tp_auto_batch_bytes : TP_AUTO_BATCH);
    if (nb > TP_AUTO_MAX) nb = TP_AUTO_MAX;
  }
  if (nb > units) nb = units;
  return nb < 1 ? 1 : (int)nb;
}

/* Element range of batch j of nb over [b, e): boundaries on TP_UNIT multiples. */
extern "C" void tp_batch_range(size_t b, size_t e, int nb, int j, size_t *lo, size_t *hi) {
  size_t units = (e - b + TP_UNIT - 1) / TP_UNIT;
  size_t u0 = units * (size_t)j / (size_t)nb, u1 = units * (size_t)(j + 1) / (size_t)nb;
  *lo = b + u0 * TP_UNIT;
  *hi = b + u1 * TP_UNIT;
  if (*lo > e) *lo = e;
  if (*hi > e || j == nb - 1) *hi = e;
}

/* Builds the segments of every rank in round k from the transfers [lo, hi). */
static ar_status build_round(struct build *bd, int k, size_t lo, size_t hi) {
  const struct ar_schedule *s = bd->s;
  int n = bd->n, nc = s->nchunks;
  size_t cells = (size_t)n * nc;
  uint32_t *mask = (uint32_t *)calloc(cells, sizeof(uint32_t));
  signed char *cop = (signed char *)malloc(cells);
  unsigned char *sent = (unsigned char *)calloc(cells, 1);
  ar_status st = AR_OK;
  if (!mask || !cop || !sent) {
    st = AR_ERR_NOMEM;
    goto out;
  }
  memset(cop, -1, cells);
  for (size_t i = lo; i < hi; i++) {
    const struct ar_xfer *x = &s->xfers[i];
    if (x->src == x->dst) {
      st = fail(bd, "a transfer to itself", k, x->src, x->chunk);
      goto out;
    }
    for (int c = x->chunk; c < x->chunk + x->count; c++) {
      size_t at = (size_t)x->dst * nc + c;
      if (mask[at] & (1u << x->src)) {
        st = fail(bd, "the same source twice", k, x->dst, c);
        goto out;
      }
      if (cop[at] >= 0 && (cop[at] != x->op || x->op == AR_COPY)) {
        st = fail(bd, "a copy together with other transfers into one chunk", k, x->dst, c);
        goto out;
      }
      cop[at] = (signed char)x->op;
      mask[at] |= 1u << x->src;
      sent[(size_t)x->src * nc + c] = 1;
    }
  }
  for (int r = 0; r < n; r++) {
    struct rr *x = rr_at(bd, r, k);
    const uint32_t *m = mask + (size_t)r * nc;
    const signed char *o = cop + (size_t)r * nc;
    const unsigned char *sn = sent + (size_t)r * nc;
    for (int c = 0; c < nc;) {
      if (!m[c]) {
        c++;
        continue;
      }
      int c1 = c + 1;
      while (c1 < nc && m[c1] == m[c] && o[c1] == o[c] && sn[c1] == sn[c])
        c1++;
      struct seg g;
      memset(&g, 0, sizeof(g));
      g.b = ar_chunk_begin(bd->nelem, nc, c);
      g.e = ar_chunk_begin(bd->nelem, nc, c1);
      g.op = o[c];
      g.hazard = sn[c];
      for (int q = 0; q < n; q++)
        if (m[c] & (1u << q)) g.src[g.nsrc++] = q;
      if (g.e > g.b) {
        struct seg *ns = (struct seg *)realloc(x->segs, (x->nseg + 1) * sizeof(*ns));
        if (!ns) {
          st = AR_ERR_NOMEM;
          goto out;
        }
        x->segs = ns;
        x->segs[x->nseg++] = g;
        for (int q = 0; q < g.nsrc; q++)
          if (src_index(x, g.src[q]) < 0) x->srcs[x->nsrc++] = g.src[q];
      }
      c = c1;
    }
    /* sources in rank order, so every rank lays its copy streams out the same way */
    for (int i = 1; i < x->nsrc; i++)
      for (int j = i; j > 0 && x->srcs[j - 1] > x->srcs[j]; j--) {
        int t = x->srcs[j];
        x->srcs[j] = x->srcs[j - 1];
        x->srcs[j - 1] = t;
      }
  }
out:
  free(mask);
  free(cop);
  free(sent);
  return st;
}

/* Appends a ce item for source index si of rank-round x; returns its index or -1 (no memory). */
static int item_add(struct rr *x, int si, const struct item *it) {
  struct item *ni = (struct item *)realloc(x->items[si], (x->nitem[si] + 1) * sizeof(*ni));
  if (!ni) return -1;
  x->items[si] = ni;
  ni[x->nitem[si]] = *it;
  return x->nitem[si]++;
}

/* ce: batches, scratch and the copy items of every rank-round. */
static ar_status plan_ce(struct build *bd) {
  int es = bd->esize;
  for (int r = 0; r < bd->n; r++)
    for (int k = 0; k < bd->nr; k++) {
      struct rr *x = rr_at(bd, r, k);
      size_t cursor = 0;
      for (int g = 0; g < x->nseg; g++) {
        struct seg *sg = &x->segs[g];
        int main_writes = sg->op == AR_REDUCE || sg->hazard;
        sg->nb = main_writes ? batches_for(bd, sg->e - sg->b) : 1;
        if (sg->nb > bd->p->batches_max) bd->p->batches_max = sg->nb;
        if (main_writes)
          for (int q = 0; q < (sg->op == AR_REDUCE ? sg->nsrc : 1); q++)
            sg->scr[q] = scratch_take(&cursor, sg->b * es, (sg->e - sg->b) * es);
        for (int q = 0; q < sg->nsrc; q++)
          for (int j = 0; j < sg->nb; j++) {
            struct item it;
            memset(&it, 0, sizeof(it));
            it.seg = g;
            it.batch = j;
            tp_batch_range(sg->b, sg->e, sg->nb, j, &it.b, &it.e);
            if (it.e <= it.b) continue;
            it.to_scratch = main_writes;
            it.soff = sg->scr[sg->op == AR_REDUCE ? q : 0] + (it.b - sg->b) * es;
            it.event = -1;
            it.pevent = -1;
            if (item_add(x, src_index(x, sg->src[q]), &it) < 0) return AR_ERR_NOMEM;
          }
      }
      x->scratch = cursor;
    }
  return AR_OK;
}

/* sm: scratch for the hazard segments (the sum lands there until readers are done). */
static void plan_sm(struct build *bd) {
  int es = bd->esize;
  for (int r = 0; r < bd->n; r++)
    for (int k = 0; k < bd->nr; k++) {
      struct rr *x = rr_at(bd, r, k);
      size_t cursor = 0;
      for (int g = 0; g < x->nseg; g++) {
        struct seg *sg = &x->segs[g];
        sg->nb = 1;
        if (sg->hazard) sg->scr[0] = scratch_take(&cursor, sg->b * es, (sg->e - sg->b) * es);
      }
      x->scratch = cursor;
    }
}

/* Fills every rank-round's readers from the others' sources. */
static void find_readers(struct build *bd) {
  for (int k = 0; k < bd->nr; k++)
    for (int p = 0; p < bd->n; p++) {
      struct rr *x = rr_at(bd, p, k);
      for (int i = 0; i < x->nsrc; i++) {
        struct rr *w = rr_at(bd, x->srcs[i], k);
        w->readers[w->nreader++] = p;
      }
    }
}

/* Number of copies reader p makes from w in round k (ce), or 1 (sm). */
static int reads_of(struct build *bd, int p, int w, int k) {
  struct rr *x = rr_at(bd, p, k);
  int si = src_index(x, w);
  if (si < 0) return 0;
  return bd->mode == TP_MODE_SM ? 1 : x->nitem[si];
}

/* ce: the DONE count of reader p that must be reached before w writes [b, e) in round k (0:
 * none), and marks p's copy after which it signals. */
static int need_of(struct build *bd, int p, int w, int k, size_t b, size_t e) {
  struct rr *x = rr_at(bd, p, k);
  int si = src_index(x, w), need = 0;
  if (si < 0) return 0;
  for (int j = 0; j < x->nitem[si]; j++)
    if (x->items[si][j].b < e && b < x->items[si][j].e) need = j + 1;
  if (need) x->items[si][need - 1].signal = 1;
  return need;
}

/* Flag values (iteration-relative) of READY in round k and of the c-th DONE/DATA. */
static uint32_t ready_val(const struct build *bd, int k) {
  return (uint32_t)(k + 1) * bd->p->stride;
}
static uint32_t done_val(const struct build *bd, int k, int c) {
  return (uint32_t)k * bd->p->stride + (uint32_t)c;
}

/* Emits the READY writes of rank r for round k on `stream`. */
static ar_status emit_ready(struct build *bd, int r, int k, int stream) {
  struct rr *x = rr_at(bd, r, k);
  for (int i = 0; i < x->nreader; i++) {
    struct tp_op o = op_new(TP_OP_WRITE_FLAG, stream, k);
    o.peer = x->readers[i];
    o.slot = r;
    o.val = ready_val(bd, k);
    AR_CHECK(emit(bd->p, r, &o));
  }
  return AR_OK;
}

/* Emits waits for DONE(k, count) from each reader whose count exceeds waited[]. */
static ar_status emit_done_waits(struct build *bd, int r, int k, const int *want, int *waited) {
  struct rr *x = rr_at(bd, r, k);
  for (int i = 0; i < x->nreader; i++) {
    if (want[i] <= waited[i]) continue;
    struct tp_op o = op_new(TP_OP_WAIT_FLAG, 0, k);
    o.slot = bd->n + x->readers[i];
    o.val = done_val(bd, k, want[i]);
    AR_CHECK(emit(bd->p, r, &o));
    waited[i] = want[i];
  }
  return AR_OK;
}

/* ---- degraded-link emulation (transport.h, struct tp_degrade) ---- */

/* The factor of rank r, 0 when it is healthy or nothing is emulated. */
static double fac(const struct build *bd, int r) {
  return bd->dg ? tp_degrade_factor(bd->dg, r) : 0;
}

/* Bytes src sends to dst in round k (dst's segments that read src). */
static size_t flow_bytes(struct build *bd, int src, int dst, int k) {
  struct rr *x = rr_at(bd, dst, k);
  size_t t = 0;
  for (int g = 0; g < x->nseg; g++)
    for (int q = 0; q < x->segs[g].nsrc; q++)
      if (x->segs[g].src[q] == src) t += (x->segs[g].e - x->segs[g].b) * bd->esize;
  return t;
}

/* What r's shared budget has carried in round k when one of its flows has carried `x` bytes:
 * sum over r's flows in (out = 0) or out (out = 1) of min(flow, x); x = SIZE_MAX: every byte. */
static double shared_bytes(struct build *bd, int r, int k, int out, size_t x) {
  struct rr *y = rr_at(bd, r, k);
  double t = 0;
  int cnt = out ? y->nreader : y->nsrc;
  for (int i = 0; i < cnt; i++) {
    size_t b = out ? flow_bytes(bd, r, y->readers[i], k) : flow_bytes(bd, y->srcs[i], r, k);
    t += (double)(b < x ? b : x);
  }
  return t;
}

/* Nanoseconds `bytes` take at factor f (0: healthy, no wait). */
static uint64_t pace_ns(const struct build *bd, double f, double bytes) {
  return tp_degrade_ns(bd->dg, f, bytes);
}

/* Emits a STAMP of slot on rank r's stream. */
static ar_status emit_stamp(struct build *bd, int r, int stream, int k, int slot) {
  struct tp_op o = op_new(TP_OP_STAMP, stream, k);
  o.tslot[0] = slot;
  return emit(bd->p, r, &o);
}

/* Emits, on rank r's main stream in round k, the apply of segment sg's elements [b, e) from
 * scratch into data: a sum with the data for a reduce, a copy otherwise. */
static ar_status emit_apply(struct build *bd, int r, int k, const struct seg *sg, size_t b,
                            size_t e, size_t es) {
  size_t off = (b - sg->b) * es;
  struct tp_op o;
  if (sg->op == AR_REDUCE) {
    o = op_new(TP_OP_SUM, 0, k);
    o.src[o.nsrc++] = ref(TP_BUF_DATA, r, b * es);
    for (int q = 0; q < sg->nsrc; q++) o.src[o.nsrc++] = ref(TP_BUF_SCRATCH, r, sg->scr[q] + off);
  } else {
    o = op_new(TP_OP_COPY, 0, k);
    o.nsrc = 1;
    o.src[0] = ref(TP_BUF_SCRATCH, r, sg->scr[0] + off);
  }
  o.dst = ref(TP_BUF_DATA, r, b * es);
  o.bytes = (e - b) * es;
  return emit(bd->p, r, &o);
}

/* Emits a PACE until stamp s0 + n0 and stamp s1 + n1 (s1 -1: none); nothing when both are 0. */
static ar_status emit_pace(struct build *bd, int r, int stream, int k, int s0, uint64_t n0, int s1,
                           uint64_t n1) {
  if (!n0 && !n1) return AR_OK;
  struct tp_op o = op_new(TP_OP_PACE, stream, k);
  o.tslot[0] = s0;
  o.ns[0] = n0;
  if (n1) {
    o.tslot[1] = s1;
    o.ns[1] = n1;
  }
  return emit(bd->p, r, &o);
}

/* ce: marks, before any program is emitted, every reader copy after which the reader must
 * signal DONE because a writer waits for exactly that count. */
static void mark_ce(struct build *bd) {
  for (int w = 0; w < bd->n; w++)
    for (int k = 0; k < bd->nr; k++) {
      struct rr *x = rr_at(bd, w, k);
      for (int g = 0; g < x->nseg; g++) {
        struct seg *sg = &x->segs[g];
        if (!sg->hazard) continue;
        for (int j = 0; j < sg->nb; j++) {
          size_t b, e;
          tp_batch_range(sg->b, sg->e, sg->nb, j, &b, &e);
          for (int i = 0; e > b && i < x->nreader; i++)
            need_of(bd, x->readers[i], w, k, b, e);
        }
      }
    }
}

/* ce pull program of rank r (the receiver copies from its sources; see tp_prog.h). Kept for
 * experiments (AR_CE_DIR=pull): on 4 x H200 it hung at once, both with stream memory operations
 * and with flag kernels, while the CPU simulation of the same program passes; the push program
 * above is the default. */
static ar_status emit_ce(struct build *bd, int r) {
  int es = bd->esize;
  for (int k = 0; k < bd->nr; k++) {
    struct rr *x = rr_at(bd, r, k);
    if (!x->nsrc && !x->nreader) continue;
    AR_CHECK(emit_ready(bd, r, k, 0));
    int waited[AR_MAX_GPUS] = {0}, full[AR_MAX_GPUS];
    if (x->nsrc) {
      /* event 0 forks the copy streams off stream 0, 1+i joins copy stream i back, and the
       * copies that land in scratch get the ids after those */
      int nev = 1 + x->nsrc;
      struct tp_op o = op_new(TP_OP_RECORD, 0, k);
      o.event = 0;
      AR_CHECK(emit(bd->p, r, &o));
      for (int i = 0; i < x->nsrc; i++) {
        int src = x->srcs[i], cs = 1 + i;
        o = op_new(TP_OP_WAIT_EVENT, cs, k);
        o.event = 0;
        AR_CHECK(emit(bd->p, r, &o));
        o = op_new(TP_OP_WAIT_FLAG, cs, k);
        o.slot = src;
        o.val = ready_val(bd, k);
        AR_CHECK(emit(bd->p, r, &o));
        for (int j = 0; j < x->nitem[i]; j++) {
          struct item *it = &x->items[i][j];
          o = op_new(TP_OP_COPY, cs, k);
          o.bytes = (it->e - it->b) * es;
          o.nsrc = 1;
          o.src[0] = ref(TP_BUF_DATA, src, it->b * es);
          o.dst =
              it->to_scratch ? ref(TP_BUF_SCRATCH, r, it->soff) : ref(TP_BUF_DATA, r, it->b * es);
          AR_CHECK(emit(bd->p, r, &o));
          if (it->to_scratch) {
            it->event = nev++;
            o = op_new(TP_OP_RECORD, cs, k);
            o.event = it->event;
            AR_CHECK(emit(bd->p, r, &o));
          }
          if (it->signal || j == x->nitem[i] - 1) {
            o = op_new(TP_OP_WRITE_FLAG, cs, k);
            o.peer = src;
            o.slot = bd->n + r;
            o.val = done_val(bd, k, j + 1);
            AR_CHECK(emit(bd->p, r, &o));
          }
        }
        o = op_new(TP_OP_RECORD, cs, k);
        o.event = 1 + i;
        AR_CHECK(emit(bd->p, r, &o));
      }
      /* stream 0: apply what landed in scratch, batch by batch */
      for (int g = 0; g < x->nseg; g++) {
        struct seg *sg = &x->segs[g];
        if (sg->op != AR_REDUCE && !sg->hazard) continue;
        for (int j = 0; j < sg->nb; j++) {
          size_t b, e;
          tp_batch_range(sg->b, sg->e, sg->nb, j, &b, &e);
          if (e <= b) continue;
          for (int i = 0; i < x->nsrc; i++)
            for (int t = 0; t < x->nitem[i]; t++)
              if (x->items[i][t].seg == g && x->items[i][t].batch == j) {
                o = op_new(TP_OP_WAIT_EVENT, 0, k);
                o.event = x->items[i][t].event;
                AR_CHECK(emit(bd->p, r, &o));
              }
          if (sg->hazard) {
            int want[AR_MAX_GPUS];
            for (int i = 0; i < x->nreader; i++)
              want[i] = need_of(bd, x->readers[i], r, k, b, e);
            AR_CHECK(emit_done_waits(bd, r, k, want, waited));
          }
          AR_CHECK(emit_apply(bd, r, k, sg, b, e, es));
        }
      }
      for (int i = 0; i < x->nsrc; i++) {
        o = op_new(TP_OP_WAIT_EVENT, 0, k);
        o.event = 1 + i;
        AR_CHECK(emit(bd->p, r, &o));
      }
    }
    for (int i = 0; i < x->nreader; i++)
      full[i] = reads_of(bd, x->readers[i], r, k);
    AR_CHECK(emit_done_waits(bd, r, k, full, waited));
  }
  return AR_OK;
}

/* ce push: marks the copies after which a sender signals DATA because the receiver applies
 * that mini-batch as soon as it lands. */
static void mark_push(struct build *bd) {
  for (int r = 0; r < bd->n; r++)
    for (int k = 0; k < bd->nr; k++) {
      struct rr *x = rr_at(bd, r, k);
      for (int i = 0; i < x->nsrc; i++)
        for (int j = 0; j < x->nitem[i]; j++)
          if (x->items[i][j].to_scratch) x->items[i][j].signal = 1;
    }
}

/* ce push program of rank r: the sender copies into the receiver's memory on its own streams,
 * so every cross-GPU wait is on local memory and every copy depends only on its own GPU:
 *   1. READY(k) to each rank that sends to us (our round k-1 is complete: scratch free, our
 *      data in its round-start state, our own round k-1 sends joined);
 *   2. per receiver q (copy stream 1+i): wait READY(k) from q, copy each item from our data into
 *      q's scratch (or q's data when q does not send that chunk this round), DATA(count) to q
 *      after the copies q applies;
 *   3. stream 0: per mini-batch, wait DATA from its senders, and for a range we also send this
 *      round, wait (events) for our own sends of it; then sum or copy scratch into data;
 *   4. round end: wait DATA(all) from every sender (direct copies landed), join the streams. */
static ar_status emit_ce_push(struct build *bd, int r) {
  int es = bd->esize;
  double fr = fac(bd, r); /* emulation: > 0 when r is degraded */
  for (int k = 0; k < bd->nr; k++) {
    struct rr *x = rr_at(bd, r, k);
    if (!x->nsrc && !x->nreader) continue;
    struct tp_op o;
    if (fr > 0) AR_CHECK(emit_stamp(bd, r, 0, k, 0)); /* slot 0: the round's start */
    for (int i = 0; i < x->nsrc; i++) { /* we are ready to be written */
      o = op_new(TP_OP_WRITE_FLAG, 0, k);
      o.peer = x->srcs[i];
      o.slot = r;
      o.val = ready_val(bd, k);
      AR_CHECK(emit(bd->p, r, &o));
    }
    int nev = 1 + x->nreader; /* 0 forks, 1+i joins stream 1+i, then the item events */
    if (x->nreader) {
      o = op_new(TP_OP_RECORD, 0, k);
      o.event = 0;
      AR_CHECK(emit(bd->p, r, &o));
    }
    for (int i = 0; i < x->nreader; i++) {
      int q = x->readers[i], cs = 1 + i;
      struct rr *y = rr_at(bd, q, k);
      int si = src_index(y, r);
      o = op_new(TP_OP_WAIT_EVENT, cs, k);
      o.event = 0;
      AR_CHECK(emit(bd->p, r, &o));
      o = op_new(TP_OP_WAIT_FLAG, cs, k);
      o.slot = q;
      o.val = ready_val(bd, k);
      AR_CHECK(emit(bd->p, r, &o));
      /* emulation: a flow touching a degraded GPU starts now (slot 1+i), when both ends are
       * ready; its DATA flags wait for the slow link (and for r's shared egress budget) */
      double ff = fr > fac(bd, q) ? fr : fac(bd, q);
      if (ff > 0) AR_CHECK(emit_stamp(bd, r, cs, k, cs));
      size_t sent = 0;
      for (int j = 0; j < y->nitem[si]; j++) {
        struct item *it = &y->items[si][j];
        sent += (it->e - it->b) * es;
        o = op_new(TP_OP_COPY, cs, k);
        o.bytes = (it->e - it->b) * es;
        o.nsrc = 1;
        o.src[0] = ref(TP_BUF_DATA, r, it->b * es);
        o.dst = it->to_scratch ? ref(TP_BUF_SCRATCH, q, it->soff) : ref(TP_BUF_DATA, q, it->b * es);
        AR_CHECK(emit(bd->p, r, &o));
        int overlaps = 0; /* does one of our own hazard writes of this round cover it? */
        for (int g = 0; g < x->nseg; g++)
          if (x->segs[g].hazard && x->segs[g].b < it->e && it->b < x->segs[g].e) overlaps = 1;
        it->pevent = -1;
        if (overlaps) {
          it->pevent = nev++;
          o = op_new(TP_OP_RECORD, cs, k);
          o.event = it->pevent;
          AR_CHECK(emit(bd->p, r, &o));
        }
        if (it->signal || j == y->nitem[si] - 1) {
          if (ff > 0)
            AR_CHECK(emit_pace(bd, r, cs, k, cs, pace_ns(bd, ff, (double)sent), 0,
                               pace_ns(bd, fr, shared_bytes(bd, r, k, 1, sent))));
          o = op_new(TP_OP_WRITE_FLAG, cs, k);
          o.peer = q;
          o.slot = bd->n + r;
          o.val = done_val(bd, k, j + 1);
          AR_CHECK(emit(bd->p, r, &o));
        }
      }
      o = op_new(TP_OP_RECORD, cs, k);
      o.event = 1 + i;
      AR_CHECK(emit(bd->p, r, &o));
    }
    int waited[AR_MAX_GPUS] = {0};
    uint64_t gate = 0; /* emulation: r's ingress released so far this round (ns after slot 0) */
    for (int g = 0; g < x->nseg; g++) {
      struct seg *sg = &x->segs[g];
      if (sg->op != AR_REDUCE && !sg->hazard) continue;
      for (int j = 0; j < sg->nb; j++) {
        size_t b, e;
        tp_batch_range(sg->b, sg->e, sg->nb, j, &b, &e);
        if (e <= b) continue;
        for (int i = 0; i < x->nsrc; i++) /* the mini-batch landed */
          for (int t = 0; t < x->nitem[i]; t++)
            if (x->items[i][t].seg == g && x->items[i][t].batch == j && t + 1 > waited[i]) {
              o = op_new(TP_OP_WAIT_FLAG, 0, k);
              o.slot = bd->n + x->srcs[i];
              o.val = done_val(bd, k, t + 1);
              AR_CHECK(emit(bd->p, r, &o));
              waited[i] = t + 1;
            }
        if (sg->hazard) /* our own sends of this range are done */
          for (int i = 0; i < x->nreader; i++) {
            struct rr *y = rr_at(bd, x->readers[i], k);
            int si = src_index(y, r);
            for (int t = 0; t < y->nitem[si]; t++) {
              struct item *it = &y->items[si][t];
              if (it->pevent >= 0 && it->b < e && b < it->e) {
                o = op_new(TP_OP_WAIT_EVENT, 0, k);
                o.event = it->pevent;
                AR_CHECK(emit(bd->p, r, &o));
              }
            }
          }
        if (fr > 0) { /* the mini-batch is usable once the shared ingress has carried it */
          uint64_t need = 0;
          for (int i = 0; i < x->nsrc; i++) {
            size_t got = 0;
            for (int t = 0; t < x->nitem[i]; t++) {
              got += (x->items[i][t].e - x->items[i][t].b) * es;
              if (x->items[i][t].seg != g || x->items[i][t].batch != j) continue;
              uint64_t v = pace_ns(bd, fr, shared_bytes(bd, r, k, 0, got));
              if (v > need) need = v;
            }
          }
          if (need > gate) AR_CHECK(emit_pace(bd, r, 0, k, 0, need, -1, 0));
          if (need > gate) gate = need;
        }
        AR_CHECK(emit_apply(bd, r, k, sg, b, e, es));
      }
    }
    for (int i = 0; i < x->nsrc; i++)
      if (x->nitem[i] > waited[i]) {
        o = op_new(TP_OP_WAIT_FLAG, 0, k);
        o.slot = bd->n + x->srcs[i];
        o.val = done_val(bd, k, x->nitem[i]);
        AR_CHECK(emit(bd->p, r, &o));
      }
    if (fr > 0 && x->nsrc) { /* every byte received (direct copies too) */
      uint64_t all = pace_ns(bd, fr, shared_bytes(bd, r, k, 0, SIZE_MAX));
      if (all > gate) AR_CHECK(emit_pace(bd, r, 0, k, 0, all, -1, 0));
    }
    for (int i = 0; i < x->nreader; i++) {
      o = op_new(TP_OP_WAIT_EVENT, 0, k);
      o.event = 1 + i;
      AR_CHECK(emit(bd->p, r, &o));
    }
  }
  return AR_OK;
}

/* ---- ce dataflow ring (AR_SCHED_PIPELINED schedules with ring structure; tp_prog.h) ----
 * Rounds: the schedule's 2(n-1), but no rank waits for a whole round: mini-batch j of round k
 * depends only on batch j of round k-1 (and its scratch slot's previous user), so the copy
 * engines stay busy across round boundaries. Bytes: the schedule's. Source: asyncallreduce.md
 * (mini-batches, double-buffered streams and scratch) with per-batch dependencies. Limits: ring
 * structure (ring_check), no degraded-link emulation; anything else gets emit_ce_push. */

/* Returns the op (AR_COPY / AR_REDUCE) of every transfer of round k (ring_check made them
 * equal). */
static int ring_op(struct build *bd, int k) {
  return rr_at(bd, 0, k)->segs[0].op;
}

/* Returns the latest REDUCE round before k with k's parity (the previous user of k's scratch
 * slots), or -1. */
static int ring_prev_user(struct build *bd, int k) {
  for (int k2 = k - 2; k2 >= 0; k2 -= 2)
    if (ring_op(bd, k2) == AR_REDUCE) return k2;
  return -1;
}

/* Returns the next REDUCE round after k with k's parity (the next user of k's slots), or -1. */
static int ring_next_user(struct build *bd, int k) {
  for (int k2 = k + 2; k2 < bd->nr; k2 += 2)
    if (ring_op(bd, k2) == AR_REDUCE) return k2;
  return -1;
}

/* Returns 1 when the schedule has the dataflow ring's structure, filling bd->succ and
 * bd->pred; else 0 (the reason logged at trace level). Needs find_readers. The structure
 * makes every element's accesses one chain of hops (tp_prog.h), which is what lets the
 * program order them batch by batch instead of round by round. */
static int ring_check(struct build *bd) {
  const char *why = bd->nr < 1 ? "no rounds" : NULL;
  int copying = 0;
  for (int k = 0; !why && k < bd->nr; k++) {
    for (int r = 0; !why && r < bd->n; r++) {
      const struct rr *x = rr_at(bd, r, k);
      if (x->nseg != 1 || x->nsrc != 1 || x->nreader != 1) {
        why = "a rank does not receive one range from one peer and send one to one peer";
        break;
      }
      if (x->segs[0].hazard) why = "a rank sends what it receives in the same round";
      if (x->segs[0].op != rr_at(bd, 0, k)->segs[0].op) why = "a round mixes copies and reduces";
      if (k == 0) {
        bd->pred[r] = x->srcs[0];
        bd->succ[r] = x->readers[0];
      } else if (bd->pred[r] != x->srcs[0] || bd->succ[r] != x->readers[0]) {
        why = "a rank's peers change between rounds";
      } else {
        const struct seg *sent = &rr_at(bd, bd->succ[r], k)->segs[0];
        const struct seg *got = &rr_at(bd, r, k - 1)->segs[0];
        if (sent->b != got->b || sent->e != got->e)
          why = "a rank does not send what it received the round before";
      }
    }
    if (!why && ring_op(bd, k) == AR_COPY) copying = 1;
    if (!why && ring_op(bd, k) == AR_REDUCE && copying) why = "a reduce round after a copy round";
  }
  /* the chains (one per round-0 transfer) must not share elements */
  for (int r = 0; !why && r < bd->n; r++)
    for (int t = r + 1; !why && t < bd->n; t++) {
      const struct seg *a = &rr_at(bd, r, 0)->segs[0], *b = &rr_at(bd, t, 0)->segs[0];
      if (a->b < b->e && b->b < a->e) why = "two chains share elements";
    }
  if (why) ar_log(AR_LOG_TRACE, "ce: %s: the per-round program: %s", bd->s->algo, why);
  return !why;
}

/* Returns the mini-batches per transfer: the pipeline asked for, else about
 * tp_ring_batch_bytes each (TP_RING_MIN..TP_RING_MAX); at most the TP_UNIT blocks of the
 * smallest transfer, so that every batch of every transfer is non-empty. One count for the
 * whole program: a chain's batches are then the same ranges at every hop. */
static int ring_batches(struct build *bd) {
  size_t most = 0, least = SIZE_MAX;
  for (int r = 0; r < bd->n; r++)
    for (int k = 0; k < bd->nr; k++) {
      const struct seg *g = &rr_at(bd, r, k)->segs[0];
      if (g->e - g->b > most) most = g->e - g->b;
      if (g->e - g->b < least) least = g->e - g->b;
    }
  size_t nb = (size_t)bd->pipeline;
  if (bd->pipeline <= 0) {
    nb = most * (size_t)bd->esize / (tp_ring_batch_bytes ? tp_ring_batch_bytes : TP_RING_BATCH);
    if (nb < TP_RING_MIN) nb = TP_RING_MIN;
    if (nb > TP_RING_MAX) nb = TP_RING_MAX;
  }
  size_t units = (least + TP_UNIT - 1) / TP_UNIT;
  if (nb > units) nb = units;
  return nb < 1 ? 1 : (int)nb;
}

/* Plans mini-batches, copy streams and scratch slots, and the program's flag layout. */
static void ring_plan(struct build *bd) {
  int es = bd->esize, nred = 0;
  bd->nb = ring_batches(bd);
  bd->ns = tp_ring_streams;
  if (bd->ns > TP_DF_MAX_STREAMS) bd->ns = TP_DF_MAX_STREAMS;
  if (bd->ns > bd->nb) bd->ns = bd->nb; /* every stream carries a batch of every round */
  if (bd->ns < 1) bd->ns = 1;
  size_t most = 0; /* the largest mini-batch landing in scratch, bytes */
  for (int k = 0; k < bd->nr; k++) {
    if (ring_op(bd, k) != AR_REDUCE) continue;
    nred++;
    for (int r = 0; r < bd->n; r++)
      for (int j = 0; j < bd->nb; j++) {
        const struct seg *g = &rr_at(bd, r, k)->segs[0];
        size_t b, e;
        tp_batch_range(g->b, g->e, bd->nb, j, &b, &e);
        if ((e - b) * es > most) most = (e - b) * es;
      }
  }
  /* a slot holds any batch at the data's offset modulo 256 (16-byte vectors in the sum) */
  bd->slot_bytes = ((most + 255) & ~(size_t)255) + 256;
  size_t scratch = (size_t)(nred < 2 ? nred : 2) * bd->nb * bd->slot_bytes;
  for (int r = 0; r < bd->n; r++)
    bd->p->rank[r].scratch_bytes = scratch;
  bd->p->dataflow = 1;
  bd->p->batches_max = bd->nb;
  bd->p->stride = (uint32_t)bd->nb;
  bd->p->span = (uint32_t)bd->nr * bd->nb + 1; /* above every v(k, j) */
  if (TP_DF_DATA + bd->ns > bd->p->nslots) bd->p->nslots = TP_DF_DATA + bd->ns;
}

/* Flag value v(k, j) of mini-batch j of round k (DATA, FREE); READY is 1. */
static uint32_t ring_val(const struct build *bd, int k, int j) {
  return (uint32_t)k * bd->nb + j + 1;
}

/* Returns the byte offset of batch [b, ...) of round k, mini-batch j, in a rank's scratch:
 * slot (k % 2, j), at the data's offset modulo 256. */
static size_t ring_slot(const struct build *bd, int k, int j, size_t b) {
  return ((size_t)(k % 2) * bd->nb + j) * bd->slot_bytes + b * bd->esize % 256;
}

/* Emits a flag op (WRITE_FLAG to peer, or WAIT_FLAG when peer < 0) on rank r's stream. */
static ar_status ring_flag(struct build *bd, int r, int stream, int k, int peer, int slot,
                           uint32_t val) {
  struct tp_op o = op_new(peer >= 0 ? TP_OP_WRITE_FLAG : TP_OP_WAIT_FLAG, stream, k);
  o.peer = peer >= 0 ? peer : 0;
  o.slot = slot;
  o.val = val;
  return emit(bd->p, r, &o);
}

/* Emits an event op (RECORD or WAIT_EVENT) on rank r's stream. */
static ar_status ring_event(struct build *bd, int r, int kind, int stream, int k, int event) {
  struct tp_op o = op_new(kind, stream, k);
  o.event = event;
  return emit(bd->p, r, &o);
}

/* Event ids: 0..nb-1 the applies of each mini-batch (reused every round: a send waits for the
 * previous round's record, enqueued before it), then the iteration's start, then one join per
 * copy stream. */
#define RING_EV_START(bd) ((bd)->nb)
#define RING_EV_JOIN(bd, cs) ((bd)->nb + (cs))

/* Emits the start of rank r's iteration on stream 0: READY to the predecessor (stream 0 is
 * past r's previous iteration, whose copies it joined and whose incoming data it waited for,
 * and past the harness's writes of this one), and the event r's first copies wait for. */
static ar_status ring_emit_start(struct build *bd, int r) {
  AR_CHECK(ring_flag(bd, r, 0, 0, bd->pred[r], TP_DF_READY, 1));
  return ring_event(bd, r, TP_OP_RECORD, 0, 0, RING_EV_START(bd));
}

/* Emits the send of mini-batch j of round k by rank r, on copy stream 1 + j % ns: wait for
 * what it reads and where it writes, copy, DATA(k, j) to the successor. */
static ar_status ring_emit_send(struct build *bd, int r, int k, int j) {
  int cs = 1 + j % bd->ns, q = bd->succ[r], es = bd->esize;
  const struct seg *g = &rr_at(bd, q, k)->segs[0]; /* what q receives from r */
  size_t b, e;
  tp_batch_range(g->b, g->e, bd->nb, j, &b, &e);
  if (k == 0 && j < bd->ns) { /* the stream's first copy of the iteration */
    AR_CHECK(ring_event(bd, r, TP_OP_WAIT_EVENT, cs, k, RING_EV_START(bd)));
    AR_CHECK(ring_flag(bd, r, cs, k, -1, TP_DF_READY, 1));
  }
  if (k > 0 && ring_op(bd, k - 1) == AR_REDUCE) /* our sum of this batch, one round back */
    AR_CHECK(ring_event(bd, r, TP_OP_WAIT_EVENT, cs, k, j));
  else if (k > 0) /* it landed straight in our data: the predecessor's DATA says when */
    AR_CHECK(ring_flag(bd, r, cs, k, -1, TP_DF_DATA + j % bd->ns, ring_val(bd, k - 1, j)));
  int prev = g->op == AR_REDUCE ? ring_prev_user(bd, k) : -1;
  if (prev >= 0) /* q has summed the slot's previous contents */
    AR_CHECK(ring_flag(bd, r, cs, k, -1, TP_DF_FREE, ring_val(bd, prev, j)));
  struct tp_op o = op_new(TP_OP_COPY, cs, k);
  o.bytes = (e - b) * es;
  o.nsrc = 1;
  o.src[0] = ref(TP_BUF_DATA, r, b * es);
  o.dst = g->op == AR_REDUCE ? ref(TP_BUF_SCRATCH, q, ring_slot(bd, k, j, b))
                             : ref(TP_BUF_DATA, q, b * es);
  AR_CHECK(emit(bd->p, r, &o));
  return ring_flag(bd, r, cs, k, q, TP_DF_DATA + j % bd->ns, ring_val(bd, k, j));
}

/* Emits rank r's apply of mini-batch j of REDUCE round k on stream 0: wait until it landed,
 * sum the slot into data, record the batch's event (r's send of (k + 1, j) waits for it; the
 * record comes before the FREE write so that the send does not wait for the flag's copy), and
 * FREE to the predecessor when a later round reuses the slot. */
static ar_status ring_emit_apply(struct build *bd, int r, int k, int j) {
  int es = bd->esize;
  const struct seg *g = &rr_at(bd, r, k)->segs[0];
  size_t b, e;
  tp_batch_range(g->b, g->e, bd->nb, j, &b, &e);
  AR_CHECK(ring_flag(bd, r, 0, k, -1, TP_DF_DATA + j % bd->ns, ring_val(bd, k, j)));
  struct tp_op o = op_new(TP_OP_SUM, 0, k);
  o.src[o.nsrc++] = ref(TP_BUF_DATA, r, b * es);
  o.src[o.nsrc++] = ref(TP_BUF_SCRATCH, r, ring_slot(bd, k, j, b));
  o.dst = ref(TP_BUF_DATA, r, b * es);
  o.bytes = (e - b) * es;
  AR_CHECK(emit(bd->p, r, &o));
  if (k + 1 < bd->nr) AR_CHECK(ring_event(bd, r, TP_OP_RECORD, 0, k, j));
  if (ring_next_user(bd, k) >= 0)
    AR_CHECK(ring_flag(bd, r, 0, k, bd->pred[r], TP_DF_FREE, ring_val(bd, k, j)));
  return AR_OK;
}

/* Emits the end of COPY round k on rank r's stream 0: every mini-batch landed in r's data
 * (each DATA word's last value of the round). Only marks and the iteration's end need it:
 * the copy streams forward a batch on its own DATA. */
static ar_status ring_emit_landed(struct build *bd, int r, int k) {
  for (int s = 0; s < bd->ns; s++) {
    int last = s + (bd->nb - 1 - s) / bd->ns * bd->ns; /* the round's last batch on stream s */
    AR_CHECK(ring_flag(bd, r, 0, k, -1, TP_DF_DATA + s, ring_val(bd, k, last)));
  }
  return AR_OK;
}

/* Emits the join of rank r's copy streams into stream 0 at the iteration's end, so that the
 * harness's next writes of r's data follow r's last reads of it. */
static ar_status ring_emit_join(struct build *bd, int r) {
  int k = bd->nr - 1;
  for (int cs = 1; cs <= bd->ns; cs++) {
    AR_CHECK(ring_event(bd, r, TP_OP_RECORD, cs, k, RING_EV_JOIN(bd, cs)));
    AR_CHECK(ring_event(bd, r, TP_OP_WAIT_EVENT, 0, k, RING_EV_JOIN(bd, cs)));
  }
  return AR_OK;
}

/* ce dataflow ring program of rank r (tp_prog.h). Per round: the sends of every mini-batch
 * (copy streams), then its applies or landed waits (stream 0), so that a round's last op is on
 * stream 0 (marks) and every event is recorded before the waits that refer to it. */
static ar_status emit_ce_ring(struct build *bd, int r) {
  AR_CHECK(ring_emit_start(bd, r));
  for (int k = 0; k < bd->nr; k++) {
    for (int j = 0; j < bd->nb; j++)
      AR_CHECK(ring_emit_send(bd, r, k, j));
    if (ring_op(bd, k) == AR_REDUCE)
      for (int j = 0; j < bd->nb; j++)
        AR_CHECK(ring_emit_apply(bd, r, k, j));
    else
      AR_CHECK(ring_emit_landed(bd, r, k));
  }
  return ring_emit_join(bd, r);
}

/* ---- the dataflow direct program (emit_ce_direct, tp_prog.h) ---- */

/* Returns 1 when the schedule is a direct AllReduce: two rounds; in round 0 every rank r
 * receives one range O_r reduced from all n - 1 others (so it sends O_q to every q); in round 1
 * every rank receives O_q copied from q for every q != r; the O_r disjoint and non-empty. Fills
 * bd->own. Else 0 (the reason logged at trace level). */
static int direct_check(struct build *bd) {
  const char *why = bd->nr != 2 ? "not two rounds" : NULL;
  int n = bd->n;
  for (int r = 0; !why && r < n; r++) {
    const struct rr *x = rr_at(bd, r, 0);
    if (x->nseg != 1 || x->segs[0].op != AR_REDUCE || x->segs[0].nsrc != n - 1 ||
        x->segs[0].hazard)
      why = "round 0 is not every rank reducing one range from all others";
    else
      bd->own_b[r] = x->segs[0].b, bd->own_e[r] = x->segs[0].e;
  }
  for (int r = 0; !why && r < n; r++) {
    const struct rr *x = rr_at(bd, r, 1);
    if (x->nseg != n - 1) why = "round 1 is not every rank receiving n - 1 ranges";
    for (int g = 0; !why && g < x->nseg; g++) {
      const struct seg *sg = &x->segs[g];
      int q = sg->src[0];
      if (sg->op != AR_COPY || sg->nsrc != 1 || sg->hazard || sg->b != bd->own_b[q] ||
          sg->e != bd->own_e[q])
        why = "round 1 does not copy each owner's range from its owner";
    }
    for (int t = r + 1; !why && t < n; t++)
      if (bd->own_b[r] < bd->own_e[t] && bd->own_b[t] < bd->own_e[r]) why = "owners overlap";
  }
  if (why) ar_log(AR_LOG_TRACE, "ce: %s: the per-round program: %s", bd->s->algo, why);
  return !why;
}

/* Plans the mini-batches (the pipeline asked for, else about tp_direct_batch_bytes of the
 * largest owned range, TP_DIRECT_MIN..TP_DIRECT_MAX; at most the smallest range's TP_UNIT
 * blocks), the scratch slots (one per source and batch) and the flag layout. */
static void direct_plan(struct build *bd) {
  size_t most = 0, least = SIZE_MAX;
  for (int r = 0; r < bd->n; r++) {
    size_t len = bd->own_e[r] - bd->own_b[r];
    if (len > most) most = len;
    if (len < least) least = len;
  }
  size_t nb = (size_t)bd->pipeline;
  if (bd->pipeline <= 0) {
    nb = most * bd->esize / (tp_direct_batch_bytes ? tp_direct_batch_bytes : TP_DIRECT_BATCH);
    if (nb < TP_DIRECT_MIN) nb = TP_DIRECT_MIN;
    if (nb > TP_DIRECT_MAX) nb = TP_DIRECT_MAX;
  }
  size_t units = (least + TP_UNIT - 1) / TP_UNIT;
  if (nb > units) nb = units;
  bd->nb = nb < 1 ? 1 : (int)nb;
  size_t big = 0; /* the largest batch, bytes */
  for (int r = 0; r < bd->n; r++)
    for (int j = 0; j < bd->nb; j++) {
      size_t b, e;
      tp_batch_range(bd->own_b[r], bd->own_e[r], bd->nb, j, &b, &e);
      if ((e - b) * bd->esize > big) big = (e - b) * bd->esize;
    }
  bd->slot_bytes = ((big + 255) & ~(size_t)255) + 256;
  for (int r = 0; r < bd->n; r++)
    bd->p->rank[r].scratch_bytes = (size_t)(bd->n - 1) * bd->nb * bd->slot_bytes;
  bd->p->dataflow = 2;
  bd->p->batches_max = bd->nb;
  bd->p->stride = (uint32_t)bd->nb;
  bd->p->span = 2 * (uint32_t)bd->nb + 1; /* above every DATA value */
}

/* Byte offset in the receiver's scratch of batch j (starting at element b) from the source
 * `shift` ranks before it: slot (shift - 1, j), at the data's offset modulo 256. */
static size_t direct_slot(const struct build *bd, int shift, int j, size_t b) {
  return ((size_t)(shift - 1) * bd->nb + j) * bd->slot_bytes + b * bd->esize % 256;
}

/* Event ids: 0..nb-1 the sum of each batch, then the iteration's start, then the join. */
#define DIRECT_EV_START(bd) ((bd)->nb)
#define DIRECT_EV_JOIN(bd) ((bd)->nb + 1)

/* Emits rank r's copies of batch j in round k (0: O_q into q's scratch for every q; 1: O_r
 * into every q's data) on copy stream 1, peers in shift order so that all ranks together move
 * a permutation at a time, each followed by DATA to its receiver (slot n + r; round 0 batch j
 * says j + 1, round 1 says nb + j + 1). */
static ar_status direct_emit_sends(struct build *bd, int r, int k, int j) {
  int n = bd->n, es = bd->esize;
  for (int sh = 1; sh < n; sh++) {
    int q = (r + sh) % n, owner = k == 0 ? q : r;
    size_t b, e;
    tp_batch_range(bd->own_b[owner], bd->own_e[owner], bd->nb, j, &b, &e);
    struct tp_op o = op_new(TP_OP_COPY, 1, k);
    o.bytes = (e - b) * es;
    o.nsrc = 1;
    o.src[0] = ref(TP_BUF_DATA, r, b * es);
    o.dst = k == 0 ? ref(TP_BUF_SCRATCH, q, direct_slot(bd, sh, j, b)) : ref(TP_BUF_DATA, q, b * es);
    AR_CHECK(emit(bd->p, r, &o));
    AR_CHECK(ring_flag(bd, r, 1, k, q, n + r, (uint32_t)(k * bd->nb + j + 1)));
  }
  return AR_OK;
}

/* Emits rank r's sum of batch j on stream 0: wait until every source's copy landed, sum the
 * n - 1 slots into O_r, record the batch's event (its allgather copies wait for it). */
static ar_status direct_emit_sum(struct build *bd, int r, int j) {
  int n = bd->n, es = bd->esize;
  size_t b, e;
  tp_batch_range(bd->own_b[r], bd->own_e[r], bd->nb, j, &b, &e);
  for (int sh = 1; sh < n; sh++)
    AR_CHECK(ring_flag(bd, r, 0, 0, -1, n + (r - sh + n) % n, (uint32_t)(j + 1)));
  struct tp_op o = op_new(TP_OP_SUM, 0, 0);
  o.src[o.nsrc++] = ref(TP_BUF_DATA, r, b * es);
  for (int sh = 1; sh < n; sh++)
    o.src[o.nsrc++] = ref(TP_BUF_SCRATCH, r, direct_slot(bd, sh, j, b));
  o.dst = ref(TP_BUF_DATA, r, b * es);
  o.bytes = (e - b) * es;
  o.blocks = TP_DIRECT_SUM_BLOCKS;
  AR_CHECK(emit(bd->p, r, &o));
  return ring_event(bd, r, TP_OP_RECORD, 0, 0, j);
}

/* ce dataflow direct program of rank r (tp_prog.h). Round 0: the start event (stream 0);
 * every reduce-scatter copy, batch by batch (stream 1: they depend on nothing, so the copy
 * engine never waits); the sums as batches land (stream 0). Round 1: the allgather copies of batch j once its sum is done (stream 1); stream
 * 0 waits for every peer's last copy into r and joins stream 1. */
static ar_status emit_ce_direct(struct build *bd, int r) {
  int n = bd->n;
  AR_CHECK(ring_event(bd, r, TP_OP_RECORD, 0, 0, DIRECT_EV_START(bd)));
  AR_CHECK(ring_event(bd, r, TP_OP_WAIT_EVENT, 1, 0, DIRECT_EV_START(bd)));
  for (int j = 0; j < bd->nb; j++)
    AR_CHECK(direct_emit_sends(bd, r, 0, j));
  for (int j = 0; j < bd->nb; j++)
    AR_CHECK(direct_emit_sum(bd, r, j));
  for (int j = 0; j < bd->nb; j++) {
    AR_CHECK(ring_event(bd, r, TP_OP_WAIT_EVENT, 1, 1, j));
    AR_CHECK(direct_emit_sends(bd, r, 1, j));
  }
  for (int q = 0; q < n; q++)
    if (q != r) AR_CHECK(ring_flag(bd, r, 0, 1, -1, n + q, (uint32_t)(2 * bd->nb)));
  AR_CHECK(ring_event(bd, r, TP_OP_RECORD, 1, 1, DIRECT_EV_JOIN(bd)));
  return ring_event(bd, r, TP_OP_WAIT_EVENT, 0, 1, DIRECT_EV_JOIN(bd));
}

/* sm program of rank r (one stream, interpreted by every block of a persistent kernel). */
static ar_status emit_sm(struct build *bd, int r) {
  int es = bd->esize, first = 1;
  double fr = fac(bd, r); /* emulation: > 0 when r is degraded */
  for (int k = 0; k < bd->nr; k++) {
    struct rr *x = rr_at(bd, r, k);
    if (!x->nsrc && !x->nreader) continue;
    struct tp_op o;
    if (!first) { /* our earlier writes are complete and visible before anyone reads them */
      o = op_new(TP_OP_SYNC, 0, k);
      AR_CHECK(emit(bd->p, r, &o));
    }
    first = 0;
    if (fr > 0) AR_CHECK(emit_stamp(bd, r, 0, k, 0)); /* slot 0: the round's start */
    AR_CHECK(emit_ready(bd, r, k, 0));
    int waited[AR_MAX_GPUS] = {0}, full[AR_MAX_GPUS], nhaz = 0;
    for (int i = 0; i < x->nsrc; i++) {
      o = op_new(TP_OP_WAIT_FLAG, 0, k);
      o.slot = x->srcs[i];
      o.val = ready_val(bd, k);
      AR_CHECK(emit(bd->p, r, &o));
    }
    /* emulation: our reads start now (slot 1), every source ready; they are done once our
     * own ingress has carried them all and each degraded source's shared egress has carried
     * our share of it */
    uint64_t rd = x->nsrc ? pace_ns(bd, fr, shared_bytes(bd, r, k, 0, SIZE_MAX)) : 0;
    for (int i = 0; i < x->nsrc; i++) {
      int src = x->srcs[i];
      uint64_t v = pace_ns(bd, fac(bd, src), shared_bytes(bd, src, k, 1, flow_bytes(bd, src, r, k)));
      if (v > rd) rd = v;
    }
    if (rd) AR_CHECK(emit_stamp(bd, r, 0, k, 1));
    for (int g = 0; g < x->nseg; g++) { /* read and sum in one pass */
      struct seg *sg = &x->segs[g];
      o = op_new(TP_OP_SUM, 0, k);
      if (sg->op == AR_REDUCE) o.src[o.nsrc++] = ref(TP_BUF_DATA, r, sg->b * es);
      for (int q = 0; q < sg->nsrc; q++)
        o.src[o.nsrc++] = ref(TP_BUF_DATA, sg->src[q], sg->b * es);
      o.dst = sg->hazard ? ref(TP_BUF_SCRATCH, r, sg->scr[0]) : ref(TP_BUF_DATA, r, sg->b * es);
      o.bytes = (sg->e - sg->b) * es;
      nhaz += sg->hazard;
      AR_CHECK(emit(bd->p, r, &o));
    }
    if (rd) AR_CHECK(emit_pace(bd, r, 0, k, 1, rd, -1, 0));
    if (x->nsrc) { /* every block's reads are done: release the sources */
      o = op_new(TP_OP_SYNC, 0, k);
      AR_CHECK(emit(bd->p, r, &o));
      for (int i = 0; i < x->nsrc; i++) {
        o = op_new(TP_OP_WRITE_FLAG, 0, k);
        o.peer = x->srcs[i];
        o.slot = bd->n + r;
        o.val = done_val(bd, k, 1);
        AR_CHECK(emit(bd->p, r, &o));
      }
    }
    for (int i = 0; i < x->nreader; i++)
      full[i] = reads_of(bd, x->readers[i], r, k);
    if (nhaz) {
      AR_CHECK(emit_done_waits(bd, r, k, full, waited));
      for (int g = 0; g < x->nseg; g++) {
        struct seg *sg = &x->segs[g];
        if (!sg->hazard) continue;
        o = op_new(TP_OP_SUM, 0, k);
        o.nsrc = 1;
        o.src[0] = ref(TP_BUF_SCRATCH, r, sg->scr[0]);
        o.dst = ref(TP_BUF_DATA, r, sg->b * es);
        o.bytes = (sg->e - sg->b) * es;
        AR_CHECK(emit(bd->p, r, &o));
      }
    }
    AR_CHECK(emit_done_waits(bd, r, k, full, waited));
    if (fr > 0 && x->nreader) /* our egress budget carried everything read from us */
      AR_CHECK(emit_pace(bd, r, 0, k, 0, pace_ns(bd, fr, shared_bytes(bd, r, k, 1, SIZE_MAX)),
                         -1, 0));
  }
  return AR_OK;
}

/* Frees the builder's per-round records. */
static void build_free(struct build *bd) {
  if (!bd->rr) return;
  for (size_t i = 0; i < (size_t)bd->n * bd->nr; i++) {
    free(bd->rr[i].segs);
    for (int q = 0; q < AR_MAX_GPUS; q++)
      free(bd->rr[i].items[q]);
  }
  free(bd->rr);
}

/* Compiles all ranks; see tp_prog.h. */
static ar_status build_all(struct build *bd) {
  const struct ar_schedule *s = bd->s;
  if (bd->dg && bd->dg->n && bd->mode == TP_MODE_CE_PULL) {
    snprintf(bd->reason, bd->reason_len, "degraded links are not emulated by the ce pull program");
    return AR_ERR_UNSUPPORTED;
  }
  if (bd->dg && bd->dg->n && !(bd->dg->bw > 0)) {
    snprintf(bd->reason, bd->reason_len, "degraded links: the healthy bandwidth is not known");
    return AR_ERR_UNSUPPORTED;
  }
  for (size_t lo = 0; lo < s->nxfers;) {
    size_t hi = lo;
    while (hi < s->nxfers && s->xfers[hi].round == s->xfers[lo].round)
      hi++;
    AR_CHECK(build_round(bd, s->xfers[lo].round, lo, hi));
    lo = hi;
  }
  find_readers(bd);
  /* a ring flagged for pipelining gets the dataflow program; degraded jobs the flow program
   * (its budgets are taken per flow) unless AR_CE_PROGRAM=round */
  if (bd->mode == TP_MODE_CE && (s->flags & AR_SCHED_PIPELINED) && !bd->dg && ring_check(bd)) {
    ring_plan(bd);
    for (int r = 0; r < bd->n; r++)
      AR_CHECK(emit_ce_ring(bd, r));
    return AR_OK;
  }
  int flow = tp_ce_program == 2 || (tp_ce_program == 0 && (bd->dg || s->nprecond > 0));
  if (bd->mode == TP_MODE_CE && flow) {
    ar_status st = tp_flow_build(s, bd->nelem, bd->esize, bd->pipeline, bd->dg, bd->p, bd->reason,
                                 bd->reason_len);
    if (st != AR_ERR_UNSUPPORTED) return st;
    ar_log(AR_LOG_TRACE, "ce: %s: the per-round program: %s", s->algo, bd->reason);
    bd->reason[0] = 0;
    for (int r = 0; r < bd->n; r++) /* start again from an empty program */
      bd->p->rank[r].nops = bd->p->rank[r].nevents = bd->p->rank[r].nstreams = 0;
    bd->p->dataflow = 0;
    bd->p->nslots = 2 * bd->n;
    bd->p->batches_max = 1;
  }
  /* a direct AllReduce gets its dataflow program (its copies serialised into permutations:
   * copy engines pushing to every peer at once lose half their rate) */
  if (bd->mode == TP_MODE_CE && !bd->dg && direct_check(bd)) {
    direct_plan(bd);
    for (int r = 0; r < bd->n; r++)
      AR_CHECK(emit_ce_direct(bd, r));
    return AR_OK;
  }
  if (bd->mode != TP_MODE_SM)
    AR_CHECK(plan_ce(bd));
  else
    plan_sm(bd);
  int most = 1;
  for (int r = 0; r < bd->n; r++)
    for (int k = 0; k < bd->nr; k++) {
      struct rr *x = rr_at(bd, r, k);
      for (int i = 0; i < x->nsrc; i++)
        if (x->nitem[i] + 1 > most) most = x->nitem[i] + 1;
    }
  bd->p->stride = (uint32_t)most + 1;
  bd->p->span = bd->p->stride * (uint32_t)(bd->nr + 1);
  if (bd->mode == TP_MODE_CE_PULL) mark_ce(bd);
  if (bd->mode == TP_MODE_CE) mark_push(bd);
  for (int r = 0; r < bd->n; r++) {
    AR_CHECK(bd->mode == TP_MODE_CE        ? emit_ce_push(bd, r)
             : bd->mode == TP_MODE_CE_PULL ? emit_ce(bd, r)
                                           : emit_sm(bd, r));
    size_t most_scr = 0;
    for (int k = 0; k < bd->nr; k++)
      if (rr_at(bd, r, k)->scratch > most_scr) most_scr = rr_at(bd, r, k)->scratch;
    bd->p->rank[r].scratch_bytes = most_scr;
    if (bd->p->rank[r].nstreams < 1) bd->p->rank[r].nstreams = 1;
  }
  return AR_OK;
}

extern "C" ar_status tp_prog_build(const struct ar_schedule *s, size_t nelem, int esize, int mode,
                                   int pipeline, const struct tp_degrade *dg,
                                   struct tp_prog **out, char *reason, size_t reason_len) {
  *out = NULL;
  if (s->nranks > AR_MAX_GPUS) {
    snprintf(reason, reason_len, "%d ranks: the GPU transports take at most %d", s->nranks,
             AR_MAX_GPUS);
    return AR_ERR_UNSUPPORTED;
  }
  struct build bd;
  memset(&bd, 0, sizeof(bd));
  bd.s = s;
  bd.dg = dg && dg->n > 0 ? dg : NULL;
  bd.n = s->nranks;
  bd.nr = s->nrounds;
  bd.mode = mode;
  bd.esize = esize;
  bd.pipeline = mode == TP_MODE_SM ? 1 : pipeline;
  bd.nelem = nelem;
  bd.reason = reason;
  bd.reason_len = reason_len;
  bd.p = (struct tp_prog *)calloc(1, sizeof(struct tp_prog));
  bd.rr = (struct rr *)calloc((size_t)bd.n * (bd.nr ? bd.nr : 1), sizeof(struct rr));
  if (!bd.p || !bd.rr) {
    free(bd.p);
    free(bd.rr);
    return AR_ERR_NOMEM;
  }
  bd.p->n = bd.n;
  bd.p->mode = mode;
  bd.p->esize = esize;
  bd.p->nelem = nelem;
  bd.p->nrounds = bd.nr;
  bd.p->nslots = 2 * bd.n;
  bd.p->batches_max = 1;
  ar_status st = build_all(&bd);
  build_free(&bd);
  if (st != AR_OK) {
    tp_prog_free(bd.p);
    return st;
  }
  *out = bd.p;
  return AR_OK;
}

extern "C" void tp_prog_free(struct tp_prog *p) {
  if (!p) return;
  for (int r = 0; r < AR_MAX_GPUS; r++)
    free(p->rank[r].ops);
  free(p);
}

extern "C" void tp_prog_round_ends(const struct tp_prog *p, int r, size_t *at) {
  const struct tp_rank_prog *rp = &p->rank[r];
  for (int k = 0; k < p->nrounds; k++)
    at[k] = 0;
  for (size_t i = 0; i < rp->nops; i++) /* a round's ops are contiguous: its last one wins */
    if (rp->ops[i].round >= 0 && rp->ops[i].round < p->nrounds) at[rp->ops[i].round] = i + 1;
  if (p->mode != TP_MODE_SM) return;
  /* sm: the grid barrier opening the next round is where every block is past this one */
  for (int k = 0; k < p->nrounds; k++)
    if (at[k] && at[k] < rp->nops && rp->ops[at[k]].kind == TP_OP_SYNC) at[k]++;
}

extern "C" void tp_prog_print_header(const struct tp_prog *p, FILE *f) {
  fprintf(f, "program: n %d, mode %d, esize %d, nelem %zu, rounds %d, stride %u, span %u, slots %d, "
          "batches %d, dataflow %d, reserves %d\n", p->n, p->mode, p->esize, p->nelem, p->nrounds,
          p->stride, p->span, p->nslots, p->batches_max, p->dataflow, p->reserves);
}

extern "C" void tp_prog_print(const struct tp_prog *p, int r, FILE *f) {
  static const char *const names[] = {"write", "wait",  "copy", "sum",
                                      "record", "waitev", "sync", "stamp", "pace", "reserve"};
  static const char *const bufs[] = {"data", "scr"};
  const struct tp_rank_prog *rp = &p->rank[r];
  fprintf(f, "rank %d: %zu ops, %d streams, %d events, scratch %zu bytes\n", r, rp->nops,
          rp->nstreams, rp->nevents, rp->scratch_bytes);
  for (size_t i = 0; i < rp->nops; i++) {
    const struct tp_op *o = &rp->ops[i];
    fprintf(f, "  r%-3d s%d %-6s", o->round, o->stream, names[o->kind]);
    switch (o->kind) {
    case TP_OP_WRITE_FLAG:
      fprintf(f, " rank %d slot %d = %u%s", o->peer, o->slot, o->val, o->kflag ? " (kernel)" : "");
      break;
    case TP_OP_WAIT_FLAG: fprintf(f, " slot %d >= %u", o->slot, o->val); break;
    case TP_OP_RECORD:
    case TP_OP_WAIT_EVENT: fprintf(f, " ev %d", o->event); break;
    case TP_OP_STAMP: fprintf(f, " t%d", o->tslot[0]); break;
    case TP_OP_PACE:
      fprintf(f, " t%d + %llu ns", o->tslot[0], (unsigned long long)o->ns[0]);
      if (o->tslot[1] >= 0) fprintf(f, ", t%d + %llu ns", o->tslot[1], (unsigned long long)o->ns[1]);
      if (o->tout >= 0) fprintf(f, " -> t%d", o->tout);
      break;
    case TP_OP_RESERVE:
      fprintf(f, " out %llu ns, rank %d in %llu ns -> t%d", (unsigned long long)o->ns[0], o->peer,
              (unsigned long long)o->ns[1], o->tout);
      break;
    case TP_OP_COPY:
    case TP_OP_SUM:
      fprintf(f, " %s%d+%zu <=", bufs[o->dst.buf], o->dst.rank, o->dst.off);
      for (int q = 0; q < o->nsrc; q++)
        fprintf(f, " %s%d+%zu", bufs[o->src[q].buf], o->src[q].rank, o->src[q].off);
      fprintf(f, " (%zu bytes)", o->bytes);
      if (o->blocks) fprintf(f, " blocks %d", o->blocks);
      break;
    default: break;
    }
    fputc('\n', f);
  }
}

extern "C" ar_status tp_job_check(const struct tp_world *w, const struct tp_job *job, char *reason,
                                  size_t reason_len) {
  if (job->sched->nranks != w->n) {
    snprintf(reason, reason_len, "schedule for %d ranks on %d GPUs", job->sched->nranks, w->n);
    return AR_ERR_INVALID;
  }
  if (job->nelem * ar_dtype_size(job->dtype) > w->data_bytes) {
    snprintf(reason, reason_len, "%zu elements exceed the data buffers", job->nelem);
    return AR_ERR_INVALID;
  }
  return AR_OK;
}
