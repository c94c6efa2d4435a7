/* `arbench model`'s parts (cmd_model.c: the options and the command; model_out.c: pricing
 * scenarios, the cache, the table and CSV rows; model_calib.c: --calibrate). */
#ifndef MODEL_CMD_H
#define MODEL_CMD_H

#include <stdint.h>
#include <stdio.h>

#include "cli/args.h"
#include "compute.h"
#include "record/csv.h"
#include "model.h"
#include "settings.h"

/* two parameters: fewer rows than this fit exactly (rel_rms 0) and say nothing */
#define CALIBRATE_MIN_ROWS 3
#define MAX_LIST 64
#define PROGRESS_AFTER_S 2.0 /* pricing this long prints a progress line per schedule */
#define MAX_FITS 64 /* a pooled fit per transport, and one per (transport, algorithm) */
#define DEFAULT_ALPHA_US 3.0 /* stragglar.txt s4.2: NVLink latency studies */
#define DEFAULT_BW 450e9     /* stragglar.txt s4.2: H100 SXM NVLink, one direction */

/* How a schedule is priced (--pricing; model.h): rounds, each its busiest link, summed (the
 * fast estimate), or flows, every transfer a flow that starts when what it waits for ends, the
 * links shared max-min fairly, priced by events. */
enum pricing { PRICING_ROUNDS = 0, PRICING_FLOWS = 1 };

/* One scenario to price: everything but the size. */
struct scenario {
  const struct ar_algo *algo;
  int n;
  int straggler; /* -1: none */
  double delay_us;
  struct degrade_spec dg;
};

/* One fitted (or given) hardware setting, the transport it stands for, and the algorithm it
 * was fitted on (NULL: pooled over every algorithm measured on that transport). */
struct fit {
  char transport[32];
  const struct ar_algo *algo;
  struct model_hw hw;
  double msg_us; /* per message (pooled fits; 0 for one algorithm's: alpha takes it) */
  int rows;
  double rel_rms;
  int ok;
};

struct options {
  const struct ar_algo *algos[MAX_LIST];
  int nalgos;
  int ranks[MAX_LIST], nranks;
  struct msg_size sizes[MAX_LIST * 2]; /* plain bytes (esize 1): the model has no dtype */
  int nsizes;
  uint64_t bmin, bmax;
  int bfactor;
  const char *bmin_text, *bmax_text, *bfactor_text; /* the user's words, for messages */
  const char *sizes_flag; /* --sizes or its alias --bytes, as typed (for messages) */
  struct ar_settings settings; /* --set (model.threads, model.jobs; settings.h) */
  struct ar_compute compute;   /* --compute: named only to be told it is not priced */
  struct model_hw hw;
  double msg_us;  /* --msg-cost: per message, its sender's (model.h) */
  int pricing;    /* enum pricing */
  int topology;
  struct straggler_spec st[AR_MAX_STRAGGLERS];
  int nst;
  struct degrade_spec dg;
  int tdims, torus[AR_MAX_TORUS_DIMS];
  const char *torus_text, *ranks_text, *topology_text; /* as given, for messages */
  int segments;
  int gpus_per_node;     /* two tiers: G (0: not two tiers) */
  double beta_local;     /* two tiers: us per byte inside a node */
  double alpha_local_us; /* two tiers: alpha of a round inside the nodes (-1: --alpha) */
  const char *csv, *calibrate;
  /* --transport: price on each of these transports' figures; --alpha or --bw given override */
  const struct ar_transport *transports[AR_NTRANSPORTS];
  int ntransports, alpha_given, bw_given, msg_given;
  int all_algos; /* --algo all: every schedule, nccl (which has none) left out */
};

struct out {
  struct hx_csv csv;
  char run_id[64], stamp[32], host[64];
  char gpu[32];        /* the CSV's gpu column: what priced the rows ("model (flows)") */
  const char *pricing; /* pricing_name, for the table */
  int table_header, write_failed;
  int all_algos;   /* --algo all: the table says why nccl has no row */
  int bytes_width; /* the bytes column: the largest size's digits */
};

/* A measured row of results.csv that the model can price. */
struct mrow {
  struct scenario sc;
  char transport[32];
  double bytes, time_us;
};

/* Schedules priced so far, so a sweep or a run folder builds each scenario once. */
struct price_cache_entry {
  struct scenario sc;
  struct model_price pr;
  ar_status st;
  char reason[192];
  double congestion;
  struct model_flow_graph *flow; /* --pricing flows: the schedule's flows */
  int priced;
};
struct price_cache {
  struct price_cache_entry *e;
  int n, cap;
};

/* model_out.c */
/* Prices sc (once: the cache) and returns its index in c, or -1 on no memory. */
int cache_get(struct price_cache *c, const struct scenario *sc, const struct options *o);
/* Prices every scenario of sc[0..n) into the cache, several at a time (the setting model.jobs, default
 * the CPUs), with a progress line on stderr once it has taken PROGRESS_AFTER_S; returns 0, or
 * -1 on no memory. */
int cache_fill(struct price_cache *c, const struct scenario *sc, int n, const struct options *o);
/* Releases the cache's entries and what they hold. */
void cache_free(struct price_cache *c);
/* Times of cache entry k's scenario (priced, AR_OK) at `bytes` with hw and msg_us per
 * message, in the options' pricing; returns AR_OK, or the flow mode's failure. */
ar_status entry_times(const struct price_cache *c, int k, const struct options *o,
                      const struct model_hw *hw, double msg_us, double bytes,
                      struct model_times *t);
/* The pricing's name as --pricing takes it. */
const char *pricing_name(int pricing);
/* Writes the degraded GPUs as RANK:FACTOR,... (the flag's syntax) into buf; "" when none. */
void degraded_text(const struct degrade_spec *dg, char *buf, size_t len);
/* Fills generator parameters for a scenario. */
void scenario_params(const struct scenario *sc, const struct options *o, struct ar_params *p);
/* One CSV row for the scenario (t NULL: n/a) and one table line (with the measurement when
 * measured_us >= 0). */
void csv_row(struct out *out, const struct scenario *sc, const char *transport, double bytes,
             const struct model_times *t);
void print_row(struct out *out, const struct scenario *sc, const char *transport, double bytes,
               const struct model_times *t, const char *reason, double measured_us);
/* The first line of the output: the link figures used and where they come from. */
void print_links(const struct options *o);

/* model_usage.c: the options, grouped (--help) */
void model_usage(FILE *f);

/* model_calib.c */
/* Reads the usable gpu rows of RUN_DIR/results.csv (or the CSV file itself); returns the row
 * count, or -1 after a one-line message (bad input). */
int read_run(const char *dir, struct mrow **rows_out);
/* Fits alpha and beta per transport (pooled) and per (transport, algorithm); returns the
 * number of fits in fits[0..MAX_FITS). */
int calibrate(const struct mrow *rows, int nrows, const struct options *o,
              struct price_cache *cache, struct fit *fits);
/* Prices every measured row beside its measurement with its best fit. */
void mirror(const struct mrow *rows, int nrows, const struct options *o, const struct fit *fits,
            int nfits, struct price_cache *cache, struct out *out);

#endif
