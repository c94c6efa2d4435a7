/* Drives src/nvtx.c directly (tests/test_nvtx.sh runs it with and without the injection
 * library of inject.c): one named thread per case, each pushing what a rank's thread (size >
 * iter > allreduce) and a transport (round N) would push, so the log shows how the
 * precondition range follows the round numbers. Prints "nvtx: active" or "nvtx: inactive"
 * (no tool attached). */
#include <pthread.h>
#include <stdio.h>

#include "nvtx.h"
#include "profile/phases.h"

/* One collective as the harness and a transport enqueue it: nrounds rounds (-1: the transport
 * marks none), the first nprecond of them the precondition. */
static void collective(int it, int nprecond, int nrounds) {
  ar_nvtx_push("iter %d", it);
  ar_nvtx_push("allreduce %s", "bcast/ce");
  ar_nvtx_collective_begin(nprecond);
  for (int k = 0; k < nrounds; k++) {
    ar_nvtx_push("round %d", k);
    ar_nvtx_pop();
  }
  ar_nvtx_collective_end();
  ar_nvtx_pop();
  ar_nvtx_pop();
}

/* Case "marks": 2 precondition rounds of 4, then a collective with none. */
static void *case_marks(void *arg) {
  (void)arg;
  ar_nvtx_name_thread("marks");
  ar_nvtx_name_stream((void *)0x5ca1ab1e, "marks stream");
  ar_nvtx_job_reset();
  ar_nvtx_push("size %d MiB %s", 1, "bcast/ce");
  collective(0, 2, 4);
  collective(1, 0, 2);
  ar_nvtx_pop();
  return NULL;
}

/* Case "silent": a transport that marks no rounds; from the job's second collective on, the
 * precondition range spans the collective; a new job forgets. */
static void *case_silent(void *arg) {
  (void)arg;
  ar_nvtx_name_thread("silent");
  for (int job = 0; job < 2; job++) {
    ar_nvtx_job_reset();
    ar_nvtx_push("size job %d", job);
    collective(0, 3, 0);
    collective(1, 3, 0);
    ar_nvtx_pop();
  }
  return NULL;
}

/* Case "all": every round is precondition (closed by the collective's end); a pop beyond
 * what was pushed is ignored. */
static void *case_all(void *arg) {
  (void)arg;
  ar_nvtx_name_thread("all");
  ar_nvtx_job_reset();
  ar_nvtx_push("size all");
  collective(0, 2, 2);
  ar_nvtx_pop();
  ar_nvtx_pop();
  return NULL;
}

int main(void) {
  void *(*cases[])(void *) = {case_marks, case_silent, case_all};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    pthread_t th;
    if (pthread_create(&th, NULL, cases[i], NULL)) return 1;
    pthread_join(th, NULL);
  }
  printf("nvtx: %s\n", ar_nvtx_active() ? "active" : "inactive");
  return 0;
}
