/* The lowering's private state: the per-rank, per-round plan every program is emitted from,
 * and the helpers the strategies share (program.c, rounds.c). Not for the transports. */
#ifndef AR_LOWER_BUILD_H
#define AR_LOWER_BUILD_H

#include "lower.h"

/* automatic pipelining of the per-round program: a mini-batch costs a flag write (a few us of
 * copy-engine bubble) and the last one's sum is not overlapped. Below TP_AUTO_MEASURED bytes
 * per AllReduce: about 8 MiB each, at most 8 (reasoned, not measured). From there the count
 * per message size was measured (lower_batches_for). */
#define TP_AUTO_BATCH (8u << 20)
#define TP_AUTO_MAX 8
#define TP_AUTO_MEASURED (64u << 20)


/* the dataflow ring (emit_ce_ring) has no round boundaries to drain; what a mini-batch costs
 * is its copy's start and flag ops. Measured (docs/performance.md, v2): on 4 x H200 one copy
 * stream with 256 MiB batches was the best of {1, 2} x {64, 128, 256} MiB at 8 GiB (34.40 ms;
 * 2 streams with 64 MiB: 36.61) and within 2% of the best at 1 GiB. So about 256 MiB each,
 * at least 4 per transfer (1 GiB on 4 GPUs: 4 of 64 MiB; 8 GiB: 8), at most 64, one stream */
#define TP_RING_BATCH (256u << 20)
#define TP_RING_MIN 4
#define TP_RING_MAX 64
#define TP_RING_STREAMS 1 /* copy streams per rank (batches alternate when more) */


/* the dataflow direct program (emit_ce_direct): its reduce-scatter copies wait for nothing, so
 * two batches already hide every sum but the last under copies; more only add copy starts */
#define TP_DIRECT_BATCH (1u << 30)
#define TP_DIRECT_MIN 2
#define TP_DIRECT_MAX 16
/* ... and its sums, hidden under copies, use few blocks: with the default 4 per SM the copy
 * engines' streams lost time beside them (1 GiB median 4409 us; 33 blocks 4234, 66 4295, 132
 * 4321: runs/reference/h200x4-knobs) */
#define TP_DIRECT_SUM_BLOCKS 32
/* The flow program's automatic mini-batches: about 128 MiB each (stragglar at 1 GiB, 358 MB
 * chunks: 2 and 4 per chunk within 3% of each other on 4 x H200, runs/reference/h200x4-issue4,
 * knobs_call*.log) */
#define TP_FLOW_BATCH (128u << 20)
/* its sums' blocks: half the SMs leave room for the flag kernels beside them (all 528 blocks
 * held those back by 80 us on 4 x H200, runs/reference/h200x4-issue4, knobs_call*.log) */
#define TP_FLOW_SUM_BLOCKS 64



/* One destination range of a rank in a round: the chunks with the same sources and op. */
struct seg {
  size_t b, e; /* elements */
  int op;      /* AR_COPY / AR_REDUCE */
  int nsrc, src[AR_MAX_GPUS];
  int hazard;              /* we also send these chunks this round (snapshot at stake) */
  int nb;                  /* mini-batches (ce) */
  size_t scr[AR_MAX_GPUS]; /* ce: scratch byte offset per source; sm: scr[0] for a hazard;
                           * ll: each source's receive slot (bytes of one parity) */
  int flag0;               /* ll: the flag slot of src[0]'s receive slot (the rest follow) */
  size_t flagw[AR_MAX_GPUS]; /* ll: each source's first flag word */
};

/* ce: one copy of a round from one source to one receiver (kept in the receiver's record). */
struct item {
  int seg, batch;
  size_t b, e;
  int to_scratch;
  size_t soff;
  int signal; /* pull: write DONE(count) to the source after this copy; push: DATA(count) to
               * the receiver */
  int event;  /* pull: event recorded after it (main waits for it), -1 none */
  int pevent; /* push: event the sender records after it (its own hazard writes wait), -1 */
};

/* A rank's view of one round. */
struct rr {
  int nseg;
  struct seg *segs;
  int nsrc, srcs[AR_MAX_GPUS]; /* sources with something to read, in rank order */
  int nitem[AR_MAX_GPUS];      /* ce: items per source index */
  struct item *items[AR_MAX_GPUS];
  int nreader, readers[AR_MAX_GPUS]; /* who reads us this round */
  size_t scratch;                    /* bytes of scratch this round */
};

struct build {
  const struct ar_schedule *s;
  const struct tp_degrade *dg; /* NULL: no emulation */
  const struct lower_settings *set;
  int n, nr, mode, esize, pipeline;
  size_t nelem;
  struct rr *rr; /* [rank * nr + round] */
  struct tp_prog *p;
  /* the dataflow ring (emit_ce_ring) */
  int succ[AR_MAX_GPUS], pred[AR_MAX_GPUS]; /* fixed peers of every round */
  int nb, ns;                               /* mini-batches per transfer, copy streams */
  size_t slot_bytes;                        /* one scratch slot (round parity, batch) */
  size_t own_b[AR_MAX_GPUS], own_e[AR_MAX_GPUS]; /* the direct program: ranges each rank owns */
  char *reason;
  size_t reason_len;
};


int lower_batches_for(const struct build *bd, size_t len);
ar_status lower_build_round(struct build *bd, int k, size_t lo, size_t hi);
int lower_direct_check(struct build *bd);
void lower_direct_plan(struct build *bd);
uint32_t lower_done_val(const struct build *bd, int k, int c);
ar_status lower_emit(struct tp_prog *p, int r, const struct tp_op *op);
ar_status lower_emit_apply(struct build *bd, int r, int k, const struct seg *sg, size_t b, size_t e,
                           size_t es);
ar_status lower_emit_ce_direct(struct build *bd, int r);
/* choose.c: the program of bd's mode from the lowering's table, emitted into bd->p (kind
 * set); program.c: the per-round program (push on ce, the persistent kernel's on sm), and an
 * empty program again after a row declined */
ar_status lower_choose_program(struct build *bd);
ar_status lower_emit_rounds(struct build *bd);
void lower_prog_reset(struct build *bd);
ar_status lower_emit_ce_push(struct build *bd, int r);
ar_status lower_emit_ce_ring(struct build *bd, int r);
ar_status lower_emit_done_waits(struct build *bd, int r, int k, const int *want, int *waited);
ar_status lower_emit_pace(struct build *bd, int r, int stream, int k, int s0, uint64_t n0, int s1,
                          uint64_t n1);
ar_status lower_emit_ready(struct build *bd, int r, int k, int stream);
ar_status lower_emit_sm(struct build *bd, int r);
ar_status lower_emit_ll(struct build *bd);
ar_status lower_emit_stamp(struct build *bd, int r, int stream, int k, int slot);
double lower_fac(const struct build *bd, int r);
ar_status lower_fail(struct build *bd, const char *msg, int k, int r, int c);
void lower_find_readers(struct build *bd);
size_t lower_flow_bytes(struct build *bd, int src, int dst, int k);
void lower_mark_push(struct build *bd);
int lower_need_of(struct build *bd, int p, int w, int k, size_t b, size_t e);
struct tp_op lower_op_new(int kind, int stream, int round);
uint64_t lower_pace_ns(const struct build *bd, double f, double bytes);
ar_status lower_plan_ce(struct build *bd);
void lower_plan_sm(struct build *bd);
int lower_reads_of(struct build *bd, int p, int w, int k);
uint32_t lower_ready_val(const struct build *bd, int k);
struct tp_ref lower_ref(int buf, int rank, size_t off);
int lower_ring_check(struct build *bd);
ar_status lower_ring_event(struct build *bd, int r, int kind, int stream, int k, int event);
ar_status lower_ring_flag(struct build *bd, int r, int stream, int k, int peer, int slot,
                          uint32_t val);
void lower_ring_plan(struct build *bd);
struct rr *lower_rr_at(struct build *bd, int r, int k);
size_t lower_scratch_take(size_t *cursor, size_t data_off, size_t bytes);
double lower_shared_bytes(struct build *bd, int r, int k, int out, size_t x);
int lower_src_index(const struct rr *x, int src);

#endif
