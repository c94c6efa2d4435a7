/* One rank's GPU work: its device, stream, events, communicator and buffers, and the warm-up
 * and timed iterations of a job (bench.c has the iteration's shape). */
#include "bench/bench_int.h"
#include "procs/procs.h"

#define GATE_MAX_S 0.1 /* far above any host's enqueue of one iteration that fits the queue */

/* ---- per-rank setup and teardown ---- */

/* Device, peer access, stream, events, communicator and buffers of one rank; 0 or 1. */
int rank_init(struct rank *R) {
  struct bench *b = R->b;
  int err = 0, n = b->n;
  if (RK_CUDA(R, cudaSetDevice(R->dev))) return 1;
  for (int q = 0; q < n; q++) {
    /* co-located: plain device copies; another process's rank: mapped by CUDA IPC */
    if (q == R->rank || b->rk[q].remote || b->rk[q].dev == R->dev) continue;
    int can = 0;
    if (RK_CUDA(R, cudaDeviceCanAccessPeer(&can, R->dev, b->rk[q].dev))) return 1;
    if (!can) {
      ar_log(AR_LOG_WARN, "rank %d: GPU %d cannot access GPU %d directly", R->rank, R->dev,
             b->rk[q].dev);
      continue;
    }
    cudaError_t e = cudaDeviceEnablePeerAccess(b->rk[q].dev, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();
    else if (RK_CUDA(R, e)) return 1;
  }
  err |= RK_CUDA(R, cudaStreamCreateWithFlags(&R->stream, cudaStreamNonBlocking));
  /* the other processes' streams wait on these two (bench_peers.c) */
  unsigned evf = cudaEventDisableTiming | (b->procs ? cudaEventInterprocess : 0);
  err |= RK_CUDA(R, cudaEventCreateWithFlags(&R->ready, evf));
  err |= RK_CUDA(R, cudaEventCreateWithFlags(&R->finished, evf));
  if (b->o->row_budget_us > 0) { /* timed: the last warm-up iteration sets the row's pace */
    err |= RK_CUDA(R, cudaEventCreate(&R->wstart));
    err |= RK_CUDA(R, cudaEventCreate(&R->wend));
  }
  R->start = calloc((size_t)b->o->iters, sizeof(cudaEvent_t));
  R->end = calloc((size_t)b->o->iters, sizeof(cudaEvent_t));
  if (!R->start || !R->end) return rank_fail(R, "rank %d: out of host memory", R->rank);
  for (int i = 0; i < b->o->iters && !err; i++) {
    err |= RK_CUDA(R, cudaEventCreate(&R->start[i]));
    err |= RK_CUDA(R, cudaEventCreate(&R->end[i]));
  }
  err |= RK_CUDA(R, cudaMalloc((void **)&R->d_wrong, (size_t)b->total * sizeof(*R->d_wrong)));
  err |= RK_CUDA(R, cudaMalloc((void **)&R->d_expired, sizeof(*R->d_expired)));
  if (b->cfg->nhosts > 1) err |= RK_CUDA(R, cudaMalloc((void **)&R->d_sync, 4 * sizeof(float)));
  if (b->starts)
    err |= RK_CUDA(R, cudaMalloc((void **)&R->d_starts, (size_t)b->nsamp * sizeof(uint64_t)));
  /* load the harness's kernels now, while nothing spins (see job_run) */
  err |= RK_AR(R, ar_fill_launch(R->d_wrong, 0, b->o->dtype, R->rank, 0, R->stream));
  err |= RK_AR(R, ar_check_launch(R->d_wrong, 0, b->o->dtype, n, 0, R->d_wrong, R->stream));
  err |= RK_AR(R, ar_delay_launch(0.001, R->stream));
  err |= RK_AR(R, ar_gate_launch(b->gate_host, 0, 1e3, R->d_expired, R->stream));
  if (b->o->compute.kind && !err) err |= load_rank_init(R);
  err |= RK_CUDA(R, cudaStreamSynchronize(R->stream));
  if (err) return 1;
  /* the delay kernel's fixed cost on this device, taken off every delay (delay.h) */
  double bias = 0;
  if (ar_delay_calibrate(R->stream, &bias) == AR_OK)
    ar_log(AR_LOG_INFO, "rank %d: delay kernel fixed cost %.2f us (subtracted from delays)",
           R->rank, bias);
  if (RK_CUDA(R, cudaGetLastError())) return 1;
  /* the communicator before the big buffer, so NCCL gets its memory first; NCCL refuses two
   * ranks on one GPU, so co-located runs have none (their nccl rows are n/a) */
  if (!b->colocated && RK_NCCL(R, ncclCommInitRank(&R->comm, n, b->id, R->rank))) return 1;
  /* the largest size; if it does not fit, halve: bigger sizes become oom rows */
  size_t want = 0;
  for (int s = 0; s < b->o->nsizes; s++) {
    size_t bytes = b->o->sizes[s].bytes;
    if (bytes > want) want = bytes;
  }
  data_alloc(R, want);
  return 0;
}

/* Destroys what rank_init made (whatever part of it exists). */
void rank_free(struct rank *R) {
  struct bench *b = R->b;
  cudaSetDevice(R->dev);
  data_deregister(R); /* while its communicator lives */
  if (R->comm) ncclCommDestroy(R->comm);
  for (int i = 0; R->start && i < b->o->iters; i++) {
    if (R->start[i]) cudaEventDestroy(R->start[i]);
    if (R->end[i]) cudaEventDestroy(R->end[i]);
  }
  free(R->start);
  free(R->end);
  if (R->ready) cudaEventDestroy(R->ready);
  if (R->finished) cudaEventDestroy(R->finished);
  if (R->wstart) cudaEventDestroy(R->wstart);
  if (R->wend) cudaEventDestroy(R->wend);
  data_free(R);
  cudaFree(R->d_wrong);
  cudaFree(R->d_expired);
  cudaFree(R->d_sync);
  cudaFree(R->d_starts);
  load_rank_free(R);
  hx_phase_rank_free(&R->ph);
  if (R->stream) cudaStreamDestroy(R->stream);
}


/* ---- a job's iterations ---- */

/* Where the nccl rows' AllReduce i of a batch sums: the buffer's start, or with nccl.rotate=on
 * slice i mod floor(buffer / size), as nccl-tests shifts iteration i (each batch starts again
 * at slice 0, as each of its timed loops does; events timing passes 0: each AllReduce there
 * follows its own fill, and the check reads the start). The buffer is every rank's smallest
 * (b->cap), so a slice lies inside each rank's buffer and registered window. */
static void *nccl_data(const struct rank *R, int i) {
  const struct bench *b = R->b;
  size_t bytes = b->job.bytes, slices = bytes ? b->cap / bytes : 1;
  if (!b->nccl_rotate || slices < 2) return R->data;
  return (char *)R->data + ((size_t)i % slices) * bytes;
}

/* Enqueues the job's AllReduce of rank R on stream s, the i-th of its batch: NCCL's own (in
 * place, where nccl_data says) or the transport's; 0 or 1. */
static int allreduce(struct rank *R, cudaStream_t s, int i) {
  struct bench *b = R->b;
  struct job *J = &b->job;
  if (J->algo->flags & AR_ALGO_NATIVE) {
    void *d = nccl_data(R, i);
    return RK_NCCL(R, ncclAllReduce(d, d, J->nelem, nccl_type(b->o->dtype), ncclSum, R->comm, s));
  }
  return RK_AR(R, J->tp->enqueue(J->ctx, R->rank, s));
}

/* Iteration `it` of the job's lane, in bench.c's shape, with the error so far (err: every
 * barrier is still passed, saying so); timed: its start and end events are timed iteration
 * i = it - warmup's, in slot i % -n (stats.ci_target's steps take -n at most, each read before
 * the next: read_times) (--row-budget: the last warm-up iteration records wstart and wend
 * there). --compute's lanes (bench_load.c): the load alone starts at the start event and has
 * no AllReduce; beside the AllReduce, both start there, each AllReduce with inputs of its own
 * (the seeds after the lane alone's) and checked as always. */
int job_iteration(struct rank *R, int it, int timed, int err) {
  struct bench *b = R->b;
  const struct run_opts *o = b->o;
  struct job *J = &b->job;
  int n = b->n, i = it - J->warmup, native = (J->algo->flags & AR_ALGO_NATIVE) != 0;
  int ar = J->lane != LANE_LOAD, load = J->lane != LANE_ALLREDUCE;
  unsigned long long seed = J->seed0 + it + (J->lane == LANE_BOTH ? (unsigned)b->total : 0);
  cudaEvent_t t0 = timed ? R->start[i % o->iters] : NULL;
  cudaEvent_t t1 = timed ? R->end[i % o->iters] : NULL;
  if (!timed && R->wstart && it == J->warmup - 1) t0 = R->wstart, t1 = R->wend;
  cudaStream_t s = R->stream;
  /* a gate opens by itself after GATE_MAX_S: a program of about a thousand stream ops
   * (optcc-ring on ce from 4 GiB) fills the GPU's queue behind a shut gate, so its host
   * cannot finish enqueueing to open it; those iterations then include host overhead, and
   * the row says so (bench_row.c) */
  double gate_us = GATE_MAX_S * 1e6;
  /* a job's first iteration runs ungated: it may connect peers on the host and load
   * kernels lazily, and a lazy load can wait for a running kernel (the gate) to end */
  if (timed && it > 0 && !err)
    err |= RK_AR(R, ar_gate_launch(b->gate_host, R->gate_seq + 1, gate_us, R->d_expired, s));
  /* refill only once every rank is done with the last iteration: a peer may still be
   * reading this rank's data (its `finished` event was recorded before the last barrier) */
  for (int q = 0; q < n && !err; q++)
    if (q != R->rank && b->rk[q].host == R->host)
      err |= RK_CUDA(R, cudaStreamWaitEvent(s, b->rk[q].finished, 0));
  if (!err && ar) /* this iteration's own inputs (see the file comment) */
    err |= RK_AR(R, ar_fill_launch(R->data, J->nelem, o->dtype, R->rank, seed, s));
  if (!err && load) err |= load_before(R);
  if (!err) err |= RK_CUDA(R, cudaEventRecord(R->ready, s));
  if (barrier_wait(&b->bar, err)) return 1;
  hx_phase_iter_begin(&R->ph, timed, timed ? i : it, timed && it == J->total - 1 && !load);
  for (int q = 0; q < n && !err; q++)
    if (q != R->rank && b->rk[q].host == R->host)
      err |= RK_CUDA(R, cudaStreamWaitEvent(s, b->rk[q].ready, 0));
  /* other hosts' events cannot be waited on: a one-element AllReduce is the start line
   * (its ranks leave it within about one network latency of each other) */
  if (R->d_sync && R->comm && !err)
    err |= RK_NCCL(R, ncclAllReduce(R->d_sync, R->d_sync, 1, ncclFloat32, ncclSum, R->comm, s));
  if (t0 && !err) err |= RK_CUDA(R, cudaEventRecord(t0, s));
  if (timed && R->d_starts && !load && !err) err |= RK_AR(R, tp_stamp_launch(R->d_starts + i, s));
  if (load && !err) err |= load_start(R);
  if (R->straggler_k >= 0 && ar && !err) {
    double delay = b->delays[R->straggler_k * b->total + it];
    err |= RK_CUDA(R, hx_phase_open(&R->ph, s, "delay %.0f us", delay));
    if (!err) err |= RK_AR(R, ar_delay_launch(delay, s));
    err |= RK_CUDA(R, hx_phase_close(&R->ph, s));
  }
  if (!err && ar) /* the collective's range: the transport's rounds nest inside */
    err |= RK_CUDA(R, hx_phase_open(&R->ph, s, "allreduce %s%s%s", J->algo->name,
                                    native ? "" : "/", native ? "" : J->ex->name));
  if (!err && ar) {
    b->marks[R->rank] = native ? NULL : hx_phase_marks(&R->ph); /* NULL but in a timed
                                                                 * --phases iteration */
    err |= allreduce(R, s, 0);
    b->marks[R->rank] = NULL;
  }
  if (R->ph.sp) err |= RK_CUDA(R, hx_phase_close(&R->ph, s));
  if (t1 && ar && !err) err |= RK_CUDA(R, cudaEventRecord(t1, s));
  if (load && !err) err |= load_end(R, it, timed);
  if (o->check && ar && !err) /* beside the load: counted apart, d_lwrong's first third */
    err |= RK_AR(R, ar_check_launch(R->data, J->nelem, o->dtype, n, seed,
                                    (load ? R->d_lwrong : R->d_wrong) + it, s));
  if (!err) err |= RK_CUDA(R, cudaEventRecord(R->finished, s));
  hx_phase_iter_end(&R->ph);
  if (barrier_wait(&b->bar, err)) return 1;
  if (timed) {
    R->gate_seq++;
    if (IS_LEAD(R)) __atomic_store_n(b->gate_host, R->gate_seq, __ATOMIC_SEQ_CST);
  }
  return 0;
}

/* timing.mode=host, nccl-tests' method: batches from .. to - 1, per batch this rank's stream
 * idle, a barrier of every rank, the host clock, -n AllReduces enqueued back to back with
 * nothing between them, a stream synchronize, the clock again; the rank's sample k is
 * (end - start) / -n. The batch sums in place (each AllReduce's output is the next one's
 * input; with nccl.rotate=on, a nccl row's on the buffer's next slice), so it has no inputs of
 * its own and no check: the checked iteration after it is the row's check. Returns 1 when a
 * barrier said some rank failed, else 0. */
static int host_batches(struct rank *R, int from, int to, int err) {
  struct bench *b = R->b;
  int iters = b->o->iters;
  for (int k = from; k < to; k++) {
    if (!err) err |= RK_CUDA(R, cudaStreamSynchronize(R->stream));
    if (barrier_wait(&b->bar, err)) return 1;
    ar_nvtx_push("host-timed batch %d: %d allreduces", k, iters);
    double t0 = bench_now_s();
    for (int i = 0; i < iters && !err; i++) err |= allreduce(R, R->stream, i);
    if (!err) err |= RK_CUDA(R, cudaStreamSynchronize(R->stream));
    double t1 = bench_now_s();
    ar_nvtx_pop();
    b->times[(size_t)R->rank * b->nsamp + k] = (t1 - t0) * 1e6 / iters;
  }
  return barrier_wait(&b->bar, err); /* every stream idle before the checked iteration's fill */
}

/* timing.mode=graph: -n AllReduces of rank R captured from its stream into *exec (instantiated
 * and, unless timing.graph_upload=off, uploaded; nothing run yet); 0, or -1 with R->graph_why set (the stream left out of
 * capture, CUDA's error cleared). Captured per batch, never replayed: a transport's flags
 * carry sequence numbers fixed at enqueue, which a second launch of one graph would reuse. */
static int graph_capture(struct rank *R, int iters, cudaGraphExec_t *exec) {
  struct bench *b = R->b;
  struct job *J = &b->job;
  cudaStream_t s = R->stream;
  cudaGraph_t g = NULL;
  const char *step = "cudaStreamBeginCapture";
  /* thread-local: the other ranks' threads go on with calls that a global capture forbids */
  cudaError_t e = cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
  for (int i = 0; i < iters && e == cudaSuccess; i++) {
    if (J->algo->flags & AR_ALGO_NATIVE) {
      void *d = nccl_data(R, i);
      ncclResult_t r = ncclAllReduce(d, d, J->nelem, nccl_type(b->o->dtype), ncclSum, R->comm, s);
      if (r != ncclSuccess) {
        snprintf(R->graph_why, sizeof(R->graph_why), "ncclAllReduce under capture: %s",
                 ncclGetErrorString(r));
        break;
      }
    } else {
      ar_status st = J->tp->enqueue(J->ctx, R->rank, s);
      if (st != AR_OK) {
        snprintf(R->graph_why, sizeof(R->graph_why), "its enqueue under capture: %s",
                 ar_status_str(st));
        break;
      }
    }
  }
  enum cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(s, &cs) == cudaSuccess && cs != cudaStreamCaptureStatusNone) {
    cudaError_t end = cudaStreamEndCapture(s, &g);
    if (e == cudaSuccess && end != cudaSuccess) e = end, step = "cudaStreamEndCapture";
  }
  if (e == cudaSuccess && !R->graph_why[0])
    e = cudaGraphInstantiate(exec, g, 0), step = "cudaGraphInstantiate";
  /* timing.graph_upload=off: the timed launch uploads, as nccl-tests' does */
  if (e == cudaSuccess && !R->graph_why[0] && b->graph_upload)
    e = cudaGraphUpload(*exec, s), step = "cudaGraphUpload";
  if (g) cudaGraphDestroy(g);
  if (e != cudaSuccess && !R->graph_why[0])
    snprintf(R->graph_why, sizeof(R->graph_why), "%s: %s", step, cudaGetErrorString(e));
  if (!R->graph_why[0]) return 0;
  cudaGetLastError(); /* the capture's error is this row's n/a, not the next call's */
  return -1;
}

/* timing.mode=graph: host_batches' shape (batches from .. to - 1), each batch's -n AllReduces
 * captured into one CUDA graph before its barrier and the graph's launch timed (nccl-tests
 * -G). Every rank learns whether any could not capture (over every process); then the job is
 * n/a with the first reason here, and nothing more runs. Returns 1 when a barrier said some
 * rank failed, 2 when the job became n/a, else 0. */
static int graph_batches(struct rank *R, int from, int to, int err) {
  struct bench *b = R->b;
  struct job *J = &b->job;
  int iters = b->o->iters;
  R->graph_why[0] = 0;
  for (int k = from; k < to; k++) {
    cudaGraphExec_t exec = NULL;
    if (!err) err |= RK_CUDA(R, cudaStreamSynchronize(R->stream));
    int failed = !err && graph_capture(R, iters, &exec);
    if (!err) err |= RK_CUDA(R, cudaStreamSynchronize(R->stream)); /* the upload, if any */
    b->graph_failed[R->rank] = failed;
    if (barrier_wait(&b->bar, err)) return 1;
    if (IS_LEAD(R)) { /* the other processes' ranks are 0 here until the sum */
      if (b->procs && hx_procs_sum_f64(b->graph_failed, (size_t)b->n)) hx_procs_abort(1);
      const char *why = NULL;
      int any = 0;
      for (int r = 0; r < b->n; r++) {
        any |= b->graph_failed[r] != 0;
        if (!why && b->graph_failed[r] && !b->rk[r].remote) why = b->rk[r].graph_why;
      }
      if (any) {
        J->state = JOB_NA;
        snprintf(J->reason, sizeof(J->reason), "timing.mode=graph: cannot be captured into a "
                 "CUDA graph (%s)", why ? why : "a rank of another process could not");
      }
    }
    if (barrier_wait(&b->bar, err)) return 1;
    if (J->state == JOB_NA) {
      if (exec) cudaGraphExecDestroy(exec);
      return 2;
    }
    ar_nvtx_push("graph-timed batch %d: %d allreduces", k, iters);
    double t0 = bench_now_s();
    if (!err) err |= RK_CUDA(R, cudaGraphLaunch(exec, R->stream));
    if (!err) err |= RK_CUDA(R, cudaStreamSynchronize(R->stream));
    double t1 = bench_now_s();
    ar_nvtx_pop();
    if (exec) cudaGraphExecDestroy(exec);
    b->times[(size_t)R->rank * b->nsamp + k] = (t1 - t0) * 1e6 / iters;
  }
  return barrier_wait(&b->bar, err); /* every stream idle before the checked iteration's fill */
}

/* --row-budget, after the warm-up: every rank's last warm-up AllReduce (its events), the
 * slowest over every process, and from it the job's timed iterations (hx_budget_iters), set
 * by each process's lead between two barriers, so that every rank runs the same count.
 * Returns 1 when a barrier said some rank failed, else 0. */
static int budget_decide(struct rank *R, int err) {
  struct bench *b = R->b;
  struct job *J = &b->job;
  float ms = 0;
  if (!err) err |= RK_CUDA(R, cudaStreamSynchronize(R->stream)); /* wend, and the check */
  if (!err) err |= RK_CUDA(R, cudaEventElapsedTime(&ms, R->wstart, R->wend));
  b->warm_us[R->rank] = err ? 0 : ms * 1e3;
  if (barrier_wait(&b->bar, err)) return 1;
  if (IS_LEAD(R)) { /* the other processes' ranks are 0 here until the sum */
    if (b->procs && hx_procs_sum_f64(b->warm_us, (size_t)b->n)) hx_procs_abort(1);
    double worst = 0;
    for (int r = 0; r < b->n; r++) worst = fmax(worst, b->warm_us[r]);
    J->iters = J->samples = hx_budget_iters(b->o->iters, b->o->row_budget_us, worst);
    J->total = J->warmup + J->iters;
    J->budget_limit = hx_budget_cap(b->o->row_budget_us, worst);
  }
  return barrier_wait(&b->bar, err);
}

/* Timed iterations from .. to - 1 of rank R: their events' times into b->times (its stream
 * done with them); 0 or 1. */
static int read_times(struct rank *R, int from, int to) {
  struct bench *b = R->b;
  int err = 0;
  for (int i = from; i < to && !err; i++) {
    float ms = 0;
    int slot = i % b->o->iters;
    err |= RK_CUDA(R, cudaEventElapsedTime(&ms, R->start[slot], R->end[slot]));
    b->times[(size_t)R->rank * b->nsamp + i] = ms * 1e3;
  }
  return err;
}

/* stats.ci_target, after a step of samples (from .. job.samples - 1 new; timing.mode=host or
 * graph: already in b->times): every rank's times read, gathered over every process, and the
 * decision (repeat_step) made by each process's lead on the same samples between two barriers,
 * so that every rank takes the same count. Returns 1 when a barrier said some rank failed. */
static int repeat_decide(struct rank *R, int from, int err) {
  struct bench *b = R->b;
  if (!b->host_timing && !err) err |= RK_CUDA(R, cudaStreamSynchronize(R->stream));
  if (!b->host_timing && !err) err |= read_times(R, from, b->job.samples);
  if (barrier_wait(&b->bar, err)) return 1;
  if (IS_LEAD(R)) {
    if (peers_times(b)) hx_procs_abort(1);
    repeat_step(b);
  }
  return barrier_wait(&b->bar, err);
}

/* Every rank: warm-up and timed iterations of the current job (timing.mode=host or graph:
 * warm-up, the host-timed batches, one checked iteration), then the results. 0 or 1. */
int job_run(struct rank *R) {
  struct bench *b = R->b;
  const struct run_opts *o = b->o;
  struct job *J = &b->job;
  int err = 0, stop = 0;
  cudaStream_t s = R->stream;
  err |= RK_CUDA(R, cudaSetDevice(R->dev));
  if (J->tp && !err) /* --phases: the rounds' marks (nothing without it) */
    err |= RK_CUDA(R, hx_phase_job_rounds(&R->ph, J->sched->nrounds));
  err |= RK_CUDA(R, cudaMemsetAsync(R->d_wrong, 0, (size_t)b->total * sizeof(*R->d_wrong), s));
  err |= RK_CUDA(R, cudaMemsetAsync(R->d_expired, 0, sizeof(*R->d_expired), s));
  int read = 0; /* samples whose times are in b->times */
  if (!b->host_timing) {
    int it = 0;
    for (; it < J->warmup && !stop; it++) stop = job_iteration(R, it, 0, err);
    if (R->wstart && !stop) stop = budget_decide(R, err);
    for (;;) { /* -n (or what the budget allows), then stats.ci_target's steps */
      for (; it < J->total && !stop; it++) stop = job_iteration(R, it, 1, err);
      if (stop || !(b->target > 0)) break;
      int had = J->samples;
      stop = repeat_decide(R, read, err);
      read = had;
      if (J->samples == had) break;
    }
  } else {
    for (int it = 0; it < o->warmup && !stop; it++) stop = job_iteration(R, it, 0, err);
    while (!stop) { /* timing.host_batches, then stats.ci_target's steps */
      int had = J->samples;
      stop = b->graph_timing ? graph_batches(R, read, had, err) : host_batches(R, read, had, err);
      read = had;
      if (stop || !(b->target > 0)) break;
      stop = repeat_decide(R, read, err);
      if (J->samples == had) break;
    }
    if (stop == 2) { /* n/a: no capture; the warm-up ran and was checked, the row says n/a */
      atomic_store(&b->done[R->rank], 1);
      return RK_CUDA(R, cudaStreamSynchronize(s));
    }
    if (!stop) stop = job_iteration(R, o->warmup, 0, err); /* the checked one: b->total's last */
  }
  if (stop) { /* someone failed: the gates stay shut, nothing more is enqueued */
    rank_fail(R, "rank %d: stopped because another rank failed", R->rank); /* unless it did */
    return 1;
  }
  if (RK_CUDA(R, cudaStreamSynchronize(s))) return 1;
  if (!b->host_timing) err |= read_times(R, read, J->iters);
  if (R->ph.nev) err |= RK_CUDA(R, hx_phase_collect(&R->ph, R->start[(J->iters - 1) % o->iters]));
  if (o->compute.kind && load_lanes(R, err)) { /* they reuse the start and end events */
    rank_fail(R, "rank %d: stopped because another rank failed", R->rank);
    return 1;
  }
  atomic_store(&b->done[R->rank], 1);
  err |= RK_CUDA(R, cudaMemcpy(b->wrong + (size_t)R->rank * b->total, R->d_wrong,
                               (size_t)b->total * sizeof(*R->d_wrong), cudaMemcpyDeviceToHost));
  err |= RK_CUDA(R, cudaMemcpy(&b->expired[R->rank], R->d_expired, sizeof(unsigned),
                               cudaMemcpyDeviceToHost));
  if (R->d_starts)
    err |= RK_CUDA(R, cudaMemcpy(b->starts + (size_t)R->rank * b->nsamp, R->d_starts,
                                 (size_t)b->nsamp * sizeof(uint64_t), cudaMemcpyDeviceToHost));
  return err;
}
