/* results.csv writer: the header of docs/csv.md (then lower_bound_us, and for `arbench run`
 * the scenario, --profile overlap, placement, settings and statistics columns), CSV quoting,
 * rows flushed one by one, each after its samples in samples.csv. */
#include "record/csv.h"

#include <math.h>
#include <string.h>
#include <time.h>

const char hx_csv_header[] =
    "run_id,timestamp,host,gpu,n_gpus,driver,cuda,nccl,source,algorithm,transport,pipeline,"
    "dtype,bytes,straggler_rank,delay_us,degraded_rank,factor,iters,time_us_mean,"
    "time_us_median,time_us_min,time_us_max,time_us_p95,time_us_stdev,time_after_arrival_us,"
    "algbw_gbps,busbw_gbps,model_time_us,wrong,status,lower_bound_us";
const char hx_csv_scenario_columns[] = "scenario,stragglers,degraded";
const char hx_csv_profile_columns[] = "overlap_reduce_pct,overlap_delay_pct";
const char hx_csv_placement_column[] = "placement";
const char hx_csv_settings_column[] = "settings";
const char hx_csv_stats_columns[] =
    "row_key,n_samples,time_us_ci_lo,time_us_ci_hi,ci_level_pct,repeat_stop";
const char hx_csv_compute_columns[] =
    "compute,compute_us_median,compute_us_ci_lo,compute_us_ci_hi,allreduce_loaded_us_median,"
    "allreduce_loaded_us_ci_lo,allreduce_loaded_us_ci_hi,compute_loaded_us_median,"
    "compute_loaded_us_ci_lo,compute_loaded_us_ci_hi,span_us_median,span_us_ci_lo,span_us_ci_hi,"
    "allreduce_slowdown,compute_slowdown,hidden_share,compute_wrong,compute_n_samples";
const char hx_samples_header[] = "row_key,sample,time_us";
const char hx_compute_samples_header[] = "row_key,series,sample,time_us";
/* compute_samples.csv's series, in struct hx_csv_compute's samples[] order */
static const char *const compute_series[3] = {"compute", "allreduce_loaded", "compute_loaded"};

void hx_csv_field(FILE *f, const char *s) {
  if (!s) s = "";
  if (!strpbrk(s, ",\"\r\n")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f); /* a quote is doubled inside quotes */
    fputc(*s, f);
  }
  fputc('"', f);
}

/* Writes ",<value>" with 3 decimals, or just "," for NaN (not measured). */
static void put_num(FILE *f, double v) {
  if (isnan(v)) fputc(',', f);
  else fprintf(f, ",%.3f", v);
}

/* Writes "," then a string field. */
static void put_str(FILE *f, const char *s) {
  fputc(',', f);
  hx_csv_field(f, s);
}

/* Writes ",median,ci_lo,ci_hi" of st (empty without values). */
static void put_interval(FILE *f, const struct hx_stats *st) {
  put_num(f, st->n > 0 ? st->median : NAN);
  put_num(f, st->n > 0 ? st->ci_lo : NAN);
  put_num(f, st->n > 0 ? st->ci_hi : NAN);
}

/* Writes hx_csv_compute_columns' fields, each after a comma (all empty without a load). */
static void put_compute(FILE *f, const struct hx_csv_compute *c) {
  static const struct hx_stats none = {0};
  put_str(f, c ? c->load : NULL);
  put_interval(f, c ? &c->alone : &none);
  put_interval(f, c ? &c->loaded : &none);
  put_interval(f, c ? &c->load_loaded : &none);
  put_interval(f, c ? &c->span : &none);
  put_num(f, c ? c->allreduce_slowdown : NAN);
  put_num(f, c ? c->compute_slowdown : NAN);
  put_num(f, c ? c->hidden_share : NAN);
  if (c && c->wrong >= 0) fprintf(f, ",%lld", c->wrong);
  else fputc(',', f);
  if (c && c->alone.n > 0) fprintf(f, ",%d", c->alone.n);
  else fputc(',', f);
}

int hx_csv_write_row(FILE *f, const struct hx_csv_row *r, int scenario_cols) {
  hx_csv_field(f, r->run_id);
  put_str(f, r->timestamp);
  put_str(f, r->host);
  put_str(f, r->gpu);
  fprintf(f, ",%d", r->n_gpus);
  put_str(f, r->driver);
  put_str(f, r->cuda);
  put_str(f, r->nccl);
  put_str(f, r->source);
  put_str(f, r->algorithm);
  put_str(f, r->transport);
  fprintf(f, ",%d", r->pipeline);
  put_str(f, r->dtype);
  fprintf(f, ",%llu,%d", (unsigned long long)r->bytes, r->straggler_rank);
  put_num(f, r->delay_us);
  fprintf(f, ",%d,%g,%d", r->degraded_rank, r->factor, r->iters);
  int have = r->t.n > 0;
  put_num(f, have ? r->t.mean : NAN);
  put_num(f, have ? r->t.median : NAN);
  put_num(f, have ? r->t.min : NAN);
  put_num(f, have ? r->t.max : NAN);
  put_num(f, have ? r->t.p95 : NAN);
  put_num(f, have ? r->t.stdev : NAN);
  put_num(f, r->time_after_arrival_us);
  put_num(f, r->algbw_gbps);
  put_num(f, r->busbw_gbps);
  put_num(f, r->model_time_us);
  if (r->wrong >= 0) fprintf(f, ",%lld", r->wrong);
  else fputc(',', f);
  put_str(f, r->status);
  put_num(f, r->lower_bound_us > 0 ? r->lower_bound_us : NAN);
  if (scenario_cols) {
    put_str(f, r->scenario);
    put_str(f, r->stragglers);
    put_str(f, r->degraded);
    put_num(f, r->profiled ? r->overlap_reduce_pct : NAN);
    put_num(f, r->profiled ? r->overlap_delay_pct : NAN);
    put_str(f, r->placement);
    put_str(f, r->settings);
    int sampled = r->samples && have;
    fprintf(f, ",%ld", r->row_key);
    if (sampled) fprintf(f, ",%d", r->t.n);
    else fputc(',', f);
    put_num(f, sampled ? r->t.ci_lo : NAN);
    put_num(f, sampled ? r->t.ci_hi : NAN);
    put_num(f, sampled ? r->t.ci_level : NAN);
    put_str(f, sampled ? r->repeat_stop : NULL);
    put_compute(f, r->compute);
  }
  return fputc('\n', f) == EOF ? -1 : 0;
}

/* Creates path with the header (and the scenario columns when asked); 0, or -1 (errno). */
static int csv_create(struct hx_csv *c, const char *path, int scenario_cols) {
  c->f = fopen(path, "w");
  c->samples = c->compute = NULL;
  c->rows = 0;
  if (!c->f) return -1;
  /* a row (far below 64 KiB) leaves in one write() at its fflush: a kill never cuts one */
  setvbuf(c->f, NULL, _IOFBF, 1 << 16);
  pthread_mutex_init(&c->mu, NULL);
  c->scenario_cols = scenario_cols;
  snprintf(c->path, sizeof(c->path), "%s", path);
  if (scenario_cols)
    fprintf(c->f, "%s,%s,%s,%s,%s,%s,%s\n", hx_csv_header, hx_csv_scenario_columns,
            hx_csv_profile_columns, hx_csv_placement_column, hx_csv_settings_column,
            hx_csv_stats_columns, hx_csv_compute_columns);
  else fprintf(c->f, "%s\n", hx_csv_header);
  fflush(c->f);
  return 0;
}

int hx_csv_open(struct hx_csv *c, const char *path) { return csv_create(c, path, 0); }

int hx_csv_open_run(struct hx_csv *c, const char *path) { return csv_create(c, path, 1); }

FILE *hx_csv_beside(const char *results_path, const char *name, const char *header) {
  char path[1200];
  const char *slash = strrchr(results_path, '/');
  if (slash) snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - results_path), results_path, name);
  else snprintf(path, sizeof(path), "%s", name);
  FILE *f = fopen(path, "w");
  if (!f) return NULL;
  setvbuf(f, NULL, _IOFBF, 1 << 16);
  if (fprintf(f, "%s\n", header) >= 0 && !fflush(f)) return f;
  fclose(f);
  return NULL;
}

int hx_csv_open_samples(struct hx_csv *c) {
  c->samples = hx_csv_beside(c->path, "samples.csv", hx_samples_header);
  return c->samples ? 0 : -1;
}

/* Writes row key's load samples to compute_samples.csv (made now at the first); 0 or -1. */
static int write_compute_samples(struct hx_csv *c, long key, const struct hx_csv_compute *x) {
  if (!c->compute &&
      !(c->compute = hx_csv_beside(c->path, "compute_samples.csv", hx_compute_samples_header)))
    return -1;
  for (int s = 0; s < 3; s++)
    for (int i = 0; x->samples[s] && i < x->alone.n; i++)
      fprintf(c->compute, "%ld,%s,%d,%.3f\n", key, compute_series[s], i + 1, x->samples[s][i]);
  return fflush(c->compute) || ferror(c->compute) ? -1 : 0;
}

/* Writes row key's samples, one line each, and flushes them; 0, or -1 when a write failed. */
static int write_samples(FILE *f, long key, const double *x, int n) {
  for (int i = 0; i < n; i++) fprintf(f, "%ld,%d,%.3f\n", key, i + 1, x[i]);
  return fflush(f) || ferror(f) ? -1 : 0;
}

int hx_csv_append(struct hx_csv *c, const struct hx_csv_row *r) {
  if (!c->f) return -1;
  pthread_mutex_lock(&c->mu);
  struct hx_csv_row w = *r;
  w.row_key = ++c->rows;
  int rc = 0;
  if (!c->samples || !w.samples || w.t.n < 1) w.samples = NULL; /* no lines, and it says so */
  else if (write_samples(c->samples, w.row_key, w.samples, w.t.n)) rc = -1, w.samples = NULL;
  if (c->scenario_cols && w.compute && w.compute->alone.n > 0 &&
      write_compute_samples(c, w.row_key, w.compute))
    rc = -1;
  if (hx_csv_write_row(c->f, &w, c->scenario_cols)) rc = -1;
  if (fflush(c->f)) rc = -1;
  pthread_mutex_unlock(&c->mu);
  return rc;
}

void hx_csv_close(struct hx_csv *c) {
  if (!c->f) return;
  pthread_mutex_lock(&c->mu);
  fclose(c->f);
  c->f = NULL;
  if (c->samples) fclose(c->samples);
  if (c->compute) fclose(c->compute);
  c->samples = c->compute = NULL;
  pthread_mutex_unlock(&c->mu);
}

char *hx_utc_iso(char *buf, size_t len) {
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}
