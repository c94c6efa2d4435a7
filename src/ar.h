/* arbench public types: status codes, parameters, the schedule IR, the algorithm registry.
 * An AllReduce algorithm is a schedule: rounds of chunk transfers (copy or reduce) between
 * ranks. Chunk c always names the same slice of the vector on every rank; a transfer moves
 * chunks [chunk, chunk + count) of src's data buffer into the same chunks of dst's. */
#ifndef AR_H
#define AR_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  AR_OK = 0,
  AR_ERR_INVALID,     /* bad input: exit 2 */
  AR_ERR_UNSUPPORTED, /* algorithm cannot run for these parameters: n/a, exit 3 */
  AR_ERR_NOMEM,
  AR_ERR_VERIFY,      /* schedule or data failed a check: exit 1 */
  AR_ERR_CUDA,
  AR_ERR_NCCL,
  AR_ERR_OOM,         /* GPU memory: the row says oom */
  AR_ERR_TIMEOUT,
  AR_ERR_SYSTEM,
} ar_status;

const char *ar_status_str(ar_status s);

/* Element types of the data (one list for the harness, the lowering and the kernels). */
enum ar_dtype { AR_DT_F32 = 0, AR_DT_BF16 = 1, AR_DT_F16 = 2 };
size_t ar_dtype_size(int dtype);
const char *ar_dtype_name(int dtype); /* "float32", "bf16", "fp16" */

#define AR_MAX_RANKS 4096
#define AR_MAX_DEGRADED 8
#define AR_MAX_TORUS_DIMS 4

/* What a generator is asked to build. Fields not used by an algorithm are ignored. */
struct ar_params {
  int nranks;
  int straggler;                     /* -1: none; straggler-aware algorithms default to n-1 */
  int ndegraded;                     /* degraded GPUs (OPTCC) */
  int degraded[AR_MAX_DEGRADED];
  double factor[AR_MAX_DEGRADED];    /* slowdown l >= 1 of each degraded GPU */
  int torus_ndims;                   /* 0: the most square 2-D factorisation of nranks */
  int torus[AR_MAX_TORUS_DIMS];
  int segments;                      /* OPTCC k; 0 = the generator's default */
  int fabric;                        /* enum ar_fabric: which embedding optcc, optcc-multi take */
  int gpus_per_node;                 /* G GPUs per node (ring-rails); 0: not given */
};

/* How ranks reach each other, for the generators whose best form depends on it (OPTCC). */
enum ar_fabric {
  AR_FABRIC_NIC = 0,   /* the papers' networks: a port carries one flow per direction at a time */
  AR_FABRIC_SWITCH = 1 /* GPUs of one node (NVSwitch): every peer at once, sharing one link */
};

void ar_params_init(struct ar_params *p, int nranks);

enum ar_op { AR_COPY = 0, AR_REDUCE = 1 }; /* dst = src | dst += src */

struct ar_xfer {
  int round;
  int src, dst;
  int chunk, count; /* chunks [chunk, chunk + count) */
  int op;           /* enum ar_op */
  float weight;     /* cost multiplier: 1, or l for a transfer touching a degraded GPU */
};

/* What the lowering and the model need to know of an algorithm's schedules beyond their
 * transfers: declared by each algorithm in its registry entry (struct ar_algo.traits) and
 * written into every schedule it builds (ar_build), so that readers never look an algorithm
 * up by name. */
enum ar_traits {
  AR_TRAIT_PIPELINED = 1u << 0,   /* a ring whose sums overlap its copies over mini-batches
                                   * (async-ring: the ce dataflow ring program) */
  AR_TRAIT_SEND_ORDER = 1u << 1,  /* each rank's sends of a round go in the generator's order
                                   * (the ce flow program otherwise orders them by peer) */
  AR_TRAIT_SUM_FORWARD = 1u << 2, /* chunks are summed and then forwarded, hop after hop, after
                                   * the straggler arrives (the ce flow program splits big
                                   * chunks so that a sum overlaps the next batch's copy) */
};

struct ar_schedule {
  char algo[32];
  int nranks, nchunks;
  int nrounds;        /* total rounds, precondition included */
  int nprecond;       /* rounds [0, nprecond) run among non-stragglers before the straggler arrives */
  int straggler;      /* -1 when none */
  int ports;          /* max distinct peers a rank sends to (and receives from) per round */
  int segments;       /* OPTCC: the k segments built (0: not segmented) */
  unsigned traits; /* enum ar_traits: ar_build sets its algorithm's; tests set their own */
  size_t nxfers, cap;
  struct ar_xfer *xfers; /* sorted by round once built (sched_finish) */
  char reason[192];      /* why AR_ERR_UNSUPPORTED / AR_ERR_INVALID */
  /* Streaming (the model at large n): with a sink set, sched_add hands each transfer to it
   * instead of storing it (xfers stays empty, nrounds tracks the largest round). A generator
   * that needs its stored transfers back (relabelling, sched_cost, a second sched_init) marks
   * stream_bad, and the caller builds it again stored. */
  ar_status (*sink)(void *ctx, const struct ar_schedule *s, const struct ar_xfer *x);
  void *sink_ctx;
  size_t nstreamed;
  int stream_bad;
};

/* schedule.c: building */
ar_status sched_init(struct ar_schedule *s, const char *algo, int nranks, int nchunks);
void sched_free(struct ar_schedule *s);
ar_status sched_add(struct ar_schedule *s, int round, int op, int src, int dst, int chunk,
                    int count);
/* Streams the schedule being built at s on this thread to sink (ar_build_stream): every
 * sched_init of s keeps it until sched_stream_end. */
void sched_stream_begin(struct ar_schedule *s,
                        ar_status (*sink)(void *, const struct ar_schedule *, const struct ar_xfer *),
                        void *ctx);
void sched_stream_end(void);
/* A stream's way to take a round that moves what the round before it moved (the same
 * transfers, ends, counts and ops in the same order; only their chunks differ) without its
 * transfers: set on this thread before ar_build_stream, NULL after. */
void sched_stream_repeats(ar_status (*repeat)(void *ctx, const struct ar_schedule *s, int round));
/* 1 when s streams to a sink that takes repeated rounds (sched_repeat_round), else 0: the
 * generator adds the round's transfers (a stored build keeps every chunk). */
int sched_can_repeat(const struct ar_schedule *s);
/* Hands the stream round `round`, which repeats round - 1 (see sched_stream_repeats); only
 * where sched_can_repeat(s). Returns the sink's status. */
ar_status sched_repeat_round(struct ar_schedule *s, int round);
/* sched_add_w's general case: a table to grow, a bad transfer, a stream gone bad. */
ar_status sched_add_any(struct ar_schedule *s, int round, int op, int src, int dst, int chunk,
                        int count, float weight);
/* The same with a cost weight other than 1 (a transfer touching a degraded GPU). Inline where
 * the table has room or the schedule streams (OPTCC at 1024 GPUs adds 2^24 transfers; the call
 * was a third of it). */
static inline ar_status sched_add_w(struct ar_schedule *s, int round, int op, int src, int dst,
                                    int chunk, int count, float weight) {
  if (src < 0 || src >= s->nranks || dst < 0 || dst >= s->nranks || chunk < 0 || count < 1 ||
      chunk + count > s->nchunks || round < 0 || (!s->sink && s->nxfers == s->cap) ||
      (s->sink && s->stream_bad))
    return sched_add_any(s, round, op, src, dst, chunk, count, weight);
  struct ar_xfer x = {.round = round, .src = src, .dst = dst, .chunk = chunk, .count = count,
                      .op = op, .weight = weight};
  if (!s->sink) {
    s->xfers[s->nxfers++] = x;
    return AR_OK;
  }
  if (round >= s->nrounds) s->nrounds = round + 1;
  s->nstreamed++;
  return s->sink(s->sink_ctx, s, &x);
}
/* Makes room for nxfers stored transfers at once (a generator that knows about how many it
 * adds: no copies as the table grows); nothing when streamed. Returns AR_ERR_NOMEM or AR_OK. */
ar_status sched_reserve(struct ar_schedule *s, size_t nxfers);
/* Sorts by round (stable), sets nrounds; call once the generator has added everything. */
ar_status sched_finish(struct ar_schedule *s);
/* Sets s->reason (printf-style) and returns st: `return sched_fail(s, AR_ERR_UNSUPPORTED, ...)`. */
ar_status sched_fail(struct ar_schedule *s, ar_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Renames ranks: rank r becomes perm[r] (used to move the straggler anywhere). */
void sched_relabel(struct ar_schedule *s, const int *perm);

/* schedule.c: checking and pricing */
struct sched_report {
  int rounds, precond_rounds, max_ports_used;
  double sent[AR_MAX_RANKS]; /* per rank, bytes sent as a fraction of the buffer */
  double recv[AR_MAX_RANKS];
  char error[256];           /* first problem found, empty when verified */
};
/* Symbolic verifier: AR_OK when every rank ends with every chunk reduced over all ranks
 * exactly once, no reduce double-counts, port limits hold, and the straggler sits out the
 * precondition. Fills rep (may be NULL). */
ar_status sched_verify(const struct ar_schedule *s, struct sched_report *rep);
/* The most distinct peers any rank sends to or receives from in one round (s sorted by round,
 * sched_finish); -1 when out of memory. Generators set s->ports from it. */
int sched_max_peers(const struct ar_schedule *s);
/* Weighted cost in units of "one whole buffer over one port": per round, the most loaded
 * rank's weighted bytes sent or received divided by its ports; summed over rounds from
 * first_round. */
double sched_cost(const struct ar_schedule *s, int first_round);

/* Chunk c covers elements [ar_chunk_begin(n, k, c), ar_chunk_begin(n, k, c + 1)). */
static inline size_t ar_chunk_begin(size_t nelem, int nchunks, int c) {
  return (size_t)(((unsigned __int128)nelem * (unsigned)c) / (unsigned)nchunks);
}

/* exec_cpu.c: runs a schedule on host float buffers bufs[rank][nelem] (round snapshots). */
ar_status sched_exec_cpu(const struct ar_schedule *s, float **bufs, size_t nelem);

/* dump.c */
void sched_print_text(const struct ar_schedule *s, FILE *f);
void sched_print_json(const struct ar_schedule *s, const struct sched_report *rep, FILE *f);

/* The algorithm registry (algorithms/registry.c): the table, and building from an entry. */
enum ar_algo_flags {
  AR_ALGO_NATIVE = 1u << 0,          /* nccl: no schedule */
  AR_ALGO_STRAGGLER_AWARE = 1u << 1, /* has a precondition overlapping the straggler's delay */
  AR_ALGO_DEGRADE_AWARE = 1u << 2,   /* built for degraded GPUs (OPTCC) */
  AR_ALGO_TORUS = 1u << 3,           /* uses the logical torus of --torus */
};

struct model_net; /* model.h */
struct model_price;

struct ar_algo {
  const char *name;
  const char *ranks; /* supported n, in words */
  const char *desc;
  const char *paper;
  /* the family it is drawn with (plots/: one panel each, `arbench --list --format families`):
   * classic, swing, straggler-aware or optcc; nccl's is reference */
  const char *family;
  ar_status (*build)(const struct ar_params *, struct ar_schedule *); /* NULL for nccl */
  unsigned flags;
  unsigned traits; /* enum ar_traits of its schedules */
  /* Segmented algorithms (OPTCC): the k segments to build for an AllReduce of `bytes` on n
   * GPUs, m of them slowed by factors f[], at the healthy bandwidth bw (bytes/s; 0: unknown),
   * in the switch form (its degraded GPUs' flows one hop) or the ring form. NULL: none. */
  int (*segments)(int n, int m, const double *f, int switch_form, double bytes, double bw);
  /* Prices its schedule on the model's network without building it where its rounds allow
   * (OPTCC's ring form on a switch): returns 1 with out filled, 0 to have the model build and
   * price the schedule. NULL: none. */
  int (*price)(const struct ar_params *p, const struct model_net *net, struct model_price *out);
};
/* OPTCC's choice of k (algorithms/optcc.c), the `segments` of its registry entries. */
int ar_optcc_segments(int n, int m, const double *f, int switch_form, double bytes, double bw);

const struct ar_algo *ar_algo_find(const char *name);
/* The traits of s (enum ar_traits), as its build wrote them. */
static inline unsigned ar_sched_traits(const struct ar_schedule *s) { return s->traits; }
const struct ar_algo *const *ar_algo_all(size_t *count);
/* Builds and finishes the schedule for an algorithm; fills s->reason on failure. */
ar_status ar_build(const struct ar_algo *a, const struct ar_params *p, struct ar_schedule *s);
/* The same with every transfer handed to sink (see struct ar_schedule) instead of stored. */
ar_status ar_build_stream(const struct ar_algo *a, const struct ar_params *p,
                          struct ar_schedule *s,
                          ar_status (*sink)(void *, const struct ar_schedule *,
                                            const struct ar_xfer *),
                          void *ctx);

/* util.c: logging to stderr, level from AR_DEBUG=info|trace */
enum { AR_LOG_WARN = 0, AR_LOG_INFO = 1, AR_LOG_TRACE = 2 };
int ar_log_level(void);
void ar_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int ar_is_pow2(int n);
int ar_log2(int n); /* floor */
/* The logical torus of p: p->torus when given, else the most square a x b (a <= b; a ring of
 * n when n is prime). Fills dims, returns the number of dimensions, or -1 when the given
 * shape does not multiply to p->nranks (a reason in why[0..len) when why is not NULL). */
int ar_torus_shape(const struct ar_params *p, int dims[AR_MAX_TORUS_DIMS], char *why, size_t len);
/* The step order of the torus-aware recursive algorithms (swing.txt s4.1, s4.2): step g runs
 * in dimension dim[g] (round-robin from dimension 0, skipping those that are done) as that
 * dimension's step sig[g]; a dimension of size d has ceil(log2 d) steps. Returns the steps. */
int ar_torus_steps(int ndims, const int *dims, int *dim, int *sig);

#define AR_CHECK(call)                                                                   \
  do {                                                                                   \
    ar_status st_ = (call);                                                              \
    if (st_ != AR_OK) {                                                                  \
      if (ar_log_level() >= AR_LOG_TRACE)                                                \
        ar_log(AR_LOG_TRACE, "%s:%d -> %s", __FILE__, __LINE__, ar_status_str(st_));     \
      return st_;                                                                        \
    }                                                                                    \
  } while (0)

#ifdef __cplusplus
}
#endif
#endif
