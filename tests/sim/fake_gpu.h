/* What the simulated GPU's files share (tests/sim/fake_gpu.c's opening comment says what the
 * fake does, names every environment variable it reads and lists its files; each function's
 * comment is at its definition). Private to tests/sim/fake_*.c. */
#ifndef FAKE_GPU_H
#define FAKE_GPU_H

#include <cuda_runtime.h>
#include <nccl.h>
#include <pthread.h>
#include <stddef.h>

#include "cuda/transport.h"

/* A stream: a clock (us) and its capture (fake_streams.c). */
struct CUstream_st {
  double clock;
  int capturing;  /* between cudaStreamBeginCapture and cudaStreamEndCapture */
  int cap_bad;    /* something under capture that CUDA refuses: the capture is invalidated */
  double cap_t0;  /* the clock when the capture began: what it held is the graph's span */
};

/* ---- fake_gpu.c: the device ---- */

extern __thread int sim_cur_dev; /* the calling thread's cudaSetDevice */
int sim_sms(void);
int sim_host_of(int q, int n);

/* ---- fake_mem.c: device memory, the job's file (AR_SIM_SHM) and CUDA IPC ---- */

#define SIM_REGIONS AR_MAX_GPUS   /* processes of a job: at most one per rank */
#define SIM_IPC_MAGIC 0x53494d49u /* "SIMI": a handle this fake made */

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

/* This process's device memory: its allocations, and its region of the job's file. */
struct sim_mem {
  pthread_once_t once;
  pthread_mutex_t mu;    /* guards tab and used */
  unsigned char *base;   /* the mapped file; NULL without AR_SIM_SHM */
  struct sim_head *head; /* the file's head, or own_head */
  int region;            /* this process's region of the file */
  size_t used;           /* bytes of the region handed out so far */
  struct sim_alloc *tab;
  size_t ntab, captab;
  struct sim_head own_head;
};
extern struct sim_mem sim_mem;

/* What a memory or event handle carries. */
struct sim_ipc {
  unsigned magic;
  int region;                   /* the process that made it */
  unsigned long long at, bytes; /* the buffer or stamp in the file; bytes 0: a token */
};
_Static_assert(sizeof(struct sim_ipc) <= CUDA_IPC_HANDLE_SIZE, "a handle holds it");

struct sim_head *sim_head(void);
int sim_shared(void);
void sim_note_hostid(void);
int sim_hostid_of(int p, int procs);
unsigned long long sim_name(const void *p);
unsigned char *sim_at(unsigned long long at);
unsigned char *sim_take(size_t need, size_t *at, size_t *span); /* with sim_mem.mu held */
int sim_give(size_t at, size_t span);                           /* with sim_mem.mu held */
size_t sim_real_bytes(const void *p);
size_t sim_real_left(const void *p);

/* ---- fake_streams.c: stream clocks and events ---- */

void sim_stamp(cudaEvent_t e, double t);

/* ---- fake_kernels.c: the harness's kernels, the data and the sums ---- */

extern const char *sim_wrong_algo; /* set by the transport's setup for AR_SIM_WRONG */
int sim_bad_sum(const char *algo);
void sim_allreduce(int rank, int n, void *const *buf, const size_t *bytes, size_t nelem, int dt,
                   int stale, int bad);

/* ---- fake_hooks.c: each rank's AllReduces, counted, and what fires on them ---- */

double sim_jitter(int rank, int k);
int sim_failure_hooks(int rank);

/* ---- fake_load.c: --compute's load lane ---- */

int sim_beside_load(cudaStream_t s);
void sim_run(cudaStream_t s, double us);

#endif
