/* `arbench run --config FILE [--scenario LIST]`: each scenario of a config file becomes one
 * run_opts (options.c parses its words: the config's common words, the scenario's, then the
 * command line's), and the scenarios are checked to agree on what belongs to the whole run. */
#include "plan/sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/config.h"

/* Is `name` in the comma-separated list? */
static int in_list(const char *list, const char *name) {
  size_t len = strlen(name);
  for (const char *p = list; *p;) {
    size_t k = strcspn(p, ",");
    if (k == len && !strncmp(p, name, len)) return 1;
    p += k + (p[k] == ',');
  }
  return 0;
}

/* Copies argv without --config FILE and --scenario LIST (noting their values) into rest;
 * returns rest's count, or -1 after a message. */
static int strip_plan_words(int argc, char **argv, char **rest, const char **config,
                            const char **scenarios) {
  int k = 0;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i], **slot = NULL, *val = NULL;
    if (i > 0 && (!strcmp(a, "--config") || !strncmp(a, "--config=", 9))) slot = config;
    if (i > 0 && (!strcmp(a, "--scenario") || !strncmp(a, "--scenario=", 11))) slot = scenarios;
    if (!slot) {
      rest[k++] = argv[i];
      continue;
    }
    const char *flag = slot == config ? "--config" : "--scenario";
    if (strchr(a, '=')) val = strchr(a, '=') + 1;
    else if (i + 1 < argc) val = argv[++i];
    else {
      fprintf(stderr, "arbench: %s: needs a value\n", flag);
      return -1;
    }
    if (*slot) {
      char why[1200];
      snprintf(why, sizeof(why), "given twice (first '%s'): a flag that takes one value is given "
               "once", *slot);
      return args_bad(flag, val, why);
    }
    if (!*val) return args_bad(flag, val, "empty");
    *slot = val;
  }
  rest[k] = NULL;
  return k;
}

/* Parses one scenario: words = prog, common, the scenario's words, rest[1..]; where: the
 * scenario and file, for messages; 0, 1 or -1. */
static int parse_scenario(const struct config_file *cf, const char *file, const char *where,
                          int si, int nrest, char **rest, struct run_opts *o) {
  const struct config_args *sw = &cf->scen[si].words;
  int argc = 1 + cf->common.argc + sw->argc + (nrest - 1);
  char **argv = calloc((size_t)argc + 1, sizeof(*argv));
  if (!argv) return args_bad("--config", "", "out of memory");
  int k = 0;
  argv[k++] = rest[0];
  for (int i = 0; i < cf->common.argc; i++) argv[k++] = cf->common.argv[i];
  for (int i = 0; i < sw->argc; i++) argv[k++] = sw->argv[i];
  for (int i = 1; i < nrest; i++) argv[k++] = rest[i];
  /* the words' lines, in argv's order before getopt permutes it */
  const char **words = calloc((size_t)argc, sizeof(*words));
  int *lines = calloc((size_t)argc, sizeof(*lines));
  if (!words || !lines) {
    free(argv), free(words), free(lines);
    return args_bad("--config", "", "out of memory");
  }
  for (int i = 0; i < cf->common.argc; i++)
    words[i] = cf->common.argv[i], lines[i] = cf->common.line[i];
  for (int i = 0; i < sw->argc; i++)
    words[cf->common.argc + i] = sw->argv[i], lines[cf->common.argc + i] = sw->line[i];
  struct run_words src = {.where = where, .file = file, .words = words, .lines = lines,
                          .n = cf->common.argc + sw->argc, .ncommon = cf->common.argc};
  int rc = run_opts_parse_words(argc, argv, o, &src);
  free(argv), free(words), free(lines);
  snprintf(o->scenario, sizeof(o->scenario), "%s", cf->scen[si].name);
  return rc;
}

/* Checks that the scenarios agree on what belongs to the whole run; 0 or -1. */
static int check_plan(const struct run_plan *plan) {
  const struct run_opts *a = &plan->scen[0];
  for (int i = 1; i < plan->nscen; i++) {
    const struct run_opts *b = &plan->scen[i];
    if (strcmp(a->out, b->out)) return args_bad("--out", b->out, "scenarios name different run folders");
    if (strcmp(a->baseline, b->baseline))
      return args_bad("--baseline", b->baseline, "scenarios name different baselines");
    if (a->dry_run != b->dry_run) return args_bad("--dry-run", "", "given in some scenarios only");
    if (a->force != b->force) return args_bad("--force", "", "given in some scenarios only");
    if (strcmp(a->self_test, b->self_test))
      return args_bad("--self-test", b->self_test, "given in some scenarios only");
  }
  return 0;
}

int run_plan_parse(int argc, char **argv, struct run_plan *plan) {
  memset(plan, 0, sizeof(*plan));
  char parse_where[1200] = ""; /* " in scenario 'x' of FILE": where the words come from */
  char **rest = calloc((size_t)argc + 1, sizeof(*rest));
  const char *config = NULL, *scenarios = NULL;
  if (!rest) return args_bad("run", "", "out of memory");
  int nrest = strip_plan_words(argc, argv, rest, &config, &scenarios), rc = -1;
  static struct config_file cf; /* large: keep it off the stack */
  int loaded = 0;
  if (nrest < 0) goto out;
  if (!config) {
    if (scenarios) {
      args_bad("--scenario", scenarios, "needs --config");
      goto out;
    }
    if (!(plan->scen = calloc(1, sizeof(*plan->scen)))) goto oom;
    plan->nscen = 1;
    rc = run_opts_parse(nrest, rest, &plan->scen[0]);
    goto out;
  }
  if (strlen(config) >= sizeof(plan->config)) {
    args_bad("--config", config, "too long");
    goto out;
  }
  snprintf(plan->config, sizeof(plan->config), "%s", config);
  if (config_load(config, &cf)) goto out;
  loaded = 1;
  if (scenarios) { /* every name must exist, none empty (",": no scenario by mistake) */
    if (args_check_list("--scenario", scenarios)) goto out;
    if (strlen(scenarios) >= 1024) {
      args_bad("--scenario", scenarios, "too long");
      goto out;
    }
    char buf[1024];
    snprintf(buf, sizeof(buf), "%s", scenarios);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
      if (in_list(save ? save : "", t)) { /* as every list: an item once */
        args_bad("--scenario", t, "named twice in the list");
        goto out;
      }
      int found = 0;
      for (int i = 0; i < cf.nscen; i++) found |= !strcmp(cf.scen[i].name, t);
      if (!found) {
        char why[512] = "no such scenario in the config; known:";
        for (int i = 0; i < cf.nscen; i++)
          snprintf(why + strlen(why), sizeof(why) - strlen(why), " %s",
                   cf.scen[i].name[0] ? cf.scen[i].name : "(none)");
        args_bad("--scenario", t, why);
        goto out;
      }
    }
  }
  if (!(plan->scen = calloc((size_t)cf.nscen, sizeof(*plan->scen)))) goto oom;
  for (int i = 0; i < cf.nscen; i++) {
    if (scenarios && !in_list(scenarios, cf.scen[i].name)) continue;
    if (cf.scen[i].name[0])
      snprintf(parse_where, sizeof(parse_where), " in scenario '%s' of %s", cf.scen[i].name,
               config);
    else
      snprintf(parse_where, sizeof(parse_where), " in %s", config);
    rc = parse_scenario(&cf, config, parse_where, i, nrest, rest, &plan->scen[plan->nscen++]);
    if (rc) goto out;
  }
  rc = plan->nscen ? check_plan(plan) : args_bad("--scenario", scenarios, "selects no scenario");
  plan->config_text = cf.text, plan->config_len = cf.text_len; /* the plan keeps them */
  cf.text = NULL;
  goto out;
oom:
  rc = args_bad("run", "", "out of memory");
out:
  if (loaded) config_file_free(&cf);
  free(rest);
  if (rc) run_plan_free(plan);
  return rc;
}

void run_plan_free(struct run_plan *plan) {
  for (int i = 0; i < plan->nscen; i++) run_opts_free(&plan->scen[i]);
  free(plan->scen);
  plan->scen = NULL;
  plan->nscen = 0;
  free(plan->config_text);
  plan->config_text = NULL;
  plan->config_len = 0;
}
