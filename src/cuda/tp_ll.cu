/* The ll transport: one plain kernel per rank and AllReduce runs the whole ll program
 * (src/lower/lower.h, TP_MODE_LL): per round it pushes every range a peer receives from this
 * rank into that peer's receive slot, then waits for its own slots and sums them into its
 * data. No grid barrier and no round-trip handshake: a round costs one crossing of the link.
 *
 * The buffer is cut into slices; slice s belongs to warp s mod (warps of the grid), warps
 * numbered across blocks first (a few slices spread over as many SMs), and each byte of a
 * slice to one lane, the same on every op and every rank, so one thread's program order is
 * all the ordering a byte needs (lower.h says why). A warp runs the ops in order, each over
 * its slices; a TAKE that forwards (lower_ll_forwards) sends each slice on to its PUTs as soon
 * as it is summed, and those PUTs are then skipped. Whether a slot holds this iteration's
 * bytes (ll.protocol):
 *   lines: slices of 512 bytes, 16 per lane, sent as two 16-byte lines {4 bytes, seq,
 *     4 bytes, seq}, each stored and loaded as one access, so a line whose seq words read this
 *     iteration's number holds this iteration's data (NCCL's LL protocol); twice the bytes;
 *   lines128: slices of 480 bytes sent as four 128-byte lines, each stored by 8 lanes at once
 *     (one 16-byte store each, in one warp instruction) with the iteration's number in the
 *     last 8 bytes: 120 bytes of data per 128. A reader trusts a line whose last lane reads the
 *     number: NVLink delivers a warp's 128-byte aligned store whole, which NCCL's LL128
 *     protocol relies on too (every iteration's sums are checked, so a machine where it does
 *     not hold shows wrong rows, not wrong figures);
 *   signals: slices of ll.slice bytes in plain 16-byte stores; after each pair of slices (a
 *     forwarded slice: after it) the warp fences at system scope and raises their flags (one
 *     per (range, slice)) in the receiver's memory; the reader waits for the flag, then reads
 *     through L2.
 * The sequence number is the iteration's (1, 2, ...: slots and flags start zeroed). The
 * protocol, the slice, every slot's region of whole slices and its flag words come from the
 * program (lower.h); here they are only resolved to addresses, a slot's two parities
 * scratch_bytes of its owner apart. Every rank runs the same grid (slices pair warps), at
 * most 4 blocks per SM that fit and, for co-located ranks, one per SM of the rank's share, so
 * every warp of every rank is resident at once (warps wait on peers').
 * Under MPI slots and flags are shared like the sm transport's (tp_share). */
#include <stdlib.h>
#include <string.h>

#include "nvtx.h"
#include "settings.h"
#include "exec_prog.h"
#include "sum.cuh"

#define LLK_THREADS 256

/* One op with its addresses resolved (parity 0; the kernel adds the parity's offset). */
struct llk_op {
  int kind;      /* TP_OP_PUT, TP_OP_TAKE */
  int round;
  int nsrc;      /* TAKE: slots to sum (our own data not counted) */
  int reduce;    /* TAKE: our data first */
  int fwd;       /* TAKE: the PUTs after it that it runs, slice by slice (lower_ll_forwards) */
  size_t x0, x1; /* bytes [x0, x1) of the buffer */
  size_t g0, g1; /* slices [g0, g1] holding them */
  size_t g0w;    /* g0 mod the warps of the grid: a warp's first slice without a division */
  size_t pstride;              /* bytes between the slots' two parities (their owner's area) */
  char *slot[AR_MAX_GPUS];     /* PUT: the peer's region; TAKE: ours, one per source (slice
                                * g0 first) */
  uint32_t *flag[AR_MAX_GPUS]; /* signals: the flag of slice g0 (slice s: + s - g0) */
};

struct tp_ctx {
  struct tp_world w;
  struct tp_job job;
  struct tp_prog *prog;
  int proto, blocks; /* proto: the program's */
  size_t nbytes, sb; /* sb: data bytes per slice (the program's) */
  /* shared (tp_share): a remote rank's are mapped into this process */
  void *area[AR_MAX_GPUS];      /* receive slots, two parities */
  uint32_t *flags[AR_MAX_GPUS]; /* signals: a word per (received range, slice) */
  struct llk_op *ops[AR_MAX_GPUS];
  int nops[AR_MAX_GPUS];
  unsigned char *mhave[AR_MAX_GPUS]; /* --phases: the rounds the rank has work in */
  uint32_t iter[AR_MAX_GPUS];
};

/* Slot bytes per slice of each protocol. */
__host__ __device__ static inline size_t slice_slot_bytes(int proto, size_t sb) {
  return proto == TP_LL_LINES ? 2 * sb : proto == TP_LL_LINES128 ? TP_LL_LINES128_SLOT : sb;
}

/* `len` (8 or 16) bytes of our buffer at byte `at` (a multiple of 8); past nbytes zero. */
__device__ __forceinline__ uint4 llk_piece(const char *data, size_t at, int len, size_t nbytes) {
  uint4 v = make_uint4(0, 0, 0, 0);
  if (at + len <= nbytes) {
    uint2 a = *(const uint2 *)(data + at);
    v.x = a.x, v.y = a.y;
    if (len == 16) {
      uint2 b = *(const uint2 *)(data + at + 8);
      v.z = b.x, v.w = b.y;
    }
    return v;
  }
  unsigned short *h = (unsigned short *)&v; /* every dtype is a multiple of 2 bytes */
  for (size_t b = at; b + 2 <= nbytes && b < at + len; b += 2)
    h[(b - at) / 2] = *(const unsigned short *)(data + b);
  return v;
}

/* Writes the bytes of the piece at `at` (len bytes) that lie in [x0, x1) from v. */
__device__ __forceinline__ void llk_put_piece(char *data, size_t at, int len, size_t x0, size_t x1,
                                              uint4 v) {
  if (at >= x0 && at + len <= x1) {
    *(uint2 *)(data + at) = make_uint2(v.x, v.y);
    if (len == 16) *(uint2 *)(data + at + 8) = make_uint2(v.z, v.w);
    return;
  }
  const unsigned short *h = (const unsigned short *)&v;
  for (size_t b = at > x0 ? at : x0; b + 2 <= x1 && b < at + len; b += 2)
    *(unsigned short *)(data + b) = h[(b - at) / 2];
}

/* A spin that lasted the spin timeout is a bug: trap rather than hang. */
__device__ __forceinline__ void llk_spin_check(uint64_t *t0) {
  if (!*t0) *t0 = tp_globaltimer();
  else if (tp_globaltimer() - *t0 > TP_SPIN_TIMEOUT_NS) __trap();
}

/* lines: waits until the two lines at p hold iteration seq; returns their 16 data bytes. */
__device__ __forceinline__ uint4 llk_wait_lines(const char *p, uint32_t seq) {
  uint4 a, b;
  uint64_t t0 = 0;
  for (;;) {
    a = tp_load16_volatile(p);
    b = tp_load16_volatile(p + 16);
    if (a.y == seq && a.w == seq && b.y == seq && b.w == seq) break;
    llk_spin_check(&t0);
  }
  return make_uint4(a.x, a.z, b.x, b.z);
}

/* lines128: the whole warp waits until the 128-byte lines its lanes read (16 bytes each at
 * p) carry seq in their last lane's last 4 bytes; returns this lane's 16 bytes. */
__device__ __forceinline__ uint4 llk_wait_lines128(const char *p, uint32_t seq, int lane) {
  uint4 v;
  uint64_t t0 = 0;
  for (;;) {
    v = tp_load16_volatile(p);
    uint32_t flag = __shfl_sync(0xffffffffu, v.w, lane | 7);
    if (!__any_sync(0xffffffffu, flag != seq)) break;
    llk_spin_check(&t0);
  }
  return v;
}

/* A PUT's store of one piece v into the slot at p. */
template <int PROTO> __device__ __forceinline__ void llk_put(char *p, uint4 v, uint32_t seq, int lane) {
  if constexpr (PROTO == TP_LL_LINES) {
    tp_store16_volatile(p, make_uint4(v.x, seq, v.y, seq));
    tp_store16_volatile(p + 16, make_uint4(v.z, seq, v.w, seq));
  } else if constexpr (PROTO == TP_LL_LINES128) {
    if ((lane & 7) == 7) v.w = seq;
    __syncwarp(); /* every lane stores at once: four whole 128-byte lines */
    tp_store16_volatile(p, v);
  } else {
    __stcg((uint4 *)p, v);
  }
}

#define LLK_PRE 4 /* sources whose first load a TAKE issues before it waits on any */

/* A TAKE's first load of the piece at p (lines: both lines). */
template <int PROTO> __device__ __forceinline__ void llk_take_load(const char *p, uint4 *a, uint4 *b) {
  if constexpr (PROTO == TP_LL_SIGNALS) {
    *a = __ldcg((const uint4 *)p);
  } else {
    *a = tp_load16_volatile(p);
    if constexpr (PROTO == TP_LL_LINES) *b = tp_load16_volatile(p + 16);
  }
}

/* The piece's data once it holds iteration seq (a, b: its first load; signals: the flag was
 * waited for already). */
template <int PROTO>
__device__ __forceinline__ uint4 llk_take_wait(const char *p, uint4 a, uint4 b, uint32_t seq, int lane) {
  if constexpr (PROTO == TP_LL_LINES) {
    if (a.y == seq && a.w == seq && b.y == seq && b.w == seq) return make_uint4(a.x, a.z, b.x, b.z);
    return llk_wait_lines(p, seq);
  } else if constexpr (PROTO == TP_LL_LINES128) {
    if (!__any_sync(0xffffffffu, __shfl_sync(0xffffffffu, a.w, lane | 7) != seq)) return a;
    return llk_wait_lines128(p, seq, lane);
  } else {
    return a;
  }
}

/* What every launch passes. */
struct llk_args {
  const llk_op *ops;
  int nops;
  char *data;
  size_t nbytes, sb; /* sb: data bytes per slice */
  int par;
  uint32_t seq;
  unsigned long long *ns; /* --phases: round_marks.h's stamps, else NULL */
};

/* Lane `lane`'s data pieces of a slice: lines and signals: 16 bytes at 16 * (lane + 32 i);
 * lines128: one at 120 * (lane / 8) + 16 * (lane % 8), 8 bytes for the lane holding the
 * line's number. */
template <int PROTO> __device__ __forceinline__ int llk_npieces(size_t sb) {
  return PROTO == TP_LL_LINES128 ? 1 : (int)(sb / 512);
}
template <int PROTO> __device__ __forceinline__ size_t llk_piece_at(int lane, int i) {
  return PROTO == TP_LL_LINES128 ? 120 * (lane >> 3) + 16 * (lane & 7) : 16 * (size_t)(lane + 32 * i);
}
template <int PROTO> __device__ __forceinline__ int llk_piece_len(int lane) {
  return PROTO == TP_LL_LINES128 && (lane & 7) == 7 ? 8 : 16;
}
/* ... and where piece i of the lane sits in the slice's slot. */
template <int PROTO> __device__ __forceinline__ size_t llk_slot_at(int lane, int i) {
  return PROTO == TP_LL_LINES ? 32 * (size_t)(lane + 32 * i)
         : PROTO == TP_LL_LINES128 ? 16 * (size_t)lane : 16 * (size_t)(lane + 32 * i);
}

/* Warp wg's first slice of op o (warps nw): g0 + ((wg - g0) mod nw), wg and g0w below nw. */
__device__ __forceinline__ size_t llk_first(const llk_op &o, size_t wg, size_t nw) {
  return o.g0 + (wg >= o.g0w ? wg - o.g0w : wg + nw - o.g0w);
}

/* Signals: the slices the warp just stored (s, and s + nw when two) are visible system-wide,
 * then their flags are raised: a receiver takes each slice as soon as it lands, while this
 * warp sends its next ones (one fence per pair of slices). */
__device__ __forceinline__ void llk_raise(const llk_op &o, size_t s, size_t nw, bool two,
                                          uint32_t seq, int lane) {
  __syncwarp();
  if (lane == 0) {
    __threadfence_system();
    tp_flag_store(o.flag[0] + (s - o.g0), seq);
    if (two) tp_flag_store(o.flag[0] + (s + nw - o.g0), seq);
  }
  __syncwarp();
}

/* Signals: slice s of the nf forwarded PUTs at po is visible system-wide, then its flags (a
 * fence too for a slice none of them sends, as rhd's other half: skipping it measured no
 * faster, runs/reference/h200x4-ll-forward call5). */
__device__ __forceinline__ void llk_raise_fwd(const llk_op *po, int nf, size_t s, uint32_t seq,
                                              int lane) {
  __syncwarp();
  if (lane == 0) {
    __threadfence_system();
    for (int f = 0; f < nf; f++)
      if (s >= po[f].g0 && s <= po[f].g1) tp_flag_store(po[f].flag[0] + (s - po[f].g0), seq);
  }
  __syncwarp();
}

#define LLK_SMEM_OPS 16 /* programs this short are read from shared memory: one load each */

template <typename T, int PROTO, bool MARKED> __device__ __forceinline__ void llk_run(const llk_args &a0) {
  /* a short program's ops, copied once per block: otherwise each op's first read waits for
   * memory inside the latency every small AllReduce pays */
  __shared__ llk_op sops[LLK_SMEM_OPS];
  llk_args a = a0;
  if (a.nops <= LLK_SMEM_OPS) {
    const int words = a.nops * (int)(sizeof(llk_op) / 8);
    for (int j = threadIdx.x; j < words; j += blockDim.x)
      ((unsigned long long *)sops)[j] = ((const unsigned long long *)a.ops)[j];
    __syncthreads();
    a.ops = sops;
  }
  const int lane = threadIdx.x & 31;
  const size_t nw = (size_t)gridDim.x * (blockDim.x >> 5);
  const size_t wg = (threadIdx.x >> 5) * (size_t)gridDim.x + blockIdx.x;
  const size_t ss = slice_slot_bytes(PROTO, a.sb);
  const int np = llk_npieces<PROTO>(a.sb);
  if constexpr (MARKED)
    if (blockIdx.x == 0 && threadIdx.x == 0) a.ns[0] = tp_globaltimer();
  for (int i = 0; i < a.nops; i++) {
    const llk_op &o = a.ops[i];
    const size_t first = llk_first(o, wg, nw); /* our first slice in the range */
    const size_t x1 = o.x1 < a.nbytes ? o.x1 : a.nbytes;
    if (o.kind == TP_OP_PUT) {
      char *region = o.slot[0] + (size_t)a.par * o.pstride;
      for (size_t s = first; s <= o.g1; s += 2 * nw) { /* two slices' loads in flight */
        const bool two = s + nw <= o.g1;
        for (int k = 0; k < np; k++) {
          const size_t at = s * a.sb + llk_piece_at<PROTO>(lane, k);
          const int len = llk_piece_len<PROTO>(lane);
          uint4 v0 = llk_piece(a.data, at, len, a.nbytes), v1 = make_uint4(0, 0, 0, 0);
          if (two) v1 = llk_piece(a.data, at + nw * a.sb, len, a.nbytes);
          char *p = region + (s - o.g0) * ss + llk_slot_at<PROTO>(lane, k);
          llk_put<PROTO>(p, v0, a.seq, lane);
          if (two) llk_put<PROTO>(p + nw * ss, v1, a.seq, lane);
        }
        if constexpr (PROTO == TP_LL_SIGNALS) llk_raise(o, s, nw, two, a.seq, lane);
      }
    } else {
      for (size_t s = first; s <= o.g1; s += nw) {
        const size_t soff = (s - o.g0) * ss + (size_t)a.par * o.pstride;
        if constexpr (PROTO == TP_LL_SIGNALS) {
          if (lane < o.nsrc) tp_flag_spin(o.flag[lane] + (s - o.g0), a.seq);
          __syncwarp();
        }
        for (int k = 0; k < np; k++) {
          const size_t at = s * a.sb + llk_piece_at<PROTO>(lane, k);
          const int len = llk_piece_len<PROTO>(lane);
          const size_t pat = soff + llk_slot_at<PROTO>(lane, k);
          uint4 pa[LLK_PRE], pb[LLK_PRE]; /* the first sources' loads, all in flight at once */
#pragma unroll
          for (int q = 0; q < LLK_PRE; q++)
            if (q < o.nsrc) llk_take_load<PROTO>(o.slot[q] + pat, &pa[q], &pb[q]);
          const bool copy = !o.reduce && o.nsrc == 1; /* the bytes as they came */
          float acc[16 / sizeof(T)];
          bool first = true;
          uint4 v = make_uint4(0, 0, 0, 0);
          if (o.reduce) {
            tp_vec_add<T>(acc, llk_piece(a.data, at, len, a.nbytes), true);
            first = false;
          }
#pragma unroll
          for (int q = 0; q < LLK_PRE; q++)
            if (q < o.nsrc) {
              uint4 w = llk_take_wait<PROTO>(o.slot[q] + pat, pa[q], pb[q], a.seq, lane);
              if (copy) v = w;
              else tp_vec_add<T>(acc, w, first);
              first = false;
            }
          for (int q = LLK_PRE; q < o.nsrc; q++) {
            uint4 wa, wb;
            llk_take_load<PROTO>(o.slot[q] + pat, &wa, &wb);
            tp_vec_add<T>(acc, llk_take_wait<PROTO>(o.slot[q] + pat, wa, wb, a.seq, lane), false);
          }
          if (!copy) v = tp_vec_pack<T>(acc);
          llk_put_piece(a.data, at, len, o.x0, x1, v);
          for (int f = 1; f <= o.fwd; f++) { /* the same bytes, as the PUT would read them */
            const llk_op &po = a.ops[i + f];
            if (s < po.g0 || s > po.g1) continue; /* a PUT of part of the range */
            llk_put<PROTO>(po.slot[0] + (size_t)a.par * po.pstride + (s - po.g0) * ss +
                               llk_slot_at<PROTO>(lane, k),
                           v, a.seq, lane);
          }
        }
        if constexpr (PROTO == TP_LL_SIGNALS)
          if (o.fwd) llk_raise_fwd(a.ops + i + 1, o.fwd, s, a.seq, lane);
      }
    }
    const int last = i + (o.kind == TP_OP_TAKE ? o.fwd : 0);
    /* a round ends with its last op: when the last warp is past it (a forwarding TAKE's round
     * then includes the next round's sends it made) */
    if constexpr (MARKED)
      for (int j = i; j <= last; j++)
        if (lane == 0 && (j + 1 == a.nops || a.ops[j + 1].round != a.ops[j].round))
          atomicMax(a.ns + 1 + a.ops[j].round, (unsigned long long)tp_globaltimer());
    i = last;
  }
}

template <typename T, int PROTO, bool MARKED>
__global__ void __launch_bounds__(LLK_THREADS) llk_kernel(llk_args a) {
  llk_run<T, PROTO, MARKED>(a);
}

template <typename T> static const void *kernel_t(int proto, int marked) {
  if (proto == TP_LL_LINES)
    return marked ? (const void *)llk_kernel<T, TP_LL_LINES, true>
                  : (const void *)llk_kernel<T, TP_LL_LINES, false>;
  if (proto == TP_LL_LINES128)
    return marked ? (const void *)llk_kernel<T, TP_LL_LINES128, true>
                  : (const void *)llk_kernel<T, TP_LL_LINES128, false>;
  return marked ? (const void *)llk_kernel<T, TP_LL_SIGNALS, true>
                : (const void *)llk_kernel<T, TP_LL_SIGNALS, false>;
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
  lower_prog_free(c->prog);
}

static void teardown(struct tp_ctx *c) {
  if (!c) return;
  release(c);
  free(c);
}

/* Zeroed slots (two parities) and flags of rank r, complete before any peer writes them. */
static ar_status alloc_rank(struct tp_ctx *c, int r) {
  CUDA_CHECK(cudaSetDevice(c->w.dev[r]));
  const struct tp_rank_prog *rp = &c->prog->rank[r];
  size_t area = 2 * rp->scratch_bytes;
  size_t fl = (rp->ll_flags ? rp->ll_flags : 1) * sizeof(uint32_t);
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
    d->g0 = o->bytes ? d->x0 / c->sb : 1; /* empty: no slice */
    d->g1 = o->bytes ? (d->x1 - 1) / c->sb : 0;
    d->g0w = d->g0 % ((size_t)c->blocks * (LLK_THREADS / 32));
    if (o->kind == TP_OP_PUT) {
      int w = o->peer;
      d->pstride = c->prog->rank[w].scratch_bytes;
      d->slot[0] = (char *)c->area[w] + o->dst.off;
      d->flag[0] = c->flags[w] + o->ll_flag[0];
    } else {
      d->pstride = rp->scratch_bytes;
      d->reduce = o->nsrc > 0 && o->src[0].buf == TP_BUF_DATA;
      d->fwd = lower_ll_forwards(c->prog, r, i);
      for (int q = d->reduce; q < o->nsrc; q++) {
        d->slot[d->nsrc] = (char *)c->area[r] + o->src[q].off;
        d->flag[d->nsrc] = c->flags[r] + o->ll_flag[q];
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

#define LLK_MOST_PER_SM 4

/* The program's protocol and slice, which this kernel's pieces must fill (slice_slot_bytes);
 * AR_ERR_INVALID with the reason if they do not. */
static ar_status take_protocol(struct tp_ctx *c, char *reason, size_t reason_len) {
  const struct tp_prog *p = c->prog;
  c->proto = p->ll_protocol;
  c->sb = p->ll_slice;
  int ok = c->proto == TP_LL_LINES      ? c->sb == TP_LL_LINES_SLICE
           : c->proto == TP_LL_LINES128 ? c->sb == TP_LL_LINES128_SLICE
           : c->proto == TP_LL_SIGNALS  ? c->sb && c->sb % 512 == 0
                                      : 0;
  if (ok && p->ll_slot == slice_slot_bytes(c->proto, c->sb)) return AR_OK;
  snprintf(reason, reason_len, "ll: protocol %d, %zu-byte slices, %zu in a slot: not the kernel's",
           c->proto, c->sb, p->ll_slot);
  return AR_ERR_INVALID;
}

/* The grid (ll.blocks), the same on every rank: one block per slice (a warp each: few slices
 * spread over many SMs), at most what every rank can keep resident. */
static void choose_grid(struct tp_ctx *c) {
  size_t nsl = (c->nbytes + c->sb - 1) / c->sb;
  /* every block must be resident at once: a rank alone on its GPU takes as many per SM as
   * fit (at most LLK_MOST_PER_SM: more warps keep more loads in flight), co-located ranks one
   * per SM of their share (transport.h's sms) */
  int per_sm = 1, cap = 1 << 30;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel_for(c->job.dtype, c->proto, 1),
                                                    LLK_THREADS, 0) != cudaSuccess || per_sm < 1) {
    (void)cudaGetLastError();
    per_sm = 1;
  }
  if (per_sm > LLK_MOST_PER_SM) per_sm = LLK_MOST_PER_SM;
  for (int r = 0; r < c->w.n; r++) {
    int most = tp_wait_sms(&c->w, r) * (tp_colocated(&c->w, r) ? 1 : per_sm);
    if (most < cap) cap = most;
  }
  size_t want = (size_t)ar_setting_value(c->job.settings, AR_SET_LL_BLOCKS);
  if (!want) want = nsl;
  if (want > (size_t)cap) want = (size_t)cap;
  c->blocks = want < 1 ? 1 : (int)want;
}

static ar_status setup(const struct tp_world *w, const struct tp_job *job, struct tp_ctx **ctx,
                       char *reason, size_t reason_len) {
  *ctx = NULL;
  AR_CHECK(tp_job_check(w, job, reason, reason_len));
  if (!kernel_for(job->dtype, TP_LL_LINES, 0)) {
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
  struct lower_settings set;
  lower_settings_of(&set, job->settings);
  struct lower_job lj = {AR_TP_LL, job->sched, job->nelem, (int)ar_dtype_size(job->dtype),
                         job->pipeline, &job->degrade};
  if (st == AR_OK) st = lower_job(&lj, &set, &c->prog, NULL, reason, reason_len);
  if (st == AR_OK) st = take_protocol(c, reason, reason_len);
  if (st == AR_OK) choose_grid(c);
  /* the program (protocol, slots) follows from the settings and the size, the same
   * everywhere; the grid from each process's GPUs: the first rank's process decides it for
   * everyone (a collective: made whatever st) */
  ar_status bs = tp_bcast(w, &c->blocks, sizeof(c->blocks), 0);
  if (st == AR_OK) st = bs;
  st = tp_each_local(&c->w, alloc_rank, c, st);
  if (st == AR_ERR_OOM) snprintf(reason, reason_len, "ll: receive slots do not fit in GPU memory");
  st = tp_share(&c->w, c->area, st);
  st = tp_share(&c->w, (void **)c->flags, st);
  if (st == AR_OK) st = tp_agree(&c->w, tp_each_local(&c->w, load_rank, c, st));
  if (st != AR_OK) {
    release(c);
    if (c != &spare) free(c);
    return st;
  }
  int r0 = 0; /* the first rank of this process, for the log */
  while (r0 < w->n - 1 && w->remote[r0]) r0++;
  ar_log(AR_LOG_INFO, "ll: %s, %zu elements: %s, %d blocks, %d ops on rank %d, slots %zu bytes",
         job->sched->algo, job->nelem,
         c->proto == TP_LL_LINES ? "lines" : c->proto == TP_LL_LINES128 ? "lines128" : "signals",
         c->blocks, c->nops[r0], r0, 2 * c->prog->rank[r0].scratch_bytes);
  if (ar_log_level() >= AR_LOG_TRACE)
    for (int r = 0; r < w->n; r++)
      lower_prog_print(c->prog, r, stderr);
  *ctx = c;
  return AR_OK;
}

/* One launch runs the whole AllReduce of this rank (one NVTX range); with marks for this
 * iteration (--phases), the marked kernel stamps each round's end (round_marks.h). */
static ar_status enqueue(struct tp_ctx *c, int rank, cudaStream_t stream) {
  struct tp_marks *mk = c->job.marks ? c->job.marks[rank] : NULL;
  if (mk) {
    memset(mk->have, 0, (size_t)mk->nrounds);
    for (int k = 0; k < mk->nrounds && k < c->prog->nrounds; k++)
      mk->have[k] = c->mhave[rank][k];
    mk->in_ns = 1;
  }
  if (!c->nops[rank]) return AR_OK;
  llk_args a;
  a.seq = ++c->iter[rank];
  a.ops = c->ops[rank];
  a.nops = c->nops[rank];
  a.par = (int)(a.seq & 1);
  a.data = (char *)c->w.data[rank];
  a.nbytes = c->nbytes;
  a.sb = c->sb;
  a.ns = mk ? mk->ns : NULL;
  void *args[] = {(void *)&a};
  ar_nvtx_push("schedule");
  cudaError_t e = cudaLaunchKernel(kernel_for(c->job.dtype, c->proto, mk != NULL),
                                   dim3(c->blocks), dim3(LLK_THREADS), args, 0, stream);
  ar_nvtx_pop();
  CUDA_CHECK(e);
  return AR_OK;
}

extern "C" const struct tp_ops tp_ll = {setup, enqueue, teardown};
