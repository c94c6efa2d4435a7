/* The transports a schedule runs on: one enum and one descriptor table (plain C, no CUDA).
 * Everything that asks what a transport is or can do reads it: the command line's names, the
 * n/a reasons, the dry run's estimate, `arbench model --transport`, the MPI broadcast of a
 * job (its id), the lowering (lower_job) and the executors (src/cuda/executors.cu, and the
 * simulator's fake GPU, index their ops by the same enum). Beside them, one more executor:
 * NCCL's own AllReduce (AR_EX_NCCL), on which the native algorithm runs; it has no program
 * and no --transport names it. A row's executor is one entry of this table, never a name.
 *
 * Adding a transport: a line in AR_TRANSPORT_LIST below (its id and its ops' symbol), its
 * entry in transports.c, and its ops in src/cuda/tp_<name>.cu. */
#ifndef AR_TRANSPORTS_H
#define AR_TRANSPORTS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* X(id, ops): every transport in the order of the table (and of `--transport all`). */
#define AR_TRANSPORT_LIST(X) \
  X(AR_TP_NCCL_P2P, tp_nccl_p2p) \
  X(AR_TP_CE, tp_ce) \
  X(AR_TP_SM, tp_sm) \
  X(AR_TP_LL, tp_ll)

enum ar_tp {
#define AR_TP_ENUM_(id, ops) id,
  AR_TRANSPORT_LIST(AR_TP_ENUM_)
#undef AR_TP_ENUM_
  AR_NTRANSPORTS
};
/* The executors: every transport, then NCCL's own AllReduce (results.csv's transport "nccl") */
#define AR_EX_NCCL AR_NTRANSPORTS
#define AR_NEXECUTORS (AR_NTRANSPORTS + 1)

/* How a transport's programs are made (lower_job, src/lower/lower.h). */
enum ar_tp_lowering {
  AR_LOWER_NONE = 0, /* no program: the transport executes the schedule's rounds itself */
  AR_LOWER_CE,       /* the copy engines' programs: flow, dataflow ring or direct, push */
  AR_LOWER_SM,       /* the persistent kernel's program, or the oneshot kernel's fast path */
  AR_LOWER_LL,       /* the ll kernel's program */
};

/* What a transport can do, one bit each; a transport lacking one says why in na[bit]. */
enum ar_tp_cap {
  AR_TP_COLOCATED = 0,     /* several ranks on one GPU */
  AR_TP_PROCESSES,         /* ranks in several processes of one host (MPI, CUDA IPC) */
  AR_TP_HOSTS,             /* ranks on several hosts */
  AR_TP_DEGRADE,           /* the degraded-link emulation (--degrade) */
  AR_TP_NCCL_REG,          /* runs on a buffer registered with NCCL (nccl.registration) */
  AR_TP_GRAPH_COLOCATED,   /* timing.mode=graph with ranks sharing a GPU */
  AR_TP_NCAPS
};
#define AR_TP_CAN(t, cap) (((t)->caps >> (cap)) & 1u)

struct ar_transport {
  int id;           /* enum ar_tp, or AR_EX_NCCL: its index in the table */
  const char *name; /* as --transport, results.csv and `arbench lower` spell it */
  int lowering;     /* enum ar_tp_lowering */
  int pipelines;    /* honours --pipeline (mini-batches per transfer); others run 1 */
  unsigned caps;    /* 1u << enum ar_tp_cap for each capability */
  /* the dry run's estimate and `arbench model --transport`: cost per round and one link's
   * bandwidth, as `arbench model --calibrate` fitted them (transports.c says from which runs);
   * `arbench model --transport` also its cost per message (model.h: msg_us) */
  double alpha_us, bytes_per_s, msg_us;
  const char *na[AR_TP_NCAPS]; /* for each capability it lacks: why, in words (else NULL) */
};

/* The table's transports (AR_NTRANSPORTS entries, entry i has id i); NULL past them. */
const struct ar_transport *ar_transport_at(int id);
/* The transport named `name` (as --transport names it: not "nccl"), or NULL. */
const struct ar_transport *ar_transport_find(const char *name);
/* Any executor (AR_NEXECUTORS entries: the transports, then AR_EX_NCCL), or NULL. */
const struct ar_transport *ar_executor_at(int id);
/* NCCL's own AllReduce: the executor of the native algorithm. */
#define ar_executor_nccl() ar_executor_at(AR_EX_NCCL)
/* The names joined by sep into buf ("nccl-p2p ce sm ll" with " "), for messages; buf. */
char *ar_transport_names(char *buf, size_t len, const char *sep);

#ifdef __cplusplus
}
#endif
#endif
