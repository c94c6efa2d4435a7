/* Parsing of command-line values shared by every subcommand. Each parser returns 0 on success
 * and -1 on bad input after printing one line naming the flag and the value (exit status 2). */
#ifndef ARGS_H
#define ARGS_H

#include <stdint.h>

#include "ar.h"
#include "cli/bad_value.h"

#define AR_MAX_STRAGGLERS 8

/* One straggler: delay fixed (lo == hi), uniform in [lo, hi], or read per iteration from a file. */
struct straggler_spec {
  int rank;
  double delay_lo_us, delay_hi_us;
  char file[256]; /* non-empty: per-iteration delays (us, one per line) */
};

struct degrade_spec {
  int n;
  int rank[AR_MAX_DEGRADED];
  double factor[AR_MAX_DEGRADED];
};

/* Refuses a comma-separated list with an empty item ("a,,b", ",a", "a,"): a comma too many
 * would otherwise be read as fewer items than typed; 0 or -1 after one line. */
int args_check_list(const char *flag, const char *s);

/* Numbers are plain decimals (then a unit): leading blanks, hexadecimal, inf and nan are
 * refused by every parser below. */

int args_parse_int(const char *flag, const char *s, int lo, int hi, int *out);
/* Bytes with binary units: 1024, 1K, 8M, 8G, 1T (also KiB/KB/k); at least 1. */
int args_parse_size(const char *flag, const char *s, uint64_t *out);
/* The largest duration (a delay, a latency) and slowdown factor taken: beyond them every
 * figure the harness or the model derives would be meaningless or overflow. */
#define ARGS_MAX_TIME_US 3.6e9
#define ARGS_MAX_FACTOR 1000.0

/* A duration, default unit us: 100us, 8ms, 1.5s, 250ns; from 0 to 1 h. */
int args_parse_time_us(const char *flag, const char *s, double *out);
/* Reads a delay FILE (one duration per line and nothing else: "4ms garbage" is refused; blank
 * lines and # comments skipped; within input_open's bounds, config.h) into a new array; a bad
 * line is named "--straggler: FILE:LINE" with its text. Returns 0, or -1 after one line. */
int args_load_delays(const char *file, double **out, int *count);
/* RANK[:DELAY] | RANK:LO-HI | RANK:@FILE, comma-separated; delay_required for the harness. */
int args_parse_stragglers(const char *flag, const char *s, int delay_required,
                          struct straggler_spec *out, int *count);
/* The same, added to out[0..*count) (a repeated flag); a rank named twice is refused and the
 * first named stays the first (the straggler of stragglar and bcast). */
int args_add_stragglers(const char *flag, const char *s, int delay_required,
                        struct straggler_spec *out, int *count);
/* RANK:FACTOR[,RANK:FACTOR]; factors 1..1000; distinct ranks. */
int args_parse_degrade(const char *flag, const char *s, struct degrade_spec *out);
/* The same, added to what out already holds (a repeated flag); a rank named twice is refused. */
int args_add_degrade(const char *flag, const char *s, struct degrade_spec *out);
/* AxB[xC[xD]], each >= 2. */
int args_parse_torus(const char *flag, const char *s, int *ndims, int dims[AR_MAX_TORUS_DIMS]);

/* Checks ranks given in specs against n, and the torus product; prints and returns -1 if bad. */
int args_check_ranks(int n, const struct straggler_spec *st, int nst,
                     const struct degrade_spec *dg, int torus_ndims, const int *torus,
                     const char *torus_text);

/* Fills algorithm parameters from the parsed specs. */
void args_fill_params(struct ar_params *p, int n, const struct straggler_spec *st, int nst,
                      const struct degrade_spec *dg, int torus_ndims, const int *torus);

/* Looks up an algorithm; for an unknown name prints one line listing the known ones. */
const struct ar_algo *args_find_algo(const char *flag, const char *name);

#endif
