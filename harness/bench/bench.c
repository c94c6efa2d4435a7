/* The GPU benchmark. One pthread per GPU owns its device, stream, events,
 * data buffer and NCCL communicator; all threads walk the same list of jobs (size x algorithm x
 * transport) in lockstep, separated by a barrier, and rank 0's thread does the single-threaded
 * parts (transport setup and teardown, statistics, the CSV row) while the others wait.
 *
 * One iteration on rank r's stream:
 *   [gate] wait on every rank's `finished` (of the last iteration), fill inputs, record ready
 *   | barrier | wait on every rank's ready, record start, [straggler delay], the AllReduce,
 *   record end, check, record finished | barrier | rank 0 opens the gates
 * The inputs of every iteration, warm-up included, come from a seed of their own (a counter
 * over the whole process, cuda/inputs.h), and every iteration's result is checked against
 * the sums for that seed: a transport that reads data of an earlier iteration (a scratch
 * slot or a peer's buffer read before this iteration's data landed) sums other values and
 * is counted wrong, in a warm-up iteration as in a timed one.
 * The gate (timed iterations only) holds the stream until every rank's host has enqueued the
 * whole iteration, so host launch overhead never lands between the start and end events; the
 * cross-GPU waits align the start events; the fill and the check sit outside them. A gate
 * opens by itself after 100 ms, when a program too long for the GPU's queue blocks its host
 * behind the gate (the row then warns that launch overhead is inside those iterations). The
 * iteration time is the largest (end - start) over the ranks: with a straggler, from the
 * non-stragglers' entry (every rank's start event, aligned) to the last rank's finish; the
 * straggler-aware schedules' precondition runs at once on the others' streams (dataflow), so
 * it overlaps the delay, while every other schedule waits for the straggler's data.
 *
 * With timing.mode=host (nccl-tests' method) the timed iterations are replaced by batches:
 * after the warm-up, per batch, a barrier, the host clock around -n AllReduces enqueued back
 * to back and a stream synchronize; then one more iteration of the shape above, checked
 * (bench_rank.c's host_batches). The row's samples are the batches, each the mean over the
 * ranks of (end - start) / -n, as nccl-tests averages its ranks.
 *
 * With timing.mode=graph (nccl-tests -G) each batch's -n AllReduces are first captured into
 * one CUDA graph (outside the time), and the batch times its launch and a stream synchronize;
 * a transport whose AllReduce cannot be captured makes the row n/a with CUDA's reason.
 *
 * A row's samples are its timed iterations (host and graph: its batches), written to
 * samples.csv before its line in results.csv. With stats.ci_target a row takes its -n (or
 * timing.host_batches), then as many more at a time until the median's interval is tight, its
 * row budget ends or stats.max_iters: after each step every rank's times are gathered (over
 * every process) and each process's lead makes the same decision between two barriers
 * (bench_rank.c's repeat_decide), so every rank runs the same count. Timed iterations reuse
 * -n events (a step takes -n at most, read before the next).
 *
 * Jobs come from a list (the size sweep) or, with --find-critical, from the critical-delay
 * search (critical.c), which picks each next (size, algorithm, transport, delay) from the
 * times measured so far. */
#include "bench/bench_int.h"
#include "procs/procs.h"
#include "profile/trace.h"

const char hx_delays_header[] =
    "scenario,algorithm,transport,bytes,iteration,straggler_rank,delay_us,time_us";
const char hx_critical_header[] =
    "bytes,algorithm,baseline,critical_delay_us,model_critical_delay_us,n_gpus,straggler_rank,"
    "transport,status,probes,scenario,note";

static int next_job(struct bench *b);

/* A rank's thread: set up, walk every job in lockstep, tear down. */
static void *rank_main(void *arg) {
  struct rank *R = arg;
  struct bench *b = R->b;
  char name[16];
  snprintf(name, sizeof(name), "rank %d", R->rank);
  pthread_setname_np(pthread_self(), name);
  ar_nvtx_name_thread(name);
  int err = rank_init(R);
  if (!err) err = RK_CUDA(R, hx_phase_rank_init(&R->ph, b->o->phases));
  if (!err) ar_nvtx_name_stream(R->stream, name);
  if (err) fprintf(stderr, "arbench: %s (initialisation)\n", R->err); /* peers may hang now */
  else atomic_store(&b->done[R->rank], 1);
  if (barrier_wait(&b->bar, err)) {
    if (IS_LEAD(R)) b->failed = 2;
    rank_free(R);
    return NULL;
  }
  if (IS_LEAD(R)) /* the other processes' buffers and events, mapped here */
    err = peers_open(b);
  if (barrier_wait(&b->bar, err)) {
    if (IS_LEAD(R)) b->failed = 2;
    rank_free(R);
    return NULL;
  }
  size_t cap = b->rk[0].cap; /* every rank's caps are known: the bytes every buffer holds */
  for (int r = 1; r < b->n; r++) cap = b->rk[r].cap < cap ? b->rk[r].cap : cap;
  data_register(R, cap); /* nccl.registration (bench_buf.c); a failure makes nccl rows n/a */
  barrier_wait(&b->bar, 0);
  if (IS_LEAD(R)) {
    wd_end(b);
    b->cap = cap;
    b->nccl_na[0] = 0;
    for (int r = 0; r < b->n; r++) {
      b->world.comm[r] = b->rk[r].comm;
      b->world.data[r] = b->rk[r].data;
      if (!b->nccl_na[0] && b->rk[r].reg_why[0]) /* the first rank's reason */
        snprintf(b->nccl_na, sizeof(b->nccl_na), "%s", b->rk[r].reg_why);
    }
    b->world.data_bytes = b->cap;
    table_header(b);
  }
  for (;;) {
    if (IS_LEAD(R)) b->have_job = next_job(b);
    barrier_wait(&b->bar, 0);
    if (!b->have_job) break;
    if (b->job.state == JOB_RUN) {
      const struct job *J = &b->job; /* the straggler takes no part in the precondition */
      const struct ar_schedule *sc = J->tp ? J->sched : NULL;
      hx_phase_job_begin(&R->ph, J->bytes, J->algo->name, J->ex,
                         sc && sc->straggler != R->rank ? sc->nprecond : 0);
      job_run(R);
      hx_phase_job_end(&R->ph);
    }
    barrier_wait(&b->bar, 0);
    if (IS_LEAD(R)) job_finish(b);
  }
  if (IS_LEAD(R)) peers_close(b);
  barrier_wait(&b->bar, 0);
  rank_free(R);
  return NULL;
}

/* Rank 0: the critical-delay search's candidates (every algorithm on one side, on each
 * transport; nccl once) and the model's price of each schedule. */

volatile sig_atomic_t hx_stop_signal;
int hx_stopped_early;
void (*hx_on_timeout)(const char *what);

/* Process 0: the next job (NULL: none left, or a stop was asked for). */
static const struct job_desc *pick_job(struct bench *b) {
  if (hx_stop_signal) { /* stopped: no new row, the rows written are whole */
    if (b->crit.on ? b->crit.size < b->o->nsizes : b->next < b->plan.nrows) hx_stopped_early = 1;
    return NULL;
  }
  if (!b->crit.on) {
    if (b->next >= b->plan.nrows) return NULL;
    b->sweep_job = (struct job_desc){b->next++, -1};
    return &b->sweep_job;
  }
  struct crit_state *c = &b->crit;
  while (c->size < b->o->nsizes) {
    if (!c->started) {
      crit_init(&c->cs, c->ncand, c->cand_target, b->o->crit_max_us);
      c->started = 1;
      c->rows = 0;
      c->seconds = 0;
    }
    int k;
    double d;
    if (crit_next(&c->cs, &k, &d)) {
      c->desc = (struct job_desc){b->plan.size_row[c->size] + k, d};
      return &c->desc;
    }
    crit_report(b);
    c->size++;
    c->started = 0;
  }
  return NULL;
}

/* The lead of every process: the next job, chosen by process 0 (the critical search decides on
 * its measurements) and sent to the others, then prepared here; 0 when there is none. */
static int next_job(struct bench *b) {
  if (!b->procs) {
    const struct job_desc *d = pick_job(b);
    if (d) job_prepare(b, d);
    return d != NULL;
  }
  struct sent_job { /* every process holds the same plan: a row's index says the row */
    int have;
    struct job_desc d;
  } m = {0, {0, -1}};
  if (IS_ROOT(b)) {
    const struct job_desc *d = pick_job(b);
    if (d) m = (struct sent_job){1, *d};
  }
  if (hx_procs_bcast(&m, sizeof(m), 0)) hx_procs_abort(1);
  if (!m.have) return 0;
  b->sent = m.d;
  job_prepare(b, &b->sent);
  return 1;
}

/* The SMs each rank's waiting kernels may occupy (transport.h): its GPU's, shared evenly by
 * the ranks on it; 0, or -1 when a GPU cannot be asked. */
static int share_sms(struct bench *b) {
  for (int r = b->first; r < b->first + b->nlocal; r++) {
    int sms = 0;
    cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, b->rk[r].dev);
    if (e != cudaSuccess) {
      fprintf(stderr, "arbench: GPU %d: cudaDeviceGetAttribute: %s\n", b->rk[r].dev,
              cudaGetErrorString(e));
      return -1;
    }
    if (sms < b->cfg->place.share[r]) { /* a rank without an SM of its own could starve */
      fprintf(stderr, "arbench: GPU %d has %d SMs, fewer than the %d ranks placed on it "
              "(--gpus/--ranks)\n", b->rk[r].dev, sms, b->cfg->place.share[r]);
      return -1;
    }
    b->world.sms[r] = ar_place_sms(&b->cfg->place, r, sms);
  }
  return 0;
}

/* Prints the devices block that opens the table. */
static void print_devices(struct bench *b) {
  const struct run_opts *o = b->o;
  char detail[256];
  printf("# placement: %s (%s)", b->placement, ar_place_detail(&b->cfg->place, detail,
                                                              sizeof(detail)));
  if (b->colocated) {
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, b->rk[b->first].dev);
    printf("; each rank's waiting kernels on %d of GPU %d's %d SMs", b->world.sms[b->first],
           b->rk[b->first].dev, sms);
  }
  printf("\n");
  if (b->settings[0]) printf("# settings: %s (--set; the rest at their defaults)\n", b->settings);
  printf("# arbench: %d ranks, %s, sizes %llu..%llu B (%d), iters %d, warmup %d, check %d\n",
         b->n, ar_dtype_name(o->dtype), (unsigned long long)o->sizes[0].bytes,
         (unsigned long long)o->sizes[o->nsizes - 1].bytes, o->nsizes, o->iters, o->warmup, o->check);
  if (o->row_budget_us > 0)
    printf("# row budget %g ms: each row's timed iterations cut to what fits it at its last "
           "warm-up iteration's pace (slowest rank), %d at least; results.csv's iters column "
           "holds the count\n", o->row_budget_us / 1e3,
           o->iters < HX_BUDGET_MIN_ITERS ? o->iters : HX_BUDGET_MIN_ITERS);
  if (b->target > 0)
    printf("# stats.ci_target %g: each row takes %d more %s at a time until the larger half of "
           "its median's 95%% interval is within %g%% of the median, %s%d are taken "
           "(results.csv's n_samples and repeat_stop)\n", b->target, b->step,
           b->host_timing ? "batches" : "timed iterations", b->target * 100,
           o->row_budget_us > 0 ? "its row budget ends or " : "or ", b->nsamp);
  if (b->graph_timing)
    printf("# timing.mode=graph: per row %d batches of %d AllReduces captured into one CUDA "
           "graph, its launch timed on the host (nccl-tests -G), then one checked iteration\n",
           b->step, o->iters);
  else if (b->host_timing)
    printf("# timing.mode=host: per row %d batches of %d back-to-back AllReduces timed on the "
           "host (nccl-tests' method), then one checked iteration\n", b->step, o->iters);
  printf("# driver %s, CUDA runtime %s, NCCL %s, run %s\n", b->cfg->meta->driver,
         b->cfg->meta->cuda, b->cfg->meta->nccl, b->cfg->run_id);
  if (b->procs)
    printf("# %d processes (%s), %d rank%s each\n", hx_procs_count(), hx_procs_library(),
           b->nlocal, b->nlocal == 1 ? "" : "s");
  for (int r = 0; r < b->n; r++) printf("#  rank %2d: %s\n", r, b->cfg->meta->rank[r]);
  fflush(stdout);
}

int hx_bench_run(const struct hx_bench_cfg *cfg) {
  struct bench *b = calloc(1, sizeof(*b));
  if (!b) return 1;
  const struct run_opts *o = cfg->o;
  b->cfg = cfg;
  b->o = o;
  b->n = cfg->n;
  b->first = cfg->first;
  b->nlocal = cfg->nlocal;
  b->procs = hx_procs_count() > 1;
  b->host_timing = ar_setting_value(&o->settings, AR_SET_TIMING_MODE) != 0;
  /* read once here, not per AllReduce in the timed batches */
  b->nccl_rotate = ar_setting_value(&o->settings, AR_SET_NCCL_ROTATE) != 0;
  b->graph_upload = ar_setting_value(&o->settings, AR_SET_TIMING_GRAPH_UPLOAD) == 0;
  b->graph_timing = ar_setting_value(&o->settings, AR_SET_TIMING_MODE) == HX_TIMING_GRAPH;
  b->step = b->host_timing ? (int)ar_setting_value(&o->settings, AR_SET_TIMING_HOST_BATCHES)
                           : o->iters;
  b->target = ar_setting_value(&o->settings, AR_SET_STATS_CI_TARGET);
  b->max_iters = (int)ar_setting_value(&o->settings, AR_SET_STATS_MAX_ITERS);
  b->nsamp = b->target > 0 && b->max_iters > b->step ? b->max_iters : b->step;
  b->total = o->warmup + (b->host_timing ? 1 : b->nsamp);
  b->esize = o->sizes[0].esize; /* every size was resolved against the one dtype */
  b->bar.n = b->nlocal;
  b->bar.procs = b->procs;
  b->world.n = b->n;
  b->world.peers = b->procs ? &b->peers : NULL;
  b->colocated = ar_place_colocated(&cfg->place);
  ar_place_text(&cfg->place, b->placement, sizeof(b->placement));
  ar_settings_text(&o->settings, b->settings, sizeof(b->settings));
  ar_settings_apply(&o->settings); /* the model's threads (the estimate); the transports and
                                     * the lowering take o->settings as arguments */
  pthread_mutex_init(&b->wd_mu, NULL);
  setenv("NCCL_NVLS_ENABLE", "0", 1); /* NVLink multicast can take a shared host's GPUs down */
  int rc = 1;
  b->times = calloc((size_t)b->n * b->nsamp, sizeof(*b->times));
  b->row_t = calloc((size_t)b->nsamp, sizeof(*b->row_t));
  b->wrong = calloc((size_t)b->n * b->total, sizeof(*b->wrong));
  if (ar_setting_value(&o->settings, AR_SET_TIMING_START_SKEW))
    b->starts = calloc((size_t)b->n * b->nsamp, sizeof(*b->starts));
  b->delays = calloc((size_t)(o->nst ? o->nst : 1) * b->total, sizeof(*b->delays));
  struct plan_where where = {b->colocated, cfg->nhosts, b->placement};
  if (!b->times || !b->row_t || !b->wrong || !b->delays || load_bench_init(b) ||
      plan_build(&b->plan, o, b->n, &where)) {
    fprintf(stderr, "arbench: out of host memory\n");
    goto out;
  }
  for (int r = 0; r < b->n; r++) {
    struct rank *R = &b->rk[r];
    R->b = b;
    R->rank = r;
    R->dev = cfg->dev[r];
    R->remote = r < b->first || r >= b->first + b->nlocal;
    R->host = cfg->host[r];
    b->world.remote[r] = (unsigned char)R->remote;
    b->world.gpu[r] = cfg->gpu[r];
    R->straggler_k = -1;
    for (int k = 0; k < o->nst; k++)
      if (o->st[k].rank == r) R->straggler_k = k;
    b->world.dev[r] = R->dev;
  }
  if (share_sms(b)) goto out;
  if (o->find_critical) crit_setup(b);
  if (o->profile && !o->compute.kind && cfg->csv) /* --compute: no overlap figures (bench_row.c) */
    b->overlap_csv = hx_overlap_csv(cfg->csv->path);
  if ((o->profile & HX_PROFILE_TIMELINE) && cfg->csv) {
    hx_trace_run(cfg->csv->path); /* trace.json beside timeline.csv, the same records */
    b->timeline_csv = hx_timeline_csv(cfg->csv->path);
  }
  print_devices(b);
  ncclResult_t nr = IS_ROOT(b) ? ncclGetUniqueId(&b->id) : ncclSuccess;
  if (nr != ncclSuccess) fprintf(stderr, "arbench: ncclGetUniqueId: %s\n", ncclGetErrorString(nr));
  if (hx_procs_barrier(nr != ncclSuccess)) goto out;
  if (hx_procs_bcast(&b->id, sizeof(b->id), 0)) goto out; /* NCCL's bootstrap, through MPI */
  cudaError_t ce = cudaSetDevice(cfg->dev[b->first]);
  void *gate = NULL;
  if (ce == cudaSuccess)
    ce = cudaHostAlloc(&gate, sizeof(unsigned long long), cudaHostAllocMapped | cudaHostAllocPortable);
  if (ce != cudaSuccess) {
    fprintf(stderr, "arbench: GPU %d: cudaHostAlloc (launch gate): %s\n", cfg->dev[b->first],
            cudaGetErrorString(ce));
    goto out;
  }
  b->gate_host = gate;
  *b->gate_host = 0;
  for (int r = 0; r < b->n; r++) b->rk[r].gate_seq = 0;
  if (pthread_create(&b->wd_th, NULL, wd_main, b)) goto out;
  wd_begin(b, "initialisation (peer access, ncclCommInitRank, buffers)", NULL);
  for (int r = b->first; r < b->first + b->nlocal; r++)
    if (pthread_create(&b->rk[r].th, NULL, rank_main, &b->rk[r])) {
      fprintf(stderr, "arbench: cannot start the thread of rank %d\n", r);
      hx_procs_abort(1); /* the started threads wait in ncclCommInitRank for the missing one */
    }
  for (int r = b->first; r < b->first + b->nlocal; r++) pthread_join(b->rk[r].th, NULL);
  pthread_mutex_lock(&b->wd_mu);
  b->wd_stop = 1;
  pthread_mutex_unlock(&b->wd_mu);
  pthread_join(b->wd_th, NULL);
  progress_clear(b);
  rc = b->failed ? 1 : 0;
  cudaFreeHost(gate);
out:
  if (b->plan.o) plan_free(&b->plan);
  free(b->times);
  free(b->row_t);
  free(b->wrong);
  free(b->starts);
  free(b->delays);
  load_bench_free(b);
  free(b);
  return rc;
}

int hx_selftest_delay(int dev) {
  static const double req[] = {100, 1000, 8000};
  cudaStream_t s;
  struct cudaDeviceProp prop;
  cudaError_t e = cudaSetDevice(dev);
  if (e == cudaSuccess) e = cudaGetDeviceProperties(&prop, dev);
  if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  if (e != cudaSuccess) {
    fprintf(stderr, "arbench: self-test delay: GPU %d: %s\n", dev, cudaGetErrorString(e));
    return 1;
  }
  printf("# self-test delay on GPU %d (%s): CUDA events around the %%globaltimer spin kernel,\n"
         "# median of 20, the stream kept busy while the host enqueues (as in a timed "
         "iteration)\n", dev, prop.name);
  double bias = 0;
  int fail = ar_delay_calibrate(s, &bias) != AR_OK;
  printf("# fixed cost of a kernel between two events: %.2f us, subtracted from every delay%s\n",
         bias, fail ? " (calibration FAILED)" : "");
  printf("%12s %12s %10s %12s %7s\n", "requested_us", "measured_us", "error_%", "uncorr_us",
         "result");
  for (size_t i = 0; i < sizeof(req) / sizeof(req[0]); i++) {
    double m = 0, raw = 0;
    if (ar_delay_measure(req[i], 0, 20, s, &m) != AR_OK ||
        ar_delay_measure(req[i], 1, 20, s, &raw) != AR_OK) {
      fprintf(stderr, "arbench: self-test delay: GPU %d: the measurement failed\n", dev);
      fail = 1;
      break;
    }
    double err = 100 * (m - req[i]) / req[i];
    int ok = fabs(err) <= 1.0; /* the delay promised: within 1% at >= 100 us */
    fail |= !ok;
    printf("%12.1f %12.2f %10.3f %12.2f %7s\n", req[i], m, err, raw, ok ? "pass" : "FAIL");
  }
  printf("self-test delay: %s\n", fail ? "FAIL" : "pass");
  fflush(stdout);
  cudaStreamDestroy(s);
  return fail;
}
