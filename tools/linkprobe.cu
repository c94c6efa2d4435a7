/* linkprobe: what one GPU's NVLink port delivers with each way of moving data, to choose the
 * transports' primitives (docs/performance.md). Not part of arbench's measurements: no
 * correctness check, one process, every GPU driven from one host thread.
 *
 * Per test: `bytes` per flow, `reps` repetitions after one warm-up, the median over reps of
 * the slowest GPU's (end - start) event time; reported as GB/s per GPU port (the bytes one GPU
 * sends, or receives for pulls, over that time). Flows: ce (cudaMemcpyAsync on peer pointers,
 * one stream per flow), sm-store (a kernel writes 16-byte vectors into peer memory), sm-load
 * (a kernel reads peer memory into local memory), sm-sum (reads a chunk from every GPU, sums,
 * writes locally: a direct reduce-scatter's pull).
 * Usage: linkprobe [bytes_per_flow (default 256M)] [reps (default 5)] */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#define MAXG 8
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

static int ng;
static size_t bytes;
static int reps;
static uint4 *srcbuf[MAXG], *dstbuf[MAXG][MAXG]; /* dstbuf[g][q]: on g, room for q's flow */
static cudaStream_t st[MAXG][MAXG];
static cudaEvent_t ev0[MAXG], ev1[MAXG], joined[MAXG][MAXG]; /* joined: stream q's end */

enum kind { CE, STORE, LOAD, SUM, CE_STORE };
static const char *kname[] = {"ce", "sm-store", "sm-load", "sm-sum", "ce+sm-store"};

/* flows[g] = peers g sends to (store/ce) or reads from (load); active GPUs have >= 1 flow. */
static double run_test(kind k, std::vector<std::vector<int>> flows, int blocks) {
  std::vector<double> t;
  size_t n16 = bytes / 16;
  for (int rep = -1; rep < reps; rep++) {
    for (int g = 0; g < ng; g++) {
      if (flows[g].empty()) continue;
      CK(cudaSetDevice(g));
      CK(cudaEventRecord(ev0[g], st[g][0]));
      for (int q = 1; q < ng; q++) CK(cudaStreamWaitEvent(st[g][q], ev0[g], 0));
    }
    for (int g = 0; g < ng; g++) {
      if (flows[g].empty()) continue;
      CK(cudaSetDevice(g));
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
      CK(cudaGetLastError());
    }
    for (int g = 0; g < ng; g++) {
      if (flows[g].empty()) continue;
      CK(cudaSetDevice(g));
      for (int q = 1; q < ng; q++) {
        CK(cudaEventRecord(joined[g][q], st[g][q]));
        CK(cudaStreamWaitEvent(st[g][0], joined[g][q], 0));
      }
      CK(cudaEventRecord(ev1[g], st[g][0]));
    }
    double worst = 0;
    for (int g = 0; g < ng; g++) {
      if (flows[g].empty()) continue;
      CK(cudaSetDevice(g));
      CK(cudaEventSynchronize(ev1[g]));
      float ms;
      CK(cudaEventElapsedTime(&ms, ev0[g], ev1[g]));
      worst = std::max(worst, (double)ms);
    }
    if (rep >= 0) t.push_back(worst);
  }
  std::sort(t.begin(), t.end());
  double ms = t[t.size() / 2];
  size_t per_gpu = 0;
  for (int g = 0; g < ng; g++) per_gpu = std::max(per_gpu, flows[g].size());
  return (double)bytes * per_gpu / (ms * 1e-3) / 1e9;
}

static void report(const char *what, kind k, std::vector<std::vector<int>> flows, int blocks) {
  double gbs = run_test(k, flows, blocks);
  printf("%-12s %-28s blocks/flow %4d  %7.1f GB/s per GPU port\n", kname[k], what,
         k == CE ? 0 : blocks, gbs);
  fflush(stdout);
}

int main(int argc, char **argv) {
  bytes = argc > 1 ? strtoull(argv[1], NULL, 0) : (256ull << 20);
  reps = argc > 2 ? atoi(argv[2]) : 5;
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
    for (int q = 0; q < ng; q++) {
      CK(cudaStreamCreateWithFlags(&st[g][q], cudaStreamNonBlocking));
      CK(cudaEventCreateWithFlags(&joined[g][q], cudaEventDisableTiming));
    }
    CK(cudaEventCreate(&ev0[g]));
    CK(cudaEventCreate(&ev1[g]));
  }
  printf("linkprobe: %d GPUs, %zu bytes per flow, median of %d\n", ng, bytes, reps);
  std::vector<std::vector<int>> one(ng), fan(ng), ring(ng), all(ng);
  one[0] = {1};
  for (int q = 1; q < ng; q++) fan[0].push_back(q);
  for (int g = 0; g < ng; g++) {
    ring[g] = {(g + 1) % ng};
    for (int q = 0; q < ng; q++)
      if (q != g) all[g].push_back(q);
  }
  report("0->1", CE, one, 0);
  report("0->all peers", CE, fan, 0);
  report("ring (all GPUs)", CE, ring, 0);
  report("all-to-all", CE, all, 0);
  const int bl[] = {8, 16, 32, 64, 132};
  for (kind k : {STORE, LOAD}) {
    for (int b : bl) report("0->1", k, one, b);
    for (int b : {16, 44}) report("0->all peers", k, fan, b);
    for (int b : {32, 64, 132}) report("ring (all GPUs)", k, ring, b);
    for (int b : {16, 32, 44}) report("all-to-all", k, all, b);
  }
  for (int b : {66, 132, 264, 528}) report("all GPUs, 4 sources", SUM, all, b);
  for (int b : {16, 32, 64}) report("0->1 half each", CE_STORE, one, b);
  for (int b : {16, 32, 64}) report("ring half each", CE_STORE, ring, b);
  return 0;
}
