/* trace.json in the Chrome trace event format: see trace.h. Pure C (no CUDA): the CPU tests
 * compile it in. */
#include "profile/trace.h"

#include <stdlib.h>
#include <string.h>

#include "ar.h"

/* One slice to place: its track (rank and stream; stream -1: the phases), interval in us and
 * the record or phase it comes from. */
struct slot {
  int rank;
  long stream;
  double a, b;
  size_t i;
  int lane, tid;
};

/* qsort order: by track, start, longer first (a parent before what it holds), input order. */
static int slot_cmp(const void *pa, const void *pb) {
  const struct slot *x = pa, *y = pb;
  if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
  if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
  if (x->a != y->a) return x->a < y->a ? -1 : 1;
  if (x->b != y->b) return x->b > y->b ? -1 : 1;
  return x->i < y->i ? -1 : x->i > y->i;
}

/* Sorts s[0..n) and gives each a lane of its track in which it nests: a slice goes on the
 * first lane whose open slices (those not ended by its start) all contain it. Returns 0, or
 * -1 when out of memory. */
static int place(struct slot *s, size_t n) {
  qsort(s, n, sizeof(*s), slot_cmp);
  /* each lane: the ends of its open slices, innermost last */
  size_t cap = 8, nl = 0;
  struct lane {
    double *end;
    size_t d, cap;
  } *ln = calloc(cap, sizeof(*ln));
  if (!ln) return -1;
  int rc = 0;
  for (size_t k = 0; k < n && !rc; k++) {
    if (k == 0 || s[k].rank != s[k - 1].rank || s[k].stream != s[k - 1].stream)
      for (size_t l = 0; l < nl; l++) ln[l].d = 0; /* a new track: every lane empty */
    size_t l = 0;
    for (; l < nl; l++) {
      while (ln[l].d && ln[l].end[ln[l].d - 1] <= s[k].a) ln[l].d--;
      if (!ln[l].d || ln[l].end[ln[l].d - 1] >= s[k].b) break;
    }
    if (l == nl) {
      if (nl == cap) {
        struct lane *m = realloc(ln, 2 * cap * sizeof(*ln));
        if (!m) { rc = -1; break; }
        memset(m + cap, 0, cap * sizeof(*m));
        ln = m, cap *= 2;
      }
      nl++;
    }
    if (ln[l].d == ln[l].cap) {
      size_t c = ln[l].cap ? 2 * ln[l].cap : 8;
      double *m = realloc(ln[l].end, c * sizeof(*m));
      if (!m) { rc = -1; break; }
      ln[l].end = m, ln[l].cap = c;
    }
    ln[l].end[ln[l].d++] = s[k].b;
    s[k].lane = (int)l;
  }
  for (size_t l = 0; l < cap; l++) free(ln[l].end);
  free(ln);
  return rc;
}

/* Writes bytes in binary units ("1 MiB", "1000003 B") into buf. */
static void size_label(char *buf, size_t len, uint64_t b) {
  static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (u < 4 && b >= 1024 && b % 1024 == 0) b /= 1024, u++;
  snprintf(buf, len, "%llu %s", (unsigned long long)b, unit[u]);
}

/* Writes s as a JSON string. */
static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

/* Starts an event: the comma between events, and the file positioned where the tail was. */
static void ev_open(struct hx_trace *t) {
  fputs(t->nev++ ? ",\n" : "\n", t->f);
}

/* Writes the closing brackets after the events and flushes; returns 0 or -1. */
static int close_tail(struct hx_trace *t) {
  t->tail = ftell(t->f);
  fputs("\n]}\n", t->f);
  return fflush(t->f) || ferror(t->f) ? -1 : 0;
}

/* A metadata event (ph "M") naming or ordering a process (tid < 0) or a thread. */
static void meta(struct hx_trace *t, const char *what, int pid, int tid, const char *name, int sort) {
  ev_open(t);
  fprintf(t->f, "{\"ph\":\"M\",\"pid\":%d,", pid);
  if (tid >= 0) fprintf(t->f, "\"tid\":%d,", tid);
  fprintf(t->f, "\"name\":\"%s\",\"args\":{", what);
  if (name) {
    fputs("\"name\":", t->f);
    json_str(t->f, name);
  } else
    fprintf(t->f, "\"sort_index\":%d", sort);
  fputs("}}", t->f);
}

int hx_trace_begin(struct hx_trace *t, FILE *f) {
  memset(t, 0, sizeof(*t));
  t->f = f;
  fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"arbench --profile timeline\","
        "\"clock\":\"CUPTI, us from the first profiled record\"},\"traceEvents\":[",
        f);
  return close_tail(t);
}

/* Gives each slot its thread: one per (rank, stream, lane) in order, named and sorted by
 * metadata events; returns the threads made. */
static int threads(struct hx_trace *t, int pid, struct slot *s, size_t n) {
  int tid = 0;
  for (size_t k = 0; k < n; k++) {
    size_t m = 0;
    for (; m < k; m++)
      if (s[m].rank == s[k].rank && s[m].stream == s[k].stream && s[m].lane == s[k].lane) break;
    if (m < k) {
      s[k].tid = s[m].tid;
      continue;
    }
    s[k].tid = ++tid;
    char name[96];
    int c = s[k].stream < 0 ? snprintf(name, sizeof(name), "rank %d phases", s[k].rank)
                            : snprintf(name, sizeof(name), "rank %d stream %ld", s[k].rank, s[k].stream);
    if (s[k].lane > 0 && c > 0 && (size_t)c < sizeof(name))
      snprintf(name + c, sizeof(name) - (size_t)c, " (%d)", s[k].lane + 1);
    meta(t, "thread_name", pid, tid, name, 0);
    meta(t, "thread_sort_index", pid, tid, NULL, s[k].rank * 1000 + tid);
  }
  return tid;
}

/* rank_of as profile.c's: the rank whose CUDA ordinal is device, or -1. */
static int trace_rank(int64_t device, const int *dev, int n) {
  for (int r = 0; r < n; r++)
    if (device >= 0 && dev[r] == device) return r;
  return -1;
}

int hx_trace_row(struct hx_trace *t, const struct hx_overlap_job *j, const int *dev, int n,
                 const struct hx_prof_rec *rec, size_t nrec) {
  if (!t || !t->f) return 0;
  struct slot *s = malloc((nrec ? nrec : 1) * sizeof(*s));
  if (!s) return -1;
  size_t k = 0;
  uint64_t lo = 0;
  for (size_t i = 0; i < nrec; i++) {
    int r = trace_rank(rec[i].device, dev, n);
    if (r < 0) continue; /* another GPU's: not this run's */
    if (!t->have_t0 && (!k || rec[i].start < lo)) lo = rec[i].start;
    s[k++] = (struct slot){r, (long)rec[i].stream, 0, 0, i, 0, 0};
  }
  if (!t->have_t0 && k) t->t0 = lo, t->have_t0 = 1; /* the origin: the first row's earliest */
  double last = 0;
  for (size_t m = 0; m < k; m++) {
    const struct hx_prof_rec *p = &rec[s[m].i];
    uint64_t end = p->end > p->start ? p->end : p->start;
    /* a later row's record before the origin (clocks apart) sits at 0 */
    s[m].a = p->start > t->t0 ? (p->start - t->t0) / 1e3 : 0;
    s[m].b = end > t->t0 ? (end - t->t0) / 1e3 : 0;
    if (p->cls & (HX_PROF_COPY | HX_PROF_REDUCE) && s[m].b > last) last = s[m].b;
  }
  if (place(s, k)) {
    free(s);
    return -1;
  }
  if (fseek(t->f, t->tail, SEEK_SET)) {
    free(s);
    return -1;
  }
  int pid = ++t->rows;
  char name[256];
  int nccl = !strcmp(j->algorithm, "nccl");
  snprintf(name, sizeof(name), "%s%s%s ", j->algorithm, nccl ? "" : "/", nccl ? "" : j->transport);
  size_label(name + strlen(name), sizeof(name) - strlen(name), j->bytes);
  if (j->scenario && *j->scenario)
    snprintf(name + strlen(name), sizeof(name) - strlen(name), ", scenario %s", j->scenario);
  snprintf(t->key, sizeof(t->key), "%s|%s|%llu|%s", j->algorithm, j->transport,
           (unsigned long long)j->bytes, j->scenario ? j->scenario : "");
  meta(t, "process_name", pid, -1, name, 0);
  meta(t, "process_sort_index", pid, -1, NULL, pid);
  threads(t, pid, s, k);
  for (size_t m = 0; m < k; m++) {
    const struct hx_prof_rec *p = &rec[s[m].i];
    ev_open(t);
    fputs("{\"ph\":\"X\",\"name\":", t->f);
    json_str(t->f, hx_timeline_name(p)[0] ? hx_timeline_name(p) : hx_timeline_kind(p));
    fputs(",\"cat\":", t->f);
    json_str(t->f, hx_timeline_kind(p));
    fprintf(t->f, ",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"rank\":%d,\"device\":%u,"
                  "\"stream\":%u",
            pid, s[m].tid, s[m].a, s[m].b - s[m].a, s[m].rank, (unsigned)p->device, (unsigned)p->stream);
    if (p->kind == HX_REC_PTOP) fprintf(t->f, ",\"peer\":%d", trace_rank(p->peer, dev, n));
    if (p->kind != HX_REC_KERNEL) fprintf(t->f, ",\"bytes\":%llu", (unsigned long long)p->bytes);
    fputs("}}", t->f);
  }
  free(s);
  t->last_end_us = last;
  return close_tail(t);
}

int hx_trace_phases_begin(struct hx_trace *t, const char *algorithm, const char *transport,
                          uint64_t bytes, const char *scenario) {
  if (!t || !t->f) return 0;
  char key[256];
  snprintf(key, sizeof(key), "%s|%s|%llu|%s", algorithm, transport, (unsigned long long)bytes,
           scenario ? scenario : "");
  t->nph = 0;
  if (strcmp(key, t->key)) t->key[0] = 0; /* not the row just written: its phases are dropped */
  return 0;
}

int hx_trace_phase_add(struct hx_trace *t, int rank, const char *name, double a, double b) {
  if (!t || !t->f || !t->key[0]) return 0;
  if (t->nph == t->cap) {
    size_t c = t->cap ? 2 * t->cap : 32;
    struct hx_trace_ph *m = realloc(t->ph, c * sizeof(*m));
    if (!m) return -1;
    t->ph = m, t->cap = c;
  }
  struct hx_trace_ph *p = &t->ph[t->nph++];
  p->rank = rank;
  snprintf(p->name, sizeof(p->name), "%s", name);
  p->a = a;
  p->b = b < a ? a : b;
  return 0;
}

int hx_trace_phases_end(struct hx_trace *t) {
  if (!t || !t->f || !t->key[0] || !t->nph) return 0;
  struct slot *s = malloc(t->nph * sizeof(*s));
  if (!s) return -1;
  double end = 0;
  for (size_t i = 0; i < t->nph; i++) {
    s[i] = (struct slot){t->ph[i].rank, -1, t->ph[i].a, t->ph[i].b, i, 0, 0};
    if (t->ph[i].b > end) end = t->ph[i].b;
  }
  double shift = t->last_end_us - end; /* the last phase ends with the row's last copy or sum */
  if (shift < 0) shift = 0;
  if (place(s, t->nph) || fseek(t->f, t->tail, SEEK_SET)) {
    free(s);
    return -1;
  }
  /* the phase tracks follow the row's stream tracks: numbered from 1000 */
  int pid = t->rows;
  int tid0 = 1000;
  for (size_t m = 0; m < t->nph; m++) {
    size_t u = 0;
    for (; u < m; u++)
      if (s[u].rank == s[m].rank && s[u].lane == s[m].lane) break;
    if (u < m) {
      s[m].tid = s[u].tid;
      continue;
    }
    s[m].tid = tid0++;
    char name[64];
    snprintf(name, sizeof(name), s[m].lane ? "rank %d phases (%d)" : "rank %d phases", s[m].rank, s[m].lane + 1);
    meta(t, "thread_name", pid, s[m].tid, name, 0);
    meta(t, "thread_sort_index", pid, s[m].tid, NULL, s[m].rank * 1000 + 999 - s[m].lane);
  }
  for (size_t m = 0; m < t->nph; m++) {
    const struct hx_trace_ph *p = &t->ph[s[m].i];
    ev_open(t);
    fputs("{\"ph\":\"X\",\"name\":", t->f);
    json_str(t->f, p->name);
    fprintf(t->f, ",\"cat\":\"phase\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"rank\":%d,"
                  "\"iteration_us\":[%.3f,%.3f]}}",
            pid, s[m].tid, shift + p->a, p->b - p->a, p->rank, p->a, p->b);
  }
  free(s);
  t->key[0] = 0;
  t->nph = 0;
  return close_tail(t);
}

struct hx_trace *hx_trace_run(const char *results_path) {
  static struct hx_trace t;
  static int tried;
  if (results_path && !tried++) {
    char path[1200];
    const char *slash = strrchr(results_path, '/');
    if (slash)
      snprintf(path, sizeof(path), "%.*s/trace.json", (int)(slash - results_path), results_path);
    else
      snprintf(path, sizeof(path), "trace.json");
    FILE *f = fopen(path, "w+");
    if (!f || hx_trace_begin(&t, f)) {
      ar_log(AR_LOG_WARN, "--profile timeline: cannot write %s; timeline.csv is still written", path);
      if (f) fclose(f);
      memset(&t, 0, sizeof(t));
    }
  }
  return t.f ? &t : NULL;
}
