/* --profile overlap: how much of each rank's copy time ran concurrently with
 * reduction kernels and with the injected straggler delay, from CUPTI activity records; and
 * --profile timeline: every record of each profiled row, per rank, in timeline.csv (a plain
 * stand-in for an Nsight Systems trace, which the GPU machine cannot import).
 *
 * Two halves:
 * - profile.c, pure C (no CUDA, no CUPTI): the interval arithmetic, the kernel classes, the
 *   per-rank figures and overlap.csv. The CPU tests compile it in (tests/test_profile.c).
 * - profile_cupti.c: CUPTI loaded at run time with dlopen (the binary is built where there is
 *   no GPU and carried to the GPU machine, so libcupti is never linked), activity records of a
 *   row collected between hx_profile_begin and hx_profile_end.
 *
 * What counts (per record, a set of classes: a fused kernel is in two):
 * - copy: memcpy records between device memories (device to device, peer to peer: the ce
 *   transport's cudaMemcpyAsync on peer pointers), NCCL's kernels (names beginning "nccl":
 *   the nccl-p2p transport's send/receive and ncclAllReduce itself), and the sm and ll
 *   transports' kernels (sm loads peer memory and sums in one pass; ll pushes into peers'
 *   slots and sums what it receives);
 * - reduce: our sum kernels (src/cuda/reduce.cu), the sm and the ll kernel. NCCL's kernels are copy
 *   only: their names do not reliably say whether they reduce (NCCL runs some collectives in a
 *   generic kernel), so nccl rows show no reduction overlap rather than a guess;
 * - delay: the straggler's delay kernel (src/cuda/delay.cu).
 * Everything else (host copies, memsets, the fill, check, gate and flag kernels) is left out.
 *
 * Per rank r (records attributed by CUDA device ordinal): copy_r, reduce_r and delay_r are the
 * unions of that class's intervals on r's GPU, D the union of the delay intervals of every
 * rank (the delay runs on the straggler's GPU only, while the others copy), and
 *   overlap_reduce = |copy_r ∩ reduce_r| / |copy_r|,  overlap_delay = |copy_r ∩ D| / |copy_r|
 * in percent (undefined, written empty, when the rank copied nothing). */
#ifndef HX_PROFILE_H
#define HX_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The classes of a record, as bits. */
enum { HX_PROF_COPY = 1, HX_PROF_REDUCE = 2, HX_PROF_DELAY = 4 };

/* What --profile asked for, as bits (struct run_opts's profile; 0: no profiling). Either one
 * records the rows and fills the overlap columns and overlap.csv: it is the same recording;
 * timeline also writes timeline.csv. */
enum { HX_PROFILE_OVERLAP = 1, HX_PROFILE_TIMELINE = 2 };

/* What a record is, for the timeline (the figures go by its classes only). */
enum {
  HX_REC_KERNEL = 0, /* a kernel: its name says which */
  HX_REC_DTOD,       /* memcpy device to device (same GPU) */
  HX_REC_PTOP,       /* memcpy peer to peer (between GPUs) */
  HX_REC_HTOD,       /* memcpy host to device */
  HX_REC_DTOH        /* memcpy device to host */
};

/* Characters of a kernel's name kept for the timeline (longer names are cut). */
#define HX_PROF_NAME_MAX 60

/* A half-open interval [start, end) in ns; one with end <= start is empty. */
struct hx_ival {
  uint64_t start, end;
};

/* One GPU activity of a profiled row: its interval (ns, CUPTI's clock, common to every GPU),
 * the CUDA ordinal it ran on and its classes (HX_PROF_* bits; only these count in the
 * figures); the rest is for the timeline. Zeroed fields read as a kernel with no name, on
 * stream 0, with no peer. */
struct hx_prof_rec {
  uint64_t start, end;
  uint32_t device;
  uint32_t cls;
  uint32_t kind;   /* HX_REC_* */
  uint32_t stream; /* CUPTI's stream id */
  int32_t peer;    /* HX_REC_PTOP: the other GPU's CUDA ordinal; -1 unknown (else unused) */
  uint64_t bytes;  /* copies: bytes moved */
  char name[HX_PROF_NAME_MAX + 1]; /* kernels: CUPTI's name, cut, NUL-terminated */
};

/* Sorts v[0..n) and merges overlapping or touching intervals in place, dropping empty ones;
 * returns how many are left (disjoint, ascending). */
size_t hx_ival_union(struct hx_ival *v, size_t n);
/* Returns the total length of n disjoint intervals. */
uint64_t hx_ival_length(const struct hx_ival *v, size_t n);
/* Returns the length of the intersection of two sets of disjoint ascending intervals (as
 * hx_ival_union leaves them). */
uint64_t hx_ival_overlap(const struct hx_ival *a, size_t na, const struct hx_ival *b, size_t nb);

/* Returns the classes (HX_PROF_* bits, 0: none) of a kernel from its name, mangled
 * ("_Z10sum_kernelIfEvPT_7tp_srcsim") or plain ("sum_kernel<float>(...)", "ncclDevKernel_X"). */
unsigned hx_profile_kernel_class(const char *name);

/* One rank's figures of a row. */
struct hx_overlap {
  double copy_us, reduce_us, delay_us; /* busy time per iteration: each class's union on the
                                        * rank's GPU, divided by the iterations profiled */
  double reduce_pct, delay_pct;        /* percent of copy_us; NAN when copy_us is 0 */
};
/* Fills ov[0..n) for the ranks whose CUDA ordinals are dev[0..n) from the row's records;
 * busy times are divided by iters (>= 1). Returns 0, or -1 when out of memory. */
int hx_overlap_compute(const struct hx_prof_rec *rec, size_t nrec, const int *dev, int n, int iters,
                       struct hx_overlap *ov);
/* The row's figures for results.csv: each percentage's mean over the ranks where it is
 * defined (NAN when none is). */
void hx_overlap_mean(const struct hx_overlap *ov, int n, double *reduce_pct, double *delay_pct);

/* The header of overlap.csv: one line per profiled row and rank. */
extern const char hx_overlap_header[];
/* What one row's overlap.csv lines share. */
struct hx_overlap_job {
  const char *run_id, *algorithm, *transport, *scenario;
  uint64_t bytes;
  int iterations; /* iterations profiled (warm-up included) */
};
/* Writes the row's n lines (rank 0..n-1) and flushes; returns 0 or -1. */
int hx_overlap_write(FILE *f, const struct hx_overlap_job *j, const struct hx_overlap *ov, int n);
/* overlap.csv in the folder of results_path, created with its header on the first call of the
 * process and shared by every later one (the scenarios of a run); NULL, after one warning,
 * when it cannot be written. */
FILE *hx_overlap_csv(const char *results_path);

/* The header of timeline.csv: one line per activity record of each profiled row. */
extern const char hx_timeline_header[];
/* Writes the timeline.csv lines of one row (j's iterations unused) and flushes: the records
 * on the ranks' GPUs (rank r has CUDA ordinal dev[r]; records on other GPUs are not the
 * run's and are skipped), ordered by start (then rank, end, and their order in rec), times
 * in us from the earliest start written. Returns 0, or -1 when out of memory or not written;
 * 0 with nothing written when f is NULL. */
int hx_timeline_write(FILE *f, const struct hx_overlap_job *j, const int *dev, int n,
                      const struct hx_prof_rec *rec, size_t nrec);
/* A record's kind in timeline.csv and trace.json: copies by direction (copy, copy-host),
 * kernels by their classes (reduce, copy+reduce, delay, copy for NCCL's, else kernel). */
const char *hx_timeline_kind(const struct hx_prof_rec *r);
/* A record's name there: a copy's direction (dtod, ptop, htod, dtoh) or the kernel's (cut). */
const char *hx_timeline_name(const struct hx_prof_rec *r);
/* timeline.csv beside results_path, as hx_overlap_csv does overlap.csv (its own file). */
FILE *hx_timeline_csv(const char *results_path);

/* ---- CUPTI (profile_cupti.c) ---- */

/* Rank 0, with every GPU idle, before a row's iterations: loads CUPTI on the first call and
 * starts recording copies and kernels; `what` is what --profile asked (HX_PROFILE_* bits,
 * not 0): with HX_PROFILE_TIMELINE every copy and kernel is kept, else only those with a
 * class. Returns 0, or -1 when profiling is off: CUPTI could not be loaded or failed (said
 * once, in one warning line, for the whole process). */
int hx_profile_begin(unsigned what);
/* After the row's GPU work has finished on every rank: stops recording, collects the records
 * and fills ov[0..n) (hx_overlap_compute). Returns 0, or -1 (profiling is then off for the
 * rest of the process, said once). Call it after every hx_profile_begin that returned 0. */
int hx_profile_end(const int *dev, int n, int iters, struct hx_overlap *ov);
/* After hx_profile_end returned 0: the row's records into timeline.csv (hx_timeline_write)
 * and trace.json (trace.h). Returns 0, or -1 when either was not written. */
int hx_profile_timeline(FILE *f, const struct hx_overlap_job *j, const int *dev, int n);

#endif
