/* The sm transport: one persistent cooperative kernel per rank and AllReduce reads its peers'
 * data over NVLink (peer pointers) and sums it into its own data in one pass; ranks
 * synchronise through flag words in device memory written with release stores at system scope
 * and polled with acquire loads: no host round trip, no copy engine, one launch per rank.
 *
 * The program comes from the lowering (lower_job, TP_MODE_SM): per round, READY to our readers, wait READY
 * from our sources, then each destination range is summed in one pass (dst + peers) straight
 * into data when no one reads that range from us this round, or into scratch when someone
 * does (round snapshot); grid barrier, DONE to the sources; wait DONE from our readers, then
 * scratch goes to data. Blocks run the program in lockstep only at SYNC (grid.sync()).
 * --phases marks (job->marks): the iteration that is marked runs a second kernel and program,
 * the same with a MARK after each round's end that stamps %globaltimer (round_marks.h); every
 * other iteration runs exactly the kernel it would without --phases.
 * Under MPI (transport.h) setup allocates for this process's ranks only, shares flags then
 * scratch (tp_share; the low-latency path instead shares its receive areas, tp_sm_oneshot.cu), builds
 * the resolved programs, which hold peers' addresses, only after the shares, and agrees on the
 * status; teardown unshares in the same order. */
#include <cooperative_groups.h>
#include <stdlib.h>
#include <string.h>

#include "nvtx.h"
#include "tp_sm_oneshot.h"
#include "exec_prog.h"
#include "sum.cuh"

namespace cg = cooperative_groups;

#define SM_THREADS 512

/* A program op with every address resolved for the device. The degraded-link emulation's
 * STAMP and PACE keep their stamp slot in nsrc and PACE its nanoseconds in nelem. */
struct sm_op {
  int kind, nsrc;
  uint32_t val;
  uint32_t *flag;
  void *dst;
  size_t nelem;
  tp_srcs src;
};

struct tp_ctx {
  struct tp_world w;
  struct tp_job job;
  struct tp_prog *prog;
  /* shared (tp_share): a remote rank's are mapped into this process */
  uint32_t *flags[AR_MAX_GPUS];
  void *scratch[AR_MAX_GPUS];
  struct sm_op *ops[AR_MAX_GPUS]; /* device copies */
  int nops[AR_MAX_GPUS];
  int blocks[AR_MAX_GPUS];
  int paced; /* degraded-link emulation: the kernel that runs STAMP and PACE */
  /* --phases (job->marks): the program with MARK ops, its grid, the rounds it marks */
  struct sm_op *mops[AR_MAX_GPUS];
  int nmops[AR_MAX_GPUS], mblocks[AR_MAX_GPUS];
  unsigned char *mhave[AR_MAX_GPUS];
  uint32_t iter[AR_MAX_GPUS];
  int use_ll;       /* the job runs on the low-latency path (the same in every process) */
  struct tp_oneshot *ll; /* the low-latency oneshot path (tp_sm_oneshot.h), or NULL */
};

#define SM_STAMPS 2 /* stamp slots per block: the round's start, the reads' start */
#define SM_OP_MARK 100 /* --phases: the marked kernel's ops only; val = the round that ended */

/* Runs one rank's program with every block; see the file comment. PACED (degraded jobs
 * only) adds STAMP and PACE, each block timing itself: its thread 0 keeps the stamps.
 * MARKED (--phases, the marked iteration only) adds the round marks of round_marks.h: ns[0] at
 * block 0's start, ns[1 + k] the latest of every block's time at MARK k (its threads done). */
template <typename T, bool PACED, bool MARKED>
__device__ __forceinline__ void sm_run(const sm_op *__restrict__ ops, int nops, uint32_t base,
                                       unsigned long long *ns) {
  cg::grid_group grid = cg::this_grid();
  size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x, nth = (size_t)gridDim.x * blockDim.x;
  uint64_t stamp[SM_STAMPS] = {0, 0};
  (void)stamp;
  (void)ns;
  if constexpr (MARKED)
    if (blockIdx.x == 0 && threadIdx.x == 0) ns[0] = tp_globaltimer();
  for (int i = 0; i < nops; i++) {
    const sm_op *o = &ops[i];
    switch (o->kind) {
    case TP_OP_WRITE_FLAG:
      if (blockIdx.x == 0 && threadIdx.x == 0) tp_flag_store(o->flag, base + o->val);
      break;
    case TP_OP_WAIT_FLAG:
      if (threadIdx.x == 0) tp_flag_spin(o->flag, base + o->val);
      __syncthreads();
      break;
    case TP_OP_SUM: tp_sum_range<T>((T *)o->dst, o->src, o->nsrc, o->nelem, tid, nth); break;
    case TP_OP_SYNC:
      __threadfence_system();
      grid.sync();
      break;
    case TP_OP_STAMP:
      if constexpr (PACED)
        if (threadIdx.x == 0) stamp[o->nsrc] = tp_globaltimer();
      break;
    case TP_OP_PACE:
      if constexpr (PACED) {
        if (threadIdx.x == 0) tp_spin_until(stamp[o->nsrc] + o->nelem);
        __syncthreads();
      }
      break;
    case SM_OP_MARK:
      if constexpr (MARKED) {
        __syncthreads();
        if (threadIdx.x == 0) atomicMax(ns + 1 + o->val, (unsigned long long)tp_globaltimer());
      }
      break;
    default: break;
    }
  }
}

/* The kernel of every iteration without marks. */
template <typename T, bool PACED>
__global__ void __launch_bounds__(SM_THREADS)
    sm_kernel(const sm_op *__restrict__ ops, int nops, uint32_t base) {
  sm_run<T, PACED, false>(ops, nops, base, nullptr);
}

/* The kernel of a marked iteration (--phases): the marked program, stamps into ns. */
template <typename T, bool PACED>
__global__ void __launch_bounds__(SM_THREADS)
    sm_kernel_marked(const sm_op *__restrict__ ops, int nops, uint32_t base,
                     unsigned long long *ns) {
  sm_run<T, PACED, true>(ops, nops, base, ns);
}

/* Returns the kernel for a dtype, with the emulation's ops when paced, the marked one when
 * marked. */
static const void *kernel_for(int dtype, int paced, int marked = 0) {
  if (marked) {
    switch (dtype) {
    case AR_DT_F32:
      return paced ? (const void *)sm_kernel_marked<float, true>
                   : (const void *)sm_kernel_marked<float, false>;
    case AR_DT_BF16:
      return paced ? (const void *)sm_kernel_marked<__nv_bfloat16, true>
                   : (const void *)sm_kernel_marked<__nv_bfloat16, false>;
    case AR_DT_F16:
      return paced ? (const void *)sm_kernel_marked<__half, true>
                   : (const void *)sm_kernel_marked<__half, false>;
    default: return NULL;
    }
  }
  switch (dtype) {
  case AR_DT_F32:
    return paced ? (const void *)sm_kernel<float, true> : (const void *)sm_kernel<float, false>;
  case AR_DT_BF16:
    return paced ? (const void *)sm_kernel<__nv_bfloat16, true>
                 : (const void *)sm_kernel<__nv_bfloat16, false>;
  case AR_DT_F16:
    return paced ? (const void *)sm_kernel<__half, true> : (const void *)sm_kernel<__half, false>;
  default: return NULL;
  }
}

/* Unshares what setup shared (collective: every process alike, the path being the same in
 * all), then frees whatever setup created for this process's ranks; c itself stays. */
static void release(struct tp_ctx *c) {
  if (c->use_ll) {
    tp_oneshot_teardown(c->ll);
  } else {
    tp_unshare(&c->w, (void **)c->flags);
    tp_unshare(&c->w, c->scratch);
  }
  for (int r = 0; r < c->w.n; r++) {
    if (c->w.remote[r] || cudaSetDevice(c->w.dev[r]) != cudaSuccess) continue;
    cudaFree(c->flags[r]);
    cudaFree(c->scratch[r]);
    cudaFree(c->ops[r]);
    cudaFree(c->mops[r]);
    free(c->mhave[r]);
  }
  lower_prog_free(c->prog);
}

static void teardown(struct tp_ctx *c) {
  if (!c) return;
  release(c);
  free(c);
}

/* Returns the device address of a program reference. */
static void *resolve(const struct tp_ctx *c, const struct tp_ref *x) {
  char *base = (char *)(x->buf == TP_BUF_DATA ? c->w.data[x->rank] : c->scratch[x->rank]);
  return base + x->off;
}

/* Allocates rank r's flags and scratch; AR_ERR_OOM when scratch does not fit. */
static ar_status alloc_rank(struct tp_ctx *c, int r) {
  CUDA_CHECK(cudaSetDevice(c->w.dev[r]));
  size_t fbytes = (size_t)c->prog->nslots * sizeof(uint32_t);
  CUDA_CHECK(cudaMalloc((void **)&c->flags[r], fbytes));
  CUDA_CHECK(cudaMemset(c->flags[r], 0, fbytes));
  size_t sb = c->prog->rank[r].scratch_bytes;
  if (sb && cudaMalloc(&c->scratch[r], sb) != cudaSuccess) {
    (void)cudaGetLastError();
    c->scratch[r] = NULL;
    return AR_ERR_OOM;
  }
  return AR_OK;
}

/* --phases: rank r's marked program: h (nops resolved ops) with a MARK after each round's end
 * (lower_prog_round_ends) into *out (malloc'd, *nout ops); the rounds marked into c->mhave[r].
 * Returns AR_OK or AR_ERR_NOMEM. */
static ar_status mark_rank(struct tp_ctx *c, int r, const struct sm_op *h, size_t nops,
                           struct sm_op **out, size_t *nout) {
  int nr = c->prog->nrounds;
  size_t *at = (size_t *)calloc(nr ? nr : 1, sizeof(size_t));
  struct sm_op *m = (struct sm_op *)calloc(nops + nr + 1, sizeof(*m));
  c->mhave[r] = (unsigned char *)calloc(nr ? nr : 1, 1);
  if (!at || !m || !c->mhave[r]) {
    free(at);
    free(m);
    return AR_ERR_NOMEM;
  }
  lower_prog_round_ends(c->prog, r, at);
  size_t j = 0;
  for (size_t i = 0; i < nops; i++) {
    m[j++] = h[i];
    for (int k = 0; k < nr; k++) /* at most one round ends after op i */
      if (at[k] == i + 1) {
        memset(&m[j], 0, sizeof(m[j]));
        m[j].kind = SM_OP_MARK;
        m[j++].val = (uint32_t)k;
        c->mhave[r][k] = 1;
      }
  }
  free(at);
  *out = m;
  *nout = j;
  return AR_OK;
}

/* Uploads rank r's program with resolved addresses (and, for --phases, its marked program)
 * and picks the grids. */
static ar_status load_rank(struct tp_ctx *c, int r) {
  const struct tp_rank_prog *rp = &c->prog->rank[r];
  CUDA_CHECK(cudaSetDevice(c->w.dev[r]));
  struct sm_op *h = (struct sm_op *)calloc(rp->nops ? rp->nops : 1, sizeof(*h));
  if (!h) return AR_ERR_NOMEM;
  size_t most = 0;
  for (size_t i = 0; i < rp->nops; i++) {
    const struct tp_op *o = &rp->ops[i];
    h[i].kind = o->kind;
    h[i].val = o->val;
    if (o->kind == TP_OP_WRITE_FLAG) h[i].flag = c->flags[o->peer] + o->slot;
    if (o->kind == TP_OP_WAIT_FLAG) h[i].flag = c->flags[r] + o->slot;
    if (o->kind == TP_OP_STAMP || o->kind == TP_OP_PACE) {
      if (o->tslot[0] < 0 || o->tslot[0] >= SM_STAMPS || o->tslot[1] >= 0) {
        free(h);
        return AR_ERR_INVALID; /* emit_sm uses two slots, one stamp per pace */
      }
      h[i].nsrc = o->tslot[0];
      h[i].nelem = o->ns[0];
    }
    if (o->kind == TP_OP_SUM || o->kind == TP_OP_COPY) {
      h[i].kind = TP_OP_SUM; /* a copy is a one-source sum */
      h[i].dst = resolve(c, &o->dst);
      h[i].nelem = o->bytes / c->prog->esize;
      h[i].nsrc = o->nsrc;
      for (int q = 0; q < o->nsrc; q++)
        h[i].src.p[q] = resolve(c, &o->src[q]);
      if (o->bytes > most) most = o->bytes;
    }
  }
  ar_status st = AR_OK;
  struct sm_op *m = NULL;
  size_t nm = 0;
  if (c->job.marks && (st = mark_rank(c, r, h, rp->nops, &m, &nm)) != AR_OK) {
    free(h);
    return st;
  }
  cudaError_t e = cudaMalloc((void **)&c->ops[r], (rp->nops ? rp->nops : 1) * sizeof(*h));
  if (e == cudaSuccess) e = cudaMemcpy(c->ops[r], h, rp->nops * sizeof(*h), cudaMemcpyHostToDevice);
  if (e == cudaSuccess && m) e = cudaMalloc((void **)&c->mops[r], (nm ? nm : 1) * sizeof(*m));
  if (e == cudaSuccess && m) e = cudaMemcpy(c->mops[r], m, nm * sizeof(*m), cudaMemcpyHostToDevice);
  free(h);
  free(m);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return e == cudaErrorMemoryAllocation ? AR_ERR_OOM : AR_ERR_CUDA;
  }
  c->nops[r] = (int)rp->nops;
  c->nmops[r] = (int)nm;
  /* one block per 128 KiB of the largest op, at most what can be co-resident (grid.sync);
   * co-located: one block per SM of the rank's share, so every rank's grid is resident at
   * once whatever else runs (transport.h's sms) */
  int per_sm = 0, sms = tp_wait_sms(&c->w, r), most_per_sm = tp_colocated(&c->w, r) ? 1 : 2;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, kernel_for(c->job.dtype, c->paced), SM_THREADS, 0));
  if (per_sm > most_per_sm) per_sm = most_per_sm;
  if (per_sm < 1) return AR_ERR_CUDA;
  size_t blocks = (most + (128u << 10) - 1) >> 17;
  if (blocks > (size_t)sms * per_sm) blocks = (size_t)sms * per_sm;
  c->blocks[r] = blocks < 1 ? 1 : (int)blocks;
  if (c->mops[r]) { /* the marked kernel: the same grid where it fits, loaded now (lazy
                     * loading would otherwise load it inside the timed iteration) */
    const void *mk = kernel_for(c->job.dtype, c->paced, 1);
    struct cudaFuncAttributes fa;
    CUDA_CHECK(cudaFuncGetAttributes(&fa, mk));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, mk, SM_THREADS, 0));
    if (per_sm > most_per_sm) per_sm = most_per_sm;
    if (per_sm < 1) return AR_ERR_CUDA;
    c->mblocks[r] = c->blocks[r] < sms * per_sm ? c->blocks[r] : sms * per_sm;
  }
  return st;
}

/* The cooperative launch on every GPU of this process; AR_ERR_UNSUPPORTED (reason set) if not. */
static ar_status check_coop(const struct tp_world *w, char *reason, size_t reason_len) {
  for (int r = 0; r < w->n; r++) {
    int coop = 0;
    if (w->remote[r]) continue;
    if (cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, w->dev[r]) != cudaSuccess ||
        !coop) {
      snprintf(reason, reason_len, "GPU %d cannot launch cooperative kernels", w->dev[r]);
      return AR_ERR_UNSUPPORTED;
    }
  }
  return AR_OK;
}

/* The program path: lowers, allocates this process's ranks, shares flags then scratch, loads
 * the resolved programs (peers' addresses: after the shares) and agrees on the status. */
static ar_status setup_program(struct tp_ctx *c, const struct lower_settings *set, ar_status st,
                               char *reason, size_t reason_len) {
  const struct tp_job *job = &c->job;
  struct lower_job lj = {AR_TP_SM, job->sched, job->nelem, (int)ar_dtype_size(job->dtype),
                         job->pipeline, &job->degrade};
  if (st == AR_OK) st = lower_job(&lj, set, &c->prog, NULL, reason, reason_len);
  for (int r = 0; st == AR_OK && r < c->w.n; r++)
    c->paced |= c->prog->rank[r].nstamps > 0;
  st = tp_each_local(&c->w, alloc_rank, c, st); /* zeroed flags before any peer sees them */
  st = tp_share(&c->w, (void **)c->flags, st);
  st = tp_share(&c->w, c->scratch, st);
  if (st != AR_OK) return st; /* everyone's status: every process stops here */
  return tp_agree(&c->w, tp_each_local(&c->w, load_rank, c, st));
}

static ar_status setup(const struct tp_world *w, const struct tp_job *job, struct tp_ctx **ctx,
                       char *reason, size_t reason_len) {
  *ctx = NULL;
  const struct ar_schedule *s = job->sched;
  AR_CHECK(tp_job_check(w, job, reason, reason_len));
  if (!kernel_for(job->dtype, 0)) {
    snprintf(reason, reason_len, "no sm kernel for dtype %d", job->dtype);
    return AR_ERR_INVALID;
  }
  /* from here on every process makes the same collective calls, whatever fails in it (the
   * GPUs differ per process): a failure goes into st, which the shares make everyone's */
  ar_status st = AR_OK;
  struct tp_ctx spare, *c = (struct tp_ctx *)tp_ctx_alloc(sizeof(spare), &spare, &st);
  c->w = *w;
  c->job = *job;
  struct lower_settings set;
  lower_settings_of(&set, job->settings);
  c->use_ll = tp_oneshot_eligible(w, job, &set);
  if (st == AR_OK) st = check_coop(w, reason, reason_len);
  if (st == AR_OK && job->pipeline_used) *job->pipeline_used = 1; /* one pass per round */
  if (c->use_ll) { /* small oneshot: one plain kernel, no program */
    st = tp_oneshot_setup(w, job, st, &c->ll);
    if (st == AR_ERR_OOM) snprintf(reason, reason_len, "sm: low-latency slots do not fit");
  } else {
    st = setup_program(c, &set, st, reason, reason_len);
    if (st == AR_ERR_OOM) snprintf(reason, reason_len, "sm scratch does not fit in GPU memory");
  }
  if (st != AR_OK) {
    release(c);
    if (c != &spare) free(c);
    return st;
  }
  if (c->use_ll) {
    char how[96];
    ar_log(AR_LOG_INFO, "sm: %s, %zu elements: low-latency oneshot kernel, %s", s->algo,
           job->nelem, tp_oneshot_describe(c->ll, how, sizeof(how)));
    *ctx = c;
    return AR_OK;
  }
  int r0 = 0; /* the first rank of this process, for the log */
  while (r0 < w->n - 1 && w->remote[r0]) r0++;
  ar_log(AR_LOG_INFO, "sm: %s, %zu elements: %d blocks on rank %d, %d ops, scratch %zu bytes",
         s->algo, job->nelem, c->blocks[r0], r0, c->nops[r0], c->prog->rank[r0].scratch_bytes);
  if (ar_log_level() >= AR_LOG_TRACE)
    for (int r = 0; r < w->n; r++)
      lower_prog_print(c->prog, r, stderr);
  *ctx = c;
  return AR_OK;
}

/* One cooperative launch runs the whole AllReduce of this rank (one NVTX range: the rounds
 * all live inside the kernel); with marks for this iteration (--phases), the marked kernel. */
static ar_status enqueue(struct tp_ctx *c, int rank, cudaStream_t stream) {
  if (c->ll) { /* one round inside one kernel: no round marks */
    if (c->job.marks && c->job.marks[rank]) memset(c->job.marks[rank]->have, 0, (size_t)c->job.marks[rank]->nrounds);
    return tp_oneshot_enqueue(c->ll, rank, stream);
  }
  struct tp_marks *mk = c->job.marks && c->mops[rank] ? c->job.marks[rank] : NULL;
  if (mk) {
    memset(mk->have, 0, (size_t)mk->nrounds);
    mk->in_ns = 1;
  }
  if (!c->nops[rank]) return AR_OK;
  uint32_t base = c->iter[rank]++ * c->prog->span;
  const sm_op *ops = c->ops[rank];
  int nops = c->nops[rank];
  void *args[] = {(void *)&ops, (void *)&nops, (void *)&base};
  ar_nvtx_push("schedule");
  cudaError_t e;
  if (mk) {
    const sm_op *mops = c->mops[rank];
    int nm = c->nmops[rank];
    unsigned long long *ns = mk->ns;
    void *margs[] = {(void *)&mops, (void *)&nm, (void *)&base, (void *)&ns};
    e = cudaLaunchCooperativeKernel(kernel_for(c->job.dtype, c->paced, 1),
                                    dim3(c->mblocks[rank]), dim3(SM_THREADS), margs, 0, stream);
    for (int k = 0; k < mk->nrounds && k < c->prog->nrounds; k++)
      mk->have[k] = c->mhave[rank][k];
  } else {
    e = cudaLaunchCooperativeKernel(kernel_for(c->job.dtype, c->paced),
                                    dim3(c->blocks[rank]), dim3(SM_THREADS), args, 0, stream);
  }
  ar_nvtx_pop();
  CUDA_CHECK(e);
  return AR_OK;
}

extern "C" const struct tp_ops tp_sm = {setup, enqueue, teardown};
