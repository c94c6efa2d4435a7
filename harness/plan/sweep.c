/* The plan of a run from its options: the sizes, the straggler delays, each algorithm's
 * schedule (OPTCC's k per size), n/a rows, the estimated duration (--dry-run), the progress
 * line and the regressions summary.md reports. */
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
  int native = (o->algos[a]->flags & AR_ALGO_NATIVE) != 0;
  if (native && o->dg.n > 0) return "nccl cannot be degraded";
  if (native || st[a] == AR_OK) return NULL;
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
  struct model_hw hw = {0, 0, 1e6 / o->degrade_bw, 0};
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

/* Each transport's cost per round and bandwidth: its descriptor's (src/transports.c; the native
 * nccl call's: model_transport_find); a name it does not know takes the slower of ce and sm at
 * each size. */
double sweep_est_time_us(const struct sweep_est *e, int a, const char *tname, uint64_t bytes,
                         double delay_us) {
  double slow = 1; /* a degraded GPU's factor, where the model has no schedule to slow */
  for (int g = 0; g < e->o->dg.n && !e->priced[a]; g++) slow = fmax(slow, e->o->dg.factor[g]);
  const struct ar_transport *tp = model_transport_find(tname);
  double t = tp ? est_time_tp(e, a, tp, bytes, delay_us)
                : fmax(est_time_tp(e, a, ar_transport_at(AR_TP_CE), bytes, delay_us),
                       est_time_tp(e, a, ar_transport_at(AR_TP_SM), bytes, delay_us));
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

double sweep_row_seconds(const struct sweep_est *e, int a, const char *tname, uint64_t bytes,
                         double delay_us) {
  return row_seconds_t(e->o, bytes, sweep_est_time_us(e, a, tname, bytes, delay_us), e->at_cap);
}

/* Writes "a, b: why; c: other" into buf: the algorithms with a reason, grouped by reason. */
static void na_text(char *buf, size_t len, const struct run_opts *o, const char *const *why) {
  size_t k = 0;
  buf[0] = 0;
  for (int a = 0; a < o->nalgos && k < len; a++) {
    int first = 1;
    for (int b = 0; b < a && first; b++) first = !(why[b] && why[a] && !strcmp(why[a], why[b]));
    if (!why[a] || !first) continue; /* no reason, or listed with an earlier one */
    k += (size_t)snprintf(buf + k, len - k, "%s", k ? "; " : "");
    for (int b = a; b < o->nalgos && k < len; b++)
      if (why[b] && !strcmp(why[a], why[b]))
        k += (size_t)snprintf(buf + k, len - k, "%s%s", b > a ? ", " : "", o->algos[b]->name);
    if (k < len) k += (size_t)snprintf(buf + k, len - k, ": %s", why[a]);
  }
}

/* Bisection probes needed for a bracket of `ticks` grid steps: ceil(log2(ticks)). */
static int bisect_steps(long ticks) {
  int k = 0;
  for (long w = 1; w < ticks; w *= 2) k++;
  return k;
}

void sweep_crit_size(const struct sweep_est *e, const unsigned char *na, uint64_t bytes,
                     struct sweep_crit *out) {
  const struct run_opts *o = e->o;
  int cand_a[CRIT_MAX_CAND], nc = 0, dead = 0, live_t = 0, live_b = 0;
  const char *cand_t[CRIT_MAX_CAND];
  unsigned char target[CRIT_MAX_CAND];
  const struct model_price *price[CRIT_MAX_CAND];
  memset(out, 0, sizeof(*out));
  for (int a = 0; a < o->nalgos; a++) { /* the candidates as bench_crit.c lists them */
    int side = sweep_crit_side(o, a), native = (o->algos[a]->flags & AR_ALGO_NATIVE) != 0;
    if (side < 0) continue;
    for (int t = 0; t < (native ? 1 : o->ntransports) && nc + dead < CRIT_MAX_CAND; t++) {
      if (na[a]) { /* one n/a row at delay 0, then out of the search */
        dead++;
        continue;
      }
      cand_a[nc] = a;
      cand_t[nc] = native ? "nccl" : o->transports[t];
      target[nc] = side == 1;
      price[nc] = native || !e->priced[a] ? NULL : &e->price[a]; /* as crit_report's model */
      live_t += side == 1, live_b += side == 0;
      nc++;
    }
  }
  /* the probes' delays: as the search goes where the model's times cross (critical.csv's
   * model_critical_delay_us), and at most (every coarse probe, then the widest bracket's
   * bisection at the largest delay) */
  double probe[128], coarse[64];
  int np = 0, ncoarse = crit_coarse_delays(o->crit_max_us, coarse, 64);
  double prev = ncoarse > 1 ? coarse[ncoarse - 2] : 0, crit_us = NAN;
  int nb = bisect_steps(lround((coarse[ncoarse - 1] - prev) / CRIT_STEP_US));
  struct model_hw hw;
  crit_model_hw(&hw);
  int found = live_t && live_b && crit_model(price, target, nc, &hw, (double)bytes, o->crit_max_us,
                                             &crit_us) == CRIT_FOUND;
  struct crit_search cs; /* two stand-ins: the target wins from crit_us on */
  unsigned char side2[2] = {1, 0};
  crit_init(&cs, 2, side2, o->crit_max_us);
  int k;
  double d;
  while (crit_next(&cs, &k, &d) && np < 128) {
    if (k == 0) probe[np++] = d;
    crit_feed(&cs, k == 1 ? 2 : found && d >= crit_us - 1e-6 ? 1 : 3);
    if (!live_t || !live_b) break; /* the search ends at delay 0 */
  }
  for (int c = 0; c < nc; c++) {
    for (int i = 0; i < np; i++)
      out->seconds += sweep_row_seconds(e, cand_a[c], cand_t[c], bytes, probe[i]);
    out->seconds_max += sweep_row_seconds(e, cand_a[c], cand_t[c], bytes, 0);
    if (!live_t || !live_b) continue;
    for (int i = 0; i < ncoarse; i++)
      out->seconds_max += sweep_row_seconds(e, cand_a[c], cand_t[c], bytes, coarse[i]);
    out->seconds_max += nb * sweep_row_seconds(e, cand_a[c], cand_t[c], bytes, coarse[ncoarse - 1]);
  }
  out->rows = dead + nc * np;
  out->rows_max = dead + nc * (1 + (live_t && live_b ? ncoarse + nb : 0));
}

/* Why every row on transport tname is n/a whatever its algorithm, or NULL (in why[]): what its
 * descriptor says it cannot do that the options already ask for (the run says the lowering's
 * reason per row). */
static const char *transport_na(const struct run_opts *o, const char *tname, char *why,
                                size_t len) {
  const struct ar_transport *t = ar_transport_find(tname);
  if (!t || !(o->dg.n > 0) || AR_TP_CAN(t, AR_TP_DEGRADE)) return NULL;
  snprintf(why, len, "no degraded-link emulation on %s", t->name);
  return why;
}

/* The seconds of o's rows estimated with e (as the search is predicted, and at its longest),
 * and with p, their counts into p (n/a, measured); a critical search's every coarse probe. */
static void plan_seconds(const struct run_opts *o, const struct sweep_est *e,
                         const unsigned char *na, const int *per_algo, struct sweep_plan *p,
                         double *seconds, double *seconds_max) {
  int nna = 0, measure = 0;
  *seconds = *seconds_max = 0;
  if (!o->find_critical) {
    double delay = sweep_mean_delay_us(o);
    for (int s = 0; s < o->nsizes; s++)
      for (int a = 0; a < o->nalgos; a++) {
        if (na[a]) {
          nna += per_algo[a];
          continue;
        }
        int native = (o->algos[a]->flags & AR_ALGO_NATIVE) != 0;
        for (int t = 0; t < per_algo[a]; t++) {
          const char *tname = native ? "nccl" : o->transports[t];
          char twhy[128];
          if (transport_na(o, tname, twhy, sizeof(twhy))) {
            nna++;
            continue;
          }
          measure++;
          *seconds += sweep_row_seconds(e, a, tname, o->sizes[s].bytes, delay);
        }
      }
    *seconds_max = *seconds;
  } else {
    for (int s = 0; s < o->nsizes; s++) {
      struct sweep_crit c;
      sweep_crit_size(e, na, o->sizes[s].bytes, &c);
      int dead = 0;
      for (int a = 0; a < o->nalgos; a++)
        if (na[a] && sweep_crit_side(o, a) >= 0) dead += per_algo[a];
      nna += dead;
      measure += c.rows_max - dead;
      *seconds += c.seconds;
      *seconds_max += c.seconds_max;
    }
  }
  if (measure) { /* communicators, buffers and the first launches */
    *seconds += HX_EST_SCENARIO_S;
    *seconds_max += HX_EST_SCENARIO_S;
  }
  if (p) p->na = nna, p->measure = measure;
}

int sweep_plan(const struct run_opts *o, int n, struct sweep_plan *p) {
  memset(p, 0, sizeof(*p));
  struct ar_schedule *sched = calloc((size_t)o->nalgos + 1, sizeof(*sched));
  struct sweep_est *e = malloc(sizeof(*e));
  ar_status st[HX_MAX_ALGOS];
  if (!sched || !e) {
    free(sched), free(e);
    return -1;
  }
  sweep_build_schedules(o, n, sched, st);
  sweep_est_init(e, o, n, sched, st);
  int per_algo[HX_MAX_ALGOS];
  unsigned char na[HX_MAX_ALGOS];
  const char *why[HX_MAX_ALGOS];
  for (int a = 0; a < o->nalgos; a++) {
    per_algo[a] = o->algos[a]->flags & AR_ALGO_NATIVE ? 1 : o->ntransports;
    why[a] = sweep_row_na(o, a, sched, st);
    na[a] = why[a] != NULL;
    if (o->find_critical && sweep_crit_side(o, a) < 0) why[a] = NULL; /* not in the search */
  }
  na_text(p->na_text, sizeof(p->na_text), o, why);
  for (int t = 0; t < o->ntransports && !o->find_critical; t++) {
    char twhy[128];
    const char *tw = transport_na(o, o->transports[t], twhy, sizeof(twhy));
    size_t k = strlen(p->na_text);
    if (tw && k < sizeof(p->na_text))
      snprintf(p->na_text + k, sizeof(p->na_text) - k, "%severy algorithm on %s: %s",
               k ? "; " : "", o->transports[t], tw);
  }
  double first_max; /* a search at its longest, each row with its first samples */
  plan_seconds(o, e, na, per_algo, p, &p->seconds, &first_max);
  e->at_cap = 1; /* stats.ci_target: every row at its repeats' cap */
  plan_seconds(o, e, na, per_algo, NULL, &p->seconds_cap, &p->seconds_max);
  p->rows = p->measure + p->na;
  for (int a = 0; a < o->nalgos; a++) sched_free(&sched[a]);
  free(sched);
  free(e);
  return 0;
}

/* A size in binary units where exact ("64M", "1K"), else in bytes; returns buf. */
static char *size_text(char *buf, size_t len, uint64_t b) {
  static const char units[] = "KMGT";
  int u = -1;
  while (u < 3 && b >= 1024 && b % 1024 == 0) b /= 1024, u++;
  if (u < 0) snprintf(buf, len, "%llu", (unsigned long long)b);
  else snprintf(buf, len, "%llu%c", (unsigned long long)b, units[u]);
  return buf;
}

char *sweep_duration(char *buf, size_t len, double seconds) {
  if (!(seconds < 3.6e9)) return snprintf(buf, len, "over 1000000h"), buf; /* also inf, nan */
  long s = seconds > 0 ? lround(seconds) : 0;
  if (s < 60) snprintf(buf, len, "%lds", s);
  else if (s < 3600) snprintf(buf, len, "%ldm%02lds", s / 60, s % 60);
  else snprintf(buf, len, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
  return buf;
}

/* Straggler k's delay in words: "8 ms", a uniform range, or the file. */
static void delay_text(char *buf, size_t len, const struct run_opts *o, int k) {
  const struct straggler_spec *sp = &o->st[k];
  if (o->delays[k]) {
    double m = 0;
    for (int i = 0; i < o->ndelays[k]; i++) m += o->delays[k][i] / o->ndelays[k];
    snprintf(buf, len, "per iteration from %s (%d delays, mean %g ms)", sp->file, o->ndelays[k],
             m / 1e3);
  } else if (sp->delay_hi_us > sp->delay_lo_us) {
    snprintf(buf, len, "uniformly %g..%g ms, a new draw each iteration", sp->delay_lo_us / 1e3,
             sp->delay_hi_us / 1e3);
  } else {
    snprintf(buf, len, "%g ms", sp->delay_lo_us / 1e3);
  }
}

void sweep_print_plan(FILE *f, const struct run_opts *o, int n, const struct sweep_plan *p) {
  char a[32], b[32], d[32], m[32], line[1024] = "";
  size_t k = 0;
  for (int t = 0; t < o->ntransports && k < sizeof(line); t++)
    k += (size_t)snprintf(line + k, sizeof(line) - k, "%s%s", t ? "," : "", o->transports[t]);
  fprintf(f, "scenario %s: %d GPUs, %d algorithms, transports %s, %s, %d iterations + %d "
          "warm-up\n", o->scenario[0] ? o->scenario : "(default)", n, o->nalgos, line,
          ar_dtype_name(o->dtype), o->iters, o->warmup);
  size_text(a, sizeof(a), o->sizes[0].bytes);
  size_text(b, sizeof(b), o->sizes[o->nsizes - 1].bytes);
  if (o->find_critical)
    fprintf(f, "  critical-delay search at %d size%s %s%s%s: %s vs the fastest other, "
            "delays 0..%g ms in 0.1 ms steps, straggler rank %d\n", o->nsizes,
            o->nsizes > 1 ? "s" : "", a, o->nsizes > 1 ? ".." : "", o->nsizes > 1 ? b : "",
            o->crit_algo->name, o->crit_max_us / 1000, o->nst ? o->st[0].rank : n - 1);
  else if (o->nsizes > 1)
    fprintf(f, "  sizes: %d, %s..%s\n", o->nsizes, a, b);
  else
    fprintf(f, "  sizes: 1, %s\n", a);
  for (int s = 0; s < o->nst; s++) {
    if (o->find_critical && s == 0) continue;
    delay_text(line, sizeof(line), o, s);
    fprintf(f, "  straggler: rank %d delayed %s\n", o->st[s].rank, line);
  }
  for (int g = 0; g < o->dg.n; g++)
    fprintf(f, "  degraded: rank %d links x%g\n", o->dg.rank[g], o->dg.factor[g]);
  if (o->find_critical)
    fprintf(f, "  rows: at most %d (%d to measure, %d n/a), estimated %s as the model's times "
            "cross (at most %s)\n", p->rows, p->measure, p->na,
            sweep_duration(d, sizeof(d), p->seconds), sweep_duration(m, sizeof(m), p->seconds_max));
  else
    fprintf(f, "  rows: %d (%d to measure, %d n/a), estimated %s\n", p->rows, p->measure, p->na,
            sweep_duration(d, sizeof(d), p->seconds));
  if (o->row_budget_us > 0)
    fprintf(f, "  row budget: %g ms: timed iterations cut to what fits it at the last warm-up "
            "iteration's pace, %d at least\n", o->row_budget_us / 1e3,
            o->iters < HX_BUDGET_MIN_ITERS ? o->iters : HX_BUDGET_MIN_ITERS);
  double target = ar_setting_value(&o->settings, AR_SET_STATS_CI_TARGET);
  if (target > 0) {
    int host = ar_setting_value(&o->settings, AR_SET_TIMING_MODE) != 0;
    int step = host ? (int)ar_setting_value(&o->settings, AR_SET_TIMING_HOST_BATCHES) : o->iters;
    fprintf(f, "  repeats: stats.ci_target %g: %d more %s at a time until the median's 95%% "
            "interval is within %g%% of it, up to stats.max_iters %.0f%s; estimated as if every "
            "row met it with its first %d; every row at its cap: %s%s\n", target, step,
            host ? "batches" : "timed iterations", target * 100,
            ar_setting_value(&o->settings, AR_SET_STATS_MAX_ITERS),
            o->row_budget_us > 0 && !host ? " or what the row budget fits" : "", step,
            sweep_duration(d, sizeof(d), p->seconds_cap),
            o->find_critical ? " (the search as predicted)" : "");
  }
  if (p->na_text[0]) fprintf(f, "  n/a: %s\n", p->na_text);
  if (o->phases)
    fprintf(f, "  phases: the last iteration of each row on every rank (phases.csv)\n");
  if (o->profile & HX_PROFILE_TIMELINE)
    fprintf(f, "  profile: %stimeline (CUPTI activity records: results.csv's overlap columns, "
            "overlap.csv, timeline.csv)\n",
            o->profile & HX_PROFILE_OVERLAP ? "overlap," : "");
  else if (o->profile)
    fprintf(f, "  profile: overlap (CUPTI activity records: results.csv's overlap columns, "
            "overlap.csv)\n");
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
