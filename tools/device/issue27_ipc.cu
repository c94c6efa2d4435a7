// #27: can another process map ncclMemAlloc's memory the way arbench maps data buffers under
// MPI (cudaIpcGetMemHandle, harness/bench/bench_peers.c)? Prints the answer for ncclMemAlloc'd and
// for cudaMalloc'd memory on device 0, and whether device 1 may read the first (peer access).
//   nvcc -o /tmp/ipc tools/device/issue27_ipc.cu -lnccl && /tmp/ipc
#include <cuda_runtime.h>
#include <nccl.h>
#include <stdio.h>

int main(void) {
  void *p = NULL, *q = NULL;
  cudaIpcMemHandle_t h;
  cudaSetDevice(0);
  ncclResult_t r = ncclMemAlloc(&p, 64 << 20);
  printf("ncclMemAlloc(64 MiB): %s\n", ncclGetErrorString(r));
  cudaError_t e = cudaIpcGetMemHandle(&h, p);
  printf("cudaIpcGetMemHandle(ncclMemAlloc'd): %s\n", cudaGetErrorString(e));
  cudaGetLastError();
  cudaMalloc(&q, 64 << 20);
  e = cudaIpcGetMemHandle(&h, q);
  printf("cudaIpcGetMemHandle(cudaMalloc'd): %s\n", cudaGetErrorString(e));
  int n = 0;
  cudaGetDeviceCount(&n);
  if (n > 1) { // device 1 copies from device 0's ncclMemAlloc'd buffer
    void *d = NULL;
    cudaSetDevice(1);
    cudaDeviceEnablePeerAccess(0, 0);
    cudaGetLastError();
    cudaMalloc(&d, 1 << 20);
    e = cudaMemcpy(d, p, 1 << 20, cudaMemcpyDeviceToDevice);
    printf("device 1 copies from it: %s\n", cudaGetErrorString(e));
  }
  return 0;
}
