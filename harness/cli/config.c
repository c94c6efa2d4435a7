/* Reads a config file into argument words: whitespace separates words, "double quotes" keep
 * spaces, '#' outside quotes starts a comment; `[scenario NAME]` lines open sections. Every
 * byte is read as written or the file is refused with FILE:LINE (control bytes, overlong
 * lines or words, unbalanced quotes); CRLF line ends read as LF. Every input file (a config,
 * a delay file) is read whole by input_open, with a bound on its bytes, its lines and the time
 * a pipe may take. */
#include "cli/config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/bad_value.h"

/* Longest word read: a longer one is refused, never split or cut (the longest value any flag
 * takes, --sizes, is below it). */
#define CONFIG_MAX_WORD 4096

/* Appends a copy of word (from line lineno) to out; returns 0 or -1 when out of memory. */
static int push(struct config_args *out, size_t *cap, const char *word, size_t len, int lineno) {
  if ((size_t)out->argc + 2 > *cap) {
    size_t ncap = *cap ? 2 * *cap : 16;
    char **v = realloc(out->argv, ncap * sizeof(*v));
    if (v) out->argv = v;
    int *l = v ? realloc(out->line, ncap * sizeof(*l)) : NULL;
    if (!l) return -1;
    out->line = l;
    *cap = ncap;
  }
  if (!(out->argv[out->argc] = strndup(word, len))) return -1;
  out->line[out->argc] = lineno;
  out->argv[++out->argc] = NULL;
  return 0;
}

/* Splits one line (no newline, no control bytes) into words; returns 0, or -1 with why set. */
static int split_line(const char *line, int lineno, struct config_args *out, size_t *cap,
                      char *why, size_t whylen) {
  const char *p = line;
  char word[CONFIG_MAX_WORD];
  for (;;) {
    while (*p == ' ' || *p == '\t') p++;
    if (!*p || *p == '#') return 0;
    size_t len = 0;
    while (*p && *p != ' ' && *p != '\t' && *p != '#') {
      const char *end = p + 1; /* one byte, or a quoted run without its quotes */
      if (*p == '"' && !(end = strchr(p + 1, '"'))) {
        snprintf(why, whylen, "unbalanced quote");
        return -1;
      }
      const char *from = *p == '"' ? p + 1 : p;
      if (len + (size_t)(end - from) >= sizeof(word)) {
        snprintf(why, whylen, "a word longer than %d bytes", CONFIG_MAX_WORD - 1);
        return -1;
      }
      memcpy(word + len, from, (size_t)(end - from));
      len += (size_t)(end - from);
      p = *p == '"' ? end + 1 : end;
    }
    if (push(out, cap, word, len, lineno)) {
      snprintf(why, whylen, "out of memory");
      return -1;
    }
  }
}

/* Prints "arbench: --config: FILE:LINE: why" (FILE alone when line is 0); returns -1. */
static int config_bad(const char *path, int line, const char *why) {
  if (line) fprintf(stderr, "arbench: --config: %s:%d: %s\n", path, line, why);
  else fprintf(stderr, "arbench: --config: %s: %s\n", path, why);
  return -1;
}

/* Refuses what the bytes read so far already show: more than INPUT_MAX_BYTES, or a line that
 * has grown past INPUT_MAX_LINE (found as it arrives, so /dev/zero stops at once); 0 or -1. */
static int input_check_growth(struct input_file *in, size_t from) {
  if (in->len > INPUT_MAX_BYTES) {
    char why[64];
    snprintf(why, sizeof(why), "larger than %d MiB", INPUT_MAX_BYTES >> 20);
    return args_bad(in->flag, in->path, why);
  }
  for (size_t i = from; i < in->len; i++) {
    if (in->data[i] == '\n') {
      in->lineno++;
      in->pos = i + 1;
    } else if (i - in->pos >= INPUT_MAX_LINE - 1 && in->data[i] != '\r') { /* CRLF's CR is no data */
      fprintf(stderr, "arbench: %s: %s:%d: a line longer than %d bytes\n", in->flag, in->path,
              in->lineno + 1, INPUT_MAX_LINE - 1);
      return -1;
    }
  }
  return 0;
}

/* Milliseconds since t0 (CLOCK_MONOTONIC). */
static long ms_since(const struct timespec *t0) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (t.tv_sec - t0->tv_sec) * 1000L + (t.tv_nsec - t0->tv_nsec) / 1000000L;
}

/* Reads fd (opened non-blocking) to its end into in->data, waiting at most wait_ms in all for
 * bytes that have not arrived (a pipe, a FIFO, a terminal); 0 or -1 after one line. A FIFO
 * reads as ended while no writer has it open, so one that has sent nothing yet gets
 * INPUT_WRITER_MS for its writer to open it (a writer started beside arbench may not have). */
static int input_slurp(struct input_file *in, int fd, int wait_ms, int fifo) {
  size_t cap = 0;
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (;;) {
    if (cap - in->len < 65536) {
      cap = cap ? 2 * cap : 65536 * 2;
      char *d = realloc(in->data, cap + 1);
      if (!d) return args_bad(in->flag, in->path, "out of memory");
      in->data = d;
    }
    ssize_t n = read(fd, in->data + in->len, cap - in->len);
    if (n > 0) {
      size_t from = in->len;
      in->len += (size_t)n;
      if (input_check_growth(in, from)) return -1;
      continue;
    }
    if (n == 0) {
      if (!fifo || in->len || ms_since(&t0) >= INPUT_WRITER_MS) return 0;
      struct timespec nap = {0, 10 * 1000000L};
      nanosleep(&nap, NULL);
      continue;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      char why[160];
      snprintf(why, sizeof(why), "cannot read the %s: %s", in->what, strerror(errno));
      return args_bad(in->flag, in->path, why);
    }
    long left = wait_ms - ms_since(&t0);
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (left <= 0 || poll(&p, 1, (int)left) == 0) {
      char why[160];
      snprintf(why, sizeof(why), "did not end within %g s (a pipe or device still open: give "
               "a file)", wait_ms / 1000.0);
      return args_bad(in->flag, in->path, why);
    }
  }
}

int input_open(struct input_file *in, const char *flag, const char *path, const char *what,
               int wait_ms) {
  memset(in, 0, sizeof(*in));
  in->flag = flag, in->path = path, in->what = what;
  char why[160];
  /* non-blocking: opening a FIFO with no writer would wait for one forever */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st)) {
    snprintf(why, sizeof(why), "cannot read the %s: %s", what, strerror(errno));
    if (fd >= 0) close(fd);
    return args_bad(flag, path, why);
  }
  if (S_ISDIR(st.st_mode)) {
    close(fd);
    snprintf(why, sizeof(why), "a directory, not a %s", what);
    return args_bad(flag, path, why);
  }
  int rc = input_slurp(in, fd, wait_ms, S_ISFIFO(st.st_mode));
  close(fd);
  if (rc) {
    free(in->data);
    in->data = NULL;
    return -1;
  }
  in->data[in->len] = 0;
  in->pos = 0;
  in->lineno = 0;
  return 0;
}

int input_next(struct input_file *in) {
  if (in->pos >= in->len) return 0;
  char *start = in->data + in->pos, *nl = memchr(start, '\n', in->len - in->pos);
  size_t n = nl ? (size_t)(nl - start) : in->len - in->pos;
  in->pos += n + (nl != NULL);
  in->lineno++;
  if (n > 0 && start[n - 1] == '\r') n--; /* CRLF files read as LF files */
  start[n] = 0;
  in->line = start;
  in->line_len = n;
  return 1;
}

void input_close(struct input_file *in) {
  free(in->data);
  in->data = NULL;
}

/* A config file read line by line, every byte accounted for. */
struct reader {
  struct input_file in;
  const char *path;
  char *buf; /* the current line */
  int lineno, nbytes;
};

/* Opens and reads path (a config file); 0 or -1 after a message. */
static int reader_open(struct reader *r, const char *path) {
  memset(r, 0, sizeof(*r));
  r->path = path;
  return input_open(&r->in, "--config", path, "config file", INPUT_WAIT_MS);
}

/* The next line into r->buf without its "\n" or "\r\n"; returns 1, 0 at the end, or -1 after
 * a message: a NUL or other control byte. */
static int reader_next(struct reader *r) {
  if (!input_next(&r->in)) return 0;
  r->lineno = r->in.lineno;
  r->buf = r->in.line;
  size_t n = r->in.line_len;
  r->nbytes++; /* a line returned holds a byte at least (its newline) */
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)r->buf[i];
    if ((c < 0x20 && c != '\t') || c == 0x7f) {
      char why[96];
      snprintf(why, sizeof(why), "%s at column %zu", c == 0 ? "a NUL byte" : c == '\r' ?
               "a carriage return inside the line" : "a control character", i + 1);
      return config_bad(r->path, r->lineno, why);
    }
  }
  return 1;
}

static void reader_close(struct reader *r) { input_close(&r->in); }

int config_expand(const char *path, const char *prog, int nextra, char **extra,
                  struct config_args *out) {
  size_t cap = 0;
  struct reader r;
  char why[128] = "";
  memset(out, 0, sizeof(*out));
  if (reader_open(&r, path)) return -1;
  int rc = push(out, &cap, prog, strlen(prog), 0), got = 0;
  while (rc == 0 && (got = reader_next(&r)) > 0)
    if (split_line(r.buf, r.lineno, out, &cap, why, sizeof(why)))
      rc = config_bad(path, r.lineno, why);
  if (rc == 0 && got < 0) rc = -1;
  if (rc == 0 && out->argc == 1)
    rc = config_bad(path, 0, r.nbytes ? "no options in the file (only blanks and comments)"
                                      : "the file is empty");
  reader_close(&r);
  for (int i = 0; rc == 0 && i < nextra; i++)
    rc = push(out, &cap, extra[i], strlen(extra[i]), 0);
  if (rc) config_free(out);
  return rc;
}

void config_free(struct config_args *a) {
  for (int i = 0; i < a->argc; i++) free(a->argv[i]);
  free(a->argv);
  free(a->line);
  a->argv = NULL;
  a->line = NULL;
  a->argc = 0;
}

/* Parses a section line "[scenario NAME]" (then blanks or a comment) into name; 0 or -1. */
static int parse_section(const char *line, char *name, size_t len) {
  const char *p = line + strspn(line, " \t");
  if (strncmp(p, "[scenario", 9) || (p[9] != ' ' && p[9] != '\t')) return -1;
  p += 9 + strspn(p + 9, " \t");
  size_t k = 0;
  while (isalnum((unsigned char)p[k]) || p[k] == '-' || p[k] == '_' || p[k] == '.') k++;
  if (k == 0 || k >= len) return -1;
  memcpy(name, p, k);
  name[k] = 0;
  p += k + strspn(p + k, " \t");
  if (*p != ']') return -1;
  p++;
  p += strspn(p, " \t\r\n");
  return *p && *p != '#' ? -1 : 0;
}

int config_load(const char *path, struct config_file *out) {
  memset(out, 0, sizeof(*out));
  struct reader r;
  if (reader_open(&r, path)) return -1;
  if (!(out->text = malloc(r.in.len + 1))) {
    reader_close(&r);
    return args_bad("--config", path, "out of memory");
  }
  memcpy(out->text, r.in.data, r.in.len + 1); /* before reader_next cuts it into lines */
  out->text_len = r.in.len;
  struct config_args *cur = &out->common;
  size_t caps[CONFIG_MAX_SCENARIOS + 1] = {0}, *cap = &caps[0];
  char why[128] = "";
  int got = 0, nwords = 0;
  while (!why[0] && (got = reader_next(&r)) > 0) {
    const char *line = r.buf;
    if (line[strspn(line, " \t")] == '[') {
      char name[64];
      if (parse_section(line, name, sizeof(name))) {
        snprintf(why, sizeof(why), "a section line must be [scenario NAME] (NAME: "
                 "letters, digits, - _ .)");
        break;
      }
      for (int i = 0; i < out->nscen; i++)
        if (!strcmp(out->scen[i].name, name))
          snprintf(why, sizeof(why), "scenario '%s' appears twice", name);
      if (!why[0] && out->nscen == CONFIG_MAX_SCENARIOS)
        snprintf(why, sizeof(why), "more than %d scenarios", CONFIG_MAX_SCENARIOS);
      if (why[0]) break;
      struct config_scenario *sc = &out->scen[out->nscen++];
      snprintf(sc->name, sizeof(sc->name), "%s", name);
      cur = &sc->words;
      cap = &caps[out->nscen];
      continue;
    }
    int before = cur->argc;
    if (split_line(line, r.lineno, cur, cap, why, sizeof(why))) break;
    nwords += cur->argc - before;
  }
  int lineno = r.lineno, nbytes = r.nbytes;
  reader_close(&r);
  if (why[0]) {
    config_file_free(out);
    return config_bad(path, lineno, why);
  }
  if (got < 0 || (out->nscen == 0 && nwords == 0)) { /* an empty config is a mistake */
    config_file_free(out);
    return got < 0 ? -1 : config_bad(path, 0, nbytes ? "no options in the file (only blanks "
                                                       "and comments)" : "the file is empty");
  }
  if (out->nscen == 0) { /* no sections: the whole file is one scenario */
    out->nscen = 1;
    out->scen[0].name[0] = 0;
  }
  return 0;
}

void config_file_free(struct config_file *c) {
  config_free(&c->common);
  for (int i = 0; i < c->nscen; i++) config_free(&c->scen[i].words);
  c->nscen = 0;
  free(c->text);
  c->text = NULL;
  c->text_len = 0;
}
