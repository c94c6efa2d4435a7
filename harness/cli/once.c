/* Repeated flags (once.h). */
#include "cli/once.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/bad_value.h"

const char *once_word(char **argv) {
  /* the value a word of its own (`-n 5`): the flag is the word before it */
  return optarg && optind >= 2 && optarg == argv[optind - 1] ? argv[optind - 2] : argv[optind - 1];
}

const char *once_flag_word(char **argv, char *buf, size_t len) {
  const char *w = once_word(argv);
  size_t k = w[0] == '-' && w[1] == '-' ? strcspn(w, "=") : w[0] == '-' && w[1] ? 2 : strlen(w);
  snprintf(buf, len, "%.*s", (int)k, w);
  return buf;
}

/* Refuses the second of two values of one flag (one line: the flag, both values). */
static int refuse(const struct once_seen *first, const char *flag, const char *value,
                  const char *what, const char *where) {
  char why[1400], before[700];
  if (strcmp(first->flag, flag)) snprintf(before, sizeof(before), "%s '%s'", first->flag,
                                          first->value ? first->value : "");
  else snprintf(before, sizeof(before), "'%s'", first->value ? first->value : "");
  if (!value) { /* a switch: no value to name */
    fprintf(stderr, "arbench: %s: given twice%s: a flag is given once\n", flag, where);
    return -1;
  }
  snprintf(why, sizeof(why), "given twice%s (first %s): %s", where, before, what);
  return args_bad(flag, value, why);
}

int once_given(struct once *s, int c, int place, char **argv, const char *where) {
  if (c < 0 || c >= ONCE_CODES) return 0;
  char flag[32];
  once_flag_word(argv, flag, sizeof(flag));
  struct once_seen *e = &s->flag[c];
  if (e->flag[0] && e->place == place)
    return refuse(e, flag, optarg, "a flag that takes one value is given once (a list, in one "
                  "comma-separated word)", where);
  snprintf(e->flag, sizeof(e->flag), "%s", flag);
  e->value = optarg;
  e->place = place;
  return 0;
}

int once_setting(struct once *s, int place, const char *assign, const char *where) {
  const struct ar_setting *t = ar_settings_table();
  size_t len = strcspn(assign, "=");
  for (int i = 0; i < AR_SET_COUNT; i++) {
    if (strlen(t[i].name) != len || strncmp(t[i].name, assign, len)) continue;
    struct once_seen *e = &s->set[i];
    if (e->flag[0] && e->place == place)
      return refuse(e, "--set", assign, "each setting is given once", where);
    snprintf(e->flag, sizeof(e->flag), "--set");
    e->value = assign;
    e->place = place;
    return 0;
  }
  return 0; /* no such setting: ar_settings_parse says so */
}
