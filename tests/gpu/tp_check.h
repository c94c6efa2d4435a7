/* tp_check's parts (tp_check.c has the commands): the schedules it checks (tp_check_sched.c),
 * the adversarial program simulator (tp_check_sim.c) and its cases (tp_check_cases.c), the ll
 * program simulator (tp_check_ll.c) and its cases (tp_check_ll_cases.c), runs on GPUs
 * (tp_check_gpu.c) and the timed simulation (tp_check_tsim.c). */
#ifndef TP_CHECK_H
#define TP_CHECK_H

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ar.h"
#include "model.h"
#include "degrade.h"
#include "flags.h"
#include "lower/p2p_hold.h"
#include "exec_prog.h"

extern int npass, nfail; /* the closing line's counts */

/* A CUDA call that must work on the GPU runs: else the file, line and error, exit 2. */
#define CU(call)                                                                                   \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) {                                                                       \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));       \
      exit(2);                                                                                     \
    }                                                                                              \
  } while (0)

enum {
  SIM_REINIT = 100,
  SIM_CAPTURE,
  SIM_KERNEL, /* harness items on stream 0 */
  SIM_XCOPY,
  SIM_XWAIT
}; /* --xq: a copy run by another GPU's queue, and its issuer's wait */

struct sim_item {
  const struct tp_op *op; /* NULL for harness items */
  int kind, iter;
  int rec;    /* RECORD: its record id; WAIT_EVENT: the captured record id (-1 none) */
  int step;   /* COPY/SUM progress: 0 read A, 1 write A, 2 read B, 3 write B */
  float *tmp; /* values read, awaiting their write */
  /* SIM_KERNEL (sm): the program runs region by region */
  size_t reg0, reg1; /* current region [reg0, reg1) of the rank's ops */
  unsigned char *done;
  int *kstep;
  float **ktmp;
  int xid; /* SIM_XCOPY / SIM_XWAIT pair */
};

struct sim_queue {
  struct sim_item *it;
  size_t n, head;
};

struct sim {
  const struct tp_prog *p;
  int n, iters, fifo, xq;
  const struct tp_op *outside; /* the first copy or sum outside its buffers, or NULL */
  unsigned char *xdone; /* per cross copy: done */
  int *xwaiting;        /* per cross copy: its issuer's queue has reached the wait */
  int nx;
  size_t nelem;
  float *data[AR_MAX_GPUS], *scratch[AR_MAX_GPUS], *result[4][AR_MAX_GPUS];
  uint32_t flags[AR_MAX_GPUS][2 * AR_MAX_GPUS];
  struct sim_queue q[AR_MAX_GPUS][2 * AR_MAX_GPUS + 2];
  int nq[AR_MAX_GPUS];
  unsigned char *rec_done[AR_MAX_GPUS];
  int nrec[AR_MAX_GPUS];
  double weight[AR_MAX_GPUS];
  double qweight[AR_MAX_GPUS][2 * AR_MAX_GPUS + 2]; /* a queue's own slowness, beside its rank's */
  uint64_t rng;
};

/* Steps the generator state *x and returns it: a pseudo-random 64-bit number (xorshift). */
static inline uint64_t xorshift64(uint64_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return *x;
}

/* Returns a pseudo-random 64-bit number (xorshift). */
static inline uint64_t sim_rand(struct sim *m) {
  return xorshift64(&m->rng);
}

/* Index of a pick among the nc weights w (summing to tot) for the random number x. */
static inline int sim_pick(uint64_t x, const double *w, int nc, double tot) {
  double pick = (double)(x % 1000000) / 1e6 * tot;
  int j = 0;
  while (j < nc - 1 && pick >= w[j])
    pick -= w[j++];
  return j;
}

static inline float *sim_ptr(struct sim *m, const struct tp_ref *x) {
  return (x->buf == TP_BUF_DATA ? m->data[x->rank] : m->scratch[x->rank]) + x->off / 4;
}

static inline void sim_push(struct sim_queue *q, struct sim_item it) {
  q->it = realloc(q->it, (q->n + 1) * sizeof(*q->it));
  q->it[q->n++] = it;
}

/* One host-side call of a rank: a program op of an iteration, or a harness item. */
struct sim_call {
  const struct tp_op *op;
  int kind, iter;
};

/* The ll program simulator (tp_check_ll.c) and its cases (tp_check_ll_cases.c). */
#define LL_MAX_WARPS 5

/* One case of an ll program: the protocol and slice it is lowered with, the warps of each rank
 * and the speeds. */
struct ll_case {
  int esize, parities;
  int proto; /* tc_set.ll_protocol for the program */
  size_t sb; /* signals: tc_set.ll_slice */
  int nw[AR_MAX_GPUS];
  double rank_weight[AR_MAX_GPUS];
  int warp_skew; /* some warps much slower than others */
  int forward;   /* ll.forward */
  uint64_t seed;
};

/* TAKE: 1 when our data comes first (a reduce), as the kernel decides it. */
static inline int ll_reduce(const struct tp_op *o) {
  return o->nsrc > 0 && o->src[0].buf == TP_BUF_DATA;
}

/* Simulates program p under case c; 0 when it passed, else 1 with the failure in err (steps:
 * adds the warp steps taken, or NULL). */
int ll_sim_one(const struct tp_prog *p, const struct ll_case *c, char *err, size_t len,
               long *steps);

struct opts {
  const char *transport, *algos, *sizes, *dtypes, *pipelines;
  const char *degrade; /* "R:F[,R:F]" or "": the emulation's degraded GPUs */
  const char *gpus; /* procs: each rank's device */
  int iters, ranks, warmup, marks, fail_share;
  double timeout;
};

ar_status build_for(const char *name, int n, const struct tp_degrade *dg, int segments, struct ar_schedule *s);
ar_status build_sched(const char *name, int n, struct ar_schedule *s);
/* build_sched for a sweep over n: 1 when it built; 0 when not (unsupported n silently, other
 * errors with a SKIP line). */
int sched_for_sweep(const char *name, int n, struct ar_schedule *s);
float expected(int n, size_t i);
float pattern(int r, size_t i);
int algo_list(const char *list, const char **names, int max);
int cmd_bw(void);
int cmd_gpu(const struct opts *o, int timing);
int cmd_llsim(int nmax, int seeds, const char *algos, const char *sizes, int negative);
int cmd_procs(const struct opts *o, const char *gpus, int fail_share);
int cmd_reduce(void);
int cmd_sim(int nmax, int seeds, const char *algos, int xq);
int cmd_tsim(const char *algos, const char *sizes, const char *degrade, int ranks, int segments, const char *transport, int pipeline);
int marks_ok(const struct tp_prog *p, const char *what);
int split(const char *list, char **out, int max);
long sim_one(const struct tp_prog *p, size_t nelem, int fifo, int xq, uint64_t seed, const char *what);
size_t parse_size(const char *t, int *is_elem);
void parse_degrade(const char *text, struct tp_degrade *dg);
void sim_auto_pipeline(int nmax, int seeds);
void sim_dataflow(int nmax, int seeds, const char *algos);
void tsim_checks(void);
/* The lowering's settings every case here lowers with (the built-in ones, as options and cases
 * change them); the lowering itself keeps none. */
extern struct lower_settings tc_set;
/* The name of the transport whose executor is tp. */
const char *tc_tp_name(const struct tp_ops *tp);

#endif
