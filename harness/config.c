/* Reads a config file into argument words: whitespace separates words, "double quotes" keep
 * spaces, '#' outside quotes starts a comment. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"

/* Appends a copy of word to out; returns 0 or -1 when out of memory. */
static int push(struct config_args *out, size_t *cap, const char *word, size_t len) {
  if ((size_t)out->argc + 2 > *cap) {
    size_t ncap = *cap ? 2 * *cap : 16;
    char **v = realloc(out->argv, ncap * sizeof(*v));
    if (!v) return -1;
    out->argv = v;
    *cap = ncap;
  }
  if (!(out->argv[out->argc] = strndup(word, len))) return -1;
  out->argv[++out->argc] = NULL;
  return 0;
}

/* Splits one line into words; returns 0, or -1 on an unbalanced quote. */
static int split_line(const char *line, struct config_args *out, size_t *cap) {
  const char *p = line;
  for (;;) {
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
    if (!*p || *p == '#') return 0;
    char word[1024];
    size_t len = 0;
    while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n' && *p != '#') {
      if (*p == '"') {
        const char *end = strchr(p + 1, '"');
        if (!end) return -1;
        for (p++; p < end && len < sizeof(word) - 1; p++) word[len++] = *p;
        p = end + 1;
      } else if (len < sizeof(word) - 1) {
        word[len++] = *p++;
      } else {
        p++;
      }
    }
    if (push(out, cap, word, len)) return -1;
  }
}

int config_expand(const char *path, const char *prog, int nextra, char **extra,
                  struct config_args *out) {
  size_t cap = 0;
  memset(out, 0, sizeof(*out));
  FILE *f = fopen(path, "r");
  if (!f) return args_bad("--config", path, "cannot read the file");
  int rc = push(out, &cap, prog, strlen(prog));
  char line[4096];
  for (int lineno = 1; rc == 0 && fgets(line, sizeof(line), f); lineno++)
    if (split_line(line, out, &cap)) {
      char why[64];
      snprintf(why, sizeof(why), "unbalanced quote on line %d", lineno);
      rc = args_bad("--config", path, why);
    }
  fclose(f);
  for (int i = 0; rc == 0 && i < nextra; i++) rc = push(out, &cap, extra[i], strlen(extra[i]));
  if (rc) config_free(out);
  return rc;
}

void config_free(struct config_args *a) {
  for (int i = 0; i < a->argc; i++) free(a->argv[i]);
  free(a->argv);
  a->argv = NULL;
  a->argc = 0;
}
