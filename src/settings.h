/* The declared settings: every tuning choice of the lowering and the transports, with its
 * name, type, default, unit and a line of doc. Set with `--set name=value` (run, lower, a
 * config file); `arbench settings` lists them; the values in effect go to meta.txt and to
 * results.csv's `settings` column, so every row knows what produced it. Nothing else tunes:
 * the environment variables these replaced are no longer read (ar_settings_retired warns). */
#ifndef AR_SETTINGS_H
#define AR_SETTINGS_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ar_setting_id {
  AR_SET_CE_PROGRAM,      /* auto, round, flow */
  AR_SET_CE_RING_BATCH,   /* bytes */
  AR_SET_CE_RING_STREAMS, /* count */
  AR_SET_CE_DIRECT_BATCH, /* bytes */
  AR_SET_CE_FLOW_BATCH,   /* bytes */
  AR_SET_CE_FLOW_SUM_BLOCKS,
  AR_SET_CE_SUM_BLOCKS,
  AR_SET_CE_SUM_WAIT,
  AR_SET_FLAGS,           /* auto, memop, kernel */
  AR_SET_SM_ONESHOT_MAX_BYTES, /* bytes; 0: 1 MiB / (n - 1) */
  AR_SET_MODEL_THREADS,   /* count; 0: by the schedule's size and the CPUs */
  AR_SET_MODEL_JOBS,      /* count; 0: the CPUs */
  AR_SET_TIMING_START_SKEW, /* off, on */
  AR_SET_NCCL_REGISTRATION, /* none, registered, symmetric */
  AR_SET_NCCL_ROTATE,       /* off, on */
  AR_SET_TIMING_MODE,       /* events, host, graph */
  AR_SET_TIMING_HOST_BATCHES, /* count */
  AR_SET_TIMING_GRAPH_UPLOAD, /* on, off */
  AR_SET_LL_PROTOCOL,       /* auto, lines, signals */
  AR_SET_LL_LINES_MAX,      /* bytes */
  AR_SET_LL_BLOCKS,         /* count; 0: by size */
  AR_SET_LL_SLICE,          /* bytes */
  AR_SET_LL_FORWARD,        /* off, on */
  AR_SET_PROCS_HOSTS,       /* count; 0: the hosts the processes run on */
  AR_SET_DEGRADE_NETWORK_BW, /* bytes/s; 0: --degrade slows a GPU's every link */
  AR_SET_STATS_CI_TARGET,   /* fraction of the median; 0: exactly -n samples */
  AR_SET_STATS_MAX_ITERS,   /* count: the most samples a row takes with a target */
  AR_SET_COUNT
};

/* One setting's declaration. */
struct ar_setting {
  const char *name, *type, *def, *unit, *doc;
  const char *retired_env; /* the environment variable it replaced, no longer read */
  double lo, hi;           /* numbers: the range accepted */
  const char *choices;     /* choice: the words accepted, comma-separated (index = value) */
  const char *old_name;    /* the name it had before it was named after what it tunes: still
                            * accepted, and said to be renamed */
  /* type: "choice", "int" and "bytes" (whole numbers, bytes with K, M, G or T), "real" (a
   * plain decimal that may have a fraction) */
};

/* The declarations, AR_SET_COUNT of them, in enum order. */
const struct ar_setting *ar_settings_table(void);

/* A set of values (one scenario's). Zeroed = every default. */
struct ar_settings {
  unsigned char given[AR_SET_COUNT];
  double value[AR_SET_COUNT]; /* numbers, or a choice's index */
};

/* Parses "name=value" into s; returns 0, or -1 with one line naming --set (or `where`, a
 * config's FILE:LINE, when not NULL) and the user's own words. */
int ar_settings_parse(struct ar_settings *s, const char *assign, const char *where);

/* The value in effect: the given one, else the default (s NULL: every default). */
double ar_setting_value(const struct ar_settings *s, int id);

/* The text of setting id's value in s (a choice's word, else the number; sizes in bytes) into
 * buf; returns buf. */
char *ar_setting_text(const struct ar_settings *s, int id, char *buf, size_t len);
/* Makes s the process's settings (what the lowering and the transports read); NULL: defaults. */
void ar_settings_apply(const struct ar_settings *s);
/* The value in effect for the process (ar_settings_apply). */
double ar_setting(int id);

/* The settings given (not defaults) as "name=value;name=value" into buf ("" for none: every
 * default); returns buf. The text of results.csv's `settings` column. */
char *ar_settings_text(const struct ar_settings *s, char *buf, size_t len);

/* Every setting with its value in s (NULL: the defaults), one `name = value` line each, for
 * meta.txt; `arbench settings` prints the table with types, ranges and docs. */
void ar_settings_write(FILE *f, const struct ar_settings *s);
void ar_settings_list(FILE *f);

/* Warns (one line each, to stderr) about retired environment variables that are set: they
 * no longer change anything; returns how many. */
int ar_settings_retired(void);

#ifdef __cplusplus
}
#endif
#endif
