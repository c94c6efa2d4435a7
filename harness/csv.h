/* results.csv: the column list of SPEC.md section 5 and one row per measurement (pure C). */
#ifndef HX_CSV_H
#define HX_CSV_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "stats.h"

/* The header line, without the newline: exactly SPEC.md section 5's columns, in order. */
extern const char hx_csv_header[];

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
  long long wrong;
  const char *status; /* ok, n/a, oom, error, timeout */
  double lower_bound_us; /* after status: optcc.txt's lower bound of a degraded row at the
                          * measured healthy bandwidth; empty unless > 0 */
};

/* Writes one CSV field, quoted when it holds a comma, a quote or a line break. */
void hx_csv_field(FILE *f, const char *s);
/* Writes the row as one line (with its newline); returns what fprintf returned last. */
int hx_csv_write_row(FILE *f, const struct hx_csv_row *r);

/* A results file shared by threads: each row is written and flushed under the lock. */
struct hx_csv {
  FILE *f;
  pthread_mutex_t mu;
};
/* Creates path and writes the header; returns 0, or -1 with errno set. */
int hx_csv_open(struct hx_csv *c, const char *path);
/* Appends and flushes one row; returns 0, or -1 when the write failed. */
int hx_csv_append(struct hx_csv *c, const struct hx_csv_row *r);
void hx_csv_close(struct hx_csv *c);

/* The current UTC time as 2026-11-21T10:41:00Z into buf; returns buf. */
char *hx_utc_iso(char *buf, size_t len);

#endif
