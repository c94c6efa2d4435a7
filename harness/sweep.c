/* The plan of a run from its options: the sizes, the straggler delays, each algorithm's
 * schedule (OPTCC's k per size), n/a rows, the estimated duration (--dry-run), the progress
 * line and the regressions summary.md reports. */
#include "sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "critical.h"
#include "model.h"
#include "profile.h"

int sweep_sizes(uint64_t min, uint64_t max, int factor, uint64_t step, uint64_t *out, int cap) {
  int n = 0;
  for (uint64_t b = min; b <= max;) {
    if (n == cap) return -1;
    out[n++] = b;
    uint64_t next = step ? b + step : b * (uint64_t)factor;
    if (next <= b) break; /* overflow */
    b = next;
  }
  return n;
}

uint64_t sweep_nelem(uint64_t bytes, int esize) {
  uint64_t n = bytes / (uint64_t)esize;
  return n ? n : 1;
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
  if (native && o->dg.n > 0) return "nccl cannot be degraded"; /* SPEC.md s4 */
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
  struct model_hw hw = {0, 0, 1e6 / o->degrade_bw, 0};
  double t = model_degraded_bound_us(n, o->dg.n, o->dg.factor, &hw, (double)bytes);
  return t > 0 ? t : NAN;
}

int sweep_crit_side(const struct run_opts *o, int a) {
  if (o->algos[a] == o->crit_algo) return 1;
  return o->algos[a]->flags & AR_ALGO_STRAGGLER_AWARE ? -1 : 0;
}

double sweep_row_seconds(const struct run_opts *o, uint64_t bytes, double delay_us) {
  double slow = 1; /* a degraded GPU slows a row by up to its factor */
  for (int g = 0; g < o->dg.n; g++) slow = fmax(slow, o->dg.factor[g]);
  double per_iter = (double)bytes / 300e9 * slow + 50e-6 + delay_us * 1e-6;
  int iters = o->iters; /* timing.mode=host: its batches, then one checked iteration */
  if (ar_setting_value(&o->settings, AR_SET_TIMING_MODE))
    iters = o->iters * (int)ar_setting_value(&o->settings, AR_SET_TIMING_HOST_BATCHES) + 1;
  return (o->warmup + iters) * per_iter + 0.02;
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

void sweep_crit_bound(const struct run_opts *o, uint64_t bytes, int live_t, int live_b,
                      int dead, int *rows, double *seconds) {
  int live = live_t + live_b;
  *rows = dead + live;
  *seconds = live * sweep_row_seconds(o, bytes, 0);
  if (!live_t || !live_b) return; /* the search ends at delay 0 */
  double coarse[64];
  int nc = crit_coarse_delays(o->crit_max_us, coarse, 64);
  double prev = nc > 1 ? coarse[nc - 2] : 0;
  int nb = bisect_steps(lround((coarse[nc - 1] - prev) / CRIT_STEP_US));
  double t = nb * sweep_row_seconds(o, bytes, coarse[nc - 1]);
  for (int i = 0; i < nc; i++) t += sweep_row_seconds(o, bytes, coarse[i]);
  *rows += live * (nc + nb);
  *seconds += live * t;
}

int sweep_plan(const struct run_opts *o, int n, struct sweep_plan *p) {
  memset(p, 0, sizeof(*p));
  struct ar_schedule *sched = calloc((size_t)o->nalgos + 1, sizeof(*sched));
  ar_status st[HX_MAX_ALGOS];
  if (!sched) return -1;
  sweep_build_schedules(o, n, sched, st);
  int per_algo[HX_MAX_ALGOS], na[HX_MAX_ALGOS];
  const char *why[HX_MAX_ALGOS];
  for (int a = 0; a < o->nalgos; a++) {
    per_algo[a] = o->algos[a]->flags & AR_ALGO_NATIVE ? 1 : o->ntransports;
    why[a] = sweep_row_na(o, a, sched, st);
    na[a] = why[a] != NULL;
    if (o->find_critical && sweep_crit_side(o, a) < 0) why[a] = NULL; /* not in the search */
  }
  na_text(p->na_text, sizeof(p->na_text), o, why);
  if (!o->find_critical) {
    double delay = sweep_mean_delay_us(o);
    for (int s = 0; s < o->nsizes; s++)
      for (int a = 0; a < o->nalgos; a++) {
        if (na[a]) {
          p->na += per_algo[a];
          continue;
        }
        p->measure += per_algo[a];
        p->seconds += per_algo[a] * sweep_row_seconds(o, o->sizes[s], delay);
      }
  } else {
    int live_t = 0, live_b = 0, dead = 0;
    for (int a = 0; a < o->nalgos; a++) {
      int side = sweep_crit_side(o, a);
      if (side < 0) continue;
      if (na[a]) dead += per_algo[a];
      else if (side) live_t += per_algo[a];
      else live_b += per_algo[a];
    }
    for (int s = 0; s < o->nsizes; s++) {
      int rows;
      double secs;
      sweep_crit_bound(o, sweep_nelem(o->sizes[s], (int)ar_dtype_size(o->dtype)) *
                              (uint64_t)ar_dtype_size(o->dtype),
                       live_t, live_b, dead, &rows, &secs);
      p->na += dead;
      p->measure += rows - dead;
      p->seconds += secs;
    }
  }
  p->rows = p->measure + p->na;
  if (p->measure) p->seconds += 10; /* communicators, buffers and the first launches */
  for (int a = 0; a < o->nalgos; a++) sched_free(&sched[a]);
  free(sched);
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
  char a[32], b[32], d[32], line[1024] = "";
  size_t k = 0;
  for (int t = 0; t < o->ntransports && k < sizeof(line); t++)
    k += (size_t)snprintf(line + k, sizeof(line) - k, "%s%s", t ? "," : "", o->transports[t]);
  fprintf(f, "scenario %s: %d GPUs, %d algorithms, transports %s, %s, %d iterations + %d "
          "warm-up\n", o->scenario[0] ? o->scenario : "(default)", n, o->nalgos, line,
          ar_dtype_name(o->dtype), o->iters, o->warmup);
  size_text(a, sizeof(a), o->sizes[0]);
  size_text(b, sizeof(b), o->sizes[o->nsizes - 1]);
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
  fprintf(f, "  rows: %s%d (%d to measure, %d n/a), estimated %s%s\n",
          o->find_critical ? "at most " : "", p->rows, p->measure, p->na,
          o->find_critical ? "at most " : "", sweep_duration(d, sizeof(d), p->seconds));
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
