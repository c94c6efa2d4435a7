/* The GPUs' clocks (gpu_clock.h): ping-pongs of one-thread kernels between two GPUs, in one
 * process through peer memory, across the processes of an MPI job through words shared with
 * tp_share. */
#include <string.h>

#include "gpu_clock.h"
#include "sum.cuh"
#include "world.h"

#define CLK_SAMPLES 64
#define CLK_SLICE (3 * CLK_SAMPLES) /* a pair's words on the ping side: answers, t0, t1 */
/* across processes a side gives up after this long: its partner's process may have failed,
 * and a kernel spinning for ever would hang this one */
#define CLK_LIMIT_NS 10000000000ull

/* One side of the ping-pong: a (ping) stamps t0, writes sample i to b's word, waits for b's
 * answer, stamps t1; b (pong) answers each ping with its own time. limit_ns (0: none): give up
 * that long after the start (ping: t1[i] stays 0; pong: its later answers are never written). */
static __global__ void ping_kernel(volatile uint64_t *to_b, volatile uint64_t *from_b,
                                   uint64_t *t0, uint64_t *t1, uint64_t limit_ns) {
  uint64_t start = tp_globaltimer();
  for (int i = 0; i < CLK_SAMPLES; i++) {
    t0[i] = tp_globaltimer();
    to_b[i] = i + 1;
    while (from_b[i] == 0)
      if (limit_ns && tp_globaltimer() - start > limit_ns) return;
    t1[i] = tp_globaltimer();
  }
}

static __global__ void pong_kernel(volatile uint64_t *from_a, volatile uint64_t *to_a,
                                   uint64_t limit_ns) {
  uint64_t start = tp_globaltimer();
  for (int i = 0; i < CLK_SAMPLES; i++) {
    while (from_a[i] == 0)
      if (limit_ns && tp_globaltimer() - start > limit_ns) return;
    to_a[i] = tp_globaltimer();
  }
}

/* The offset from a ping side's words (answers, t0, t1): the sample with the shortest round
 * trip, b's stamp sitting in its middle. AR_ERR_TIMEOUT when the ping gave up. */
static ar_status best_offset(const uint64_t *host, int64_t *off, double *rtt_ns) {
  double best = 1e30;
  for (int i = 0; i < CLK_SAMPLES; i++) {
    uint64_t tb = host[i], t0 = host[CLK_SAMPLES + i], t1 = host[2 * CLK_SAMPLES + i];
    if (!t1) return AR_ERR_TIMEOUT;
    double rtt = (double)(t1 - t0);
    if (rtt < best) {
      best = rtt;
      *off = (int64_t)(tb - t0) - (int64_t)((t1 - t0) / 2);
    }
  }
  if (rtt_ns) *rtt_ns = best;
  return AR_OK;
}

extern "C" ar_status tp_clock_offset(int a, int b, int64_t *off, double *rtt_ns) {
  size_t words = 4 * CLK_SAMPLES * sizeof(uint64_t);
  uint64_t *ma = NULL, *mb = NULL, host[4 * CLK_SAMPLES];
  *off = 0;
  if (a == b) { /* one clock; and the ping-pong's kernels would serialise on one device */
    if (rtt_ns) *rtt_ns = 0;
    return AR_OK;
  }
  ar_status st = AR_ERR_CUDA;
  CUDA_CHECK(cudaSetDevice(b));
  AR_CHECK(tp_peer_on(a));
  if (cudaMalloc((void **)&mb, words) == cudaSuccess && cudaMemset(mb, 0, words) == cudaSuccess &&
      cudaDeviceSynchronize() == cudaSuccess && cudaSetDevice(a) == cudaSuccess &&
      tp_peer_on(b) == AR_OK && cudaMalloc((void **)&ma, words) == cudaSuccess &&
      cudaMemset(ma, 0, words) == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess) {
    /* a's memory: [0, S) answers from b, [S, 2S) t0, [2S, 3S) t1; b's: [0, S) pings */
    ping_kernel<<<1, 1>>>(mb, ma, ma + CLK_SAMPLES, ma + 2 * CLK_SAMPLES, 0);
    cudaSetDevice(b);
    pong_kernel<<<1, 1>>>(mb, ma, 0);
    if (cudaDeviceSynchronize() == cudaSuccess && cudaSetDevice(a) == cudaSuccess &&
        cudaDeviceSynchronize() == cudaSuccess &&
        cudaMemcpy(host, ma, CLK_SLICE * sizeof(uint64_t), cudaMemcpyDeviceToHost) == cudaSuccess)
      st = best_offset(host, off, rtt_ns);
  }
  (void)cudaGetLastError();
  cudaSetDevice(a);
  cudaFree(ma);
  cudaSetDevice(b);
  cudaFree(mb);
  return st;
}

/* ---- across processes ---- */

/* What rank 0's process broadcasts. */
struct clk_msg {
  int64_t off[AR_MAX_GPUS];
  double rtt[AR_MAX_GPUS];
  int st;
};

/* Rank 0's side against rank r of another process: pings into clk[r], r's answers and our
 * stamps in slice r of clk[0]. */
static ar_status ping_remote(const struct tp_world *w, uint64_t *const *clk, int r, int64_t *off,
                             double *rtt) {
  uint64_t *mine = clk[0] + (size_t)r * CLK_SLICE, host[CLK_SLICE];
  CUDA_CHECK(cudaSetDevice(w->dev[0]));
  ping_kernel<<<1, 1>>>(clk[r], mine, mine + CLK_SAMPLES, mine + 2 * CLK_SAMPLES, CLK_LIMIT_NS);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemcpy(host, mine, sizeof(host), cudaMemcpyDeviceToHost));
  ar_status st = best_offset(host, off, rtt);
  if (st != AR_OK) ar_log(AR_LOG_WARN, "clock: rank %d never answered rank 0's pings", r);
  return st;
}

/* Rank r's side: answers rank 0's pings (clk[r]) into slice r of clk[0]. */
static ar_status pong_remote(const struct tp_world *w, uint64_t *const *clk, int r) {
  uint64_t last = 0;
  CUDA_CHECK(cudaSetDevice(w->dev[r]));
  pong_kernel<<<1, 1>>>(clk[r], clk[0] + (size_t)r * CLK_SLICE, CLK_LIMIT_NS);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemcpy(&last, clk[r] + CLK_SAMPLES - 1, sizeof(last), cudaMemcpyDeviceToHost));
  if (!last) ar_log(AR_LOG_WARN, "clock: rank %d: rank 0's pings never came", r);
  return last ? AR_OK : AR_ERR_TIMEOUT;
}

/* The rank whose pair with rank 0 measures rank r's clock: 0 for ranks on rank 0's GPU (one
 * clock), else the first rank on r's GPU, so that one pong at a time spins on a GPU. */
static int measured_by(const struct tp_world *w, int r) {
  for (int q = 0; q < r; q++)
    if (tp_same_gpu(w, q, r)) return q;
  return r;
}

/* Both sides of every pair (0, r) this process takes part in, rank order (rank 0's process
 * pings r = 1, 2, ... in turn while each partner waits for its pings); rank 0's process also
 * measures the pairs it holds both ranks of. */
static ar_status pairs(const struct tp_world *w, uint64_t *const *clk, struct clk_msg *m) {
  for (int r = 1; r < w->n; r++) {
    if (measured_by(w, r) != r) continue;
    if (!w->remote[0] && !w->remote[r])
      AR_CHECK(tp_clock_offset(w->dev[0], w->dev[r], &m->off[r], &m->rtt[r]));
    else if (!w->remote[0])
      AR_CHECK(ping_remote(w, clk, r, &m->off[r], &m->rtt[r]));
    else if (!w->remote[r])
      AR_CHECK(pong_remote(w, clk, r));
  }
  return AR_OK;
}

/* Rank r's clock words on its device, zeroed before any peer sees them. */
static ar_status clk_alloc(int dev, size_t bytes, uint64_t **p) {
  CUDA_CHECK(cudaSetDevice(dev));
  CUDA_CHECK(cudaMalloc((void **)p, bytes));
  CUDA_CHECK(cudaMemset(*p, 0, bytes));
  CUDA_CHECK(cudaDeviceSynchronize());
  return AR_OK;
}

extern "C" ar_status tp_clock_world(const struct tp_world *w, int64_t *off, ar_status st) {
  if (!w->peers) {
    for (int r = 1; r < w->n && st == AR_OK; r++) {
      double rtt = 0;
      st = tp_clock_offset(w->dev[0], w->dev[r], &off[r], &rtt);
      if (st == AR_OK)
        ar_log(AR_LOG_INFO, "clock: GPU %d's clock is %+.1f us from GPU %d's (round trip %.1f us)",
               w->dev[r], off[r] * 1e-3, w->dev[0], rtt * 1e-3);
    }
    return st;
  }
  uint64_t *clk[AR_MAX_GPUS] = {0};
  size_t bytes = (size_t)w->n * CLK_SLICE * sizeof(uint64_t);
  for (int r = 0; r < w->n && st == AR_OK; r++)
    if (!w->remote[r]) st = clk_alloc(w->dev[r], bytes, &clk[r]);
  st = tp_share(w, (void **)clk, st);
  if (st == AR_OK) { /* every process gets here: the share's status is everyone's */
    struct clk_msg m;
    memset(&m, 0, sizeof(m));
    ar_status mine = pairs(w, clk, &m);
    m.st = mine;
    st = tp_bcast(w, &m, sizeof(m), 0);
    if (st == AR_OK) st = mine != AR_OK ? mine : (ar_status)m.st;
    for (int r = 0; r < w->n && st == AR_OK; r++) {
      off[r] = m.off[measured_by(w, r)];
      if (!w->remote[0] && r && measured_by(w, r) == r)
        ar_log(AR_LOG_INFO, "clock: rank %d's GPU clock is %+.1f us from rank 0's (round trip "
               "%.1f us)", r, m.off[r] * 1e-3, m.rtt[r] * 1e-3);
    }
  }
  tp_unshare(w, (void **)clk);
  for (int r = 0; r < w->n; r++)
    if (!w->remote[r] && clk[r] && cudaSetDevice(w->dev[r]) == cudaSuccess) cudaFree(clk[r]);
  return st;
}
