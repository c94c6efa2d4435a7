/* tp_check on GPUs: the transports run directly (gpu, time, reduce, bw commands). */
#include "tp_check.h"

/* ------------------------------------------------------------------ GPU runs */

#define CAPTURE_MAX (64u << 20) /* keep every iteration's result up to this size */

struct gpu {
  int n;
  struct tp_world w;
  cudaStream_t stream[AR_MAX_GPUS];
  void *pristine[AR_MAX_GPUS];
  void *capture[AR_MAX_GPUS]; /* iters x CAPTURE_MAX */
  int iters_max;
  pthread_barrier_t bar;
};

struct job_run {
  struct gpu *g;
  const struct tp_ops *tp;
  struct tp_ctx *ctx;
  struct tp_job job;
  int iters, reinit, capture;
  /* --marks: the pointers the job's marks array holds (set only around the last enqueue), each
   * rank's marks, and events around that enqueue */
  struct tp_marks *mk[AR_MAX_GPUS], mks[AR_MAX_GPUS];
  cudaEvent_t m0[AR_MAX_GPUS], m1[AR_MAX_GPUS];
  ar_status st[AR_MAX_GPUS];
  double t0, t1;
  volatile int finished;
};

struct rank_arg {
  struct job_run *j;
  int rank;
};

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* One rank's thread: iterations back to back on its stream, then wait for them. */
static void *rank_main(void *arg) {
  struct rank_arg *ra = arg;
  struct job_run *j = ra->j;
  struct gpu *g = j->g;
  int r = ra->rank;
  size_t bytes = j->job.nelem * ar_dtype_size(j->job.dtype);
  CU(cudaSetDevice(g->w.dev[r]));
  pthread_barrier_wait(&g->bar);
  if (r == 0) j->t0 = now_s();
  ar_status st = AR_OK;
  for (int it = 0; it < j->iters && st == AR_OK; it++) {
    if (j->reinit)
      CU(cudaMemcpyAsync(g->w.data[r], g->pristine[r], bytes, cudaMemcpyDeviceToDevice,
                         g->stream[r]));
    int mark = j->job.marks && it == j->iters - 1;
    if (mark) {
      CU(cudaEventRecord(j->m0[r], g->stream[r]));
      j->mk[r] = &j->mks[r];
    }
    st = j->tp->enqueue(j->ctx, r, g->stream[r]);
    if (mark) {
      j->mk[r] = NULL;
      CU(cudaEventRecord(j->m1[r], g->stream[r]));
    }
    if (j->capture && st == AR_OK)
      CU(cudaMemcpyAsync((char *)g->capture[r] + (size_t)it * CAPTURE_MAX, g->w.data[r], bytes,
                         cudaMemcpyDeviceToDevice, g->stream[r]));
  }
  cudaError_t e = cudaStreamSynchronize(g->stream[r]);
  if (e != cudaSuccess) {
    fprintf(stderr, "rank %d: %s\n", r, cudaGetErrorString(e));
    st = AR_ERR_CUDA;
  }
  j->st[r] = st;
  pthread_barrier_wait(&g->bar);
  if (r == 0) j->t1 = now_s();
  return NULL;
}

/* Runs a job's iterations on every rank; exits the process if it hangs. */
static ar_status run_job(struct job_run *j, double timeout_s) {
  pthread_t th[AR_MAX_GPUS];
  struct rank_arg ra[AR_MAX_GPUS];
  struct gpu *g = j->g;
  for (int r = 0; r < g->n; r++) {
    ra[r].j = j;
    ra[r].rank = r;
    pthread_create(&th[r], NULL, rank_main, &ra[r]);
  }
  double start = now_s();
  for (int r = 0; r < g->n; r++) {
    for (;;) {
      struct timespec ts;
      clock_gettime(CLOCK_REALTIME, &ts);
      ts.tv_sec += 1;
      if (pthread_timedjoin_np(th[r], NULL, &ts) == 0) break;
      if (now_s() - start > timeout_s) {
        printf("HANG %s on %s: rank %d did not finish in %.0f s\n", j->job.sched->algo, tc_tp_name(j->tp),
               r, timeout_s);
        fflush(stdout);
        _exit(3);
      }
    }
  }
  for (int r = 0; r < g->n; r++)
    if (j->st[r] != AR_OK) return j->st[r];
  return AR_OK;
}

/* Host value of element i of a buffer of dtype. */
static float host_get(const void *buf, int dtype, size_t i) {
  if (dtype == AR_DT_F32) return ((const float *)buf)[i];
  uint16_t h = ((const uint16_t *)buf)[i];
  if (dtype == AR_DT_BF16) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
  }
  int sign = h >> 15, ex = (h >> 10) & 31, man = h & 1023;
  float v = ex ? (1.0f + man / 1024.0f) * (float)(1 << ex) / 32768.0f : man / 1024.0f / 16384.0f;
  return sign ? -v : v;
}

/* Stores an exactly representable small integer v into element i. */
static void host_put(void *buf, int dtype, size_t i, float v) {
  if (dtype == AR_DT_F32) {
    ((float *)buf)[i] = v;
    return;
  }
  uint32_t u;
  memcpy(&u, &v, 4);
  if (dtype == AR_DT_BF16) {
    ((uint16_t *)buf)[i] = (uint16_t)(u >> 16);
    return;
  }
  uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
  int ex = (int)((u >> 23) & 255);
  uint16_t h = v == 0 ? 0 : (uint16_t)(sign | ((ex - 127 + 15) << 10) | ((u >> 13) & 1023));
  ((uint16_t *)buf)[i] = v == 0 ? sign : h;
}

struct fill_arg {
  struct gpu *g;
  int rank, dtype;
  size_t nelem;
  int iters, capture;
  long wrong;
  size_t first;
  int first_iter;
  float got, want;
};

/* Writes the rank's pristine input (fill) or checks its results (check). */
static void *fill_main(void *arg) {
  struct fill_arg *f = arg;
  size_t es = ar_dtype_size(f->dtype), bytes = f->nelem * es;
  void *h = malloc(bytes + 16);
  CU(cudaSetDevice(f->g->w.dev[f->rank]));
  for (size_t i = 0; i < f->nelem; i++)
    host_put(h, f->dtype, i, pattern(f->rank, i));
  CU(cudaMemcpy(f->g->pristine[f->rank], h, bytes, cudaMemcpyHostToDevice));
  free(h);
  return NULL;
}

static void *check_main(void *arg) {
  struct fill_arg *f = arg;
  size_t es = ar_dtype_size(f->dtype), bytes = f->nelem * es;
  void *h = malloc(bytes + 16);
  CU(cudaSetDevice(f->g->w.dev[f->rank]));
  f->wrong = 0;
  /* every iteration's captured result, or only the final data */
  for (int it = f->capture ? 0 : f->iters - 1; it < f->iters; it++) {
    const void *src = f->capture ? (const char *)f->g->capture[f->rank] + (size_t)it * CAPTURE_MAX
                                 : f->g->w.data[f->rank];
    CU(cudaMemcpy(h, src, bytes, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < f->nelem; i++) {
      float got = host_get(h, f->dtype, i), want = expected(f->g->n, i);
      if (got != want) {
        if (!f->wrong) {
          f->first = i;
          f->first_iter = it;
          f->got = got;
          f->want = want;
        }
        f->wrong++;
      }
    }
  }
  free(h);
  return NULL;
}

/* Runs fn(arg[r]) on one thread per rank and waits. */
static void per_rank(struct gpu *g, void *(*fn)(void *), struct fill_arg *fa) {
  pthread_t th[AR_MAX_GPUS];
  for (int r = 0; r < g->n; r++)
    pthread_create(&th[r], NULL, fn, &fa[r]);
  for (int r = 0; r < g->n; r++)
    pthread_join(th[r], NULL);
}

/* Returns bytes for "1K", "3M", "1G", "12345" or elements for "1000003e" (*is_elem set). */
size_t parse_size(const char *t, int *is_elem) {
  char *end;
  double v = strtod(t, &end);
  *is_elem = 0;
  switch (*end) {
  case 'K':
  case 'k': v *= 1024; break;
  case 'M':
  case 'm': v *= 1024 * 1024; break;
  case 'G':
  case 'g': v *= 1024.0 * 1024 * 1024; break;
  case 'e': *is_elem = 1; break;
  default: break;
  }
  return (size_t)v;
}

int split(const char *list, char **out, int max) {
  int cnt = 0;
  char *dup = strdup(list), *save = NULL;
  for (char *t = strtok_r(dup, ",", &save); t && cnt < max; t = strtok_r(NULL, ",", &save))
    out[cnt++] = strdup(t);
  free(dup);
  return cnt;
}

static int dtype_of(const char *s) {
  if (!strcmp(s, "bf16")) return AR_DT_BF16;
  if (!strcmp(s, "fp16") || !strcmp(s, "f16")) return AR_DT_F16;
  return AR_DT_F32;
}

/* Opens the GPUs: peer access everywhere, streams, data, pristine and capture buffers. */
static void gpu_open(struct gpu *g, int nranks, size_t max_bytes, int iters) {
  int count = 0;
  CU(cudaGetDeviceCount(&count));
  g->n = nranks > 0 && nranks <= count ? nranks : count;
  if (g->n > AR_MAX_GPUS) g->n = AR_MAX_GPUS;
  memset(&g->w, 0, sizeof(g->w));
  g->w.n = g->n;
  g->w.data_bytes = max_bytes;
  g->iters_max = iters;
  for (int r = 0; r < g->n; r++) {
    g->w.dev[r] = r;
    CU(cudaSetDevice(r));
    for (int q = 0; q < g->n; q++)
      if (q != r) {
        cudaError_t e = cudaDeviceEnablePeerAccess(q, 0);
        if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) CU(e);
        (void)cudaGetLastError();
      }
    CU(cudaStreamCreateWithFlags(&g->stream[r], cudaStreamNonBlocking));
    CU(cudaMalloc(&g->w.data[r], max_bytes));
    CU(cudaMalloc(&g->pristine[r], max_bytes));
    size_t cap = max_bytes < CAPTURE_MAX ? max_bytes : CAPTURE_MAX; /* per iteration */
    CU(cudaMalloc(&g->capture[r], (size_t)iters * CAPTURE_MAX));
    (void)cap;
  }
  pthread_barrier_init(&g->bar, NULL, g->n);
}


/* --marks: each rank's marks (events, zeroed clock stamps, flags) for a schedule of nr rounds. */
static void marks_open(struct job_run *j, int nr) {
  for (int r = 0; r < j->g->n; r++) {
    struct tp_marks *m = &j->mks[r];
    CU(cudaSetDevice(j->g->w.dev[r]));
    m->nrounds = nr;
    m->ev = calloc(nr ? nr : 1, sizeof(cudaEvent_t));
    m->have = calloc(nr ? nr : 1, 1);
    for (int k = 0; k < nr; k++)
      CU(cudaEventCreate(&m->ev[k]));
    CU(cudaMalloc((void **)&m->ns, (nr + 1) * sizeof(unsigned long long)));
    CU(cudaMemset(m->ns, 0, (nr + 1) * sizeof(unsigned long long)));
    CU(cudaEventCreate(&j->m0[r]));
    CU(cudaEventCreate(&j->m1[r]));
    CU(cudaDeviceSynchronize());
  }
}

/* --marks: frees what marks_open made. */
static void marks_close(struct job_run *j) {
  for (int r = 0; r < j->g->n; r++) {
    struct tp_marks *m = &j->mks[r];
    CU(cudaSetDevice(j->g->w.dev[r]));
    for (int k = 0; k < m->nrounds; k++)
      cudaEventDestroy(m->ev[k]);
    cudaFree(m->ns);
    cudaEventDestroy(j->m0[r]);
    cudaEventDestroy(j->m1[r]);
    free(m->ev);
    free(m->have);
    memset(m, 0, sizeof(*m));
  }
}

/* --marks, after the job: every rank marked exactly the rounds in which it moves elements, in
 * order, inside the span of its marked enqueue (sm: stamps from the kernel's start no later
 * than that span, 5 us of clock slack). Prints one line; returns 1 when right. */
static int marks_check(struct job_run *j, const char *tag) {
  const struct ar_schedule *s = j->job.sched;
  char line[512] = "";
  int ok = 1;
  for (int r = 0; r < j->g->n && ok; r++) {
    struct tp_marks *m = &j->mks[r];
    CU(cudaSetDevice(j->g->w.dev[r]));
    float span = 0;
    CU(cudaEventElapsedTime(&span, j->m0[r], j->m1[r]));
    unsigned long long ns[1 + 512];
    if (m->in_ns)
      CU(cudaMemcpy(ns, m->ns, (size_t)(m->nrounds < 512 ? m->nrounds + 1 : 513) * sizeof(*ns),
                    cudaMemcpyDeviceToHost));
    double prev = 0;
    for (int k = 0; k < m->nrounds && k < 512 && ok; k++) {
      int part = 0;
      for (size_t i = 0; i < s->nxfers; i++) {
        const struct ar_xfer *x = &s->xfers[i];
        if (x->round == k && (x->src == r || x->dst == r) &&
            ar_chunk_begin(j->job.nelem, s->nchunks, x->chunk + x->count) >
                ar_chunk_begin(j->job.nelem, s->nchunks, x->chunk))
          part = 1;
      }
      if (part != m->have[k]) {
        printf("FAIL %s: marks: rank %d round %d %s\n", tag, r, k,
               part ? "not marked" : "marked, but the rank has nothing to do in it");
        ok = 0;
        break;
      }
      if (!part) continue;
      float ms = 0;
      double t;
      if (m->in_ns) {
        t = ns[1 + k] >= ns[0] ? (ns[1 + k] - ns[0]) / 1e6 : -1;
      } else {
        CU(cudaEventElapsedTime(&ms, j->m0[r], m->ev[k]));
        t = ms;
      }
      if (t < prev || t > span + (m->in_ns ? 0.005 : 0)) {
        printf("FAIL %s: marks: rank %d round %d ends at %.3f ms: before the previous (%.3f) or "
               "after the enqueue's span (%.3f)\n", tag, r, k, t, prev, span);
        ok = 0;
      }
      prev = t;
      if (r == 0 && strlen(line) < sizeof(line) - 32)
        snprintf(line + strlen(line), sizeof(line) - strlen(line), " %d:%.1f", k, t * 1e3);
    }
  }
  if (ok) printf("ok   %s: marks in order (%s), rank 0's round ends (us):%s\n", tag,
                 j->mks[0].in_ns ? "sm clock stamps" : "events", line);
  return ok;
}

ar_status build_for(const char *name, int n, const struct tp_degrade *dg, int segments,
                           struct ar_schedule *s);

/* Parses "R:F[,R:F]" (F default 2) into dg (n = 0 for ""); bw is left as it was. */
void parse_degrade(const char *text, struct tp_degrade *dg) {
  char *items[AR_MAX_DEGRADED];
  int nd = split(text, items, AR_MAX_DEGRADED);
  dg->n = 0;
  for (int i = 0; i < nd; i++) {
    dg->rank[dg->n] = atoi(items[i]);
    dg->factor[dg->n++] = strchr(items[i], ':') ? atof(strchr(items[i], ':') + 1) : 2.0;
    free(items[i]);
  }
}

/* The gpu and time commands. */
int cmd_gpu(const struct opts *o, int timing) {
  const struct tp_ops *tp = tp_find(o->transport);
  if (!tp) {
    fprintf(stderr, "unknown transport %s\n", o->transport);
    return 2;
  }
  char *sz[64], *dt[8], *pl[16];
  const char *names[64];
  int nsz = split(o->sizes, sz, 64), ndt = split(o->dtypes, dt, 8),
      npl = split(o->pipelines, pl, 16);
  int na = algo_list(o->algos, names, 64);
  size_t max_bytes = 1024;
  for (int i = 0; i < nsz; i++) {
    int el;
    size_t v = parse_size(sz[i], &el);
    for (int d = 0; d < ndt; d++) {
      size_t b = el ? v * ar_dtype_size(dtype_of(dt[d])) : v;
      if (b > max_bytes) max_bytes = b;
    }
  }
  struct gpu g;
  gpu_open(&g, o->ranks, max_bytes, timing ? 1 : o->iters);
  printf("# %s on %d GPUs, flags by %s\n", tc_tp_name(tp), g.n, tp_flags_name(tp_flags_mode(NULL)));
  struct tp_degrade dg; /* --degrade: every job emulates these slow GPUs */
  memset(&dg, 0, sizeof(dg));
  parse_degrade(o->degrade, &dg);
  if (dg.n) {
    if (tp_degrade_measure_bw(g.w.dev[1], g.w.dev[0], 512u << 20, 5, &dg.bw) != AR_OK) {
      printf("FAIL cannot measure the healthy bandwidth GPU %d -> GPU %d\n", g.w.dev[1],
             g.w.dev[0]);
      nfail++;
      return 0;
    }
    printf("# degraded:");
    for (int i = 0; i < dg.n; i++)
      printf(" rank %d x%g", dg.rank[i], dg.factor[i]);
    printf("; healthy bandwidth %.2f GB/s (copy engine push GPU %d -> GPU %d)\n", dg.bw / 1e9,
           g.w.dev[1], g.w.dev[0]);
  }
  for (int d = 0; d < ndt; d++)
    for (int i = 0; i < nsz; i++) {
      int dtype = dtype_of(dt[d]), el;
      size_t v = parse_size(sz[i], &el), es = ar_dtype_size(dtype);
      size_t nelem = el ? v : v / es, bytes = nelem * es;
      struct fill_arg fa[AR_MAX_GPUS];
      memset(fa, 0, sizeof(fa));
      for (int r = 0; r < g.n; r++) {
        fa[r].g = &g;
        fa[r].rank = r;
        fa[r].dtype = dtype;
        fa[r].nelem = nelem;
      }
      per_rank(&g, fill_main, fa);
      for (int a = 0; a < na; a++) {
        struct ar_schedule s;
        ar_status st = dg.n && ar_algo_find(names[a]) ? build_for(names[a], g.n, &dg, 0, &s)
                                                      : build_sched(names[a], g.n, &s);
        if (st != AR_OK) {
          printf("n/a  %-12s %s: %s\n", names[a], ar_dtype_name(dtype), s.reason);
          continue;
        }
        for (int pi = 0; pi < npl; pi++) {
          int pipe = atoi(pl[pi]);
          if (!ar_transport_find(tc_tp_name(tp))->pipelines && pi > 0) break; /* only ce pipelines */
          struct job_run j;
          memset(&j, 0, sizeof(j));
          j.g = &g;
          j.tp = tp;
          j.job.sched = &s;
          j.job.nelem = nelem;
          j.job.dtype = dtype;
          j.job.pipeline = pipe;
          j.job.degrade = dg;
          int used = -1;
          j.job.pipeline_used = &used;
          if (o->marks && !timing) {
            j.job.marks = j.mk;
            marks_open(&j, s.nrounds);
          }
          char reason[256] = "";
          double ts = now_s();
          st = tp->setup(&g.w, &j.job, &j.ctx, reason, sizeof(reason));
          double setup_ms = (now_s() - ts) * 1e3;
          char tag[200];
          snprintf(tag, sizeof(tag), "%-12s %-3s pipe=%-2d used=%-2d %-7s %11zu B (%zu elems)",
                   names[a], tc_tp_name(tp), pipe, used, ar_dtype_name(dtype), bytes, nelem);
          if (st != AR_OK) {
            printf("%s  %s: %s\n", st == AR_ERR_OOM ? "oom " : "FAIL", tag, reason);
            if (st != AR_ERR_OOM) nfail++;
            if (j.job.marks) marks_close(&j);
            continue;
          }
          if (!timing) {
            j.iters = o->iters;
            j.reinit = 1;
            j.capture = bytes <= CAPTURE_MAX;
            st = run_job(&j, o->timeout);
            long wrong = 0;
            if (st == AR_OK) {
              for (int r = 0; r < g.n; r++) {
                fa[r].iters = j.iters;
                fa[r].capture = j.capture;
              }
              per_rank(&g, check_main, fa);
              for (int r = 0; r < g.n; r++)
                wrong += fa[r].wrong;
            }
            if (st != AR_OK || wrong) {
              printf("FAIL %s: %s", tag, ar_status_str(st));
              for (int r = 0; st == AR_OK && r < g.n; r++)
                if (fa[r].wrong)
                  printf(" | rank %d: %ld wrong, first iter %d elem %zu got %g want %g", r,
                         fa[r].wrong, fa[r].first_iter, fa[r].first, fa[r].got, fa[r].want);
              printf("\n");
              nfail++;
            } else {
              printf("ok   %s: %d iters (setup %.1f ms)\n", tag, j.iters, setup_ms);
              npass++;
            }
            if (st == AR_OK && j.job.marks) {
              if (marks_check(&j, tag)) npass++;
              else nfail++;
            }
          } else {
            j.iters = o->warmup;
            st = run_job(&j, o->timeout);
            j.iters = o->iters;
            if (st == AR_OK) st = run_job(&j, o->timeout);
            if (st != AR_OK) {
              printf("FAIL %s: %s\n", tag, ar_status_str(st));
              nfail++;
            } else {
              double us = (j.t1 - j.t0) / j.iters * 1e6;
              printf("time %s: %10.1f us  algbw %7.2f GB/s  busbw %7.2f GB/s\n", tag, us,
                     bytes / us / 1e3, bytes / us / 1e3 * 2 * (g.n - 1) / g.n);
              npass++;
            }
          }
          fflush(stdout);
          tp->teardown(j.ctx);
          if (j.job.marks) marks_close(&j);
        }
        sched_free(&s);
      }
    }
  return 0;
}

/* The reduce command: bandwidth of the sum kernel (reads nsrc + writes 1 buffer). */
int cmd_reduce(void) {
  size_t bytes = 1u << 30;
  void *buf[5];
  CU(cudaSetDevice(0));
  for (int i = 0; i < 5; i++) {
    CU(cudaMalloc(&buf[i], bytes));
    CU(cudaMemset(buf[i], 0, bytes));
  }
  cudaEvent_t e0, e1;
  CU(cudaEventCreate(&e0));
  CU(cudaEventCreate(&e1));
  for (int dtype = 0; dtype < 3; dtype++)
    for (int nsrc = 2; nsrc <= 4; nsrc++) {
      size_t nelem = bytes / ar_dtype_size(dtype);
      const void *srcs[4] = {buf[0], buf[1], buf[2], buf[3]};
      for (int w = 0; w < 2; w++)
        ar_sum_launch(buf[0], srcs, nsrc, nelem, dtype, 0, 0);
      CU(cudaEventRecord(e0, 0));
      for (int it = 0; it < 10; it++)
        if (ar_sum_launch(buf[0], srcs, nsrc, nelem, dtype, 0, 0) != AR_OK) return 2;
      CU(cudaEventRecord(e1, 0));
      CU(cudaEventSynchronize(e1));
      float ms;
      CU(cudaEventElapsedTime(&ms, e0, e1));
      double us = ms * 1e3 / 10;
      printf("reduce %-7s nsrc=%d 1 GiB: %8.1f us, %7.1f GB/s of memory traffic\n",
             ar_dtype_name(dtype), nsrc, us, (nsrc + 1) * bytes / us / 1e3);
      npass++;
    }
  /* misaligned and odd sizes agree with the host */
  size_t n = 1000003;
  float *h = malloc(n * 4 * 2);
  for (size_t i = 0; i < 2 * n; i++)
    h[i] = (float)(i % 11);
  CU(cudaMemcpy(buf[0], h, n * 8, cudaMemcpyHostToDevice));
  CU(cudaMemcpy(buf[1], h, n * 8, cudaMemcpyHostToDevice));
  ar_reduce_launch((float *)buf[0] + 1, (float *)buf[1] + 1, n, AR_DT_F32, 0); /* co-aligned */
  ar_reduce_launch((float *)buf[0] + n + 3, (float *)buf[1] + n + 2, n - 5, AR_DT_F32, 0); /* not */
  float *o = malloc(n * 8);
  CU(cudaMemcpy(o, buf[0], n * 8, cudaMemcpyDeviceToHost));
  long bad = 0;
  for (size_t i = 0; i < 2 * n; i++) {
    float want = h[i];
    if (i >= 1 && i < n + 1) want = h[i] + h[i];
    if (i >= n + 3 && i < 2 * n - 2) want = h[i] + h[i - 1];
    if (o[i] != want) bad++;
  }
  printf("%s reduce odd/misaligned ranges: %ld wrong\n", bad ? "FAIL" : "ok  ", bad);
  bad ? nfail++ : npass++;
  free(h);
  free(o);
  return 0;
}

/* The bw command: copy-engine bandwidth GPU1 -> GPU0 pulled (stream on 0) and pushed (stream
 * on 1), split over k streams; then all GPUs pulling from their ring predecessor at once. */
int cmd_bw(void) {
  int n = 0;
  CU(cudaGetDeviceCount(&n));
  if (n < 2) return 0;
  if (n > AR_MAX_GPUS) n = AR_MAX_GPUS;
  size_t bytes = 1u << 30;
  void *buf[AR_MAX_GPUS];
  cudaStream_t st[AR_MAX_GPUS][4];
  for (int r = 0; r < n; r++) {
    CU(cudaSetDevice(r));
    for (int q = 0; q < n; q++)
      if (q != r) {
        cudaError_t e = cudaDeviceEnablePeerAccess(q, 0);
        if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) CU(e);
        (void)cudaGetLastError();
      }
    CU(cudaMalloc(&buf[r], 2 * bytes));
    for (int k = 0; k < 4; k++)
      CU(cudaStreamCreateWithFlags(&st[r][k], cudaStreamNonBlocking));
  }
  for (int all = 0; all < 2; all++)
    for (int push = 0; push < 2; push++)
      for (int k = 1; k <= 4; k *= 2) {
        double best = 1e30;
        for (int rep = 0; rep < 4; rep++) {
          for (int r = 0; r < n; r++) {
            CU(cudaSetDevice(r));
            CU(cudaDeviceSynchronize());
          }
          double t0 = now_s();
          for (int r = 0; r < (all ? n : 1); r++) {
            int dst = r, src = (r + 1) % n, dev = push ? src : dst;
            CU(cudaSetDevice(dev));
            for (int q = 0; q < k; q++)
              CU(cudaMemcpyAsync((char *)buf[dst] + bytes + q * (bytes / k),
                                 (char *)buf[src] + q * (bytes / k), bytes / k,
                                 cudaMemcpyDeviceToDevice, st[dev][q]));
          }
          for (int r = 0; r < n; r++) {
            CU(cudaSetDevice(r));
            CU(cudaDeviceSynchronize());
          }
          double t = now_s() - t0;
          if (rep && t < best) best = t;
        }
        printf("bw %s %-4s %d stream(s): 1 GiB in %7.1f us = %6.1f GB/s per GPU\n",
               all ? "all-ring" : "one-pair", push ? "push" : "pull", k, best * 1e6,
               bytes / best / 1e9);
      }
  npass++;
  return 0;
}
