/* The ll transport: one plain kernel per rank and AllReduce runs the whole ll program
 * (src/lower/lower.h, TP_MODE_LL): per round it pushes every range a peer receives from this
 * rank into that peer's receive slot, then waits for its own slots and sums them into its
 * data. No grid barrier and no round-trip handshake: a round costs one crossing of the link.
 *
 * Every 16 bytes of the buffer ("unit" u) belong to one thread, gtid = u mod (threads of the
 * grid), the same on every rank and every op, so a thread's program order is all the ordering
 * a unit needs (lower.h says why). Whether a slot holds this iteration's bytes:
 *   lines (ll.protocol): each unit travels as two 16-byte lines {4 bytes, seq, 4 bytes, seq},
 *     stored and loaded as single 16-byte accesses, so a line whose two seq words read this
 *     iteration's number holds this iteration's data (as NCCL's LL protocol); no fence, no
 *     flag, but twice the bytes on the link;
 *   signals: plain 16-byte stores, then per round the block's threads meet, one thread fences
 *     at system scope and writes one flag per (slot, block) in the receiver's memory; the
 *     receiver's block waits for its flags, meets, then reads its units through L2.
 * The sequence number is the iteration's (1, 2, ...: slots and flags start zeroed); slots have
 * two parities (lower.h). Every rank's grid is the same (the signals pair blocks, and the
 * lines map units to threads), made of one block per SM at most and, for co-located ranks, of
 * the rank's SM share, so every block of every rank is resident at once (blocks wait on peers'
 * blocks). Under MPI slots and flags are shared like the sm transport's (tp_share). */
#include <stdlib.h>
#include <string.h>

#include "nvtx.h"
#include "settings.h"
#include "tp_prog.h"
#include "tp_sum.cuh"

#define LLK_THREADS 256
#define LLK_UNIT 16 /* bytes of the buffer one thread handles per step */

enum { LLK_LINES = 0, LLK_SIGNALS = 1 };

/* One op with its addresses resolved (parity 0; the kernel adds the parity's offset). */
struct llk_op {
  int kind;      /* TP_OP_PUT, TP_OP_TAKE */
  int round;
  int nsrc;      /* TAKE: slots to sum (our own data not counted) */
  int reduce;    /* TAKE: our data first */
  size_t x0, x1; /* bytes [x0, x1) of the buffer */
  size_t u0, u1; /* units covering them */
  size_t pstride;              /* bytes between the slot's two parities (its owner's area) */
  char *slot[AR_MAX_GPUS];     /* PUT: the peer's slot; TAKE: our slots, one per source */
  uint32_t *flag[AR_MAX_GPUS]; /* signals: the flag words of block 0 (block b: + b) */
};

struct tp_ctx {
  struct tp_world w;
  struct tp_job job;
  struct tp_prog *prog;
  int proto, blocks;
  size_t nbytes;
  /* shared (tp_share): a remote rank's are mapped into this process */
  void *area[AR_MAX_GPUS];      /* receive slots, two parities */
  uint32_t *flags[AR_MAX_GPUS]; /* signals: nslots x blocks words */
  struct llk_op *ops[AR_MAX_GPUS];
  int nops[AR_MAX_GPUS];
  unsigned char *mhave[AR_MAX_GPUS]; /* --phases: the rounds the rank has work in */
  uint32_t iter[AR_MAX_GPUS];
};

__device__ __forceinline__ void llk_store_line(void *p, uint4 v) {
  asm volatile("st.volatile.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y),
               "r"(v.z), "r"(v.w)
               : "memory");
}

__device__ __forceinline__ uint4 llk_load_line(const void *p) {
  uint4 v;
  asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p)
               : "memory");
  return v;
}

/* Unit u of our buffer; past its end (nbytes) zero. */
__device__ __forceinline__ uint4 llk_unit(const char *data, size_t u, size_t nbytes) {
  size_t at = u * LLK_UNIT;
  if (at + LLK_UNIT <= nbytes) return *(const uint4 *)(data + at);
  uint4 v = make_uint4(0, 0, 0, 0);
  unsigned short *h = (unsigned short *)&v; /* every dtype is a multiple of 2 bytes */
  for (size_t b = at; b + 2 <= nbytes && b < at + LLK_UNIT; b += 2)
    h[(b - at) / 2] = *(const unsigned short *)(data + b);
  return v;
}

/* Writes the bytes of unit u within [x0, x1) (and the buffer) from v. */
__device__ __forceinline__ void llk_put_unit(char *data, size_t u, size_t x0, size_t x1, uint4 v) {
  size_t at = u * LLK_UNIT;
  if (at >= x0 && at + LLK_UNIT <= x1) {
    *(uint4 *)(data + at) = v;
    return;
  }
  const unsigned short *h = (const unsigned short *)&v;
  for (size_t b = at > x0 ? at : x0; b + 2 <= x1 && b < at + LLK_UNIT; b += 2)
    *(unsigned short *)(data + b) = h[(b - at) / 2];
}

/* Waits until unit u of a lines slot holds iteration seq, and returns it. */
__device__ __forceinline__ uint4 llk_wait_unit(const char *p, uint32_t seq) {
  uint4 a, b;
  uint64_t t0 = 0;
  for (;;) {
    a = llk_load_line(p);
    b = llk_load_line(p + 16);
    if (a.y == seq && a.w == seq && b.y == seq && b.w == seq) break;
    if (!t0) t0 = tp_globaltimer();
    else if (tp_globaltimer() - t0 > TP_SPIN_TIMEOUT_NS) __trap();
  }
  return make_uint4(a.x, a.z, b.x, b.z);
}

/* Signals: the block's PUTs so far are visible system-wide, then their flags are raised. */
__device__ __forceinline__ void llk_flush(uint32_t *const *pend, int npend, uint32_t seq) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence_system();
    for (int i = 0; i < npend; i++)
      tp_flag_store(pend[i] + blockIdx.x, seq);
  }
}

#define LLK_MAX_PEND 64 /* PUTs of one round whose flags are pending (signals) */

template <typename T, int PROTO, bool MARKED>
__device__ __forceinline__ void llk_run(const llk_op *__restrict__ ops, int nops, char *data,
                                        size_t nbytes, int par, uint32_t seq,
                                        unsigned long long *ns) {
  const size_t gtid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  const size_t nth = (size_t)gridDim.x * blockDim.x;
  uint32_t *pend[LLK_MAX_PEND];
  int npend = 0;
  (void)ns;
  if constexpr (MARKED)
    if (blockIdx.x == 0 && threadIdx.x == 0) ns[0] = tp_globaltimer();
  for (int i = 0; i < nops; i++) {
    const llk_op &o = ops[i];
    size_t first = o.u0 + (gtid + nth - o.u0 % nth) % nth; /* our first unit in [u0, u1) */
    if (o.kind == TP_OP_PUT) {
      char *slot = o.slot[0] + (size_t)par * o.pstride;
      for (size_t u = first; u < o.u1; u += nth) {
        uint4 v = llk_unit(data, u, nbytes);
        char *p = slot + (u - o.u0) * LLK_UNIT * (PROTO == LLK_LINES ? 2 : 1);
        if constexpr (PROTO == LLK_LINES) {
          llk_store_line(p, make_uint4(v.x, seq, v.y, seq));
          llk_store_line(p + 16, make_uint4(v.z, seq, v.w, seq));
        } else {
          __stcg((uint4 *)p, v);
        }
      }
      if constexpr (PROTO == LLK_SIGNALS) {
        if (npend == LLK_MAX_PEND) {
          llk_flush(pend, npend, seq);
          npend = 0;
        }
        pend[npend++] = o.flag[0];
      }
    } else {
      if constexpr (PROTO == LLK_SIGNALS) {
        if (npend) llk_flush(pend, npend, seq);
        npend = 0;
        if ((int)threadIdx.x < o.nsrc) tp_flag_spin(o.flag[threadIdx.x] + blockIdx.x, seq);
        __syncthreads();
      }
      const int pe = LLK_UNIT / sizeof(T);
      for (size_t u = first; u < o.u1; u += nth) {
        size_t off = (u - o.u0) * LLK_UNIT * (PROTO == LLK_LINES ? 2 : 1) + (size_t)par * o.pstride;
        uint4 v;
        if (!o.reduce && o.nsrc == 1) { /* a copy: the bytes as they came */
          if constexpr (PROTO == LLK_LINES) v = llk_wait_unit(o.slot[0] + off, seq);
          else v = __ldcg((const uint4 *)(o.slot[0] + off));
        } else {
          float acc[pe];
          bool first_add = true;
          if (o.reduce) {
            tp_vec_add<T>(acc, llk_unit(data, u, nbytes), true);
            first_add = false;
          }
          for (int s = 0; s < o.nsrc; s++) {
            uint4 w;
            if constexpr (PROTO == LLK_LINES) w = llk_wait_unit(o.slot[s] + off, seq);
            else w = __ldcg((const uint4 *)(o.slot[s] + off));
            tp_vec_add<T>(acc, w, first_add);
            first_add = false;
          }
          v = tp_vec_pack<T>(acc);
        }
        llk_put_unit(data, u, o.x0, o.x1 < nbytes ? o.x1 : nbytes, v);
      }
    }
    if constexpr (MARKED) /* the round ends with its last op: when this block is past it */
      if (i + 1 == nops || ops[i + 1].round != o.round) {
        __syncthreads();
        if (threadIdx.x == 0) atomicMax(ns + 1 + o.round, (unsigned long long)tp_globaltimer());
      }
  }
  if constexpr (PROTO == LLK_SIGNALS)
    if (npend) llk_flush(pend, npend, seq);
}

template <typename T, int PROTO, bool MARKED>
__global__ void __launch_bounds__(LLK_THREADS)
    llk_kernel(const llk_op *__restrict__ ops, int nops, char *data, size_t nbytes, int par,
               uint32_t seq, unsigned long long *ns) {
  llk_run<T, PROTO, MARKED>(ops, nops, data, nbytes, par, seq, ns);
}

template <typename T> static const void *kernel_t(int proto, int marked) {
  if (proto == LLK_LINES)
    return marked ? (const void *)llk_kernel<T, LLK_LINES, true>
                  : (const void *)llk_kernel<T, LLK_LINES, false>;
  return marked ? (const void *)llk_kernel<T, LLK_SIGNALS, true>
                : (const void *)llk_kernel<T, LLK_SIGNALS, false>;
}

/* The kernel for a dtype and protocol (NULL: no such dtype). */
static const void *kernel_for(int dtype, int proto, int marked) {
  switch (dtype) {
  case AR_DT_F32: return kernel_t<float>(proto, marked);
  case AR_DT_BF16: return kernel_t<__nv_bfloat16>(proto, marked);
  case AR_DT_F16: return kernel_t<__half>(proto, marked);
  default: return NULL;
  }
}

/* Bytes of slot memory per byte of slot data (lines carry a flag beside every 4 bytes). */
static size_t slot_factor(int proto) { return proto == LLK_LINES ? 2 : 1; }

/* Unshares what setup shared (collective) and frees this process's allocations. */
static void release(struct tp_ctx *c) {
  tp_unshare(&c->w, c->area);
  tp_unshare(&c->w, (void **)c->flags);
  for (int r = 0; r < c->w.n; r++) {
    if (c->w.remote[r] || cudaSetDevice(c->w.dev[r]) != cudaSuccess) continue;
    cudaFree(c->area[r]);
    cudaFree(c->flags[r]);
    cudaFree(c->ops[r]);
    free(c->mhave[r]);
  }
  tp_prog_free(c->prog);
}

static void teardown(struct tp_ctx *c) {
  if (!c) return;
  release(c);
  free(c);
}

/* Zeroed slots (two parities) and flags of rank r, complete before any peer writes them. */
static ar_status alloc_rank(struct tp_ctx *c, int r) {
  CUDA_CHECK(cudaSetDevice(c->w.dev[r]));
  size_t area = 2 * c->prog->rank[r].scratch_bytes * slot_factor(c->proto);
  size_t fl = (size_t)(c->prog->nslots ? c->prog->nslots : 1) * c->blocks * sizeof(uint32_t);
  if (cudaMalloc(&c->area[r], area ? area : 16) != cudaSuccess ||
      cudaMalloc((void **)&c->flags[r], fl) != cudaSuccess) {
    (void)cudaGetLastError();
    return AR_ERR_OOM;
  }
  CUDA_CHECK(cudaMemset(c->area[r], 0, area ? area : 16));
  CUDA_CHECK(cudaMemset(c->flags[r], 0, fl));
  return AR_OK;
}

/* Uploads rank r's program with every address resolved. */
static ar_status load_rank(struct tp_ctx *c, int r) {
  const struct tp_rank_prog *rp = &c->prog->rank[r];
  size_t f = slot_factor(c->proto), nsl = (size_t)c->blocks;
  CUDA_CHECK(cudaSetDevice(c->w.dev[r]));
  struct llk_op *h = (struct llk_op *)calloc(rp->nops ? rp->nops : 1, sizeof(*h));
  c->mhave[r] = (unsigned char *)calloc(c->prog->nrounds ? c->prog->nrounds : 1, 1);
  if (!h || !c->mhave[r]) {
    free(h);
    return AR_ERR_NOMEM;
  }
  for (size_t i = 0; i < rp->nops; i++) {
    const struct tp_op *o = &rp->ops[i];
    struct llk_op *d = &h[i];
    d->kind = o->kind;
    d->round = o->round;
    c->mhave[r][o->round] = 1;
    const struct tp_ref *buf = o->kind == TP_OP_PUT ? &o->src[0] : &o->dst;
    d->x0 = buf->off;
    d->x1 = buf->off + o->bytes;
    d->u0 = d->x0 / LLK_UNIT;
    d->u1 = (d->x1 + LLK_UNIT - 1) / LLK_UNIT;
    if (o->kind == TP_OP_PUT) {
      int w = o->peer;
      d->pstride = c->prog->rank[w].scratch_bytes * f;
      d->slot[0] = (char *)c->area[w] + o->dst.off * f;
      d->flag[0] = c->flags[w] + (size_t)o->slot * nsl;
    } else {
      d->pstride = rp->scratch_bytes * f;
      d->reduce = o->nsrc > 0 && o->src[0].buf == TP_BUF_DATA;
      for (int q = d->reduce; q < o->nsrc; q++) {
        d->slot[d->nsrc] = (char *)c->area[r] + o->src[q].off * f;
        d->flag[d->nsrc] = c->flags[r] + (size_t)(o->slot + d->nsrc) * nsl;
        d->nsrc++;
      }
    }
  }
  cudaError_t e = cudaMalloc((void **)&c->ops[r], (rp->nops ? rp->nops : 1) * sizeof(*h));
  if (e == cudaSuccess) e = cudaMemcpy(c->ops[r], h, rp->nops * sizeof(*h), cudaMemcpyHostToDevice);
  free(h);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return e == cudaErrorMemoryAllocation ? AR_ERR_OOM : AR_ERR_CUDA;
  }
  c->nops[r] = (int)rp->nops;
  /* the kernels load now: lazy loading would load them inside a timed iteration */
  struct cudaFuncAttributes fa;
  CUDA_CHECK(cudaFuncGetAttributes(&fa, kernel_for(c->job.dtype, c->proto, 0)));
  if (c->job.marks) CUDA_CHECK(cudaFuncGetAttributes(&fa, kernel_for(c->job.dtype, c->proto, 1)));
  return AR_OK;
}

/* Runs fn(c, r) for every rank of this process while st is AR_OK, then waits for their
 * devices; returns the status. */
static ar_status each_local(struct tp_ctx *c, ar_status (*fn)(struct tp_ctx *, int), ar_status st) {
  for (int r = 0; st == AR_OK && r < c->w.n; r++)
    if (!c->w.remote[r]) st = fn(c, r);
  for (int r = 0; st == AR_OK && r < c->w.n; r++)
    if (!c->w.remote[r] &&
        (cudaSetDevice(c->w.dev[r]) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess))
      st = AR_ERR_CUDA;
  return st;
}

/* The protocol (ll.protocol) and the grid (ll.blocks), the same on every rank: blocks by the
 * largest op's units, at most one per SM of the smallest share among the ranks. */
static void choose_grid(struct tp_ctx *c) {
  int proto = (int)ar_setting(AR_SET_LL_PROTOCOL); /* 0 auto, 1 lines, 2 signals */
  if (proto == 0)
    c->proto = c->nbytes <= (size_t)ar_setting(AR_SET_LL_LINES_MAX) ? LLK_LINES : LLK_SIGNALS;
  else
    c->proto = proto == 1 ? LLK_LINES : LLK_SIGNALS;
  size_t most = 0;
  for (int r = 0; r < c->prog->n; r++)
    for (size_t i = 0; i < c->prog->rank[r].nops; i++)
      if (c->prog->rank[r].ops[i].bytes > most) most = c->prog->rank[r].ops[i].bytes;
  int cap = 1 << 30;
  for (int r = 0; r < c->w.n; r++)
    if (tp_wait_sms(&c->w, r) < cap) cap = tp_wait_sms(&c->w, r);
  /* lines: one unit per thread; signals: four, the flags' cost spread over more bytes */
  size_t per_block = (size_t)LLK_THREADS * LLK_UNIT * (c->proto == LLK_LINES ? 1 : 4);
  size_t want = (size_t)ar_setting(AR_SET_LL_BLOCKS);
  if (!want) want = (most + per_block - 1) / per_block;
  if (want > (size_t)cap) want = (size_t)cap;
  c->blocks = want < 1 ? 1 : (int)want;
}

static ar_status setup(const struct tp_world *w, const struct tp_job *job, struct tp_ctx **ctx,
                       char *reason, size_t reason_len) {
  *ctx = NULL;
  AR_CHECK(tp_job_check(w, job, reason, reason_len));
  if (!kernel_for(job->dtype, LLK_LINES, 0)) {
    snprintf(reason, reason_len, "no ll kernel for dtype %d", job->dtype);
    return AR_ERR_INVALID;
  }
  /* from here on every process makes the same collective calls, whatever fails in it */
  ar_status st = AR_OK;
  struct tp_ctx spare, *c = (struct tp_ctx *)tp_ctx_alloc(sizeof(spare), &spare, &st);
  c->w = *w;
  c->job = *job;
  c->nbytes = job->nelem * ar_dtype_size(job->dtype);
  if (job->pipeline_used) *job->pipeline_used = 1;
  if (st == AR_OK)
    st = lower_program(LOWER_LL, job->sched, job->nelem, (int)ar_dtype_size(job->dtype), 1,
                       &job->degrade, &c->prog, NULL, reason, reason_len);
  if (st == AR_OK) choose_grid(c);
  int grid[2] = {c->proto, c->blocks}; /* the first rank's process decides for everyone */
  if (st == AR_OK) st = tp_bcast(w, grid, sizeof(grid), 0);
  c->proto = grid[0];
  c->blocks = grid[1];
  st = each_local(c, alloc_rank, st);
  if (st == AR_ERR_OOM) snprintf(reason, reason_len, "ll: receive slots do not fit in GPU memory");
  st = tp_share(&c->w, c->area, st);
  st = tp_share(&c->w, (void **)c->flags, st);
  if (st == AR_OK) st = tp_agree(&c->w, each_local(c, load_rank, st));
  if (st != AR_OK) {
    release(c);
    if (c != &spare) free(c);
    return st;
  }
  int r0 = 0; /* the first rank of this process, for the log */
  while (r0 < w->n - 1 && w->remote[r0]) r0++;
  ar_log(AR_LOG_INFO, "ll: %s, %zu elements: %s, %d blocks, %d ops on rank %d, slots %zu bytes",
         job->sched->algo, job->nelem, c->proto == LLK_LINES ? "lines" : "signals", c->blocks,
         c->nops[r0], r0, c->prog->rank[r0].scratch_bytes * slot_factor(c->proto) * 2);
  if (ar_log_level() >= AR_LOG_TRACE)
    for (int r = 0; r < w->n; r++)
      tp_prog_print(c->prog, r, stderr);
  *ctx = c;
  return AR_OK;
}

/* One launch runs the whole AllReduce of this rank (one NVTX range); with marks for this
 * iteration (--phases), the marked kernel stamps each round's end (tp_marks.h). */
static ar_status enqueue(struct tp_ctx *c, int rank, cudaStream_t stream) {
  struct tp_marks *mk = c->job.marks ? c->job.marks[rank] : NULL;
  if (mk) {
    memset(mk->have, 0, (size_t)mk->nrounds);
    for (int k = 0; k < mk->nrounds && k < c->prog->nrounds; k++)
      mk->have[k] = c->mhave[rank][k];
    mk->in_ns = 1;
  }
  if (!c->nops[rank]) return AR_OK;
  uint32_t seq = ++c->iter[rank];
  const llk_op *ops = c->ops[rank];
  int nops = c->nops[rank], par = (int)(seq & 1);
  char *data = (char *)c->w.data[rank];
  size_t nbytes = c->nbytes;
  unsigned long long *ns = mk ? mk->ns : NULL;
  void *args[] = {(void *)&ops, (void *)&nops, (void *)&data, (void *)&nbytes,
                  (void *)&par, (void *)&seq, (void *)&ns};
  ar_nvtx_push("schedule");
  cudaError_t e = cudaLaunchKernel(kernel_for(c->job.dtype, c->proto, mk != NULL),
                                   dim3(c->blocks), dim3(LLK_THREADS), args, 0, stream);
  ar_nvtx_pop();
  CUDA_CHECK(e);
  return AR_OK;
}

extern "C" const struct tp_ops tp_llk = {"ll", setup, enqueue, teardown};
