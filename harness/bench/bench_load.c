/* --compute: a load beside the AllReduce (compute.h, src/cuda/load.h). Each rank has the load,
 * a stream of its own for it and the events that start and end it. A row is measured in three
 * lanes, one after the other, each of warm-up and timed iterations of bench_rank.c's shape:
 *   1. the AllReduce alone: the row as without a load (its columns, samples.csv);
 *   2. the load alone: launched at the aligned start event on the load stream, nothing else;
 *   3. both: the load as in 2 and the AllReduce as in 1 (straggler delay included), each
 *      AllReduce with inputs of its own and checked on every rank.
 * Between 1 and 2 the load is sized (unless a GEMM's shape was given): every rank times a
 * probe at once, the slowest is scaled to the AllReduce alone's median (ar_compute_fit), timed
 * again and scaled once more; every rank then runs that size. Each launch is prepared first
 * (its result made wrong, outside the timed window) and checked after, so a load that did
 * nothing fails the row. A timed iteration's samples: the load's end minus the start (2 and 3),
 * the AllReduce's end minus the start (3), each the largest over the ranks as the AllReduce's
 * are; the span is the later of the two per iteration. */
#include "bench/bench_int.h"
#include "procs/procs.h"

int load_bench_init(struct bench *b) {
  if (!b->o->compute.kind) return 0;
  b->ltimes = calloc((size_t)3 * b->n * b->nsamp, sizeof(*b->ltimes));
  b->lwrong = calloc((size_t)3 * b->n * b->total, sizeof(*b->lwrong));
  b->lrow = calloc((size_t)4 * b->nsamp, sizeof(*b->lrow));
  return b->ltimes && b->lwrong && b->lrow ? 0 : -1;
}

void load_bench_free(struct bench *b) {
  free(b->ltimes);
  free(b->lwrong);
  free(b->lrow);
}

int load_rank_init(struct rank *R) {
  struct bench *b = R->b;
  char name[32];
  int err = RK_CUDA(R, cudaStreamCreateWithFlags(&R->lstream, cudaStreamNonBlocking));
  err |= RK_CUDA(R, cudaEventCreateWithFlags(&R->lgo, cudaEventDisableTiming));
  err |= RK_CUDA(R, cudaEventCreateWithFlags(&R->ldone, cudaEventDisableTiming));
  if (!(R->lend = calloc((size_t)b->o->iters, sizeof(cudaEvent_t))))
    return rank_fail(R, "rank %d: out of host memory", R->rank);
  for (int i = 0; i < b->o->iters && !err; i++) err |= RK_CUDA(R, cudaEventCreate(&R->lend[i]));
  err |= RK_CUDA(R, cudaMalloc((void **)&R->d_lwrong, 3 * (size_t)b->total * sizeof(*R->d_lwrong)));
  snprintf(name, sizeof(name), "rank %d compute", R->rank); /* its lane in a trace */
  if (!err) ar_nvtx_name_stream(R->lstream, name);
  return err;
}

void load_rank_free(struct rank *R) {
  for (int i = 0; R->lend && i < R->b->o->iters; i++)
    if (R->lend[i]) cudaEventDestroy(R->lend[i]);
  free(R->lend);
  if (R->lgo) cudaEventDestroy(R->lgo);
  if (R->ldone) cudaEventDestroy(R->ldone);
  ar_load_destroy(R->load);
  cudaFree(R->d_lwrong);
  if (R->lstream) cudaStreamDestroy(R->lstream);
}

int load_before(struct rank *R) { return RK_AR(R, ar_load_prepare(R->load, R->stream)); }

int load_start(struct rank *R) {
  char text[96];
  int err = RK_CUDA(R, cudaEventRecord(R->lgo, R->stream));
  if (!err) err |= RK_CUDA(R, cudaStreamWaitEvent(R->lstream, R->lgo, 0));
  /* its range beside the collective's (NVTX only: --phases times the AllReduce alone) */
  if (!err) err |= RK_CUDA(R, hx_phase_open(&R->ph, R->lstream, "compute %s",
                                            ar_compute_text(&R->b->job.load, text, sizeof(text))));
  if (!err) err |= RK_AR(R, ar_load_launch(R->load, R->lstream));
  if (R->ph.sp) err |= RK_CUDA(R, hx_phase_close(&R->ph, R->lstream));
  return err;
}

int load_end(struct rank *R, int it, int timed) {
  struct bench *b = R->b;
  struct job *J = &b->job;
  /* recorded after the AllReduce is enqueued: the fake GPU settles both lanes there */
  cudaEvent_t e = timed ? R->lend[(it - J->warmup) % b->o->iters] : R->ldone;
  int err = RK_CUDA(R, cudaEventRecord(e, R->lstream));
  if (!err) err |= RK_CUDA(R, cudaStreamWaitEvent(R->stream, e, 0));
  unsigned long long *wrong = R->d_lwrong + (size_t)(J->lane == LANE_LOAD ? 1 : 2) * b->total + it;
  if (!err && b->o->check) err |= RK_AR(R, ar_load_check(R->load, R->stream, wrong));
  return err;
}

/* Timed iterations from .. to - 1 of lane `lane` of rank R into b->ltimes (its streams done). */
static int lane_times(struct rank *R, int lane, int from, int to) {
  struct bench *b = R->b;
  int err = 0, both = lane == LANE_BOTH;
  for (int i = from; i < to && !err; i++) {
    int slot = i % b->o->iters;
    float ms = 0, ar = 0;
    err |= RK_CUDA(R, cudaEventElapsedTime(&ms, R->start[slot], R->lend[slot]));
    if (both) err |= RK_CUDA(R, cudaEventElapsedTime(&ar, R->start[slot], R->end[slot]));
    size_t at = (size_t)R->rank * b->nsamp + i, series = (size_t)b->n * b->nsamp;
    b->ltimes[(both ? 2 : 0) * series + at] = ms * 1e3;
    if (both) b->ltimes[series + at] = ar * 1e3;
  }
  return err;
}

/* Rank R's time of its load at c: resized, then the fastest of 3 launches on its stream. */
static int probe(struct rank *R, const struct ar_compute *c, double *us) {
  char why[256];
  float ms = 0, best = 0;
  ar_status st = ar_load_resize(R->load, c, R->lstream, why, sizeof(why));
  if (st != AR_OK) return rank_fail(R, "rank %d: --compute: %s", R->rank, why);
  int err = 0;
  for (int k = 0; k < 3 && !err; k++) {
    err |= RK_CUDA(R, cudaEventRecord(R->start[0], R->lstream));
    err |= RK_AR(R, ar_load_launch(R->load, R->lstream));
    err |= RK_CUDA(R, cudaEventRecord(R->end[0], R->lstream));
    err |= RK_CUDA(R, cudaStreamSynchronize(R->lstream));
    if (!err) err |= RK_CUDA(R, cudaEventElapsedTime(&ms, R->start[0], R->end[0]));
    if (!k || ms < best) best = ms;
  }
  *us = best * 1e3;
  return err;
}

/* Every rank: the job's load sized (unless given) and made on every rank; 1 when a barrier
 * said some rank failed. */
static int load_size(struct rank *R, int err) {
  struct bench *b = R->b;
  struct job *J = &b->job;
  char why[256];
  if (!R->load && !err) { /* its kind is the run's: made once */
    ar_status st = ar_load_create(&b->o->compute, &R->load, why, sizeof(why));
    if (st != AR_OK) err |= rank_fail(R, "rank %d: --compute: %s", R->rank, why[0] ? why : ar_status_str(st));
  }
  for (int round = 0; round < 2 && !b->o->compute.fixed; round++) {
    struct ar_compute c = J->load; /* the probe, then the first fit */
    b->probe_us[R->rank] = 0;
    if (!err) err |= probe(R, &c, &b->probe_us[R->rank]);
    if (barrier_wait(&b->bar, err)) return 1;
    if (IS_LEAD(R)) { /* the other processes' ranks: 0 here, then the sum */
      for (int r = 0; r < b->n; r++)
        if (b->rk[r].remote) b->probe_us[r] = 0;
      if (b->procs && hx_procs_sum_f64(b->probe_us, (size_t)b->n)) hx_procs_abort(1);
      double worst = 0;
      for (int r = 0; r < b->n; r++) worst = fmax(worst, b->probe_us[r]);
      ar_compute_fit(&c, worst, J->load_target_us, &J->load);
    }
    if (barrier_wait(&b->bar, err)) return 1;
  }
  if (!err) {
    ar_status st = ar_load_resize(R->load, &J->load, R->lstream, why, sizeof(why));
    if (st != AR_OK) err |= rank_fail(R, "rank %d: --compute %s: %s", R->rank,
                                      ar_compute_text(&J->load, why + 128, 128), why);
  }
  if (!err)
    err |= RK_CUDA(R, cudaMemsetAsync(R->d_lwrong, 0, 3 * (size_t)b->total * sizeof(*R->d_lwrong),
                                      R->stream));
  if (!err) err |= RK_CUDA(R, cudaStreamSynchronize(R->lstream)); /* a GEMM's inputs */
  return barrier_wait(&b->bar, err);
}

/* A lead, every rank's lanes done: the other processes' times and counts summed here. */
static void load_gather(struct bench *b) {
  for (int r = 0; r < b->n && b->procs; r++) {
    if (!b->rk[r].remote) continue;
    for (int s = 0; s < 3; s++)
      memset(b->ltimes + ((size_t)s * b->n + r) * b->nsamp, 0, (size_t)b->nsamp * sizeof(double));
    memset(b->lwrong + (size_t)r * 3 * b->total, 0, 3 * (size_t)b->total * sizeof(*b->lwrong));
  }
  if (b->procs && (hx_procs_sum_f64(b->ltimes, (size_t)3 * b->n * b->nsamp) ||
                   hx_procs_sum_u64(b->lwrong, (size_t)3 * b->n * b->total)))
    hx_procs_abort(1);
}

int load_lanes(struct rank *R, int err) {
  struct bench *b = R->b;
  struct job *J = &b->job;
  int step = b->o->iters, stop = 0;
  if (barrier_wait(&b->bar, err)) return 1; /* every rank's AllReduce alone read */
  if (IS_LEAD(R)) { /* the target: the AllReduce alone's median, as its row will say */
    struct hx_stats st;
    if (peers_times(b)) hx_procs_abort(1);
    row_samples(b, b->row_t);
    J->load_target_us = hx_stats_compute(b->row_t, J->samples, &st) ? 0 : st.median;
    ar_compute_probe(&b->o->compute, &J->load);
  }
  if (barrier_wait(&b->bar, err) || load_size(R, err)) return 1;
  for (int lane = LANE_LOAD; lane <= LANE_BOTH && !stop; lane++) {
    if (barrier_wait(&b->bar, err)) return 1; /* every rank done with the last lane */
    if (IS_LEAD(R)) J->lane = lane;
    if (barrier_wait(&b->bar, err)) return 1;
    ar_nvtx_push(lane == LANE_LOAD ? "lane compute alone" : "lane allreduce beside compute");
    for (int it = 0; it < J->warmup && !stop; it++) stop = job_iteration(R, it, 0, err);
    for (int done = 0; done < J->iters && !stop; done += step) { /* -n events at a time */
      int to = done + step < J->iters ? done + step : J->iters;
      for (int i = done; i < to && !stop; i++) stop = job_iteration(R, J->warmup + i, 1, err);
      if (!stop && !err) err |= RK_CUDA(R, cudaStreamSynchronize(R->stream));
      if (!stop && !err) err |= lane_times(R, lane, done, to);
    }
    ar_nvtx_pop();
  }
  if (stop) return 1;
  if (!err)
    err |= RK_CUDA(R, cudaMemcpy(b->lwrong + (size_t)R->rank * 3 * b->total, R->d_lwrong,
                                 3 * (size_t)b->total * sizeof(*R->d_lwrong),
                                 cudaMemcpyDeviceToHost));
  if (barrier_wait(&b->bar, err)) return 1;
  if (IS_LEAD(R)) {
    J->lane = LANE_ALLREDUCE;
    load_gather(b);
  }
  return barrier_wait(&b->bar, err);
}

/* The worst iteration's wrong elements in third `part` of every rank's lwrong (summed over the
 * ranks), and into *bad the iterations with any. */
static long long lane_wrong(const struct bench *b, int part, int *bad) {
  long long worst = 0;
  *bad = 0;
  for (int i = 0; i < b->job.total; i++) {
    long long w = 0;
    for (int r = 0; r < b->n; r++)
      w += (long long)b->lwrong[((size_t)r * 3 + part) * b->total + i];
    *bad += w > 0;
    worst = w > worst ? w : worst;
  }
  return worst;
}

void load_row(struct bench *b, struct hx_csv_row *row, struct hx_csv_compute *c) {
  const struct job *J = &b->job;
  int it = J->iters;
  double *s[4];
  char text[96];
  for (int k = 0; k < 4; k++) s[k] = b->lrow + (size_t)k * b->nsamp;
  for (int i = 0; i < it; i++) { /* each the last rank's, to samples.csv's 3 decimals */
    for (int k = 0; k < 3; k++) {
      double v = 0;
      for (int r = 0; r < b->n; r++) v = fmax(v, b->ltimes[((size_t)k * b->n + r) * b->nsamp + i]);
      s[k][i] = round(v * 1e3) / 1e3;
    }
    s[3][i] = fmax(s[1][i], s[2][i]); /* both started at once: the later end is the step's */
  }
  memset(c, 0, sizeof(*c));
  if (hx_stats_compute(s[0], it, &c->alone) || hx_stats_compute(s[1], it, &c->loaded) ||
      hx_stats_compute(s[2], it, &c->load_loaded) || hx_stats_compute(s[3], it, &c->span)) {
    fprintf(stderr, "arbench: out of host memory\n");
    return;
  }
  ar_compute_text(&J->load, b->lrow_text, sizeof(b->lrow_text));
  c->load = b->lrow_text;
  for (int k = 0; k < 3; k++) c->samples[k] = s[k];
  c->allreduce_slowdown = c->loaded.median / row->t.median;
  c->compute_slowdown = c->load_loaded.median / c->alone.median;
  /* the AllReduce's time the step did not pay beyond the load's own */
  double hidden = 1 - (c->span.median - c->alone.median) / row->t.median;
  c->hidden_share = fmin(fmax(hidden, 0), 1);
  int bad_ar, bad_alone, bad_beside;
  long long ar = lane_wrong(b, 0, &bad_ar), alone = lane_wrong(b, 1, &bad_alone);
  long long beside = lane_wrong(b, 2, &bad_beside);
  c->wrong = b->o->check ? (alone > beside ? alone : beside) : -1;
  if (b->o->check && ar > row->wrong) row->wrong = ar;
  row->compute = c;
  if (!b->o->check || (!ar && !alone && !beside)) return;
  row->status = "error";
  b->failed = 1;
  fprintf(stderr, "arbench: %s/%s size %llu B beside --compute %s: ", J->algo->name, J->ex->name,
          (unsigned long long)J->bytes, ar_compute_text(&J->load, text, sizeof(text)));
  if (ar) fprintf(stderr, "%lld wrong elements in the AllReduce (%d iterations wrong)%s", ar,
                  bad_ar, alone || beside ? "; " : "");
  if (alone || beside) fprintf(stderr, "the load's result wrong (%lld elements, %d iterations alone, "
                               "%d beside the AllReduce)", alone > beside ? alone : beside,
                               bad_alone, bad_beside);
  fprintf(stderr, "\n");
}

void load_table(const struct hx_csv_row *row) {
  const struct hx_csv_compute *c = row->compute;
  if (!c || c->alone.n < 1) return;
  printf("#   beside %s: load %.2f us alone, %.2f beside (x%.3f); allreduce %.2f beside (x%.3f); "
         "span %.2f us; hidden %.3f\n", c->load, c->alone.median, c->load_loaded.median,
         c->compute_slowdown, c->loaded.median, c->allreduce_slowdown, c->span.median,
         c->hidden_share);
  fflush(stdout);
}
