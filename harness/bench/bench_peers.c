/* The ranks of other processes (MPI): their data buffers and events, and the allocations a
 * transport shares, mapped into this process by CUDA IPC (struct tp_peers of transport.h);
 * and the results of a job gathered to every process. Every function here is collective and
 * runs on the lead thread of each process (bench.c). */
#include "bench/bench_int.h"
#include "procs/procs.h"

/* One process's contribution to a share: its status and each of its ranks' handles. */
struct share_msg {
  int st;
  int have[HX_MAX_DEVS];
  cudaIpcMemHandle_t h[HX_MAX_DEVS];
};

struct event_msg {
  cudaIpcEventHandle_t ready[HX_MAX_DEVS], finished[HX_MAX_DEVS];
  size_t cap[HX_MAX_DEVS];
};

static int proc_of(const struct bench *b, int r) { return r / b->nlocal; }

/* Closes the mappings of other processes' ranks in ptr. */
static void close_remote(struct bench *b, void **ptr) {
  for (int q = 0; q < b->n; q++)
    if (b->rk[q].remote && ptr[q]) {
      cudaError_t e = cudaIpcCloseMemHandle(ptr[q]);
      if (e != cudaSuccess)
        ar_log(AR_LOG_WARN, "rank %d's memory: cudaIpcCloseMemHandle: %s", q,
               cudaGetErrorString(e));
      ptr[q] = NULL;
    }
}

static ar_status peer_share(void *ctx, void **ptr, ar_status st) {
  struct bench *b = ctx;
  int np = hx_procs_count(), G = b->nlocal;
  struct share_msg mine, *all = calloc((size_t)np, sizeof(*all));
  memset(&mine, 0, sizeof(mine));
  mine.st = st;
  for (int j = 0; j < G && mine.st == AR_OK; j++) {
    struct rank *R = &b->rk[b->first + j];
    if (!ptr[R->rank]) continue;
    mine.have[j] = 1;
    cudaError_t e = cudaSetDevice(R->dev);
    if (e == cudaSuccess) e = cudaIpcGetMemHandle(&mine.h[j], ptr[R->rank]);
    if (e != cudaSuccess) {
      ar_log(AR_LOG_WARN, "rank %d: cudaIpcGetMemHandle: %s", R->rank, cudaGetErrorString(e));
      mine.st = AR_ERR_CUDA;
    }
  }
  if (!all || hx_procs_allgather(&mine, all, sizeof(mine))) hx_procs_abort(1);
  ar_status res = AR_OK; /* the first process's failure, the same answer everywhere */
  for (int p = 0; p < np && res == AR_OK; p++) res = (ar_status)all[p].st;
  if (res == AR_OK) {
    int err = cudaSetDevice(b->rk[b->first].dev) != cudaSuccess;
    for (int q = 0; q < b->n && !err; q++) {
      int p = proc_of(b, q), j = q - p * G;
      if (!b->rk[q].remote || b->rk[q].host != b->rk[b->first].host || !all[p].have[j])
        continue; /* another host's memory stays out of reach (ce, sm and ll are n/a there) */
      cudaError_t e = cudaIpcOpenMemHandle(&ptr[q], all[p].h[j], cudaIpcMemLazyEnablePeerAccess);
      if (e != cudaSuccess) {
        ar_log(AR_LOG_WARN, "rank %d's memory: cudaIpcOpenMemHandle: %s", q,
               cudaGetErrorString(e));
        ptr[q] = NULL;
        err = 1;
      }
    }
    if (hx_procs_barrier(err)) { /* all map, or none does */
      close_remote(b, ptr);
      res = AR_ERR_CUDA;
    }
  }
  free(all);
  return res;
}

static void peer_unshare(void *ctx, void **ptr) {
  struct bench *b = ctx;
  close_remote(b, ptr);
  hx_procs_barrier(0); /* every mapping is gone: the owners may free */
}

static ar_status peer_bcast(void *ctx, void *buf, size_t len, int root) {
  struct bench *b = ctx;
  return hx_procs_bcast(buf, len, proc_of(b, root)) ? AR_ERR_CUDA : AR_OK;
}

/* After every rank's rank_init: the smallest data buffer of all, and every other process's
 * buffers and events mapped here; 0 or 1 (the same on every process). */
int peers_open(struct bench *b) {
  b->peers = (struct tp_peers){b, peer_share, peer_unshare, peer_bcast};
  if (!b->procs) return 0;
  int np = hx_procs_count(), G = b->nlocal, err = 0;
  struct event_msg mine, *all = calloc((size_t)np, sizeof(*all));
  memset(&mine, 0, sizeof(mine));
  for (int j = 0; j < G; j++) {
    struct rank *R = &b->rk[b->first + j];
    mine.cap[j] = R->cap;
    if (cudaSetDevice(R->dev) != cudaSuccess ||
        cudaIpcGetEventHandle(&mine.ready[j], R->ready) != cudaSuccess ||
        cudaIpcGetEventHandle(&mine.finished[j], R->finished) != cudaSuccess)
      err = rank_fail(R, "rank %d: cudaIpcGetEventHandle: %s", R->rank,
                      cudaGetErrorString(cudaGetLastError()));
  }
  if (!all || hx_procs_allgather(&mine, all, sizeof(mine))) hx_procs_abort(1);
  cudaSetDevice(b->rk[b->first].dev);
  for (int q = 0; q < b->n; q++) {
    struct rank *Q = &b->rk[q];
    int p = proc_of(b, q), j = q - p * G;
    Q->cap = all[p].cap[j];
    if (!Q->remote || Q->host != b->rk[b->first].host || err) continue;
    if (cudaIpcOpenEventHandle(&Q->ready, all[p].ready[j]) != cudaSuccess ||
        cudaIpcOpenEventHandle(&Q->finished, all[p].finished[j]) != cudaSuccess) {
      fprintf(stderr, "arbench: rank %d's events: cudaIpcOpenEventHandle: %s\n", q,
              cudaGetErrorString(cudaGetLastError()));
      err = 1;
    }
  }
  free(all);
  if (hx_procs_barrier(err)) return 1;
  void *data[HX_MAX_DEVS] = {0};
  for (int j = 0; j < G; j++) data[b->first + j] = b->rk[b->first + j].data;
  if (peer_share(b, data, AR_OK) != AR_OK) return 1;
  for (int q = 0; q < b->n; q++)
    if (b->rk[q].remote) b->rk[q].data = data[q];
  return 0;
}

/* Before the local ranks free their buffers: every mapping of another process's undone. */
void peers_close(struct bench *b) {
  if (!b->procs) return;
  void *data[HX_MAX_DEVS] = {0};
  for (int q = 0; q < b->n; q++) {
    struct rank *Q = &b->rk[q];
    if (!Q->remote) continue;
    data[q] = Q->data;
    Q->data = NULL;
    if (Q->ready) cudaEventDestroy(Q->ready);
    if (Q->finished) cudaEventDestroy(Q->finished);
    Q->ready = Q->finished = NULL;
  }
  peer_unshare(b, data);
}

/* Every rank's times in every process (the other processes' slots zeroed, then summed): by
 * every process's lead at once; 0, or -1 when MPI failed. */
int peers_times(struct bench *b) {
  for (int r = 0; r < b->n; r++)
    if (b->rk[r].remote)
      memset(b->times + (size_t)r * b->nsamp, 0, (size_t)b->nsamp * sizeof(*b->times));
  return b->procs ? hx_procs_sum_f64(b->times, (size_t)b->n * b->nsamp) : 0;
}

/* After a measured job: every rank's times, wrong counts and expired gates in every process,
 * and failed[r] = 1 where rank r recorded an error; 0, or -1 when MPI failed. */
int peers_gather(struct bench *b, unsigned long long *failed) {
  for (int r = 0; r < b->n; r++) {
    failed[r] = !b->rk[r].remote && b->rk[r].err[0];
    if (!b->rk[r].remote) continue;
    memset(b->wrong + (size_t)r * b->total, 0, (size_t)b->total * sizeof(*b->wrong));
    if (b->starts)
      memset(b->starts + (size_t)r * b->nsamp, 0, (size_t)b->nsamp * sizeof(*b->starts));
    b->expired[r] = 0;
  }
  if (peers_times(b)) return -1;
  if (!b->procs) return 0;
  unsigned long long exp[HX_MAX_DEVS];
  for (int r = 0; r < b->n; r++) exp[r] = b->expired[r];
  if (hx_procs_sum_u64(b->wrong, (size_t)b->n * b->total) ||
      hx_procs_sum_u64(exp, (size_t)b->n) || hx_procs_sum_u64(failed, (size_t)b->n) ||
      (b->starts && hx_procs_sum_u64(b->starts, (size_t)b->n * b->nsamp)))
    return -1;
  for (int r = 0; r < b->n; r++) b->expired[r] = (unsigned)exp[r];
  return 0;
}
