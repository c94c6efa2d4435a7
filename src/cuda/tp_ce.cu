/* TODO: the ce transport (stub until it lands). */
#include <stdio.h>

#include "transport.h"

static ar_status setup(const struct tp_world *w, const struct tp_job *job, struct tp_ctx **ctx,
                       char *reason, size_t reason_len) {
  (void)w;
  (void)job;
  *ctx = NULL;
  snprintf(reason, reason_len, "the ce transport is not implemented yet");
  return AR_ERR_UNSUPPORTED;
}
static ar_status enqueue(struct tp_ctx *ctx, int rank, cudaStream_t stream) {
  (void)ctx;
  (void)rank;
  (void)stream;
  return AR_ERR_UNSUPPORTED;
}
static void teardown(struct tp_ctx *ctx) { (void)ctx; }

extern "C" const struct tp_ops tp_ce = {"ce", setup, enqueue, teardown};
