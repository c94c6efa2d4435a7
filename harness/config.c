/* Reads a config file into argument words: whitespace separates words, "double quotes" keep
 * spaces, '#' outside quotes starts a comment; `[scenario NAME]` lines open sections. */
#include "config.h"

#include <stdio.h>
#include <ctype.h>
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
  FILE *f = fopen(path, "r");
  if (!f) return args_bad("--config", path, "cannot read the file");
  struct config_args *cur = &out->common;
  size_t caps[CONFIG_MAX_SCENARIOS + 1] = {0}, *cap = &caps[0];
  char line[4096], why[128] = "";
  for (int lineno = 1; !why[0] && fgets(line, sizeof(line), f); lineno++) {
    if (line[strspn(line, " \t")] == '[') {
      char name[64];
      if (parse_section(line, name, sizeof(name))) {
        snprintf(why, sizeof(why), "line %d: a section line must be [scenario NAME] (NAME: "
                 "letters, digits, - _ .)", lineno);
        break;
      }
      for (int i = 0; i < out->nscen; i++)
        if (!strcmp(out->scen[i].name, name))
          snprintf(why, sizeof(why), "line %d: scenario '%s' appears twice", lineno, name);
      if (!why[0] && out->nscen == CONFIG_MAX_SCENARIOS)
        snprintf(why, sizeof(why), "line %d: more than %d scenarios", lineno,
                 CONFIG_MAX_SCENARIOS);
      if (why[0]) break;
      struct config_scenario *sc = &out->scen[out->nscen++];
      snprintf(sc->name, sizeof(sc->name), "%s", name);
      cur = &sc->words;
      cap = &caps[out->nscen];
      continue;
    }
    if (split_line(line, cur, cap))
      snprintf(why, sizeof(why), "unbalanced quote on line %d (or out of memory)", lineno);
  }
  fclose(f);
  if (!why[0] && out->nscen == 0) { /* no sections: the whole file is one scenario */
    out->nscen = 1;
    out->scen[0].name[0] = 0;
  }
  if (why[0]) {
    config_file_free(out);
    return args_bad("--config", path, why);
  }
  return 0;
}

void config_file_free(struct config_file *c) {
  config_free(&c->common);
  for (int i = 0; i < c->nscen; i++) config_free(&c->scen[i].words);
  c->nscen = 0;
}
