/* --profile overlap and timeline, the pure half (see profile.h): unions and intersections of
 * intervals, kernel classes by name, per-rank figures, overlap.csv and timeline.csv. No CUDA:
 * the CPU tests compile it. */
#include "profile/profile.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ar.h"
#include "record/csv.h"

const char hx_overlap_header[] =
    "run_id,algorithm,transport,bytes,scenario,rank,copy_us,reduce_us,delay_us,"
    "overlap_reduce_pct,overlap_delay_pct,iterations";
const char hx_timeline_header[] = "run_id,algorithm,transport,bytes,scenario,rank,kind,name,"
                                  "start_us,end_us,peer,copy_bytes,stream";

/* qsort order of intervals: by start, then by end. */
static int ival_cmp(const void *pa, const void *pb) {
  const struct hx_ival *a = pa, *b = pb;
  if (a->start != b->start) return a->start < b->start ? -1 : 1;
  return a->end < b->end ? -1 : a->end > b->end;
}

size_t hx_ival_union(struct hx_ival *v, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) /* the empty ones go first */
    if (v[i].end > v[i].start) v[k++] = v[i];
  if (k < 2) return k;
  qsort(v, k, sizeof(*v), ival_cmp);
  size_t m = 0;
  for (size_t i = 1; i < k; i++) {
    if (v[i].start <= v[m].end) { /* overlaps or touches the current one: extend it */
      if (v[i].end > v[m].end) v[m].end = v[i].end;
    } else {
      v[++m] = v[i];
    }
  }
  return m + 1;
}

uint64_t hx_ival_length(const struct hx_ival *v, size_t n) {
  uint64_t t = 0;
  for (size_t i = 0; i < n; i++)
    t += v[i].end - v[i].start;
  return t;
}

uint64_t hx_ival_overlap(const struct hx_ival *a, size_t na, const struct hx_ival *b, size_t nb) {
  uint64_t t = 0;
  size_t i = 0, j = 0;
  while (i < na && j < nb) {
    uint64_t lo = a[i].start > b[j].start ? a[i].start : b[j].start;
    uint64_t hi = a[i].end < b[j].end ? a[i].end : b[j].end;
    if (hi > lo) t += hi - lo;
    if (a[i].end < b[j].end)
      i++; /* the one that ends first cannot meet anything further */
    else
      j++;
  }
  return t;
}

/* Returns the classes of one identifier of a kernel's name (0: none of ours). */
static unsigned ident_class(const char *s, size_t len) {
  if (len == 12 && !memcmp(s, "delay_kernel", 12)) return HX_PROF_DELAY;
  if (len == 10 && !memcmp(s, "sum_kernel", 10)) return HX_PROF_REDUCE;
  /* sm_kernel and sm_kernel_marked (tp_sm.cu): loads peer memory and sums in one pass */
  if (len >= 9 && !memcmp(s, "sm_kernel", 9) && (len == 9 || s[9] == '_'))
    return HX_PROF_COPY | HX_PROF_REDUCE;
  /* llk_kernel (tp_ll.cu, the ll transport): pushes into peers' slots and sums its own */
  if (len == 10 && !memcmp(s, "llk_kernel", 10)) return HX_PROF_COPY | HX_PROF_REDUCE;
  /* ll_kernel and ll_kernel_line (tp_sm_oneshot.cu, sm's low-latency oneshot): push their lines to
   * peers, sum theirs */
  if ((len == 9 && !memcmp(s, "ll_kernel", 9)) || (len == 14 && !memcmp(s, "ll_kernel_line", 14)))
    return HX_PROF_COPY | HX_PROF_REDUCE;
  if (len >= 4 && !memcmp(s, "nccl", 4)) return HX_PROF_COPY;
  return 0;
}

/* Returns 1 for a character of a C identifier. */
static int ident_char(char c) {
  return isalnum((unsigned char)c) || c == '_';
}

unsigned hx_profile_kernel_class(const char *name) {
  if (!name) return 0;
  size_t len = strlen(name);
  if (len > 2 && name[0] == '_' && name[1] == 'Z') {
    /* Itanium mangling: identifiers are <length><name>; the first one we know decides (the
     * function's own name comes before its parameters' types) */
    size_t after = 2; /* where the last identifier ended: a length may follow its digits */
    for (size_t i = 2; i < len;) {
      if (!isdigit((unsigned char)name[i]) || (i != after && isdigit((unsigned char)name[i - 1]))) {
        i++;
        continue;
      }
      size_t k = i, l = 0;
      while (k < len && isdigit((unsigned char)name[k]) && l < 100000)
        l = l * 10 + (size_t)(name[k++] - '0');
      if (l > 0 && l <= len - k) {
        unsigned c = ident_class(name + k, l);
        if (c) return c;
        i = after = k + l; /* skip the identifier: its own digits are not lengths */
      } else {
        i = k;
      }
    }
    return 0;
  }
  /* plain or demangled ("void ns::sum_kernel<float>(float*, ...)"): the last identifier
   * before the template arguments or the parameters */
  const char *best = NULL;
  size_t best_len = 0;
  for (size_t i = 0; i < len && name[i] != '<' && name[i] != '(';) {
    if (!ident_char(name[i])) {
      i++;
      continue;
    }
    size_t k = i;
    while (k < len && ident_char(name[k]))
      k++;
    best = name + i;
    best_len = k - i;
    i = k;
  }
  return best ? ident_class(best, best_len) : 0;
}

/* Appends the intervals of the records on `device` (any device of dev[0..n) when device < 0)
 * that have class bit `cls` to v; returns the new count. */
static size_t gather(const struct hx_prof_rec *rec, size_t nrec, long device, const int *dev, int n,
                     unsigned cls, struct hx_ival *v) {
  size_t k = 0;
  for (size_t i = 0; i < nrec; i++) {
    if (!(rec[i].cls & cls)) continue;
    int in = device >= 0 ? rec[i].device == (uint32_t)device : 0;
    for (int r = 0; device < 0 && r < n && !in; r++)
      in = rec[i].device == (uint32_t)dev[r];
    if (!in) continue;
    v[k].start = rec[i].start;
    v[k].end = rec[i].end;
    k++;
  }
  return k;
}

int hx_overlap_compute(const struct hx_prof_rec *rec, size_t nrec, const int *dev, int n, int iters,
                       struct hx_overlap *ov) {
  size_t cap = nrec ? nrec : 1;
  struct hx_ival *copy = malloc(cap * sizeof(*copy)), *red = malloc(cap * sizeof(*red));
  struct hx_ival *own = malloc(cap * sizeof(*own)), *delay = malloc(cap * sizeof(*delay));
  int rc = copy && red && own && delay ? 0 : -1;
  if (iters < 1) iters = 1;
  if (!rc) {
    /* the injected delay, wherever it ran: the straggler's GPU */
    size_t nd = hx_ival_union(delay, gather(rec, nrec, -1, dev, n, HX_PROF_DELAY, delay));
    for (int r = 0; r < n; r++) {
      size_t nc = hx_ival_union(copy, gather(rec, nrec, dev[r], dev, n, HX_PROF_COPY, copy));
      size_t nr = hx_ival_union(red, gather(rec, nrec, dev[r], dev, n, HX_PROF_REDUCE, red));
      size_t no = hx_ival_union(own, gather(rec, nrec, dev[r], dev, n, HX_PROF_DELAY, own));
      uint64_t c = hx_ival_length(copy, nc);
      ov[r].copy_us = c / 1e3 / iters;
      ov[r].reduce_us = hx_ival_length(red, nr) / 1e3 / iters;
      ov[r].delay_us = hx_ival_length(own, no) / 1e3 / iters;
      ov[r].reduce_pct = c ? 100.0 * hx_ival_overlap(copy, nc, red, nr) / c : NAN;
      ov[r].delay_pct = c ? 100.0 * hx_ival_overlap(copy, nc, delay, nd) / c : NAN;
    }
  }
  free(copy);
  free(red);
  free(own);
  free(delay);
  return rc;
}

void hx_overlap_mean(const struct hx_overlap *ov, int n, double *reduce_pct, double *delay_pct) {
  double sr = 0, sd = 0;
  int kr = 0, kd = 0;
  for (int r = 0; r < n; r++) {
    if (!isnan(ov[r].reduce_pct)) sr += ov[r].reduce_pct, kr++;
    if (!isnan(ov[r].delay_pct)) sd += ov[r].delay_pct, kd++;
  }
  *reduce_pct = kr ? sr / kr : NAN;
  *delay_pct = kd ? sd / kd : NAN;
}

/* Writes ",<value>" with 3 decimals, or "," for NaN (not defined). */
static void ov_num(FILE *f, double v) {
  if (isnan(v))
    fputc(',', f);
  else
    fprintf(f, ",%.3f", v);
}

/* Writes what every line of a row shares in overlap.csv and timeline.csv: run_id, algorithm,
 * transport, bytes, scenario and the rank (no trailing comma). */
static void job_prefix(FILE *f, const struct hx_overlap_job *j, int rank) {
  hx_csv_field(f, j->run_id);
  fputc(',', f);
  hx_csv_field(f, j->algorithm);
  fputc(',', f);
  hx_csv_field(f, j->transport);
  fprintf(f, ",%llu,", (unsigned long long)j->bytes);
  hx_csv_field(f, j->scenario ? j->scenario : "");
  fprintf(f, ",%d", rank);
}

int hx_overlap_write(FILE *f, const struct hx_overlap_job *j, const struct hx_overlap *ov, int n) {
  if (!f) return 0;
  int rc = 0;
  for (int r = 0; r < n; r++) {
    job_prefix(f, j, r);
    ov_num(f, ov[r].copy_us);
    ov_num(f, ov[r].reduce_us);
    ov_num(f, ov[r].delay_us);
    ov_num(f, ov[r].reduce_pct);
    ov_num(f, ov[r].delay_pct);
    if (fprintf(f, ",%d\n", j->iterations) < 0) rc = -1;
  }
  if (fflush(f)) rc = -1;
  return rc;
}

/* Creates `file` beside results_path with its header line; returns it, or NULL after one
 * warning naming `flag` and `still` (what the run writes anyway). */
static FILE *open_beside(const char *results_path, const char *file, const char *header,
                         const char *flag, const char *still) {
  FILE *f = hx_csv_beside(results_path, file, header);
  if (!f) ar_log(AR_LOG_WARN, "%s: cannot write %s beside %s; %s", flag, file, results_path, still);
  return f;
}

/* A file opened once per process (the first call) and shared by every later one. */
struct beside_once {
  FILE *f;
  int tried;
};

/* open_beside on o's first call only; its file (or NULL) every time. */
static FILE *open_once(struct beside_once *o, const char *results_path, const char *name,
                       const char *header, const char *flag, const char *still) {
  if (!o->tried++) o->f = open_beside(results_path, name, header, flag, still);
  return o->f;
}

FILE *hx_overlap_csv(const char *results_path) {
  static struct beside_once o;
  return open_once(&o, results_path, "overlap.csv", hx_overlap_header, "--profile overlap",
                   "the overlap columns of results.csv are still written");
}

FILE *hx_timeline_csv(const char *results_path) {
  static struct beside_once o;
  return open_once(&o, results_path, "timeline.csv", hx_timeline_header, "--profile timeline",
                   "the overlap columns and overlap.csv are still written");
}

/* Returns the rank whose CUDA ordinal is device (dev[0..n)), or -1 for none. */
static int rank_of(int64_t device, const int *dev, int n) {
  for (int r = 0; r < n; r++)
    if (device >= 0 && dev[r] == device) return r;
  return -1;
}

const char *hx_timeline_kind(const struct hx_prof_rec *r) {
  switch (r->kind) {
  case HX_REC_DTOD:
  case HX_REC_PTOP: return "copy";
  case HX_REC_HTOD:
  case HX_REC_DTOH: return "copy-host";
  default: break;
  }
  unsigned c = r->cls & (HX_PROF_COPY | HX_PROF_REDUCE | HX_PROF_DELAY);
  if (c == (HX_PROF_COPY | HX_PROF_REDUCE)) return "copy+reduce"; /* the sm kernel */
  if (c == HX_PROF_REDUCE) return "reduce";
  if (c == HX_PROF_DELAY) return "delay";
  if (c == HX_PROF_COPY) return "copy"; /* NCCL's kernels move the data */
  return "kernel";
}

const char *hx_timeline_name(const struct hx_prof_rec *r) {
  static const char *const copies[] = {NULL, "dtod", "ptop", "htod", "dtoh"};
  if (r->kind > HX_REC_KERNEL && r->kind <= HX_REC_DTOH) return copies[r->kind];
  return r->name;
}

/* One timeline line to sort: the record's start, rank, end and place in the input. */
struct tl_ent {
  uint64_t start, end;
  int rank;
  size_t i;
};

/* qsort order of timeline lines: by start, rank, end, then input order (a total order, so
 * equal records keep theirs). */
static int tl_cmp(const void *pa, const void *pb) {
  const struct tl_ent *a = pa, *b = pb;
  if (a->start != b->start) return a->start < b->start ? -1 : 1;
  if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
  if (a->end != b->end) return a->end < b->end ? -1 : 1;
  return a->i < b->i ? -1 : a->i > b->i;
}

int hx_timeline_write(FILE *f, const struct hx_overlap_job *j, const int *dev, int n,
                      const struct hx_prof_rec *rec, size_t nrec) {
  if (!f) return 0;
  struct tl_ent *e = malloc((nrec ? nrec : 1) * sizeof(*e));
  if (!e) return -1;
  size_t k = 0;
  for (size_t i = 0; i < nrec; i++) {
    int r = rank_of(rec[i].device, dev, n);
    if (r < 0) continue; /* another GPU's: not this run's */
    /* an end before the start (CUPTI could not time it) is drawn as an instant */
    uint64_t end = rec[i].end > rec[i].start ? rec[i].end : rec[i].start;
    e[k++] = (struct tl_ent){rec[i].start, end, r, i};
  }
  qsort(e, k, sizeof(*e), tl_cmp);
  int rc = 0;
  uint64_t t0 = k ? e[0].start : 0; /* the earliest start: sorted first */
  for (size_t m = 0; m < k; m++) {
    const struct hx_prof_rec *r = &rec[e[m].i];
    job_prefix(f, j, e[m].rank);
    fprintf(f, ",%s,", hx_timeline_kind(r));
    hx_csv_field(f, hx_timeline_name(r));
    int peer = r->kind == HX_REC_PTOP ? rank_of(r->peer, dev, n) : -1;
    if (fprintf(f, ",%.3f,%.3f,%d,%llu,%u\n", (e[m].start - t0) / 1e3, (e[m].end - t0) / 1e3,
                peer, r->kind == HX_REC_KERNEL ? 0ull : (unsigned long long)r->bytes,
                (unsigned)r->stream) < 0)
      rc = -1;
  }
  free(e);
  if (fflush(f)) rc = -1;
  return rc;
}
