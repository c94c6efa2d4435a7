/* Which program a transport runs for a job (lower_program): the ce transport's flow, dataflow
 * ring, dataflow direct or per-round push program, the sm transport's persistent kernel
 * program or low-latency oneshot kernel, or the ll program (its protocol and slice too).
 * `arbench run` (through the transports) and `arbench lower` both ask here, so what lower
 * prints is what runs. */
#include <stdlib.h>
#include <string.h>

#include "lower.h"
#include "settings.h"

/* The lowering's settings in effect (settings.h), read for every job. */
static void read_settings(void) {
  tp_ce_program = (int)ar_setting(AR_SET_CE_PROGRAM); /* 0 auto, 1 round, 2 flow */
  tp_ring_batch_bytes = (size_t)ar_setting(AR_SET_CE_RING_BATCH);
  tp_ring_streams = (int)ar_setting(AR_SET_CE_RING_STREAMS);
  tp_direct_batch_bytes = (size_t)ar_setting(AR_SET_CE_DIRECT_BATCH);
  tp_flow_batch_bytes = (size_t)ar_setting(AR_SET_CE_FLOW_BATCH);
  tp_flow_sum_blocks = (int)ar_setting(AR_SET_CE_FLOW_SUM_BLOCKS);
  tp_ll_protocol = (int)ar_setting(AR_SET_LL_PROTOCOL) - 1; /* auto, lines, lines128, signals */
  tp_ll_lines_max = (size_t)ar_setting(AR_SET_LL_LINES_MAX);
  size_t sb = (size_t)ar_setting(AR_SET_LL_SLICE); /* 0: by size (ll.c) */
  tp_ll_slice = sb / 512 * 512;                   /* the kernel's pieces */
  if (sb && !tp_ll_slice) tp_ll_slice = 512;
  tp_ll_forward = (int)ar_setting(AR_SET_LL_FORWARD);
}

int lower_ll_eligible(const struct ar_schedule *s, int n, size_t bytes, int degraded) {
  if (degraded || n < 2 || n > AR_MAX_GPUS) return 0;
  size_t most = (size_t)ar_setting(AR_SET_SM_LL_MAX_BYTES);
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

ar_status lower_program(int transport, const struct ar_schedule *s, size_t nelem, int esize,
                        int pipeline, const struct tp_degrade *dg, struct tp_prog **out,
                        const char **kind, char *reason, size_t reason_len) {
  *out = NULL;
  read_settings();
  int degraded = dg && dg->n > 0;
  if (transport == LOWER_LL) {
    if (kind) *kind = "ll kernel";
    return tp_prog_build(s, nelem, esize, TP_MODE_LL, 1, dg, out, reason, reason_len);
  }
  if (transport == LOWER_SM) {
    if (lower_ll_eligible(s, s->nranks, nelem * (size_t)esize, degraded)) {
      if (kind) *kind = "low-latency oneshot kernel";
      return AR_OK;
    }
    if (kind) *kind = "persistent kernel";
    return tp_prog_build(s, nelem, esize, TP_MODE_SM, 1, dg, out, reason, reason_len);
  }
  if ((ar_sched_traits(s) & AR_TRAIT_PIPELINED) && pipeline == 1) pipeline = 0;
  ar_status st = tp_prog_build(s, nelem, esize, TP_MODE_CE, pipeline, dg, out, reason, reason_len);
  if (st == AR_OK && kind)
    *kind = (*out)->dataflow == 1   ? "dataflow ring"
            : (*out)->dataflow == 2 ? "dataflow direct"
            : (*out)->dataflow == 3 ? "flow"
                                    : "push";
  return st;
}
