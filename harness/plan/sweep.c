/* What a run's plan (plan.c) is made of: the sizes, the straggler delays, each algorithm's
 * schedule (OPTCC's k per size), the estimate of a row's seconds, the progress line and the
 * regressions summary.md reports. */
#include "plan/sweep.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/critical.h"
#include "model.h"
#include "profile/profile.h"

int sweep_sizes(uint64_t min, uint64_t max, int factor, uint64_t step, struct msg_size *out,
                int cap) {
  int n = 0;
  for (uint64_t b = min; b <= max;) {
    if (n == cap) return -1;
    out[n++] = (struct msg_size){.bytes = b, .nelem = b, .esize = 1};
    uint64_t next = step ? b + step : b * (uint64_t)factor;
    if (next <= b) break; /* overflow */
    b = next;
  }
  return n;
}

/* A 64-bit mix (splitmix64's finaliser); returns the mixed value. */
static uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

double sweep_delay_us(const struct run_opts *o, int k, int job, int it) {
  const struct straggler_spec *sp = &o->st[k];
  if (o->delays[k]) return o->delays[k][it % o->ndelays[k]];
  if (sp->delay_hi_us <= sp->delay_lo_us) return sp->delay_lo_us;
  uint64_t h = mix64(((uint64_t)job << 40) ^ ((uint64_t)it << 8) ^ (uint64_t)sp->rank);
  double u = (double)(h >> 11) / 9007199254740992.0; /* [0, 1) */
  return sp->delay_lo_us + u * (sp->delay_hi_us - sp->delay_lo_us);
}

double sweep_mean_delay_us(const struct run_opts *o) {
  double worst = 0;
  for (int k = 0; k < o->nst; k++) {
    double m = (o->st[k].delay_lo_us + o->st[k].delay_hi_us) / 2;
    if (o->delays[k]) {
      m = 0;
      for (int i = 0; i < o->ndelays[k]; i++) m += o->delays[k][i] / o->ndelays[k];
    }
    worst = fmax(worst, m);
  }
  return worst;
}

ar_status sweep_build_one(const struct run_opts *o, int n, int a, int segments,
                          struct ar_schedule *s) {
  struct ar_params p;
  args_fill_params(&p, n, o->st, o->nst, &o->dg, o->torus_ndims, o->torus);
  p.segments = segments;
  p.fabric = AR_FABRIC_SWITCH; /* one node's GPUs: every pair one hop apart (NVSwitch) */
  p.gpus_per_node = o->gpus_per_node; /* ring-rails: a channel per GPU of a host */
  sched_free(s);
  memset(s, 0, sizeof(*s));
  if (o->algos[a]->flags & AR_ALGO_NATIVE) {
    snprintf(s->reason, sizeof(s->reason), "%s has no schedule", o->algos[a]->name);
    return AR_ERR_UNSUPPORTED;
  }
  ar_status st = ar_build(o->algos[a], &p, s);
  if (st == AR_OK && sched_verify(s, NULL) != AR_OK) {
    st = AR_ERR_VERIFY;
    snprintf(s->reason, sizeof(s->reason),
             "the schedule does not verify (arbench schedule --algo %s --ranks %d)",
             o->algos[a]->name, n);
  }
  return st;
}

void sweep_build_schedules(const struct run_opts *o, int n, struct ar_schedule *sched,
                           ar_status *st) {
  for (int a = 0; a < o->nalgos; a++) {
    memset(&sched[a], 0, sizeof(sched[a]));
    st[a] = sweep_build_one(o, n, a, o->segments, &sched[a]);
  }
}

const char *sweep_row_na(const struct run_opts *o, int a, const struct ar_schedule *sched,
                         const ar_status *st) {
  if ((o->algos[a]->flags & AR_ALGO_NATIVE) || st[a] == AR_OK) return NULL;
  return sched[a].reason[0] ? sched[a].reason : ar_status_str(st[a]);
}

int sweep_segments(const struct run_opts *o, int n, int switch_form, uint64_t bytes) {
  if (o->segments > 0) return o->segments;
  return ar_optcc_segments(n, o->dg.n, o->dg.factor, switch_form, (double)bytes, o->degrade_bw);
}

void sweep_size_schedule(const struct run_opts *o, int n, int a, uint64_t bytes,
                         struct ar_schedule *sched, ar_status *st, int *built_k) {
  const struct ar_algo *al = o->algos[a];
  if (!al->segments) return; /* not segmented */
  int k = o->segments > 0 ? o->segments
                          : al->segments(n, o->dg.n, o->dg.factor, sched->ports > 1, (double)bytes,
                                         o->degrade_bw); /* multi-port: the switch form */
  if (k == *built_k) return;
  *st = sweep_build_one(o, n, a, k, sched);
  *built_k = k;
}

double sweep_lower_bound_us(const struct run_opts *o, int n, uint64_t bytes) {
  if (!o->dg.n || !(o->degrade_bw > 0)) return NAN;
  if (ar_setting_value(&o->settings, AR_SET_DEGRADE_NETWORK_BW) > 0)
    return NAN; /* the bound is one tier's, and only the network between hosts is slow */
  struct model_hw hw = {.beta = 1e6 / o->degrade_bw};
  double t = model_degraded_bound_us(n, o->dg.n, o->dg.factor, &hw, (double)bytes);
  return t > 0 ? t : NAN;
}

int sweep_crit_side(const struct run_opts *o, int a) {
  if (o->algos[a] == o->crit_algo) return 1;
  return o->algos[a]->flags & AR_ALGO_STRAGGLER_AWARE ? -1 : 0;
}

int hx_budget_cap(double budget_us, double warm_us) {
  if (!(budget_us > 0) || !(warm_us > 0)) return INT_MAX;
  double fit = floor(budget_us / warm_us);
  return fit < HX_BUDGET_MIN_ITERS ? HX_BUDGET_MIN_ITERS : fit >= INT_MAX ? INT_MAX : (int)fit;
}

int hx_budget_iters(int iters, double budget_us, double warm_us) {
  if (!(budget_us > 0) || !(warm_us > 0) || iters <= HX_BUDGET_MIN_ITERS) return iters;
  double fit = floor(budget_us / warm_us);
  if (fit >= iters) return iters;
  return fit < HX_BUDGET_MIN_ITERS ? HX_BUDGET_MIN_ITERS : (int)fit;
}

/* ---- the duration estimate ---- */

/* The harness's own work: a least-squares fit to the 3307 rows of a nightly on 4 x H200
 * (the dry-run's figures beside the wall time of every row; tools/device/nightly_fit.sh). */
#define EST_ROW_S 0.0025     /* per row: the job's preparation, statistics and CSV line */
#define EST_SETUP_BPS 240e9  /* per row: the transport's setup and teardown, bytes per second */
#define EST_CHECK_BPS 570e9  /* per iteration: the inputs written and the result checked */
#define EST_ITER_US 13.0     /* per iteration: two barriers and the launch gate */

void sweep_est_init(struct sweep_est *e, const struct run_opts *o, int n,
                    const struct ar_schedule *sched, const ar_status *st) {
  memset(e, 0, sizeof(*e));
  e->o = o;
  e->n = n;
  struct ar_params p;
  struct model_net net;
  args_fill_params(&p, n, o->st, o->nst, &o->dg, o->torus_ndims, o->torus);
  p.fabric = AR_FABRIC_SWITCH;
  if (model_net_init(&net, MODEL_SWITCH, &p) != AR_OK) return; /* bytes alone, then */
  struct model_price ring;
  const struct ar_algo *ra = ar_algo_find("ring");
  int have_ring = ra && model_price_algo(ra, &p, &net, &ring, NULL, 0) == AR_OK;
  for (int a = 0; a < o->nalgos; a++) {
    if (o->algos[a]->flags & AR_ALGO_NATIVE) {
      e->priced[a] = (unsigned char)have_ring;
      if (have_ring) e->price[a] = ring;
    } else if (st[a] == AR_OK) {
      e->priced[a] = model_price_schedule(&sched[a], &net, &e->price[a]) == AR_OK;
    }
  }
}

/* The estimate on one transport (tp: its figures), or bytes alone when a is not priced. */
static double est_time_tp(const struct sweep_est *e, int a, const struct ar_transport *tp,
                          uint64_t bytes, double delay_us) {
  struct model_hw hw = {0};
  model_transport_hw(tp, &hw);
  if (!e->priced[a]) /* about ring's volume, 2 (n-1) rounds */
    return delay_us + 2.0 * (e->n - 1) * (hw.alpha_us + (double)bytes / e->n * hw.beta);
  struct model_times t;
  model_times(&e->price[a], &hw, (double)bytes, delay_us, &t);
  return t.time_us;
}

/* Each executor's cost per round and bandwidth: its descriptor's (src/transports.c). */
double sweep_est_time_us(const struct sweep_est *e, int a, const struct ar_transport *ex,
                         uint64_t bytes, double delay_us) {
  double slow = 1; /* a degraded GPU's factor, where the model has no schedule to slow */
  for (int g = 0; g < e->o->dg.n && !e->priced[a]; g++) slow = fmax(slow, e->o->dg.factor[g]);
  double t = est_time_tp(e, a, ex, bytes, delay_us);
  return delay_us + (t - delay_us) * slow;
}

int sweep_repeat_cap(const struct run_opts *o, double t_us) {
  int host = ar_setting_value(&o->settings, AR_SET_TIMING_MODE) != 0;
  int first = host ? (int)ar_setting_value(&o->settings, AR_SET_TIMING_HOST_BATCHES)
                   : hx_budget_iters(o->iters, o->row_budget_us, t_us);
  if (!(ar_setting_value(&o->settings, AR_SET_STATS_CI_TARGET) > 0)) return first;
  int cap = (int)ar_setting_value(&o->settings, AR_SET_STATS_MAX_ITERS);
  int budget = host ? INT_MAX : hx_budget_cap(o->row_budget_us, t_us);
  if (budget < cap) cap = budget;
  return cap > first ? cap : first;
}

/* A row's seconds when its AllReduce takes t_us: with its first samples (-n, what the budget
 * allows, timing.host_batches), or with at_cap as many as stats.ci_target may take. */
static double row_seconds_t(const struct run_opts *o, uint64_t bytes, double t_us, int at_cap) {
  double per_iter = t_us * 1e-6 + (double)bytes / EST_CHECK_BPS + EST_ITER_US * 1e-6;
  double row = EST_ROW_S + (double)bytes / EST_SETUP_BPS;
  int host = ar_setting_value(&o->settings, AR_SET_TIMING_MODE) != 0;
  int samples = at_cap ? sweep_repeat_cap(o, t_us)
                : host ? (int)ar_setting_value(&o->settings, AR_SET_TIMING_HOST_BATCHES)
                       : hx_budget_iters(o->iters, o->row_budget_us, t_us);
  if (host) /* batches of bare AllReduces, then one checked iteration */
    return row + (o->warmup + 1) * per_iter + o->iters * samples * t_us * 1e-6;
  return row + (o->warmup + samples) * per_iter;
}

double sweep_row_seconds(const struct sweep_est *e, int a, const struct ar_transport *ex,
                         uint64_t bytes, double delay_us) {
  double s = row_seconds_t(e->o, bytes, sweep_est_time_us(e, a, ex, bytes, delay_us), e->at_cap);
  return e->o->compute.kind ? 3 * s : s; /* --compute: the load alone and both together too */
}

char *sweep_duration(char *buf, size_t len, double seconds) {
  if (!(seconds < 3.6e9)) return snprintf(buf, len, "over 1000000h"), buf; /* also inf, nan */
  long s = seconds > 0 ? lround(seconds) : 0;
  if (s < 60) snprintf(buf, len, "%lds", s);
  else if (s < 3600) snprintf(buf, len, "%ldm%02lds", s / 60, s % 60);
  else snprintf(buf, len, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
  return buf;
}

char *hx_progress_format(char *buf, size_t len, const struct hx_progress *p, double now,
                         const char *label) {
  double elapsed = now - p->t0, left = p->total_s - p->done_s;
  if (p->done_s > 0 && elapsed > 0) left *= elapsed / p->done_s; /* scaled by the pace so far */
  if (left < 0) left = 0;
  char e[32], l[32];
  snprintf(buf, len, "[%d/%d rows] %s elapsed, ~%s left: %s", p->done,
           p->total > p->done ? p->total : p->done, sweep_duration(e, sizeof(e), elapsed),
           sweep_duration(l, sizeof(l), left), label);
  return buf;
}

int sweep_print_regressions(const char *summary_md, FILE *out) {
  FILE *f = fopen(summary_md, "r");
  if (!f) return -1;
  char line[4096];
  int in = 0, found = 0, n = 0;
  while (fgets(line, sizeof(line), f)) {
    line[strcspn(line, "\r\n")] = 0;
    if (!strncmp(line, "## ", 3)) {
      in = !strncmp(line, "## Regressions", 14);
      found |= in;
      continue;
    }
    if (in && (line[0] == '|' || line[0] == '*' || !strncmp(line, "None", 4) ||
               !strncmp(line, "No rows", 7) || !strncmp(line, "Note", 4))) {
      fprintf(out, "# %s\n", line);
      n++;
    }
  }
  fclose(f);
  return found ? n : -1;
}
