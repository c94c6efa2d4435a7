/* The plan of one scenario as a value (plan.h): its rows, each row's n/a decision and
 * estimated seconds, the summary --dry-run prints. */
#include "plan/plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan/critical.h"
#include "profile/profile.h"

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

void plan_crit_size(const struct plan *p, int s, struct sweep_crit *out) {
  const struct run_opts *o = p->o;
  const struct sweep_est *e = p->est;
  uint64_t bytes = o->sizes[s].bytes;
  int cand_a[CRIT_MAX_CAND], nc = 0, dead = 0, live_t = 0, live_b = 0;
  const struct ar_transport *cand_t[CRIT_MAX_CAND];
  unsigned char target[CRIT_MAX_CAND];
  const struct model_price *price[CRIT_MAX_CAND];
  memset(out, 0, sizeof(*out));
  for (int i = p->size_row[s]; i < p->size_row[s + 1]; i++) { /* the size's candidates */
    const struct plan_row *r = &p->rows[i];
    int a = r->algo_idx;
    if (r->na) { /* one n/a row at delay 0, then out of the search */
      dead++;
      continue;
    }
    cand_a[nc] = a;
    cand_t[nc] = r->ex;
    target[nc] = (unsigned char)r->side;
    price[nc] = r->ex->id == AR_EX_NCCL || !e->priced[a] ? NULL : &e->price[a]; /* as the
                                                                  * bench's model (crit_report) */
    live_t += r->side == 1, live_b += r->side == 0;
    nc++;
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


/* Why every row on executor ex is n/a, or NULL: it cannot do what the options ask (degraded
 * links), or, where the placement is known, what the ranks' placement asks. The words go to
 * buf. */
static const char *row_na(const struct plan *p, const struct ar_transport *ex,
                          const struct plan_where *w, char *buf, size_t len) {
  const struct run_opts *o = p->o;
  int nccl = ex->id == AR_EX_NCCL;
  if (o->dg.n > 0 && !AR_TP_CAN(ex, AR_TP_DEGRADE)) /* the transport's own words for a row */
    return nccl ? snprintf(buf, len, "%s", ex->na[AR_TP_DEGRADE])
                : snprintf(buf, len, "%s: %s", ex->name, ex->na[AR_TP_DEGRADE]), buf;
  if (!w) return NULL; /* the rest asks where the ranks are */
  int graph = ar_setting_value(&o->settings, AR_SET_TIMING_MODE) == HX_TIMING_GRAPH;
  if (w->colocated && !AR_TP_CAN(ex, AR_TP_COLOCATED))
    return snprintf(buf, len, "%s (%s)", ex->na[AR_TP_COLOCATED], w->placement), buf;
  if (graph && w->colocated && !AR_TP_CAN(ex, AR_TP_GRAPH_COLOCATED))
    return snprintf(buf, len, "timing.mode=graph with ranks sharing a GPU (%s): %s",
                    w->placement, ex->na[AR_TP_GRAPH_COLOCATED]), buf;
  char mode[32];
  ar_setting_text(&o->settings, AR_SET_NCCL_REGISTRATION, mode, sizeof(mode));
  if (strcmp(mode, "none") && !AR_TP_CAN(ex, AR_TP_NCCL_REG)) /* a buffer NCCL registered */
    return snprintf(buf, len, "nccl.registration=%s: %s", mode, ex->na[AR_TP_NCCL_REG]), buf;
  if (w->nhosts > 1 && !AR_TP_CAN(ex, AR_TP_HOSTS))
    return snprintf(buf, len, "%s %s; the ranks span %d hosts", ex->name, ex->na[AR_TP_HOSTS],
                    w->nhosts), buf;
  /* degrade.network_bw: only nccl-p2p's emulation knows which bytes cross hosts */
  int net_dg = o->dg.n > 0 && ar_setting_value(&o->settings, AR_SET_DEGRADE_NETWORK_BW) > 0;
  if (net_dg && !nccl && (ex->id != AR_TP_NCCL_P2P || !o->gpus_per_node))
    return snprintf(buf, len, "degrade.network_bw: %s",
                    ex->id != AR_TP_NCCL_P2P
                        ? "only nccl-p2p emulates a degraded network between hosts"
                        : "no network to degrade: the ranks are not on several hosts of equal "
                          "blocks"), buf;
  return NULL;
}

/* Appends a row of size s: n/a for its schedule's reason, else its executor's (p->why) */
static void add_row(struct plan *p, int cap, int s, int a, const struct ar_transport *ex,
                    int side) {
  if (p->nrows >= cap) return;
  const char *ex_na = p->why[ex->id][0] ? p->why[ex->id] : NULL;
  const char *na = sweep_row_na(p->o, a, p->sched, p->st);
  p->rows[p->nrows++] = (struct plan_row){s, a, ex, side, na ? na : ex_na, ex_na, 0};
}

/* The executors algorithm a runs on: NCCL's own for the native one, else --transport's. */
static int executors(const struct run_opts *o, int a, const struct ar_transport **ex) {
  if (o->algos[a]->flags & AR_ALGO_NATIVE) return ex[0] = ar_executor_nccl(), 1;
  for (int t = 0; t < o->ntransports; t++) ex[t] = o->transports[t];
  return o->ntransports;
}

/* The seconds of the rows (as a search is predicted, and at its longest) with the estimate's
 * at_cap as set, and the counts (n/a, measured). */
static void plan_seconds(struct plan *p, double *seconds, double *seconds_max) {
  const struct run_opts *o = p->o;
  int nna = 0, measure = 0;
  *seconds = *seconds_max = 0;
  if (!o->find_critical) {
    double delay = sweep_mean_delay_us(o);
    for (int i = 0; i < p->nrows; i++) {
      struct plan_row *r = &p->rows[i];
      if (r->na) {
        nna++;
        continue;
      }
      measure++;
      r->seconds = sweep_row_seconds(p->est, r->algo_idx, r->ex, o->sizes[r->size_idx].bytes,
                                     delay);
      *seconds += r->seconds;
    }
    *seconds_max = *seconds;
  } else {
    for (int s = 0; s < o->nsizes; s++) {
      struct sweep_crit c;
      plan_crit_size(p, s, &c);
      int dead = 0;
      for (int i = p->size_row[s]; i < p->size_row[s + 1]; i++) {
        struct plan_row *r = &p->rows[i];
        dead += r->na != NULL;
        r->seconds = r->na ? 0 : sweep_row_seconds(p->est, r->algo_idx, r->ex,
                                                   o->sizes[s].bytes, 0);
      }
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
  p->nna = nna;
  p->measure = measure;
}

int plan_build(struct plan *p, const struct run_opts *o, int n, const struct plan_where *where) {
  memset(p, 0, sizeof(*p));
  p->o = o;
  p->n = n;
  int cap = o->nsizes * o->nalgos * (o->ntransports + 1);
  p->sched = calloc((size_t)o->nalgos + 1, sizeof(*p->sched));
  p->est = malloc(sizeof(*p->est));
  p->why = calloc(AR_NEXECUTORS, sizeof(*p->why));
  p->rows = calloc((size_t)cap + 1, sizeof(*p->rows));
  p->size_row = calloc((size_t)o->nsizes + 1, sizeof(*p->size_row));
  if (!p->sched || !p->est || !p->why || !p->rows || !p->size_row) {
    plan_free(p);
    return -1;
  }
  sweep_build_schedules(o, n, p->sched, p->st);
  sweep_est_init(p->est, o, n, p->sched, p->st);
  for (int x = 0; x < AR_NEXECUTORS; x++)
    row_na(p, ar_executor_at(x), where, p->why[x], sizeof(p->why[0]));
  const struct ar_transport *ex[AR_NEXECUTORS];
  /* the rows in the order they run: size, algorithm, executor; a search's candidates as the
   * search takes them (an algorithm of either side, each executor, at most CRIT_MAX_CAND) */
  for (int s = 0; s < o->nsizes; s++) {
    p->size_row[s] = p->nrows;
    int before = p->nrows;
    for (int a = 0; a < o->nalgos; a++) {
      int side = o->find_critical ? sweep_crit_side(o, a) : 0;
      if (side < 0) continue;
      for (int t = 0, nex = executors(o, a, ex); t < nex; t++)
        if (o->find_critical && p->nrows - before >= CRIT_MAX_CAND) break;
        else add_row(p, cap, s, a, ex[t], side);
    }
  }
  p->size_row[o->nsizes] = p->nrows;
  /* the summary: the algorithms' reasons (the native one's: its executor's), then the
   * transports' (each one's reason without its leading name) */
  const char *why[HX_MAX_ALGOS];
  const char *nccl_why = p->why[AR_EX_NCCL][0] ? p->why[AR_EX_NCCL] : NULL;
  for (int a = 0; a < o->nalgos; a++) {
    int native = (o->algos[a]->flags & AR_ALGO_NATIVE) != 0;
    why[a] = native ? nccl_why : sweep_row_na(o, a, p->sched, p->st);
    if (o->find_critical && sweep_crit_side(o, a) < 0) why[a] = NULL; /* not in the search */
  }
  na_text(p->na_text, sizeof(p->na_text), o, why);
  for (int t = 0; t < o->ntransports; t++) {
    const struct ar_transport *tp = o->transports[t];
    const char *w = p->why[tp->id];
    size_t k = strlen(p->na_text), len = strlen(tp->name);
    if (!strncmp(w, tp->name, len) && !strncmp(w + len, ": ", 2)) w += len + 2;
    if (w[0] && k < sizeof(p->na_text))
      snprintf(p->na_text + k, sizeof(p->na_text) - k, "%severy algorithm on %s: %s",
               k ? "; " : "", tp->name, w);
  }
  p->est->at_cap = 1; /* stats.ci_target: every row at its repeats' cap */
  plan_seconds(p, &p->seconds_cap, &p->seconds_max);
  p->est->at_cap = 0; /* the rows' own seconds: with their first samples */
  double first_max;   /* a search at its longest, each row with its first samples */
  plan_seconds(p, &p->seconds, &first_max);
  p->write = p->measure + p->nna;
  return 0;
}

void plan_free(struct plan *p) {
  if (p->sched)
    for (int a = 0; a < p->o->nalgos; a++) sched_free(&p->sched[a]);
  free(p->sched);
  free(p->est);
  free(p->why);
  free(p->rows);
  free(p->size_row);
  memset(p, 0, sizeof(*p));
}

const struct ar_schedule *plan_schedule(struct plan *p, const struct plan_row *row) {
  int a = row->algo_idx;
  if (p->o->algos[a]->flags & AR_ALGO_NATIVE) return NULL;
  sweep_size_schedule(p->o, p->n, a, p->o->sizes[row->size_idx].bytes, &p->sched[a], &p->st[a],
                      &p->built_k[a]);
  return &p->sched[a];
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

void plan_print(FILE *f, const struct plan *p) {
  const struct run_opts *o = p->o;
  int n = p->n;
  char a[32], b[32], d[32], m[32], line[1024] = "";
  size_t k = 0;
  for (int t = 0; t < o->ntransports && k < sizeof(line); t++)
    k += (size_t)snprintf(line + k, sizeof(line) - k, "%s%s", t ? "," : "", o->transports[t]->name);
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
            "cross (at most %s)\n", p->write, p->measure, p->nna,
            sweep_duration(d, sizeof(d), p->seconds), sweep_duration(m, sizeof(m), p->seconds_max));
  else
    fprintf(f, "  rows: %d (%d to measure, %d n/a), estimated %s\n", p->write, p->measure, p->nna,
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
  if (o->compute.kind) /* the model has no price for two kernels sharing a GPU */
    fprintf(f, "  compute: %s beside every AllReduce, and alone (each row three times as long); "
            "interference is not priced: the estimate times each as the AllReduce alone\n",
            ar_compute_kind_text(&o->compute, line, sizeof(line)));
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

