/* `arbench run` options: parsing and validation (no GPU), config scenarios, the list of sizes,
 * straggler delays, the plan of a run and its estimated duration (--dry-run), the progress
 * line. Pure C so the CPU tests can check every rule; run.c adds what needs the devices. */
#ifndef HX_SWEEP_H
#define HX_SWEEP_H

#include <stdint.h>
#include <stdio.h>

#include "cli/args.h"
#include "compute.h"
#include "model.h"
#include "settings.h"

#define HX_MAX_SIZES 1024
#define HX_MAX_ALGOS 64
#define HX_MAX_DEVS 16 /* AR_MAX_GPUS of transport.h */
enum { HX_TIMING_EVENTS, HX_TIMING_HOST, HX_TIMING_GRAPH }; /* timing.mode's values */
#define HX_BUDGET_MIN_ITERS 6 /* --row-budget keeps at least these timed iterations (or -n): the fewest whose
                               * [min, max] covers the median with 95% (docs/statistics.md) */


struct run_opts {
  uint64_t min_bytes, max_bytes, step_bytes; /* step 0: geometric by factor */
  int factor;
  int nsizes;
  struct msg_size sizes[HX_MAX_SIZES]; /* resolved against dtype (whole elements; others are
                                        * refused) when the options are read */
  int nalgos;
  const struct ar_algo *algos[HX_MAX_ALGOS];
  int ntransports;
  const struct ar_transport *transports[AR_NTRANSPORTS]; /* entries of the table */
  int ngpus;                                 /* 0: every visible GPU */
  int gpus[HX_MAX_DEVS];                     /* may repeat: ranks sharing a GPU */
  int nranks;                                /* --ranks (0: one per GPU of gpus, or visible) */
  int per_proc;                              /* --ranks-per-process (0: 1; MPI only) */
  int iters, warmup, timeout_s, dtype, pipeline, check;
  double row_budget_us; /* --row-budget: a row's timed iterations capped at what fits (0: off;
                         * hx_budget_iters) */
  char out[1024]; /* empty: runs/<UTC time>_<host> */
  int nst;
  struct straggler_spec st[AR_MAX_STRAGGLERS];
  double *delays[AR_MAX_STRAGGLERS]; /* per-iteration delays read from a @FILE, or NULL */
  int ndelays[AR_MAX_STRAGGLERS];
  int torus_ndims, torus[AR_MAX_TORUS_DIMS];
  char torus_text[64];
  struct degrade_spec dg; /* --degrade: dg.n == 0 when none */
  int find_critical;      /* --find-critical: sizes[] holds the sizes to search */
  double crit_max_us;     /* --critical-max */
  const struct ar_algo *crit_algo; /* --critical-algo: the searched side (default stragglar) */
  int dry_run;            /* --dry-run: validate and print the plan, no GPU */
  int force;              /* --force: write into an --out folder that is not empty */
  char baseline[1024];    /* --baseline RUN_DIR, or empty */
  char self_test[16];     /* --self-test NAME ("delay", "degrade"), or empty */
  char scenario[64];      /* the config scenario's name (empty: none) */
  int phases;             /* --phases: time each phase of one iteration per row (phases.csv) */
  int profile;            /* --profile: HX_PROFILE_* bits (profile.h): overlap (results.csv's
                           * overlap columns, overlap.csv), timeline (timeline.csv, and the
                           * overlap figures: the same CUPTI recording) */
  int segments;           /* --segments K: OPTCC's k (0: chosen per size, sweep_segments) */
  struct ar_settings settings; /* --set name=value (settings.h); zero: every default */
  struct ar_compute compute; /* --compute: the load beside each AllReduce (kind 0: none; its
                              * size chosen per row unless a GEMM's shape was given) */
  double degrade_bw;      /* the healthy bandwidth --degrade divides, bytes/s, measured once
                           * per run by run.c before the scenarios (0: not measured) */
  int gpus_per_node;      /* ranks spanning hosts in equal blocks of consecutive ranks: the
                           * ranks of each host (ring-rails' G, a degraded network's hosts),
                           * set by run.c from the placement; 0: one host, or uneven */
};

/* Parses argv (argv[0] is the subcommand or program name). Returns 0 when the options are
 * good, 1 when --help was printed, -1 after printing one line naming the bad flag and value. */
int run_opts_parse(int argc, char **argv, struct run_opts *o);
/* Where the words run_opts_parse_words reads come from when a config gave some: for messages,
 * and for the rule that a flag's value stands on the flag's line. */
struct run_words {
  const char *where;        /* " in scenario 'x' of FILE", or "" */
  const char *file;         /* the config */
  const char *const *words; /* its words in argv, by address (getopt permutes argv) */
  const int *lines;         /* each word's line in file */
  int n;
  int ncommon;              /* words[0..ncommon): the config's lines above its first scenario
                             * (or a subcommand's defaults); the rest: the scenario's */
  const char *not_here;     /* options of run this subcommand refuses: " out force " (long
                             * names between spaces); NULL: none */
  const char *cmd;          /* the subcommand, for that refusal ("lower") */
};
/* run_opts_parse for words partly read from a config (run_plan.c). */
int run_opts_parse_words(int argc, char **argv, struct run_opts *o, const struct run_words *src);
/* Frees what parsing allocated (delay lists). */
void run_opts_free(struct run_opts *o);
/* Checks the options that depend on the number of ranks n (stragglers, degraded GPUs, torus);
 * 0 or -1. */
int run_opts_check_ranks(const struct run_opts *o, int n);
/* Completes the options once n is known: a critical-delay search with no --straggler delays
 * rank n-1 (the papers' choice). */
void run_opts_settle(struct run_opts *o, int n);
void run_opts_usage(void);

/* A run: one run_opts per scenario of --config (one scenario without a config). Every
 * scenario is parsed from: the config's common words, the scenario's words, then the command
 * line's own words (they win). --scenario LIST keeps only the named scenarios. */
struct run_plan {
  char config[1024]; /* empty: no --config */
  char *config_text; /* its bytes as parsed (written as config.conf: never read twice) */
  size_t config_len;
  int nscen;
  struct run_opts *scen; /* heap, nscen of them */
};
/* Parses argv into a plan. Returns 0, 1 when --help was printed, or -1 after printing one
 * line naming the bad flag (or config) and value. The scenarios agree on --out, --baseline,
 * --dry-run and --self-test (else bad input). */
int run_plan_parse(int argc, char **argv, struct run_plan *plan);
void run_plan_free(struct run_plan *plan);

/* The sizes min, min*factor, ... (or min, min+step, ... when step > 0) up to and including
 * max where a step lands on it, as plain bytes (args_resolve_sizes resolves them). Returns the
 * count, or -1 when there would be more than cap. */
int sweep_sizes(uint64_t min, uint64_t max, int factor, uint64_t step, struct msg_size *out,
                int cap);

/* Straggler k's delay in us for iteration `it` of the job numbered `job` (a fixed value, a
 * uniform draw that depends only on (job, it, rank), or the file's it-th line, cycling). The
 * harness numbers jobs by size, so every algorithm of a size sees the same draws. */
double sweep_delay_us(const struct run_opts *o, int k, int job, int it);
/* The mean delay per iteration in us that the stragglers add (the largest of their means:
 * the last one to arrive sets the time); 0 without stragglers. */
double sweep_mean_delay_us(const struct run_opts *o);

/* Builds and verifies the schedule of every algorithm of o for n ranks (the straggler-aware
 * ones around the first --straggler rank, n-1 without one); st[a] is AR_OK or why not (the
 * reason in sched[a].reason); native algorithms get AR_ERR_UNSUPPORTED and no schedule. */
void sweep_build_schedules(const struct run_opts *o, int n, struct ar_schedule *sched,
                           ar_status *st);
/* Why algorithm a's schedule makes its rows n/a (it cannot be built for n), or NULL (the
 * native algorithm: it has none); the plan adds the executors' and placement's reasons. */
const char *sweep_row_na(const struct run_opts *o, int a, const struct ar_schedule *sched,
                         const ar_status *st);
/* Builds and verifies algorithm a's schedule for n ranks with `segments` (OPTCC's k; 0: the
 * generator's default) into *s (freed first when built before); returns AR_OK or why not. */
ar_status sweep_build_one(const struct run_opts *o, int n, int a, int segments,
                          struct ar_schedule *s);
/* OPTCC's k at a size: --segments when given, else the k that minimises the modelled time
 * T (k + 1.5) / k + rounds x round (T: optcc.txt's lower bound at the healthy bandwidth;
 * about k rounds when switch_form (ports > 1: optcc-switch, k + 2q - 3), else (k + 2) q for
 * the ring forms, q = n - degraded GPUs; `round` ~30 us of synchronisation), a multiple of 4
 * in 4..64. On 4 GPUs at x2: the switch form 8 at 256 MiB, 16 at 1 GiB, 48 at 8 GiB;
 * optcc-ring 8 at 1 GiB. */
int sweep_segments(const struct run_opts *o, int n, int switch_form, uint64_t bytes);
/* Before a size's rows: rebuilds algorithm a's schedule when it is OPTCC's and the size's k
 * (sweep_segments) differs from *built_k, the k it was built with (0: never); no-op for the
 * others. Updates sched, st and *built_k. */
void sweep_size_schedule(const struct run_opts *o, int n, int a, uint64_t bytes,
                         struct ar_schedule *sched, ar_status *st, int *built_k);
/* optcc.txt's lower bound (Theorems 1/6 and 2, bandwidth only) on an AllReduce of `bytes` on
 * n ranks with o's degraded GPUs at the measured healthy bandwidth, us; NAN without --degrade
 * or before the bandwidth is measured. */
double sweep_lower_bound_us(const struct run_opts *o, int n, uint64_t bytes);
/* Critical-delay search: is algorithm a on the target side (--critical-algo, stragglar) or a
 * baseline (not straggler-aware)? 1 target, 0 baseline, -1 neither (bcast). */
int sweep_crit_side(const struct run_opts *o, int a);

/* --row-budget: the timed iterations of a row whose AllReduce took warm_us (the last warm-up
 * iteration, on its slowest rank): as many as fit budget_us, floor(budget_us / warm_us), but
 * at least HX_BUDGET_MIN_ITERS and at most iters (-n; iters itself when it is smaller than
 * the minimum, when the budget is off (<= 0) or when warm_us is not > 0). bench_rank.c decides
 * each row with it; the plan estimates with it. */
int hx_budget_iters(int iters, double budget_us, double warm_us);
/* --row-budget with stats.ci_target: the most timed iterations a row may take,
 * floor(budget_us / warm_us) but at least HX_BUDGET_MIN_ITERS; INT_MAX when the budget is off
 * or warm_us is not > 0. */
int hx_budget_cap(double budget_us, double warm_us);

/* The duration estimate (--dry-run, the progress line). A row's AllReduce is priced by the
 * model (model.h) on the algorithm's schedule, on a switch, with the transport's per-round cost
 * and bandwidth fitted to measured 4 x H200 rows (sweep.c says which); to that the harness's
 * own work: per iteration the inputs' fill, the check and two barriers, per row the transport's
 * setup and the row's bookkeeping, per scenario the communicators and buffers. A guide, not a
 * model: within 10% of the measured 4 x H200 runs of runs/reference (docs/usage.md: the estimate). */
struct sweep_est {
  const struct run_opts *o;
  int n;
  unsigned char priced[HX_MAX_ALGOS];     /* price[a] holds algorithm a's schedule */
  struct model_price price[HX_MAX_ALGOS]; /* the native algorithm (nccl): ring's schedule */
  int at_cap; /* stats.ci_target: every row at its cap (sweep_repeat_cap), not its first */
};
/* stats.ci_target: the most samples a row whose AllReduce takes t_us may take (stats.max_iters,
 * or fewer where --row-budget fits fewer; never fewer than its first: -n, what the budget
 * allows, timing.host_batches); without a target, its first. */
int sweep_repeat_cap(const struct run_opts *o, double t_us);
/* Prices o's algorithms for n ranks from their schedules (sweep_build_schedules'); one that
 * could not be priced is estimated from its bytes alone. */
void sweep_est_init(struct sweep_est *e, const struct run_opts *o, int n,
                    const struct ar_schedule *sched, const ar_status *st);
/* Estimated time in us of one AllReduce of algorithm a on executor ex (NCCL's own for the
 * native algorithm) at `bytes`, the straggler delay_us late. */
double sweep_est_time_us(const struct sweep_est *e, int a, const struct ar_transport *ex,
                         uint64_t bytes, double delay_us);
/* Estimated seconds of one row: the bookkeeping and setup of a row, then (warm-up + timed
 * iterations) x (the AllReduce + the harness's work per iteration), the timed iterations as
 * --row-budget would cut them at the estimated time (timing.mode=host: warm-up + 1 such
 * iterations, and batches x -n bare AllReduces); with e->at_cap, as many timed iterations
 * (batches) as stats.ci_target may take. */
double sweep_row_seconds(const struct sweep_est *e, int a, const struct ar_transport *ex,
                         uint64_t bytes, double delay_us);
/* Estimated seconds of a scenario's own setup (communicators, buffers, the first launches). */
#define HX_EST_SCENARIO_S 2.0

/* One size of a critical-delay search: its rows and seconds as the search goes where the
 * model's times cross (the papers' alpha-beta, critical.csv's model_critical_delay_us: delay
 * 0, the coarse probes up to the first past it, the bisection to it; every coarse probe when
 * the model's target never wins), and at most (every coarse probe, then the widest bracket's
 * bisection at the largest delay); plan_crit_size (plan.h). A candidate row that is n/a is one
 * row at delay 0, then out of the search. */
struct sweep_crit {
  int rows, rows_max;
  double seconds, seconds_max;
};

/* Writes a duration as "45s", "12m30s" or "3h05m" into buf; returns buf. */
char *sweep_duration(char *buf, size_t len, double seconds);

/* The progress line of a long run: rows done of all rows, time elapsed, time left (from the
 * estimated durations of the rows done and to do). */
struct hx_progress {
  int on;            /* print it (stderr is a terminal, or AR_PROGRESS=1) */
  int tty;           /* overwrite one line with \r; else whole lines, at most every 10 s */
  double t0, last;   /* monotonic seconds at the start and at the last line printed */
  int done, total;   /* rows */
  double done_s, total_s; /* estimated seconds of the rows done, of all rows */
};
/* Formats the line (no \r or newline) for `now` (monotonic seconds) and the row about to
 * start; returns buf. */
char *hx_progress_format(char *buf, size_t len, const struct hx_progress *p, double now,
                         const char *label);

/* Prints the regression lines of RUN_DIR/summary.md's "## Regressions" section (the count
 * line and the table), each prefixed with "# ". Returns the lines printed, -1 when the file
 * cannot be read or has no such section. */
int sweep_print_regressions(const char *summary_md, FILE *out);

#endif
