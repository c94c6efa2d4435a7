/* Printing schedules: a readable text form and JSON (msccl-style plans as data). */
#include "ar.h"

static const char *op_name(int op) { return op == AR_COPY ? "copy" : "reduce"; }

void sched_print_text(const struct ar_schedule *s, FILE *f) {
  for (size_t lo = 0; lo < s->nxfers;) {
    size_t hi = lo;
    int r = s->xfers[lo].round;
    while (hi < s->nxfers && s->xfers[hi].round == r) hi++;
    fprintf(f, "round %d%s:", r, r < s->nprecond ? " (precondition)" : "");
    for (size_t i = lo; i < hi; i++) {
      const struct ar_xfer *x = &s->xfers[i];
      fprintf(f, " %d->%d %s c%d", x->src, x->dst, op_name(x->op), x->chunk);
      if (x->count > 1) fprintf(f, "+%d", x->count);
      if (x->weight != 1.0f) fprintf(f, " w%.3g", x->weight);
      fputc(i + 1 < hi ? ',' : '\n', f);
    }
    lo = hi;
  }
}

void sched_print_json(const struct ar_schedule *s, const struct sched_report *rep, FILE *f) {
  fprintf(f,
          "{\"algorithm\":\"%s\",\"ranks\":%d,\"chunks\":%d,\"ports\":%d,\"straggler\":%d,"
          "\"precondition_rounds\":%d,\"rounds\":%d,",
          s->algo, s->nranks, s->nchunks, s->ports, s->straggler, s->nprecond,
          s->nrounds - s->nprecond);
  if (rep) {
    fprintf(f, "\"verified\":%s,\"sent\":[", rep->error[0] ? "false" : "true");
    for (int r = 0; r < s->nranks; r++) fprintf(f, "%s%.6g", r ? "," : "", rep->sent[r]);
    fprintf(f, "],");
  }
  fprintf(f, "\"xfers\":[");
  for (size_t i = 0; i < s->nxfers; i++) {
    const struct ar_xfer *x = &s->xfers[i];
    fprintf(f, "%s{\"round\":%d,\"op\":\"%s\",\"src\":%d,\"dst\":%d,\"chunk\":%d,\"count\":%d,"
               "\"weight\":%.6g}",
            i ? "," : "", x->round, op_name(x->op), x->src, x->dst, x->chunk, x->count,
            x->weight);
  }
  fprintf(f, "]}\n");
}
