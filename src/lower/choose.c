/* Which program a transport runs for a job (lower_program): the ce transport's flow, dataflow
 * ring, dataflow direct or per-round push program, or the sm transport's persistent
 * kernel program or low-latency oneshot kernel. `arbench run` (through the transports) and
 * `arbench lower` both ask here, so what lower prints is what runs. */
#include <stdlib.h>
#include <string.h>

#include "lower.h"

/* Tuning from the environment (experiments): AR_CE_RING_BATCH, AR_CE_DIRECT_BATCH and
 * AR_CE_FLOW_BATCH (MiB), AR_CE_RING_STREAMS, AR_FLOW_SUM_BLOCKS, AR_CE_PROGRAM (round, flow),
 * read for every job as the transports did. */
static void read_knobs(void) {
  const char *b = getenv("AR_CE_RING_BATCH"), *st = getenv("AR_CE_RING_STREAMS");
  const char *db = getenv("AR_CE_DIRECT_BATCH");
  if (b && atof(b) > 0) tp_ring_batch_bytes = (size_t)(atof(b) * (1 << 20));
  if (db && atof(db) > 0) tp_direct_batch_bytes = (size_t)(atof(db) * (1 << 20));
  const char *fb = getenv("AR_CE_FLOW_BATCH"), *prog = getenv("AR_CE_PROGRAM");
  if (fb && atof(fb) > 0) tp_flow_batch_bytes = (size_t)(atof(fb) * (1 << 20));
  const char *fsb = getenv("AR_FLOW_SUM_BLOCKS");
  if (fsb && atoi(fsb) > 0) tp_flow_sum_blocks = atoi(fsb);
  tp_ce_program = !prog ? 0 : !strcmp(prog, "flow") ? 2 : !strcmp(prog, "round") ? 1 : 0;
  if (st && atoi(st) > 0) tp_ring_streams = atoi(st);
}

int lower_ll_eligible(const struct ar_schedule *s, int n, size_t bytes, int degraded) {
  if (degraded || n < 2 || n > AR_MAX_GPUS) return 0;
  const char *env = getenv("AR_LL_MAX_BYTES");
  size_t most = env && *env ? strtoull(env, NULL, 0) : LOWER_LL_MAX_BYTES / (size_t)(n - 1);
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
  read_knobs();
  int degraded = dg && dg->n > 0;
  if (transport == LOWER_SM) {
    if (lower_ll_eligible(s, s->nranks, nelem * (size_t)esize, degraded)) {
      if (kind) *kind = "low-latency oneshot kernel";
      return AR_OK;
    }
    if (kind) *kind = "persistent kernel";
    return tp_prog_build(s, nelem, esize, TP_MODE_SM, 1, dg, out, reason, reason_len);
  }
  if ((s->flags & AR_SCHED_PIPELINED) && pipeline == 1) pipeline = 0;
  ar_status st = tp_prog_build(s, nelem, esize, TP_MODE_CE, pipeline, dg, out, reason, reason_len);
  if (st == AR_OK && kind)
    *kind = (*out)->dataflow == 1   ? "dataflow ring"
            : (*out)->dataflow == 2 ? "dataflow direct"
            : (*out)->dataflow == 3 ? "flow"
                                    : "push";
  return st;
}
