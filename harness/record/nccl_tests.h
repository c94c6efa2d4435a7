/* nccl-tests' output as read by `arbench import nccl-tests`: nccl_tests.c reads its text log
 * (every table format from nccl-tests 2.0 on), nt_noise.c tells the other programs' lines in
 * such a log apart, nt_json.c reads its -J JSON file, nt_check.c checks every number of an
 * all_reduce_perf test against the others, and cmd_import.c with import_write.c turns the
 * tests into a run folder. */
#ifndef HX_NCCL_TESTS_H
#define HX_NCCL_TESTS_H

#include <stddef.h>
#include <stdint.h>

#define MAX_TESTS 64

/* One result line's side (out of place or in place): a row, or one sample of it when the log
 * lists its size again (nccl-tests -N cycles). */
struct nt_row {
  uint64_t bytes, count;
  char type[16], redop[16];
  int root, in_place, line; /* line: where the file has it */
  int result;               /* the result's place in its test (0, 1, ...): both sides share it */
  int failed;               /* wrong elements, or an error beyond nccl-tests' tolerance */
  double time_us, algbw, busbw;
  double half_t, half_a, half_b; /* half a unit of the last digit printed of each */
  long long wrong;               /* -1: not checked (N/A) or a table before 2.13 (see delta) */
  double delta;                  /* tables before 2.13: the largest error printed; NaN else */
};

/* The words a noisy log's lines are sorted into, counted per file (nt_noise.c). */
enum {
  NT_NCCL_INFO, NT_NCCL_WARN, NT_SSH, NT_UCX, NT_MPIRUN, NT_LIBFABRIC, NT_X11, NT_SHELL,
  NT_FAILURE, NT_COMMENT, NT_OTHER, NT_NOISE_KINDS
};
struct nt_noise {
  int n[NT_NOISE_KINDS];
  int total;
};

struct nt_test { /* one run of a nccl-tests binary */
  const char *file;
  int line;            /* where it starts */
  char *cmd;           /* its command line when the log says it (a comment, JSON args) */
  char coll[64];       /* the binary: all_reduce_perf, all_reduce_perf_mpi, ... */
  char version[128];   /* "nccl-tests version ..." */
  char header[512];    /* "nThread ..." */
  char times[160];     /* JSON start and end time */
  char env[2048];      /* JSON: the NCCL_ and CUDA_ variables, one per line */
  char nccl[32];       /* NCCL's version, 2.28.3 */
  int threads, gpus, iters, agg, graph, check; /* -1: unknown */
  uint64_t min_bytes, max_bytes, step_factor, step_bytes; /* the header's sizes; 0: unknown */
  int rank_lines, rank_max, rank_cut; /* "# Rank N" lines: count, largest N + 1, "..." seen */
  int json_devices;
  char host[128], gpu[128], hosts[512];
  int table_line;      /* the column names' line; 0 before it */
  int lead;            /* fields before a line's out-of-place side: size count type [redop] [root];
                        * 0 before the column names' line or the first result line */
  int has_redop;
  int error_col;       /* a side's last field is the largest error (before 2.13), not #wrong */
  int extra;           /* per-iteration columns per side (-I), 0 or 4 */
  int stamp;           /* a timestamp after the in-place side (-T) */
  int footer;          /* "# Avg bus bandwidth" read: the test ran to its end */
  int concluded;       /* "# Collective test concluded" read */
  long long oob;       /* "# Out of bounds values : N": nccl-tests' own count; -1 unknown */
  int ranks;           /* settled by nt_check */
  int zero_rows;       /* results of 0 bytes left out (nothing was reduced) */
  int results;         /* result lines read */
  struct nt_row *rows;
  int nrows, cap;
  char *scenario;
};

struct nt_set {
  struct nt_test t[MAX_TESTS];
  int n;
  struct nt_noise noise; /* of the file read last */
  char failure[200];     /* a nccl-tests failure line of the file read last, with its line */
  char nccl[32];         /* "NCCL version 2.x.y" said by NCCL in the file read last */
  char hosts[2048];      /* host names NCCL's lines and the rank lines gave, space-separated */
};

/* One line "arbench import: FILE:LINE: ..." on stderr; returns -1. */
int nt_bad_at(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Splits line in place at blanks into at most max words; returns their count. */
int nt_split_words(char *line, char **w, int max);
/* A row added to t (zeroed but for line and delta NaN); NULL when out of memory. */
struct nt_row *nt_add_row(struct nt_test *t, int line);
/* A new test of s starting at file:line (every count unknown); NULL after one line when s is
 * full. */
struct nt_test *nt_new_test(struct nt_set *s, const char *file, int line);
void nt_free_test(struct nt_test *t);
/* The bytes of one element of nccl-tests' type name, or 0 for a name it does not print. */
int nt_type_size(const char *type);
/* 1 when name is a binary of nccl-tests' AllReduce test (all_reduce_perf, all_reduce_perf_mpi,
 * /path/all_reduce_perf...). */
int nt_is_all_reduce(const char *name);

/* The tests of one file into s: its text, line by line (text: the whole file, len bytes), or
 * its JSON document; 0, or -1 with FILE:LINE said. */
int nt_read_text(struct nt_set *s, const char *file, char *text, size_t len);
int nt_read_json(struct nt_set *s, const char *file, char *text);

/* Noise (nt_noise.c): removes mpirun's --tag-output tags ("[1,0]<stdout>:") wherever they are
 * in line and srun's --label prefix ("0: "); returns how many. */
int nt_untag(char *line);
/* The kind of a line that is another program's (NCCL's own log, ssh, UCX, mpirun...), counted
 * in s->noise and NCCL's version and host kept (a nccl-tests failure line is kept in
 * s->failure); 1 when it is one, 0 when not. */
int nt_noise_line(struct nt_set *s, const char *line, int ln);
/* The kind nt_noise_line would count line as (NT_NCCL_INFO...), or -1; counts nothing. */
int nt_noise_kind(const char *line);
/* Adds host to s->hosts (once). */
void nt_add_host(struct nt_set *s, const char *host);
/* Where in line an NCCL log message starts that was written into the middle of a result line
 * (host:pid:tid [dev] NCCL INFO ...), or NULL. hosts: the host names seen (space-separated),
 * to cut a host whose name starts with a digit off the field written before it. */
char *nt_glued_noise(char *line, const char *hosts);
/* "skipped 37 lines that are not nccl-tests output: NCCL INFO 31, ssh 1, ..." into buf; empty
 * when nothing was skipped. */
void nt_noise_said(const struct nt_noise *n, char *buf, size_t len);

/* Checks (nt_check.c) of one all_reduce_perf test read whole: every size against its count and
 * type, the sizes against the header's range (-N cycles and sizes rounded to whole elements
 * are repeats; nothing else is), the ranks, algbw against size / time, busbw against algbw x
 * 2(n-1)/n, #wrong within the elements; 0, or -1 with FILE:LINE said. */
int nt_check_test(struct nt_test *t);

#endif
