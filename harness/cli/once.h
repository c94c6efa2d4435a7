/* Repeated flags (docs/cli.md, "Repeated flags"): a flag is given once in each place it may
 * come from (the command line; a config's lines above its first scenario; a scenario's own
 * lines); a later place's value replaces an earlier one's. --straggler, --degrade and --profile
 * add up instead, and --set is given once per setting. */
#ifndef HX_CLI_ONCE_H
#define HX_CLI_ONCE_H

#include "settings.h"

#define ONCE_CODES 512 /* getopt codes: short options' characters and long options' own codes */

struct once_seen {
  char flag[32];     /* the flag as typed ("-n", "--iters"); "": not given */
  const char *value; /* its value, NULL for a switch */
  int place;
};
struct once {
  struct once_seen flag[ONCE_CODES];
  struct once_seen set[AR_SET_COUNT]; /* --set, per setting */
};

/* The word of argv that named the option getopt_long just returned (by address). */
const char *once_word(char **argv);
/* The option getopt_long just returned (code c, its optarg) as typed in argv: "--iters" of
 * "--iters=5" or "--iters 5", "-n" of "-n5"; into buf. */
const char *once_flag_word(char **argv, char *buf, size_t len);
/* Notes option c (getopt_long's return, with optarg) given in place; refuses it (one line
 * naming the flag and both values, `where` appended: "" or where in a config) when it was
 * given in that place before. Returns 0 or -1. */
int once_given(struct once *s, int c, int place, char **argv, const char *where);
/* The same for --set NAME=VALUE: each setting once per place; 0 or -1. */
int once_setting(struct once *s, int place, const char *assign, const char *where);

#endif
