/* A job's life on rank 0: prepared (schedule, memory, transport setup), then finished into
 * its statistics, CSV row, table line and side files (delays, phases, overlap). */
#include "bench/bench_int.h"
#include "procs/procs.h"

/* ---- rows ---- */

/* Writes v with 3 decimals, trailing zeros (and a bare point) dropped, into buf; returns buf. */
static char *num_text(char *buf, size_t len, double v) {
  snprintf(buf, len, "%.3f", v);
  if (strchr(buf, '.')) {
    size_t k = strlen(buf);
    while (k > 0 && buf[k - 1] == '0') buf[--k] = 0;
    if (k > 0 && buf[k - 1] == '.') buf[--k] = 0;
  }
  return buf;
}

/* Rank 0: the current job's `stragglers` and `degraded` columns into b->st_text and
 * b->dg_text: every straggler as RANK:DELAY (us, the mean over the timed iterations, as
 * delay_us) and every degraded GPU as RANK:FACTOR, in the order given, joined by ';'. The
 * fixed columns straggler_rank and degraded_rank name only the first of each. */
static void row_lists(struct bench *b) {
  const struct run_opts *o = b->o;
  size_t k = 0;
  char v[48];
  b->st_text[0] = b->dg_text[0] = 0;
  const struct job *J = &b->job;
  for (int s = 0; s < o->nst && k < sizeof(b->st_text); s++) {
    double sum = 0;
    for (int it = J->warmup; it < J->total; it++) sum += b->delays[s * b->total + it];
    k += (size_t)snprintf(b->st_text + k, sizeof(b->st_text) - k, "%s%d:%s", s ? ";" : "",
                          o->st[s].rank, num_text(v, sizeof(v), sum / J->iters));
  }
  k = 0;
  for (int g = 0; g < o->dg.n && k < sizeof(b->dg_text); g++)
    k += (size_t)snprintf(b->dg_text + k, sizeof(b->dg_text) - k, "%s%d:%g", g ? ";" : "",
                          o->dg.rank[g], o->dg.factor[g]);
}

/* The CSV row of the current job with every measured field empty. */
static void row_base(struct bench *b, struct hx_csv_row *row, char *ts, size_t tslen) {
  const struct hx_meta *m = b->cfg->meta;
  const struct job *J = &b->job;
  memset(row, 0, sizeof(*row));
  row->run_id = b->cfg->run_id;
  row->timestamp = hx_utc_iso(ts, tslen);
  row->host = m->host;
  row->gpu = m->gpu;
  row->n_gpus = b->n;
  row->driver = m->driver;
  row->cuda = m->cuda;
  row->nccl = m->nccl;
  row->source = "gpu";
  row->algorithm = J->algo->name;
  row->transport = J->ex->name;
  row->pipeline = J->tp ? J->pipeline_used : 1; /* the count used (--pipeline 0: chosen) */
  if (J->tp && (J->algo->flags & AR_ALGO_DEGRADE_AWARE)) /* OPTCC: the k segments it built */
    row->pipeline = J->sched->segments;
  row->dtype = ar_dtype_name(b->o->dtype);
  row->bytes = J->bytes;
  row->straggler_rank = b->o->nst ? b->o->st[0].rank : -1;
  row->delay_us = 0;
  row->degraded_rank = b->o->dg.n ? b->o->dg.rank[0] : -1;
  row->factor = b->o->dg.n ? b->o->dg.factor[0] : 1;
  row->iters = J->iters; /* the count used (--row-budget) */
  row->t.n = 0;
  row->time_after_arrival_us = row->algbw_gbps = row->busbw_gbps = row->model_time_us = NAN;
  row->wrong = -1;
  row->status = "error";
  row->lower_bound_us = sweep_lower_bound_us(b->o, b->n, J->bytes); /* NaN unless degraded */
  row->scenario = b->o->scenario; /* empty for a plain command line */
  row_lists(b);
  row->stragglers = b->st_text;
  row->degraded = b->dg_text;
  row->placement = b->placement;
  row->settings = b->settings;
}

/* Prints the stdout table's header. */
void table_header(struct bench *b) {
  if (b->colocated)
    printf("#\n# co-located ranks (%s): these timings measure one GPU's memory system, not "
           "NVLink;\n# use them for correctness and smoke runs, not to compare algorithms\n",
           b->placement);
  printf("#\n#%12s %12s %8s %12s %10s %10s %8s %8s %7s %7s%s\n", "size", "count", "type",
         "algorithm", "transport", "time", "algbw", "busbw", "#wrong", "status",
         b->o->nst ? "      delay      after" : "");
  printf("#%12s %12s %8s %12s %10s %10s %8s %8s %7s %7s%s\n", "(B)", "(elements)", "", "", "",
         "(us)", "(GB/s)", "(GB/s)", "", "", b->o->nst ? "       (us)       (us)" : "");
  fflush(stdout);
}

/* Prints one table line for a row. */
static void table_row(struct bench *b, const struct hx_csv_row *row) {
  char wrong[32] = "-";
  if (row->wrong >= 0) snprintf(wrong, sizeof(wrong), "%lld", row->wrong);
  printf(" %12llu %12zu %8s %12s %10s", (unsigned long long)row->bytes, b->job.nelem, row->dtype,
         row->algorithm, row->transport);
  if (row->t.n > 0)
    printf(" %10.2f %8.2f %8.2f", row->t.median, row->algbw_gbps, row->busbw_gbps);
  else
    printf(" %10s %8s %8s", "-", "-", "-");
  printf(" %7s %7s", wrong, row->status);
  if (b->o->nst && row->t.n > 0) printf(" %10.1f %10.2f", row->delay_us, row->time_after_arrival_us);
  printf("\n");
  fflush(stdout);
}

/* Rank 0: shows the progress line for the row about to start (see struct hx_progress). */
static void progress_show(struct bench *b, const char *label) {
  struct hx_progress *p = b->cfg->progress;
  if (!p || !p->on) return;
  double now = bench_now_s();
  if (!p->tty && p->done > 0 && now - p->last < 10) return;
  char line[512], lab[400];
  snprintf(lab, sizeof(lab), "%s%s%s", b->o->scenario, b->o->scenario[0] ? ": " : "", label);
  hx_progress_format(line, sizeof(line), p, now, lab);
  if (p->tty) fprintf(stderr, "\r%-119.119s", line);
  else fprintf(stderr, "%s\n", line);
  p->last = now;
}

/* Clears a terminal's progress line before stdout writes over it. */
void progress_clear(struct bench *b) {
  struct hx_progress *p = b->cfg->progress;
  if (p && p->on && p->tty) fprintf(stderr, "\r%119s\r", "");
}


/* ---- one job: prepared and finished by rank 0, measured by all ---- */

/* The inputs' seed of the next job's first iteration: a counter over the whole process (every
 * scenario of a run), so that no two iterations of a run share their inputs. Rank 0's thread
 * only (job_prepare). */
static unsigned long long seed_next = 1;

/* Rank 0: resolves a job (schedule, memory, transport setup) into b->job. */
void job_prepare(struct bench *b, const struct job_desc *d) {
  const struct run_opts *o = b->o;
  struct job *J = &b->job;
  memset(J, 0, sizeof(*J));
  J->pipeline_used = o->pipeline;
  J->index = b->plan.rows[d->row].size_idx; /* uniform delay draws depend on the size only:
                                             * fair to every algorithm */
  J->d = d;
  J->row = &b->plan.rows[d->row];
  J->ex = J->row->ex;
  J->algo = o->algos[J->row->algo_idx];
  J->nelem = o->sizes[J->row->size_idx].nelem;
  J->bytes = o->sizes[J->row->size_idx].bytes;
  J->state = JOB_RUN;
  J->warmup = o->warmup; /* until --row-budget cuts iters after the warm-up (job_run) */
  J->iters = o->iters;
  J->total = J->warmup + (b->host_timing ? 1 : J->iters); /* stats.ci_target may add more */
  J->samples = b->step;
  J->budget_limit = INT_MAX;
  J->stop = HX_REPEAT_FIXED;
  memset(b->warm_us, 0, sizeof(b->warm_us));
  J->seed0 = seed_next; /* --compute: the AllReduces beside the load take as many more */
  seed_next += (unsigned long long)b->total * (o->compute.kind ? 2 : 1);
  J->sched = plan_schedule(&b->plan, J->row); /* OPTCC's k at this size */
  /* every straggler's delay of every iteration, before the row (its stragglers column) */
  for (int k = 0; k < o->nst; k++)
    for (int it = 0; it < b->total; it++)
      b->delays[k * b->total + it] =
          k == 0 && d->delay_us >= 0 ? d->delay_us : sweep_delay_us(o, k, J->index, it);

  char label[256], ts[32], dl[48] = "";
  if (d->delay_us >= 0) snprintf(dl, sizeof(dl), ", delay %.1f ms", d->delay_us / 1000);
  snprintf(label, sizeof(label), "size %llu B, algorithm %s, transport %s%s",
           (unsigned long long)J->bytes, J->algo->name, J->ex->name, dl);
  struct hx_csv_row row;
  row_base(b, &row, ts, sizeof(ts));
  wd_begin(b, label, &row);
  ar_log(AR_LOG_INFO, "job %d: %s", b->cfg->progress ? b->cfg->progress->done + 1 : 0, label);
  progress_show(b, label);

  /* the plan's decision: the schedule at this size, then the executor and the placement */
  int a = J->row->algo_idx;
  const char *na = sweep_row_na(o, a, b->plan.sched, b->plan.st);
  if (na || J->row->ex_na) {
    ar_status st = b->plan.st[a];
    J->state = na && st != AR_ERR_UNSUPPORTED ? JOB_ERROR : JOB_NA;
    snprintf(J->reason, sizeof(J->reason), "%s", na ? na : J->row->ex_na);
    return;
  }
  int native = J->ex->id == AR_EX_NCCL;
  if (native && b->nccl_na[0]) { /* nccl.registration could not be had */
    J->state = JOB_NA;
    snprintf(J->reason, sizeof(J->reason), "%s", b->nccl_na);
    return;
  }
  if (J->bytes > b->cap) {
    J->state = JOB_OOM;
    snprintf(J->reason, sizeof(J->reason), "%llu bytes do not fit the data buffer (%zu)",
             (unsigned long long)J->bytes, b->cap);
    return;
  }
  if (!native) {
    J->tp = tp_ops_of(J->ex->id);
    if (!J->tp) {
      J->state = JOB_ERROR;
      snprintf(J->reason, sizeof(J->reason), "no transport named %s", J->ex->name);
      return;
    }
    struct tp_job tj = {.sched = J->sched, .nelem = J->nelem,
                        .dtype = o->dtype, .pipeline = o->pipeline,
                        .pipeline_used = &J->pipeline_used,
                        .marks = o->phases ? (struct tp_marks *const *)b->marks : NULL,
                        .settings = &o->settings};
    tj.degrade.n = o->dg.n; /* degraded-link emulation (transport.h); 0: healthy */
    tj.degrade.bw = o->degrade_bw;
    int net_dg = o->dg.n > 0 && ar_setting_value(&o->settings, AR_SET_DEGRADE_NETWORK_BW) > 0;
    tj.degrade.per_host = net_dg ? o->gpus_per_node : 0; /* only bytes between hosts slow */
    for (int g = 0; g < o->dg.n; g++) {
      tj.degrade.rank[g] = o->dg.rank[g];
      tj.degrade.factor[g] = o->dg.factor[g];
    }
    b->world.data_bytes = b->cap;
    ar_status st = J->tp->setup(&b->world, &tj, &J->ctx, J->reason, sizeof(J->reason));
    cudaSetDevice(b->rk[b->first].dev); /* setup may have moved this thread to another device */
    if (st != AR_OK) {
      J->ctx = NULL;
      J->state = st == AR_ERR_UNSUPPORTED ? JOB_NA : st == AR_ERR_OOM ? JOB_OOM : JOB_ERROR;
      if (!J->reason[0]) snprintf(J->reason, sizeof(J->reason), "setup: %s", ar_status_str(st));
    }
  }
  /* --profile: every GPU is idle and the setup's own copies are done */
  if (J->state == JOB_RUN && o->profile) J->profiling = hx_profile_begin((unsigned)o->profile) == 0;
}

/* timing.start_skew: how far apart the ranks' starts were (the latest stamp minus the
 * earliest, per timed iteration), as a table line. */
static void start_skew(struct bench *b) {
  int it = b->job.iters, stride = b->nsamp;
  double *skew = malloc((size_t)it * sizeof(double));
  struct hx_stats st;
  if (!skew) return;
  for (int i = 0; i < it; i++) {
    unsigned long long lo = ~0ull, hi = 0;
    for (int r = 0; r < b->n; r++) {
      unsigned long long t = b->starts[(size_t)r * stride + i];
      lo = t < lo ? t : lo;
      hi = t > hi ? t : hi;
    }
    skew[i] = (double)(hi - lo) * 1e-3;
  }
  if (!hx_stats_compute(skew, it, &st))
    printf("#   start skew over the ranks (us): median %.2f, max %.2f%s\n", st.median, st.max,
           b->cfg->place.ndev > 1 ? " (several GPUs: their clocks' offsets included)" : "");
  free(skew);
}

/* Rank 0: writes every timed iteration's delays and time of the finished job to delays.csv. */
static void write_delays(struct bench *b, const double *t) {
  FILE *f = b->cfg->delays_csv;
  const struct job *J = &b->job;
  if (!f || !t) return;
  for (int i = 0; i < J->iters; i++)
    for (int k = 0; k < b->o->nst; k++) {
      hx_csv_field(f, b->o->scenario);
      fputc(',', f);
      hx_csv_field(f, J->algo->name);
      fprintf(f, ",%s,%llu,%d,%d,%.3f,%.3f\n", J->ex->name, (unsigned long long)J->bytes, i,
              b->o->st[k].rank, b->delays[k * b->total + J->warmup + i], t[i]);
    }
  fflush(f);
}

/* Rank 0: writes every rank's phases of the job's last timed iteration to phases.csv. */
static void write_phases(struct bench *b) {
  const struct job *J = &b->job;
  const struct hx_phase_rank *ph[HX_MAX_DEVS];
  double dmax = 0;
  if (!b->cfg->phases_csv) return;
  for (int r = 0; r < b->n; r++) ph[r] = &b->rk[r].ph;
  for (int k = 0; k < b->o->nst; k++) dmax = fmax(dmax, b->delays[k * b->total + J->total - 1]);
  struct hx_phase_job pj = {b->cfg->run_id, b->o->scenario, J->algo->name, J->ex->name,
                            J->bytes, J->iters - 1, dmax};
  if (hx_phase_write(b->cfg->phases_csv, &pj, ph, b->n))
    ar_log(AR_LOG_WARN, "could not write phases.csv");
}

/* Rank 0, every rank idle: --profile's figures of the finished job into the row's overlap
 * columns and overlap.csv, and with timeline its records into timeline.csv (nothing when the
 * job was not profiled or CUPTI failed). */
static void job_overlap(struct bench *b, struct hx_csv_row *row) {
  struct job *J = &b->job;
  struct hx_overlap ov[HX_MAX_DEVS];
  if (!J->profiling) return;
  J->profiling = 0;
  /* a rank failed: the process ends at once (a flush could wait on a faulted GPU) */
  for (int r = 0; r < b->n; r++)
    if (b->rk[r].err[0]) return;
  if (hx_profile_end(b->cfg->dev, b->n, J->total, ov)) return;
  struct hx_overlap_job oj = {b->cfg->run_id, J->algo->name, J->ex->name, b->o->scenario,
                              J->bytes, J->total};
  /* --compute: the records hold a row's three lanes, so no overlap figure, only the timeline */
  if (!b->o->compute.kind) {
    row->profiled = 1;
    hx_overlap_mean(ov, b->n, &row->overlap_reduce_pct, &row->overlap_delay_pct);
    if (hx_overlap_write(b->overlap_csv, &oj, ov, b->n))
      ar_log(AR_LOG_WARN, "could not write overlap.csv");
  }
  if (hx_profile_timeline(b->timeline_csv, &oj, b->cfg->dev, b->n))
    ar_log(AR_LOG_WARN, "could not write timeline.csv");
}

void row_samples(const struct bench *b, double *t) {
  const struct job *J = &b->job;
  for (int i = 0; i < J->samples; i++) {
    double v = 0;
    /* an iteration lasts until its last rank is done; a host-timed batch is the mean over the
     * ranks, as nccl-tests averages its ranks' times */
    for (int r = 0; r < b->n; r++) {
      double x = b->times[(size_t)r * b->nsamp + i];
      v = b->host_timing ? v + x / b->n : fmax(v, x);
    }
    /* to the 3 decimals samples.csv holds: the row's statistics are its written samples' */
    t[i] = round(v * 1e3) / 1e3;
  }
}

void repeat_step(struct bench *b) {
  struct job *J = &b->job;
  struct hx_stats st;
  row_samples(b, b->row_t);
  if (hx_stats_compute(b->row_t, J->samples, &st)) st.n = 0; /* no memory: no interval */
  int more = hx_repeat_next(&st, J->samples, b->step, b->target, J->budget_limit, b->max_iters,
                            &J->stop);
  J->samples += more;
  if (!b->host_timing) {
    J->iters = J->samples;
    J->total = J->warmup + J->iters;
  }
}

/* The lead of every process, every rank idle: the results gathered; process 0 makes the
 * statistics, check results and the row; a fault ends the job. */
void job_finish(struct bench *b) {
  const struct run_opts *o = b->o;
  struct job *J = &b->job;
  char ts[32];
  struct hx_csv_row row;
  struct hx_csv_compute load; /* --compute's columns, until the row is written */
  row_base(b, &row, ts, sizeof(ts));
  int fatal = 0;
  progress_clear(b);
  job_overlap(b, &row); /* CUPTI stops recording here, whatever becomes of the row */
  if (J->state == JOB_RUN) {
    unsigned long long failed[HX_MAX_DEVS];
    if (peers_gather(b, failed)) hx_procs_abort(1);
    for (int r = 0; r < b->n; r++) {
      if (b->rk[r].err[0])
        fprintf(stderr, "arbench: %s (size %llu B, %s/%s)\n", b->rk[r].err,
                (unsigned long long)J->bytes, J->algo->name, J->ex->name);
      else if (failed[r] && IS_ROOT(b))
        fprintf(stderr, "arbench: rank %d failed (its process %d said why; size %llu B, %s/%s)\n",
                r, r / b->nlocal, (unsigned long long)J->bytes, J->algo->name, J->ex->name);
      fatal |= failed[r] != 0;
    }
  }
  if (!IS_ROOT(b)) { /* the row is process 0's; the job's end is everyone's */
    if (J->ctx && !fatal) J->tp->teardown(J->ctx);
    J->ctx = NULL;
    if (fatal) { /* process 0 writes the row, then ends the job */
      hx_procs_barrier(1);
      hx_procs_abort(1);
    }
    wd_end(b);
    return;
  }
  if (J->state == JOB_RUN && !fatal) {
    /* samples: timed iterations (job.iters of a stride of nsamp), or host-timed batches */
    int it = J->samples, w = J->warmup;
    double *t = b->row_t, *after = malloc((size_t)it * sizeof(double));
    double delay_sum = 0;
    long long worst = 0;
    int worst_it = -1, nbad = 0; /* iterations counted over warm-up and timed ones */
    row_samples(b, t);
    for (int i = 0; i < it; i++) {
      double dmax = 0;
      for (int k = 0; k < o->nst && !b->host_timing; k++)
        dmax = fmax(dmax, b->delays[k * b->total + w + i]);
      if (after) after[i] = t[i] - dmax;
      delay_sum += dmax;
    }
    for (int i = 0; i < J->total; i++) { /* a wrong warm-up fails the row as well */
      long long wr = 0;
      for (int r = 0; r < b->n; r++) wr += (long long)b->wrong[r * b->total + i];
      nbad += wr > 0;
      if (wr > worst) worst = wr, worst_it = i;
    }
    write_delays(b, t);
    write_phases(b);
    struct hx_stats sa;
    if (!after || hx_stats_compute(t, it, &row.t) || hx_stats_compute(after, it, &sa)) {
      fprintf(stderr, "arbench: out of host memory\n");
      fatal = 1;
    } else {
      row.samples = t;
      row.repeat_stop = hx_repeat_stop_name(J->stop);
      row.delay_us = delay_sum / it;
      row.time_after_arrival_us = sa.median;
      row.algbw_gbps = hx_algbw((double)J->bytes, row.t.median);
      row.busbw_gbps = hx_busbw(row.algbw_gbps, b->n);
      row.wrong = o->check ? worst : -1;
      row.status = worst > 0 ? "error" : "ok";
      if (worst > 0) {
        b->failed = 1;
        char where[64];
        if (worst_it < w) snprintf(where, sizeof(where), "warm-up iteration %d", worst_it);
        else if (b->host_timing) snprintf(where, sizeof(where), "the iteration after the batches");
        else snprintf(where, sizeof(where), "timed iteration %d", worst_it - w);
        fprintf(stderr, "arbench: %s/%s size %llu B: %lld wrong elements in %s (%d of %d "
                "iterations wrong, warm-up included):", J->algo->name, J->ex->name,
                (unsigned long long)J->bytes, worst, where, nbad, J->total);
        for (int r = 0; r < b->n; r++)
          fprintf(stderr, " rank %d: %llu", r, b->wrong[r * b->total + worst_it]);
        fprintf(stderr, "\n");
      }
      if (o->compute.kind) load_row(b, &row, &load); /* may find the row wrong */
      for (int r = 0; r < b->n; r++)
        if (b->expired[r])
          ar_log(AR_LOG_WARN, "rank %d: %u launch gates timed out (%s/%s, %llu B): host enqueue "
                 "was slow; those iterations may include launch overhead", r, b->expired[r],
                 J->algo->name, J->ex->name, (unsigned long long)J->bytes);
    }
    free(after);
  } else if (J->state == JOB_NA) {
    row.status = "n/a";
    if (!b->na_said[J->row->algo_idx][J->ex->id]) {
      b->na_said[J->row->algo_idx][J->ex->id] = 1;
      printf("n/a: %s (%s): %s\n", J->algo->name, J->ex->name, J->reason);
    }
  } else if (J->state == JOB_OOM) {
    row.status = "oom";
    ar_log(AR_LOG_INFO, "oom: %s/%s: %s", J->algo->name, J->ex->name, J->reason);
  } else {
    row.status = "error";
    b->failed = 1;
    if (!fatal) /* a rank's own failure was said above */
      fprintf(stderr, "arbench: %s/%s size %llu B: %s\n", J->algo->name, J->ex->name,
              (unsigned long long)J->bytes, J->reason);
  }
  if (fatal) row.status = "error";
  if (J->ctx && !fatal) J->tp->teardown(J->ctx); /* a faulted GPU could block a cudaFree */
  J->ctx = NULL;
  if (hx_csv_append(b->cfg->csv, &row)) ar_log(AR_LOG_WARN, "could not write results.csv");
  if (row.t.n > 0 || J->state == JOB_OOM || J->state == JOB_ERROR || fatal) table_row(b, &row);
  load_table(&row);
  if (row.t.n > 0 && b->starts) start_skew(b);
  double est = J->state == JOB_RUN ? sweep_row_seconds(b->plan.est, J->row->algo_idx, J->ex,
                                                       J->bytes, row.delay_us)
                                   : 0;
  if (b->cfg->progress) {
    b->cfg->progress->done++;
    b->cfg->progress->done_s += est;
  }
  if (b->crit.on) { /* the search decides on the median of ok rows only */
    crit_feed(&b->crit.cs, !fatal && !strcmp(row.status, "ok") ? row.t.median : NAN);
    b->crit.rows++;
    b->crit.seconds += est;
  }
  if (fatal) { /* the GPUs may be in any state: keep what was measured and stop */
    fflush(NULL);
    if (b->procs) hx_procs_barrier(1);
    hx_procs_abort(1);
  }
  wd_end(b);
}

/* Every rank: warm-up and timed iterations of the current job, then the results. 0 or 1. */
