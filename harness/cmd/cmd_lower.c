/* `arbench lower`: the program each rank runs, as `arbench run` would lower it: the schedule
 * built as the harness builds it (OPTCC's k per size included), then the transports' choice
 * of program (lower_job, src/lower/choose.c). Text or JSON; no GPU is touched. The golden programs
 * of tests/golden/ are its output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "lower/lower.h"
#include "model.h"
#include "plan/plan.h"

/* The healthy bandwidth a degraded job's paces divide when none is measured: the copy-engine
 * push measured on 4 x H200 (runs/reference/h200x4-issue4-all, meta.txt). */
#define LOWER_DEFAULT_BW 394e9

static const char *const op_names[] = {"write", "wait",  "copy", "sum",    "record",
                                       "waitev", "sync", "stamp", "pace", "reserve",
                                       "put",    "take"};

static void json_ref(FILE *f, const char *key, const struct tp_ref *x) {
  fprintf(f, "\"%s\": {\"buf\": \"%s\", \"rank\": %d, \"off\": %zu}", key,
          x->buf == TP_BUF_DATA ? "data" : "scratch", x->rank, x->off);
}

/* One op as a JSON object: every field, so that two dumps differ exactly when the ops do. */
static void json_op(FILE *f, const struct tp_op *o, int forwards) {
  fprintf(f, "{\"op\": \"%s\", \"stream\": %d, \"round\": %d, \"peer\": %d, \"slot\": %d, "
          "\"val\": %u, \"event\": %d, \"bytes\": %zu, \"blocks\": %d, \"kflag\": %d, "
          "\"tslot\": [%d, %d], \"ns\": [%llu, %llu], \"tout\": %d, ", op_names[o->kind], o->stream,
          o->round, o->peer, o->slot, o->val, o->event, o->bytes, o->blocks, o->kflag, o->tslot[0],
          o->tslot[1], (unsigned long long)o->ns[0], (unsigned long long)o->ns[1], o->tout);
  json_ref(f, "dst", &o->dst);
  fprintf(f, ", \"src\": [");
  for (int q = 0; q < o->nsrc; q++) {
    fprintf(f, "%s{", q ? ", " : "");
    json_ref(f, "ref", &o->src[q]);
    fputc('}', f);
  }
  fputc(']', f);
  if (o->kind == TP_OP_PUT || o->kind == TP_OP_TAKE) { /* each slot's first flag word, beside
                                                        * its source (our data: null) */
    int nw = o->kind == TP_OP_PUT ? 1 : o->nsrc;
    fprintf(f, ", \"ll_flag\": [");
    for (int q = 0; q < nw; q++) {
      int data = o->kind == TP_OP_TAKE && o->src[q].buf == TP_BUF_DATA;
      if (data) fprintf(f, "%snull", q ? ", " : "");
      else fprintf(f, "%s%zu", q ? ", " : "", o->ll_flag[q]);
    }
    fputc(']', f);
  }
  if (o->kind == TP_OP_TAKE) fprintf(f, ", \"forwards\": %d", forwards);
  fputc('}', f);
}

static void json_prog(FILE *f, const struct tp_prog *p) {
  fprintf(f, "{\"n\": %d, \"mode\": %d, \"esize\": %d, \"nelem\": %zu, \"rounds\": %d, "
          "\"stride\": %u, \"span\": %u, \"slots\": %d, \"batches\": %d, \"dataflow\": %d, "
          "\"reserves\": %d", p->n, p->mode, p->esize, p->nelem, p->nrounds,
          p->stride, p->span, p->nslots, p->batches_max, p->dataflow, p->reserves);
  int ll = p->mode == TP_MODE_LL;
  if (ll) /* the ll program fixes the kernel's protocol and slices (lower.h) */
    fprintf(f, ", \"ll_protocol\": %d, \"ll_slice\": %zu, \"ll_slot\": %zu, \"ll_forward\": %d",
            p->ll_protocol, p->ll_slice, p->ll_slot, p->ll_forward);
  fprintf(f, ", \"ranks\": [");
  for (int r = 0; r < p->n; r++) {
    const struct tp_rank_prog *rp = &p->rank[r];
    fprintf(f, "%s\n  {\"rank\": %d, \"streams\": %d, \"events\": %d, \"stamps\": %d, "
            "\"scratch\": %zu, ", r ? "," : "", r, rp->nstreams, rp->nevents, rp->nstamps,
            rp->scratch_bytes);
    if (ll) fprintf(f, "\"ll_flags\": %zu, ", rp->ll_flags);
    fprintf(f, "\"ops\": [");
    for (size_t i = 0; i < rp->nops; i++) {
      fputs(i ? ",\n    " : "\n    ", f);
      json_op(f, &rp->ops[i], lower_ll_forwards(p, r, i));
    }
    fprintf(f, "]}");
  }
  fprintf(f, "]}");
}

/* Lowers one row of the plan and prints it; returns 0, or 1 when it failed. */
static int lower_one(struct plan *p, const struct plan_row *row, int json, int *first) {
  const struct run_opts *o = p->o;
  int n = p->n, a = row->algo_idx;
  const struct ar_algo *algo = o->algos[a];
  const struct msg_size *size = &o->sizes[row->size_idx];
  const char *tname = row->ex->name;
  const struct ar_schedule *sched = plan_schedule(p, row); /* OPTCC's k at this size */
  const char *na = sweep_row_na(o, a, p->sched, p->st);
  struct tp_prog *prog = NULL;
  const char *kind = NULL;
  char reason[512] = "";
  ar_status ls = AR_OK;
  if (na) {
    kind = "n/a";
    snprintf(reason, sizeof(reason), "%s", na);
  } else {
    struct tp_degrade dg;
    memset(&dg, 0, sizeof(dg));
    dg.n = o->dg.n;
    dg.bw = o->degrade_bw;
    for (int g = 0; g < o->dg.n; g++) {
      dg.rank[g] = o->dg.rank[g];
      dg.factor[g] = o->dg.factor[g];
    }
    /* the very call the transport's setup makes (lower_job), with the same settings */
    struct lower_settings set;
    lower_settings_of(&set, &o->settings);
    struct lower_job job = {row->ex->id, sched, size->nelem, size->esize,
                            o->pipeline, &dg};
    ls = lower_job(&job, &set, &prog, &kind, reason, sizeof(reason));
    if (ls != AR_OK) kind = ar_status_str(ls);
  }
  if (json) {
    printf("%s{\"algorithm\": \"%s\", \"transport\": \"%s\", \"ranks\": %d, \"bytes\": %llu, "
           "\"dtype\": \"%s\", \"pipeline\": %d, \"segments\": %d, \"lowering\": \"%s\", "
           "\"reason\": \"%s\", \"program\": ", *first ? "" : ",\n", algo->name, tname, n,
           (unsigned long long)size->bytes, ar_dtype_name(o->dtype), o->pipeline,
           na ? 0 : sched->segments, kind, reason);
    if (prog) json_prog(stdout, prog);
    else fputs("null", stdout);
    fputc('}', stdout);
  } else {
    printf("== %s on %s, %d ranks, %llu bytes (%zu %s), pipeline %d, segments %d: %s%s%s\n",
           algo->name, tname, n, (unsigned long long)size->bytes, (size_t)size->nelem,
           ar_dtype_name(o->dtype), o->pipeline, na ? 0 : sched->segments, kind,
           reason[0] ? ": " : "", reason);
    if (prog) {
      lower_prog_print_header(prog, stdout);
      for (int r = 0; r < n; r++) lower_prog_print(prog, r, stdout);
    }
  }
  *first = 0;
  lower_prog_free(prog);
  return ls != AR_OK;
}

/* Takes `--format F` and `--degrade-bw RATE` out of argv (the rest are run's options);
 * returns 0 or -1 after one line naming the bad value. */
static int own_flags(int *argc, char **argv, int *json, double *bw) {
  int k = 1;
  const char *given[2] = {NULL, NULL}; /* each once, as every flag that takes one value */
  for (int i = 1; i < *argc; i++) {
    int fmt = !strcmp(argv[i], "--format"), rate = !strcmp(argv[i], "--degrade-bw");
    if ((fmt || rate) && i + 1 >= *argc) {
      fprintf(stderr, "arbench: %s: needs a value\n", argv[i]);
      return -1;
    }
    if ((fmt || rate) && given[rate]) {
      char why[512];
      snprintf(why, sizeof(why), "given twice (first '%s'): a flag that takes one value is "
               "given once", given[rate]);
      return args_bad(argv[i], argv[i + 1], why);
    }
    if (fmt || rate) given[rate] = argv[i + 1];
    if (fmt) {
      const char *v = argv[++i];
      if (strcmp(v, "text") && strcmp(v, "json")) return args_bad("--format", v, "text or json");
      *json = !strcmp(v, "json");
    } else if (rate) {
      const char *v = argv[++i], *why = NULL;
      if (model_parse_bw(v, bw, &why)) return args_bad("--degrade-bw", v, why);
    } else {
      argv[k++] = argv[i];
    }
  }
  *argc = k;
  return 0;
}

int cmd_lower(int argc, char **argv) {
  static struct run_opts o;
  int json = 0, rc = EXIT_OK;
  double bw = LOWER_DEFAULT_BW;
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf("usage: arbench lower --algo LIST --ranks N --sizes LIST [--transport ce,sm,ll]\n"
             "         [--straggler R:D] [--degrade R:F] [--degrade-bw 394GB/s] [--pipeline K]\n"
             "         [--segments K] [--torus AxB] [--dtype T] [--set NAME=VALUE]\n"
             "         [--format text|json]\n"
             "  prints the program each rank runs, as `arbench run` lowers it (the same schedule,\n"
             "  OPTCC's k per size, the transport's choice of program); no GPU is touched.\n"
             "  --degrade-bw: the healthy bandwidth the emulation's paces divide (run measures\n"
             "  it; default 394 GB/s, measured on 4 x H200).\n");
      return EXIT_OK;
    }
  if (own_flags(&argc, argv, &json, &bw)) return EXIT_BAD_INPUT;
  /* ce, sm and ll unless --transport says otherwise (later words win) */
  char **args = calloc((size_t)argc + 3, sizeof(*args));
  if (!args) return EXIT_FAIL;
  args[0] = argv[0];
  args[1] = "--transport";
  args[2] = "ce,sm,ll";
  for (int i = 1; i < argc; i++) args[i + 2] = argv[i];
  /* the defaults are a place of their own: the user's --transport replaces them, and run's
   * options that lower does nothing with are refused */
  const char *const defaults[2] = {args[1], args[2]};
  static const int lines[2] = {0, 0};
  struct run_words src = {.where = "", .words = defaults, .lines = lines, .n = 2, .ncommon = 2,
                          .cmd = "lower",
                          .not_here = " out force baseline dry-run self-test find-critical "
                                      "critical-max critical-algo phases profile iters warmup "
                                      "timeout row-budget check gpus ranks-per-process config "
                                      "scenario compute "};
  int bad = run_opts_parse_words(argc + 2, args, &o, &src);
  free(args);
  if (bad) return EXIT_BAD_INPUT;
  int n = o.nranks;
  if (n < 2) {
    args_bad("--ranks", "", "required (2..16)");
    rc = EXIT_BAD_INPUT;
    goto out;
  }
  if (run_opts_check_ranks(&o, n)) {
    rc = EXIT_BAD_INPUT;
    goto out;
  }
  run_opts_settle(&o, n);
  o.degrade_bw = o.dg.n ? bw : 0;
  ar_settings_retired();
  ar_settings_apply(&o.settings);
  struct plan p; /* the run's plan; its rows on a transport (nccl lowers itself) */
  int first = 1;
  if (plan_build(&p, &o, n, NULL)) {
    fprintf(stderr, "arbench: out of host memory\n");
    rc = EXIT_FAIL;
    goto out;
  }
  if (json) printf("[");
  for (int i = 0; i < p.nrows; i++)
    if (p.rows[i].ex->id != AR_EX_NCCL && lower_one(&p, &p.rows[i], json, &first)) rc = EXIT_FAIL;
  if (json) printf("]\n");
  plan_free(&p);
out:
  run_opts_free(&o);
  return rc;
}
