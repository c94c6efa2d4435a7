/* A simulated GPU machine for the harness's CPU tests (tests/test_sim.sh): the CUDA runtime,
 * NCCL, the harness kernels and the transports, replaced by stream clocks. Linked with the
 * real harness objects it makes `arbench-sim`, which runs `arbench run` end to end (threads,
 * barriers, jobs, the critical-delay search, the CSVs, plots/) with no GPU; linked with the
 * harness of `make MPI=1` it runs under mpirun, one process per rank or several ranks each
 * (tests/test_mpi_sim.sh).
 *
 * Each stream has a clock (us). Recording an event stamps the clock; waiting on an event moves
 * the clock up to its stamp; the straggler's delay kernel adds the delay; a transport's
 * AllReduce adds the model's time (alpha 3 us, 450 GB/s: crit_model_hw; ll, whose round is
 * one crossing of the link, 2 us a round), where a straggler-aware schedule's precondition
 * runs on the other ranks only. With the harness's aligned start events and its max over
 * ranks, an iteration then takes exactly the model's max(delay, precondition) + the rest, so
 * a search's answer must equal the model's (on ll, the model's at 2 us a round).
 *
 * Environment (every variable the fake reads):
 * AR_SIM_GPUS (default 4), AR_SIM_SMS (SMs per GPU, default 132 as an H100 SXM or H200),
 * AR_SIM_MEM (bytes one cudaMalloc may take; default unlimited), AR_SIM_WRONG=ALGO (every
 * check of that algorithm finds one wrong element), AR_SIM_STALE=ALGO (that algorithm's
 * transports read stale data on every odd iteration of a row: the peers' inputs of the
 * iteration before, as a scratch slot read before this iteration's data landed would hold; see
 * "data" below), AR_SIM_SCALE=X (every transport's time times X: a regression to find),
 * AR_SIM_NO_BW=1 (the healthy bandwidth of --degrade cannot be measured), AR_SIM_ROUNDS=1 (the
 * transports mark their rounds for --phases, struct tp_marks: ce and nccl-p2p by events, sm and
 * ll by clock stamps in "device" memory; the precondition's rounds split its time evenly, the
 * other rounds the rest's; without it no transport marks, and phases.csv has no round lines),
 * AR_SIM_BAD_SUM=ALGO,... (every AllReduce of those algorithms, "nccl" for ncclAllReduce,
 * leaves its first element one off the sum in a real buffer: a wrong result the check must
 * find by comparing), AR_SIM_NO_CAPTURE=TRANSPORT (that transport's enqueue fails under
 * stream capture and invalidates it, as a step CUDA cannot capture would; the capture calls
 * are "CUDA graphs" below), AR_SIM_SHM=PATH (the processes of an MPI job share device
 * memory: see "processes" below),
 * AR_SIM_KILL=RANK:K (rank RANK's process kills itself with SIGKILL at that rank's K-th
 * AllReduce, counting from 1 over the run's rows, warm-up included, nccl's and the
 * transports'), AR_SIM_HANG=RANK:K (rank RANK's thread sleeps forever at its K-th AllReduce
 * instead), AR_SIM_STOP=RANK:K (rank RANK's process stops itself with SIGSTOP there, every
 * thread of it, as `kill -STOP` would), AR_SIM_HOSTS=K (an MPI job's processes say they run on K hosts: gethostname
 * answers "simhostH", H = process x K / processes, from OMPI_COMM_WORLD_RANK and
 * OMPI_COMM_WORLD_SIZE; the harness then keeps each host's memory to itself, as on real
 * nodes; without it, a process's host is the one its NCCL_HOSTID names, as NCCL's would be:
 * the processes arbench groups into hosts with procs.hosts), NCCL_DEBUG=INFO (the fake NCCL
 * names its path to each peer at ncclCommInitRank, as NCCL does: sim_nccl_paths; between hosts
 * NET/Socket where NCCL_SOCKET_IFNAME=lo and NCCL_NET=Socket, else NET/IB),
 * AR_SIM_NCCL_VERSION=N (ncclGetVersion says N, e.g. 22600 for 2.26.0; default
 * 22803), AR_SIM_JITTER=F (every AllReduce's time, transports' and nccl's, times 1 + F u, u in
 * [0, 1) a fixed function of the rank and its AllReduce's number: noise for stats.ci_target),
 * AR_SIM_BESIDE=A:L, AR_SIM_LOAD_NOOP=1, AR_SIM_BESIDE_BAD=1 (--compute's load: "--compute's
 * load" below), AR_SIM_COUNT=FILE (each process appends "rank R: K allreduces" for its ranks at its exit:
 * every rank must have made as many), AR_SIM_REG_FAIL=1 (every NCCL buffer registration fails: tests/sim/fake_nccl.c,
 * the fake's ncclMemAlloc and registration calls). Under AR_SIM_SHM, OMPI_COMM_WORLD_RANK or
 * PMI_RANK (set by mpirun) picks the process's region of the file. Degraded jobs are priced
 * with the model's slow ports, and the healthy bandwidth "measured" is the model's; ll has no
 * emulation and is n/a there, with the reason its lowering gives. The pipeline count a
 * transport reports using (struct tp_job's pipeline_used): ce the one asked for, or for 0 (and
 * async-ring's 1) the lowering's rule on one chunk (8 MiB a batch, 1 to 8); sm, ll and nccl-p2p
 * 1. ll's setup takes the real transport's receive slots from cudaMalloc (so AR_SIM_MEM can
 * make its rows oom alone): per rank of this process, its ll program's slots (the real
 * lowering, src/lower/ll.c, lays them out in the protocol's slices), two parities.
 *
 * Data: buffers under 1 MiB are real memory (bigger ones are tokens: a sweep up to 8 GiB costs
 * nothing). A real buffer of B bytes takes 3B: the buffer, then a hidden copy of the inputs its
 * last fill wrote, then the fill's before (what AR_SIM_STALE reads). On real buffers the
 * harness kernels do what the GPU's do: the fill writes rank r's inputs for the iteration's
 * seed (cuda/inputs.h) into the buffer and its copy, the check counts the elements that differ
 * from the closed-form sums for its seed, and every AllReduce leaves in its rank's buffer the
 * sum of every rank's inputs READ from the copies beside the ranks' buffers: a transport reads
 * the peers' through struct tp_world's data[q] (the mapping the harness made), nccl through
 * the buffer each rank's fill registered (struct sim_head). The copies, not the buffers, since
 * a peer may already have summed in place; the harness puts a barrier of every rank between a
 * rank's fill of iteration i + 1 and any rank's AllReduce of iteration i, and another between
 * the fills of i and the AllReduces of i. A peer's buffer that cannot be read here (a token, a
 * wrong mapping) adds nothing, and the check finds the row wrong. bf16 and fp16 are kept as
 * 16-bit integers (the inputs and sums are small integers).
 *
 * Processes: with AR_SIM_SHM=PATH every process maps the file PATH (created, sparse, 2 GiB
 * and a head; use a fresh path per job) and takes its real buffers from its own region of it;
 * the head (struct sim_head) holds what the ranks of the job share. Then, as CUDA IPC:
 * cudaIpcGetMemHandle / cudaIpcOpenMemHandle (cudaIpcMemLazyEnablePeerAccess) /
 * cudaIpcCloseMemHandle map another process's buffer (the same bytes; a token buffer opens as
 * a token; opening a handle in its own process is an error), and an event made with
 * cudaEventInterprocess | cudaEventDisableTiming keeps its stamp in the file, so that
 * cudaIpcGetEventHandle / cudaIpcOpenEventHandle give another process the same event
 * (cudaEventInterprocess alone is an error). Device d has the same uuid in every process of a
 * host (and another than device e's). ncclCommInitRank needs no connection; ncclAllReduce
 * fails when the ranks' communicators were made with different unique ids, and NCCL's refusal
 * of two ranks on one GPU holds across the processes. The transports set up and enqueue this
 * process's ranks only, and take the real transports' share path: a word per local rank
 * (sim_word), shared with tp_share, read through the mappings at every enqueue (a wrong one
 * fails the row), unshared with tp_unshare at teardown. Without AR_SIM_SHM memory is the
 * process's own and the IPC calls fail. */
#include <cuda_runtime.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <nccl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <pthread.h>
#include <sched.h>

#include "plan/critical.h"
#include "cuda/delay.h"
#include "cuda/inputs.h"
#include "cuda/kernels.h"
#include "cuda/degrade.h"
#include "cuda/load.h"
#include "cuda/transport.h"
#include "model.h"
#include "nvtx.h"

struct CUstream_st {
  double clock;
  int capturing;  /* between cudaStreamBeginCapture and cudaStreamEndCapture */
  int cap_bad;    /* something under capture that CUDA refuses: the capture is invalidated */
  double cap_t0;  /* the clock when the capture began: what it held is the graph's span */
};
/* A captured graph and its executable: the clock time of what was captured. The work itself
 * ran at capture (this fake runs everything at once); a launch adds its time to the stream. */
struct CUgraph_st {
  double span;
};
struct CUgraphExec_st {
  double span;
  int launched; /* a second launch is refused: the harness captures each batch anew */
};
struct CUevent_st {
  double own;            /* the stamp of an event of this process */
  double *t;             /* where its stamp is: &own, or in the shared file (interprocess) */
  unsigned long long at; /* interprocess, in the file: the stamp's offset (0: not there) */
  size_t span;           /* and the bytes taken there (0: another process's, opened) */
};
struct ncclComm {
  int rank, n;
  ncclUniqueId id;
};

static __thread int cur_dev;

/* ---- the CUDA runtime ---- */

cudaError_t cudaGetDeviceCount(int *count) {
  const char *e = getenv("AR_SIM_GPUS");
  *count = e ? atoi(e) : 4;
  return *count > 0 ? cudaSuccess : cudaErrorNoDevice;
}
cudaError_t cudaSetDevice(int device) {
  cur_dev = device;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int *device) {
  *device = cur_dev;
  return cudaSuccess;
}
cudaError_t cudaDeviceCanAccessPeer(int *can, int a, int b) {
  *can = a != b;
  return cudaSuccess;
}
cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned flags) {
  (void)flags;
  return peer == cur_dev ? cudaErrorInvalidDevice : cudaSuccess; /* as CUDA: not to itself */
}
/* SMs per simulated GPU: AR_SIM_SMS (default 132, as an H100 SXM or H200) */
static int sim_sms(void) {
  const char *e = getenv("AR_SIM_SMS");
  return e && atoi(e) > 0 ? atoi(e) : 132;
}
/* AR_SIM_HOSTS: the host this process says it is on (replaces libc's for the harness). */
int gethostname(char *name, size_t len) {
  const char *k = getenv("AR_SIM_HOSTS"), *r = getenv("OMPI_COMM_WORLD_RANK");
  const char *n = getenv("OMPI_COMM_WORLD_SIZE");
  struct utsname u;
  if (k && r && n && atoi(k) > 0 && atoi(n) > 0)
    snprintf(name, len, "simhost%d", atoi(r) * atoi(k) / atoi(n));
  else if (uname(&u) == 0)
    snprintf(name, len, "%s", u.nodename);
  else
    return -1;
  return 0;
}

static void sim_note_hostid(void);

/* A hash of the host's name (FNV-1a): the uuids of one host's GPUs. */
static uint32_t sim_host_hash(void) {
  char host[256] = "";
  gethostname(host, sizeof(host) - 1);
  uint32_t h = 2166136261u;
  for (const char *c = host; *c; c++) h = (h ^ (unsigned char)*c) * 16777619u;
  return h;
}
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int dev) {
  sim_note_hostid();
  memset(p, 0, sizeof(*p));
  snprintf(p->name, sizeof(p->name), "Simulated GPU");
  p->pciBusID = 0x10 + dev;
  p->multiProcessorCount = sim_sms();
  /* "simGPU", the host, the ordinal: one uuid per device of a host, in every process */
  uint32_t h = sim_host_hash();
  memcpy(p->uuid.bytes, "simGPU", 6);
  memcpy(p->uuid.bytes + 6, &h, sizeof(h));
  memcpy(p->uuid.bytes + 10, &dev, sizeof(dev));
  return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int *v, enum cudaDeviceAttr a, int dev) {
  (void)dev;
  *v = a == cudaDevAttrMultiProcessorCount ? sim_sms() : 0;
  return cudaSuccess;
}
cudaError_t cudaDriverGetVersion(int *v) {
  *v = 13000;
  return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int *v) {
  *v = 13000;
  return cudaSuccess;
}
const char *cudaGetErrorString(cudaError_t e) { return e ? "simulated error" : "no error"; }
cudaError_t cudaGetLastError(void) { return cudaSuccess; }
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags) {
  (void)flags;
  *s = calloc(1, sizeof(**s));
  return *s ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaStreamDestroy(cudaStream_t s) {
  free(s);
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  if (s && s->capturing) { /* as CUDA: not allowed while capturing, and the capture is lost */
    s->cap_bad = 1;
    return cudaErrorStreamCaptureUnsupported;
  }
  return cudaSuccess;
}

/* ---- CUDA graphs: stream capture (timing.mode=graph) ---- */

cudaError_t cudaStreamBeginCapture(cudaStream_t s, enum cudaStreamCaptureMode mode) {
  (void)mode;
  if (s->capturing) return cudaErrorIllegalState;
  s->capturing = 1;
  s->cap_bad = 0;
  s->cap_t0 = s->clock;
  return cudaSuccess;
}
cudaError_t cudaStreamIsCapturing(cudaStream_t s, enum cudaStreamCaptureStatus *st) {
  *st = !s->capturing ? cudaStreamCaptureStatusNone
        : s->cap_bad  ? cudaStreamCaptureStatusInvalidated
                      : cudaStreamCaptureStatusActive;
  return cudaSuccess;
}
cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *g) {
  if (!s->capturing) return cudaErrorIllegalState;
  double span = s->clock - s->cap_t0;
  s->clock = s->cap_t0; /* nothing captured has run on the stream's time yet */
  s->capturing = 0;
  *g = NULL;
  if (s->cap_bad) return cudaErrorStreamCaptureInvalidated;
  if (!(*g = calloc(1, sizeof(**g)))) return cudaErrorMemoryAllocation;
  (*g)->span = span;
  return cudaSuccess;
}
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *x, cudaGraph_t g, unsigned long long flags) {
  (void)flags;
  if (!g || !(*x = calloc(1, sizeof(**x)))) return cudaErrorInvalidValue;
  (*x)->span = g->span;
  return cudaSuccess;
}
cudaError_t cudaGraphUpload(cudaGraphExec_t x, cudaStream_t s) {
  return x && !s->capturing ? cudaSuccess : cudaErrorInvalidValue;
}
cudaError_t cudaGraphLaunch(cudaGraphExec_t x, cudaStream_t s) {
  if (!x || s->capturing) return cudaErrorInvalidValue;
  if (x->launched++) {
    fprintf(stderr, "fake_gpu: a graph launched twice (its flags' sequence numbers would "
                    "repeat)\n");
    return cudaErrorInvalidValue;
  }
  s->clock += x->span;
  return cudaSuccess;
}
cudaError_t cudaGraphDestroy(cudaGraph_t g) {
  free(g);
  return cudaSuccess;
}
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t x) {
  free(x);
  return cudaSuccess;
}

/* ---- device memory: this process's, or its region of the job's file (AR_SIM_SHM) ---- */

#define SIM_REAL_MAX ((size_t)1 << 20)       /* buffers under this are real memory */
#define SIM_HEAD_BYTES ((size_t)1 << 20)     /* the file's head: struct sim_head */
#define SIM_REGION_BYTES ((size_t)128 << 20) /* each process's region of the file */
#define SIM_REGIONS AR_MAX_GPUS              /* processes of a job: at most one per rank */
#define SIM_IPC_MAGIC 0x53494d49u            /* "SIMI": a handle this fake made */

/* What the ranks of a job share: the file's head under AR_SIM_SHM, else the process's own.
 * Buffers are named by their offset in the file (without one, their address: sim_at). */
struct sim_head {
  int next_region; /* regions claimed by processes that have no rank variable */
  int lock;        /* guards comm_dev and comm_id */
  struct {
    unsigned long long at, bytes;
  } buf[AR_MAX_GPUS];       /* each rank's buffer as its last fill left it (for ncclAllReduce) */
  int comm_dev[64];         /* the device + 1 of each rank's live communicator; 0: none */
  ncclUniqueId comm_id[64]; /* the unique id each rank's communicator was made with */
  char hostid[SIM_REGIONS][80]; /* each process's NCCL_HOSTID ("": none), as NCCL reads it */
};
_Static_assert(sizeof(struct sim_head) <= SIM_HEAD_BYTES, "the head fits its place");

/* One allocation this process knows: its own (cudaMalloc), a mapping of another process's
 * (cudaIpcOpenMemHandle), or a free place of its region (p NULL, span > 0). */
struct sim_alloc {
  unsigned char *p;
  size_t bytes;    /* the buffer's bytes, 0: a token; its inputs follow it (see "Data") */
  size_t at, span; /* its place in the file (span 0: the process's memory) */
  int opened;      /* a mapping: the opens not closed yet */
};

static struct {
  pthread_once_t once;
  pthread_mutex_t mu;    /* guards tab and used */
  unsigned char *base;   /* the mapped file; NULL without AR_SIM_SHM */
  struct sim_head *head; /* the file's head, or own_head */
  int region;            /* this process's region of the file */
  size_t used;           /* bytes of the region handed out so far */
  struct sim_alloc *tab;
  size_t ntab, captab;
  struct sim_head own_head;
} sim_mem = {.once = PTHREAD_ONCE_INIT, .mu = PTHREAD_MUTEX_INITIALIZER};

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
static struct sim_head *sim_head(void) {
  pthread_once(&sim_mem.once, sim_mem_open);
  return sim_mem.head;
}
/* 1 when the processes of the job share device memory (AR_SIM_SHM). */
static int sim_shared(void) {
  sim_head();
  return sim_mem.base != NULL;
}
/* Under AR_SIM_SHM: this process's NCCL_HOSTID into the head, for every process to read (made
 * by each process's first cudaGetDeviceProperties and again at ncclCommInitRank: before any
 * rank of the job enqueues). */
static void sim_note_hostid(void) {
  const char *id = getenv("NCCL_HOSTID");
  if (!sim_shared()) return;
  snprintf(sim_mem.head->hostid[sim_mem.region], sizeof(sim_mem.head->hostid[0]), "%s",
           id ? id : "");
}
/* The host of process p of procs as NCCL would see it: the first process with its NCCL_HOSTID
 * (all 0 where none set one, or without AR_SIM_SHM). */
static int sim_hostid_of(int p, int procs) {
  struct sim_head *h = sim_head();
  if (!sim_mem.base || p < 0 || p >= SIM_REGIONS) return 0;
  int q = 0;
  while (q < p && q < procs && strcmp(h->hostid[q], h->hostid[p])) q++;
  return q;
}
/* A buffer's name in struct sim_head: its offset in the file, or its address without one. */
static unsigned long long sim_name(const void *p) {
  return sim_mem.base ? (unsigned long long)((const unsigned char *)p - sim_mem.base)
                      : (unsigned long long)(uintptr_t)p;
}
/* The address in this process of the buffer named `at` (sim_name). */
static unsigned char *sim_at(unsigned long long at) {
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
static unsigned char *sim_take(size_t need, size_t *at, size_t *span) {
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
static int sim_give(size_t at, size_t span) {
  struct sim_alloc f = {.at = at, .span = span};
  return sim_add(&f);
}

/* Bytes of real memory at p (a pointer cudaMalloc or cudaIpcOpenMemHandle returned), 0 for a
 * token or unknown. */
static size_t sim_real_bytes(const void *p) {
  pthread_mutex_lock(&sim_mem.mu);
  struct sim_alloc *a = sim_find(p);
  size_t bytes = a ? a->bytes : 0;
  pthread_mutex_unlock(&sim_mem.mu);
  return bytes;
}

/* Bytes of real memory from p (anywhere in a buffer cudaMalloc made) to the buffer's end, 0
 * for a token or unknown. */
static size_t sim_real_left(const void *p) {
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

/* What a memory or event handle carries. */
struct sim_ipc {
  unsigned magic;
  int region;                   /* the process that made it */
  unsigned long long at, bytes; /* the buffer or stamp in the file; bytes 0: a token */
};
_Static_assert(sizeof(struct sim_ipc) <= CUDA_IPC_HANDLE_SIZE, "a handle holds it");

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
cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }
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

/* ---- events: stamps of stream clocks; interprocess ones in the file ---- */

cudaError_t cudaEventCreate(cudaEvent_t *e) {
  *e = calloc(1, sizeof(**e));
  if (*e) (*e)->t = &(*e)->own;
  return *e ? cudaSuccess : cudaErrorMemoryAllocation;
}
/* cudaEventInterprocess (with cudaEventDisableTiming, as CUDA requires): the stamp in the
 * file under AR_SIM_SHM (cudaIpcGetEventHandle), the process's own without it. */
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags) {
  if ((flags & cudaEventInterprocess) && !(flags & cudaEventDisableTiming))
    return cudaErrorInvalidValue;
  cudaError_t r = cudaEventCreate(e);
  if (r != cudaSuccess || !(flags & cudaEventInterprocess) || !sim_shared())
    return r;
  size_t at = 0, span = 0;
  pthread_mutex_lock(&sim_mem.mu);
  unsigned char *t = sim_take(sizeof(double), &at, &span);
  pthread_mutex_unlock(&sim_mem.mu);
  if (!t) {
    free(*e);
    return cudaErrorMemoryAllocation;
  }
  (*e)->t = (double *)t;
  (*e)->at = at;
  (*e)->span = span;
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t e) {
  if (e && e->span) {
    pthread_mutex_lock(&sim_mem.mu);
    sim_give(e->at, e->span);
    pthread_mutex_unlock(&sim_mem.mu);
  }
  free(e);
  return cudaSuccess;
}
cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t *h, cudaEvent_t e) {
  if (!sim_shared()) return cudaErrorNotSupported;
  if (!e->span) return cudaErrorInvalidResourceHandle; /* not interprocess, or opened */
  struct sim_ipc x = {SIM_IPC_MAGIC, sim_mem.region, e->at, sizeof(double)};
  memset(h, 0, sizeof(*h));
  memcpy(h->reserved, &x, sizeof(x));
  return cudaSuccess;
}
/* Another process's event: its stamp, read and written in the file. */
cudaError_t cudaIpcOpenEventHandle(cudaEvent_t *e, cudaIpcEventHandle_t h) {
  struct sim_ipc x;
  memcpy(&x, h.reserved, sizeof(x));
  *e = NULL;
  if (!sim_shared()) return cudaErrorNotSupported;
  if (x.magic != SIM_IPC_MAGIC || !x.at) return cudaErrorInvalidResourceHandle;
  if (x.region == sim_mem.region) return cudaErrorDeviceUninitialized;
  cudaError_t r = cudaEventCreate(e);
  if (r == cudaSuccess) (*e)->t = (double *)(sim_mem.base + x.at);
  return r;
}
/* Sets e's stamp to t (us). */
static void sim_stamp(cudaEvent_t e, double t) { __atomic_store(e->t, &t, __ATOMIC_SEQ_CST); }
/* e's stamp (us). */
static double sim_stamp_of(cudaEvent_t e) {
  double t;
  __atomic_load(e->t, &t, __ATOMIC_SEQ_CST);
  return t;
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  sim_stamp(e, s->clock);
  return cudaSuccess;
}
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags) {
  (void)flags;
  double t = sim_stamp_of(e);
  if (t > s->clock) s->clock = t;
  return cudaSuccess;
}
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) {
  *ms = (float)((sim_stamp_of(b) - sim_stamp_of(a)) / 1000);
  return cudaSuccess;
}

/* ---- data: inputs, sums and checks on the real buffers ---- */

/* Element i of a buffer of dtype dt, as an int. */
static int sim_get(const void *d, int dt, size_t i) {
  return dt == AR_DT_F32 ? (int)((const float *)d)[i] : ((const int16_t *)d)[i];
}
/* Sets element i of a buffer of dtype dt to v. */
static void sim_put(void *d, int dt, size_t i, int v) {
  if (dt == AR_DT_F32) ((float *)d)[i] = (float)v;
  else ((int16_t *)d)[i] = (int16_t)v;
}
/* The copy of the inputs beside a real buffer d of `bytes` bytes: its last fill's, or with
 * `prev` the fill's before (see "Data"). */
static unsigned char *sim_inputs(const void *d, size_t bytes, int prev) {
  return (unsigned char *)d + bytes * (prev ? 2 : 1);
}

/* Rank `rank`'s AllReduce of n ranks: leaves in its buffer buf[rank] (nelem elements of dt)
 * the sum of every rank's inputs, read beside each rank's buffer buf[q] of bytes[q] bytes;
 * with `stale`, the peers' inputs of the fill before (what a transport that reads a slot
 * before this iteration's data landed would add). A buffer too small to read (a token, a
 * wrong mapping) adds nothing; nothing happens on a token of its own. */
/* 1 when the comma-separated list in AR_SIM_BAD_SUM names algo. */
static int sim_bad_sum(const char *algo) {
  const char *l = getenv("AR_SIM_BAD_SUM");
  for (size_t k = strlen(algo); l && *l; l += strcspn(l, ",") + (l[strcspn(l, ",")] == ','))
    if (strcspn(l, ",") == k && !strncmp(l, algo, k)) return 1;
  return 0;
}

static void sim_allreduce(int rank, int n, void *const *buf, const size_t *bytes, size_t nelem,
                          int dt, int stale, int bad) {
  size_t len = nelem * ar_dtype_size(dt);
  if (rank < 0 || rank >= n || n > AR_MAX_GPUS || nelem == 0 || len > bytes[rank]) return;
  const unsigned char *in[AR_MAX_GPUS];
  for (int q = 0; q < n; q++)
    in[q] = buf[q] && len <= bytes[q] ? sim_inputs(buf[q], bytes[q], stale && q != rank) : NULL;
  for (size_t i = 0; i < nelem; i++) {
    int v = 0;
    for (int q = 0; q < n; q++)
      if (in[q]) v += sim_get(in[q], dt, i);
    sim_put(buf[rank], dt, i, v + (bad && i == 0)); /* AR_SIM_BAD_SUM: one element off */
  }
}

/* AR_SIM_KILL=R:K / AR_SIM_HANG=R:K (spec): 1 when it names rank `rank`'s k-th AllReduce. */
static int sim_hook_at(const char *spec, int rank, int k) {
  int r, at;
  return spec && sscanf(spec, "%d:%d", &r, &at) == 2 && r == rank && at == k;
}
static int sim_calls[AR_MAX_GPUS]; /* each rank's AllReduces so far (this process's ranks) */
static void sim_write_counts(void);
static void sim_count_at_exit(void) { atexit(sim_write_counts); }

/* AR_SIM_COUNT=FILE, at the process's exit: "rank R: K allreduces" appended for each rank of
 * this process that made any (one write per line: processes of a job append at once). */
static void sim_write_counts(void) {
  const char *path = getenv("AR_SIM_COUNT");
  int fd = path && *path ? open(path, O_WRONLY | O_APPEND | O_CREAT, 0644) : -1;
  for (int r = 0; r < AR_MAX_GPUS && fd >= 0; r++) {
    char line[64];
    int k = __atomic_load_n(&sim_calls[r], __ATOMIC_SEQ_CST), len;
    len = snprintf(line, sizeof(line), "rank %d: %d allreduces\n", r, k);
    if (k > 0 && write(fd, line, (size_t)len) != len) break;
  }
  if (fd >= 0) close(fd);
}

/* AR_SIM_JITTER=F: the factor 1 + F u on the k-th AllReduce of rank `rank`, u in [0, 1) a
 * fixed function of (rank, k) (splitmix64): noisy times whose interval shrinks as samples
 * grow; 1 without it. */
static double sim_jitter(int rank, int k) {
  const char *j = getenv("AR_SIM_JITTER");
  if (!j || !(atof(j) > 0)) return 1;
  uint64_t z = ((uint64_t)rank << 32 | (uint32_t)k) + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return 1 + atof(j) * (double)(z >> 11) / 9007199254740992.0;
}

/* Counts rank `rank`'s AllReduces and fires AR_SIM_KILL or AR_SIM_HANG at theirs; returns the
 * count (0 for a rank out of range). */
static int sim_failure_hooks(int rank) {
  static pthread_once_t counts_once = PTHREAD_ONCE_INIT;
  if (rank < 0 || rank >= AR_MAX_GPUS) return 0;
  if (getenv("AR_SIM_COUNT")) pthread_once(&counts_once, sim_count_at_exit);
  int k = __atomic_add_fetch(&sim_calls[rank], 1, __ATOMIC_SEQ_CST);
  if (sim_hook_at(getenv("AR_SIM_KILL"), rank, k)) {
    fprintf(stderr, "fake_gpu: AR_SIM_KILL: rank %d's process killed at its AllReduce %d\n",
            rank, k);
    raise(SIGKILL);
  }
  if (sim_hook_at(getenv("AR_SIM_HANG"), rank, k)) {
    fprintf(stderr, "fake_gpu: AR_SIM_HANG: rank %d hangs at its AllReduce %d\n", rank, k);
    for (;;) sleep(3600);
  }
  if (sim_hook_at(getenv("AR_SIM_STOP"), rank, k)) {
    fprintf(stderr, "fake_gpu: AR_SIM_STOP: rank %d's process stops at its AllReduce %d\n", rank,
            k);
    raise(SIGSTOP);
  }
  return k;
}

/* ---- --compute's load: a lane of its own beside the AllReduce ---- */

/* A load takes its work at a fixed pace (a GEMM 400 TFLOP/s, membw 3 TB/s, sm 20 steps a us),
 * so that sizing it to the AllReduce alone (compute.h's rule) lands within its rounding. Its
 * launch moves its stream's clock and leaves it pending on the rank's thread; the thread's next
 * AllReduce that starts before the load ends shares the GPU with it: while both run, the
 * AllReduce goes AR_SIM_BESIDE's A times and the load L times slower ("A:L", default 1.5:1.2),
 * and both clocks end where that puts them (the harness records the load's end event after
 * enqueueing the AllReduce). AR_SIM_LOAD_NOOP=1: every launch does nothing (its check counts a
 * wrong element); AR_SIM_BESIDE_BAD=1: an AllReduce beside a load leaves its first element one
 * off the sum, as AR_SIM_BAD_SUM (the lane's checks must find it). */
struct ar_load {
  struct ar_compute c;
  int done; /* the last launch ran (its check's answer) */
};
static __thread struct {
  cudaStream_t s;     /* the load's stream, NULL: none pending */
  double start, work; /* its start on that stream's clock, and its time alone (us) */
} sim_pending;

/* A load's time alone at the fake's pace, us. */
static double sim_load_us(const struct ar_compute *c) {
  double w = ar_compute_work(c);
  return c->kind == AR_COMPUTE_GEMM ? w / 400e6 : c->kind == AR_COMPUTE_MEMBW ? w / 3e6 : w / 20;
}
/* 1 when the calling thread's pending load runs past the start of work on stream s. */
static int sim_beside_load(cudaStream_t s) {
  return sim_pending.s && sim_pending.s != s && sim_pending.start + sim_pending.work > s->clock;
}
/* Work of `us` alone on stream s, beside the pending load where they overlap (see above):
 * both lanes run at once, each slowed while the other runs, until each has done its work. */
static void sim_run(cudaStream_t s, double us) {
  if (!sim_beside_load(s)) {
    s->clock += us;
    return;
  }
  double fa = 1.5, fl = 1.2, a0 = s->clock, l0 = sim_pending.start;
  const char *e = getenv("AR_SIM_BESIDE");
  if (e && (sscanf(e, "%lf:%lf", &fa, &fl) != 2 || !(fa >= 1) || !(fl >= 1))) fa = fl = 1;
  double t = fmin(a0, l0), left[2] = {us, sim_pending.work}, start[2] = {a0, l0},
         end[2] = {-1, -1}, slow[2] = {fa, fl};
  while (end[0] < 0 || end[1] < 0) { /* from event to event: a lane starts or ends */
    int on[2], k, done = -1;
    for (k = 0; k < 2; k++) on[k] = end[k] < 0 && t >= start[k];
    double dt = INFINITY, v[2];
    for (k = 0; k < 2; k++) {
      v[k] = on[k] ? (on[1 - k] ? 1 / slow[k] : 1) : 0;
      if (v[k] > 0 && fmax(left[k], 0) / v[k] < dt) dt = fmax(left[k], 0) / v[k], done = k;
      if (end[k] < 0 && t < start[k] && start[k] - t < dt) dt = start[k] - t, done = -1;
    }
    t += dt;
    for (k = 0; k < 2; k++) left[k] -= v[k] * dt;
    if (done >= 0) end[done] = t, left[done] = 0;
  }
  s->clock = end[0];
  sim_pending.s->clock = end[1];
  sim_pending.s = NULL;
}

ar_status ar_load_create(const struct ar_compute *c, struct ar_load **out, char *why, size_t len) {
  if (len) why[0] = 0;
  *out = calloc(1, sizeof(**out));
  if (!*out) return AR_ERR_NOMEM;
  (*out)->c = *c;
  return AR_OK;
}
ar_status ar_load_resize(struct ar_load *l, const struct ar_compute *c, cudaStream_t s,
                         char *why, size_t len) {
  (void)s;
  if (len) why[0] = 0;
  if (c->kind != l->c.kind) return AR_ERR_INVALID;
  l->c = *c;
  return AR_OK;
}
ar_status ar_load_prepare(struct ar_load *l, cudaStream_t s) {
  (void)s;
  l->done = 0;
  return AR_OK;
}
ar_status ar_load_launch(struct ar_load *l, cudaStream_t s) {
  l->done = !getenv("AR_SIM_LOAD_NOOP");
  sim_pending.s = s;
  sim_pending.start = s->clock;
  sim_pending.work = sim_load_us(&l->c);
  s->clock += sim_pending.work;
  return AR_OK;
}
ar_status ar_load_check(struct ar_load *l, cudaStream_t s, unsigned long long *wrong) {
  (void)s;
  if (!l->done && sim_real_left(wrong) >= sizeof(*wrong)) *wrong += 1;
  return AR_OK;
}
void ar_load_destroy(struct ar_load *l) { free(l); }

/* ---- NCCL: the native AllReduce as a bulk-synchronous ring at 300 GB/s ---- */

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
static int sim_host_of(int q, int n);
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
            (int)getpid(), (int)getpid(), cur_dev, rank, cur_dev, q, q, via);
  }
}
/* NCCL refuses two ranks on one GPU (comm_dev of the job's head: across its processes). */
ncclResult_t ncclCommInitRank(ncclComm_t *c, int n, ncclUniqueId id, int rank) {
  struct sim_head *h = sim_head();
  if (rank < 0 || rank >= 64 || n < 1 || rank >= n) return ncclInvalidArgument;
  int dup = 0;
  sim_lock(h);
  for (int q = 0; q < 64; q++) dup |= q != rank && h->comm_dev[q] == cur_dev + 1;
  if (!dup) {
    h->comm_dev[rank] = cur_dev + 1;
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
  for (int q = 0; q < c->n && q < AR_MAX_GPUS; q++) {
    if (memcmp(&h->comm_id[q], &c->id, sizeof(c->id))) {
      fprintf(stderr, "fake_gpu: ncclAllReduce: rank %d's communicator has another unique id "
                      "than rank %d's\n", q, c->rank);
      return ncclInvalidUsage;
    }
    buf[q] = q == c->rank ? b : sim_at(h->buf[q].at);
    bytes[q] = q == c->rank ? sim_real_bytes(b) : h->buf[q].bytes;
  }
  int dt = t == ncclFloat32 ? AR_DT_F32 : t == ncclBfloat16 ? AR_DT_BF16 : AR_DT_F16;
  int bad = sim_bad_sum("nccl") || (sim_beside_load(s) && getenv("AR_SIM_BESIDE_BAD"));
  sim_allreduce(c->rank, c->n, buf, bytes, count, dt, 0, bad); /* in place */
  double total = count * 4.0;
  double us = 2.0 * (c->n - 1) * 5 + total * 2 * (c->n - 1) / c->n / 300e3;
  sim_run(s, us * sim_jitter(c->rank, k));
  return ncclSuccess;
}

/* ---- the harness's kernels ---- */

static const char *wrong_algo; /* set by the transport's setup for AR_SIM_WRONG */

/* Writes rank's inputs into d and the copy beside it (the last copy moves to the one before),
 * and registers d as rank's buffer (struct sim_head). */
ar_status ar_fill_launch(void *d, size_t n, int dt, int rank, unsigned long long seed,
                         cudaStream_t s) {
  (void)s;
  if (n == 0 || rank < 0 || rank >= AR_MAX_GPUS) return AR_OK; /* loading the kernel */
  size_t bytes = sim_real_bytes(d), len = n * ar_dtype_size(dt);
  if (len > bytes) return AR_OK; /* a token */
  uint64_t key = ar_input_key(rank, seed);
  for (size_t i = 0; i < n; i++) sim_put(d, dt, i, ar_input_at(key, i));
  memcpy(sim_inputs(d, bytes, 1), sim_inputs(d, bytes, 0), len);
  memcpy(sim_inputs(d, bytes, 0), d, len);
  struct sim_head *h = sim_head();
  h->buf[rank].at = sim_name(d);
  h->buf[rank].bytes = bytes;
  return AR_OK;
}
ar_status ar_check_launch(const void *d, size_t n, int dt, int nranks, unsigned long long seed,
                          unsigned long long *wrong, cudaStream_t s) {
  (void)s;
  if (nranks < 1 || nranks > AR_MAX_GPUS) return AR_ERR_INVALID;
  if (n > 0 && wrong_algo) *wrong += 1;
  if (n == 0 || n * ar_dtype_size(dt) > sim_real_bytes(d)) return AR_OK;
  uint64_t key[AR_MAX_GPUS];
  for (int r = 0; r < nranks; r++) key[r] = ar_input_key(r, seed);
  for (size_t i = 0; i < n; i++) {
    int sum = 0;
    for (int r = 0; r < nranks; r++) sum += ar_input_at(key[r], i);
    *wrong += sim_get(d, dt, i) != sum;
  }
  return AR_OK;
}
ar_status ar_delay_launch(double us, cudaStream_t s) {
  if (us > 0) s->clock += us;
  return AR_OK;
}
/* timing.start_skew's stamp (cuda/degrade.h): the stream's clock in ns. */
ar_status tp_stamp_launch(uint64_t *slot, cudaStream_t s) {
  if (sim_real_left(slot) >= sizeof(*slot)) *slot = (uint64_t)(s->clock * 1e3);
  return AR_OK;
}
ar_status ar_gate_launch(const volatile unsigned long long *flag, unsigned long long target,
                         double timeout_us, unsigned *expired, cudaStream_t s) {
  (void)flag, (void)target, (void)timeout_us, (void)expired, (void)s;
  return AR_OK;
}
ar_status ar_delay_calibrate(cudaStream_t s, double *bias_us) {
  (void)s;
  *bias_us = 0;
  return AR_OK;
}
ar_status ar_delay_measure(double us, int raw, int reps, cudaStream_t s, double *median_us) {
  (void)raw, (void)reps, (void)s;
  *median_us = us;
  return AR_OK;
}

/* ---- the transports: the model's times ---- */

#define SIM_LL_ALPHA_US 2.0 /* ll's cost per round: one crossing, no handshake */

struct tp_ctx {
  double pre_us, main_us;
  int straggler, has_pre;
  int nrounds, nprecond; /* for the NVTX round ranges (tests/test_nvtx.sh) */
  const struct ar_transport *tp; /* the transport it is for (src/transports.h) */
  struct tp_marks *const *marks;
  unsigned char *part; /* [rank * nrounds + k]: the rank sends or receives in round k */
  int n, dtype, stale; /* stale: AR_SIM_STALE names this algorithm */
  int bad_sum;         /* AR_SIM_BAD_SUM names it */
  size_t nelem;
  struct tp_world w;       /* the world it was set up in (data[]: every rank's buffer here) */
  void *word[AR_MAX_GPUS]; /* every rank's shared word (sim_word): its own or a mapping */
  int shared;              /* tp_share gave the words: teardown unshares them */
  int calls[AR_MAX_GPUS];  /* enqueues per rank so far: the iteration of the row */
  size_t slot_bytes[AR_MAX_GPUS]; /* ll: each rank's receive slots (sim_ll_plan) */
  void *slot[AR_MAX_GPUS];        /* ll: this process's ranks' slots (sim_ll_alloc) */
};

/* 1 when rank r runs in this process. */
static int sim_local(const struct tp_world *w, int r) { return !w->peers || !w->remote[r]; }
/* The value of rank r's shared word. */
static unsigned sim_word(int r) { return 0x5e1f0000u + 7919u * (unsigned)r; }

/* The mini-batches per transfer transport tp uses for job (see the file comment). */
static int sim_pipeline_used(const struct ar_transport *tp, const struct tp_job *job) {
  const struct ar_schedule *s = job->sched;
  if (!tp->pipelines) return 1;
  if (job->pipeline > 0 && !((ar_sched_traits(s) & AR_TRAIT_PIPELINED) && job->pipeline == 1))
    return job->pipeline;
  double chunk = (double)job->nelem * ar_dtype_size(job->dtype) / (s->nchunks ? s->nchunks : 1);
  if (ar_sched_traits(s) & AR_TRAIT_PIPELINED) { /* the dataflow ring: ~256 MiB batches, 4..64 */
    int nb = (int)(chunk / (256 << 20));
    return nb < 4 ? 4 : nb > 64 ? 64 : nb;
  }
  int nb = (int)(chunk / (8 << 20));
  return nb < 1 ? 1 : nb > 8 ? 8 : nb;
}

/* ll: the real lowering's ll program for job (its reason where it refuses one: a degraded
 * job) and each rank's receive slots as the real transport allocates them: the program's
 * scratch, two parities. */
static ar_status sim_ll_plan(const struct ar_transport *tp, const struct tp_job *job,
                             size_t *slot_bytes, char *reason, size_t len) {
  struct tp_prog *prog = NULL;
  struct lower_settings set;
  lower_settings_of(&set, job->settings);
  struct lower_job lj = {tp->id, job->sched, job->nelem, (int)ar_dtype_size(job->dtype),
                         job->pipeline, &job->degrade};
  ar_status st = lower_job(&lj, &set, &prog, NULL, reason, len);
  if (st != AR_OK) return st;
  for (int r = 0; r < prog->n && r < AR_MAX_GPUS; r++)
    slot_bytes[r] = 2 * prog->rank[r].scratch_bytes;
  lower_prog_free(prog);
  return AR_OK;
}

/* The model's plan of a job for this process's ranks, in a new *ctx; AR_ERR_UNSUPPORTED or
 * AR_ERR_INVALID with the reason when the real transports would refuse it. */
static ar_status sim_plan(const struct tp_world *w, const struct tp_job *job,
                          struct tp_ctx **ctx, char *reason, size_t len,
                          const struct ar_transport *tp) {
  const struct ar_schedule *s = job->sched;
  /* co-located ranks: their waiting kernels' SM shares must fit the GPU together, and no rank
   * may be left without one (transport.h's sms) */
  for (int r = 0; r < w->n; r++) {
    if (!sim_local(w, r)) continue;
    int sum = 0;
    for (int q = 0; q < w->n; q++) sum += tp_same_gpu(w, q, r) ? w->sms[q] : 0;
    if (w->sms[r] < 1 || sum > sim_sms()) {
      snprintf(reason, len, "simulated: GPU %d's ranks wait on %d SMs of %d (rank %d: %d)",
               w->dev[r], sum, sim_sms(), r, w->sms[r]);
      return AR_ERR_INVALID;
    }
  }
  if ((ar_sched_traits(s) & AR_TRAIT_PIPELINED) && w->n > 2) {
    snprintf(reason, len, "simulated: pipelined schedules are not simulated");
    return AR_ERR_UNSUPPORTED;
  }
  size_t slot_bytes[AR_MAX_GPUS] = {0};
  if (tp->lowering == AR_LOWER_LL) { /* before the degraded links' checks: ll has no emulation */
    ar_status st = sim_ll_plan(tp, job, slot_bytes, reason, len);
    if (st != AR_OK) return st;
  }
  struct ar_params p;
  ar_params_init(&p, w->n);
  if (job->degrade.n && !(job->degrade.bw > 0)) {
    snprintf(reason, len, "degraded links: the healthy bandwidth is not known");
    return AR_ERR_UNSUPPORTED;
  }
  for (int i = 0; i < job->degrade.n; i++) { /* degraded links: the model's slow ports */
    p.degraded[p.ndegraded] = job->degrade.rank[i];
    p.factor[p.ndegraded++] = job->degrade.factor[i];
  }
  struct model_net net;
  struct model_price pr;
  struct model_hw hw;
  crit_model_hw(&hw);
  if (tp->lowering == AR_LOWER_LL) hw.alpha_us = SIM_LL_ALPHA_US;
  if (model_net_init(&net, MODEL_SWITCH, &p) != AR_OK ||
      model_price_schedule(s, &net, &pr) != AR_OK)
    return AR_ERR_INVALID;
  struct tp_ctx *c = calloc(1, sizeof(*c));
  if (!c) return AR_ERR_NOMEM;
  double bytes = (double)job->nelem * ar_dtype_size(job->dtype);
  const char *scale = getenv("AR_SIM_SCALE");
  double x = scale ? atof(scale) : 1;
  c->pre_us = x * model_cost_us(&pr.pre, &hw, bytes);
  c->main_us = x * model_cost_us(&pr.main, &hw, bytes);
  c->has_pre = pr.pre.rounds > 0;
  c->straggler = s->straggler;
  c->nrounds = s->nrounds;
  c->nprecond = s->nprecond;
  c->tp = tp;
  c->marks = job->marks;
  memcpy(c->slot_bytes, slot_bytes, sizeof(slot_bytes));
  c->part = calloc((size_t)w->n * (s->nrounds ? s->nrounds : 1), 1);
  if (!c->part) {
    free(c);
    return AR_ERR_NOMEM;
  }
  for (size_t i = 0; i < s->nxfers; i++) {
    const struct ar_xfer *x = &s->xfers[i];
    c->part[(size_t)x->src * s->nrounds + x->round] = 1;
    c->part[(size_t)x->dst * s->nrounds + x->round] = 1;
  }
  if (job->pipeline_used) *job->pipeline_used = sim_pipeline_used(tp, job);
  const char *bad = getenv("AR_SIM_WRONG");
  wrong_algo = bad && !strcmp(bad, s->algo) ? bad : NULL;
  const char *stale = getenv("AR_SIM_STALE");
  c->stale = stale && !strcmp(stale, s->algo);
  c->bad_sum = sim_bad_sum(s->algo);
  c->n = w->n;
  c->dtype = job->dtype;
  c->nelem = job->nelem;
  c->w = *w;
  *ctx = c;
  return AR_OK;
}

/* The real transports' share path: a word per rank of this process (sim_word's value),
 * shared with every process by tp_share (collective: called once by every process's setup,
 * whatever st is); each enqueue reads every rank's word (sim_enqueue). The worst status of
 * all processes; on AR_OK c->word[] holds every rank's. */
static ar_status sim_share_words(const struct tp_world *w, struct tp_ctx *c, ar_status st) {
  void *word[AR_MAX_GPUS] = {0};
  for (int r = 0; r < w->n && r < AR_MAX_GPUS && st == AR_OK; r++) {
    unsigned v = sim_word(r);
    if (!sim_local(w, r)) continue;
    if (cudaMalloc(&word[r], sizeof(v)) != cudaSuccess) st = AR_ERR_OOM;
    else cudaMemcpy(word[r], &v, sizeof(v), cudaMemcpyHostToDevice);
  }
  st = tp_share(w, word, st);
  if (st == AR_OK) {
    memcpy(c->word, word, sizeof(word));
    c->shared = 1;
    return AR_OK;
  }
  for (int r = 0; r < w->n && r < AR_MAX_GPUS; r++)
    if (sim_local(w, r)) cudaFree(word[r]);
  return st;
}

/* ll: this process's ranks' receive slots (zeroed, as cudaMalloc's here are); AR_ERR_OOM with
 * the real transport's reason when one does not fit (AR_SIM_MEM). */
static ar_status sim_ll_alloc(const struct tp_world *w, struct tp_ctx *c, char *reason,
                              size_t len) {
  for (int r = 0; r < w->n && r < AR_MAX_GPUS; r++) {
    if (!sim_local(w, r)) continue;
    if (cudaMalloc(&c->slot[r], c->slot_bytes[r] ? c->slot_bytes[r] : 16) != cudaSuccess) {
      snprintf(reason, len, "ll: receive slots do not fit in GPU memory");
      return AR_ERR_OOM;
    }
  }
  return AR_OK;
}

static void sim_teardown(struct tp_ctx *c);

static ar_status sim_setup(const struct tp_world *w, const struct tp_job *job,
                           struct tp_ctx **ctx, char *reason, size_t len, int id) {
  struct tp_ctx *c = NULL;
  const struct ar_transport *tp = ar_transport_at(id);
  if (len) reason[0] = 0;
  ar_status st = sim_plan(w, job, &c, reason, len, tp);
  if (st == AR_OK && tp->lowering == AR_LOWER_LL) st = sim_ll_alloc(w, c, reason, len);
  st = sim_share_words(w, c, st);
  if (st != AR_OK) {
    if (len && !reason[0])
      snprintf(reason, len, "simulated: the job's setup failed elsewhere: %s", ar_status_str(st));
    sim_teardown(c);
    return st;
  }
  *ctx = c;
  return AR_OK;
}

/* A setup per transport of the table (AR_TRANSPORT_LIST), each the fake's for its id. */
#define SIM_SETUP_(id, ops)                                                                \
  static ar_status sim_setup_##ops(const struct tp_world *w, const struct tp_job *job,      \
                                   struct tp_ctx **ctx, char *reason, size_t len) {         \
    return sim_setup(w, job, ctx, reason, len, id);                                        \
  }
AR_TRANSPORT_LIST(SIM_SETUP_)
#undef SIM_SETUP_

/* AR_SIM_ROUNDS=1: marks the end of each round `rank` takes part in, the collective having
 * started at t0 (us) with a precondition of pre us: the precondition's rounds share pre evenly,
 * the others the main part. */
static void sim_mark(struct tp_ctx *c, int rank, struct tp_marks *mk, double t0, double pre) {
  memset(mk->have, 0, (size_t)mk->nrounds);
  /* the kernels of the transports with a kernel program stamp the clock */
  mk->in_ns = c->tp->lowering == AR_LOWER_SM || c->tp->lowering == AR_LOWER_LL;
  int npre = c->nprecond, nmain = c->nrounds - c->nprecond;
  if (mk->in_ns) mk->ns[0] = (unsigned long long)(t0 * 1e3);
  for (int k = 0; k < c->nrounds && k < mk->nrounds; k++) {
    if (!c->part[(size_t)rank * c->nrounds + k]) continue;
    double end = k < npre ? t0 + pre * (k + 1) / npre
                          : t0 + pre + c->main_us * (k - npre + 1) / (nmain > 0 ? nmain : 1);
    if (mk->in_ns) mk->ns[1 + k] = (unsigned long long)(end * 1e3);
    else sim_stamp(mk->ev[k], end);
    mk->have[k] = 1;
  }
}

/* The host of rank q of an n-rank MPI job (its process's): AR_SIM_HOSTS's (as gethostname
 * says), else the host its process's NCCL_HOSTID names (sim_hostid_of: the processes arbench
 * made hosts of their own, procs.hosts); 0 for every rank without either. */
static int sim_host_of(int q, int n) {
  const char *k = getenv("AR_SIM_HOSTS"), *np = getenv("OMPI_COMM_WORLD_SIZE");
  int hosts = k ? atoi(k) : 0, procs = np ? atoi(np) : 0;
  if (procs <= 0 || n < procs) return 0;
  if (hosts <= 0) return sim_hostid_of(q / (n / procs), procs);
  return q / (n / procs) * hosts / procs;
}

/* Rank `rank`'s AllReduce (a rank of this process): every rank's shared word read through its
 * mapping (a wrong one fails the enqueue; another host's must not be mapped), the sums read
 * through the world's data[] (another host's inputs as the network would bring them: where its
 * last fill registered them), the model's time on the stream. */
static ar_status sim_enqueue(struct tp_ctx *c, int rank, cudaStream_t s) {
  if (rank < 0 || rank >= c->n || !sim_local(&c->w, rank)) {
    ar_log(AR_LOG_WARN, "simulated: enqueue of rank %d, not a rank of this process", rank);
    return AR_ERR_INVALID;
  }
  int k = sim_failure_hooks(rank);
  const char *nocap = getenv("AR_SIM_NO_CAPTURE");
  if (s->capturing && nocap && !strcmp(nocap, c->tp->name)) {
    s->cap_bad = 1; /* as a host-driven step would: CUDA refuses it under capture */
    return AR_ERR_CUDA;
  }
  int host = sim_host_of(rank, c->n);
  for (int q = 0; q < c->n; q++) {
    unsigned v = 0;
    if (sim_host_of(q, c->n) != host) { /* out of reach: nothing may be mapped */
      if (!c->word[q] && !c->w.data[q]) continue;
      ar_log(AR_LOG_WARN, "simulated: rank %d has rank %d's memory mapped across hosts", rank, q);
      return AR_ERR_CUDA;
    }
    if (c->word[q] && sim_real_bytes(c->word[q]) >= sizeof(v)) memcpy(&v, c->word[q], sizeof(v));
    if (v != sim_word(q)) {
      ar_log(AR_LOG_WARN, "simulated: rank %d reads rank %d's shared word as %#x, not %#x", rank,
             q, v, sim_word(q));
      return AR_ERR_CUDA;
    }
  }
  /* the sums (real buffers only); AR_SIM_STALE: the peers' last inputs on odd iterations */
  int it = c->calls[rank]++;
  size_t bytes[AR_MAX_GPUS];
  void *buf[AR_MAX_GPUS];
  struct sim_head *h = sim_head();
  for (int q = 0; q < c->n; q++) {
    int away = sim_host_of(q, c->n) != host;
    buf[q] = away ? sim_at(h->buf[q].at) : c->w.data[q];
    bytes[q] = away ? h->buf[q].bytes : sim_real_bytes(c->w.data[q]);
  }
  int bad = c->bad_sum || (sim_beside_load(s) && getenv("AR_SIM_BESIDE_BAD"));
  sim_allreduce(rank, c->n, buf, bytes, c->nelem, c->dtype, c->stale && it % 2 == 1, bad);
  /* the precondition runs among the others at once; the straggler joins for the rest */
  double t0 = s->clock, pre = c->has_pre && rank != c->straggler ? c->pre_us : 0;
  sim_run(s, (pre + c->main_us) * sim_jitter(rank, k));
  struct tp_marks *mk = c->marks ? c->marks[rank] : NULL;
  const char *marking = getenv("AR_SIM_ROUNDS");
  if (mk && marking && atoi(marking) == 1) sim_mark(c, rank, mk, t0, pre);
  /* a range per round, as the real transports mark them (the straggler skips the precondition) */
  for (int k = rank == c->straggler ? c->nprecond : 0; k < c->nrounds; k++) {
    ar_nvtx_push("round %d", k);
    ar_nvtx_pop();
  }
  return AR_OK;
}

/* Unshares the words (collective, as tp_unshare), frees this process's. */
static void sim_teardown(struct tp_ctx *c) {
  wrong_algo = NULL;
  if (!c) return;
  if (c->shared) tp_unshare(&c->w, c->word);
  for (int r = 0; r < c->n && c->shared; r++)
    if (sim_local(&c->w, r)) cudaFree(c->word[r]);
  for (int r = 0; r < c->n && r < AR_MAX_GPUS; r++)
    if (sim_local(&c->w, r)) cudaFree(c->slot[r]); /* ll's; NULL for the others */
  free(c->part);
  free(c);
}

/* The fake's executors, indexed by enum ar_tp as src/cuda/executors.cu's. */
#define SIM_OPS_(id, ops) [id] = {sim_setup_##ops, sim_enqueue, sim_teardown},
static const struct tp_ops sim_ops[AR_NTRANSPORTS] = {AR_TRANSPORT_LIST(SIM_OPS_)};
#undef SIM_OPS_

const struct tp_ops *tp_ops_of(int id) {
  return id >= 0 && id < AR_NTRANSPORTS ? &sim_ops[id] : NULL;
}

const struct tp_ops *tp_find(const char *name) {
  const struct ar_transport *t = ar_transport_find(name);
  return t ? tp_ops_of(t->id) : NULL;
}

/* ---- the job's world: src/cuda/world.cu's helpers (the simulator links no CUDA) ---- */

int tp_same_gpu(const struct tp_world *w, int a, int b) {
  return w->peers ? w->gpu[a] == w->gpu[b] : w->dev[a] == w->dev[b];
}
ar_status tp_share(const struct tp_world *w, void **ptr, ar_status st) {
  return w->peers ? w->peers->share(w->peers->ctx, ptr, st) : st;
}
void tp_unshare(const struct tp_world *w, void **ptr) {
  if (w->peers) w->peers->unshare(w->peers->ctx, ptr);
}
ar_status tp_bcast(const struct tp_world *w, void *buf, size_t len, int root) {
  return w->peers ? w->peers->bcast(w->peers->ctx, buf, len, root) : AR_OK;
}

/* ---- the degraded-link emulation: the fake's links run at the model's bandwidth ---- */

ar_status tp_degrade_measure_bw(int src, int dst, size_t bytes, int reps, double *bw) {
  (void)src, (void)dst, (void)bytes, (void)reps;
  struct model_hw hw;
  crit_model_hw(&hw);
  *bw = 1e6 / hw.beta;
  return getenv("AR_SIM_NO_BW") ? AR_ERR_CUDA : AR_OK;
}

int tp_degrade_selftest(const int *dev, int ndev, double factor,
                        const struct ar_settings *settings, FILE *out) {
  (void)settings;
  fprintf(out, "# self-test degrade: GPU %d degraded x%g, %d peers (simulated: nothing measured)\n",
          dev[0], factor, ndev - 1);
  fprintf(out, "self-test degrade: pass\n");
  return 0;
}
