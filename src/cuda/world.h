/* What a transport asks of its world (transport.h, struct tp_world) beyond tp_share, tp_unshare
 * and tp_bcast: which ranks share a physical GPU, their SM shares, an agreement on a status
 * among the processes of an MPI job. Implemented in world.cu. */
#ifndef TP_WORLD_H
#define TP_WORLD_H

#include "transport.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Streaming multiprocessors of the current device (cached). */
int tp_sm_count(void);
/* The SMs rank r's waiting kernels may occupy: w->sms[r], or the whole device when unset. */
int tp_wait_sms(const struct tp_world *w, int r);
/* 1 when another rank of w shares rank r's physical GPU (tp_same_gpu). */
int tp_colocated(const struct tp_world *w, int r);
/* Fills w->sms from w->dev (a tool or self-test that builds its own one-process world; the
 * harness sets the same shares itself). */
void tp_world_share(struct tp_world *w);
/* The worst of st over all processes (collective, like tp_share; st itself in a one-process
 * world): a share of nothing, so it maps nothing and needs no tp_unshare. For a setup whose
 * last local failure comes after its last share. */
ar_status tp_agree(const struct tp_world *w, ar_status st);
/* A zeroed transport context of size bytes: calloc'd, or, when that fails, spare (zeroed,
 * *st = AR_ERR_NOMEM), so that a setup still makes its collective calls with the failure. */
void *tp_ctx_alloc(size_t size, void *spare, ar_status *st);
/* Runs fn(ctx, r) for every rank of this process while st is AR_OK, then waits for their
 * devices; returns the status (a transport's setup, rank by rank). */
ar_status tp_each_local(const struct tp_world *w, ar_status (*fn)(struct tp_ctx *, int),
                        struct tp_ctx *ctx, ar_status st);
/* Enables peer access from the current device to dev; already enabled is fine, and so is dev
 * itself (co-located ranks copy within one device). */
ar_status tp_peer_on(int dev);

#ifdef __cplusplus
}
#endif
#endif
