/* trace.json (--profile timeline): the profiled rows' CUPTI records and the --phases phases in
 * the Chrome trace event format (JSON object form), opened in Perfetto (ui.perfetto.dev) or
 * chrome://tracing.
 * - one process per profiled row ("ring/ce 1 MiB, scenario late"), one thread (track) per rank
 *   and CUDA stream, plus "rank R phases"; records overlapping on one stream without nesting
 *   (CUPTI's times of back-to-back work can touch or cross) go on a second lane of that stream
 *   ("rank 0 stream 7 (2)"), so every track's slices nest as the format requires;
 * - every record is a complete slice (ph "X", ts and dur in us from the run's first profiled
 *   record), named as in timeline.csv (the kernel, or dtod/ptop/htod/dtoh), its category the
 *   timeline's kind (copy, copy-host, reduce, copy+reduce, delay, kernel), its args the CUDA
 *   device, stream, peer rank and bytes;
 * - phases (CUDA events of the last timed iteration, their own clock) are placed so that the
 *   iteration's last phase ends with the row's last copy or sum on any rank.
 * The file is valid JSON after every row (the closing brackets are rewritten as it grows). */
#ifndef HX_TRACE_H
#define HX_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile/profile.h"

#define HX_TRACE_RANKS 64 /* ranks a row may have */

struct hx_trace {
  FILE *f;
  long tail;         /* where the closing brackets start */
  long nev;          /* events written */
  int rows;          /* processes (pids) so far */
  uint64_t t0;       /* ns: the first row's earliest record */
  int have_t0;
  /* the last row, for its phases: identity and last copy/sum end (us, trace clock) */
  char key[256];
  double last_end_us;
  /* phases gathered by hx_trace_phase_add until hx_trace_phases_end */
  struct hx_trace_ph {
    int rank;
    char name[24];
    double a, b;
  } *ph;
  size_t nph, cap;
};

/* Starts a trace on f (opened for writing): the header and closing brackets. 0 or -1. */
int hx_trace_begin(struct hx_trace *t, FILE *f);
/* Appends one row's records (the ranks' GPUs dev[0..n), as hx_timeline_write takes them) as a
 * process of its own. Returns 0, or -1 when out of memory or not written. */
int hx_trace_row(struct hx_trace *t, const struct hx_overlap_job *j, const int *dev, int n,
                 const struct hx_prof_rec *rec, size_t nrec);
/* Phases of one row: begin (its identity), add each (rank, phase, start and end in us from the
 * iteration's start), end (written into the row's process when it is the last row written,
 * else dropped: that row was not profiled). Each returns 0 or -1. */
int hx_trace_phases_begin(struct hx_trace *t, const char *algorithm, const char *transport,
                          uint64_t bytes, const char *scenario);
int hx_trace_phase_add(struct hx_trace *t, int rank, const char *name, double a, double b);
int hx_trace_phases_end(struct hx_trace *t);

/* The run's trace: trace.json beside results_path, opened on the first call that gives a path
 * (hx_timeline_csv's), NULL when none was asked for or it cannot be written (one warning). */
struct hx_trace *hx_trace_run(const char *results_path);

#endif
