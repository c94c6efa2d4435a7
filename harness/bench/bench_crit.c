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
  c->on = 1;
  for (int a = 0; a < o->nalgos; a++) {
    int side = sweep_crit_side(o, a), native = (o->algos[a]->flags & AR_ALGO_NATIVE) != 0;
    if (side < 0) continue;
    int priced = !native && b->sched_st[a] == AR_OK && have_net &&
                 model_price_schedule(&b->sched[a], &net, &c->price[a]) == AR_OK;
    int na = sweep_row_na(o, a, b->sched, b->sched_st) != NULL;
    c->na[a] = (unsigned char)na;
    for (int t = 0; t < (native ? 1 : o->ntransports) && c->ncand < CRIT_MAX_CAND; t++) {
      c->cand_algo[c->ncand] = a;
      c->cand_tname[c->ncand] = native ? "nccl" : o->transports[t];
      c->cand_target[c->ncand] = side == 1;
      c->cand_price[c->ncand] = priced ? &c->price[a] : NULL;
      c->ncand++;
    }
  }
}

/* A candidate's name for critical.csv: "nccl" or "algorithm/transport"; returns buf. */
static char *cand_label(const struct bench *b, int k, char *buf, size_t len) {
  const struct crit_state *c = &b->crit;
  const char *name = b->o->algos[c->cand_algo[k]]->name;
  if (!strcmp(c->cand_tname[k], "nccl")) snprintf(buf, len, "%s", name);
  else snprintf(buf, len, "%s/%s", name, c->cand_tname[k]);
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
  uint64_t bytes = sweep_nelem(o->sizes[c->size], b->esize) * (uint64_t)b->esize;
  struct model_hw hw;
  double model_us;
  crit_model_hw(&hw);
  int mo = crit_model(c->cand_price, c->cand_target, c->ncand, &hw, (double)bytes,
                      o->crit_max_us, &model_us);
  char base[96] = "", tgt[96], cv[32], mv[32], note[512];
  snprintf(tgt, sizeof(tgt), "%s", o->crit_algo->name);
  if (cs->best_base >= 0) cand_label(b, cs->best_base, base, sizeof(base));
  if (cs->best_target >= 0) cand_label(b, cs->best_target, tgt, sizeof(tgt));
  const char *tname = cs->best_target >= 0 ? c->cand_tname[cs->best_target] : "";
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
    int a = -1; /* the first algorithm of the missing side, for its reason */
    for (int k = 0; k < c->ncand && a < 0; k++)
      if (c->cand_target[k] == (cs->outcome == CRIT_NO_TARGET)) a = c->cand_algo[k];
    const char *why = a >= 0 ? sweep_row_na(o, a, b->sched, b->sched_st) : NULL;
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
    sweep_crit_size(b->est, c->na, bytes, &sc);
    p->total -= sc.rows_max - c->rows;
    p->total_s -= sc.seconds - c->seconds;
  }
}

/* Rank 0: prepares the next job into b->job; returns 0 when there is none left. */
