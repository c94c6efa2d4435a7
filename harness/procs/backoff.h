/* backoff.h: waiting for another thread or process without taking the core it needs. A waiter
 * spins a little (the wait is often short), then yields, then naps. A yield that comes back
 * late means other threads ran in between: the cores are oversubscribed (more ranks than
 * cores, or a busy machine), where yielding again only takes turns from the threads being
 * waited for, so from then on the waiter naps. On idle cores a yield returns at once and the
 * waiter keeps its short reaction time. */
#ifndef HX_BACKOFF_H
#define HX_BACKOFF_H
#include <sched.h>
#include <time.h>
#include <unistd.h>

struct backoff {
  long spins;
  int napping;
};

/* Pauses once: spins up to `spin` times, then yields up to `yield` times in all, then naps
 * nap_us; napping at once after a yield that took over 50 us. */
static inline void backoff_pause(struct backoff *b, long spin, long yield, unsigned nap_us) {
  if (b->napping || ++b->spins > yield) {
    usleep(nap_us);
    return;
  }
  if (b->spins <= spin) return;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  sched_yield();
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if ((t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec) > 50000) b->napping = 1;
}
#endif
