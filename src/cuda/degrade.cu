/* Degraded-link emulation (transport.h, struct tp_degrade): the stamp and pace kernels the
 * transports enqueue on degraded jobs, the measurement of the healthy bandwidth they divide,
 * and `arbench run --self-test degrade`. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "delay.h"
#include "kernels.h"
#include "gpu_clock.h"
#include "degrade.h"
#include "exec_prog.h"
#include "sum.cuh"

/* ---- the kernels ---- */

/* Records the time the stream reached it. */
static __global__ void stamp_kernel(uint64_t *slot) {
  *slot = tp_globaltimer();
}

/* Holds the stream until *a + na and, if b, *b + nb (stamps of this GPU, written earlier in
 * stream order or joined by an event); *out, if given, gets the release: that target, or the
 * time the stream got here when that was later, so that a budget chained through *out never
 * banks the time it sat idle. */
static __global__ void pace_kernel(const uint64_t *a, uint64_t na, const uint64_t *b, uint64_t nb,
                                   uint64_t *out) {
  uint64_t t = *(const volatile uint64_t *)a + na;
  if (b) {
    uint64_t u = *(const volatile uint64_t *)b + nb;
    if (u > t) t = u;
  }
  tp_spin_until(t);
  if (out) { /* the release: the target, or now if the stream got here later (no banked time) */
    uint64_t now = tp_globaltimer();
    *out = now > t + 2000 ? now : t; /* 2 us: the spin's own overshoot is no idle time */
  }
}

/* Takes ns of one budget: its clock (the time the budget is next free, in the clock's own GPU
 * time) moves to max(clock, t) + ns; returns that. Atomic: senders on several GPUs share it. */
static __device__ uint64_t budget_take(unsigned long long *clock, uint64_t t, uint64_t ns) {
  unsigned long long old = *(volatile unsigned long long *)clock;
  for (;;) {
    unsigned long long want = (old > t ? old : t) + ns;
    unsigned long long seen = atomicCAS(clock, old, want);
    if (seen == old) return want;
    old = seen;
  }
}

/* A flow starting now takes its share of the sender's egress budget and of the receiver's
 * ingress budget (off: the receiver's clock minus this GPU's); *rel = when the later one has
 * passed, in this GPU's time. */
static __global__ void reserve_kernel(unsigned long long *out_clk, uint64_t ns_out,
                                      unsigned long long *in_clk, uint64_t ns_in, int64_t off,
                                      uint64_t *rel) {
  uint64_t now = tp_globaltimer(), r = now;
  if (out_clk) r = budget_take(out_clk, now, ns_out);
  if (in_clk) {
    uint64_t i = budget_take(in_clk, now + (uint64_t)off, ns_in) - (uint64_t)off;
    if (i > r) r = i;
  }
  *rel = r;
}

extern "C" ar_status tp_reserve_launch(unsigned long long *out_clk, uint64_t ns_out,
                                       unsigned long long *in_clk, uint64_t ns_in, int64_t off,
                                       uint64_t *rel, cudaStream_t s) {
  reserve_kernel<<<1, 1, 0, s>>>(out_clk, ns_out, in_clk, ns_in, off, rel);
  CUDA_CHECK(cudaGetLastError());
  return AR_OK;
}

extern "C" ar_status tp_stamp_launch(uint64_t *slot, cudaStream_t s) {
  stamp_kernel<<<1, 1, 0, s>>>(slot);
  CUDA_CHECK(cudaGetLastError());
  return AR_OK;
}

extern "C" ar_status tp_pace_launch(const uint64_t *a, uint64_t na, const uint64_t *b, uint64_t nb,
                                    uint64_t *out, cudaStream_t s) {
  pace_kernel<<<1, 1, 0, s>>>(a, na, b, nb, out);
  CUDA_CHECK(cudaGetLastError());
  return AR_OK;
}

/* ---- the healthy bandwidth ---- */

/* Returns the median of v[0..n) (sorts v). */
static double median(double *v, int n) {
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
      double t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The timed copies of tp_degrade_measure_bw, on resources it owns. */
static ar_status measure(int src, size_t bytes, int reps, void *from, void *to, cudaStream_t s,
                         cudaEvent_t e0, cudaEvent_t e1, double *bw) {
  double v[16];
  CUDA_CHECK(cudaSetDevice(src));
  CUDA_CHECK(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, s)); /* untimed */
  for (int i = 0; i < reps; i++) {
    float ms = 0;
    AR_CHECK(ar_delay_launch_raw(100, s)); /* the host enqueues the copy meanwhile */
    CUDA_CHECK(cudaEventRecord(e0, s));
    CUDA_CHECK(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, s));
    CUDA_CHECK(cudaEventRecord(e1, s));
    CUDA_CHECK(cudaEventSynchronize(e1));
    CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    v[i] = ms * 1e-3;
  }
  double t = median(v, reps);
  if (!(t > 0)) return AR_ERR_CUDA;
  *bw = (double)bytes / t;
  return AR_OK;
}

extern "C" ar_status tp_degrade_measure_bw(int src, int dst, size_t bytes, int reps, double *bw) {
  void *from = NULL, *to = NULL;
  cudaStream_t s = NULL;
  cudaEvent_t e0 = NULL, e1 = NULL;
  if (reps < 1) reps = 1;
  if (reps > 16) reps = 16;
  *bw = 0;
  CUDA_CHECK(cudaSetDevice(dst));
  AR_CHECK(tp_peer_on(src));
  CUDA_CHECK(cudaMalloc(&to, bytes));
  ar_status st = AR_ERR_CUDA;
  if (cudaSetDevice(src) == cudaSuccess && tp_peer_on(dst) == AR_OK &&
      cudaMalloc(&from, bytes) == cudaSuccess &&
      cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess &&
      cudaEventCreate(&e0) == cudaSuccess && cudaEventCreate(&e1) == cudaSuccess)
    st = measure(src, bytes, reps, from, to, s, e0, e1, bw);
  (void)cudaGetLastError();
  cudaSetDevice(src);
  if (s) cudaStreamSynchronize(s);
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  if (s) cudaStreamDestroy(s);
  cudaFree(from);
  cudaSetDevice(dst);
  cudaFree(to);
  return st;
}

/* ---- the self-test ---- */

#define ST_MAX 4                     /* GPUs: the degraded one and up to 3 peers */
#define ST_PEER_BYTES (256ull << 20) /* per peer and direction */
#define ST_WARMUP 2
#define ST_TIMED 5
#define ST_TOLERANCE 0.05 /* the self-test passes within 5% of healthy / factor */

enum { ST_IN = 0, ST_OUT = 1, ST_BOTH = 2 };
static const char *const st_dir_name[] = {"in", "out", "both"};

struct st_rank {
  int dev;
  cudaStream_t s;
  cudaEvent_t ready, start[ST_WARMUP + ST_TIMED], end[ST_WARMUP + ST_TIMED];
  unsigned *expired;
  void *data;
};

struct st_world {
  int n;
  struct st_rank rk[ST_MAX];
  ncclComm_t comm[ST_MAX];
  int have_comm;
  int colocated; /* some device hosts two ranks: no NCCL */
  volatile unsigned long long *gate; /* mapped pinned memory: launch gates */
  unsigned long long seq;
  size_t data_bytes;
  const struct ar_settings *settings; /* --set's values, the transports' arguments */
};

/* One measurement: a transport, k peers, a direction, degraded or not. */
struct st_case {
  struct st_world *W;
  const struct tp_ops *tp;
  struct tp_ctx *ctx;
  int k; /* ranks 0 (degraded) .. k */
  pthread_barrier_t bar;
  ar_status st[ST_MAX];
};

struct st_arg {
  struct st_case *c;
  int r;
};

extern "C" ar_status tp_degrade_selftest_schedule(int k, int dir, struct ar_schedule *s) {
  AR_CHECK(sched_init(s, "degrade-selftest", k + 1, 2 * k));
  for (int p = 1; p <= k; p++) {
    if (dir != ST_OUT) AR_CHECK(sched_add(s, 0, AR_COPY, p, 0, p - 1, 1));
    if (dir != ST_IN) AR_CHECK(sched_add(s, 0, AR_COPY, 0, p, k + p - 1, 1));
  }
  s->ports = k;
  return sched_finish(s);
}

/* A rank's thread: every iteration (the first ungated, as in the harness), start events
 * aligned across ranks, the transport's AllReduce of this rank between start and end. */
static void *st_rank_main(void *arg) {
  struct st_arg *a = (struct st_arg *)arg;
  struct st_case *c = a->c;
  struct st_rank *R = &c->W->rk[a->r];
  ar_status st = cudaSetDevice(R->dev) == cudaSuccess ? AR_OK : AR_ERR_CUDA;
  for (int it = 0; it < ST_WARMUP + ST_TIMED; it++) {
    unsigned long long target = c->W->seq + it;
    if (st == AR_OK && it > 0)
      st = ar_gate_launch(c->W->gate, target, 10e6, R->expired, R->s);
    if (st == AR_OK && cudaEventRecord(R->ready, R->s) != cudaSuccess) st = AR_ERR_CUDA;
    pthread_barrier_wait(&c->bar);
    for (int q = 0; q <= c->k && st == AR_OK; q++)
      if (q != a->r && cudaStreamWaitEvent(R->s, c->W->rk[q].ready, 0) != cudaSuccess)
        st = AR_ERR_CUDA;
    if (st == AR_OK && cudaEventRecord(R->start[it], R->s) != cudaSuccess) st = AR_ERR_CUDA;
    if (st == AR_OK) st = c->tp->enqueue(c->ctx, a->r, R->s);
    if (st == AR_OK && cudaEventRecord(R->end[it], R->s) != cudaSuccess) st = AR_ERR_CUDA;
    pthread_barrier_wait(&c->bar);
    if (a->r == 0 && it > 0) __atomic_store_n(c->W->gate, target, __ATOMIC_SEQ_CST);
  }
  if (cudaStreamSynchronize(R->s) != cudaSuccess) st = AR_ERR_CUDA;
  c->st[a->r] = st;
  return NULL;
}

/* Runs one case; *us = the median over the timed iterations of the largest (end - start) over
 * the ranks. Returns AR_OK, or why not (reason set). */
static ar_status st_run(struct st_world *W, const struct tp_ops *tp, int k, int dir, double factor,
                        double bw, double *us, char *reason, size_t rlen) {
  struct ar_schedule s;
  memset(&s, 0, sizeof(s));
  ar_status st = tp_degrade_selftest_schedule(k, dir, &s);
  if (st != AR_OK) {
    snprintf(reason, rlen, "schedule: %s", s.reason);
    sched_free(&s);
    return st;
  }
  struct tp_world w;
  memset(&w, 0, sizeof(w));
  w.n = k + 1;
  w.data_bytes = W->data_bytes;
  for (int r = 0; r <= k; r++) {
    w.dev[r] = W->rk[r].dev;
    w.comm[r] = W->comm[r];
    w.data[r] = W->rk[r].data;
  }
  tp_world_share(&w); /* co-located ranks: each waiting kernel within its share of the SMs */
  struct tp_job job;
  memset(&job, 0, sizeof(job));
  job.sched = &s;
  job.nelem = 2 * (size_t)k * (ST_PEER_BYTES / 4);
  job.dtype = AR_DT_F32;
  job.pipeline = 1;
  job.settings = W->settings;
  if (factor > 0) {
    job.degrade.n = 1;
    job.degrade.rank[0] = 0;
    job.degrade.factor[0] = factor;
    job.degrade.bw = bw;
  }
  struct st_case c;
  memset(&c, 0, sizeof(c));
  c.W = W;
  c.tp = tp;
  c.k = k;
  st = tp->setup(&w, &job, &c.ctx, reason, rlen);
  if (st != AR_OK) {
    sched_free(&s);
    return st;
  }
  pthread_barrier_init(&c.bar, NULL, (unsigned)k + 1);
  pthread_t th[ST_MAX];
  struct st_arg args[ST_MAX];
  for (int r = 0; r <= k; r++) {
    args[r].c = &c;
    args[r].r = r;
    pthread_create(&th[r], NULL, st_rank_main, &args[r]);
  }
  for (int r = 0; r <= k; r++)
    pthread_join(th[r], NULL);
  W->seq += ST_WARMUP + ST_TIMED;
  pthread_barrier_destroy(&c.bar);
  for (int r = 0; r <= k && st == AR_OK; r++)
    if (c.st[r] != AR_OK) {
      st = c.st[r];
      snprintf(reason, rlen, "rank %d (GPU %d): %s", r, W->rk[r].dev, ar_status_str(st));
    }
  double v[ST_TIMED];
  for (int i = 0; i < ST_TIMED && st == AR_OK; i++) {
    v[i] = 0;
    for (int r = 0; r <= k; r++) {
      float ms = 0;
      cudaSetDevice(W->rk[r].dev);
      if (cudaEventElapsedTime(&ms, W->rk[r].start[ST_WARMUP + i], W->rk[r].end[ST_WARMUP + i]) !=
          cudaSuccess) {
        st = AR_ERR_CUDA;
        snprintf(reason, rlen, "cudaEventElapsedTime on GPU %d", W->rk[r].dev);
        break;
      }
      if (ms * 1e3 > v[i]) v[i] = ms * 1e3;
    }
  }
  if (st == AR_OK) *us = median(v, ST_TIMED);
  tp->teardown(c.ctx);
  sched_free(&s);
  return st;
}

/* Opens the self-test's GPUs: peer access, streams, events, data; 0 or -1 (printed). */
static int st_open(struct st_world *W, const int *dev, int n, FILE *out) {
  memset(W, 0, sizeof(*W));
  W->n = n;
  W->data_bytes = 2 * (size_t)(n - 1) * ST_PEER_BYTES;
  void *gate = NULL;
  if (cudaSetDevice(dev[0]) != cudaSuccess ||
      cudaHostAlloc(&gate, sizeof(unsigned long long), cudaHostAllocMapped | cudaHostAllocPortable) !=
          cudaSuccess) {
    fprintf(out, "self-test degrade: GPU %d: cudaHostAlloc failed\n", dev[0]);
    return -1;
  }
  W->gate = (volatile unsigned long long *)gate;
  *W->gate = 0;
  W->seq = 1;
  for (int r = 0; r < n; r++) {
    struct st_rank *R = &W->rk[r];
    R->dev = dev[r];
    int err = cudaSetDevice(R->dev) != cudaSuccess;
    for (int q = 0; q < n && !err; q++)
      if (q != r) err = tp_peer_on(dev[q]) != AR_OK;
    err = err || cudaStreamCreateWithFlags(&R->s, cudaStreamNonBlocking) != cudaSuccess ||
          cudaEventCreateWithFlags(&R->ready, cudaEventDisableTiming) != cudaSuccess ||
          cudaMalloc((void **)&R->expired, sizeof(unsigned)) != cudaSuccess ||
          cudaMemset(R->expired, 0, sizeof(unsigned)) != cudaSuccess ||
          cudaMalloc(&R->data, W->data_bytes) != cudaSuccess ||
          cudaMemset(R->data, 0, W->data_bytes) != cudaSuccess;
    for (int i = 0; i < ST_WARMUP + ST_TIMED && !err; i++)
      err = cudaEventCreate(&R->start[i]) != cudaSuccess || cudaEventCreate(&R->end[i]) != cudaSuccess;
    if (err) {
      fprintf(out, "self-test degrade: GPU %d: setup failed: %s\n", R->dev,
              cudaGetErrorString(cudaGetLastError()));
      return -1;
    }
  }
  /* nccl-p2p needs communicators; one thread may create all of them at once (NCCL refuses
   * two ranks on one GPU) */
  W->colocated = 0;
  for (int r = 0; r < n; r++)
    for (int q = 0; q < r; q++) W->colocated |= dev[q] == dev[r];
  W->have_comm = !W->colocated && ncclCommInitAll(W->comm, n, dev) == ncclSuccess;
  return 0;
}

/* Frees what st_open made. */
static void st_close(struct st_world *W) {
  for (int r = 0; r < W->n; r++) {
    struct st_rank *R = &W->rk[r];
    if (cudaSetDevice(R->dev) != cudaSuccess) continue;
    cudaDeviceSynchronize();
    if (W->have_comm) ncclCommDestroy(W->comm[r]);
    for (int i = 0; i < ST_WARMUP + ST_TIMED; i++) {
      if (R->start[i]) cudaEventDestroy(R->start[i]);
      if (R->end[i]) cudaEventDestroy(R->end[i]);
    }
    if (R->ready) cudaEventDestroy(R->ready);
    if (R->s) cudaStreamDestroy(R->s);
    cudaFree(R->expired);
    cudaFree(R->data);
  }
  if (W->gate) cudaFreeHost((void *)W->gate);
}

extern "C" int tp_degrade_selftest(const int *dev, int ndev, double factor,
                                   const struct ar_settings *settings, FILE *out) {
  int n = ndev < ST_MAX ? ndev : ST_MAX, fail = 0;
  if (n < 2) {
    fprintf(out, "self-test degrade: needs at least 2 GPUs (%d given)\n", ndev);
    return 1;
  }
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  double bw = 0;
  ar_status st = tp_degrade_measure_bw(dev[1], dev[0], 512u << 20, 5, &bw);
  if (st != AR_OK) {
    fprintf(out, "self-test degrade: measuring the healthy bandwidth GPU %d -> GPU %d failed: %s\n",
            dev[1], dev[0], ar_status_str(st));
    return 1;
  }
  double want = bw / factor;
  fprintf(out,
          "# self-test degrade: GPU %d degraded x%g; peers", dev[0], factor);
  for (int r = 1; r < n; r++)
    fprintf(out, " %d", dev[r]);
  fprintf(out,
          "\n# healthy bandwidth %.2f GB/s (copy engine push GPU %d -> GPU %d, 512 MiB, median of "
          "5),\n# requested %.2f GB/s per direction into and out of GPU %d, shared by its peers;\n"
          "# %llu MiB per peer and direction, median of %d after %d warm-up, start events aligned\n",
          bw / 1e9, dev[1], dev[0], want / 1e9, dev[0], ST_PEER_BYTES >> 20, ST_TIMED, ST_WARMUP);
  fprintf(out, "# clocks (the ce flow program's budgets compare them): GPU %d", dev[0]);
  for (int r = 1; r < n; r++) {
    int64_t off = 0;
    double rtt = 0;
    if (tp_clock_offset(dev[0], dev[r], &off, &rtt) == AR_OK)
      fprintf(out, "; GPU %d %+.2f us (round trip %.2f us)", dev[r], off * 1e-3, rtt * 1e-3);
    else
      fprintf(out, "; GPU %d: the ping-pong failed", dev[r]);
  }
  fprintf(out, "\n");
  struct st_world W;
  if (st_open(&W, dev, n, out)) {
    st_close(&W);
    return 1;
  }
  W.settings = settings;
  fprintf(out, "%-9s %5s %5s %12s %14s %14s %8s %10s %7s\n", "transport", "peers", "dir",
          "bytes_each", "requested_GBps", "measured_GBps", "error_%", "time_us", "result");
  static const int tps[] = {AR_TP_CE, AR_TP_SM, AR_TP_NCCL_P2P}; /* those with an emulation */
  for (size_t t = 0; t < sizeof(tps) / sizeof(tps[0]); t++) {
    const struct ar_transport *td = ar_transport_at(tps[t]);
    const struct tp_ops *tp = tp_ops_of(tps[t]);
    const char *name = td->name;
    if (tp && !AR_TP_CAN(td, AR_TP_COLOCATED) && W.colocated) {
      fprintf(out, "%-9s (not run: %s)\n", name, td->na[AR_TP_COLOCATED]);
      continue;
    }
    if (!tp || (tps[t] == AR_TP_NCCL_P2P && !W.have_comm)) {
      fprintf(out, "%-9s (skipped: %s)\n", name, tp ? "ncclCommInitAll failed" : "not built");
      fail = 1;
      continue;
    }
    for (int k = 1; k < n; k++)
      for (int dir = -1; dir <= ST_BOTH; dir++) { /* -1: healthy links, for reference */
        char reason[256] = "";
        double us = 0;
        int d = dir < 0 ? ST_BOTH : dir;
        st = st_run(&W, tp, k, d, dir < 0 ? 0 : factor, bw, &us, reason, sizeof(reason));
        double bytes = (double)k * ST_PEER_BYTES, got = st == AR_OK ? bytes / (us * 1e-6) : 0;
        if (st != AR_OK) {
          fprintf(out, "%-9s %5d %5s %12llu %14s %14s %8s %10s %7s  %s\n", name, k,
                  st_dir_name[d], ST_PEER_BYTES, "-", "-", "-", "-", "FAIL", reason);
          fail = 1;
          continue;
        }
        if (dir < 0) {
          fprintf(out, "%-9s %5d %5s %12llu %14s %14.2f %8s %10.1f %7s\n", name, k, "both",
                  ST_PEER_BYTES, "healthy", got / 1e9, "-", us, "info");
          continue;
        }
        double err = got / want - 1;
        int ok = fabs(err) <= ST_TOLERANCE;
        fail |= !ok;
        fprintf(out, "%-9s %5d %5s %12llu %14.2f %14.2f %8.2f %10.1f %7s\n", name, k,
                st_dir_name[d], ST_PEER_BYTES, want / 1e9, got / 1e9, 100 * err, us,
                ok ? "pass" : "FAIL");
      }
  }
  st_close(&W);
  fprintf(out, "self-test degrade: %s\n", fail ? "FAIL" : "pass");
  fflush(out);
  return fail;
}
