/* The benchmark's synchronisation: the threads' spinning barrier and the watchdog that names
 * the ranks that did not finish (bench.c has the whole picture). */
#include "bench/bench_int.h"
#include "procs/backoff.h"
#include "procs/procs.h"

int barrier_wait(struct hx_barrier *b, int err) {
  int gen = atomic_load(&b->gen);
  if (err) atomic_store(&b->err[gen & 1], 1);
  if (atomic_fetch_add(&b->count, 1) == b->n - 1) {
    /* the last of this process's threads speaks for it (the only one in MPI just now) */
    if (b->procs && hx_procs_barrier(atomic_load(&b->err[gen & 1])))
      atomic_store(&b->err[gen & 1], 1);
    atomic_store(&b->err[(gen + 1) & 1], 0); /* nobody can be in the next generation yet */
    atomic_store(&b->count, 0);
    atomic_store(&b->gen, gen + 1);
  } else {
    /* a long phase (a big size) or busy cores: stop burning a core */
    for (struct backoff w = {0}; atomic_load(&b->gen) == gen;) backoff_pause(&w, 200, 20000, 20);
  }
  return atomic_load(&b->err[gen & 1]);
}


/* Monotonic seconds. */
double bench_now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Records a rank's first error message (printf-style); returns 1 for `err |= fail(...)`. */
int rank_fail(struct rank *R, const char *fmt, ...) {
  if (!R->err[0]) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(R->err, sizeof(R->err), fmt, ap);
    va_end(ap);
  }
  return 1;
}

/* NCCL's type for an AR_DT_* dtype. */
ncclDataType_t nccl_type(int dt) {
  return dt == AR_DT_F32 ? ncclFloat32 : dt == AR_DT_BF16 ? ncclBfloat16 : ncclFloat16;
}


/* ---- the watchdog ---- */

/* Starts the deadline of a phase; row (may be NULL) is written with status timeout if it hangs. */
void wd_begin(struct bench *b, const char *label, const struct hx_csv_row *row) {
  pthread_mutex_lock(&b->wd_mu);
  snprintf(b->wd_label, sizeof(b->wd_label), "%s", label);
  b->wd_row_ok = row != NULL;
  if (row) b->wd_row = *row;
  for (int r = 0; r < b->n; r++) atomic_store(&b->done[r], 0);
  b->wd_t0 = bench_now_s();
  b->wd_active = 1;
  pthread_mutex_unlock(&b->wd_mu);
}

/* Ends the deadline of the current phase. */
void wd_end(struct bench *b) {
  pthread_mutex_lock(&b->wd_mu);
  b->wd_active = 0;
  pthread_mutex_unlock(&b->wd_mu);
}

/* The ranks not finished, as " 1 3": on process 0 waiting in a barrier, those of the processes
 * that have not come to it; else this process's that have not set done[]. */
static void unfinished(struct bench *b, char *buf, size_t len) {
  unsigned char away[HX_MAX_DEVS] = {0};
  size_t k = 0;
  buf[0] = 0;
  /* process 0 waits in a barrier: the absent processes' ranks are the ones */
  int waiting = hx_procs_absent(away) > 0;
  for (int r = 0; r < b->n && k + 8 < len; r++) {
    int mine = r >= b->first && r < b->first + b->nlocal;
    if (waiting ? away[r / b->nlocal] : mine && !atomic_load(&b->done[r]))
      k += (size_t)snprintf(buf + k, len - k, " %d", r);
  }
}

/* Ends a hung run: every communicator of this process aborted (a hung one could block, so an
 * alarm ends the process after 10 s whatever happens), then every process of the job. */
static void wd_abort(struct bench *b) {
  alarm(10);
  for (int r = b->first; r < b->first + b->nlocal; r++)
    if (b->rk[r].comm) ncclCommAbort(b->rk[r].comm);
  hx_procs_abort(1);
}

/* The monitor thread: names the phase and the ranks that did not finish, keeps the CSV,
 * ends the job with status 1 (hung GPU work cannot be cancelled). Process 0's fires first:
 * the others give it 5 s more, since it knows which processes never came. */
void *wd_main(void *arg) {
  struct bench *b = arg;
  double grace = IS_ROOT(b) ? 0 : 5;
  for (;;) {
    usleep(50 * 1000);
    pthread_mutex_lock(&b->wd_mu);
    if (b->wd_stop) {
      pthread_mutex_unlock(&b->wd_mu);
      return NULL;
    }
    if (b->wd_active && bench_now_s() - b->wd_t0 > b->o->timeout_s + grace) {
      char ranks[256] = "";
      unfinished(b, ranks, sizeof(ranks));
      size_t len = strlen(ranks);
      fflush(stdout);
      fprintf(stderr,
              "arbench: timeout: %s did not finish within %d s (-T); ranks not finished:%s\n",
              b->wd_label, b->o->timeout_s, len ? ranks : " (none: stuck on the host)");
      printf("# timeout: %s; ranks not finished:%s\n", b->wd_label, len ? ranks : " none");
      fflush(stdout);
      if (b->wd_row_ok && b->cfg->csv) {
        char ts[32];
        b->wd_row.timestamp = hx_utc_iso(ts, sizeof(ts));
        b->wd_row.status = "timeout";
        hx_csv_append(b->cfg->csv, &b->wd_row);
      }
      fflush(NULL);
      if (hx_on_timeout) hx_on_timeout(b->wd_label);
      wd_abort(b);
    }
    pthread_mutex_unlock(&b->wd_mu);
  }
}
