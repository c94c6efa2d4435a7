/* The lowering: a verified schedule compiled into one program of stream operations per rank,
 * for the ce and sm transports (plain C: no CUDA; the transports only execute programs).
 *
 * Why a program: both transports must keep the IR's round-snapshot semantics on GPUs that run
 * with no host ordering between ranks. The lowering (lower_job) decides, once per job, every
 * copy, sum, flag write and flag wait; the transports only interpret the list (ce: CUDA calls
 * on several streams; sm: a persistent kernel), and tests/gpu/tp_check.c runs the very same
 * lists in a CPU simulator that interleaves ranks and streams adversarially.
 *
 * Synchronisation is by monotonically increasing 32-bit sequence numbers in device memory;
 * every wait is on the waiter's own memory: (int32_t)(flag - value) >= 0. Each rank owns 2n
 * flag words; values are iteration-relative (the interpreter adds iter * span). For round k:
 *   ready(k) = (k + 1) * stride,  done(k, c) = k * stride + c  (1 <= c < stride).
 *
 * ce (TP_MODE_CE, push; emit_ce_push): the sender copies from its own data into the receiver's
 * scratch, or into the receiver's data when the receiver does not send that chunk this round.
 *   READY[q] (slot q): receiver q finished round k-1 and may be written;
 *   DATA[s] (slot n+s): sender s's first c copies to us of round k landed (done(k, c)).
 * Only a rank itself reads its data, so a write into data that the rank also sends this round
 * ("hazard") waits for the rank's own sends by local events. Every copy is issued by the GPU
 * whose data it reads: a pull program, where the receiver issued the copy, hung on the first
 * run on 4 x H200 (copies between GPUs seem to depend on the source GPU's queues, where
 * blocking waits sit; tp_check sim --xq 1 reproduces it), which NCCL's copy-engine collectives
 * also avoid by pushing; it was removed.
 *
 * sm (TP_MODE_SM): the receiver reads its sources. READY[s] (slot s): source s is in the
 * round-start state; DONE[p] (slot n+p): reader p finished reading us. Per round on rank r:
 *   1. (after all of r's round k-1 writes) READY to every rank that reads r in round k;
 *   2. wait READY from each source, read (ce: copy engine into scratch or, when no one reads
 *      the destination this round, straight into data; sm: kernel loads fused with the sum);
 *   3. DONE to each source once its reads are complete;
 *   4. before writing a destination that others read this round ("hazard"), wait for DONE
 *      from those readers, then apply scratch (sum or copy);
 *   5. at the round's end wait DONE from every reader, so no read of r is outstanding when
 *      round k+1 (or the next iteration, or the harness) writes r's data.
 *
 * ce dataflow ring (TP_MODE_CE, prog->dataflow = 1; emit_ce_ring): a schedule flagged
 * AR_TRAIT_PIPELINED (async-ring) whose rounds form chains (every round each rank sends one
 * range to its fixed successor and receives one from its fixed predecessor, and sends in round
 * k what it received in round k-1; REDUCE rounds, then COPY rounds) synchronises per (round k,
 * mini-batch j) instead of per round, so the 2(n-1) round boundaries leave no bubbles. Every
 * transfer is split into the same nb mini-batches; batch j goes on copy stream 1 + j % ns.
 * Flag words of rank r (slots below; values v(k, j) = k * nb + j + 1, READY = 1):
 *   READY (TP_DF_READY): r's successor q is in this iteration (its previous one complete);
 *   FREE (TP_DF_FREE): q applied mini-batch j of REDUCE round k (v(k, j)), so its scratch slot
 *     (k % 2, j) may be written again; written only where a later round reuses the slot;
 *   DATA (TP_DF_DATA + s): the predecessor's copy stream 1 + s delivered (k, j) (v(k, j)); one
 *     word per copy stream, so each word has one writer and only grows.
 * Sender r, batch j of round k (copy stream): wait for r's own apply of (k-1, j) (an event on
 * stream 0; DATA of (k-1, j) when round k-1 was a COPY that landed in r's data), and for
 * REDUCE rounds for FREE of the previous same-parity REDUCE round's (k', j) from q; copy into
 * q's scratch slot (k % 2, j) (REDUCE) or q's data (COPY); DATA(k, j) to q. Receiver (stream
 * 0): per batch wait DATA, sum the slot into data, record the batch's event, FREE where due.
 * Round 0's first copy on each stream waits for READY (one handshake per iteration covers the
 * previous one: q writes it after its harness stream passed all of q's previous iteration) and
 * for r's own iteration start (event). Correctness rests on the chains: all accesses to one
 * element, on every rank, belong to one chain, whose hops are causally ordered by the waits
 * above (one chain per round-0 transfer; chains must not share elements). With a REDUCE round
 * 0 the chains alone already order an iteration after the previous one (tp_check sim passes
 * without READY); READY keeps a COPY round 0, which writes q's data, off q's previous results.
 * A round "ends" (marks) on stream 0 after its last apply (COPY rounds: its last DATA waits);
 * the last round ends by joining the copy streams into stream 0, so that nothing of the
 * iteration is outstanding when the harness's stream goes on.
 *
 * ce dataflow direct (TP_MODE_CE, prog->dataflow = 2; emit_ce_direct): a direct AllReduce
 * (round 0: every rank r reduces its owned range O_r from all others; round 1: r copies O_r to
 * all) with every owned range split into nb mini-batches. Copy engines pushing to every peer at
 * once lose half their rate (docs/performance.md, v3), so each rank's copies go on one copy
 * stream, peers in shift order (r + 1, r + 2, ...): all ranks together move one permutation at
 * a time. Flag words of rank r: READY[q] (slot q): q ended the iteration before (its base, written
 * by q at its end: the next iteration's base + 0); DATA[s] (slot n + s): sender s's copies into r
 * landed, counted in s's stream order (reduce-scatter batch j: j + 1; allgather batch j:
 * nb + j + 1). Rank r: the copy stream, after r's iteration start (an event) and every peer's
 * READY, makes every reduce-scatter copy (O_q batch j into q's scratch slot (shift, j)), then
 * per batch j, once r's sum of j is recorded, the allgather copies of O_r batch j into every
 * peer's data; stream 0: per batch, wait DATA from every source, sum the n - 1 slots into O_r,
 * record the batch's event; at the end wait for every peer's last DATA, join the copy stream
 * and write READY into every peer (kernel stores). The reduce-scatter copies wait for nothing
 * else, so the copy engine runs back to back. READY keeps the ranks at the same copy (back to
 * back they drift apart without it: docs/timing.md); correctness does not need it: r's
 * allgather writes into q's O_r follow q's read of it (q's copy landed before r summed), and r
 * starts its next iteration only after every peer's last allgather copy reached r, which each
 * peer made after its last sum out of its scratch (tp_check sim checks both orders).
 *
 * ll (TP_MODE_LL; emit_ll): one plain kernel per rank runs the whole program with no grid
 * barrier and no flag words but those of its slots (signals). Per round, rank r first PUTs
 * every range a peer receives from it into that peer's receive slot (one slot per (round,
 * range, source): a rank's slots hold everything it receives in an iteration), then TAKEs
 * every range it receives: waits for its slots, sums them (after its own data, for a reduce)
 * into its data.
 * The program fixes the transport's protocol (prog->ll_protocol, from ll.protocol: auto is
 * lines up to ll.lines_max bytes of buffer, signals where a rank sends 32 MiB or more in one
 * round, lines128 between: TP_LL_GRID_WARPS below) and its slices: the buffer is cut into
 * slices of ll_slice data bytes from byte 0 (lines 512, lines128 480, signals ll.slice rounded
 * down to a multiple of 512, at least 512, or by size when 0), each ll_slot bytes in a slot
 * (lines 1024, lines128 512, signals ll_slice). With prog->ll_forward a TAKE also sends on
 * each slice it sums (lower_ll_forwards). A receive slot (TP_BUF_SCRATCH ref, bytes of one
 * parity) is a region of the range's whole slices, slice s of range [x0, x1) at
 * off + (s - x0 / ll_slice) * ll_slot (an empty range has none: offset 0); a rank's regions
 * follow each other in (round, range, source) order, its flag words likewise, one per slice
 * (op->ll_flag: the first of each slot; signals only use them). The transport only resolves
 * these offsets (src/cuda/tp_ll.cu), and tp_check llsim runs the same layout.
 * Why no barrier: the kernel gives every byte of the buffer to one lane of one warp, the
 * same on every op and every rank, and the thread runs the ops in order, so it reads a range
 * for a PUT before it writes it by a TAKE of the same round (the round snapshot) and after
 * the TAKE of an earlier round; the only waits are on slots, and a PUT never waits, so no
 * cycle of waits exists. Whether a slot holds this iteration's bytes is told by the data
 * itself (the transport's `lines` protocol: a sequence number beside every 4 bytes) or by one
 * flag per (slot, block) written after a fence (`signals`). Two parities of slots: a rank's
 * iteration i + 2 writes only after its iteration i + 1 ended, which needed every rank's
 * inputs of i + 1, so each reader's kernel of iteration i (same stream) had ended.
 *
 * Degraded links (struct tp_degrade, below): STAMP and PACE ops, emitted only when a
 * job degrades a GPU, hold a stream until a time relative to a stamp of the same rank (the
 * round's start, slot 0; a flow's start, slots 1..). They never touch data, so the
 * protocol's correctness does not depend on them (tp_check sim runs them as no-ops, and its
 * timed simulation, tp_check tsim, checks the times they produce). */
#ifndef AR_LOWER_H
#define AR_LOWER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ar.h"
#include "transports.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AR_MAX_GPUS 16 /* ranks a transport runs */

/* Degraded-link emulation (--degrade R:F): every byte into or out of a listed GPU
 * takes F times longer than at the healthy bandwidth `bw`, with one budget per direction
 * shared by all of the GPU's peers (a slow NIC). n == 0 is the healthy path: the transports
 * then emit exactly what they did before the emulation existed.
 *
 * How (degrade.h has the kernels): per round of a degraded GPU d, t0 = the GPU time at
 * which d's stream enters the round (a stamp kernel). The bytes d receives in the round may be
 * used no earlier than t0 + F * in / bw, and what d sends reaches its receivers no earlier than
 * t0 + F * out / bw; with several flows per direction, the x-th byte of one flow is released
 * at t0 + F * sum_j min(b_j, x) / bw (fair sharing of the one budget: the last byte of the
 * round at F * (sum of all bytes) / bw however many peers). d's rounds run one after another,
 * so over any run of rounds d moves at most bw / F per direction: ingress and egress are each
 * capped, independently (full duplex), and a peer gains nothing by talking to d at the same
 * time as another. Spin kernels on %globaltimer hold streams until those times. A flow also
 * never ends earlier than its own start (the moment both ends are ready, measured where the
 * transport can see it) + F * x / bw, so a peer that arrives late is charged the slow link from
 * when it arrives:
 *   ce (push), the flow program (flow.c, the default for degraded jobs): no rounds; each
 *     flow with a degraded end takes F * x / bw of d's budget per direction when its copy
 *     starts (first come, first served, an atomic clock in d's memory) and its DATA flag is
 *     held until then. These clocks compare the GPUs' %globaltimer, which differ by up to
 *     ~160 us on 4 x H200: the transport measures the offsets per job (a ping-pong, 1-1.5 us
 *     round trip; the self-test prints them). A degraded sender's copy engine is held to its
 *     budget too (one healthy transfer time ahead), so its bytes cross as a slow NIC's would.
 *   ce (push), the per-round program (ce.program=round; only local clocks): d stamps each
 *     round on its main stream; d's copy streams stamp each flow when the receiver is ready
 *     and hold the DATA flags (egress); senders to d stamp their flow and hold their DATA flags
 *     for F * x / bw; d's main stream holds every apply (ingress).
 *   sm (pull): readers stamp when their sources are ready and hold the round's end until
 *     every byte read from d is released (d's egress, shared among d's readers); d holds its
 *     own round's end for its reads (ingress) and for its egress budget.
 *   nccl-p2p: d stamps each round and holds its stream after the round's group until
 *     F * max(in, out) / bw; receivers of d's data stamp at their round start and hold until
 *     their share of d's egress budget has passed. NCCL pairs a send with its receive inside
 *     the group, where no stream sees the transfer start: a flow whose far end arrives late
 *     is timed from this end's round start (up to (F - 1) x / bw optimistic). With a degraded
 *     network (per_host, degrade.network_bw) only bytes between hosts count, and bw is the
 *     network's. */
struct tp_degrade {
  int n;                           /* degraded GPUs; 0: none */
  int rank[AR_MAX_DEGRADED];
  double factor[AR_MAX_DEGRADED];  /* >= 1 */
  double bw;                       /* healthy bandwidth, bytes/s (measured by the harness) */
  int per_host; /* 0: a degraded GPU's every link is slow; G > 0 (nccl-p2p only): hosts of G
                 * consecutive ranks, and only a degraded rank's bytes to and from other hosts
                 * are slow (its network, bw the network's: degrade.network_bw) */
};

/* 1 when bytes between ranks a and b are slowed by a degradation of either: always, unless
 * only the network between hosts is degraded and a and b share a host. */
static inline int lower_degrade_crosses(const struct tp_degrade *dg, int a, int b) {
  return !dg->per_host || a / dg->per_host != b / dg->per_host;
}

/* The factor of `rank` (0 when it is not degraded). */
static inline double lower_degrade_factor(const struct tp_degrade *dg, int rank) {
  for (int i = 0; dg && i < dg->n; i++)
    if (dg->rank[i] == rank) return dg->factor[i];
  return 0;
}

/* Nanoseconds that `bytes` take on a link slowed by `factor` (0 for a healthy one). */
static inline uint64_t lower_degrade_ns(const struct tp_degrade *dg, double factor, double bytes) {
  if (!(factor > 0) || !(dg->bw > 0)) return 0;
  return (uint64_t)(factor * bytes / dg->bw * 1e9 + 0.5);
}

enum tp_mode { TP_MODE_CE = 0, TP_MODE_SM = 1, TP_MODE_LL = 2 };

enum tp_op_kind {
  TP_OP_WRITE_FLAG = 0, /* flags[peer][slot] = base + val, after the stream's earlier work */
  TP_OP_WAIT_FLAG,      /* stream waits until own flags[slot] >= base + val */
  TP_OP_COPY,           /* dst = src[0], bytes (ce: copy engine) */
  TP_OP_SUM,            /* dst = src[0] + ... + src[nsrc-1], bytes / esize elements */
  TP_OP_RECORD,         /* ce: record event `event` on the stream */
  TP_OP_WAIT_EVENT,     /* ce: stream waits for the latest record of `event` */
  TP_OP_SYNC,           /* sm: every block's earlier work done and visible system-wide */
  /* degraded-link emulation only (struct tp_degrade, below): */
  TP_OP_STAMP, /* stamps[tslot[0]] = the GPU time when the stream gets here */
  TP_OP_PACE,  /* the stream waits until stamps[tslot[i]] + ns[i] for i = 0, 1 (tslot -1: none);
                * ce: the target goes to stamps[tout] when tout >= 0 */
  TP_OP_RESERVE, /* ce flow program: a flow to `peer` starts: stamps[tout] = when ns[0] of this
                  * GPU's egress budget and ns[1] of peer's ingress budget have passed, the
                  * budgets taken first come, first served (0: that budget is not taken) */
  /* the ll program (TP_MODE_LL) only: */
  TP_OP_PUT,  /* push src[0] (our data), bytes, into peer's receive slot dst (flag slot
               * `slot`, its words from ll_flag[0]) */
  TP_OP_TAKE, /* wait for the slots src[..] (flag slots slot, slot + 1, ...; words ll_flag[..]),
               * then dst = their sum (with our data first when src[0] is dst itself: a
               * reduce) */
};

enum tp_buf { TP_BUF_DATA = 0, TP_BUF_SCRATCH = 1 };

/* Flag slots of the dataflow ring program (prog->dataflow): see above. */
enum { TP_DF_READY = 0, TP_DF_FREE = 1, TP_DF_DATA = 2 };
#define TP_DF_MAX_STREAMS 4 /* copy streams of the dataflow ring program */

#define TP_MAX_SUM (AR_MAX_GPUS + 1) /* a sum reads the destination and up to n-1 peers */

struct tp_ref {
  int buf;    /* enum tp_buf */
  int rank;   /* whose buffer */
  size_t off; /* bytes */
};

struct tp_op {
  int kind;   /* enum tp_op_kind */
  int stream; /* ce: 0 = the harness's stream, 1.. = the transport's copy streams */
  int round;  /* schedule round, for traces */
  int peer, slot;
  uint32_t val;
  int event;
  int nsrc;
  size_t bytes;
  struct tp_ref dst, src[TP_MAX_SUM];
  int tslot[2];   /* STAMP, PACE: stamp slots of the rank (ce: device words; sm: per block) */
  uint64_t ns[2]; /* PACE: nanoseconds after each stamp */
  int blocks;     /* ce SUM: most blocks of its kernel (0: the default, 4 per SM) */
  int kflag;      /* ce WRITE_FLAG: by a kernel whatever the flag mode (a stream that is not
                   * the copy stream: a memop's 4-byte copy would queue behind its copies) */
  int tout;       /* ce PACE: stamps[tout] = its release (-1: none): the time it waited for,
                   * or when the stream got there if later, so that a chain of paces adds up
                   * targets, not the kernels' latencies, and banks no idle time */
  size_t ll_flag[TP_MAX_SUM]; /* ll: the first flag word of each slot, PUT [0] (the peer's),
                               * TAKE beside its src (the receiver's) */
};

struct tp_rank_prog {
  struct tp_op *ops;
  size_t nops, cap;
  int nstreams; /* including stream 0 */
  int nevents;
  int nstamps;          /* stamp slots used (0: no emulation ops) */
  size_t scratch_bytes; /* this rank's scratch (bytes) */
  size_t ll_flags;      /* ll: this rank's flag words (a slice of a received range each) */
};

struct tp_prog {
  int n, mode, esize;
  size_t nelem;
  int nrounds;
  uint32_t stride, span; /* flag values: see above; an iteration adds span */
  int nslots;            /* flag words per rank: 2n (dataflow: at least TP_DF_DATA + streams) */
  int batches_max;       /* most mini-batches any transfer was split into */
  int dataflow; /* 1: the dataflow ring program (emit_ce_ring), 2: the dataflow direct program
                 * (emit_ce_direct), else 0 */
  int reserves; /* some rank has a RESERVE op (the flow program's degraded-link budgets) */
  const char *kind; /* the lowering table's name of this program (choose.c) */
  int ll_protocol;         /* ll: enum tp_ll_protocol */
  size_t ll_slice, ll_slot; /* ll: a slice's data bytes, and its bytes in a slot */
  int ll_forward;           /* ll: TAKEs forward their slices (lower_ll_forwards) */
  struct tp_rank_prog rank[AR_MAX_GPUS];
};

/* Compiles s for nelem elements of esize bytes. pipeline: mini-batches per transfer (ce only):
 * 1 none, k > 1 given, <= 0 chosen per size (about 8 MiB each, at most 8; the dataflow ring:
 * about set->ring_batch_bytes each, 4 to 64; set: the lowering's settings, NULL for the
 * built-in ones). ce push compiles a schedule flagged
 * AR_TRAIT_PIPELINED with ring structure into the dataflow ring program, unless dg asks for
 * emulation (the per-round program then, which knows how to pace). dg: degraded GPUs to
 * emulate (STAMP and PACE ops, above), or NULL / dg->n == 0 for none (the program is
 * then what it was before the emulation existed). Returns AR_OK, AR_ERR_UNSUPPORTED (reason
 * set) for schedules outside the IR's rules (e.g. a copy and a reduce into one chunk in a
 * round), or AR_ERR_NOMEM. */
struct lower_settings;
ar_status lower_prog_build(const struct ar_schedule *s, size_t nelem, int esize, int mode,
                        int pipeline, const struct tp_degrade *dg,
                        const struct lower_settings *set, struct tp_prog **out, char *reason,
                        size_t reason_len);
void lower_prog_free(struct tp_prog *p);
/* --phases (struct tp_marks): at[k] for k < p->nrounds = how many of rank r's ops come before
 * the point that marks the end of round k (0: r has no work in round k). ce: right after the
 * round's last op, on stream 0, which ends every round by joining the copy streams and waiting
 * for every copy into r (tp_check sim verifies it; the dataflow ring: after the round's last
 * apply or, for a COPY round, its wait for the last copy into r; its own sends of the round may
 * still run, and only the last round joins them); sm: after the grid barrier that opens the
 * next round, if one does, so that every block is past round k. */
void lower_prog_round_ends(const struct tp_prog *p, int r, size_t *at);
/* The lowering's settings: everything a lowering reads besides the job and the schedule
 * (lower_settings_of takes them from a scenario's settings, settings.h; the tests set their
 * own). A lowering is a function of its arguments: nothing here is kept between jobs. */
struct lower_settings {
  /* ce push: 0 (auto) the flow program for degraded jobs and for schedules with a straggler
   * precondition (stragglar, bcast), else the dataflow ring for flagged rings, the dataflow
   * direct program for direct AllReduces and the per-round program for the rest; 1
   * (ce.program=round) never the flow program; 2 (ce.program=flow) the flow program for every
   * schedule but healthy flagged rings (healthy rhd, swing-bw and direct lost with it on
   * 4 x H200, docs/performance.md v4). Degraded jobs run the flow program since its budgets
   * passed the self-test (within 3%; the per-round program within 4%): optcc-switch 6.6-6.9 ms
   * on it against 8.7 on the per-round program (docs/performance.md v7). A schedule the flow
   * program cannot run (a swap) falls back. */
  int ce_program;
  /* The automatic mini-batch (pipeline <= 0) in bytes below 64 MiB (from there the counts are
   * measured, lower_batches_for): 8 MiB; tests lower it so that small vectors are split too. */
  size_t auto_batch_bytes;
  /* The dataflow ring's automatic mini-batch (pipeline <= 0) in bytes (ce.ring_batch), and its
   * copy streams (1..TP_DF_MAX_STREAMS; ce.ring_streams). */
  size_t ring_batch_bytes;
  int ring_streams;
  /* The dataflow direct program's automatic mini-batch (pipeline <= 0) in bytes of the largest
   * owned range (2 to 16 batches; ce.direct_batch). */
  size_t direct_batch_bytes;
  /* The flow program's automatic mini-batch (pipeline <= 0) in bytes of the largest chunk (1 to
   * 16 per chunk; ce.flow_batch), and its sum kernels' blocks (ce.flow_sum_blocks; above half
   * the SMs a sum waits for its flags on the stream, not spinning: ar_sum_can_wait). */
  size_t flow_batch_bytes;
  int flow_sum_blocks;
  /* The ll program's protocol and slice (above): ll.protocol (TP_LL_AUTO or a protocol),
   * ll.lines_max (bytes), ll.slice (signals' slice, bytes, a multiple of 512, the kernel's;
   * 0: by size; tests set smaller ones) and ll.forward (1 on, 0 off). */
  int ll_protocol;
  size_t ll_lines_max;
  size_t ll_slice;
  int ll_forward;
  /* The sm transport's oneshot fast path up to this many bytes per rank (sm.oneshot_max_bytes;
   * 0: LOWER_LL_MAX_BYTES / (n - 1)). */
  size_t sm_oneshot_max_bytes;
};
/* The built-in values (those of the settings' defaults). */
void lower_settings_default(struct lower_settings *set);
/* The lowering's settings of s (a scenario's --set values, settings.h; NULL: every default),
 * as a transport's setup and `arbench lower` read them. */
struct ar_settings;
void lower_settings_of(struct lower_settings *set, const struct ar_settings *s);
enum tp_ll_protocol { TP_LL_AUTO = -1, TP_LL_LINES = 0, TP_LL_LINES128 = 1, TP_LL_SIGNALS = 2 };
/* The ll kernel's slices (src/cuda/tp_ll.cu): lines, 32 lanes x 16 bytes, each 16 sent as two
 * 16-byte lines of 8 data bytes; lines128, four 128-byte lines of 120 data bytes. */
#define TP_LL_LINES_SLICE 512
#define TP_LL_LINES128_SLICE 480
#define TP_LL_LINES128_SLOT 512
/* ll.protocol=auto: signals where a rank sends at least TP_LL_GRID_WARPS slices of
 * TP_LL_SIGNALS_SLICE_MIN bytes in one round (32 MiB), in slices of the largest size up to
 * TP_LL_SIGNALS_SLICE_MAX that still gives each warp of a full grid one (an H100's or H200's
 * 132 SMs x 4 blocks x 8 warps, rounded down): on 4 x H200 signals with forwarding beat
 * lines128 from there, and 8K (16K from 64 MiB a round) beat 4K and 16K
 * (runs/reference/h200x4-ll-forward: ring, async-ring, rhd, swing-bw, direct on 4 ranks; rhd and
 * swing-bw at 256 MiB were 1% faster with 8K, direct at 64 MiB 1-2% faster as lines128);
 * lines128 below, lines up to ll.lines_max. The f32 kernels keep 4 blocks per SM resident, the
 * 2-byte ones 3 (more registers): 3168 warps there. */
#define TP_LL_GRID_WARPS 4096
#define TP_LL_SIGNALS_SLICE_MIN 8192
#define TP_LL_SIGNALS_SLICE_MAX 16384
/* ll, prog->ll_forward on: how many PUTs right after rank r's TAKE op i the kernel runs inside
 * that TAKE, each slice sent as soon as it is summed: the next round's PUTs of exactly the
 * TAKE's range or a part of it (a ring's next hop, direct's allgather, the half rhd sends on);
 * 0 for any other op. A slice is owned by the same warp in every op, so the warp that sums it
 * sends it. Without it a warp sums all its slices of a round before it sends any of the next,
 * and the link idles while every warp sums. Safe: a PUT of a slice still reads it after the
 * TAKE wrote it, its lane's program order as before, and writes a slot of its own (one per
 * round, range and source) that its receiver waits for as before. */
int lower_ll_forwards(const struct tp_prog *p, int r, size_t i);
/* flow.c: compiles s into p (fields set by lower_prog_build) as the flow program, with the
 * emulation's paces for dg's GPUs (NULL or n == 0: none). */
ar_status lower_flow_build(const struct ar_schedule *s, size_t nelem, int esize, int pipeline,
                        const struct tp_degrade *dg, const struct lower_settings *set,
                        struct tp_prog *p, char *reason, size_t reason_len);
/* Builders shared with flow.c. */
#define TP_UNIT 64 /* mini-batch boundaries fall on multiples of 64 elements */
void lower_batch_range(size_t b, size_t e, int nb, int j, size_t *lo, size_t *hi);
/* Prints rank r's program (AR_DEBUG=trace, and tp_check dump). */
void lower_prog_print(const struct tp_prog *p, int r, FILE *f);
/* Prints the program's header line (every field but the ranks' ops). */
void lower_prog_print_header(const struct tp_prog *p, FILE *f);


/* choose.c: the one place that decides which program a transport runs for a job: its setup
 * (src/cuda, and the simulator's fake GPU) and `arbench lower` all call lower_job, so what
 * lower prints is what runs. By the transport's lowering (src/transports.h): none (nccl-p2p:
 * *out NULL); ce: the flow, dataflow ring, dataflow direct or per-round push program; sm: the
 * persistent kernel's program, or none (*out NULL) for the oneshot fast path
 * (lower_sm_oneshot); ll: the ll program. pipeline is honoured where the transport pipelines
 * (ce), read as 1 elsewhere. *kind (may be NULL) names the program; on AR_ERR_UNSUPPORTED the
 * reason says why the job is n/a. */
struct lower_job {
  int transport; /* enum ar_tp */
  const struct ar_schedule *sched;
  size_t nelem;
  int esize;
  int pipeline;
  const struct tp_degrade *dg; /* NULL or n == 0: healthy links */
};
ar_status lower_job(const struct lower_job *job, const struct lower_settings *set,
                    struct tp_prog **out, const char **kind, char *reason, size_t reason_len);
/* The sm transport's oneshot fast path: the oneshot structure (one round, one chunk, every
 * rank reduces every other rank's buffer), no degraded-link emulation, at most
 * LOWER_LL_MAX_BYTES / (n - 1) bytes per rank (each rank sends n - 1 copies, at half the
 * link's rate: 4 x H200: 7.3 us vs nccl's 12.3 at 1 KiB, even at 256 KiB, 1.5x slower at
 * 1 MiB); set->sm_oneshot_max_bytes overrides it. */
#define LOWER_LL_MAX_BYTES (1u << 20)
int lower_sm_oneshot(const struct ar_schedule *s, int n, size_t bytes, int degraded,
                     const struct lower_settings *set);

#ifdef __cplusplus
}
#endif
#endif
