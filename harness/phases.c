/* Phases of an iteration: the harness's NVTX ranges and, with --phases, CUDA events around
 * the same phases on every rank for one iteration per job, written to phases.csv.
 *
 * Per-round (and reduce-kernel) times need the transports: the harness enqueues a whole
 * AllReduce in one tp_ops.enqueue call, and the precondition of the straggler-aware schedules
 * runs inside it. The hook they should provide, for the lead to add: an optional
 *   cudaEvent_t *round_end;   in struct tp_job, per rank (round_end[rank][k], k < nrounds)
 * recorded by enqueue on the harness's stream once round k's work on this rank is complete
 * (after joining its copy streams; the sm transport's persistent kernel would instead write
 * %globaltimer stamps into a device array, u64 round_ns[nrounds], read back like the events).
 * With it, hx_phase_collect would turn rounds [0, nprecond) into `precondition` and every
 * round into `round k` rows with no change to phases.csv's columns. */
#include "phases.h"

#include <stdarg.h>
#include <string.h>

#include "csv.h"
#include "nvtx.h"

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
                        const char *tname, int nprecond) {
  char sz[32];
  size_text(sz, sizeof(sz), bytes);
  p->nprecond = nprecond;
  p->sp = 0;
  p->ranges = 1;
  hx_nvtx_job_reset();
  if (!strcmp(tname, "nccl"))
    ar_nvtx_push("size %s %s", sz, algo);
  else
    ar_nvtx_push("size %s %s/%s", sz, algo, tname);
}

void hx_phase_job_end(struct hx_phase_rank *p) {
  if (p->sp) hx_nvtx_collective_end(); /* an error left a phase open: nothing is owed but pops */
  for (; p->ranges > 0; p->ranges--)
    ar_nvtx_pop();
  p->sp = 0;
}

void hx_phase_iter_begin(struct hx_phase_rank *p, int timed, int i, int timing) {
  p->timing = timing && p->nev > 0;
  if (p->timing) p->n = 0;
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
  if (!p->timing && !hx_nvtx_active()) return cudaSuccess; /* nobody looks: no formatting */
  char msg[128];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  ar_nvtx_push("%s", msg);
  if (coll) hx_nvtx_collective_begin(p->nprecond);
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
  if (p->stack[p->sp].coll) hx_nvtx_collective_end();
  ar_nvtx_pop();
  p->ranges--;
  return e;
}

cudaError_t hx_phase_collect(struct hx_phase_rank *p, cudaEvent_t origin) {
  for (int k = 0; k < p->n; k++) {
    if (!p->name[k][0]) continue;
    float a = 0, b = 0;
    cudaError_t e = cudaEventElapsedTime(&a, origin, p->ev[2 * k]);
    if (e == cudaSuccess) e = cudaEventElapsedTime(&b, origin, p->ev[2 * k + 1]);
    if (e != cudaSuccess) return e;
    p->start_us[k] = a * 1e3;
    p->end_us[k] = b * 1e3;
  }
  return cudaSuccess;
}

int hx_phase_write(FILE *f, const struct hx_phase_job *j, const struct hx_phase_rank *const *rk,
                   int n) {
  if (!f) return 0;
  int rc = 0;
  for (int r = 0; r < n; r++)
    for (int k = 0; k < rk[r]->n; k++) {
      if (!rk[r]->name[k][0] || rk[r]->start_us[k] < 0) continue;
      hx_csv_field(f, j->run_id);
      fputc(',', f);
      hx_csv_field(f, j->algorithm);
      fputc(',', f);
      hx_csv_field(f, j->transport);
      fprintf(f, ",%llu,%d,", (unsigned long long)j->bytes, r);
      hx_csv_field(f, rk[r]->name[k]);
      fprintf(f, ",%.3f,%.3f,", rk[r]->start_us[k], rk[r]->end_us[k]);
      hx_csv_field(f, j->scenario ? j->scenario : "");
      if (fprintf(f, ",%d,%.3f\n", j->iteration, j->delay_us) < 0) rc = -1;
    }
  if (fflush(f)) rc = -1;
  return rc;
}
