/* Phases of an iteration: the harness's NVTX ranges and, with --phases, CUDA events around
 * the same phases on every rank for one iteration per job, written to phases.csv.
 *
 * Per-round times need the transports: the harness enqueues a whole AllReduce in one
 * tp_ops.enqueue call, and the precondition of the straggler-aware schedules runs inside it.
 * The transports mark where each round ends on a rank (struct tp_marks, src/cuda/round_marks.h:
 * ce and nccl-p2p record events on the harness's stream; sm's and ll's kernels write
 * %globaltimer stamps, placed here from the collective's start event, a launch latency
 * early), for the timed iteration only; hx_phase_collect turns them into round ends,
 * hx_phase_write into `precondition` (rounds < nprecond) and `round k` rows with no change to
 * phases.csv's columns. Per-kernel times (the reduce kernels) are not marked. */
#include "profile/phases.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "record/csv.h"
#include "nvtx.h"
#include "profile/trace.h"

const char hx_phases_header[] =
    "run_id,algorithm,transport,bytes,rank,phase,start_us,end_us,scenario,iteration,delay_us";

cudaError_t hx_phase_rank_init(struct hx_phase_rank *p, int on) {
  memset(p, 0, sizeof(*p));
  if (!on) return cudaSuccess;
  for (int k = 0; k < 2 * HX_PHASE_MAX; k++) {
    cudaError_t e = cudaEventCreate(&p->ev[k]);
    if (e != cudaSuccess) return e;
    p->nev = k + 1;
  }
  return cudaSuccess;
}

void hx_phase_rank_free(struct hx_phase_rank *p) {
  for (int k = 0; k < p->nev; k++)
    cudaEventDestroy(p->ev[k]);
  p->nev = 0;
  for (int k = 0; p->mk.ev && k < p->mk_cap; k++)
    if (p->mk.ev[k]) cudaEventDestroy(p->mk.ev[k]);
  if (p->mk.ns) cudaFree(p->mk.ns);
  free(p->mk.ev);
  free(p->mk.have);
  free(p->round_end_us);
  memset(&p->mk, 0, sizeof(p->mk));
  p->round_end_us = NULL;
  p->mk_cap = p->mk_on = 0;
}

cudaError_t hx_phase_job_rounds(struct hx_phase_rank *p, int nrounds) {
  p->mk.nrounds = 0;
  p->mk_on = 0;
  if (!p->nev || nrounds <= 0) return cudaSuccess;
  if (nrounds > p->mk_cap) { /* grow: events kept, the arrays and the stamps made anew */
    cudaEvent_t *ev = realloc(p->mk.ev, (size_t)nrounds * sizeof(*ev));
    if (!ev) return cudaErrorMemoryAllocation;
    memset(ev + p->mk_cap, 0, (size_t)(nrounds - p->mk_cap) * sizeof(*ev));
    p->mk.ev = ev;
    unsigned char *have = realloc(p->mk.have, (size_t)nrounds);
    double *end = realloc(p->round_end_us, (size_t)nrounds * sizeof(*end));
    if (have) p->mk.have = have;
    if (end) p->round_end_us = end;
    if (!have || !end) return cudaErrorMemoryAllocation;
    for (int k = p->mk_cap; k < nrounds; k++) {
      cudaError_t e = cudaEventCreate(&p->mk.ev[k]);
      if (e != cudaSuccess) return e;
      p->mk_cap = k + 1; /* what exists is freed by hx_phase_rank_free */
    }
    if (p->mk.ns) cudaFree(p->mk.ns);
    p->mk.ns = NULL;
    /* sm's and ll's marks are atomic maxima: zero once, then only later times are written */
    size_t bytes = (size_t)(nrounds + 1) * sizeof(*p->mk.ns);
    cudaError_t e = cudaMalloc((void **)&p->mk.ns, bytes);
    if (e == cudaSuccess) e = cudaMemset(p->mk.ns, 0, bytes);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) return e;
  }
  memset(p->mk.have, 0, (size_t)nrounds);
  p->mk.in_ns = 0;
  p->mk.nrounds = nrounds;
  return cudaSuccess;
}

struct tp_marks *hx_phase_marks(struct hx_phase_rank *p) {
  if (!p->timing || p->mk.nrounds <= 0) return NULL;
  p->mk_on = 1;
  return &p->mk;
}

/* Writes bytes as "1 GiB", "3 KiB" (exact multiples) or "1000003 B" into buf; returns buf. */
static char *size_text(char *buf, size_t len, uint64_t bytes) {
  static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (u < 4 && bytes >= 1024 && bytes % 1024 == 0)
    bytes /= 1024, u++;
  snprintf(buf, len, "%llu %s", (unsigned long long)bytes, unit[u]);
  return buf;
}

void hx_phase_job_begin(struct hx_phase_rank *p, uint64_t bytes, const char *algo,
                        const struct ar_transport *ex, int nprecond) {
  char sz[32];
  size_text(sz, sizeof(sz), bytes);
  p->nprecond = nprecond;
  p->sp = 0;
  p->ranges = 1;
  p->mk.nrounds = 0; /* a new job: marks only once hx_phase_job_rounds says so */
  p->mk_on = 0;
  ar_nvtx_job_reset();
  if (ex->id == AR_EX_NCCL)
    ar_nvtx_push("size %s %s", sz, algo);
  else
    ar_nvtx_push("size %s %s/%s", sz, algo, ex->name);
}

void hx_phase_job_end(struct hx_phase_rank *p) {
  if (p->sp) ar_nvtx_collective_end(); /* an error left a phase open: nothing is owed but pops */
  for (; p->ranges > 0; p->ranges--)
    ar_nvtx_pop();
  p->sp = 0;
}

void hx_phase_iter_begin(struct hx_phase_rank *p, int timed, int i, int timing) {
  p->timing = timing && p->nev > 0;
  if (p->timing) p->n = 0, p->mk_on = 0;
  ar_nvtx_push(timed ? "iter %d" : "warmup %d", i);
  p->ranges++;
}

void hx_phase_iter_end(struct hx_phase_rank *p) {
  /* phases an error left open end with their iteration */
  while (p->sp > 0)
    hx_phase_close(p, NULL);
  if (p->ranges > 1) {
    ar_nvtx_pop();
    p->ranges--;
  }
  p->timing = 0;
}

cudaError_t hx_phase_open(struct hx_phase_rank *p, cudaStream_t s, const char *fmt, ...) {
  if (p->sp == (int)(sizeof(p->stack) / sizeof(p->stack[0]))) return cudaSuccess;
  int coll = !strncmp(fmt, "allreduce", 9) && (fmt[9] == ' ' || !fmt[9]);
  int idx = -1;
  p->stack[p->sp].idx = idx;
  p->stack[p->sp].coll = coll;
  p->sp++;
  p->ranges++;
  if (!p->timing && !ar_nvtx_active()) return cudaSuccess; /* nobody looks: no formatting */
  char msg[128];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  ar_nvtx_push("%s", msg);
  if (coll) ar_nvtx_collective_begin(p->nprecond);
  cudaError_t e = cudaSuccess;
  if (p->timing && p->n < HX_PHASE_MAX) {
    idx = p->n++;
    size_t k = strcspn(msg, " ");
    if (k >= sizeof(p->name[idx])) k = sizeof(p->name[idx]) - 1;
    memcpy(p->name[idx], msg, k);
    p->name[idx][k] = 0;
    p->start_us[idx] = p->end_us[idx] = -1;
    e = cudaEventRecord(p->ev[2 * idx], s);
    p->stack[p->sp - 1].idx = idx;
  }
  return e;
}

cudaError_t hx_phase_close(struct hx_phase_rank *p, cudaStream_t s) {
  if (p->sp <= 0) return cudaSuccess;
  p->sp--;
  int idx = p->stack[p->sp].idx;
  cudaError_t e = cudaSuccess;
  /* no stream (an error path): the phase keeps no end and is not written */
  if (idx >= 0 && s)
    e = cudaEventRecord(p->ev[2 * idx + 1], s);
  else if (idx >= 0)
    p->name[idx][0] = 0;
  if (p->stack[p->sp].coll) ar_nvtx_collective_end();
  ar_nvtx_pop();
  p->ranges--;
  return e;
}

/* After hx_phase_collect's phases: each marked round's end into round_end_us (-1 where the
 * rank marked nothing). cudaSuccess or the error. */
static cudaError_t collect_rounds(struct hx_phase_rank *p, cudaEvent_t origin) {
  const struct tp_marks *m = &p->mk;
  for (int k = 0; k < m->nrounds; k++)
    p->round_end_us[k] = -1;
  if (p->coll_us < 0) return cudaSuccess;
  unsigned long long *ns = NULL;
  if (m->in_ns) { /* sm, ll: clock stamps, placed from the collective's start event */
    ns = malloc((size_t)(m->nrounds + 1) * sizeof(*ns));
    if (!ns) return cudaErrorMemoryAllocation;
    cudaError_t e = cudaMemcpy(ns, m->ns, (size_t)(m->nrounds + 1) * sizeof(*ns),
                               cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
      free(ns);
      return e;
    }
  }
  cudaError_t e = cudaSuccess;
  for (int k = 0; k < m->nrounds && e == cudaSuccess; k++) {
    if (!m->have[k]) continue;
    if (ns) {
      if (ns[1 + k] >= ns[0]) p->round_end_us[k] = p->coll_us + (double)(ns[1 + k] - ns[0]) / 1e3;
    } else {
      float ms = 0;
      e = cudaEventElapsedTime(&ms, origin, m->ev[k]);
      if (e == cudaSuccess) p->round_end_us[k] = ms * 1e3;
    }
  }
  free(ns);
  return e;
}

cudaError_t hx_phase_collect(struct hx_phase_rank *p, cudaEvent_t origin) {
  p->coll_us = -1;
  for (int k = 0; k < p->n; k++) {
    if (!p->name[k][0]) continue;
    float a = 0, b = 0;
    cudaError_t e = cudaEventElapsedTime(&a, origin, p->ev[2 * k]);
    if (e == cudaSuccess) e = cudaEventElapsedTime(&b, origin, p->ev[2 * k + 1]);
    if (e != cudaSuccess) return e;
    p->start_us[k] = a * 1e3;
    p->end_us[k] = b * 1e3;
    if (!strcmp(p->name[k], "allreduce")) p->coll_us = p->start_us[k];
  }
  return p->mk_on ? collect_rounds(p, origin) : cudaSuccess;
}

/* Writes one line of phases.csv; returns 0 or -1. */
static int write_line(FILE *f, const struct hx_phase_job *j, int r, const char *phase, double a,
                      double b) {
  hx_csv_field(f, j->run_id);
  fputc(',', f);
  hx_csv_field(f, j->algorithm);
  fputc(',', f);
  hx_csv_field(f, j->transport);
  fprintf(f, ",%llu,%d,", (unsigned long long)j->bytes, r);
  hx_csv_field(f, phase);
  fprintf(f, ",%.3f,%.3f,", a, b);
  hx_csv_field(f, j->scenario ? j->scenario : "");
  if (hx_trace_phase_add(hx_trace_run(NULL), r, phase, a, b)) return -1; /* trace.json too */
  return fprintf(f, ",%d,%.3f\n", j->iteration, j->delay_us) < 0 ? -1 : 0;
}

/* Writes rank r's precondition and round lines from its marks; returns 0 or -1. */
static int write_rounds(FILE *f, const struct hx_phase_job *j, int r,
                        const struct hx_phase_rank *p) {
  if (!p->mk_on || p->coll_us < 0) return 0;
  int rc = 0;
  double pre = -1;
  for (int k = 0; k < p->mk.nrounds && k < p->nprecond; k++)
    if (p->round_end_us[k] >= 0) pre = p->round_end_us[k];
  if (pre >= 0) rc |= write_line(f, j, r, "precondition", p->coll_us, pre);
  double t = p->coll_us; /* a round starts where the rank's previous one ended */
  for (int k = 0; k < p->mk.nrounds; k++) {
    double e = p->round_end_us[k];
    if (e < 0) continue;
    if (e < t) e = t; /* clocks a little apart: never a negative box */
    char name[24];
    snprintf(name, sizeof(name), "round %d", k);
    rc |= write_line(f, j, r, name, t, e);
    t = e;
  }
  return rc;
}

int hx_phase_write(FILE *f, const struct hx_phase_job *j, const struct hx_phase_rank *const *rk,
                   int n) {
  if (!f) return 0;
  int rc = hx_trace_phases_begin(hx_trace_run(NULL), j->algorithm, j->transport, j->bytes, j->scenario);
  for (int r = 0; r < n; r++) {
    for (int k = 0; k < rk[r]->n; k++) {
      if (!rk[r]->name[k][0] || rk[r]->start_us[k] < 0) continue;
      rc |= write_line(f, j, r, rk[r]->name[k], rk[r]->start_us[k], rk[r]->end_us[k]);
    }
    rc |= write_rounds(f, j, r, rk[r]);
  }
  rc |= hx_trace_phases_end(hx_trace_run(NULL));
  if (fflush(f)) rc = -1;
  return rc;
}
