/* Config files: command-line options written one or more per line, '#' starts a comment.
 * A config is expanded into argument words that are parsed exactly like the command line
 * (the command line's own options come after, so they win). */
#ifndef CONFIG_H
#define CONFIG_H

struct config_args {
  int argc;
  char **argv; /* argv[0] is the program name; NULL-terminated */
};

/* Builds argv: prog, the words of FILE, then extra[0..nextra). Returns 0, or -1 after printing
 * one line "arbench: --config: bad value 'FILE': why" (unreadable, unbalanced quote). */
int config_expand(const char *path, const char *prog, int nextra, char **extra,
                  struct config_args *out);
void config_free(struct config_args *a);

#endif
