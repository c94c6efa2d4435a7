/* The critical-delay search inside the benchmark: its candidates and the model's prices, and
 * each size's line in critical.csv (the search itself is critical.c). */
#include "bench/bench_int.h"

void crit_setup(struct bench *b) {
  const struct run_opts *o = b->o;
  struct crit_state *c = &b->crit;
  struct ar_params p;
  struct model_net net;
  args_fill_params(&p, b->n, o->st, o->nst, &o->dg, o->torus_ndims, o->torus);
  int have_net = model_net_init(&net, MODEL_SWITCH, &p) == AR_OK;
  const struct plan *pl = &b->plan;
  unsigned char priced[HX_MAX_ALGOS] = {0};
  c->on = 1;
  for (int a = 0; a < o->nalgos; a++) /* each schedule's price, once */
    priced[a] = !(o->algos[a]->flags & AR_ALGO_NATIVE) && pl->st[a] == AR_OK && have_net &&
                model_price_schedule(&pl->sched[a], &net, &c->price[a]) == AR_OK;
  /* the candidates: the plan's rows of a size (every size has them in the same order) */
  c->ncand = o->nsizes ? pl->size_row[1] - pl->size_row[0] : 0;
  for (int k = 0; k < c->ncand; k++) {
    const struct plan_row *r = &pl->rows[k];
    c->cand_target[k] = (unsigned char)(r->side == 1);
    c->cand_price[k] = priced[r->algo_idx] ? &c->price[r->algo_idx] : NULL;
  }
}

/* Candidate k of the current size's row of the plan. */
static const struct plan_row *cand_row(const struct bench *b, int k) {
  return &b->plan.rows[b->plan.size_row[b->crit.size] + k];
}

/* A candidate's name for critical.csv: "nccl" or "algorithm/transport"; returns buf. */
static char *cand_label(const struct bench *b, int k, char *buf, size_t len) {
  const struct plan_row *r = cand_row(b, k);
  const char *name = b->o->algos[r->algo_idx]->name;
  if (r->ex->id == AR_EX_NCCL) snprintf(buf, len, "%s", name);
  else snprintf(buf, len, "%s/%s", name, r->ex->name);
  return buf;
}

/* A delay for critical.csv: "%.1f" when found, "inf" when never, else empty; returns buf. */
static char *crit_value(int outcome, double us, char *buf, size_t len) {
  if (outcome == CRIT_FOUND) snprintf(buf, len, "%.1f", us);
  else snprintf(buf, len, "%s", outcome == CRIT_NEVER ? "inf" : "");
  return buf;
}

/* Rank 0: one size's search is over: its line in critical.csv and on stdout, and the
 * progress estimate trimmed to what the search actually took. */
void crit_report(struct bench *b) {
  const struct run_opts *o = b->o;
  struct crit_state *c = &b->crit;
  const struct crit_search *cs = &c->cs;
  uint64_t bytes = o->sizes[c->size].bytes;
  struct model_hw hw;
  double model_us;
  crit_model_hw(&hw);
  int mo = crit_model(c->cand_price, c->cand_target, c->ncand, &hw, (double)bytes,
                      o->crit_max_us, &model_us);
  char base[96] = "", tgt[96], cv[32], mv[32], note[512];
  snprintf(tgt, sizeof(tgt), "%s", o->crit_algo->name);
  if (cs->best_base >= 0) cand_label(b, cs->best_base, base, sizeof(base));
  if (cs->best_target >= 0) cand_label(b, cs->best_target, tgt, sizeof(tgt));
  const char *tname = cs->best_target >= 0 ? cand_row(b, cs->best_target)->ex->name : "";
  switch (cs->outcome) {
  case CRIT_FOUND:
    snprintf(note, sizeof(note), "%s %.1f us vs %s %.1f us at %.1f ms", tgt, cs->t_target, base,
             cs->t_base, cs->decided_at_us / 1000);
    break;
  case CRIT_NEVER:
    snprintf(note, sizeof(note), "did not win up to %.1f ms (%s %.1f us vs %s %.1f us there)",
             cs->decided_at_us / 1000, tgt, cs->t_target, base, cs->t_base);
    break;
  case CRIT_FAILED:
    snprintf(note, sizeof(note), "a row failed at delay %.1f ms", cs->decided_at_us / 1000);
    break;
  default: {
    const struct plan_row *r = NULL; /* the first row of the missing side, for its reason */
    for (int k = 0; k < c->ncand && !r; k++)
      if (c->cand_target[k] == (cs->outcome == CRIT_NO_TARGET)) r = cand_row(b, k);
    const char *why = !r ? NULL : sweep_row_na(o, r->algo_idx, b->plan.sched, b->plan.st);
    if (r && !why) why = r->ex_na;
    snprintf(note, sizeof(note), "no %s row could be measured at delay 0%s%s",
             cs->outcome == CRIT_NO_TARGET ? o->crit_algo->name : "baseline", why ? ": " : "",
             why ? why : " (see the n/a and error lines)");
  }
  }
  FILE *f = b->cfg->critical_csv;
  if (f) {
    fprintf(f, "%llu,", (unsigned long long)bytes);
    hx_csv_field(f, o->crit_algo->name);
    fputc(',', f);
    hx_csv_field(f, base);
    fprintf(f, ",%s,%s,%d,%d,%s,%s,%d,", crit_value(cs->outcome, cs->critical_us, cv, sizeof(cv)),
            crit_value(mo, model_us, mv, sizeof(mv)), b->n, o->st[0].rank, tname,
            crit_outcome_name(cs->outcome), cs->probes);
    hx_csv_field(f, o->scenario);
    fputc(',', f);
    hx_csv_field(f, note);
    fputc('\n', f);
    fflush(f);
  }
  progress_clear(b);
  printf("# critical delay, %llu B: %s%s; model %s%s; %s\n", (unsigned long long)bytes,
         cs->outcome == CRIT_FOUND ? cv : crit_outcome_name(cs->outcome),
         cs->outcome == CRIT_FOUND ? " us" : "", mo == CRIT_FOUND ? mv : crit_outcome_name(mo),
         mo == CRIT_FOUND ? " us" : "", note);
  fflush(stdout);
  struct hx_progress *p = b->cfg->progress;
  if (p) { /* the plan counted this size's rows at most, its seconds as predicted */
    struct sweep_crit sc;
    plan_crit_size(&b->plan, c->size, &sc);
    p->total -= sc.rows_max - c->rows;
    p->total_s -= sc.seconds - c->seconds;
  }
}

/* Rank 0: prepares the next job into b->job; returns 0 when there is none left. */
