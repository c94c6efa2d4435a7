/* The simulated GPU's device memory (tests/sim/fake_gpu.c's opening comment: "Data" and
 * "Processes"): real memory for small buffers and tokens for big ones, this process's own or,
 * under AR_SIM_SHM, its region of the job's file, whose head (struct sim_head) holds what the
 * ranks share; CUDA IPC's memory handles map another process's buffers (its event handles are
 * fake_streams.c's). */
#include <cuda_runtime.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_gpu.h"

#define SIM_REAL_MAX ((size_t)1 << 20)       /* buffers under this are real memory */
#define SIM_HEAD_BYTES ((size_t)1 << 20)     /* the file's head: struct sim_head */
#define SIM_REGION_BYTES ((size_t)128 << 20) /* each process's region of the file */

_Static_assert(sizeof(struct sim_head) <= SIM_HEAD_BYTES, "the head fits its place");

/* One allocation this process knows: its own (cudaMalloc), a mapping of another process's
 * (cudaIpcOpenMemHandle), or a free place of its region (p NULL, span > 0). */
struct sim_alloc {
  unsigned char *p;
  size_t bytes;    /* the buffer's bytes, 0: a token; its inputs follow it (see "Data") */
  size_t at, span; /* its place in the file (span 0: the process's memory) */
  int opened;      /* a mapping: the opens not closed yet */
};

struct sim_mem sim_mem = {.once = PTHREAD_ONCE_INIT, .mu = PTHREAD_MUTEX_INITIALIZER};

/* Maps AR_SIM_SHM's file (once per process) and claims this process's region of it: the
 * launcher's rank, or the next unclaimed one. Ends the process when it cannot. */
static void sim_mem_open(void) {
  const char *path = getenv("AR_SIM_SHM"), *idx = getenv("OMPI_COMM_WORLD_RANK");
  sim_mem.head = &sim_mem.own_head;
  if (!path || !*path) return;
  if (!idx) idx = getenv("PMI_RANK");
  size_t total = SIM_HEAD_BYTES + SIM_REGIONS * SIM_REGION_BYTES;
  struct stat st;
  void *m = MAP_FAILED;
  int fd = open(path, O_RDWR | O_CREAT, 0600);
  if (fd >= 0 && fstat(fd, &st) == 0 &&
      ((size_t)st.st_size >= total || ftruncate(fd, (off_t)total) == 0))
    m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (m == MAP_FAILED) {
    fprintf(stderr, "fake_gpu: AR_SIM_SHM=%s: %s\n", path, strerror(errno));
    exit(1);
  }
  close(fd);
  sim_mem.base = m;
  sim_mem.head = m;
  sim_mem.region = idx ? atoi(idx)
                       : __atomic_fetch_add(&sim_mem.head->next_region, 1, __ATOMIC_SEQ_CST);
  if (sim_mem.region < 0 || sim_mem.region >= SIM_REGIONS) {
    fprintf(stderr, "fake_gpu: AR_SIM_SHM=%s: process %d, but the file has %d regions\n", path,
            sim_mem.region, SIM_REGIONS);
    exit(1);
  }
}
struct sim_head *sim_head(void) {
  pthread_once(&sim_mem.once, sim_mem_open);
  return sim_mem.head;
}
/* 1 when the processes of the job share device memory (AR_SIM_SHM). */
int sim_shared(void) {
  sim_head();
  return sim_mem.base != NULL;
}
/* Under AR_SIM_SHM: this process's NCCL_HOSTID into the head, for every process to read (made
 * by each process's first cudaGetDeviceProperties and again at ncclCommInitRank: before any
 * rank of the job enqueues). */
void sim_note_hostid(void) {
  const char *id = getenv("NCCL_HOSTID");
  if (!sim_shared()) return;
  snprintf(sim_mem.head->hostid[sim_mem.region], sizeof(sim_mem.head->hostid[0]), "%s",
           id ? id : "");
}
/* The host of process p of procs as NCCL would see it: the first process with its NCCL_HOSTID
 * (all 0 where none set one, or without AR_SIM_SHM). */
int sim_hostid_of(int p, int procs) {
  struct sim_head *h = sim_head();
  if (!sim_mem.base || p < 0 || p >= SIM_REGIONS) return 0;
  int q = 0;
  while (q < p && q < procs && strcmp(h->hostid[q], h->hostid[p])) q++;
  return q;
}
/* A buffer's name in struct sim_head: its offset in the file, or its address without one. */
unsigned long long sim_name(const void *p) {
  return sim_mem.base ? (unsigned long long)((const unsigned char *)p - sim_mem.base)
                      : (unsigned long long)(uintptr_t)p;
}
/* The address in this process of the buffer named `at` (sim_name). */
unsigned char *sim_at(unsigned long long at) {
  return sim_mem.base ? sim_mem.base + at : (unsigned char *)(uintptr_t)at;
}

/* The entry of p (a base cudaMalloc or cudaIpcOpenMemHandle returned), NULL if none; with
 * sim_mem.mu held. */
static struct sim_alloc *sim_find(const void *p) {
  for (size_t k = 0; k < sim_mem.ntab && p; k++)
    if (sim_mem.tab[k].p == p) return &sim_mem.tab[k];
  return NULL;
}
/* Adds a to the table; 0 when out of memory. With sim_mem.mu held. */
static int sim_add(const struct sim_alloc *a) {
  if (sim_mem.ntab == sim_mem.captab) {
    size_t cap = sim_mem.captab ? 2 * sim_mem.captab : 64;
    struct sim_alloc *t = realloc(sim_mem.tab, cap * sizeof(*t));
    if (!t) return 0;
    sim_mem.tab = t;
    sim_mem.captab = cap;
  }
  sim_mem.tab[sim_mem.ntab++] = *a;
  return 1;
}
/* Removes entry a from the table. With sim_mem.mu held. */
static void sim_drop(struct sim_alloc *a) { *a = sim_mem.tab[--sim_mem.ntab]; }

/* `need` zeroed bytes of this process's region: a free place of need to 2 x need bytes, or
 * new ones; sets *at and *span (the bytes taken). NULL when the region is full. With
 * sim_mem.mu held. */
unsigned char *sim_take(size_t need, size_t *at, size_t *span) {
  need = (need + 255) / 256 * 256;
  if (need == 0) need = 256;
  for (size_t k = 0; k < sim_mem.ntab; k++) {
    struct sim_alloc *f = &sim_mem.tab[k];
    if (!f->p && f->span >= need && f->span <= 2 * need) {
      *at = f->at, *span = f->span;
      sim_drop(f);
      memset(sim_mem.base + *at, 0, *span);
      return sim_mem.base + *at;
    }
  }
  if (sim_mem.used + need > SIM_REGION_BYTES) return NULL;
  *at = SIM_HEAD_BYTES + (size_t)sim_mem.region * SIM_REGION_BYTES + sim_mem.used;
  *span = need;
  sim_mem.used += need;
  memset(sim_mem.base + *at, 0, need); /* a region used by an earlier job of this file */
  return sim_mem.base + *at;
}
/* Gives the place (at, span) of the region back; 0 when out of memory. With sim_mem.mu held. */
int sim_give(size_t at, size_t span) {
  struct sim_alloc f = {.at = at, .span = span};
  return sim_add(&f);
}

/* Bytes of real memory at p (a pointer cudaMalloc or cudaIpcOpenMemHandle returned), 0 for a
 * token or unknown. */
size_t sim_real_bytes(const void *p) {
  pthread_mutex_lock(&sim_mem.mu);
  struct sim_alloc *a = sim_find(p);
  size_t bytes = a ? a->bytes : 0;
  pthread_mutex_unlock(&sim_mem.mu);
  return bytes;
}

/* Bytes of real memory from p (anywhere in a buffer cudaMalloc made) to the buffer's end, 0
 * for a token or unknown. */
size_t sim_real_left(const void *p) {
  size_t left = 0;
  pthread_mutex_lock(&sim_mem.mu);
  for (size_t k = 0; k < sim_mem.ntab && !left; k++) {
    const struct sim_alloc *a = &sim_mem.tab[k];
    if (a->p && (const unsigned char *)p >= a->p && (const unsigned char *)p < a->p + a->bytes)
      left = a->bytes - (size_t)((const unsigned char *)p - a->p);
  }
  pthread_mutex_unlock(&sim_mem.mu);
  return left;
}

/* Real memory for buffers under 1 MiB (the harness's own, small data buffers; three times the
 * size: see "Data"), in the file under AR_SIM_SHM; a token for the big data buffers. */
cudaError_t cudaMalloc(void **p, size_t bytes) {
  const char *cap = getenv("AR_SIM_MEM");
  *p = NULL;
  if (cap && bytes > strtoull(cap, NULL, 10)) return cudaErrorMemoryAllocation;
  sim_head();
  int real = bytes < SIM_REAL_MAX;
  struct sim_alloc a = {.bytes = real ? bytes : 0};
  pthread_mutex_lock(&sim_mem.mu);
  if (real && sim_mem.base) a.p = sim_take(3 * bytes, &a.at, &a.span);
  else a.p = calloc(1, real ? 3 * bytes : 1);
  if (a.p && !sim_add(&a)) {
    if (a.span) sim_give(a.at, a.span);
    else free(a.p);
    a.p = NULL;
  }
  pthread_mutex_unlock(&sim_mem.mu);
  *p = a.p;
  return a.p ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaFree(void *p) {
  if (!p) return cudaSuccess;
  pthread_mutex_lock(&sim_mem.mu);
  struct sim_alloc *a = sim_find(p);
  int ok = a && !a->opened; /* as CUDA: a mapping is closed, not freed */
  if (ok && a->span) a->p = NULL; /* a free place of the region */
  else if (ok) {
    free(a->p);
    sim_drop(a);
  }
  pthread_mutex_unlock(&sim_mem.mu);
  return ok ? cudaSuccess : cudaErrorInvalidValue;
}

/* The handle of an allocation of this process (its base pointer). */
cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *h, void *p) {
  if (!sim_shared()) return cudaErrorNotSupported; /* no AR_SIM_SHM */
  pthread_mutex_lock(&sim_mem.mu);
  struct sim_alloc *a = sim_find(p);
  struct sim_ipc x = {SIM_IPC_MAGIC, sim_mem.region, a ? a->at : 0, a ? a->bytes : 0};
  int ok = a && !a->opened;
  pthread_mutex_unlock(&sim_mem.mu);
  if (!ok) return cudaErrorInvalidValue;
  memset(h, 0, sizeof(*h));
  memcpy(h->reserved, &x, sizeof(x));
  return cudaSuccess;
}
/* Maps another process's allocation: the same bytes of the file (an open of one already open
 * counts, as CUDA's), or a token of this process for a token. */
cudaError_t cudaIpcOpenMemHandle(void **p, cudaIpcMemHandle_t h, unsigned flags) {
  struct sim_ipc x;
  memcpy(&x, h.reserved, sizeof(x));
  *p = NULL;
  if (!sim_shared()) return cudaErrorNotSupported;
  if (x.magic != SIM_IPC_MAGIC || flags != cudaIpcMemLazyEnablePeerAccess)
    return cudaErrorInvalidValue;
  if (x.region == sim_mem.region) return cudaErrorDeviceUninitialized; /* as CUDA: not here */
  struct sim_alloc a = {.p = x.bytes ? sim_mem.base + x.at : calloc(1, 1), .bytes = x.bytes,
                        .opened = 1};
  pthread_mutex_lock(&sim_mem.mu);
  struct sim_alloc *open = x.bytes ? sim_find(a.p) : NULL;
  int ok = a.p && (open ? ++open->opened : sim_add(&a));
  pthread_mutex_unlock(&sim_mem.mu);
  if (!ok && !x.bytes) free(a.p);
  *p = ok ? a.p : NULL;
  return ok ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaIpcCloseMemHandle(void *p) {
  pthread_mutex_lock(&sim_mem.mu);
  struct sim_alloc *a = sim_find(p);
  int ok = a && a->opened;
  if (ok && --a->opened == 0) {
    if (!a->bytes) free(a->p);
    sim_drop(a);
  }
  pthread_mutex_unlock(&sim_mem.mu);
  return ok ? cudaSuccess : cudaErrorInvalidValue;
}

cudaError_t cudaHostAlloc(void **p, size_t bytes, unsigned flags) {
  (void)flags;
  *p = calloc(1, bytes);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaFreeHost(void *p) {
  free(p);
  return cudaSuccess;
}
cudaError_t cudaMemset(void *p, int v, size_t bytes) {
  memset(p, v, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void *p, int v, size_t bytes, cudaStream_t s) {
  (void)s;
  memset(p, v, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind k) {
  (void)k;
  memcpy(dst, src, bytes);
  return cudaSuccess;
}
