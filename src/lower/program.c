/* The lowering's entry points (lower.h): the program builders the strategies share, the
 * preparation every program starts from, the per-round program, printing; which program a job
 * gets is choose.c's table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"


/* Returns the rank-round record. */
struct rr *lower_rr_at(struct build *bd, int r, int k) {
  return &bd->rr[(size_t)r * bd->nr + k];
}

/* Returns the index of src in rr's sources, or -1. */
int lower_src_index(const struct rr *x, int src) {
  for (int i = 0; i < x->nsrc; i++)
    if (x->srcs[i] == src) return i;
  return -1;
}

/* Returns AR_ERR_UNSUPPORTED with the reason filled in. */
ar_status lower_fail(struct build *bd, const char *msg, int k, int r, int c) {
  snprintf(bd->reason, bd->reason_len, "round %d, rank %d, chunk %d: %s", k, r, c, msg);
  return AR_ERR_UNSUPPORTED;
}

/* Appends an op to rank r's program; returns AR_OK or AR_ERR_NOMEM. */
ar_status lower_emit(struct tp_prog *p, int r, const struct tp_op *op) {
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

/* Returns a zeroed op of the given kind on a stream. */
struct tp_op lower_op_new(int kind, int stream, int round) {
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

/* Returns a buffer reference. */
struct tp_ref lower_ref(int buf, int rank, size_t off) {
  struct tp_ref x = {buf, rank, off};
  return x;
}

/* Scratch offsets are co-aligned with the data offset modulo 256 bytes so that the sum kernel
 * can use 16-byte vectors; returns the offset for a region of `bytes` and advances *cursor. */
size_t lower_scratch_take(size_t *cursor, size_t data_off, size_t bytes) {
  size_t base = (*cursor + 255) & ~(size_t)255;
  size_t off = base + data_off % 256;
  *cursor = off + bytes;
  return off;
}

/* Number of mini-batches for a segment that the ce main stream writes. */
/* The automatic count for an AllReduce of `bytes` from TP_AUTO_MEASURED up, the same in every
 * round: rhd and swing-bw on ce, 4 x H200, 64 MiB..8 GiB, 1, 2, 3, 4, 6 and 8 mini-batches in
 * host, graph and events timing (runs/reference/h200x4-round-batches). The best count grows
 * with size (3 from 128 MiB, 4 from 1 GiB, 6 at 4 GiB, 8 at 8 GiB); 2 was never better than 1,
 * and 1 was best at 64 MiB. */
static size_t batches_measured(size_t bytes) {
  if (bytes < (128u << 20)) return 1;
  if (bytes < (1ull << 30)) return 3;
  if (bytes < (4ull << 30)) return 4;
  if (bytes < (8ull << 30)) return 6;
  return 8;
}

int lower_batches_for(const struct build *bd, size_t len) {
  size_t units = (len + TP_UNIT - 1) / TP_UNIT;
  size_t nb;
  size_t bytes = bd->nelem * (size_t)bd->esize;
  if (bd->pipeline > 0)
    nb = (size_t)bd->pipeline;
  else if (bytes >= TP_AUTO_MEASURED)
    nb = batches_measured(bytes);
  else {
    nb = len * (size_t)bd->esize /
         (bd->set->auto_batch_bytes ? bd->set->auto_batch_bytes : TP_AUTO_BATCH);
    if (nb > TP_AUTO_MAX) nb = TP_AUTO_MAX;
  }
  if (nb > units) nb = units;
  return nb < 1 ? 1 : (int)nb;
}

/* Element range of batch j of nb over [b, e): boundaries on TP_UNIT multiples. */
void lower_batch_range(size_t b, size_t e, int nb, int j, size_t *lo, size_t *hi) {
  size_t units = (e - b + TP_UNIT - 1) / TP_UNIT;
  size_t u0 = units * (size_t)j / (size_t)nb, u1 = units * (size_t)(j + 1) / (size_t)nb;
  *lo = b + u0 * TP_UNIT;
  *hi = b + u1 * TP_UNIT;
  if (*lo > e) *lo = e;
  if (*hi > e || j == nb - 1) *hi = e;
}

/* Builds the segments of every rank in round k from the transfers [lo, hi). */

static void build_free(struct build *bd) {
  if (!bd->rr) return;
  for (size_t i = 0; i < (size_t)bd->n * bd->nr; i++) {
    free(bd->rr[i].segs);
    for (int q = 0; q < AR_MAX_GPUS; q++)
      free(bd->rr[i].items[q]);
  }
  free(bd->rr);
}

/* Every rank's segments of every round (lower_build_round). */
static ar_status build_rounds(struct build *bd) {
  const struct ar_schedule *s = bd->s;
  for (size_t lo = 0; lo < s->nxfers;) {
    size_t hi = lo;
    while (hi < s->nxfers && s->xfers[hi].round == s->xfers[lo].round)
      hi++;
    AR_CHECK(lower_build_round(bd, s->xfers[lo].round, lo, hi));
    lo = hi;
  }
  return AR_OK;
}

/* What every program of the mode is emitted from: every rank's segments of every round and,
 * for ce and sm, who reads them (degraded jobs need the healthy rate to pace against). */
static ar_status prepare(struct build *bd) {
  if (bd->mode != TP_MODE_LL && bd->dg && !(bd->dg->bw > 0)) {
    snprintf(bd->reason, bd->reason_len, "degraded links: the healthy bandwidth is not known");
    return AR_ERR_UNSUPPORTED;
  }
  AR_CHECK(build_rounds(bd));
  if (bd->mode != TP_MODE_LL) lower_find_readers(bd);
  return AR_OK;
}

void lower_prog_reset(struct build *bd) {
  for (int r = 0; r < bd->n; r++) /* start again from an empty program */
    bd->p->rank[r].nops = bd->p->rank[r].nevents = bd->p->rank[r].nstreams = 0;
  bd->p->dataflow = 0;
  bd->p->nslots = 2 * bd->n;
  bd->p->batches_max = 1;
}

ar_status lower_emit_rounds(struct build *bd) {
  if (bd->mode != TP_MODE_SM)
    AR_CHECK(lower_plan_ce(bd));
  else
    lower_plan_sm(bd);
  int most = 1;
  for (int r = 0; r < bd->n; r++)
    for (int k = 0; k < bd->nr; k++) {
      struct rr *x = lower_rr_at(bd, r, k);
      for (int i = 0; i < x->nsrc; i++)
        if (x->nitem[i] + 1 > most) most = x->nitem[i] + 1;
    }
  bd->p->stride = (uint32_t)most + 1;
  bd->p->span = bd->p->stride * (uint32_t)(bd->nr + 1);
  if (bd->mode == TP_MODE_CE) lower_mark_push(bd);
  for (int r = 0; r < bd->n; r++) {
    AR_CHECK(bd->mode == TP_MODE_CE ? lower_emit_ce_push(bd, r) : lower_emit_sm(bd, r));
    size_t most_scr = 0;
    for (int k = 0; k < bd->nr; k++)
      if (lower_rr_at(bd, r, k)->scratch > most_scr) most_scr = lower_rr_at(bd, r, k)->scratch;
    bd->p->rank[r].scratch_bytes = most_scr;
    if (bd->p->rank[r].nstreams < 1) bd->p->rank[r].nstreams = 1;
  }
  return AR_OK;
}

ar_status lower_prog_build(const struct ar_schedule *s, size_t nelem, int esize, int mode,
                        int pipeline, const struct tp_degrade *dg,
                        const struct lower_settings *set, struct tp_prog **out, char *reason,
                        size_t reason_len) {
  *out = NULL;
  struct lower_settings builtin;
  if (!set) {
    lower_settings_default(&builtin);
    set = &builtin;
  }
  if (s->nranks > AR_MAX_GPUS) {
    snprintf(reason, reason_len, "%d ranks: the GPU transports take at most %d", s->nranks,
             AR_MAX_GPUS);
    return AR_ERR_UNSUPPORTED;
  }
  struct build bd;
  memset(&bd, 0, sizeof(bd));
  bd.s = s;
  bd.dg = dg && dg->n > 0 ? dg : NULL;
  bd.set = set;
  bd.n = s->nranks;
  bd.nr = s->nrounds;
  bd.mode = mode;
  bd.esize = esize;
  bd.pipeline = mode == TP_MODE_CE ? pipeline : 1;
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
  ar_status st = prepare(&bd);
  if (st == AR_OK) st = lower_choose_program(&bd); /* choose.c: the lowering's table */
  build_free(&bd);
  if (st != AR_OK) {
    lower_prog_free(bd.p);
    return st;
  }
  *out = bd.p;
  return AR_OK;
}

void lower_prog_free(struct tp_prog *p) {
  if (!p) return;
  for (int r = 0; r < AR_MAX_GPUS; r++)
    free(p->rank[r].ops);
  free(p);
}

void lower_prog_round_ends(const struct tp_prog *p, int r, size_t *at) {
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

void lower_prog_print_header(const struct tp_prog *p, FILE *f) {
  fprintf(f, "program: n %d, mode %d, esize %d, nelem %zu, rounds %d, stride %u, span %u, slots %d, "
          "batches %d, dataflow %d, reserves %d\n", p->n, p->mode, p->esize, p->nelem, p->nrounds,
          p->stride, p->span, p->nslots, p->batches_max, p->dataflow, p->reserves);
  if (p->mode == TP_MODE_LL) {
    static const char *const protos[] = {"lines", "lines128", "signals"};
    int pr = p->ll_protocol;
    fprintf(f, "ll: protocol %s, slice %zu bytes, %zu in a slot, forward %s\n",
            pr >= 0 && pr < 3 ? protos[pr] : "?", p->ll_slice, p->ll_slot,
            p->ll_forward ? "on" : "off");
  }
}

void lower_prog_print(const struct tp_prog *p, int r, FILE *f) {
  static const char *const names[] = {"write", "wait",  "copy", "sum",
                                      "record", "waitev", "sync", "stamp", "pace", "reserve",
                                      "put",   "take"};
  static const char *const bufs[] = {"data", "scr"};
  const struct tp_rank_prog *rp = &p->rank[r];
  fprintf(f, "rank %d: %zu ops, %d streams, %d events, scratch %zu bytes", r, rp->nops,
          rp->nstreams, rp->nevents, rp->scratch_bytes);
  if (p->mode == TP_MODE_LL) fprintf(f, ", %zu flag words", rp->ll_flags);
  fputc('\n', f);
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
    case TP_OP_PUT:
    case TP_OP_TAKE:
      fprintf(f, " %s%d+%zu <=", bufs[o->dst.buf], o->dst.rank, o->dst.off);
      for (int q = 0; q < o->nsrc; q++)
        fprintf(f, " %s%d+%zu", bufs[o->src[q].buf], o->src[q].rank, o->src[q].off);
      fprintf(f, " (%zu bytes)", o->bytes);
      if (o->blocks) fprintf(f, " blocks %d", o->blocks);
      if (o->kind == TP_OP_PUT || o->kind == TP_OP_TAKE) {
        int q0 = o->kind == TP_OP_TAKE && o->nsrc > 0 && o->src[0].buf == TP_BUF_DATA;
        fprintf(f, " flag %d, words", o->slot);
        for (int q = q0; q < (o->kind == TP_OP_PUT ? 1 : o->nsrc); q++)
          fprintf(f, " %zu", o->ll_flag[q]);
        int fwd = lower_ll_forwards(p, r, i);
        if (fwd) fprintf(f, "; forwards %d", fwd);
      }
      break;
    default: break;
    }
    fputc('\n', f);
  }
}
