/* NCCL on the simulated GPU: its version, unique ids, communicators (refusing two ranks on one
 * GPU, across the processes of a job) and the native AllReduce, a bulk-synchronous ring at
 * 300 GB/s that sums the peers' inputs beside the buffers their fills registered
 * (tests/sim/fake_gpu.c's opening comment; NCCL's memory and registration are fake_nccl.c's). */
#include <cuda_runtime.h>
#include <nccl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fake_gpu.h"

struct ncclComm {
  int rank, n;
  ncclUniqueId id;
};

ncclResult_t ncclGetVersion(int *v) {
  const char *ver = getenv("AR_SIM_NCCL_VERSION");
  *v = ver && *ver ? atoi(ver) : 22803;
  return ncclSuccess;
}
const char *ncclGetErrorString(ncclResult_t r) { return r ? "simulated error" : "no error"; }
/* A new id: "simNCCL", the process, the time and a count (ncclAllReduce compares them). */
ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
  static unsigned long long count;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  unsigned long long v[3] = {(unsigned long long)getpid(),
                             (unsigned long long)ts.tv_sec * 1000000000ull + ts.tv_nsec,
                             __atomic_add_fetch(&count, 1, __ATOMIC_SEQ_CST)};
  memset(id, 0, sizeof(*id));
  memcpy(id->internal, "simNCCL", 8);
  memcpy(id->internal + 8, v, sizeof(v));
  return ncclSuccess;
}
static void sim_lock(struct sim_head *h) {
  while (__atomic_exchange_n(&h->lock, 1, __ATOMIC_ACQUIRE)) sched_yield();
}
static void sim_unlock(struct sim_head *h) { __atomic_store_n(&h->lock, 0, __ATOMIC_RELEASE); }
/* With NCCL_DEBUG=INFO, as NCCL names the path to each peer: "via NET/Socket/0" to a rank of
 * another host when NCCL may only use its socket network on the loopback interface
 * (NCCL_SOCKET_IFNAME=lo, NCCL_NET=Socket), "via NET/IB/0" there otherwise, "via P2P/IPC"
 * within a host. */
static void sim_nccl_paths(int rank, int n) {
  const char *dbg = getenv("NCCL_DEBUG"), *ifn = getenv("NCCL_SOCKET_IFNAME");
  const char *net = getenv("NCCL_NET");
  if (!dbg || strcmp(dbg, "INFO")) return;
  int sock = ifn && !strcmp(ifn, "lo") && net && !strcmp(net, "Socket");
  for (int q = 0; q < n; q++) {
    if (q == rank) continue;
    const char *via = sim_host_of(q, n) == sim_host_of(rank, n) ? "P2P/IPC"
                      : sock ? "NET/Socket/0" : "NET/IB/0";
    fprintf(stderr, "simhost:%d:%d [%d] NCCL INFO Channel 00/0 : %d[%d] -> %d[%d] [send] via %s\n",
            (int)getpid(), (int)getpid(), sim_cur_dev, rank, sim_cur_dev, q, q, via);
  }
}
/* NCCL refuses two ranks on one GPU (comm_dev of the job's head: across its processes). */
ncclResult_t ncclCommInitRank(ncclComm_t *c, int n, ncclUniqueId id, int rank) {
  struct sim_head *h = sim_head();
  if (rank < 0 || rank >= 64 || n < 1 || rank >= n) return ncclInvalidArgument;
  int dup = 0;
  sim_lock(h);
  for (int q = 0; q < 64; q++) dup |= q != rank && h->comm_dev[q] == sim_cur_dev + 1;
  if (!dup) {
    h->comm_dev[rank] = sim_cur_dev + 1;
    h->comm_id[rank] = id;
  }
  sim_unlock(h);
  if (dup) return ncclInvalidUsage;
  sim_note_hostid();
  sim_nccl_paths(rank, n);
  *c = calloc(1, sizeof(**c));
  if (!*c) return ncclSystemError;
  (*c)->rank = rank;
  (*c)->n = n;
  (*c)->id = id;
  return ncclSuccess;
}
ncclResult_t ncclCommDestroy(ncclComm_t c) {
  struct sim_head *h = sim_head();
  sim_lock(h);
  if (c && c->rank >= 0 && c->rank < 64) h->comm_dev[c->rank] = 0;
  sim_unlock(h);
  free(c);
  return ncclSuccess;
}
ncclResult_t ncclCommAbort(ncclComm_t c) { return ncclCommDestroy(c); }
/* The sum reads the peers' inputs beside the buffers their fills registered (struct
 * sim_head); fails when a peer's communicator has another unique id than this one's. */
ncclResult_t ncclAllReduce(const void *a, void *b, size_t count, ncclDataType_t t,
                           ncclRedOp_t op, ncclComm_t c, cudaStream_t s) {
  (void)a, (void)op;
  struct sim_head *h = sim_head();
  int k = sim_failure_hooks(c->rank);
  void *buf[AR_MAX_GPUS] = {0};
  size_t bytes[AR_MAX_GPUS] = {0};
  int dt = t == ncclFloat32 ? AR_DT_F32 : t == ncclBfloat16 ? AR_DT_BF16 : AR_DT_F16;
  size_t len = count * ar_dtype_size(dt);
  /* a pointer into the rank's buffer (nccl.rotate), or as far again past it: its offset is
   * said (AR_SIM_NCCL_LOG) and the sum must end inside the buffer; the simulated sum runs on
   * the buffer's start only */
  const unsigned char *mine = sim_at(h->buf[c->rank].at), *at = b;
  size_t held = h->buf[c->rank].bytes;
  size_t off = held && at >= mine && at < mine + 2 * held ? (size_t)(at - mine) : 0;
  if (off && off + len > held) {
    fprintf(stderr, "fake_gpu: ncclAllReduce: rank %d: %zu bytes at offset %zu pass its buffer "
                    "of %zu bytes\n", c->rank, len, off, held);
    return ncclInvalidArgument;
  }
  const char *log = getenv("AR_SIM_NCCL_LOG");
  if (log) { /* the fake runs a captured AllReduce at its capture */
    FILE *f = fopen(log, "a");
    if (f) fprintf(f, "%d %zu %zu\n", c->rank, len, off), fclose(f);
  }
  for (int q = 0; q < c->n && q < AR_MAX_GPUS; q++) {
    if (memcmp(&h->comm_id[q], &c->id, sizeof(c->id))) {
      fprintf(stderr, "fake_gpu: ncclAllReduce: rank %d's communicator has another unique id "
                      "than rank %d's\n", q, c->rank);
      return ncclInvalidUsage;
    }
    buf[q] = q == c->rank ? b : sim_at(h->buf[q].at);
    bytes[q] = q == c->rank ? sim_real_bytes(b) : h->buf[q].bytes;
  }
  int bad = sim_bad_sum("nccl") || (sim_beside_load(s) && getenv("AR_SIM_BESIDE_BAD"));
  if (!off) sim_allreduce(c->rank, c->n, buf, bytes, count, dt, 0, bad); /* in place */
  double total = count * 4.0;
  double us = 2.0 * (c->n - 1) * 5 + total * 2 * (c->n - 1) / c->n / 300e3;
  sim_run(s, us * sim_jitter(c->rank, k));
  return ncclSuccess;
}
