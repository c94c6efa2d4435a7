/* The critical-delay search: decisions only (see critical.h); the GPU harness, the model
 * and the tests supply the measurements. */
#include "plan/critical.h"

#include <string.h>

enum { PH_ZERO, PH_COARSE, PH_BISECT, PH_DONE };

void crit_init(struct crit_search *cs, int n, const unsigned char *is_target,
               double max_delay_us) {
  memset(cs, 0, sizeof(*cs));
  cs->n = n < 0 ? 0 : n > CRIT_MAX_CAND ? CRIT_MAX_CAND : n;
  for (int i = 0; i < cs->n; i++) {
    cs->target[i] = is_target[i] != 0;
    cs->alive[i] = 1;
    cs->t[i] = NAN;
  }
  cs->max_ticks = (long)ceil(max_delay_us / CRIT_STEP_US - 1e-9);
  if (cs->max_ticks < 1) cs->max_ticks = 1;
  cs->phase = PH_ZERO;
  cs->hi = -1;
  cs->cur = -1;
  cs->critical_us = cs->t_target = cs->t_base = cs->decided_at_us = NAN;
  cs->best_target = cs->best_base = -1;
}

/* The fastest live candidate of one side (target or not) at the current probe, or -1 when
 * none has a time; sets *failed when a live one of that side has none. */
static int fastest(const struct crit_search *cs, int target, int *failed) {
  int best = -1;
  for (int i = 0; i < cs->n; i++) {
    if (!cs->alive[i] || cs->target[i] != target) continue;
    if (!(cs->t[i] > 0) || isinf(cs->t[i])) { /* NaN, zero or infinite: not a measurement */
      *failed = 1;
      continue;
    }
    if (best < 0 || cs->t[i] < cs->t[best]) best = i;
  }
  return best;
}

/* Notes the two sides' fastest at the current probe as the reason for the outcome. */
static void note_probe(struct crit_search *cs, int bt, int bb) {
  cs->best_target = bt;
  cs->best_base = bb;
  cs->t_target = bt >= 0 ? cs->t[bt] : NAN;
  cs->t_base = bb >= 0 ? cs->t[bb] : NAN;
  cs->decided_at_us = (double)cs->probe * CRIT_STEP_US;
}

/* Ends the search. */
static void finish(struct crit_search *cs, int outcome) {
  cs->outcome = outcome;
  cs->phase = PH_DONE;
  if (outcome == CRIT_FOUND) cs->critical_us = (double)cs->hi * CRIT_STEP_US;
}

/* Decides the current probe once every live candidate has been asked for, and sets up the
 * next one (or ends the search). */
static void decide(struct crit_search *cs) {
  cs->probes++;
  if (cs->phase == PH_ZERO) /* what cannot run undelayed is out of the search */
    for (int i = 0; i < cs->n; i++)
      if (!(cs->t[i] > 0) || isinf(cs->t[i])) cs->alive[i] = 0;
  int failed = 0;
  int bt = fastest(cs, 1, &failed), bb = fastest(cs, 0, &failed);
  if (bt < 0 || bb < 0 || failed) {
    note_probe(cs, bt, bb);
    finish(cs, cs->phase != PH_ZERO ? CRIT_FAILED : bt < 0 ? CRIT_NO_TARGET : CRIT_NO_BASELINE);
    return;
  }
  int wins = cs->t[bt] < cs->t[bb];
  if (wins) note_probe(cs, bt, bb); /* the answer is always a winning probe */
  switch (cs->phase) {
  case PH_ZERO:
    if (wins) {
      cs->hi = 0;
      finish(cs, CRIT_FOUND);
      return;
    }
    cs->lo = 0;
    cs->phase = PH_COARSE;
    cs->probe = cs->max_ticks < CRIT_FIRST_TICKS ? cs->max_ticks : CRIT_FIRST_TICKS;
    break;
  case PH_COARSE:
    if (!wins) {
      cs->lo = cs->probe;
      if (cs->probe >= cs->max_ticks) {
        note_probe(cs, bt, bb);
        finish(cs, CRIT_NEVER);
        return;
      }
      cs->probe = 2 * cs->probe < cs->max_ticks ? 2 * cs->probe : cs->max_ticks;
      break;
    }
    cs->hi = cs->probe;
    cs->phase = PH_BISECT;
    break;
  default: /* PH_BISECT */
    if (wins) cs->hi = cs->probe;
    else cs->lo = cs->probe;
    break;
  }
  if (cs->phase == PH_BISECT) {
    if (cs->hi - cs->lo <= 1) {
      finish(cs, CRIT_FOUND);
      return;
    }
    cs->probe = cs->lo + (cs->hi - cs->lo) / 2;
  }
  for (int i = 0; i < cs->n; i++) cs->t[i] = NAN;
  cs->cur = -1;
}

int crit_next(struct crit_search *cs, int *cand, double *delay_us) {
  while (cs->phase != PH_DONE) {
    int i = cs->cur + 1;
    while (i < cs->n && !cs->alive[i]) i++;
    if (i < cs->n) {
      cs->cur = i;
      *cand = i;
      *delay_us = (double)cs->probe * CRIT_STEP_US;
      return 1;
    }
    decide(cs);
  }
  return 0;
}

void crit_feed(struct crit_search *cs, double time_us) {
  if (cs->phase == PH_DONE || cs->cur < 0 || cs->cur >= cs->n) return;
  cs->t[cs->cur] = time_us;
  cs->measurements++;
}

int crit_run(struct crit_search *cs, crit_measure_fn fn, void *ctx) {
  int cand;
  double delay;
  while (crit_next(cs, &cand, &delay)) crit_feed(cs, fn(ctx, cand, delay));
  return cs->outcome;
}

void crit_model_hw(struct model_hw *hw) {
  memset(hw, 0, sizeof(*hw));
  hw->alpha_us = 3.0;     /* stragglar.txt s4.2, as `arbench model` */
  hw->beta = 1e6 / 450e9; /* 450 GB/s per direction, us per byte */
}

struct model_ctx {
  const struct model_price *const *price;
  const struct model_hw *hw;
  double bytes;
};

/* The model's time of candidate cand at a delay, NaN where it has no price. */
static double model_measure(void *ctx, int cand, double delay_us) {
  const struct model_ctx *m = ctx;
  if (!m->price[cand]) return NAN;
  struct model_times t;
  model_times(m->price[cand], m->hw, m->bytes, delay_us, &t);
  return t.time_us;
}

int crit_model(const struct model_price *const *price, const unsigned char *is_target, int n,
               const struct model_hw *hw, double bytes, double max_delay_us,
               double *critical_us) {
  struct crit_search cs;
  struct model_ctx m = {price, hw, bytes};
  crit_init(&cs, n, is_target, max_delay_us);
  int outcome = crit_run(&cs, model_measure, &m);
  *critical_us = cs.critical_us;
  return outcome;
}

const char *crit_outcome_name(int outcome) {
  switch (outcome) {
  case CRIT_FOUND: return "found";
  case CRIT_NEVER: return "never";
  case CRIT_NO_TARGET:
  case CRIT_NO_BASELINE: return "n/a";
  case CRIT_FAILED: return "error";
  default: return "running";
  }
}
