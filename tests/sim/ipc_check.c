/* The simulated GPU's pieces for MPI jobs (tests/sim/fake_gpu.c), checked without the harness:
 * under `mpirun -np 2 -x AR_SIM_SHM=PATH` CUDA IPC of real and token buffers, interprocess
 * events, the GPUs' uuids and NCCL across the two processes; alone and without AR_SIM_SHM,
 * that the IPC calls fail. Prints "N passed, N failed" (process 0, for both); exit 1 on a
 * failure. Built by tests/test_mpi_sim.sh. */
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <stdlib.h>

#include "cuda/delay.h"
#include "cuda/kernels.h"
#include "test.h"

#define NELEM 1000 /* a real buffer of floats */

/* Alone, without AR_SIM_SHM: nothing to share with. */
static void check_unshared(void) {
  void *p = NULL;
  cudaIpcMemHandle_t h;
  cudaEvent_t e = NULL;
  cudaIpcEventHandle_t eh;
  CHECK_INT(cudaMalloc(&p, 4096), ==, cudaSuccess);
  CHECK_INT(cudaIpcGetMemHandle(&h, p), ==, cudaErrorNotSupported);
  CHECK_INT(cudaEventCreateWithFlags(&e, cudaEventDisableTiming | cudaEventInterprocess), ==,
            cudaSuccess);
  CHECK_INT(cudaIpcGetEventHandle(&eh, e), ==, cudaErrorNotSupported);
  CHECK_INT(cudaEventDestroy(e), ==, cudaSuccess);
  CHECK_INT(cudaFree(p), ==, cudaSuccess);
}

/* Device d's uuid is one in both processes, and another than device e's. */
static void check_uuid(void) {
  struct cudaDeviceProp p0, p1;
  char all[2][16];
  cudaGetDeviceProperties(&p0, 0);
  cudaGetDeviceProperties(&p1, 1);
  MPI_Allgather(p0.uuid.bytes, 16, MPI_CHAR, all, 16, MPI_CHAR, MPI_COMM_WORLD);
  CHECK(!memcmp(all[0], all[1], 16), "device 0's uuid differs between the processes");
  CHECK(memcmp(p0.uuid.bytes, p1.uuid.bytes, 16), "devices 0 and 1 have one uuid");
}

/* Process 0's real and token buffers, mapped by process 1. */
static void check_memory(int me) {
  unsigned char *real = NULL, *token = NULL;
  cudaIpcMemHandle_t h[2];
  if (me == 0) {
    CHECK_INT(cudaMalloc((void **)&real, 4096), ==, cudaSuccess);
    CHECK_INT(cudaMalloc((void **)&token, 4 << 20), ==, cudaSuccess);
    for (int i = 0; i < 4096; i++) real[i] = (unsigned char)(i * 7);
    CHECK_INT(cudaIpcGetMemHandle(&h[0], real), ==, cudaSuccess);
    CHECK_INT(cudaIpcGetMemHandle(&h[1], token), ==, cudaSuccess);
    void *own = NULL; /* as CUDA: not in the process that made it */
    CHECK_INT(cudaIpcOpenMemHandle(&own, h[0], cudaIpcMemLazyEnablePeerAccess), !=, cudaSuccess);
    CHECK(own == NULL, "own handle opened at %p", own);
    CHECK_INT(cudaIpcGetMemHandle(&h[1], real + 1), !=, cudaSuccess); /* not a base */
    CHECK_INT(cudaIpcGetMemHandle(&h[1], token), ==, cudaSuccess);
  }
  MPI_Bcast(h, sizeof(h), MPI_BYTE, 0, MPI_COMM_WORLD);
  if (me == 1) {
    unsigned char *p = NULL, *again = NULL, *tok = NULL;
    CHECK_INT(cudaIpcOpenMemHandle((void **)&p, h[0], 0), ==, cudaErrorInvalidValue); /* flag */
    CHECK_INT(cudaIpcOpenMemHandle((void **)&p, h[0], cudaIpcMemLazyEnablePeerAccess), ==,
              cudaSuccess);
    int same = p != NULL;
    for (int i = 0; i < 4096 && same; i++) same = p[i] == (unsigned char)(i * 7);
    CHECK(same, "process 1 does not read process 0's bytes");
    CHECK_INT(cudaIpcOpenMemHandle((void **)&again, h[0], cudaIpcMemLazyEnablePeerAccess), ==,
              cudaSuccess);
    CHECK(again == p, "a second open: %p, the first %p", (void *)again, (void *)p);
    CHECK_INT(cudaFree(p), ==, cudaErrorInvalidValue); /* a mapping is closed, not freed */
    if (p) p[5] = 0xab;
    CHECK_INT(cudaIpcOpenMemHandle((void **)&tok, h[1], cudaIpcMemLazyEnablePeerAccess), ==,
              cudaSuccess);
    CHECK(tok != NULL, "no token");
    CHECK_INT(cudaIpcCloseMemHandle(tok), ==, cudaSuccess);
    CHECK_INT(cudaIpcCloseMemHandle(p), ==, cudaSuccess);
    CHECK_INT(cudaIpcCloseMemHandle(p), ==, cudaSuccess);
    CHECK_INT(cudaIpcCloseMemHandle(p), ==, cudaErrorInvalidValue); /* closed twice already */
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) {
    CHECK_INT(real[5], ==, 0xab);
    CHECK_INT(cudaFree(real), ==, cudaSuccess);
    CHECK_INT(cudaFree(token), ==, cudaSuccess);
  }
}

/* elapsed ms from a new stream's start to after it waited on e, then further us more */
static double wait_ms(cudaEvent_t e, cudaStream_t s) {
  cudaEvent_t a, b;
  float ms = -1;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  cudaEventRecord(a, s);
  cudaStreamWaitEvent(s, e, 0);
  cudaEventRecord(b, s);
  cudaEventElapsedTime(&ms, a, b);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return ms;
}

/* Process 0's interprocess event: process 1 waits on its stamp, then records it anew. */
static void check_events(int me) {
  cudaEvent_t e = NULL, bad = NULL;
  cudaStream_t s;
  cudaIpcEventHandle_t h;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  CHECK_INT(cudaEventCreateWithFlags(&bad, cudaEventInterprocess), ==, cudaErrorInvalidValue);
  if (me == 0) {
    cudaEvent_t plain;
    cudaEventCreateWithFlags(&plain, cudaEventDisableTiming);
    CHECK_INT(cudaIpcGetEventHandle(&h, plain), !=, cudaSuccess);
    cudaEventDestroy(plain);
    CHECK_INT(cudaEventCreateWithFlags(&e, cudaEventDisableTiming | cudaEventInterprocess), ==,
              cudaSuccess);
    ar_delay_launch(123, s);
    cudaEventRecord(e, s);
    CHECK_INT(cudaIpcGetEventHandle(&h, e), ==, cudaSuccess);
    cudaEvent_t own = NULL;
    CHECK_INT(cudaIpcOpenEventHandle(&own, h), !=, cudaSuccess);
  }
  MPI_Bcast(&h, sizeof(h), MPI_BYTE, 0, MPI_COMM_WORLD);
  if (me == 1) {
    CHECK_INT(cudaIpcOpenEventHandle(&e, h), ==, cudaSuccess);
    if (e) {
      double ms = wait_ms(e, s);
      CHECK(ms > 0.1229 && ms < 0.1231, "process 1 waited %g ms, want 0.123", ms);
      ar_delay_launch(1000, s); /* the stream is at 1123 us */
      cudaEventRecord(e, s);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0 && e) {
    cudaStream_t s2;
    cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
    double ms = wait_ms(e, s2);
    CHECK(ms > 1.1229 && ms < 1.1231, "process 0 waited %g ms, want 1.123", ms);
    cudaStreamDestroy(s2);
  }
  MPI_Barrier(MPI_COMM_WORLD); /* process 1 is done with it before it goes */
  if (e) CHECK_INT(cudaEventDestroy(e), ==, cudaSuccess);
  cudaStreamDestroy(s);
}

/* One communicator of two ranks, rank r on device r: NCCL's sum of the inputs the two
 * processes' fills wrote; a third rank on device 0 is refused, another id fails the sum. */
static void check_nccl(int me) {
  ncclUniqueId id;
  ncclComm_t c = NULL, extra = NULL;
  cudaStream_t s;
  float *d = NULL;
  unsigned long long wrong = 0;
  if (me == 0) ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  cudaSetDevice(me);
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  CHECK_INT(ncclCommInitRank(&c, 2, id, me), ==, ncclSuccess);
  CHECK_INT(cudaMalloc((void **)&d, NELEM * sizeof(float)), ==, cudaSuccess);
  ar_fill_launch(d, NELEM, AR_DT_F32, me, 42, s);
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 1) { /* a rank on a GPU that process 0's rank 0 holds */
    cudaSetDevice(0);
    CHECK_INT(ncclCommInitRank(&extra, 3, id, 2), ==, ncclInvalidUsage);
    cudaSetDevice(1);
  }
  CHECK_INT(ncclAllReduce(d, d, NELEM, ncclFloat32, ncclSum, c, s), ==, ncclSuccess);
  ar_check_launch(d, NELEM, AR_DT_F32, 2, 42, &wrong, s);
  CHECK_INT(wrong, ==, 0);
  MPI_Barrier(MPI_COMM_WORLD);
  ncclCommDestroy(c);
  MPI_Barrier(MPI_COMM_WORLD);
  ncclUniqueId mine; /* a communicator with an id of its own: not the same job */
  ncclGetUniqueId(&mine);
  CHECK_INT(ncclCommInitRank(&c, 2, me == 0 ? id : mine, me), ==, ncclSuccess);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_INT(ncclAllReduce(d, d, NELEM, ncclFloat32, ncclSum, c, s), ==, ncclInvalidUsage);
  ncclCommDestroy(c);
  cudaFree(d);
  cudaStreamDestroy(s);
}

int main(int argc, char **argv) {
  int me = 0, np = 1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (!getenv("AR_SIM_SHM")) check_unshared();
  else if (np == 2) {
    check_uuid();
    check_memory(me);
    check_events(me);
    check_nccl(me);
  } else
    CHECK_INT(np, ==, 2);
  int v[2] = {test_passed, test_failed}, sum[2] = {0, 0};
  MPI_Reduce(v, sum, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (me == 0) printf("%d passed, %d failed\n", sum[0], sum[1]);
  MPI_Finalize();
  return test_failed != 0;
}
