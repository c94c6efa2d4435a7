/* linkprobe: what one GPU's NVLink port delivers with each way of moving data, to choose the
 * transports' primitives (docs/performance.md). Not part of arbench's measurements: no
 * correctness check, one process, every GPU driven from one host thread.
 *
 * Usage: linkprobe [bytes_per_flow] [reps] [groups]
 *   bytes_per_flow: default 256M (K, M, G suffixes), rounded down to a multiple of 4096
 *   reps: default 5
 *   groups: default all, or a comma list of ce,sm,sum,cesm,perm,gap,gapflag,gapdirect,pcie,ringsum
 *   (an unknown name is an error, exit 2)
 *
 * Timing, every case: each GPU's work is queued behind a gate (a one-thread kernel spinning on
 * a pinned host word), then the host opens the gate, so host issue time does not count and the
 * GPUs start together. `reps` repetitions after one warm-up; per stream, the median over reps
 * of the slowest GPU's time from the common start event (recorded on stream 0, every other
 * stream waits on it) to that stream's own end event. Rates are GB/s (1e9) per GPU port: the
 * bytes one GPU sends (or receives, for pulls) over that time.
 *
 * Groups:
 *   ce       cudaMemcpyAsync on peer pointers, one stream per flow: 0->1, 0->all peers, ring
 *            (g -> g+1, all GPUs at once), all-to-all.
 *   sm       sm-store (a kernel writes 16-byte vectors into peer memory) and sm-load (a kernel
 *            reads peer memory into local memory), same patterns, several block counts.
 *   sum      sm-sum: every GPU reads a chunk from every GPU, sums, writes locally (a direct
 *            reduce-scatter's pull).
 *   cesm     ce and sm-store each moving half of one flow (0->1 and ring).
 *   perm     one stream per GPU issues n-1 copies of `bytes` to g+1, g+2, ..., g+n-1 in that
 *            order (a direct reduce-scatter serialised so every moment is a permutation);
 *            `perm x2` repeats the list (a direct allreduce). Rate = copies*bytes / time.
 *   gap      the per-copy cost: ring, T = 4*bytes per GPU as k = 1..64 back-to-back copies of
 *            T/k on one stream; prints the rate and (t_k - t_1)/(k-1) in us.
 *   gapflag  as gap, each copy followed by the transport's flag write to the next GPU
 *            (src/cuda/flags.cu memop mode: cuStreamWriteValue32 into a local staging word,
 *            then a 4-byte cudaMemcpyAsync into the peer's flag word).
 *   gapdirect as gap, each copy followed by cuStreamWriteValue32 straight into the peer's word.
 *   pcie     host staging through a pinned buffer per GPU (2 x bytes per GPU): D2H, H2D, both,
 *            on GPU 0 alone and on all GPUs (with the aggregate over GPUs); then the ce ring
 *            (repeated to last as long as the PCIe copies) with D2H + H2D on all GPUs, and with
 *            D2H + H2D on GPU 0 only: the ring's rate and the PCIe streams' rates separately.
 *   ringsum  the ce ring while a local 4-source sum kernel (16..132 blocks, launched enough
 *            times to outlast the ring) runs on another stream: the ring's rate under that HBM
 *            load, and the sum's own GB/s (bytes read + written).
 * Memory per GPU: (1 + n) * bytes, plus 8 * bytes for gap*, ringsum; 2 * bytes pinned host
 * memory per GPU during pcie. */
#include <cuda.h> /* driver types only: cuStreamWriteValue32 is found at run time */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <functional>
#include <vector>

#define MAXG 8
#define NST 8 /* streams per GPU: stream 0 starts the clock, flows use 1.. */
#define CK(x)                                                                                \
  do {                                                                                       \
    cudaError_t e_ = (x);                                                                    \
    if (e_ != cudaSuccess) {                                                                 \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));    \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

struct ptrs {
  uint4 *p[MAXG];
};

/* Blocks are dealt round-robin to the flows; flow f copies src[f] to dst[f]. */
__global__ void copy_kernel(ptrs dst, ptrs src, int nflows, size_t n16) {
  int f = blockIdx.x % nflows, b = blockIdx.x / nflows, nb = gridDim.x / nflows;
  uint4 *d = dst.p[f];
  const uint4 *s = src.p[f];
  size_t stride = (size_t)nb * blockDim.x;
  size_t i = (size_t)b * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n16; i += 4 * stride) {
    uint4 v0 = __ldcg(s + i), v1 = __ldcg(s + i + stride), v2 = __ldcg(s + i + 2 * stride),
          v3 = __ldcg(s + i + 3 * stride);
    __stcg(d + i, v0);
    __stcg(d + i + stride, v1);
    __stcg(d + i + 2 * stride, v2);
    __stcg(d + i + 3 * stride, v3);
  }
  for (; i < n16; i += stride) __stcg(d + i, __ldcg(s + i));
}

/* dst = sum of the nsrc float sources (16-byte vectors). */
__global__ void sum_kernel(uint4 *dst, ptrs src, int nsrc, size_t n16) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n16; i += stride) {
    float4 acc = make_float4(0, 0, 0, 0);
#pragma unroll 4
    for (int s = 0; s < nsrc; s++) {
      uint4 u = __ldcg(src.p[s] + i);
      float4 v = *reinterpret_cast<float4 *>(&u);
      acc.x += v.x, acc.y += v.y, acc.z += v.z, acc.w += v.w;
    }
    __stcg(dst + i, *reinterpret_cast<uint4 *>(&acc));
  }
}

/* Holds its stream until the host sets gate[0] >= epoch; after 10 s gives up and sets gate[1]
 * (a host call blocked behind the gate: the timings are then void, but nothing hangs). */
__global__ void gate_kernel(volatile unsigned *gate, unsigned epoch) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  while (gate[0] < epoch) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    if (t - t0 > 10000000000ull) {
      gate[1] = 1;
      break;
    }
  }
}

typedef std::vector<std::vector<int>> flows_t;
typedef CUresult (*write_value_fn)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);

static int ng;
static size_t bytes;
static int reps;
static uint4 *srcbuf[MAXG], *dstbuf[MAXG][MAXG]; /* dstbuf[g][q]: on g, room for q's flow */
static uint4 *scratch[MAXG];                     /* 8 * bytes on g, made by need_scratch() */
static uint32_t *flagw[MAXG], *staging[MAXG];    /* flag word peers write; local staging word */
static uint32_t flagseq[MAXG];
static cudaStream_t st[MAXG][NST];
static cudaEvent_t ev0[MAXG], evend[MAXG][NST];
static unsigned *gate_host, *gate_dev[MAXG], gate_epoch;
static write_value_fn write_value;

/* Per stream: median over reps of the slowest GPU's start -> stream end (ms); all: the same for
 * the GPU's last stream. */
struct stream_times {
  double ms[NST];
  double all;
};

/* Returns the median of v (v not empty). */
static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/* Returns GB/s for b bytes in ms milliseconds. */
static double rate(double b, double ms) { return ms > 0 ? b / (ms * 1e-3) / 1e9 : 0; }

/* Returns the mask of every GPU. */
static unsigned all_mask(void) { return (1u << ng) - 1; }

/* Returns the stream times of issue(g) run on every GPU of `active` at once (see the header). */
static stream_times time_progs(unsigned active, const std::function<void(int)> &issue) {
  std::vector<double> t[NST + 1];
  for (int rep = -1; rep < reps; rep++) {
    gate_epoch++;
    for (int g = 0; g < ng; g++) {
      if (!(active >> g & 1)) continue;
      CK(cudaSetDevice(g));
      gate_kernel<<<1, 1, 0, st[g][0]>>>(gate_dev[g], gate_epoch);
      CK(cudaGetLastError());
      CK(cudaEventRecord(ev0[g], st[g][0]));
      for (int s = 1; s < NST; s++) CK(cudaStreamWaitEvent(st[g][s], ev0[g], 0));
    }
    for (int g = 0; g < ng; g++) {
      if (!(active >> g & 1)) continue;
      CK(cudaSetDevice(g));
      issue(g);
      CK(cudaGetLastError());
    }
    for (int g = 0; g < ng; g++) {
      if (!(active >> g & 1)) continue;
      CK(cudaSetDevice(g));
      for (int s = 0; s < NST; s++) CK(cudaEventRecord(evend[g][s], st[g][s]));
    }
    __atomic_store_n(&gate_host[0], gate_epoch, __ATOMIC_SEQ_CST); /* every GPU starts now */
    double worst[NST + 1] = {0};
    for (int g = 0; g < ng; g++) {
      if (!(active >> g & 1)) continue;
      CK(cudaSetDevice(g));
      for (int s = 0; s < NST; s++) {
        float ms;
        CK(cudaEventSynchronize(evend[g][s]));
        CK(cudaEventElapsedTime(&ms, ev0[g], evend[g][s]));
        worst[s] = std::max(worst[s], (double)ms);
        worst[NST] = std::max(worst[NST], (double)ms);
      }
    }
    if (__atomic_load_n(&gate_host[1], __ATOMIC_SEQ_CST)) {
      fprintf(stderr, "linkprobe: the start gate timed out (a host call blocked): void case\n");
      gate_host[1] = 0;
    }
    if (rep >= 0)
      for (int s = 0; s <= NST; s++) t[s].push_back(worst[s]);
  }
  stream_times r;
  for (int s = 0; s < NST; s++) r.ms[s] = median(t[s]);
  r.all = median(t[NST]);
  return r;
}

/* Prints one case: the primitive, the pattern, a 16-column detail, the rate, extra figures. */
static void line(const char *kind, const char *what, const char *detail, double gbs,
                 const char *extra) {
  printf("%-12s %-28s %-16s  %7.1f GB/s per GPU port%s\n", kind, what, detail, gbs, extra);
  fflush(stdout);
}

/* Queues the ce ring on GPU g: m copies of bytes to g+1 on stream s. */
static void ring_issue(int g, int m, int s) {
  for (int i = 0; i < m; i++)
    CK(cudaMemcpyAsync(dstbuf[(g + 1) % ng][g], srcbuf[g], bytes, cudaMemcpyDeviceToDevice,
                       st[g][s]));
}

/* Makes the 8 * bytes scratch buffer on every GPU (zeroed) on first use. */
static void need_scratch(void) {
  for (int g = 0; g < ng; g++) {
    if (scratch[g]) continue;
    CK(cudaSetDevice(g));
    CK(cudaMalloc(&scratch[g], 8 * bytes));
    CK(cudaMemset(scratch[g], 0, 8 * bytes));
    CK(cudaDeviceSynchronize());
  }
}

/* ---- the original four parts: ce, sm, sum, cesm ---- */

enum kind { CE, STORE, LOAD, SUM, CE_STORE };
static const char *kname[] = {"ce", "sm-store", "sm-load", "sm-sum", "ce+sm-store"};

/* Returns GB/s per GPU port; flows[g] = peers g sends to (store/ce) or reads from (load);
 * active GPUs have >= 1 flow. */
static double run_test(kind k, const flows_t &flows, int blocks) {
  size_t n16 = bytes / 16, per_gpu = 0;
  unsigned active = 0;
  for (int g = 0; g < ng; g++) {
    if (!flows[g].empty()) active |= 1u << g;
    per_gpu = std::max(per_gpu, flows[g].size());
  }
  stream_times t = time_progs(active, [&](int g) {
    int nf = (int)flows[g].size();
    ptrs d = {}, s = {};
    for (int f = 0; f < nf; f++) {
      int q = flows[g][f];
      if (k == LOAD) d.p[f] = dstbuf[g][q], s.p[f] = srcbuf[q];
      else d.p[f] = dstbuf[q][g], s.p[f] = srcbuf[g];
    }
    if (k == CE || k == CE_STORE) {
      size_t part = k == CE_STORE ? n16 / 2 * 16 : bytes;
      for (int f = 0; f < nf; f++)
        CK(cudaMemcpyAsync(d.p[f], s.p[f], part, cudaMemcpyDeviceToDevice, st[g][1 + f]));
      if (k == CE_STORE) {
        ptrs d2 = d, s2 = s;
        for (int f = 0; f < nf; f++) d2.p[f] += n16 / 2, s2.p[f] += n16 / 2;
        copy_kernel<<<blocks * nf, 512, 0, st[g][0]>>>(d2, s2, nf, n16 - n16 / 2);
      }
    } else if (k == SUM) {
      ptrs s2 = {};
      s2.p[0] = srcbuf[g];
      for (int f = 0; f < nf; f++) s2.p[1 + f] = srcbuf[flows[g][f]];
      sum_kernel<<<blocks, 512, 0, st[g][0]>>>(dstbuf[g][g], s2, nf + 1, n16);
    } else {
      copy_kernel<<<blocks * nf, 512, 0, st[g][0]>>>(d, s, nf, n16);
    }
  });
  return rate((double)bytes * per_gpu, t.all);
}

/* Runs and prints one case of the original parts. */
static void report(const char *what, kind k, const flows_t &flows, int blocks) {
  double gbs = run_test(k, flows, blocks);
  char detail[32];
  snprintf(detail, sizeof detail, "blocks/flow %4d", k == CE ? 0 : blocks);
  line(kname[k], what, detail, gbs, "");
}

static flows_t one, fan, ring, a2a;

/* Fills the flow patterns: 0->1, 0->every peer, g->g+1, every GPU to every peer. */
static void make_flows(void) {
  one = fan = ring = a2a = flows_t(ng);
  one[0] = {1};
  for (int q = 1; q < ng; q++) fan[0].push_back(q);
  for (int g = 0; g < ng; g++) {
    ring[g] = {(g + 1) % ng};
    for (int q = 0; q < ng; q++)
      if (q != g) a2a[g].push_back(q);
  }
}

static void group_ce(void) {
  report("0->1", CE, one, 0);
  report("0->all peers", CE, fan, 0);
  report("ring (all GPUs)", CE, ring, 0);
  report("all-to-all", CE, a2a, 0);
}

static void group_sm(void) {
  const int bl[] = {8, 16, 32, 64, 132};
  for (kind k : {STORE, LOAD}) {
    for (int b : bl) report("0->1", k, one, b);
    for (int b : {16, 44}) report("0->all peers", k, fan, b);
    for (int b : {32, 64, 132}) report("ring (all GPUs)", k, ring, b);
    for (int b : {16, 32, 44}) report("all-to-all", k, a2a, b);
  }
}

static void group_sum(void) {
  for (int b : {66, 132, 264, 528}) report("all GPUs, 4 sources", SUM, a2a, b);
}

static void group_cesm(void) {
  for (int b : {16, 32, 64}) report("0->1 half each", CE_STORE, one, b);
  for (int b : {16, 32, 64}) report("ring half each", CE_STORE, ring, b);
}

/* ---- perm: a direct reduce-scatter's (x1) and allreduce's (x2) copies on one stream ---- */

static void group_perm(void) {
  for (int x = 1; x <= 2; x++) {
    int copies = x * (ng - 1);
    stream_times t = time_progs(all_mask(), [&](int g) {
      for (int r = 0; r < x; r++)
        for (int i = 1; i < ng; i++)
          CK(cudaMemcpyAsync(dstbuf[(g + i) % ng][g], srcbuf[g], bytes,
                             cudaMemcpyDeviceToDevice, st[g][1]));
    });
    char detail[32];
    snprintf(detail, sizeof detail, "copies %d", copies);
    line("ce-perm", x == 1 ? "g->g+1..g+n-1, one stream" : "perm x2, one stream", detail,
         rate((double)copies * bytes, t.ms[1]), "");
  }
}

/* ---- gap, gapflag, gapdirect: the cost of splitting one transfer into k copies ---- */

enum flag_mode { FLAG_NONE, FLAG_STAGED, FLAG_DIRECT };

/* Queues GPU g's flag write to GPU q's flag word after its copy (stream 1); exits on error. */
static void flag_issue(int g, int q, flag_mode mode) {
  uint32_t v = ++flagseq[g];
  CUstream s = (CUstream)st[g][1];
  CUdeviceptr at = (CUdeviceptr)(uintptr_t)(mode == FLAG_STAGED ? staging[g] : flagw[q]);
  CUresult r = write_value(s, at, v, CU_STREAM_WRITE_VALUE_DEFAULT);
  if (r != CUDA_SUCCESS) {
    fprintf(stderr, "linkprobe: cuStreamWriteValue32 failed (%d)\n", (int)r);
    exit(1);
  }
  if (mode == FLAG_STAGED)
    CK(cudaMemcpyAsync(flagw[q], staging[g], sizeof(uint32_t), cudaMemcpyDeviceToDevice,
                       st[g][1]));
}

/* Returns 1 when cuStreamWriteValue32 into every peer's flag word works (checked outside any
 * timing), else prints why on a case line and returns 0. */
static int direct_flags_work(const char *kind) {
  for (int g = 0; g < ng; g++) {
    CK(cudaSetDevice(g));
    CUresult r = write_value((CUstream)st[g][1], (CUdeviceptr)(uintptr_t)flagw[(g + 1) % ng],
                             ++flagseq[g], CU_STREAM_WRITE_VALUE_DEFAULT);
    if (r != CUDA_SUCCESS) {
      char extra[64];
      snprintf(extra, sizeof extra, "  n/a: cuStreamWriteValue32 to a peer: error %d", (int)r);
      line(kind, "ring, 4 x bytes in k copies", "-", 0, extra);
      return 0;
    }
    CK(cudaStreamSynchronize(st[g][1]));
  }
  return 1;
}

/* Ring, T = 4 * bytes per GPU as k back-to-back copies on one stream (each followed by a flag
 * write in the flag modes); prints the rate and the per-copy overhead against k = 1. */
static void run_gap(flag_mode mode) {
  const char *kind = mode == FLAG_NONE ? "ce-gap" : mode == FLAG_STAGED ? "ce-gapflag"
                                                                         : "ce-gapdirect";
  if (mode != FLAG_NONE && !write_value) {
    line(kind, "ring, 4 x bytes in k copies", "-", 0, "  n/a: no cuStreamWriteValue32");
    return;
  }
  need_scratch();
  if (mode == FLAG_DIRECT && !direct_flags_work(kind)) return;
  size_t total = 4 * bytes;
  double t1 = 0;
  for (int k : {1, 2, 4, 8, 16, 32, 64}) {
    size_t piece = total / k; /* exact: bytes is a multiple of 4096 */
    stream_times t = time_progs(all_mask(), [&](int g) {
      int q = (g + 1) % ng;
      char *src = (char *)scratch[g], *dst = (char *)scratch[q] + total;
      for (int i = 0; i < k; i++) {
        CK(cudaMemcpyAsync(dst + i * piece, src + i * piece, piece, cudaMemcpyDeviceToDevice,
                           st[g][1]));
        if (mode != FLAG_NONE) flag_issue(g, q, mode);
      }
    });
    double ms = t.ms[1];
    char detail[32], extra[80] = "";
    if (k == 1) t1 = ms;
    else snprintf(extra, sizeof extra, "  per-copy overhead %.2f us", (ms - t1) * 1e3 / (k - 1));
    snprintf(detail, sizeof detail, "copies %d", k);
    line(kind, "ring, 4 x bytes in k copies", detail, rate((double)total, ms), extra);
  }
}

static void group_gap(void) { run_gap(FLAG_NONE); }
static void group_gapflag(void) { run_gap(FLAG_STAGED); }
static void group_gapdirect(void) { run_gap(FLAG_DIRECT); }

/* ---- pcie: host staging, alone and beside the NVLink ring ---- */

static void *hdown[MAXG], *hup[MAXG]; /* pinned host: D2H destination, H2D source */

/* Returns the stream times of: m ring copies on stream 1 of every GPU (if m > 0), and on the
 * GPUs of pmask a D2H on stream 2 and/or an H2D on stream 3. */
static stream_times run_pcie(int m, unsigned pmask, bool d2h, bool h2d) {
  return time_progs(m ? all_mask() : pmask, [&](int g) {
    ring_issue(g, m, 1);
    if (!(pmask >> g & 1)) return;
    if (d2h) CK(cudaMemcpyAsync(hdown[g], srcbuf[g], bytes, cudaMemcpyDeviceToHost, st[g][2]));
    if (h2d) CK(cudaMemcpyAsync(dstbuf[g][g], hup[g], bytes, cudaMemcpyHostToDevice, st[g][3]));
  });
}

static void group_pcie(void) {
  for (int g = 0; g < ng; g++) {
    CK(cudaSetDevice(g));
    CK(cudaHostAlloc(&hdown[g], bytes, cudaHostAllocPortable));
    CK(cudaHostAlloc(&hup[g], bytes, cudaHostAllocPortable));
    memset(hup[g], 0, bytes);
  }
  char detail[32], extra[160];
  double b = (double)bytes, tboth = 0;
  /* a), b), c): PCIe alone, GPU 0 then every GPU */
  for (unsigned pmask : {1u, all_mask()}) {
    int np = __builtin_popcount(pmask);
    const char *who = np == 1 ? "GPU 0" : "all GPUs";
    char what[64];
    snprintf(detail, sizeof detail, "gpus %d", np);
    stream_times t = run_pcie(0, pmask, true, false);
    snprintf(what, sizeof what, "D2H, %s", who);
    snprintf(extra, sizeof extra, "  aggregate %.1f GB/s", np * rate(b, t.ms[2]));
    line("pcie", what, detail, rate(b, t.ms[2]), extra);
    t = run_pcie(0, pmask, false, true);
    snprintf(what, sizeof what, "H2D, %s", who);
    snprintf(extra, sizeof extra, "  aggregate %.1f GB/s", np * rate(b, t.ms[3]));
    line("pcie", what, detail, rate(b, t.ms[3]), extra);
    t = run_pcie(0, pmask, true, true);
    snprintf(what, sizeof what, "D2H+H2D, %s", who);
    snprintf(extra, sizeof extra, "  (D2H; H2D %.1f) aggregate %.1f GB/s", rate(b, t.ms[3]),
             np * (rate(b, t.ms[2]) + rate(b, t.ms[3])));
    line("pcie", what, detail, rate(b, t.ms[2]), extra);
    tboth = std::max(t.ms[2], t.ms[3]);
  }
  /* d), e): the ring repeated so that it lasts about as long as the PCIe copies */
  stream_times r = run_pcie(1, 0, false, false);
  line("pcie", "ce ring alone", "copies 1", rate(b, r.ms[1]), "");
  int m = std::min(64, std::max(1, (int)(tboth / r.ms[1] + 0.999)));
  for (unsigned pmask : {all_mask(), 1u}) {
    stream_times t = run_pcie(m, pmask, true, true);
    snprintf(detail, sizeof detail, "copies %d", m);
    snprintf(extra, sizeof extra, "  (ring) D2H %.1f H2D %.1f GB/s, GPUs on PCIe %d",
             rate(b, t.ms[2]), rate(b, t.ms[3]), __builtin_popcount(pmask));
    line("pcie", pmask == 1u ? "ring + D2H+H2D on GPU 0" : "ring + D2H+H2D, all GPUs", detail,
         rate(m * b, t.ms[1]), extra);
  }
  for (int g = 0; g < ng; g++) {
    CK(cudaFreeHost(hdown[g]));
    CK(cudaFreeHost(hup[g]));
    hdown[g] = hup[g] = NULL;
  }
}

/* ---- ringsum: the ce ring under a concurrent local sum's HBM load ---- */

/* Queues L launches of a 4-source sum over GPU g's scratch (slices 0..3 -> slice 4) on
 * stream 2: local buffers only, none of which the ring touches. */
static void local_sum_issue(int g, int blocks, int L) {
  size_t n16 = bytes / 16;
  ptrs s = {};
  for (int i = 0; i < 4; i++) s.p[i] = scratch[g] + i * n16;
  for (int l = 0; l < L; l++)
    sum_kernel<<<blocks, 512, 0, st[g][2]>>>(scratch[g] + 4 * n16, s, 4, n16);
}

static void group_ringsum(void) {
  need_scratch();
  double b = (double)bytes;
  stream_times r = time_progs(all_mask(), [&](int g) { ring_issue(g, 1, 1); });
  line("ce+sum", "ce ring alone", "copies 1", rate(b, r.ms[1]), "");
  for (int blocks : {16, 32, 66, 132}) {
    stream_times a = time_progs(all_mask(), [&](int g) { local_sum_issue(g, blocks, 1); });
    /* enough launches to outlast the ring with a margin for the ring slowing down */
    int L = std::min(256, std::max(1, (int)(1.5 * r.ms[1] / a.ms[2] + 0.999)));
    stream_times t = time_progs(all_mask(), [&](int g) {
      ring_issue(g, 1, 1);
      local_sum_issue(g, blocks, L);
    });
    char detail[32], extra[200];
    snprintf(detail, sizeof detail, "sum blocks %d", blocks);
    snprintf(extra, sizeof extra,
             "  (ring) sum %.0f GB/s HBM (alone %.0f), %d launches, ring %.3f ms sum %.3f ms%s",
             rate(5 * b * L, t.ms[2]), rate(5 * b, a.ms[2]), L, t.ms[1], t.ms[2],
             t.ms[2] < t.ms[1] ? " SUM ENDED FIRST" : "");
    line("ce+sum", "ce ring under local sum", detail, rate(b, t.ms[1]), extra);
  }
}

/* ---- main ---- */

struct group {
  const char *name;
  void (*run)(void);
};
static const group groups[] = {
    {"ce", group_ce},       {"sm", group_sm},           {"sum", group_sum},
    {"cesm", group_cesm},   {"perm", group_perm},       {"gap", group_gap},
    {"gapflag", group_gapflag}, {"pcie", group_pcie},   {"ringsum", group_ringsum},
    {"gapdirect", group_gapdirect}, /* last: a peer memop is the one untried operation */
};
#define NGROUPS (int)(sizeof groups / sizeof groups[0])

/* Returns the number of groups parsed from the comma list into out, or -1 (after printing the
 * error) on an unknown name. */
static int parse_groups(const char *list, std::vector<int> &out) {
  std::vector<char> buf(list, list + strlen(list) + 1);
  char *save = NULL;
  for (char *tok = strtok_r(buf.data(), ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    int found = -1;
    for (int i = 0; i < NGROUPS; i++)
      if (!strcmp(tok, groups[i].name)) found = i;
    if (found < 0) {
      fprintf(stderr, "linkprobe: unknown group '%s' (groups:", tok);
      for (int i = 0; i < NGROUPS; i++) fprintf(stderr, "%s%s", i ? "," : " ", groups[i].name);
      fprintf(stderr, ")\n");
      return -1;
    }
    out.push_back(found);
  }
  return (int)out.size();
}

/* Finds cuStreamWriteValue32 (CUDA 12 ABI) in the driver; leaves write_value NULL if absent. */
static void resolve_write_value(void) {
  cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
  void *f = NULL;
  if (cudaGetDriverEntryPointByVersion("cuStreamWriteValue32", &f, 12000, cudaEnableDefault,
                                       &q) == cudaSuccess &&
      q == cudaDriverEntryPointSuccess && f)
    write_value = (write_value_fn)f;
  else
    (void)cudaGetLastError();
}

int main(int argc, char **argv) {
  bytes = 256ull << 20;
  if (argc > 1) { /* a number with an optional K, M or G (binary) */
    char *end;
    bytes = strtoull(argv[1], &end, 0);
    int sh = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
    if ((*end && !sh) || (sh && end[1])) {
      fprintf(stderr, "linkprobe: bad bytes '%s'\n", argv[1]);
      return 2;
    }
    bytes <<= sh;
  }
  bytes &= ~(size_t)4095; /* so T/k and the halves split on 16-byte vectors exactly */
  reps = argc > 2 ? atoi(argv[2]) : 5;
  if (bytes == 0 || reps < 1) {
    fprintf(stderr, "linkprobe: bytes must be >= 4096 and reps >= 1\n");
    return 2;
  }
  std::vector<int> sel;
  if (argc > 3) {
    int n = parse_groups(argv[3], sel);
    if (n < 0) return 2;
    if (n == 0) {
      fprintf(stderr, "linkprobe: empty group list\n");
      return 2;
    }
  } else {
    for (int i = 0; i < NGROUPS; i++) sel.push_back(i);
  }
  /* the gate holds streams while the host launches: a lazily loaded kernel could wait for the
   * gate kernel to finish, so load every module at start */
  setenv("CUDA_MODULE_LOADING", "EAGER", 1);
  CK(cudaGetDeviceCount(&ng));
  if (ng > MAXG) ng = MAXG;
  if (ng < 2) {
    fprintf(stderr, "linkprobe: needs 2 GPUs, %d visible\n", ng);
    return 1;
  }
  for (int g = 0; g < ng; g++) {
    CK(cudaSetDevice(g));
    for (int q = 0; q < ng; q++)
      if (q != g) {
        cudaError_t e = cudaDeviceEnablePeerAccess(q, 0);
        if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) CK(e);
        (void)cudaGetLastError();
      }
    CK(cudaMalloc(&srcbuf[g], bytes));
    CK(cudaMemset(srcbuf[g], 1, bytes));
    for (int q = 0; q < ng; q++) CK(cudaMalloc(&dstbuf[g][q], bytes));
    uint32_t *w;
    CK(cudaMalloc(&w, 256));
    CK(cudaMemset(w, 0, 256));
    flagw[g] = w, staging[g] = w + 32; /* separate 128-byte lines */
    for (int s = 0; s < NST; s++) {
      CK(cudaStreamCreateWithFlags(&st[g][s], cudaStreamNonBlocking));
      CK(cudaEventCreate(&evend[g][s]));
    }
    CK(cudaEventCreate(&ev0[g]));
    cudaFuncAttributes fa; /* loads the kernels now, whatever the loading mode */
    CK(cudaFuncGetAttributes(&fa, copy_kernel));
    CK(cudaFuncGetAttributes(&fa, sum_kernel));
    CK(cudaFuncGetAttributes(&fa, gate_kernel));
  }
  CK(cudaHostAlloc(&gate_host, 2 * sizeof(unsigned), cudaHostAllocMapped | cudaHostAllocPortable));
  gate_host[0] = gate_host[1] = 0;
  for (int g = 0; g < ng; g++) {
    CK(cudaSetDevice(g));
    CK(cudaHostGetDevicePointer((void **)&gate_dev[g], gate_host, 0));
    CK(cudaDeviceSynchronize());
  }
  resolve_write_value();
  make_flows();
  printf("linkprobe: %d GPUs, %zu bytes per flow, median of %d\n", ng, bytes, reps);
  for (int i : sel) groups[i].run();
  return 0;
}
