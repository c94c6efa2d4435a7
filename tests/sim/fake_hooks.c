/* Each rank's AllReduces on the simulated GPU, counted (NCCL's and the transports' alike), and
 * what fires on them (tests/sim/fake_gpu.c's opening comment names the variables): AR_SIM_KILL,
 * AR_SIM_HANG and AR_SIM_STOP at a rank's K-th, AR_SIM_COUNT's counts at the process's exit,
 * AR_SIM_JITTER's noise on each one's time. */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fake_gpu.h"

/* AR_SIM_KILL=R:K / AR_SIM_HANG=R:K (spec): 1 when it names rank `rank`'s k-th AllReduce. */
static int sim_hook_at(const char *spec, int rank, int k) {
  int r, at;
  return spec && sscanf(spec, "%d:%d", &r, &at) == 2 && r == rank && at == k;
}
static int sim_calls[AR_MAX_GPUS]; /* each rank's AllReduces so far (this process's ranks) */
static void sim_write_counts(void);
static void sim_count_at_exit(void) { atexit(sim_write_counts); }

/* AR_SIM_COUNT=FILE, at the process's exit: "rank R: K allreduces" appended for each rank of
 * this process that made any (one write per line: processes of a job append at once). */
static void sim_write_counts(void) {
  const char *path = getenv("AR_SIM_COUNT");
  int fd = path && *path ? open(path, O_WRONLY | O_APPEND | O_CREAT, 0644) : -1;
  for (int r = 0; r < AR_MAX_GPUS && fd >= 0; r++) {
    char line[64];
    int k = __atomic_load_n(&sim_calls[r], __ATOMIC_SEQ_CST), len;
    len = snprintf(line, sizeof(line), "rank %d: %d allreduces\n", r, k);
    if (k > 0 && write(fd, line, (size_t)len) != len) break;
  }
  if (fd >= 0) close(fd);
}

/* AR_SIM_JITTER=F: the factor 1 + F u on the k-th AllReduce of rank `rank`, u in [0, 1) a
 * fixed function of (rank, k) (splitmix64): noisy times whose interval shrinks as samples
 * grow; 1 without it. */
double sim_jitter(int rank, int k) {
  const char *j = getenv("AR_SIM_JITTER");
  if (!j || !(atof(j) > 0)) return 1;
  uint64_t z = ((uint64_t)rank << 32 | (uint32_t)k) + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return 1 + atof(j) * (double)(z >> 11) / 9007199254740992.0;
}

/* Counts rank `rank`'s AllReduces and fires AR_SIM_KILL or AR_SIM_HANG at theirs; returns the
 * count (0 for a rank out of range). */
int sim_failure_hooks(int rank) {
  static pthread_once_t counts_once = PTHREAD_ONCE_INIT;
  if (rank < 0 || rank >= AR_MAX_GPUS) return 0;
  if (getenv("AR_SIM_COUNT")) pthread_once(&counts_once, sim_count_at_exit);
  int k = __atomic_add_fetch(&sim_calls[rank], 1, __ATOMIC_SEQ_CST);
  if (sim_hook_at(getenv("AR_SIM_KILL"), rank, k)) {
    fprintf(stderr, "fake_gpu: AR_SIM_KILL: rank %d's process killed at its AllReduce %d\n",
            rank, k);
    raise(SIGKILL);
  }
  if (sim_hook_at(getenv("AR_SIM_HANG"), rank, k)) {
    fprintf(stderr, "fake_gpu: AR_SIM_HANG: rank %d hangs at its AllReduce %d\n", rank, k);
    for (;;) sleep(3600);
  }
  if (sim_hook_at(getenv("AR_SIM_STOP"), rank, k)) {
    fprintf(stderr, "fake_gpu: AR_SIM_STOP: rank %d's process stops at its AllReduce %d\n", rank,
            k);
    raise(SIGSTOP);
  }
  return k;
}
