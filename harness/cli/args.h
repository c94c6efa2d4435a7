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

/* A message size, resolved once when the options are read and carried as it is to where it is
 * used: the bytes the rows and the plan say, the elements the kernels reduce, and the element
 * size; always bytes == nelem * esize. */
struct msg_size {
  uint64_t bytes, nelem;
  int esize; /* the dtype's bytes; 1 where sizes are plain bytes (model, schedule, history) */
};
/* The one size-list parser of every subcommand: a comma-separated list of sizes (1K,1000000,1M;
 * each as args_parse_size) into out[0..cap), resolved as plain bytes (esize 1). `flag` is the
 * flag as the user typed it (for messages). An empty item, a size named twice (1K,1024: two
 * rows of one size) and more than cap sizes are refused; returns the count, or -1 after one
 * line naming the flag and the value. */
int args_parse_sizes(const char *flag, const char *text, struct msg_size *out, int cap);
/* Resolves v[0..n) against elements of esize bytes (elem: their type's name, e.g. float32).
 * A size that is not a whole number of elements is refused (it would be measured rounded down:
 * another size than the plan and the user's words say), naming `flag` and the item of `text`
 * that gave it (v[i] is text's i-th item, as args_parse_sizes read it; text NULL: sizes the
 * harness derived, named in bytes); 0 or -1 after one line. */
int args_resolve_sizes(const char *flag, const char *text, struct msg_size *v, int n, int esize,
                       const char *elem);
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

/* --segments K builds OPTCC's forms (the degrade-aware algorithms) at any size: about 2 K n^2
 * transfers, which past ARGS_MAX_SEGMENT_XFERS (OPTCC's own choice of K stays under it; some
 * 10 s to price flow by flow) take minutes and gigabytes. Refuses such a K for a at n ranks
 * with one line; 0 or -1. */
#define ARGS_MAX_SEGMENT_XFERS 33554432.0
int args_check_segments(const struct ar_algo *a, int n, int segments);

/* Looks up an algorithm; for an unknown name prints one line listing the known ones. */
const struct ar_algo *args_find_algo(const char *flag, const char *name);

#endif
