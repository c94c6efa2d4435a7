/* results.csv: the columns of docs/csv.md and one row per measurement (pure C). */
#ifndef HX_CSV_H
#define HX_CSV_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "record/stats.h"

/* The header line, without the newline: the 31 fixed columns of docs/csv.md, in order, then
 * lower_bound_us. `arbench model --csv` writes this header (hx_csv_open). */
extern const char hx_csv_header[];
/* The columns `arbench run`'s results.csv adds after those (hx_csv_open_run), without the
 * leading comma: scenario (the config's [scenario NAME], empty for a plain command line),
 * stragglers and degraded (every straggler as RANK:DELAY_US and every degraded GPU as
 * RANK:FACTOR, joined by ';': the fixed columns name only the first of each). */
extern const char hx_csv_scenario_columns[];
/* Then (hx_csv_open_run's files only) the --profile overlap columns: overlap_reduce_pct and
 * overlap_delay_pct, the mean over the ranks of the share of copy time that ran concurrently
 * with reduction kernels and with the straggler's delay (harness/profile/profile.h); empty for
 * a row that was not profiled. */
extern const char hx_csv_profile_columns[];
/* Last (hx_csv_open_run's files only): placement, how many ranks shared a GPU ("1 rank/GPU",
 * "4 ranks/GPU", "2-3 ranks/GPU"; src/placement.h). Co-located rows time one GPU's memory
 * system, not NVLink. */
extern const char hx_csv_placement_column[];
/* Then settings: the tuning settings given with --set, as "name=value;name=value" (empty:
 * every default; settings.h). */
extern const char hx_csv_settings_column[];
/* Last (hx_csv_open_run's files only; docs/statistics.md): row_key (every row's number in the
 * file, 1, 2, ...: samples.csv's key), n_samples, time_us_ci_lo, time_us_ci_hi and
 * ci_level_pct (the median's 95% interval from order statistics and its exact coverage) and
 * repeat_stop (fixed, target, budget or max); all but row_key empty on a row without samples. */
extern const char hx_csv_stats_columns[];
/* Last of all (hx_csv_open_run's files only; docs/csv.md): --compute's columns: the load as
 * run (compute), the median and interval of the load alone, of the AllReduce beside it, of the
 * load beside the AllReduce and of the span of both, the two slowdowns, the share of the
 * AllReduce hidden behind the load, the load's wrong elements and its samples; all empty on a
 * row without a load. */
extern const char hx_csv_compute_columns[];
/* The header of samples.csv: every sample of every row that has them, keyed by row_key. */
extern const char hx_samples_header[];
/* The header of compute_samples.csv (beside results.csv, made at the first row with a load):
 * each of its samples in the series compute (the load alone), allreduce_loaded and
 * compute_loaded (the AllReduce and the load of one iteration with both), keyed by row_key. */
extern const char hx_compute_samples_header[];

/* A row's --compute figures (struct hx_csv_row's compute; NULL: no load). */
struct hx_csv_compute {
  const char *load;          /* the load as sized: ar_compute_text */
  struct hx_stats alone, loaded, load_loaded, span; /* us; `loaded`: the AllReduce beside it */
  double allreduce_slowdown, compute_slowdown, hidden_share;
  long long wrong;           /* the load's worst iteration's wrong elements; < 0: not checked */
  const double *samples[3];  /* alone, loaded, load_loaded: alone.n each (compute_samples.csv) */
};

/* One row. NaN doubles, negative `wrong` and a zero t.n leave their fields empty. */
struct hx_csv_row {
  const char *run_id, *timestamp, *host, *gpu;
  int n_gpus;
  const char *driver, *cuda, *nccl, *source, *algorithm, *transport;
  int pipeline;
  const char *dtype;
  uint64_t bytes;
  int straggler_rank;
  double delay_us;
  int degraded_rank;
  double factor;
  int iters;
  struct hx_stats t; /* per-AllReduce times, us */
  double time_after_arrival_us, algbw_gbps, busbw_gbps, model_time_us;
  long long wrong; /* the most wrong elements of one iteration (over the ranks), warm-up
                    * iterations included */
  const char *status; /* ok, n/a, oom, error, timeout */
  double lower_bound_us; /* after status: optcc.txt's lower bound of a degraded row at the
                          * measured healthy bandwidth; empty unless > 0 */
  /* hx_csv_scenario_columns (written by hx_csv_open_run's files only; NULL: empty) */
  const char *scenario, *stragglers, *degraded;
  /* hx_csv_profile_columns: written when profiled is set (NaN: empty) */
  int profiled;
  double overlap_reduce_pct, overlap_delay_pct;
  const char *placement; /* hx_csv_placement_column (NULL: empty) */
  const char *settings;  /* hx_csv_settings_column (NULL: empty) */
  /* hx_csv_stats_columns: the samples t was computed from (NULL: none; n/a, oom and timeout
   * rows), written to samples.csv before the row; t.n of them */
  const double *samples;
  const char *repeat_stop; /* hx_repeat_stop_name (NULL: empty) */
  long row_key;            /* set by hx_csv_append */
  const struct hx_csv_compute *compute; /* hx_csv_compute_columns (NULL: empty) */
};

/* Writes one CSV field, quoted when it holds a comma, a quote or a line break. */
void hx_csv_field(FILE *f, const char *s);
/* Writes the row as one line (with its newline), with hx_csv_scenario_columns,
 * hx_csv_profile_columns, hx_csv_placement_column, hx_csv_settings_column,
 * hx_csv_stats_columns and hx_csv_compute_columns when scenario_cols is set; returns 0, or -1
 * when the write failed. */
int hx_csv_write_row(FILE *f, const struct hx_csv_row *r, int scenario_cols);

/* A results file shared by threads: each row is written and flushed under the lock. */
struct hx_csv {
  FILE *f;
  FILE *samples; /* samples.csv beside it (hx_csv_open_samples), or NULL */
  FILE *compute; /* compute_samples.csv beside it, from the first row with a load; or NULL */
  pthread_mutex_t mu;
  int scenario_cols; /* the file has hx_csv_scenario_columns and the columns after them */
  long rows;         /* rows appended: the last row_key */
  char path[1100];   /* where it was created (files written next to it: overlap.csv) */
};
/* Creates path and writes hx_csv_header; returns 0, or -1 with errno set. */
int hx_csv_open(struct hx_csv *c, const char *path);
/* Creates path and writes hx_csv_header, hx_csv_scenario_columns, then
 * hx_csv_profile_columns (results.csv of `arbench run`); returns 0, or -1 with errno set. */
int hx_csv_open_run(struct hx_csv *c, const char *path);
/* Creates `name` in the folder of results_path (a results.csv) with its header line, flushed
 * (a full buffer: each flush leaves in one write); the file, or NULL (errno). */
FILE *hx_csv_beside(const char *results_path, const char *name, const char *header);
/* Creates samples.csv beside a file of hx_csv_open_run, with its header; 0, or -1 (errno). */
int hx_csv_open_samples(struct hx_csv *c);
/* Appends and flushes one row, numbered by the next row_key: its samples (when it has them
 * and samples.csv is open) first, and a row with a load's in compute_samples.csv, written and
 * flushed, so that a row with n_samples always has its lines; returns 0, or -1 when a write
 * failed. */
int hx_csv_append(struct hx_csv *c, const struct hx_csv_row *r);
void hx_csv_close(struct hx_csv *c);

/* The current UTC time as 2026-11-21T10:41:00Z into buf; returns buf. */
char *hx_utc_iso(char *buf, size_t len);

#endif
