/* tp_check procs: the transports in a world of several processes, as under MPI but without
 * it. One forked process per rank (--gpus LIST: rank r's device; 0,0,0,0 is four processes on
 * GPU 0), each with a world in which every other rank is remote, and a struct tp_peers over
 * shared memory and CUDA IPC that keeps transport.h's semantics (share, unshare, bcast). Every
 * collective call first checks that all processes make the same kind of call: a transport
 * whose processes diverge prints MISMATCH; one that leaves a process waiting prints STALL.
 * Per case: the pattern into data, a barrier, --iters AllReduces back to back, then every
 * element checked against the pattern's sum times n^(iters-1) (after the first, each
 * AllReduce sums n equal vectors). --degrade R:F runs ce's flow program (the clock ping-pong
 * across processes) and sm's paced kernel, with a nominal healthy bandwidth.
 * --fail-share K: rank n-1's process turns the status of the K-th share of every setup into
 * AR_ERR_CUDA, as a local failure would: every process's setup must fail, none may hang. */
#include <sys/mman.h>
#include <sys/wait.h>

#include "tp_check.h"

#define PROCS_BUF 4096 /* bcast bytes */

enum { CALL_SHARE = 1, CALL_UNSHARE, CALL_BCAST, CALL_TEST };
static const char *const call_name[] = {"", "share", "unshare", "bcast", "test barrier"};

/* Shared by every process (mmap before fork). */
struct procs_shm {
  int n;
  unsigned count, gen; /* the barrier */
  int call[AR_MAX_GPUS];
  int st[AR_MAX_GPUS], has[AR_MAX_GPUS];
  long wrong[AR_MAX_GPUS];
  int npass, nfail; /* rank 0's counts, for the parent's closing line */
  cudaIpcMemHandle_t h[AR_MAX_GPUS];
  ncclUniqueId id;
  char buf[PROCS_BUF];
};

/* This process: its rank and what its tp_peers needs. */
struct procs {
  struct procs_shm *S;
  int rank, fail_share, nshare; /* nshare: shares so far in this setup, -1 outside setups */
  double timeout;
};

/* Waits for every process; a process that never comes is a STALL (exit). */
static void procs_barrier(struct procs *P) {
  struct procs_shm *S = P->S;
  unsigned g = __atomic_load_n(&S->gen, __ATOMIC_ACQUIRE);
  if (__atomic_add_fetch(&S->count, 1, __ATOMIC_ACQ_REL) == (unsigned)S->n) {
    __atomic_store_n(&S->count, 0, __ATOMIC_RELAXED);
    __atomic_add_fetch(&S->gen, 1, __ATOMIC_RELEASE);
    return;
  }
  for (long us = 0; __atomic_load_n(&S->gen, __ATOMIC_ACQUIRE) == g; us += 50) {
    if (us > P->timeout * 1e6) {
      printf("STALL rank %d: the other processes never reached the barrier\n", P->rank);
      fflush(stdout);
      _exit(3);
    }
    usleep(50);
  }
}

/* Every process makes a call of this kind now, or MISMATCH (exit). */
static void procs_same_call(struct procs *P, int call) {
  P->S->call[P->rank] = call;
  procs_barrier(P);
  for (int q = 0; q < P->S->n; q++)
    if (P->S->call[q] != call) {
      printf("MISMATCH rank %d makes a %s while rank %d makes a %s\n", P->rank, call_name[call],
             q, call_name[P->S->call[q]]);
      fflush(stdout);
      _exit(4);
    }
}

static ar_status procs_share(void *ctx, void **ptr, ar_status st) {
  struct procs *P = ctx;
  struct procs_shm *S = P->S;
  int r = P->rank;
  procs_same_call(P, CALL_SHARE);
  if (P->nshare >= 0 && ++P->nshare == P->fail_share && r == S->n - 1)
    st = AR_ERR_CUDA; /* --fail-share */
  S->has[r] = ptr[r] != NULL;
  if (ptr[r] && cudaIpcGetMemHandle(&S->h[r], ptr[r]) != cudaSuccess) {
    printf("FAIL rank %d: cudaIpcGetMemHandle: %s\n", r, cudaGetErrorString(cudaGetLastError()));
    st = AR_ERR_CUDA;
  }
  S->st[r] = st;
  procs_barrier(P);
  ar_status worst = AR_OK;
  for (int q = 0; q < S->n && worst == AR_OK; q++)
    worst = (ar_status)S->st[q];
  for (int q = 0; q < S->n && worst == AR_OK; q++) {
    if (q == r) continue;
    ptr[q] = NULL;
    if (S->has[q] &&
        cudaIpcOpenMemHandle(&ptr[q], S->h[q], cudaIpcMemLazyEnablePeerAccess) != cudaSuccess) {
      printf("FAIL rank %d: cudaIpcOpenMemHandle of rank %d: %s\n", r, q,
             cudaGetErrorString(cudaGetLastError()));
      worst = AR_ERR_CUDA; /* a stand-in: not agreed with the others */
    }
  }
  procs_barrier(P); /* every handle read before the next call writes them */
  return worst;
}

static void procs_unshare(void *ctx, void **ptr) {
  struct procs *P = ctx;
  procs_same_call(P, CALL_UNSHARE);
  for (int q = 0; q < P->S->n; q++)
    if (q != P->rank && ptr[q]) {
      cudaIpcCloseMemHandle(ptr[q]);
      ptr[q] = NULL;
    }
  procs_barrier(P);
}

static ar_status procs_bcast(void *ctx, void *buf, size_t len, int root) {
  struct procs *P = ctx;
  procs_same_call(P, CALL_BCAST);
  if (len > PROCS_BUF) return AR_ERR_INVALID;
  if (P->rank == root) memcpy(P->S->buf, buf, len);
  procs_barrier(P);
  if (P->rank != root) memcpy(buf, P->S->buf, len);
  procs_barrier(P);
  return AR_OK;
}

/* The test's own exchange: every rank's x; returns the first nonzero one (0: none). */
static long procs_gather(struct procs *P, long x, long *all) {
  procs_same_call(P, CALL_TEST);
  P->S->wrong[P->rank] = x;
  procs_barrier(P);
  long first = 0;
  for (int q = 0; q < P->S->n; q++) {
    if (all) all[q] = P->S->wrong[q];
    if (!first) first = P->S->wrong[q];
  }
  procs_barrier(P);
  return first;
}

/* Elements of data that differ from the pattern's sum times scale. */
static long count_wrong(const float *h, size_t nelem, int n, float scale) {
  long wrong = 0;
  for (size_t i = 0; i < nelem; i++)
    wrong += h[i] != expected(n, i) * scale;
  return wrong;
}

/* One case in this process: setup, iterations, check, teardown. Rank 0 prints its line. */
static void procs_case(struct procs *P, struct tp_world *w, const struct tp_ops *tp,
                       const char *algo, size_t nelem, const struct tp_degrade *dg, int iters,
                       cudaStream_t stream, float *host) {
  int r = P->rank, n = w->n;
  size_t bytes = nelem * sizeof(float);
  struct ar_schedule s;
  ar_status st = dg->n && ar_algo_find(algo) ? build_for(algo, n, dg, 0, &s)
                                             : build_sched(algo, n, &s);
  char tag[160], reason[256] = "";
  alarm((unsigned)(2 * P->timeout) + 5); /* a hung stream: SIGALRM ends the process */
  snprintf(tag, sizeof(tag), "%-12s %-8s %11zu B%s", algo, tc_tp_name(tp), bytes, dg->n ? " degraded" : "");
  if (st != AR_OK) {
    if (!r) printf("n/a  %s: %s\n", tag, s.reason);
    return;
  }
  for (size_t i = 0; i < nelem; i++)
    host[i] = pattern(r, i);
  CU(cudaMemcpy(w->data[r], host, bytes, cudaMemcpyHostToDevice));
  struct tp_job job;
  memset(&job, 0, sizeof(job));
  job.sched = &s;
  job.nelem = nelem;
  job.dtype = AR_DT_F32;
  job.pipeline = 1;
  job.degrade = *dg;
  struct tp_ctx *ctx = NULL;
  P->nshare = 0;
  st = tp->setup(w, &job, &ctx, reason, sizeof(reason));
  int injected = P->fail_share && P->nshare >= P->fail_share; /* the same in every process */
  P->nshare = -1;
  long sts[AR_MAX_GPUS];
  procs_gather(P, st, sts);
  int ok = 0;
  for (int q = 0; q < n; q++)
    ok += sts[q] == AR_OK;
  if (ok != 0 && ok != n) { /* the processes must succeed or fail together */
    if (!r) printf("FAIL %s: setup succeeded in %d of %d processes\n", tag, ok, n);
    if (!r) nfail++;
    if (st == AR_OK) tp->teardown(ctx);
    sched_free(&s);
    return;
  }
  if (st != AR_OK) {
    if (r) {
    } else if (injected) {
      printf("ok   %s: every setup failed (%s, share %d)\n", tag, ar_status_str(st),
             P->fail_share);
      npass++;
    } else {
      printf("%s %s: %s %s\n", st == AR_ERR_UNSUPPORTED ? "n/a " : "FAIL", tag,
             ar_status_str(st), reason);
      nfail += st != AR_ERR_UNSUPPORTED;
    }
    sched_free(&s);
    return;
  }
  long wrong = 0;
  for (int it = 0; it < iters && st == AR_OK; it++)
    st = tp->enqueue(ctx, r, stream);
  if (st == AR_OK && cudaStreamSynchronize(stream) != cudaSuccess) st = AR_ERR_CUDA;
  if (st == AR_OK) {
    CU(cudaMemcpy(host, w->data[r], bytes, cudaMemcpyDeviceToHost));
    wrong = count_wrong(host, nelem, n, powf((float)n, (float)(iters - 1)));
  }
  long all[AR_MAX_GPUS];
  procs_gather(P, st != AR_OK ? -1 : wrong, all); /* every stream idle before teardown */
  tp->teardown(ctx);
  sched_free(&s);
  if (r) return;
  long bad = 0;
  for (int q = 0; q < n; q++)
    bad |= all[q];
  if (injected) {
    printf("FAIL %s: setup succeeded despite --fail-share %d\n", tag, P->fail_share);
    nfail++;
  } else if (bad) {
    printf("FAIL %s:", tag);
    for (int q = 0; q < n; q++)
      printf(" rank %d %s", q, all[q] < 0 ? "error" : all[q] ? "wrong" : "ok");
    printf("\n");
    nfail++;
  } else {
    printf("ok   %s: %d iters on %d processes\n", tag, iters, n);
    npass++;
  }
}

/* A rank's process: its world, its data shared, every case; returns the exit status. */
static int procs_rank(struct procs *P, const struct opts *o, const int *dev, size_t max_elem) {
  int n = P->S->n, r = P->rank;
  struct tp_peers peers = {P, procs_share, procs_unshare, procs_bcast};
  struct tp_world w;
  memset(&w, 0, sizeof(w));
  w.n = n;
  for (int q = 0; q < n; q++)
    w.dev[q] = dev[q];
  tp_world_share(&w); /* the SM shares of the whole job, as the harness sets them */
  for (int q = 0; q < n; q++) {
    w.gpu[q] = dev[q];
    w.remote[q] = q != r;
    if (q != r) w.dev[q] = 1000 + q; /* meaningless here: a use fails loudly */
  }
  w.peers = &peers;
  w.data_bytes = max_elem * sizeof(float);
  CU(cudaSetDevice(dev[r]));
  CU(cudaMalloc(&w.data[r], w.data_bytes));
  if (tp_share(&w, w.data, AR_OK) != AR_OK) return 1;
  int distinct = 1;
  for (int q = 0; q < n; q++)
    for (int p = 0; p < q; p++)
      distinct &= dev[p] != dev[q];
  if (distinct) { /* nccl-p2p: NCCL refuses two ranks on one GPU */
    if (!r) NCCL_CHECK(ncclGetUniqueId(&P->S->id));
    procs_gather(P, 0, NULL);
    NCCL_CHECK(ncclCommInitRank(&w.comm[r], n, P->S->id, r));
  }
  cudaStream_t stream;
  CU(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  float *host = malloc(w.data_bytes);
  char *tps[8], *sizes[32];
  const char *dgs[2] = {"", o->degrade};
  const char *algos[128];
  int nt = split(o->transport, tps, 8), ns = split(o->sizes, sizes, 32);
  int na = algo_list(o->algos, algos, 128);
  for (int d = 0; d < (o->degrade[0] ? 2 : 1); d++) {
    struct tp_degrade dg;
    memset(&dg, 0, sizeof(dg));
    parse_degrade(dgs[d], &dg);
    dg.bw = 100e9; /* nominal: the paces need one, the results do not depend on it */
    for (int t = 0; t < nt; t++) {
      const struct tp_ops *tp = tp_find(tps[t]);
      if (!tp || (!strcmp(tps[t], "nccl-p2p") && !distinct)) continue;
      for (int i = 0; i < ns; i++)
        for (int a = 0; a < na; a++) {
          int el;
          size_t v = parse_size(sizes[i], &el), nelem = el ? v : v / sizeof(float);
          procs_case(P, &w, tp, algos[a], nelem, &dg, o->iters, stream, host);
        }
    }
  }
  alarm(0);
  procs_gather(P, 0, NULL); /* nobody reads our data any more */
  tp_unshare(&w, w.data);
  if (distinct) ncclCommDestroy(w.comm[r]);
  cudaFree(w.data[r]);
  free(host);
  return nfail != 0;
}

/* The procs command: forks the ranks' processes, waits for them, sums their verdicts. */
int cmd_procs(const struct opts *o, const char *gpus, int fail_share) {
  char *items[AR_MAX_GPUS];
  int dev[AR_MAX_GPUS], n = split(gpus, items, AR_MAX_GPUS);
  for (int q = 0; q < n; q++) {
    dev[q] = atoi(items[q]);
    free(items[q]);
  }
  if (n < 2) {
    printf("FAIL procs: --gpus must list at least 2 ranks\n");
    nfail++;
    return 1;
  }
  size_t max_elem = 1;
  char *sizes[32];
  int ns = split(o->sizes, sizes, 32);
  for (int i = 0; i < ns; i++) {
    int el;
    size_t v = parse_size(sizes[i], &el), e = el ? v : v / sizeof(float);
    if (e > max_elem) max_elem = e;
    free(sizes[i]);
  }
  struct procs_shm *S = mmap(NULL, sizeof(*S), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                             -1, 0);
  if (S == MAP_FAILED) return 1;
  memset(S, 0, sizeof(*S));
  S->n = n;
  printf("# procs: %d processes on GPUs %s%s\n", n, gpus,
         fail_share ? " (the last fails a share in every setup)" : "");
  fflush(stdout);
  pid_t pid[AR_MAX_GPUS];
  for (int r = 0; r < n; r++) { /* no CUDA in this process before the forks */
    pid[r] = fork();
    if (pid[r] == 0) {
      struct procs P = {S, r, fail_share, -1, o->timeout};
      int rc = procs_rank(&P, o, dev, max_elem);
      if (!r) S->npass = npass, S->nfail = nfail;
      fflush(stdout);
      _exit(rc);
    }
  }
  int bad = 0;
  for (int r = 0; r < n; r++) {
    int ws = 0;
    waitpid(pid[r], &ws, 0);
    if (!WIFEXITED(ws) || WEXITSTATUS(ws)) {
      printf("FAIL procs: rank %d's process %s %d\n", r,
             WIFEXITED(ws) ? "exited" : "was killed by signal",
             WIFEXITED(ws) ? WEXITSTATUS(ws) : WTERMSIG(ws));
      bad = 1;
    }
  }
  npass += S->npass; /* rank 0 printed the cases */
  nfail += S->nfail + bad;
  munmap(S, sizeof(*S));
  return bad;
}
