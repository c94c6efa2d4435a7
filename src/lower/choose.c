/* Which program a transport runs for a job: the one table of the lowering (`lowerings`
 * below), walked by lower_job for the transport and by lower_prog_build for the program. The
 * transports' setups (src/cuda, the simulator's fake GPU) and `arbench lower` all ask here,
 * so what lower prints is what runs. */
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "settings.h"

void lower_settings_default(struct lower_settings *set) {
  memset(set, 0, sizeof(*set));
  set->ce_program = 0;
  set->auto_batch_bytes = TP_AUTO_BATCH;
  set->ring_batch_bytes = TP_RING_BATCH;
  set->ring_streams = TP_RING_STREAMS;
  set->direct_batch_bytes = TP_DIRECT_BATCH;
  set->flow_batch_bytes = TP_FLOW_BATCH;
  set->flow_sum_blocks = TP_FLOW_SUM_BLOCKS;
  set->ll_protocol = TP_LL_AUTO;
  set->ll_lines_max = 256u << 10;
  set->ll_slice = 0;
  set->ll_forward = 1;
  set->sm_oneshot_max_bytes = 0;
}

void lower_settings_of(struct lower_settings *set, const struct ar_settings *s) {
  lower_settings_default(set);
  set->ce_program = (int)ar_setting_value(s, AR_SET_CE_PROGRAM); /* 0 auto, 1 round, 2 flow */
  set->ring_batch_bytes = (size_t)ar_setting_value(s, AR_SET_CE_RING_BATCH);
  set->ring_streams = (int)ar_setting_value(s, AR_SET_CE_RING_STREAMS);
  set->direct_batch_bytes = (size_t)ar_setting_value(s, AR_SET_CE_DIRECT_BATCH);
  set->flow_batch_bytes = (size_t)ar_setting_value(s, AR_SET_CE_FLOW_BATCH);
  set->flow_sum_blocks = (int)ar_setting_value(s, AR_SET_CE_FLOW_SUM_BLOCKS);
  set->ll_protocol = (int)ar_setting_value(s, AR_SET_LL_PROTOCOL) - 1; /* auto, lines, lines128, signals */
  set->ll_lines_max = (size_t)ar_setting_value(s, AR_SET_LL_LINES_MAX);
  size_t sb = (size_t)ar_setting_value(s, AR_SET_LL_SLICE); /* 0: by size (ll.c) */
  set->ll_slice = sb / 512 * 512;                  /* the kernel's pieces */
  if (sb && !set->ll_slice) set->ll_slice = 512;
  set->ll_forward = (int)ar_setting_value(s, AR_SET_LL_FORWARD);
  set->sm_oneshot_max_bytes = (size_t)ar_setting_value(s, AR_SET_SM_ONESHOT_MAX_BYTES);
}

int lower_sm_oneshot(const struct ar_schedule *s, int n, size_t bytes, int degraded,
                     const struct lower_settings *set) {
  if (degraded || n < 2 || n > AR_MAX_GPUS) return 0;
  size_t most = set->sm_oneshot_max_bytes;
  if (!most) most = LOWER_LL_MAX_BYTES / (size_t)(n - 1);
  if (bytes > most) return 0;
  if (s->nranks != n || s->nrounds != 1 || s->nprecond || s->nchunks != 1) return 0;
  if (s->nxfers != (size_t)n * (n - 1)) return 0;
  unsigned char seen[AR_MAX_GPUS][AR_MAX_GPUS] = {{0}};
  for (size_t i = 0; i < s->nxfers; i++) {
    const struct ar_xfer *x = &s->xfers[i];
    if (x->op != AR_REDUCE || x->chunk != 0 || x->count != 1 || x->src == x->dst ||
        x->src < 0 || x->src >= n || x->dst < 0 || x->dst >= n || seen[x->src][x->dst])
      return 0;
    seen[x->src][x->dst] = 1;
  }
  return 1;
}

/* ---- the rows' tests and emitters ---- */

/* the oneshot kernel's structure and size, healthy links (lower_sm_oneshot) */
static int job_oneshot(const struct lower_job *job, const struct lower_settings *set) {
  int degraded = job->dg && job->dg->n > 0;
  return lower_sm_oneshot(job->sched, job->sched->nranks, job->nelem * (size_t)job->esize,
                          degraded, set);
}

/* a ring flagged for pipelining, healthy links (lower_ring_check) */
static int fits_ring(struct build *bd) {
  return (bd->s->traits & AR_TRAIT_PIPELINED) && !bd->dg && lower_ring_check(bd);
}

/* asked for (ce.program=flow), or by default where the flow program's per-flow budgets or
 * preconditions are needed: degraded links, a schedule with preconditions */
static int fits_flow(struct build *bd) {
  int cp = bd->set->ce_program; /* 0 auto, 1 round, 2 flow */
  return cp == 2 || (cp == 0 && (bd->dg || bd->s->nprecond > 0));
}

/* a direct AllReduce, healthy links (lower_direct_check) */
static int fits_direct(struct build *bd) { return !bd->dg && lower_direct_check(bd); }

static ar_status emit_ring(struct build *bd) {
  lower_ring_plan(bd);
  for (int r = 0; r < bd->n; r++)
    AR_CHECK(lower_emit_ce_ring(bd, r));
  return AR_OK;
}

static ar_status emit_flow(struct build *bd) {
  return lower_flow_build(bd->s, bd->nelem, bd->esize, bd->pipeline, bd->dg, bd->set, bd->p,
                          bd->reason, bd->reason_len);
}

/* its copies serialised into permutations: copy engines pushing to every peer at once lose
 * half their rate */
static ar_status emit_direct(struct build *bd) {
  lower_direct_plan(bd);
  for (int r = 0; r < bd->n; r++)
    AR_CHECK(lower_emit_ce_direct(bd, r));
  return AR_OK;
}

/* ---- the table ---- */

/* Per transport lowering (src/transports.h), its rows in the order tried; the first whose
 * test holds (none: always) is the job's. A row without a program (mode -1) is run by the
 * executor's own path and is tested on the job alone; a program row is tested on the
 * prepared build (lower_prog_build: rounds built, readers found) and emitted. A row that may
 * decline gives way to the next when its emitter says AR_ERR_UNSUPPORTED. */
static const struct lowering {
  int lowering, mode; /* AR_LOWER_*; TP_MODE_* of its program, -1: none */
  const char *kind;   /* what `arbench lower` says */
  int (*job_fits)(const struct lower_job *job, const struct lower_settings *set);
  int (*fits)(struct build *bd);
  ar_status (*emit)(struct build *bd);
  int may_decline;
} lowerings[] = {
    {AR_LOWER_NONE, -1, "nccl-p2p: per round, grouped sends and receives (p2p_plan.h), no program",
     NULL, NULL, NULL, 0},
    {AR_LOWER_LL, TP_MODE_LL, "ll kernel", NULL, NULL, lower_emit_ll, 0},
    {AR_LOWER_SM, -1, "low-latency oneshot kernel", job_oneshot, NULL, NULL, 0},
    {AR_LOWER_SM, TP_MODE_SM, "persistent kernel", NULL, NULL, lower_emit_rounds, 0},
    {AR_LOWER_CE, TP_MODE_CE, "dataflow ring", NULL, fits_ring, emit_ring, 0},
    {AR_LOWER_CE, TP_MODE_CE, "flow", NULL, fits_flow, emit_flow, 1},
    {AR_LOWER_CE, TP_MODE_CE, "dataflow direct", NULL, fits_direct, emit_direct, 0},
    {AR_LOWER_CE, TP_MODE_CE, "push", NULL, NULL, lower_emit_rounds, 0},
};
#define NLOWERINGS (sizeof(lowerings) / sizeof(lowerings[0]))

ar_status lower_choose_program(struct build *bd) {
  for (size_t i = 0; i < NLOWERINGS; i++) {
    const struct lowering *w = &lowerings[i];
    if (w->mode != bd->mode || (w->fits && !w->fits(bd))) continue;
    ar_status st = w->emit(bd);
    if (st == AR_ERR_UNSUPPORTED && w->may_decline) {
      ar_log(AR_LOG_TRACE, "%s: %s: not the %s program: %s", bd->mode == TP_MODE_CE ? "ce" : "sm",
             bd->s->algo, w->kind, bd->reason);
      lower_prog_reset(bd);
      continue;
    }
    if (st == AR_OK) bd->p->kind = w->kind;
    return st;
  }
  snprintf(bd->reason, bd->reason_len, "no program of the lowering's table fits");
  return AR_ERR_UNSUPPORTED;
}

ar_status lower_job(const struct lower_job *job, const struct lower_settings *set,
                    struct tp_prog **out, const char **kind, char *reason, size_t reason_len) {
  *out = NULL;
  const struct ar_transport *t = ar_transport_at(job->transport);
  const struct ar_schedule *s = job->sched;
  if (!t) {
    snprintf(reason, reason_len, "no transport %d", job->transport);
    return AR_ERR_INVALID;
  }
  int pipeline = t->pipelines ? job->pipeline : 1;
  if ((s->traits & AR_TRAIT_PIPELINED) && pipeline == 1) pipeline = 0;
  for (size_t i = 0; i < NLOWERINGS; i++) {
    const struct lowering *w = &lowerings[i];
    if (w->lowering != (int)t->lowering) continue;
    if (w->mode < 0) { /* no program: the executor's own path */
      if (w->job_fits && !w->job_fits(job, set)) continue;
      if (kind) *kind = w->kind;
      return AR_OK;
    }
    /* the first program row: lower_prog_build walks this mode's rows */
    ar_status st = lower_prog_build(s, job->nelem, job->esize, w->mode, pipeline, job->dg, set,
                                    out, reason, reason_len);
    if (st == AR_OK && kind) *kind = (*out)->kind;
    return st;
  }
  snprintf(reason, reason_len, "transport %s: no row of the lowering's table", t->name);
  return AR_ERR_INVALID;
}
