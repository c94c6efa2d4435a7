/* --compute's load on the simulated GPU (tests/sim/fake_gpu.c's opening comment names every
 * variable read here): src/cuda/load.h's calls, the load a lane of its own beside the AllReduce,
 * and sim_run, which moves a stream's clock by an AllReduce's time, slowed beside the pending
 * load where they overlap. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuda/load.h"
#include "fake_gpu.h"

/* A load takes its work at a fixed pace (a GEMM 400 TFLOP/s, membw 3 TB/s, sm 20 steps a us),
 * so that sizing it to the AllReduce alone (compute.h's rule) lands within its rounding. Its
 * launch moves its stream's clock and leaves it pending on the rank's thread; the thread's next
 * AllReduce that starts before the load ends shares the GPU with it: while both run, the
 * AllReduce goes AR_SIM_BESIDE's A times and the load L times slower ("A:L", default 1.5:1.2),
 * and both clocks end where that puts them (the harness records the load's end event after
 * enqueueing the AllReduce). AR_SIM_LOAD_NOOP=1: every launch does nothing (its check counts a
 * wrong element); AR_SIM_BESIDE_BAD=1: an AllReduce beside a load leaves its first element one
 * off the sum, as AR_SIM_BAD_SUM (the lane's checks must find it). */
struct ar_load {
  struct ar_compute c;
  int done; /* the last launch ran (its check's answer) */
};
static __thread struct {
  cudaStream_t s;     /* the load's stream, NULL: none pending */
  double start, work; /* its start on that stream's clock, and its time alone (us) */
} sim_pending;

/* A load's time alone at the fake's pace, us. */
static double sim_load_us(const struct ar_compute *c) {
  double w = ar_compute_work(c);
  return c->kind == AR_COMPUTE_GEMM ? w / 400e6 : c->kind == AR_COMPUTE_MEMBW ? w / 3e6 : w / 20;
}
/* 1 when the calling thread's pending load runs past the start of work on stream s. */
int sim_beside_load(cudaStream_t s) {
  return sim_pending.s && sim_pending.s != s && sim_pending.start + sim_pending.work > s->clock;
}
/* Work of `us` alone on stream s, beside the pending load where they overlap (see above):
 * both lanes run at once, each slowed while the other runs, until each has done its work. */
void sim_run(cudaStream_t s, double us) {
  if (!sim_beside_load(s)) {
    s->clock += us;
    return;
  }
  double fa = 1.5, fl = 1.2, a0 = s->clock, l0 = sim_pending.start;
  const char *e = getenv("AR_SIM_BESIDE");
  if (e && (sscanf(e, "%lf:%lf", &fa, &fl) != 2 || !(fa >= 1) || !(fl >= 1))) fa = fl = 1;
  double t = fmin(a0, l0), left[2] = {us, sim_pending.work}, start[2] = {a0, l0},
         end[2] = {-1, -1}, slow[2] = {fa, fl};
  while (end[0] < 0 || end[1] < 0) { /* from event to event: a lane starts or ends */
    int on[2], k, done = -1;
    for (k = 0; k < 2; k++) on[k] = end[k] < 0 && t >= start[k];
    double dt = INFINITY, v[2];
    for (k = 0; k < 2; k++) {
      v[k] = on[k] ? (on[1 - k] ? 1 / slow[k] : 1) : 0;
      if (v[k] > 0 && fmax(left[k], 0) / v[k] < dt) dt = fmax(left[k], 0) / v[k], done = k;
      if (end[k] < 0 && t < start[k] && start[k] - t < dt) dt = start[k] - t, done = -1;
    }
    t += dt;
    for (k = 0; k < 2; k++) left[k] -= v[k] * dt;
    if (done >= 0) end[done] = t, left[done] = 0;
  }
  s->clock = end[0];
  sim_pending.s->clock = end[1];
  sim_pending.s = NULL;
}

ar_status ar_load_create(const struct ar_compute *c, struct ar_load **out, char *why, size_t len) {
  if (len) why[0] = 0;
  *out = calloc(1, sizeof(**out));
  if (!*out) return AR_ERR_NOMEM;
  (*out)->c = *c;
  return AR_OK;
}
ar_status ar_load_resize(struct ar_load *l, const struct ar_compute *c, cudaStream_t s,
                         char *why, size_t len) {
  (void)s;
  if (len) why[0] = 0;
  if (c->kind != l->c.kind) return AR_ERR_INVALID;
  l->c = *c;
  return AR_OK;
}
ar_status ar_load_prepare(struct ar_load *l, cudaStream_t s) {
  (void)s;
  l->done = 0;
  return AR_OK;
}
ar_status ar_load_launch(struct ar_load *l, cudaStream_t s) {
  l->done = !getenv("AR_SIM_LOAD_NOOP");
  sim_pending.s = s;
  sim_pending.start = s->clock;
  sim_pending.work = sim_load_us(&l->c);
  s->clock += sim_pending.work;
  return AR_OK;
}
ar_status ar_load_check(struct ar_load *l, cudaStream_t s, unsigned long long *wrong) {
  (void)s;
  if (!l->done && sim_real_left(wrong) >= sizeof(*wrong)) *wrong += 1;
  return AR_OK;
}
void ar_load_destroy(struct ar_load *l) { free(l); }
