/* `arbench run` options: every flag is checked here, before any GPU is touched (run_plan.c
 * makes a config file's scenarios one run_opts each; the plan, sweep.c, comes after). */
#include "plan/sweep.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/config.h"
#include "cli/once.h"
#include "plan/critical.h"
#include "profile/profile.h"


void run_opts_usage(void) {
  char names[128];
  printf(
      "usage: arbench run [options]   (also the default with no subcommand)\n"
      "What runs\n"
      "      --algo LIST|all     algorithms (default all; see arbench --list)\n");
  printf("      --transport LIST|all  %s (default %s; nccl ignores it)\n",
         ar_transport_names(names, sizeof(names), ", "), ar_transport_at(AR_TP_NCCL_P2P)->name);
  printf(
      "      --config FILE       options from FILE; [scenario NAME] sections run in turn\n"
      "                          into one run folder (command-line options win)\n"
      "      --scenario LIST     only these scenarios of the config\n"
      "      --dry-run           validate, print the plan and an estimated duration; no GPU\n"
      "Sizes\n"
      "  -b, --minbytes SIZE     smallest size (default 1K; binary units K, M, G)\n"
      "  -e, --maxbytes SIZE     largest size (default 8G)\n"
      "  -f, --stepfactor F      multiply the size by F each step (default 2)\n"
      "  -i, --stepbytes SIZE    add SIZE each step instead\n"
      "      --sizes LIST        an explicit list of sizes (e.g. 1K,1000000,1M)\n"
      "  -d, --dtype T           float32, bf16 or fp16 (default float32); every size, here\n"
      "                          or in --find-critical, a whole number of its elements: 4\n"
      "                          bytes for float32, 2 for bf16 and fp16\n"
      "Ranks and GPUs\n"
      "      --gpus LIST         CUDA ordinals, rank = position (default every GPU); an\n"
      "                          ordinal may repeat: --gpus 0,0,0,0 puts 4 ranks on GPU 0\n"
      "      --ranks N           N ranks placed round-robin over --gpus (default every\n"
      "                          GPU); more ranks than GPUs share them (co-located: for\n"
      "                          correctness and smoke runs; the timings are one GPU's\n"
      "                          memory system, not NVLink)\n"
      "      --ranks-per-process G  under mpirun or srun (make MPI=1): G ranks in each\n"
      "                          process, as threads (default 1); ranks = processes x G,\n"
      "                          and --gpus lists each host's GPUs, taken in turn by its\n"
      "                          processes' ranks\n"
      "Iterations and checks\n"
      "  -n, --iters N           timed iterations (default 20)\n"
      "  -w, --warmup N          untimed warm-up iterations (default 5)\n"
      "      --row-budget TIME   cap each row's timed iterations at what fits in TIME at\n"
      "                          the pace of its last warm-up iteration (its slowest rank),\n"
      "                          never below %d (or -n); the CSV's iters column holds the\n"
      "                          count (e.g. 100ms; default 0: off; needs -w 2 or more)\n"
      "  -c, --check 0|1         check every timed iteration's result (default 1)\n"
      "  -T, --timeout SECONDS   watchdog per size and algorithm (default 120)\n",
      HX_BUDGET_MIN_ITERS);
  printf(
      "Stragglers and degraded links\n"
      "      --straggler R:D     delay rank R by D (8ms, 2ms-10ms, @FILE) before each\n"
      "                          iteration's collective; comma-separated or repeated for\n"
      "                          several (the first is the straggler of stragglar and bcast)\n"
      "      --degrade R:F       GPU R's links F times slower (emulated on nccl-p2p, ce and\n"
      "                          sm, ingress and egress each capped at healthy/F; nccl and\n"
      "                          ll rows n/a); comma-separated or repeated for several;\n"
      "                          optcc is built for them\n"
      "      --find-critical [SIZES]  instead of the size sweep: per size (default\n"
      "                          64M,128M,...,4G) the smallest delay (0.1 ms) at which\n"
      "                          stragglar beats the fastest other algorithm; critical.csv\n"
      "      --critical-max D    largest delay the search tries (default 64ms)\n"
      "      --critical-algo A   the straggler-aware algorithm searched (default stragglar)\n"
      "Schedules and tuning\n"
      "      --pipeline K        mini-batches per transfer where the transport pipelines\n"
      "                          (ce; default 1; 0: the transport chooses per size; the\n"
      "                          CSV's pipeline column holds the count used)\n"
      "      --segments K        OPTCC's k segments (default: chosen per size, 4..64; the\n"
      "                          CSV's pipeline column of optcc rows holds the k used)\n"
      "      --torus AxB         logical torus for swing-mp and bucket\n"
      "      --set NAME=VALUE    a tuning setting (arbench settings lists them; recorded in\n"
      "                          meta.txt and results.csv's settings column)\n"
      "The run folder\n"
      "  -o, --out DIR           run folder (default runs/<UTC time>_<host>, with -2, -3..\n"
      "                          when taken); an existing folder must be empty\n"
      "      --force             write into a non-empty --out folder (its files are replaced)\n"
      "      --baseline RUN_DIR  flag regressions against an earlier run at the end\n"
      "Phases and profiles\n"
      "      --phases            time the phases (delay, collective, precondition, rounds)\n"
      "                          of each row's last iteration on every rank: phases.csv\n"
      "      --profile overlap   CUPTI activity records of every row: the share of each\n"
      "                          rank's copy time that overlapped reduction kernels and the\n"
      "                          straggler delay (results.csv's overlap_*_pct, overlap.csv)\n"
      "      --profile timeline  the same, and every copy and kernel of each row on every\n"
      "                          rank with its start and end: timeline.csv\n"
      "                          (--profile overlap,timeline: the same as timeline)\n"
      "Beside compute\n"
      "      --compute KIND      a load on every rank's GPU, on a stream of its own, started\n"
      "                          with each timed AllReduce: membw (HBM streaming), sm:N (N\n"
      "                          SMs busy, no memory traffic), gemm (cuBLASLt bf16, sized to\n"
      "                          last as long as the AllReduce alone) or gemm:MxNxK; each row\n"
      "                          also times the load alone and both together (results.csv's\n"
      "                          compute columns, compute_samples.csv)\n"
      "Self-tests\n"
      "      --self-test delay   measure the straggler delay kernel (100us, 1ms, 8ms)\n"
      "      --self-test degrade measure the degraded-link emulation: 1-3 peers into and\n"
      "                          out of a GPU slowed x2, 256 MiB each, every transport\n"
      "                          that emulates it (nccl-p2p, ce, sm)\n");
}

/* Parses --profile's comma-separated list (overlap, timeline) and adds its HX_PROFILE_* bits
 * to *what (repeated flags add up); returns 0, or -1 after one line naming the value. */
static int parse_profile(const char *s, int *what) {
  static const char *const known = "known: overlap, timeline";
  int bits = 0;
  const char *p = s;
  do {
    size_t len = strcspn(p, ",");
    if (len == 7 && !strncmp(p, "overlap", len))
      bits |= HX_PROFILE_OVERLAP;
    else if (len == 8 && !strncmp(p, "timeline", len))
      bits |= HX_PROFILE_TIMELINE;
    else
      return args_bad("--profile", s, known); /* also an empty item: "", "overlap," */
    p += len;
  } while (*p++ == ',');
  *what |= bits;
  return 0;
}

/* Parses "0,1,3" (or "0,0,0,0": ranks sharing a GPU) into ordinals; 0 or -1. */
static int parse_gpus(const char *s, struct run_opts *o) {
  char buf[256];
  if (strlen(s) >= sizeof(buf)) return args_bad("--gpus", s, "too long");
  if (args_check_list("--gpus", s)) return -1;
  snprintf(buf, sizeof(buf), "%s", s);
  o->ngpus = 0;
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    int d;
    if (o->ngpus == HX_MAX_DEVS) return args_bad("--gpus", s, "at most 16 ranks");
    if (args_parse_int("--gpus", t, 0, 255, &d)) return -1;
    o->gpus[o->ngpus++] = d;
  }
  if (!o->ngpus) return args_bad("--gpus", s, "empty");
  return 0;
}

/* --gpus and --ranks together: the ranks of a run; 0 or -1. */
static int check_placement(struct run_opts *o, const char *gpus_text, const char *ranks_text) {
  if (o->nranks && o->ngpus > o->nranks)
    return args_bad("--ranks", ranks_text, "fewer ranks than the GPUs listed by --gpus");
  if (!o->nranks && o->ngpus == 1 && strcmp(o->self_test, "delay"))
    return args_bad("--gpus", gpus_text, "an AllReduce needs at least 2 ranks: name the GPU "
                    "once per rank (--gpus 0,0,0,0) or add --ranks N");
  return 0;
}

/* Parses "all" or "ring,nccl"; 0 or -1. */
static int parse_algos(const char *s, struct run_opts *o) {
  o->nalgos = 0;
  if (!strcmp(s, "all")) {
    size_t n;
    const struct ar_algo *const *all = ar_algo_all(&n);
    for (size_t i = 0; i < n && o->nalgos < HX_MAX_ALGOS; i++) o->algos[o->nalgos++] = all[i];
    return 0;
  }
  char buf[1024];
  if (strlen(s) >= sizeof(buf)) return args_bad("--algo", s, "too long");
  if (args_check_list("--algo", s)) return -1;
  snprintf(buf, sizeof(buf), "%s", s);
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    const struct ar_algo *a = args_find_algo("--algo", t);
    if (!a) return -1;
    for (int i = 0; i < o->nalgos; i++)
      if (o->algos[i] == a) return args_bad("--algo", t, "named twice in the list");
    if (o->nalgos < HX_MAX_ALGOS) o->algos[o->nalgos++] = a;
  }
  if (!o->nalgos) return args_bad("--algo", s, "empty");
  return 0;
}

/* Parses "all" or "nccl-p2p,ce" (the transport table's names, src/transports.h); 0 or -1. */
static int parse_transports(const char *s, struct run_opts *o) {
  o->ntransports = 0;
  if (!strcmp(s, "all")) {
    for (int i = 0; i < AR_NTRANSPORTS; i++)
      o->transports[o->ntransports++] = ar_transport_at(i);
    return 0;
  }
  char buf[256];
  if (strlen(s) >= sizeof(buf)) return args_bad("--transport", s, "too long");
  if (args_check_list("--transport", s)) return -1;
  snprintf(buf, sizeof(buf), "%s", s);
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    const struct ar_transport *tp = ar_transport_find(t);
    if (!tp) {
      char known[128], why[192];
      snprintf(why, sizeof(why), "unknown transport; known: %s all",
               ar_transport_names(known, sizeof(known), " "));
      return args_bad("--transport", t, why);
    }
    for (int i = 0; i < o->ntransports; i++)
      if (o->transports[i] == tp) return args_bad("--transport", t, "named twice in the list");
    o->transports[o->ntransports++] = tp;
  }
  if (!o->ntransports) return args_bad("--transport", s, "empty");
  return 0;
}

/* The config file line of the word at w (by address: getopt permutes argv); 0: not from it. */
static int src_line(const struct run_words *src, const char *w) {
  for (int i = 0; i < src->n; i++)
    if (src->words[i] == w) return src->lines[i];
  return 0;
}

/* run's long options without a short form: getopt codes above any character */
enum { O_SIZES = 256, O_ALGO, O_TRANSPORT, O_GPUS, O_PIPELINE, O_STRAGGLER, O_TORUS,
       O_DEGRADE, O_FIND_CRITICAL, O_CRIT_MAX, O_CRIT_ALGO, O_DRY_RUN, O_BASELINE, O_SELF_TEST,
       O_CONFIG, O_SCENARIO, O_PHASES, O_SEGMENTS, O_PROFILE, O_RANKS, O_SET, O_FORCE, O_PER_PROC,
       O_ROW_BUDGET, O_COMPUTE };

/* Where word w came from: 0 a config's lines above its first scenario (or a subcommand's
 * defaults), 1 the scenario's own lines, 2 the command line. */
static int src_place(const struct run_words *src, const char *w) {
  for (int i = 0; i < src->n; i++)
    if (src->words[i] == w) return i < src->ncommon ? 0 : 1;
  return 2;
}

/* A flag given twice in one place is refused (docs/cli.md, "Repeated flags"), but those that
 * add up; so is an option of run that the subcommand does nothing with. 0 or -1. */
static int check_once(struct once *seen, int c, const struct option *opts,
                      const struct run_words *src, char **argv) {
  const char *w = once_word(argv);
  char flag[32], where[1300] = "", name[40];
  for (int i = 0; src->not_here && opts[i].name; i++) {
    snprintf(name, sizeof(name), " %s ", opts[i].name);
    if (opts[i].val == c && strstr(src->not_here, name)) {
      fprintf(stderr, "arbench: %s: not an option of %s (it measures nothing and writes no "
              "file; see arbench %s --help)\n", once_flag_word(argv, flag, sizeof(flag)),
              src->cmd, src->cmd);
      return -1;
    }
  }
  if (c == O_STRAGGLER || c == O_DEGRADE || c == O_PROFILE) return 0; /* they add up */
  int place = src_place(src, w);
  if (place < 2 && src->file) snprintf(where, sizeof(where), " in %s:%d", src->file, src_line(src, w));
  return c == O_SET ? once_setting(seen, place, optarg, where)
                    : once_given(seen, c, place, argv, where);
}

/* After getopt_long returned an option with a value: refuses a value that came from another
 * line than its flag (the flag ended a config line); 0 or -1 after one line. */
static int check_same_line(const struct run_words *src, char **argv) {
  if (!optarg || optind < 2 || optarg != argv[optind - 1]) return 0; /* --flag=v, -fv */
  int lf = src_line(src, argv[optind - 2]), lv = src_line(src, optarg);
  if (!lf || lf == lv) return 0;
  fprintf(stderr, "arbench: --config: %s:%d: '%s' needs its value on the same line (it would "
          "take '%s' from %s)\n", src->file, lf, argv[optind - 2], optarg,
          lv ? "a later line" : "the command line");
  return -1;
}

/* Parses the --find-critical size list (or the default 64M..4G) into out; the count or -1. */
static int parse_critical_sizes(const char *list, struct msg_size *out) {
  if (!list) return sweep_sizes(64ull << 20, 4ull << 30, 2, 0, out, HX_MAX_SIZES);
  return args_parse_sizes("--find-critical", list, out, HX_MAX_SIZES);
}

/* Resolves the sizes of o against its dtype, once, as the options are read: every size the
 * user typed (-b, -e, -i, --sizes, --find-critical: each refused, naming it, when it is not a
 * whole number of elements, even where another flag replaced it) and those the run will
 * measure; crit: the --find-critical sizes (ncrit of them) that replace o->sizes; 0 or -1. */
static int resolve_sizes(struct run_opts *o, const char *const text[4], struct msg_size *crit,
                         int ncrit, const char *crit_list) {
  static const char *const flag[3] = {"-b", "-e", "-i"};
  struct msg_size one[3] = {{.bytes = o->min_bytes}, {.bytes = o->max_bytes},
                            {.bytes = o->step_bytes}};
  int es = (int)ar_dtype_size(o->dtype);
  const char *elem = ar_dtype_name(o->dtype);
  for (int i = 0; i < 3; i++)
    if (*text[i] && args_resolve_sizes(flag[i], text[i], &one[i], 1, es, elem)) return -1;
  /* o->sizes: the --sizes list (text[3]) or the -b/-e sweep, the harness's own words */
  if (args_resolve_sizes("--sizes", *text[3] ? text[3] : NULL, o->sizes, o->nsizes, es, elem))
    return -1;
  if (ncrit) {
    if (args_resolve_sizes("--find-critical", crit_list, crit, ncrit, es, elem)) return -1;
    memcpy(o->sizes, crit, (size_t)ncrit * sizeof(*crit));
    o->nsizes = ncrit;
  }
  return 0;
}

/* Checks that DIR/results.csv can serve as a baseline: a header naming every column that
 * plots/summary.awk compares rows by, and at least one row. Otherwise "0 regressions" would
 * read as a green night; 0 or -1 after one line. Only its head is read, within a line's bound,
 * and only from a regular file: a FIFO there would hang the run, a huge line grow memory. */
static int check_baseline(const char *dir) {
  static char head[INPUT_MAX_LINE + 2]; /* the header, its newline, a row's first byte, NUL */
  char path[1100];
  snprintf(path, sizeof(path), "%s/results.csv", dir);
  int fd = -1;
  struct stat st;
  if (!*dir || strlen(dir) >= sizeof(((struct run_opts *)0)->baseline) ||
      (fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0 || fstat(fd, &st)) {
    if (fd >= 0) close(fd);
    return args_bad("--baseline", dir, "no readable results.csv in that run folder");
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return args_bad("--baseline", dir, "its results.csv is not a regular file");
  }
  size_t len = 0;
  ssize_t n;
  while (len < sizeof(head) - 1 &&
         ((n = read(fd, head + len, sizeof(head) - 1 - len)) > 0 || (n < 0 && errno == EINTR)))
    len += n > 0 ? (size_t)n : 0;
  close(fd);
  head[len] = 0;
  char *nl = memchr(head, '\n', len);
  const char *why = NULL;
  char miss[160] = "";
  if (!len) why = "its results.csv is empty";
  else if ((size_t)((nl ? nl : head + len) - head) >= INPUT_MAX_LINE) {
    snprintf(miss, sizeof(miss), "its results.csv's first line is longer than %d bytes",
             INPUT_MAX_LINE - 1);
    why = miss;
  } else {
    if (nl) *nl = 0;
    head[strcspn(head, "\r")] = 0;
    static const char need[] = "run_id,gpu,n_gpus,source,algorithm,transport,pipeline,dtype,"
        "bytes,straggler_rank,delay_us,degraded_rank,factor,time_us_median,time_us_stdev,status";
    for (const char *p = need; *p && !miss[0];) { /* each by name: columns may move */
      size_t k = strcspn(p, ",");
      int found = 0;
      for (const char *q = head; *q && !found;) {
        size_t m = strcspn(q, ",");
        found = m == k && !strncmp(p, q, k);
        q += m + (q[m] == ',');
      }
      if (!found)
        snprintf(miss, sizeof(miss), "its results.csv header lacks the column %.*s", (int)k, p);
      p += k + (p[k] == ',');
    }
    if (miss[0]) why = miss;
    else if (!nl || nl + 1 >= head + len) why = "its results.csv has no rows";
  }
  return why ? args_bad("--baseline", dir, why) : 0;
}

/* Checks that a search has both sides among the algorithms; 0 or -1. */
static int check_critical(const struct run_opts *o) {
  int target = 0, base = 0;
  for (int a = 0; a < o->nalgos; a++) {
    int side = sweep_crit_side(o, a);
    target += side == 1;
    base += side == 0;
  }
  if (!target || !base)
    return args_bad("--find-critical", o->crit_algo->name, "needs it and at least one algorithm "
                    "that is not straggler-aware in --algo");
  return 0;
}

/* timing.mode=host runs each batch's AllReduces back to back with nothing between them:
 * what needs every iteration on its own is refused; nccl.rotate, which means something only
 * there and in graph timing, and timing.graph_upload, only in graph timing, are refused
 * elsewhere; 0 or -1. */
static int check_timing(const struct run_opts *o) {
  if (ar_setting_value(&o->settings, AR_SET_TIMING_GRAPH_UPLOAD) &&
      ar_setting_value(&o->settings, AR_SET_TIMING_MODE) != 2)
    return args_bad("--set", "timing.graph_upload=off", "needs timing.mode=graph: only a graph "
                    "is uploaded");
  int native = 0;
  for (int a = 0; a < o->nalgos; a++) native |= (o->algos[a]->flags & AR_ALGO_NATIVE) != 0;
  if (ar_setting_value(&o->settings, AR_SET_NCCL_ROTATE) && !native)
    return args_bad("--set", "nccl.rotate=on", "moves only the nccl rows, and --algo has none "
                    "(the schedules always run on the buffer's start)");
  if (!ar_setting_value(&o->settings, AR_SET_TIMING_MODE)) {
    if (!ar_setting_value(&o->settings, AR_SET_NCCL_ROTATE)) return 0;
    return args_bad("--set", "nccl.rotate=on", "needs timing.mode=host or graph: events timing "
                    "fills every AllReduce's data just before it, so the L2 cache holds it "
                    "wherever it lies");
  }
  const char *what = o->find_critical ? "--find-critical" : o->nst ? "--straggler"
                     : o->compute.kind ? "--compute"
                     : o->phases ? "--phases" : o->profile ? "--profile"
                     : o->row_budget_us > 0 ? "--row-budget"
                     : ar_setting_value(&o->settings, AR_SET_TIMING_START_SKEW)
                         ? "timing.start_skew=on" : NULL;
  if (!what) return 0;
  char why[224];
  int graph = ar_setting_value(&o->settings, AR_SET_TIMING_MODE) == 2;
  snprintf(why, sizeof(why), "%s needs every iteration timed on its own (timing.mode=events); "
           "%s timing runs AllReduces back to back with nothing between them", what,
           graph ? "graph" : "host");
  return args_bad("--set", graph ? "timing.mode=graph" : "timing.mode=host", why);
}

int run_opts_parse(int argc, char **argv, struct run_opts *o) {
  static const struct run_words none = {.where = ""};
  return run_opts_parse_words(argc, argv, o, &none);
}

int run_opts_parse_words(int argc, char **argv, struct run_opts *o, const struct run_words *src) {
  const char *parse_where = src->where;
  static const struct option opts[] = {
      {"minbytes", required_argument, 0, 'b'},   {"maxbytes", required_argument, 0, 'e'},
      {"stepfactor", required_argument, 0, 'f'}, {"stepbytes", required_argument, 0, 'i'},
      {"sizes", required_argument, 0, O_SIZES},  {"algo", required_argument, 0, O_ALGO},
      {"transport", required_argument, 0, O_TRANSPORT},
      {"gpus", required_argument, 0, O_GPUS},    {"ranks", required_argument, 0, O_RANKS},
      {"ranks-per-process", required_argument, 0, O_PER_PROC},
      {"iters", required_argument, 0, 'n'},
      {"warmup", required_argument, 0, 'w'},     {"timeout", required_argument, 0, 'T'},
      {"row-budget", required_argument, 0, O_ROW_BUDGET},
      {"out", required_argument, 0, 'o'},        {"dtype", required_argument, 0, 'd'},
      {"pipeline", required_argument, 0, O_PIPELINE},
      {"check", required_argument, 0, 'c'},      {"straggler", required_argument, 0, O_STRAGGLER},
      {"torus", required_argument, 0, O_TORUS},  {"help", no_argument, 0, 'h'},
      {"degrade", required_argument, 0, O_DEGRADE},
      {"find-critical", optional_argument, 0, O_FIND_CRITICAL},
      {"critical-max", required_argument, 0, O_CRIT_MAX},
      {"critical-algo", required_argument, 0, O_CRIT_ALGO},
      {"dry-run", no_argument, 0, O_DRY_RUN},   {"baseline", required_argument, 0, O_BASELINE},
      {"self-test", required_argument, 0, O_SELF_TEST},
      {"config", required_argument, 0, O_CONFIG}, {"scenario", required_argument, 0, O_SCENARIO},
      {"phases", no_argument, 0, O_PHASES},
      {"segments", required_argument, 0, O_SEGMENTS},
      {"profile", required_argument, 0, O_PROFILE},
      {"set", required_argument, 0, O_SET},
      {"force", no_argument, 0, O_FORCE},
      {"compute", required_argument, 0, O_COMPUTE},
      {0, 0, 0, 0}};
  memset(o, 0, sizeof(*o));
  o->min_bytes = 1024;
  o->max_bytes = 8ull << 30;
  o->factor = 2;
  o->iters = 20;
  o->warmup = 5;
  o->timeout_s = 120;
  o->dtype = AR_DT_F32;
  o->pipeline = 1;
  o->check = 1;
  o->crit_max_us = CRIT_DEFAULT_MAX_US;
  o->crit_algo = ar_algo_find("stragglar");
  int explicit_sizes = 0;
  const char *min_text = "1K", *step_text = "", *crit_list = NULL, *gpus_text = "", *ranks_text = "";
  const char *budget_text = "", *max_text = "8G", *sizes_text = "", *compute_text = "";
  char why[256];
  if (parse_algos("all", o) || parse_transports(ar_transport_at(AR_TP_NCCL_P2P)->name, o))
    return -1;
  optind = 0; /* 0, not 1: a full restart of getopt (argv differs from the last call) */
  opterr = 0;
  static struct once seen; /* large: keep it off the stack */
  memset(&seen, 0, sizeof(seen));
  for (int c; (c = getopt_long(argc, argv, ":b:e:f:i:n:w:T:o:d:c:h", opts, NULL)) != -1;) {
    if (c != ':' && c != '?' && check_same_line(src, argv)) return -1;
    if (c != ':' && c != '?' && c != 'h' && check_once(&seen, c, opts, src, argv)) return -1;
    switch (c) {
    case 'b':
      if (args_parse_size("-b", optarg, &o->min_bytes)) return -1;
      min_text = optarg;
      break;
    case 'e':
      if (args_parse_size("-e", optarg, &o->max_bytes)) return -1;
      max_text = optarg;
      break;
    case 'f': if (args_parse_int("-f", optarg, 2, 1 << 20, &o->factor)) return -1; break;
    case 'i':
      if (args_parse_size("-i", optarg, &o->step_bytes)) return -1;
      step_text = optarg;
      break;
    case O_SIZES:
      if ((o->nsizes = args_parse_sizes("--sizes", optarg, o->sizes, HX_MAX_SIZES)) < 0) return -1;
      explicit_sizes = 1;
      sizes_text = optarg;
      break;
    case O_ALGO: if (parse_algos(optarg, o)) return -1; break;
    case O_TRANSPORT: if (parse_transports(optarg, o)) return -1; break;
    case O_GPUS:
      if (parse_gpus(optarg, o)) return -1;
      gpus_text = optarg;
      break;
    case O_RANKS:
      if (args_parse_int("--ranks", optarg, 2, HX_MAX_DEVS, &o->nranks)) return -1;
      ranks_text = optarg;
      break;
    case O_PER_PROC:
      if (args_parse_int("--ranks-per-process", optarg, 1, HX_MAX_DEVS, &o->per_proc)) return -1;
      break;
    case 'n': if (args_parse_int("-n", optarg, 1, 100000, &o->iters)) return -1; break;
    case 'w': if (args_parse_int("-w", optarg, 0, 1000000, &o->warmup)) return -1; break;
    case O_ROW_BUDGET:
      if (args_parse_time_us("--row-budget", optarg, &o->row_budget_us)) return -1;
      budget_text = optarg;
      break;
    case 'T': if (args_parse_int("-T", optarg, 1, 7 * 24 * 3600, &o->timeout_s)) return -1; break;
    case 'o':
      if (!*optarg || strlen(optarg) >= sizeof(o->out) - 64)
        return args_bad("--out", optarg, "empty or too long");
      snprintf(o->out, sizeof(o->out), "%s", optarg);
      break;
    case 'd':
      if (!strcmp(optarg, "float32") || !strcmp(optarg, "float") || !strcmp(optarg, "f32"))
        o->dtype = AR_DT_F32;
      else if (!strcmp(optarg, "bf16") || !strcmp(optarg, "bfloat16"))
        o->dtype = AR_DT_BF16;
      else if (!strcmp(optarg, "fp16") || !strcmp(optarg, "half") || !strcmp(optarg, "float16"))
        o->dtype = AR_DT_F16;
      else
        return args_bad("--dtype", optarg, "use float32, bf16 or fp16");
      break;
    case O_PIPELINE: if (args_parse_int("--pipeline", optarg, 0, 1024, &o->pipeline)) return -1; break;
    case 'c': if (args_parse_int("--check", optarg, 0, 1, &o->check)) return -1; break;
    case O_STRAGGLER: /* repeated flags add up, as --degrade */
      if (args_add_stragglers("--straggler", optarg, 1, o->st, &o->nst)) return -1;
      break;
    case O_TORUS:
      if (args_parse_torus("--torus", optarg, &o->torus_ndims, o->torus)) return -1;
      snprintf(o->torus_text, sizeof(o->torus_text), "%s", optarg);
      break;
    case O_DEGRADE: /* repeated flags add up (a rank named twice is refused), as in model */
      if (args_add_degrade("--degrade", optarg, &o->dg)) return -1;
      break;
    case O_FIND_CRITICAL:
      o->find_critical = 1;
      crit_list = optarg;
      /* an optional value may also be the next word: `--find-critical 1G,4G` */
      if (!crit_list && optind < argc && argv[optind][0] && argv[optind][0] != '-' &&
          src_line(src, argv[optind - 1]) == src_line(src, argv[optind]))
        crit_list = argv[optind++];
      break;
    case O_CRIT_MAX:
      if (args_parse_time_us("--critical-max", optarg, &o->crit_max_us)) return -1;
      if (o->crit_max_us < CRIT_STEP_US || o->crit_max_us > 10e6)
        return args_bad("--critical-max", optarg, "must be between 100us and 10s");
      break;
    case O_CRIT_ALGO:
      if (!(o->crit_algo = args_find_algo("--critical-algo", optarg))) return -1;
      if (!(o->crit_algo->flags & AR_ALGO_STRAGGLER_AWARE))
        return args_bad("--critical-algo", optarg, "not a straggler-aware algorithm");
      break;
    case O_DRY_RUN: o->dry_run = 1; break;
    case O_FORCE: o->force = 1; break;
    case O_PHASES: o->phases = 1; break;
    case O_PROFILE:
      if (parse_profile(optarg, &o->profile)) return -1;
      break;
    case O_BASELINE:
      if (check_baseline(optarg)) return -1;
      snprintf(o->baseline, sizeof(o->baseline), "%s", optarg);
      break;
    case O_SET:
      if (ar_settings_parse(&o->settings, optarg, NULL))
        return -1;
      break;
    case O_COMPUTE:
      if (ar_compute_parse(optarg, &o->compute, why, sizeof(why)))
        return args_bad("--compute", optarg, why);
      compute_text = optarg;
      break;
    case O_SEGMENTS: if (args_parse_int("--segments", optarg, 1, 4096, &o->segments)) return -1; break;
    case O_SELF_TEST:
      if (strcmp(optarg, "delay") && strcmp(optarg, "degrade"))
        return args_bad("--self-test", optarg, "known: delay, degrade");
      snprintf(o->self_test, sizeof(o->self_test), "%s", optarg);
      break;
    case O_CONFIG:
    case O_SCENARIO:
      fprintf(stderr, "arbench: run: '%s' belongs on the command line, not in a config%s\n",
              c == O_CONFIG ? "--config" : "--scenario", parse_where);
      return -1;
    case 'h': run_opts_usage(); return 1;
    case ':':
      if (src_line(src, argv[optind - 1]))
        fprintf(stderr, "arbench: --config: %s:%d: '%s' needs a value\n", src->file,
                src_line(src, argv[optind - 1]), argv[optind - 1]);
      else
        fprintf(stderr, "arbench: %s: needs a value%s\n", argv[optind - 1], parse_where);
      return -1;
    default: {
      const char *bad = argv[optind - 1];
      fprintf(stderr, "arbench: run: unknown option '%s'%s (see arbench run --help)\n", bad,
              parse_where);
      return -1;
    }
    }
  }
  if (optind < argc) {
    fprintf(stderr, "arbench: run: unexpected argument '%s'%s (see arbench run --help)\n",
            argv[optind], parse_where);
    return -1;
  }
  if (check_placement(o, gpus_text, ranks_text) || check_timing(o)) return -1;
  if (o->row_budget_us > 0 && o->warmup < 2) /* the first iteration may pay one-time costs */
    return args_bad("--row-budget", budget_text, "needs -w 2 or more: the last warm-up "
                    "iteration sets the pace, and a row's first may pay one-time costs");
  struct msg_size crit[HX_MAX_SIZES]; /* the search's sizes, which replace the sweep's */
  int ncrit = 0;
  if (o->find_critical && ((ncrit = parse_critical_sizes(crit_list, crit)) < 0 || check_critical(o)))
    return -1;
  if (o->find_critical && o->compute.kind) /* its probes compare AllReduces alone */
    return args_bad("--compute", compute_text, "not with --find-critical: the search times the "
                    "AllReduce alone");
  /* CUPTI records a row whole, its three lanes together: their records go to the timeline
   * (the load on a stream of its own), but no overlap figure can be made of them */
  if (o->profile == HX_PROFILE_OVERLAP && o->compute.kind)
    return args_bad("--compute", compute_text, "not with --profile overlap: its figures would "
                    "mix a row's three lanes (--profile timeline records them side by side)");
  if (!explicit_sizes && !o->find_critical) {
    if (o->min_bytes > o->max_bytes) return args_bad("-b", min_text, "larger than -e");
    o->nsizes = sweep_sizes(o->min_bytes, o->max_bytes, o->factor, o->step_bytes, o->sizes,
                            HX_MAX_SIZES);
    if (o->nsizes < 0) return args_bad("-i", step_text, "more than 1024 sizes between -b and -e");
  }
  const char *const texts[4] = {min_text, max_text, step_text, sizes_text};
  if (resolve_sizes(o, texts, crit, ncrit, crit_list)) return -1;
  for (int k = 0; k < o->nst; k++)
    if (o->st[k].file[0] && args_load_delays(o->st[k].file, &o->delays[k], &o->ndelays[k])) return -1;
  return 0;
}

void run_opts_free(struct run_opts *o) {
  for (int k = 0; k < AR_MAX_STRAGGLERS; k++) {
    free(o->delays[k]);
    o->delays[k] = NULL;
  }
}

int run_opts_check_ranks(const struct run_opts *o, int n) {
  return args_check_ranks(n, o->st, o->nst, &o->dg, o->torus_ndims, o->torus, o->torus_text);
}

void run_opts_settle(struct run_opts *o, int n) {
  if (o->find_critical && o->nst == 0) {
    memset(&o->st[0], 0, sizeof(o->st[0]));
    o->st[0].rank = n - 1;
    o->nst = 1;
  }
}
