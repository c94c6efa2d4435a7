/* nccl-tests' output as read by `arbench import nccl-tests` (nccl_tests.c: its text table and
 * its -J JSON file; cmd_import.c turns what is read into a run folder). */
#ifndef HX_NCCL_TESTS_H
#define HX_NCCL_TESTS_H

#include <stdint.h>
#include <stdio.h>

#define MAX_TESTS 64

struct nt_row {
  uint64_t bytes;
  char type[16], redop[16];
  int in_place;
  double time_us, algbw, busbw;
  long long wrong; /* -1: not checked (nccl-tests -c 0 prints N/A) */
};

struct nt_test { /* one all_reduce_perf invocation */
  const char *file;
  int line;          /* where it starts */
  char cmd[512];     /* its command line when the log says it (a comment, JSON args) */
  char coll[64];     /* the test binary: all_reduce_perf */
  char version[128]; /* "# nccl-tests version ..." */
  char header[512];  /* "# nThread ..." */
  char times[160];   /* JSON start and end time */
  char env[2048];    /* JSON: the NCCL_ and CUDA_ variables, one per line */
  int nccl_code;     /* nccl-library=22803 */
  int threads, gpus, iters, agg, graph; /* -1: unknown */
  int ranks;                            /* "#  Rank" lines (devices in JSON) */
  char host[128], gpu[128];
  int concluded;
  struct nt_row *rows;
  int nrows, cap;
  char scenario[256];
};

struct nt_set {
  struct nt_test t[MAX_TESTS];
  int n;
};

/* One line "arbench import: FILE:LINE: ..." on stderr; returns -1. */
int nt_bad_at(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Splits line in place at blanks into at most max words; returns their count. */
int nt_split_words(char *line, char **w, int max);
/* The tests of one file into s: all_reduce_perf's text output (f), or its JSON document (text,
 * the whole file); 0, or -1 with FILE:LINE said. */
int nt_read_text(struct nt_set *s, const char *file, FILE *f);
int nt_read_json(struct nt_set *s, const char *file, char *text);

#endif
