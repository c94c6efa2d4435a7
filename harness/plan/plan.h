/* The plan of one scenario as a value: every row it will write, decided from the options (and
 * the placement, where known) before any GPU is touched. `--dry-run`, `lower`, the progress
 * line's estimate and the bench all read it: the bench walks its rows, and several processes
 * agree on a row by its index, never by names. What only the GPUs can say stays with the bench:
 * a buffer too small (oom), a registration NCCL refused, a transport's setup refusing. */
#ifndef HX_PLAN_H
#define HX_PLAN_H

#include <stdio.h>

#include "plan/sweep.h"

/* One row: a size, an algorithm and the executor it runs on (a transport of the table, or
 * NCCL's own AllReduce for the native algorithm: transports.h's AR_EX_NCCL). */
struct plan_row {
  int size_idx, algo_idx;
  const struct ar_transport *ex;
  int side;         /* a critical-delay search's row: 1 the searched side, 0 a baseline */
  const char *na;   /* why it is n/a before any GPU work (the plan's words), or NULL */
  const char *ex_na; /* of which the executor's or the placement's reason (the schedule's is
                      * asked again per size: OPTCC's k, plan_schedule), or NULL */
  double seconds;   /* its estimated duration (a search's row: at delay 0) */
};

/* What the plan knows of where the ranks run; the dry run knows none of it (NULL). */
struct plan_where {
  int colocated;         /* some GPU hosts several ranks */
  int nhosts;            /* the hosts the ranks span */
  const char *placement; /* results.csv's placement column, for the reasons */
};

struct plan {
  const struct run_opts *o;
  int n;                   /* ranks */
  struct ar_schedule *sched; /* [o->nalgos]: each algorithm's schedule (OPTCC's k: per size,
                              * plan_schedule) */
  ar_status st[HX_MAX_ALGOS];
  int built_k[HX_MAX_ALGOS]; /* OPTCC: the k sched[a] was built with (0: never) */
  struct sweep_est *est;   /* the estimate of a row's seconds */
  int nrows;
  struct plan_row *rows;   /* size, algorithm, executor; a search: each size's candidates */
  int *size_row;           /* [nsizes + 1]: rows[size_row[s] .. size_row[s + 1]) are size s's */
  char (*why)[320];        /* [AR_NEXECUTORS]: each executor's n/a reason ("": none) */
  /* the summary */
  int write;               /* rows it writes (a search: at most) */
  int measure;             /* of which measured on the GPUs */
  int nna;                 /* of which n/a before any GPU work */
  double seconds;          /* estimated duration (a search: as the model predicts it) */
  double seconds_max;      /* every search at its longest, every row at its repeats' cap */
  double seconds_cap;      /* stats.ci_target: every row at its cap (a search as predicted) */
  char na_text[1024];      /* "algorithm: reason; ..." */
};

/* Builds the plan of o on n ranks (where: the placement, or NULL); 0, or -1 when out of
 * memory (nothing to free then). */
int plan_build(struct plan *p, const struct run_opts *o, int n, const struct plan_where *where);
void plan_free(struct plan *p);
/* Row i's schedule, rebuilt for its size where OPTCC's k differs (sweep_size_schedule);
 * NULL for the native algorithm. */
const struct ar_schedule *plan_schedule(struct plan *p, const struct plan_row *row);
/* The rows and seconds of size s's critical-delay search (struct sweep_crit). */
void plan_crit_size(const struct plan *p, int s, struct sweep_crit *out);
/* Prints the plan (a few lines) to f: --dry-run. */
void plan_print(FILE *f, const struct plan *p);

#endif
