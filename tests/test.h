/* A tiny test helper: CHECK_* record a pass or print file:line with both values on failure;
 * TEST_DONE() prints "N passed, N failed" and returns the exit status. */
#ifndef TEST_H
#define TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_passed, test_failed;

#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (cond) {                                                                \
      test_passed++;                                                           \
    } else {                                                                   \
      test_failed++;                                                           \
      printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                   \
      printf(__VA_ARGS__);                                                     \
      putchar('\n');                                                           \
    }                                                                          \
  } while (0)
#define CHECK_INT(a, op, b)                                                    \
  do {                                                                         \
    long long a_ = (long long)(a), b_ = (long long)(b);                        \
    CHECK(a_ op b_, "%s = %lld, %s = %lld", #a, a_, #b, b_);                   \
  } while (0)
#define CHECK_STR(a, b)                                                        \
  do {                                                                         \
    const char *a_ = (a), *b_ = (b);                                           \
    CHECK(a_ && b_ && !strcmp(a_, b_), "'%s' vs '%s'", a_ ? a_ : "(null)",     \
          b_ ? b_ : "(null)");                                                 \
  } while (0)
/* Splits "run " + line at spaces into argv (NULL-terminated, at most max-1 words), the words
 * kept in buf; returns argc. For tests that feed a command line to a parser. */
static inline int test_argv(const char *line, char *buf, size_t len, char **argv, int max) {
  int argc = 0;
  snprintf(buf, len, "run %s", line);
  for (char *save = NULL, *t = strtok_r(buf, " ", &save); t && argc < max - 1;
       t = strtok_r(NULL, " ", &save))
    argv[argc++] = t;
  argv[argc] = NULL;
  return argc;
}

/* 1 under `make test-long` (TEST_LONG=1), which adds each suite's slow checks of parts that
 * rarely change to what `make test` runs; else 0. */
static inline int test_long(void) {
  const char *v = getenv("TEST_LONG");
  return v && !strcmp(v, "1");
}

#define TEST_DONE()                                                            \
  (printf("%d passed, %d failed\n", test_passed, test_failed), test_failed != 0)

#endif
