/* The phases of an iteration, as NVTX ranges (always; free when no tool listens) and, with
 * --phases, as CUDA events on every rank for one chosen iteration per job (the last timed
 * one), written to phases.csv. A phase is named by the first word of its range:
 * "delay 8000 us" is phase `delay`, "allreduce ring/ce" is phase `allreduce`, so the CSV and
 * the Nsight Systems timeline show the same phases.
 *
 * What the harness can see: the straggler's delay and the whole collective (one enqueue call
 * of the transport). The precondition and the rounds happen inside the transport: the NVTX
 * "precondition" range is opened and closed by nvtx.c from the transports' "round %d" ranges
 * (rounds < nprecond); their times come from the transports' round marks (struct tp_marks,
 * src/cuda/round_marks.h), passed to the timed iteration only: phases.csv then also has, per
 * rank, `precondition` (the collective's start to the end of its last round < nprecond) and
 * `round k` (the previous marked round's end, or the collective's start, to round k's end). */
#ifndef HX_PHASES_H
#define HX_PHASES_H

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>

#include "cuda/round_marks.h"
#include "transports.h"

#define HX_PHASE_MAX 8 /* timed phases a rank records in one iteration */

/* One rank's phases: NVTX range state and, when timing, its events and results. */
struct hx_phase_rank {
  int nev;                          /* events created (0: --phases is off) */
  cudaEvent_t ev[2 * HX_PHASE_MAX]; /* begin and end of each phase, on the rank's device */
  int timing;                       /* this iteration records events */
  int n;                            /* phases recorded in the timed iteration */
  int nprecond;                     /* precondition rounds of this rank's collective */
  int ranges;                       /* job, iteration and phase ranges open (pops owed) */
  int sp;                           /* phases open */
  struct {
    int idx, coll;
  } stack[4];                  /* each: its timed index (-1: none), is the collective */
  char name[HX_PHASE_MAX][16]; /* phase names: the first word of the range */
  double start_us[HX_PHASE_MAX], end_us[HX_PHASE_MAX]; /* from the iteration's start */
  /* the transport's round marks (hx_phase_job_rounds, hx_phase_marks) */
  struct tp_marks mk;   /* mk.nrounds 0: this job's transport is not asked to mark */
  int mk_cap;           /* rounds the events and arrays hold */
  int mk_on;            /* the timed iteration passed mk to the transport */
  double *round_end_us; /* [mk_cap] from the iteration's start; < 0: not marked */
  double coll_us;       /* the collective's start from the iteration's start (< 0: unknown) */
};

/* Creates the events of --phases on the current device when on; returns cudaSuccess or the
 * first error (the struct is usable either way: hx_phase_rank_free undoes what was made). */
cudaError_t hx_phase_rank_init(struct hx_phase_rank *p, int on);
/* Destroys the events (and the round marks' memory). */
void hx_phase_rank_free(struct hx_phase_rank *p);
/* With --phases on: readies the round marks of a job whose transport runs a schedule of
 * nrounds rounds (events and a zeroed device array, on the current device, grown as needed;
 * called after hx_phase_job_begin, which forgets the last job's). cudaSuccess or the error. */
cudaError_t hx_phase_job_rounds(struct hx_phase_rank *p, int nrounds);
/* The marks to pass to the transport's enqueue now: the rank's, in the timed iteration of a
 * job readied by hx_phase_job_rounds; NULL otherwise. */
struct tp_marks *hx_phase_marks(struct hx_phase_rank *p);

/* Opens the NVTX range of a job on the calling rank's thread: "size 1 MiB ring/ce" (algo
 * alone on NCCL's own executor, AR_EX_NCCL); nprecond: precondition rounds this rank runs (0 when none or
 * when it is the straggler). */
void hx_phase_job_begin(struct hx_phase_rank *p, uint64_t bytes, const char *algo,
                        const struct ar_transport *ex, int nprecond);
/* Closes the job's range (and any phase range left open by an error). */
void hx_phase_job_end(struct hx_phase_rank *p);

/* Starts an iteration: its NVTX range ("iter i", or "warmup i"); timing: record this one's
 * phases with events (forgetting the last ones). */
void hx_phase_iter_begin(struct hx_phase_rank *p, int timed, int i, int timing);
/* Ends the iteration's range. */
void hx_phase_iter_end(struct hx_phase_rank *p);

/* Opens a phase: an NVTX range named by fmt and, when timing, an event recorded on s. A
 * phase named "allreduce" is the collective: the transports' round ranges inside it open and
 * close the precondition range. Returns cudaSuccess or the event's error. */
cudaError_t hx_phase_open(struct hx_phase_rank *p, cudaStream_t s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Closes the innermost open phase (its event on s when timing); cudaSuccess or the error. */
cudaError_t hx_phase_close(struct hx_phase_rank *p, cudaStream_t s);

/* After the stream is idle: each timed phase's start and end in us from `origin` (the
 * rank's start event of the chosen iteration, aligned across ranks by the harness), and each
 * marked round's end (sm's and ll's clock stamps placed from the collective's start event). */
cudaError_t hx_phase_collect(struct hx_phase_rank *p, cudaEvent_t origin);

/* The header of phases.csv. */
extern const char hx_phases_header[];

/* What one job's phases.csv lines share. */
struct hx_phase_job {
  const char *run_id, *scenario, *algorithm, *transport;
  uint64_t bytes;
  int iteration;   /* the timed iteration recorded (0-based) */
  double delay_us; /* the largest straggler delay of that iteration (0: none) */
};
/* Writes every rank's phases, then its precondition and rounds when marked, as lines of
 * phases.csv and flushes; returns 0 or -1. */
int hx_phase_write(FILE *f, const struct hx_phase_job *j, const struct hx_phase_rank *const *rk,
                   int n);

#endif
