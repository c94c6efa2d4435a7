/* The critical straggler delay: for one size, the smallest delay, on a 0.1 ms
 * grid, at which a straggler-aware algorithm (the "target", stragglar) beats the fastest of the
 * other algorithms (the "baselines") measured at the same delay.
 *
 * The search is a pure-C state machine that asks for one measurement at a time (candidate,
 * delay) and is fed its time, so the GPU harness, the model and the tests all drive the same
 * decisions. Probes, each measuring every live candidate at one delay:
 *   1. delay 0: each candidate's undelayed time; candidates that fail here (n/a, oom) drop
 *      out for good; the target winning here gives a critical delay of 0;
 *   2. coarse: 0.5 ms, 1, 2, 4, ... ms up to the maximum (included), until the target wins;
 *   3. bisection between the last losing and the first winning delay, re-measuring the target
 *      and every baseline at each probe, until the two are one grid step (0.1 ms) apart.
 * A bulk-synchronous algorithm takes about delay + its own time while the target hides part
 * of the delay, so "the target wins" is monotone in the delay and bisection finds the crossing.
 * The answer is the winning side of the final bracket: the true crossing lies within 0.1 ms
 * below it. */
#ifndef HX_CRITICAL_H
#define HX_CRITICAL_H

#include <math.h>

#include "model.h"

#define CRIT_MAX_CAND 256
#define CRIT_STEP_US 100.0         /* the grid the critical delay is found on: 0.1 ms */
#define CRIT_FIRST_TICKS 5         /* the first coarse probe: 0.5 ms */
#define CRIT_DEFAULT_MAX_US 64000.0 /* coarse probes stop here: 0.5 ms x 2^7 */

enum crit_outcome {
  CRIT_RUNNING = 0,
  CRIT_FOUND,       /* critical_us is the answer (0: the target wins even undelayed) */
  CRIT_NEVER,       /* the target did not win at any delay up to the maximum */
  CRIT_NO_TARGET,   /* no target could be measured at delay 0 (n/a, oom, error) */
  CRIT_NO_BASELINE, /* no baseline could be measured at delay 0 */
  CRIT_FAILED,      /* a candidate measured at delay 0 failed at a later probe */
};

struct crit_search {
  int n;                                /* candidates */
  unsigned char target[CRIT_MAX_CAND];  /* 1: the straggler-aware side */
  unsigned char alive[CRIT_MAX_CAND];   /* measured at delay 0 (all of them before that) */
  long max_ticks;                       /* the largest delay, in grid steps */
  int phase;                            /* 0: delay 0, 1: coarse, 2: bisection, 3: done */
  long probe;                           /* the current probe's delay, in grid steps */
  long lo, hi;                          /* the target loses at lo and wins at hi (steps) */
  int cur;                              /* the candidate asked for last; -1: none */
  double t[CRIT_MAX_CAND];              /* the current probe's times (NaN: not measured) */
  /* the result */
  int outcome;       /* enum crit_outcome */
  double critical_us; /* NaN unless CRIT_FOUND */
  int best_target, best_base; /* fastest of each side at the deciding probe (-1: none) */
  double t_target, t_base;    /* their times there, us */
  double decided_at_us;       /* that probe's delay */
  int probes, measurements;   /* work done */
};

/* Starts a search over n candidates (n <= CRIT_MAX_CAND); is_target[i] != 0 marks the
 * straggler-aware side; delays go up to max_delay_us (rounded up to the grid). */
void crit_init(struct crit_search *cs, int n, const unsigned char *is_target,
               double max_delay_us);
/* The next measurement wanted: returns 1 with *cand and *delay_us set, or 0 when the search
 * is over (cs->outcome says how). Every call that returns 1 must be answered by crit_feed. */
int crit_next(struct crit_search *cs, int *cand, double *delay_us);
/* Answers the last crit_next: the measured time in us (the median), NaN when the row could
 * not be measured (n/a, oom, error). */
void crit_feed(struct crit_search *cs, double time_us);

/* A measurement for crit_run: the time of candidate cand at the given delay, or NaN. */
typedef double (*crit_measure_fn)(void *ctx, int cand, double delay_us);
/* Runs the whole search with fn; returns cs->outcome. */
int crit_run(struct crit_search *cs, crit_measure_fn fn, void *ctx);

/* The model's hardware for its prediction: `arbench model`'s defaults (alpha 3 us, 450 GB/s,
 * no hop latency, no reduction cost), so critical.csv agrees with `arbench model`. */
void crit_model_hw(struct model_hw *hw);
/* The model's critical delay for a buffer of `bytes`: the same search, with model_times in
 * place of measurements. price[i] is candidate i's priced schedule, NULL where the model has
 * none (nccl: it drops out like an n/a row). Returns the outcome and sets *critical_us (NaN
 * unless CRIT_FOUND). */
int crit_model(const struct model_price *const *price, const unsigned char *is_target, int n,
               const struct model_hw *hw, double bytes, double max_delay_us,
               double *critical_us);

/* "found", "never", "n/a" or "error", for critical.csv's status column. */
const char *crit_outcome_name(int outcome);

/* The coarse probe delays for max_delay_us into out[0..cap); returns how many (the plan). */
static inline int crit_coarse_delays(double max_delay_us, double *out, int cap) {
  long max_ticks = (long)ceil(max_delay_us / CRIT_STEP_US - 1e-9), t;
  if (max_ticks < 1) max_ticks = 1;
  int k = 0;
  for (t = max_ticks < CRIT_FIRST_TICKS ? max_ticks : CRIT_FIRST_TICKS;; t *= 2) {
    if (t > max_ticks) t = max_ticks;
    if (k < cap) out[k] = (double)t * CRIT_STEP_US;
    k++;
    if (t == max_ticks) return k;
  }
}

#endif
