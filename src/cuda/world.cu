/* The world helpers of transport.h and world.h: physical GPUs, SM shares, and the
 * collective calls that reach the other processes of an MPI job (tp_peers), which in a
 * one-process world (peers == NULL) do nothing. */
#include <stdlib.h>
#include <string.h>

#include "placement.h"
#include "world.h"

extern "C" int tp_sm_count(void) {
  static int cache[64];
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) return 132;
  if (!cache[dev]) {
    int v = 0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || v < 1)
      v = 132;
    cache[dev] = v; /* benign race: every thread stores the same value */
  }
  return cache[dev];
}

extern "C" int tp_wait_sms(const struct tp_world *w, int r) {
  return w->sms[r] > 0 ? w->sms[r] : tp_sm_count();
}

extern "C" int tp_same_gpu(const struct tp_world *w, int a, int b) {
  return w->peers ? w->gpu[a] == w->gpu[b] : w->dev[a] == w->dev[b];
}

extern "C" int tp_colocated(const struct tp_world *w, int r) {
  for (int q = 0; q < w->n; q++)
    if (q != r && tp_same_gpu(w, q, r)) return 1;
  return 0;
}

extern "C" ar_status tp_share(const struct tp_world *w, void **ptr, ar_status st) {
  return w->peers ? w->peers->share(w->peers->ctx, ptr, st) : st;
}

extern "C" void tp_unshare(const struct tp_world *w, void **ptr) {
  if (w->peers) w->peers->unshare(w->peers->ctx, ptr);
}

extern "C" ar_status tp_bcast(const struct tp_world *w, void *buf, size_t len, int root) {
  return w->peers ? w->peers->bcast(w->peers->ctx, buf, len, root) : AR_OK;
}

extern "C" ar_status tp_agree(const struct tp_world *w, ar_status st) {
  void *none[AR_MAX_GPUS] = {0};
  return tp_share(w, none, st);
}

extern "C" void *tp_ctx_alloc(size_t size, void *spare, ar_status *st) {
  void *c = calloc(1, size);
  if (c) return c;
  *st = AR_ERR_NOMEM;
  return memset(spare, 0, size);
}

extern "C" void tp_world_share(struct tp_world *w) {
  struct ar_placement p;
  ar_place(&p, w->dev, w->n);
  for (int r = 0; r < w->n; r++) {
    int v = 0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, w->dev[r]) != cudaSuccess ||
        v < 1)
      v = 132;
    w->sms[r] = ar_place_sms(&p, r, v);
  }
}

extern "C" ar_status tp_peer_on(int dev) {
  int cur = -1;
  CUDA_CHECK(cudaGetDevice(&cur));
  if (cur == dev) return AR_OK;
  cudaError_t e = cudaDeviceEnablePeerAccess(dev, 0);
  if (e == cudaErrorPeerAccessAlreadyEnabled) {
    (void)cudaGetLastError();
    return AR_OK;
  }
  CUDA_CHECK(e);
  return AR_OK;
}

extern "C" ar_status tp_each_local(const struct tp_world *w, ar_status (*fn)(struct tp_ctx *, int),
                                   struct tp_ctx *ctx, ar_status st) {
  for (int r = 0; st == AR_OK && r < w->n; r++)
    if (!w->remote[r]) st = fn(ctx, r);
  for (int r = 0; st == AR_OK && r < w->n; r++)
    if (!w->remote[r] &&
        (cudaSetDevice(w->dev[r]) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess))
      st = AR_ERR_CUDA;
  return st;
}
