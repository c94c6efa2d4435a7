/* Which program a transport runs for a job (lower_job): the ce transport's flow, dataflow
 * ring, dataflow direct or per-round push program, the sm transport's persistent kernel
 * program or oneshot fast path, or the ll program (its protocol and slice too). The
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

ar_status lower_job(const struct lower_job *job, const struct lower_settings *set,
                    struct tp_prog **out, const char **kind, char *reason, size_t reason_len) {
  *out = NULL;
  const struct ar_transport *t = ar_transport_at(job->transport);
  const struct ar_schedule *s = job->sched;
  const struct tp_degrade *dg = job->dg;
  int degraded = dg && dg->n > 0;
  if (!t) {
    snprintf(reason, reason_len, "no transport %d", job->transport);
    return AR_ERR_INVALID;
  }
  int pipeline = t->pipelines ? job->pipeline : 1;
  switch (t->lowering) {
  case AR_LOWER_NONE:
    if (kind) *kind = "nccl-p2p: per round, grouped sends and receives (p2p_plan.h), no program";
    return AR_OK;
  case AR_LOWER_LL:
    if (kind) *kind = "ll kernel";
    return lower_prog_build(s, job->nelem, job->esize, TP_MODE_LL, 1, dg, set, out, reason,
                         reason_len);
  case AR_LOWER_SM:
    if (lower_sm_oneshot(s, s->nranks, job->nelem * (size_t)job->esize, degraded, set)) {
      if (kind) *kind = "low-latency oneshot kernel";
      return AR_OK;
    }
    if (kind) *kind = "persistent kernel";
    return lower_prog_build(s, job->nelem, job->esize, TP_MODE_SM, 1, dg, set, out, reason,
                         reason_len);
  default: break;
  }
  if ((s->traits & AR_TRAIT_PIPELINED) && pipeline == 1) pipeline = 0;
  ar_status st = lower_prog_build(s, job->nelem, job->esize, TP_MODE_CE, pipeline, dg, set, out,
                               reason, reason_len);
  if (st == AR_OK && kind)
    *kind = (*out)->dataflow == 1   ? "dataflow ring"
            : (*out)->dataflow == 2 ? "dataflow direct"
            : (*out)->dataflow == 3 ? "flow"
                                    : "push";
  return st;
}
