/* Config files: command-line options written one or more per line, '#' starts a comment.
 * A config is expanded into argument words that are parsed exactly like the command line
 * (the command line's own options come after, so they win). Lines `[scenario NAME]` open
 * sections: each scenario is the common words (above the first section) plus its own. */
#ifndef CONFIG_H
#define CONFIG_H

#include <stddef.h>

/* An input file (a config, a straggler's delay file) is read whole before any of it is used,
 * within bounds: at most INPUT_MAX_BYTES, every line shorter than INPUT_MAX_LINE (found as the
 * bytes arrive: /dev/zero is refused after 64 KiB), and a pipe, FIFO or device that has not
 * ended within INPUT_WAIT_MS is refused. It is opened non-blocking: a FIFO with no writer
 * reads as empty after INPUT_WRITER_MS rather than waiting for one for ever. */
#define INPUT_MAX_BYTES (16 << 20)
#define INPUT_MAX_LINE 65536
#define INPUT_WAIT_MS 10000
/* How long a FIFO that no writer has opened yet is waited for before it reads as empty. */
#define INPUT_WRITER_MS 1000

struct input_file {
  const char *flag, *path, *what; /* for messages: "--config", the path, "config file" */
  char *data;                     /* the file's bytes, NUL-terminated */
  size_t len, pos;                /* their count; where the next line starts */
  int lineno;                     /* the current line's number (1-based) */
  char *line;                     /* the current line without "\n" or "\r\n", NUL-terminated */
  size_t line_len;                /* its bytes (it may hold a NUL: callers refuse those) */
};
/* Reads path whole; returns 0, or -1 after one line: "arbench: FLAG: bad value 'PATH': why"
 * (unreadable, a directory, over INPUT_MAX_BYTES, still open after wait_ms) or
 * "arbench: FLAG: PATH:LINE: a line longer than ..." */
int input_open(struct input_file *in, const char *flag, const char *path, const char *what,
               int wait_ms);
/* The next line into in->line; 1, or 0 at the end. */
int input_next(struct input_file *in);
void input_close(struct input_file *in);

struct config_args {
  int argc;
  char **argv; /* argv[0] is the program name; NULL-terminated */
  int *line;   /* the file line of each word; 0: not from the file */
};

/* Builds argv: prog, the words of FILE, then extra[0..nextra). Returns 0, or -1 after printing
 * one line: "arbench: --config: bad value 'FILE': why" (unreadable, a directory) or
 * "arbench: --config: FILE:LINE: why" (an unbalanced quote, a NUL or control byte, a line over
 * 64 KiB or a word over 4 KiB; FILE alone: empty, or nothing but comments). */
int config_expand(const char *path, const char *prog, int nextra, char **extra,
                  struct config_args *out);
void config_free(struct config_args *a);

/* A config with scenarios: the words above the first `[scenario NAME]` line are common to
 * every scenario; each section's words add to them. A file with no section is one scenario
 * with an empty name. */
#define CONFIG_MAX_SCENARIOS 32
struct config_scenario {
  char name[64];
  struct config_args words; /* the section's own words (no program name) */
};
struct config_file {
  struct config_args common; /* the words above the first section (no program name) */
  int nscen;
  struct config_scenario scen[CONFIG_MAX_SCENARIOS];
  char *text;      /* the file's bytes as read, for the run folder's config.conf: a pipe or */
  size_t text_len; /* FIFO cannot be read a second time */
};

/* Reads FILE into common words and scenarios. Returns 0, or -1 after printing one line as
 * config_expand does; also for a malformed section line, a repeated or missing scenario name,
 * too many scenarios. */
int config_load(const char *path, struct config_file *out);
void config_file_free(struct config_file *c);

#endif
