/* `arbench --list` and `arbench schedule`: build, verify and print one algorithm's schedule. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "model.h"

#include "cli/args.h"
#include "cli/cli.h"
#include "cli/once.h"
#include "cli/wrap.h"

/* Writes the algorithm's flags, and its pipelined trait, as words ("-" for none) into buf. */
static const char *flag_words(const struct ar_algo *a, char *buf, size_t len) {
  static const struct { unsigned bit; int trait; const char *word; } words[] = {
      {AR_ALGO_NATIVE, 0, "native"},         {AR_ALGO_STRAGGLER_AWARE, 0, "straggler-aware"},
      {AR_ALGO_DEGRADE_AWARE, 0, "degrade-aware"}, {AR_ALGO_TORUS, 0, "torus"},
      {AR_TRAIT_PIPELINED, 1, "pipelined"}};
  size_t used = 0;
  buf[0] = 0;
  for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
    if ((words[i].trait ? a->traits : a->flags) & words[i].bit)
      used += (size_t)snprintf(buf + used, len > used ? len - used : 0, "%s%s", used ? "," : "",
                               words[i].word);
  return buf[0] ? buf : "-";
}

/* --list's columns: the name, the rank counts it supports, where the model prices it, its
 * flags; its description and source on the lines under it, all within WRAP_COLUMNS */
enum { LIST_NAME = 15, LIST_RANKS = 39, LIST_TOPO = 28 };

int cmd_list(int argc, char **argv) {
  size_t n;
  char flags[96], part[WRAP_COLUMNS + 1], text[1024];
  const struct ar_algo *const *all = ar_algo_all(&n);
  /* --format families: "NAME FAMILY" a line, what plots/ reads to put each in its panel */
  int fam = argc == 3 && !strcmp(argv[1], "--format") && !strcmp(argv[2], "families");
  if (argc > 1 && !fam && !(argc == 3 && !strcmp(argv[1], "--format") && !strcmp(argv[2], "text"))) {
    fprintf(stderr, "arbench: --list: unexpected argument '%s' (it takes none, or --format "
                    "text|families)\n", argv[1]);
    return EXIT_BAD_INPUT;
  }
  if (fam) {
    for (size_t i = 0; i < n; i++)
      printf("%s %s\n", all[i]->name, all[i]->family ? all[i]->family : "-");
    return EXIT_OK;
  }
  printf("%-*s %-*s %-*s %s\n", LIST_NAME, "algorithm", LIST_RANKS, "supported n", LIST_TOPO,
         "topologies (model)", "flags");
  printf("%*s %s\n", LIST_NAME, "", "description [source]");
  for (size_t i = 0; i < n; i++) {
    const char *ranks = wrap_take(all[i]->ranks, LIST_RANKS, part, sizeof(part));
    if (strlen(all[i]->name) > LIST_NAME) printf("%s\n%*s", all[i]->name, LIST_NAME, "");
    else printf("%-*s", LIST_NAME, all[i]->name);
    printf(" %-*s %-*s %s\n", LIST_RANKS, part, LIST_TOPO, model_algo_topologies(all[i]),
           flag_words(all[i], flags, sizeof(flags)));
    while (*ranks) { /* a long rank rule goes on in its column */
      ranks = wrap_take(ranks, LIST_RANKS, part, sizeof(part));
      printf("%*s %s\n", LIST_NAME, "", part);
    }
    snprintf(text, sizeof(text), "%s [%s]", all[i]->desc, all[i]->paper);
    for (const char *t = text; *t;) {
      t = wrap_take(t, WRAP_COLUMNS - LIST_NAME - 1, part, sizeof(part));
      printf("%*s %s\n", LIST_NAME, "", part);
    }
  }
  return EXIT_OK;
}

/* Prints the verified schedule; returns the exit status docs/cli.md lists. */
static int show(const struct ar_algo *a, const struct ar_params *p, int json, uint64_t bytes) {
  struct ar_schedule s;
  ar_status st = ar_build(a, p, &s);
  if (st == AR_ERR_UNSUPPORTED) {
    printf("n/a: %s\n", s.reason);
    return EXIT_NA;
  }
  if (st == AR_ERR_INVALID) {
    fprintf(stderr, "arbench: %s: %s\n", a->name, s.reason);
    return EXIT_BAD_INPUT;
  }
  if (st != AR_OK) {
    fprintf(stderr, "arbench: %s: %s\n", a->name, s.reason);
    return EXIT_FAIL;
  }
  struct sched_report rep;
  ar_status vst = sched_verify(&s, &rep);
  if (json) {
    sched_print_json(&s, &rep, stdout);
  } else {
    printf("algorithm: %s\nranks: %d\nchunks: %d\nports: %d\nstraggler: %d\n", s.algo, s.nranks,
           s.nchunks, s.ports, s.straggler);
    sched_print_text(&s, stdout);
    printf("precondition_rounds: %d\nrounds: %d\n", rep.precond_rounds, rep.rounds);
    printf("sent_per_rank (buffers):");
    for (int r = 0; r < s.nranks; r++) printf(" %d:%.4f", r, rep.sent[r]);
    printf("\n");
    if (bytes) { /* the same in bytes, padding-free: chunk sizes as the executors cut them */
      printf("bytes_sent_per_rank (%llu-byte buffer):", (unsigned long long)bytes);
      for (int r = 0; r < s.nranks; r++) printf(" %d:%.0f", r, rep.sent[r] * (double)bytes);
      printf("\n");
    }
    printf("weighted_cost (buffers over one port): %.4f\n", sched_cost(&s, 0));
    if (vst == AR_OK) printf("verified: yes\n");
    else printf("verified: no (%s)\n", rep.error[0] ? rep.error : ar_status_str(vst));
  }
  sched_free(&s);
  return vst == AR_OK ? EXIT_OK : EXIT_FAIL;
}

int cmd_schedule(int argc, char **argv) {
  static const struct option opts[] = {
      {"algo", required_argument, 0, 'a'},      {"ranks", required_argument, 0, 'r'},
      {"straggler", required_argument, 0, 's'}, {"degrade", required_argument, 0, 'd'},
      {"torus", required_argument, 0, 't'},     {"format", required_argument, 0, 'f'},
      {"segments", required_argument, 0, 'k'},  {"help", no_argument, 0, 'h'},
      {"sizes", required_argument, 0, 'S'},     {"bytes", required_argument, 0, 'b'}, /* alias */
      {0, 0, 0, 0}};
  const struct ar_algo *algo = NULL;
  int n = 0, nst = 0, tdims = 0, torus[AR_MAX_TORUS_DIMS], json = 0, segments = 0;
  struct msg_size size = {0}; /* plain bytes: schedules have no dtype */
  struct straggler_spec st[AR_MAX_STRAGGLERS];
  struct degrade_spec dg = {0};
  const char *torus_text = "";
  optind = 1;
  opterr = 0;
  static struct once seen; /* a flag given twice is refused, but those that add up */
  memset(&seen, 0, sizeof(seen));
  for (int c; (c = getopt_long(argc, argv, ":h", opts, NULL)) != -1;) {
    if (c != ':' && c != '?' && c != 'h' && c != 's' && c != 'd' &&
        once_given(&seen, c == 'b' ? 'S' : c, 0, argv, "")) /* --bytes: --sizes' alias */
      return EXIT_BAD_INPUT;
    switch (c) {
    case 'a':
      if (!(algo = args_find_algo("--algo", optarg))) return EXIT_BAD_INPUT;
      break;
    case 'r':
      if (args_parse_int("--ranks", optarg, 2, AR_MAX_RANKS, &n)) return EXIT_BAD_INPUT;
      break;
    case 's':
      if (args_add_stragglers("--straggler", optarg, 0, st, &nst)) return EXIT_BAD_INPUT; /* add up */
      break;
    case 'd':
      if (args_add_degrade("--degrade", optarg, &dg)) return EXIT_BAD_INPUT; /* flags add up */
      break;
    case 't':
      torus_text = optarg;
      if (args_parse_torus("--torus", optarg, &tdims, torus)) return EXIT_BAD_INPUT;
      break;
    case 'k':
      if (args_parse_int("--segments", optarg, 1, 4096, &segments)) return EXIT_BAD_INPUT;
      break;
    case 'S':
    case 'b': /* --sizes, or its alias --bytes: messages name the flag as typed */
      if (args_parse_sizes(c == 'S' ? "--sizes" : "--bytes", optarg, &size, 1) < 0)
        return EXIT_BAD_INPUT;
      break;
    case 'f':
      if (strcmp(optarg, "text") && strcmp(optarg, "json"))
        return args_bad("--format", optarg, "use text or json"), EXIT_BAD_INPUT;
      json = !strcmp(optarg, "json");
      break;
    case 'h':
      printf("usage: arbench schedule --algo A --ranks N [--straggler R[:D]] [--degrade R:F]"
             " [--torus AxB] [--segments K] [--sizes S] [--format text|json]\n"
             "  --sizes S: one buffer's size for bytes_sent_per_rank (--bytes is its alias)\n");
      return EXIT_OK;
    case ':':
      fprintf(stderr, "arbench: %s: needs a value\n", argv[optind - 1]);
      return EXIT_BAD_INPUT;
    default:
      fprintf(stderr, "arbench: schedule: unknown option '%s'\n", argv[optind - 1]);
      return EXIT_BAD_INPUT;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "arbench: schedule: unexpected argument '%s'\n", argv[optind]);
    return EXIT_BAD_INPUT;
  }
  if (!algo) return args_bad("--algo", "", "required (see arbench --list)"), EXIT_BAD_INPUT;
  if (!n) return args_bad("--ranks", "", "required"), EXIT_BAD_INPUT;
  if (args_check_ranks(n, st, nst, &dg, tdims, torus, torus_text) ||
      args_check_segments(algo, n, segments))
    return EXIT_BAD_INPUT;
  struct ar_params p;
  args_fill_params(&p, n, st, nst, &dg, tdims, torus);
  p.segments = segments;
  if (algo->flags & AR_ALGO_NATIVE) {
    printf("n/a: %s is NCCL's own call and has no schedule\n", algo->name);
    return EXIT_NA;
  }
  return show(algo, &p, json, size.bytes);
}
