/* The processes of an MPI job (procs.h). MPI starts only when a launcher started us, so the
 * same binary still runs alone. The barrier is written with point-to-point messages that
 * process 0 polls, not MPI_Barrier, so that the watchdog can say which processes never came
 * (a dead or hung process) and so that waiting processes yield their core (CI runs four
 * processes on two cores). */
#include "procs/backoff.h"
#include "procs/procs.h"

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "plan/sweep.h" /* HX_MAX_DEVS */

enum { TAG_ARRIVE = 7001, TAG_RELEASE = 7002, TAG_PING = 7003, TAG_PONG = 7004 };

static int on, nproc = 1, me, node_index, threads_multiple;
static char library[MPI_MAX_LIBRARY_VERSION_STRING];
static atomic_int waiting;              /* process 0 is in a barrier */
static atomic_int arrived[HX_MAX_DEVS]; /* who came to it, so far */

static void start_responder(void);
static void stop_responder(void);

/* Open MPI's launcher, MPICH's and Slurm's PMI, or PMIx (srun --mpi=pmix) started us. */
static int launched(void) {
  return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
}

int hx_procs_init(int *argc, char ***argv) {
  if (!launched()) return 0;
  int provided = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
    fprintf(stderr, "arbench: MPI_Init_thread failed\n");
    return -1;
  }
  on = 1;
  threads_multiple = provided >= MPI_THREAD_MULTIPLE;
  MPI_Comm_size(MPI_COMM_WORLD, &nproc);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (provided < MPI_THREAD_SERIALIZED && me == 0)
    fprintf(stderr, "arbench: the MPI library gives thread level %d, below SERIALIZED: the "
                    "watchdog may not end a hung job cleanly\n", provided);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &node_index);
  MPI_Comm_free(&node);
  int len = 0;
  MPI_Get_library_version(library, &len);
  library[strcspn(library, "\n")] = 0;
  start_responder();
  /* one process holds at least one rank: more processes than ranks cannot run */
  if (nproc > HX_MAX_DEVS) {
    if (me == 0)
      fprintf(stderr, "arbench: %d MPI processes; at most %d ranks in all\n", nproc,
              HX_MAX_DEVS);
    MPI_Finalize();
    exit(EXIT_BAD_INPUT);
  }
  return 0;
}

/* The responder: a thread of every process but 0 that answers process 0's pings while the
 * process lives and runs (its other threads may be stuck in GPU work), so that process 0's
 * watchdog can tell a stopped or dead process from one whose ranks wait on a peer. */
static pthread_t responder;
static atomic_int responder_on, responder_stop;

static void *respond(void *arg) {
  (void)arg;
  int ping = 0;
  MPI_Request req;
  MPI_Irecv(&ping, 1, MPI_INT, 0, TAG_PING, MPI_COMM_WORLD, &req);
  while (!atomic_load(&responder_stop)) {
    int done = 0;
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (!done) {
      usleep(10 * 1000);
      continue;
    }
    MPI_Send(&ping, 1, MPI_INT, 0, TAG_PONG, MPI_COMM_WORLD);
    MPI_Irecv(&ping, 1, MPI_INT, 0, TAG_PING, MPI_COMM_WORLD, &req);
  }
  MPI_Cancel(&req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  return NULL;
}

static void start_responder(void) {
  if (me == 0 || nproc < 2 || !threads_multiple) return;
  if (!pthread_create(&responder, NULL, respond, NULL)) atomic_store(&responder_on, 1);
}

static void stop_responder(void) {
  if (!atomic_load(&responder_on)) return;
  atomic_store(&responder_stop, 1);
  pthread_join(responder, NULL);
  atomic_store(&responder_on, 0);
}

int hx_procs_count(void) { return nproc; }
int hx_procs_me(void) { return me; }
int hx_procs_node_index(void) { return node_index; }
const char *hx_procs_library(void) { return on ? library : ""; }

void hx_procs_finalize(void) {
  stop_responder();
  if (on) MPI_Finalize();
  on = 0;
}

void hx_procs_abort(int status) {
  fflush(NULL);
  if (on && nproc > 1) MPI_Abort(MPI_COMM_WORLD, status);
  _exit(status);
}

/* Polls req until it completes, yielding the core while it waits (the collectives too: Open
 * MPI's own wait polls a core as long as it lasts). */
static int wait_polling(MPI_Request *req) {
  int done = 0;
  for (struct backoff w = {0};; backoff_pause(&w, 100, 2000, 50)) {
    if (MPI_Test(req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return -1;
    if (done) return 0;
  }
}

/* The status of a nonblocking collective started with status `started` into req, once done. */
static int waited(int started, MPI_Request *req) {
  return started == MPI_SUCCESS ? wait_polling(req) : -1;
}

int hx_procs_barrier(int err) {
  int e = err != 0;
  if (nproc == 1) return e;
  if (me != 0) {
    MPI_Request req;
    MPI_Send(&e, 1, MPI_INT, 0, TAG_ARRIVE, MPI_COMM_WORLD);
    MPI_Irecv(&e, 1, MPI_INT, 0, TAG_RELEASE, MPI_COMM_WORLD, &req);
    return wait_polling(&req) ? 1 : e;
  }
  int got[HX_MAX_DEVS];
  MPI_Request req[HX_MAX_DEVS];
  for (int p = 1; p < nproc; p++) {
    atomic_store(&arrived[p], 0);
    MPI_Irecv(&got[p], 1, MPI_INT, p, TAG_ARRIVE, MPI_COMM_WORLD, &req[p]);
  }
  atomic_store(&waiting, 1);
  struct backoff w = {0};
  for (int left = nproc - 1; left > 0;) {
    for (int p = 1; p < nproc; p++) {
      int done = 0;
      if (atomic_load(&arrived[p])) continue;
      MPI_Test(&req[p], &done, MPI_STATUS_IGNORE);
      if (!done) continue;
      atomic_store(&arrived[p], 1);
      e |= got[p] != 0;
      left--;
    }
    if (left) backoff_pause(&w, 100, 2000, 50);
  }
  atomic_store(&waiting, 0);
  for (int p = 1; p < nproc; p++) MPI_Send(&e, 1, MPI_INT, p, TAG_RELEASE, MPI_COMM_WORLD);
  return e;
}

int hx_procs_bcast(void *buf, size_t len, int root) {
  if (nproc == 1) return 0;
  MPI_Request req;
  return waited(MPI_Ibcast(buf, (int)len, MPI_BYTE, root, MPI_COMM_WORLD, &req), &req);
}

int hx_procs_allgather(const void *mine, void *all, size_t len) {
  if (nproc == 1) {
    if (all != mine) memmove(all, mine, len);
    return 0;
  }
  MPI_Request req;
  return waited(MPI_Iallgather(mine, (int)len, MPI_BYTE, all, (int)len, MPI_BYTE,
                               MPI_COMM_WORLD, &req), &req);
}

int hx_procs_sum_u64(unsigned long long *v, size_t n) {
  if (nproc == 1 || !n) return 0;
  MPI_Request req;
  return waited(MPI_Iallreduce(MPI_IN_PLACE, v, (int)n, MPI_UNSIGNED_LONG_LONG, MPI_SUM,
                               MPI_COMM_WORLD, &req), &req);
}

int hx_procs_sum_f64(double *v, size_t n) {
  if (nproc == 1 || !n) return 0;
  MPI_Request req;
  return waited(MPI_Iallreduce(MPI_IN_PLACE, v, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req),
                &req);
}

/* Process 0, not in a barrier: pings every other process's responder and marks those that do
 * not answer within 2 s (stopped, dead, or their host out of reach); returns how many. */
static int unanswered(unsigned char *away) {
  static int ping[HX_MAX_DEVS], pong[HX_MAX_DEVS];
  MPI_Request sreq[HX_MAX_DEVS], rreq[HX_MAX_DEVS];
  int answered[HX_MAX_DEVS] = {0}, left = nproc - 1, n = 0;
  for (int p = 1; p < nproc; p++) {
    MPI_Irecv(&pong[p], 1, MPI_INT, p, TAG_PONG, MPI_COMM_WORLD, &rreq[p]);
    MPI_Isend(&ping[p], 1, MPI_INT, p, TAG_PING, MPI_COMM_WORLD, &sreq[p]);
  }
  for (int tries = 0; left > 0 && tries < 200; tries++) {
    for (int p = 1; p < nproc; p++) {
      int done = 0;
      if (answered[p]) continue;
      MPI_Test(&rreq[p], &done, MPI_STATUS_IGNORE);
      if (done) answered[p] = 1, left--;
    }
    if (left) usleep(10 * 1000);
  }
  for (int p = 1; p < nproc; p++) {
    away[p] = !answered[p];
    n += away[p];
  }
  return n; /* the requests of the silent ones stay posted: the job is ending */
}

int hx_procs_absent(unsigned char *away) {
  int n = 0;
  for (int p = 0; p < nproc; p++) {
    away[p] = me == 0 && p > 0 && atomic_load(&waiting) && !atomic_load(&arrived[p]);
    n += away[p];
  }
  if (!n && me == 0 && nproc > 1 && threads_multiple && !atomic_load(&waiting))
    n = unanswered(away);
  return n;
}
