/* NCCL's memory and buffer registration for the simulated GPU (tests/sim/fake_gpu.c has the
 * rest of the fake, and names every environment variable read here in its opening comment):
 * ncclMemAlloc / ncclMemFree (the fake's cudaMalloc / cudaFree, remembered as NCCL's),
 * ncclCommRegister / ncclCommDeregister and ncclCommWindowRegister / ncclCommWindowDeregister.
 * They refuse what real NCCL refuses: no communicator, no buffer or size, a window on memory
 * ncclMemAlloc did not make (symmetric windows need it), a handle of another communicator or
 * kind; and what is a bug whatever
 * NCCL says: freeing a buffer while it is registered, deregistering twice. AR_SIM_REG_FAIL=1
 * makes every registration fail (ncclSystemError), as a driver without the support would. */
#include <cuda_runtime.h>
#include <nccl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define REG_MAX 256

/* What this process's ncclMemAlloc made and what is registered, with its communicator. */
static struct {
  pthread_mutex_t mu;
  void *mem[REG_MAX];
  size_t nmem;
  struct reg {
    ncclComm_t comm;
    const char *p;
    size_t bytes;
    int window; /* 1: a window (ncclCommWindowRegister), 0: ncclCommRegister's */
  } reg[REG_MAX];
  int live[REG_MAX];
} fk = {.mu = PTHREAD_MUTEX_INITIALIZER};

/* 1 when p was made by ncclMemAlloc and not freed. With fk.mu held. */
static int nccl_made(const void *p) {
  for (size_t i = 0; i < fk.nmem; i++)
    if (fk.mem[i] == p) return 1;
  return 0;
}

/* 1 when a live registration starts at p (by base: the fake's big buffers are 1-byte tokens,
 * so a registration's byte range may cover other allocations). With fk.mu held. */
static int registered(const void *p) {
  for (int i = 0; i < REG_MAX; i++)
    if (fk.live[i] && fk.reg[i].p == (const char *)p) return 1;
  return 0;
}

ncclResult_t ncclMemAlloc(void **ptr, size_t size) {
  if (!ptr || !size) return ncclInvalidArgument;
  if (cudaMalloc(ptr, size) != cudaSuccess) return ncclUnhandledCudaError;
  pthread_mutex_lock(&fk.mu);
  int ok = fk.nmem < REG_MAX;
  if (ok) fk.mem[fk.nmem++] = *ptr;
  pthread_mutex_unlock(&fk.mu);
  if (!ok) cudaFree(*ptr);
  return ok ? ncclSuccess : ncclSystemError;
}

ncclResult_t ncclMemFree(void *ptr) {
  pthread_mutex_lock(&fk.mu);
  size_t i = 0;
  while (i < fk.nmem && fk.mem[i] != ptr) i++;
  int known = i < fk.nmem, busy = known && registered(ptr);
  if (known && !busy) fk.mem[i] = fk.mem[--fk.nmem];
  pthread_mutex_unlock(&fk.mu);
  if (busy) fprintf(stderr, "fake_gpu: ncclMemFree: the buffer is still registered\n");
  if (!known || busy) return ncclInvalidUsage;
  return cudaFree(ptr) == cudaSuccess ? ncclSuccess : ncclUnhandledCudaError;
}

/* Registers [buff, buff + size) with comm; *handle is the registration. */
static ncclResult_t reg_add(ncclComm_t comm, void *buff, size_t size, int window, void **handle) {
  const char *fail = getenv("AR_SIM_REG_FAIL");
  if (!comm || !buff || !size || !handle) return ncclInvalidArgument;
  if (fail && fail[0] == '1') return ncclSystemError;
  pthread_mutex_lock(&fk.mu);
  int slot = -1, made = nccl_made(buff);
  for (int i = 0; i < REG_MAX && slot < 0; i++)
    if (!fk.live[i]) slot = i;
  if (slot >= 0 && (made || !window)) {
    fk.reg[slot] = (struct reg){comm, buff, size, window};
    fk.live[slot] = 1;
  }
  pthread_mutex_unlock(&fk.mu);
  if (slot < 0) return ncclSystemError;
  if (window && !made) {
    fprintf(stderr, "fake_gpu: ncclCommWindowRegister: the buffer is not ncclMemAlloc's\n");
    return ncclInvalidUsage;
  }
  *handle = &fk.reg[slot];
  return ncclSuccess;
}

/* Drops the registration `handle` of comm (of the kind `window`). */
static ncclResult_t reg_drop(ncclComm_t comm, void *handle, int window) {
  if (!comm || !handle) return ncclInvalidArgument;
  pthread_mutex_lock(&fk.mu);
  int i = (int)((struct reg *)handle - fk.reg);
  int ok = i >= 0 && i < REG_MAX && fk.live[i] && fk.reg[i].comm == comm &&
           fk.reg[i].window == window;
  if (ok) fk.live[i] = 0;
  pthread_mutex_unlock(&fk.mu);
  return ok ? ncclSuccess : ncclInvalidArgument;
}

ncclResult_t ncclCommRegister(const ncclComm_t comm, void *buff, size_t size, void **handle) {
  return reg_add(comm, buff, size, 0, handle);
}
ncclResult_t ncclCommDeregister(const ncclComm_t comm, void *handle) {
  return reg_drop(comm, handle, 0);
}
ncclResult_t ncclCommWindowRegister(ncclComm_t comm, void *buff, size_t size, ncclWindow_t *win,
                                    int winFlags) {
  void *h = NULL;
  if (winFlags & ~NCCL_WIN_COLL_SYMMETRIC) return ncclInvalidArgument;
  ncclResult_t r = reg_add(comm, buff, size, 1, &h);
  if (r == ncclSuccess) *win = (ncclWindow_t)h;
  return r;
}
ncclResult_t ncclCommWindowDeregister(ncclComm_t comm, ncclWindow_t win) {
  return reg_drop(comm, (void *)win, 1);
}
