/* `arbench model`: prices generated schedules with the alpha-beta(-gamma) link-contention
 * model of src/model.c, for one case (key: value lines), a sweep (a table, and --csv rows with
 * source=model), or a GPU run folder (--calibrate: fit alpha and beta per transport, then
 * price every measured row beside its measurement). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "csv.h"
#include "model.h"

#define MAX_LIST 64
#define MAX_FITS 64 /* a pooled fit per transport, and one per (transport, algorithm) */
#define DEFAULT_ALPHA_US 3.0 /* stragglar.txt s4.2: NVLink latency studies */
#define DEFAULT_BW 450e9     /* stragglar.txt s4.2: H100 SXM NVLink, one direction */

/* One scenario to price: everything but the size. */
struct scenario {
  const struct ar_algo *algo;
  int n;
  int straggler; /* -1: none */
  double delay_us;
  struct degrade_spec dg;
};

/* One fitted (or given) hardware setting, the transport it stands for, and the algorithm it
 * was fitted on (NULL: pooled over every algorithm measured on that transport). */
struct fit {
  char transport[32];
  const struct ar_algo *algo;
  struct model_hw hw;
  int rows;
  double rel_rms;
  int ok;
};

struct options {
  const struct ar_algo *algos[MAX_LIST];
  int nalgos;
  int ranks[MAX_LIST], nranks;
  uint64_t sizes[MAX_LIST * 2];
  int nsizes;
  uint64_t bmin, bmax;
  int bfactor;
  const char *bmin_text, *bmax_text, *bfactor_text; /* the user's words, for messages */
  struct model_hw hw;
  int topology;
  struct straggler_spec st[AR_MAX_STRAGGLERS];
  int nst;
  struct degrade_spec dg;
  int tdims, torus[AR_MAX_TORUS_DIMS];
  const char *torus_text;
  int segments;
  const char *csv, *calibrate;
};

struct out {
  struct hx_csv csv;
  char run_id[64], stamp[32], host[64];
  int table_header, write_failed;
};

/* ---- parsing ---- */

/* Splits a comma list into items (at most max); returns the count or -1 after a message. */
static int split_list(const char *flag, const char *s, char items[][64], int max) {
  int k = 0;
  const char *p = s;
  while (1) {
    const char *c = strchr(p, ',');
    size_t len = c ? (size_t)(c - p) : strlen(p);
    if (!len) return args_bad(flag, s, "empty item in the list");
    if (len >= 64) return args_bad(flag, s, "item too long");
    if (k == max) return args_bad(flag, s, "too many items");
    memcpy(items[k], p, len);
    items[k++][len] = 0;
    if (!c) break;
    p = c + 1;
  }
  return k;
}

/* Parses --algo LIST|all into o; returns 0 or -1. */
static int parse_algos(const char *s, struct options *o) {
  if (!strcmp(s, "all")) {
    size_t n;
    const struct ar_algo *const *all = ar_algo_all(&n);
    o->nalgos = 0;
    for (size_t i = 0; i < n && o->nalgos < MAX_LIST; i++)
      if (!(all[i]->flags & AR_ALGO_NATIVE)) o->algos[o->nalgos++] = all[i];
    return 0;
  }
  char items[MAX_LIST][64];
  int k = split_list("--algo", s, items, MAX_LIST);
  if (k < 0) return -1;
  for (int i = 0; i < k; i++)
    if (!(o->algos[i] = args_find_algo("--algo", items[i]))) return -1;
  o->nalgos = k;
  return 0;
}

/* Parses --ranks N[,M...]; returns 0 or -1. */
static int parse_ranks(const char *s, struct options *o) {
  char items[MAX_LIST][64];
  int k = split_list("--ranks", s, items, MAX_LIST);
  if (k < 0) return -1;
  for (int i = 0; i < k; i++)
    if (args_parse_int("--ranks", items[i], 2, AR_MAX_RANKS, &o->ranks[i])) return -1;
  o->nranks = k;
  return 0;
}

/* Parses --bytes S[,S...]; returns 0 or -1. */
static int parse_sizes(const char *s, struct options *o) {
  char items[MAX_LIST][64];
  int k = split_list("--bytes", s, items, MAX_LIST);
  if (k < 0) return -1;
  for (int i = 0; i < k; i++)
    if (args_parse_size("--bytes", items[i], &o->sizes[i])) return -1;
  o->nsizes = k;
  return 0;
}

/* Parses a bandwidth flag into seconds-per-byte form (us per byte); returns 0 or -1. */
static int parse_bw_flag(const char *flag, const char *s, double *us_per_byte) {
  double bps;
  const char *why;
  if (model_parse_bw(s, &bps, &why)) return args_bad(flag, s, why);
  *us_per_byte = 1e6 / bps;
  return 0;
}

/* The delay a straggler spec stands for: fixed, a range's midpoint, or a file's mean (the
 * file was read by parse_options into delay_lo_us = delay_hi_us). */
static double spec_delay_us(const struct straggler_spec *sp) {
  return (sp->delay_lo_us + sp->delay_hi_us) / 2;
}

static void usage(FILE *f) {
  fputs("usage: arbench model --algo A[,B..]|all --ranks N[,M..] --bytes S[,S..] | -b MIN -e MAX"
        " [-f F]\n"
        "         [--alpha 3us] [--bw 450GB/s] [--gamma RATE] [--hop-latency T]\n"
        "         [--straggler R:D] [--degrade R:F] [--torus AxB] [--topology switch|torus]\n"
        "         [--segments K] [--csv FILE] [--calibrate RUN_DIR]\n"
        "  prices each schedule: per round alpha + hops x hop-latency + the most loaded link's\n"
        "  bytes / bw (a degraded GPU's links F times slower) + reduced bytes / gamma.\n"
        "  One case prints `model_time_us: X` (and with a straggler\n"
        "  `model_time_after_arrival_us: Y`); a sweep prints a table; --csv writes rows with\n"
        "  source=model. --calibrate fits alpha and bw per transport from RUN_DIR/results.csv\n"
        "  and, without --algo, prices every measured row beside its measurement.\n",
        f);
}

/* Parses argv into o; returns -1 to exit 0 (help), 0 when valid, else EXIT_BAD_INPUT. */
static int parse_options(int argc, char **argv, struct options *o) {
  static const struct option opts[] = {{"algo", required_argument, 0, 'a'},
                                       {"ranks", required_argument, 0, 'r'},
                                       {"bytes", required_argument, 0, 'S'},
                                       {"alpha", required_argument, 0, 'A'},
                                       {"bw", required_argument, 0, 'W'},
                                       {"gamma", required_argument, 0, 'G'},
                                       {"hop-latency", required_argument, 0, 'H'},
                                       {"straggler", required_argument, 0, 's'},
                                       {"degrade", required_argument, 0, 'd'},
                                       {"torus", required_argument, 0, 't'},
                                       {"topology", required_argument, 0, 'T'},
                                       {"segments", required_argument, 0, 'k'},
                                       {"csv", required_argument, 0, 'c'},
                                       {"calibrate", required_argument, 0, 'C'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  memset(o, 0, sizeof(*o));
  o->hw.alpha_us = DEFAULT_ALPHA_US;
  o->hw.beta = 1e6 / DEFAULT_BW;
  o->torus_text = "";
  o->bfactor = 2;
  optind = 1;
  opterr = 0;
  for (int c; (c = getopt_long(argc, argv, ":hb:e:f:", opts, NULL)) != -1;) {
    int bad = 0;
    switch (c) {
    case 'a': bad = parse_algos(optarg, o); break;
    case 'r': bad = parse_ranks(optarg, o); break;
    case 'S': bad = parse_sizes(optarg, o); break;
    case 'b': bad = args_parse_size("-b", o->bmin_text = optarg, &o->bmin); break;
    case 'e': bad = args_parse_size("-e", o->bmax_text = optarg, &o->bmax); break;
    case 'f': bad = args_parse_int("-f", o->bfactor_text = optarg, 2, 1024, &o->bfactor); break;
    case 'A': bad = args_parse_time_us("--alpha", optarg, &o->hw.alpha_us); break;
    case 'H': bad = args_parse_time_us("--hop-latency", optarg, &o->hw.hop_us); break;
    case 'W': bad = parse_bw_flag("--bw", optarg, &o->hw.beta); break;
    case 'G': bad = parse_bw_flag("--gamma", optarg, &o->hw.gamma); break;
    case 's': bad = args_parse_stragglers("--straggler", optarg, 1, o->st, &o->nst); break;
    case 'd': bad = args_parse_degrade("--degrade", optarg, &o->dg); break;
    case 't':
      o->torus_text = optarg;
      bad = args_parse_torus("--torus", optarg, &o->tdims, o->torus);
      break;
    case 'T':
      if (strcmp(optarg, "switch") && strcmp(optarg, "torus"))
        bad = args_bad("--topology", optarg, "use switch or torus");
      o->topology = !strcmp(optarg, "torus") ? MODEL_TORUS : MODEL_SWITCH;
      break;
    case 'k': bad = args_parse_int("--segments", optarg, 1, 4096, &o->segments); break;
    case 'c': o->csv = optarg; break;
    case 'C': o->calibrate = optarg; break;
    case 'h': usage(stdout); return -1;
    case ':':
      fprintf(stderr, "arbench: %s: needs a value\n", argv[optind - 1]);
      return EXIT_BAD_INPUT;
    default:
      fprintf(stderr, "arbench: model: unknown option '%s'\n", argv[optind - 1]);
      return EXIT_BAD_INPUT;
    }
    if (bad) return EXIT_BAD_INPUT;
  }
  if (optind < argc) {
    fprintf(stderr, "arbench: model: unexpected argument '%s'\n", argv[optind]);
    return EXIT_BAD_INPUT;
  }
  if (o->bmin || o->bmax) {
    const char *flag = o->bmin ? "-b" : "-e", *text = o->bmin ? o->bmin_text : o->bmax_text;
    if (o->nsizes) return args_bad(flag, text, "give --bytes or -b/-e, not both"), EXIT_BAD_INPUT;
    if (!o->bmin || !o->bmax) return args_bad(flag, text, "-b and -e go together"), EXIT_BAD_INPUT;
    if (o->bmax < o->bmin) return args_bad("-e", o->bmax_text, "smaller than -b"), EXIT_BAD_INPUT;
    for (uint64_t b = o->bmin; b <= o->bmax; b *= (uint64_t)o->bfactor) {
      if (o->nsizes == (int)(sizeof(o->sizes) / sizeof(o->sizes[0])))
        return args_bad("-f", o->bfactor_text ? o->bfactor_text : "2",
                        "too many sizes between -b and -e (at most 128)"), EXIT_BAD_INPUT;
      o->sizes[o->nsizes++] = b;
    }
  }
  if (!o->calibrate || o->nalgos) { /* without --calibrate (or with --algo) a sweep is named */
    if (!o->nalgos) return args_bad("--algo", "", "required (see arbench --list)"), EXIT_BAD_INPUT;
    if (!o->nranks) return args_bad("--ranks", "", "required"), EXIT_BAD_INPUT;
    if (!o->nsizes) return args_bad("--bytes", "", "required (or -b MIN -e MAX)"), EXIT_BAD_INPUT;
  }
  for (int k = 0; k < o->nst; k++) { /* a delay file: its mean, read as the harness reads it */
    double *d, sum = 0;
    int nd;
    if (!o->st[k].file[0]) continue;
    if (args_load_delays(o->st[k].file, &d, &nd)) return EXIT_BAD_INPUT;
    for (int i = 0; i < nd; i++) sum += d[i];
    free(d);
    o->st[k].delay_lo_us = o->st[k].delay_hi_us = sum / nd;
  }
  for (int i = 0; i < o->nranks; i++)
    if (args_check_ranks(o->ranks[i], o->st, o->nst, &o->dg, o->tdims, o->torus, o->torus_text))
      return EXIT_BAD_INPUT;
  return 0;
}

/* ---- pricing one scenario ---- */

/* Fills generator parameters for a scenario. */
static void scenario_params(const struct scenario *sc, const struct options *o,
                            struct ar_params *p) {
  args_fill_params(p, sc->n, NULL, 0, &sc->dg, o->tdims, o->torus);
  p->straggler = sc->straggler;
  p->segments = o->segments;
}

/* Builds and prices a scenario's schedule on the chosen topology. Returns AR_OK, or the
 * build's status with the reason in `reason`. */
static ar_status price_scenario(const struct scenario *sc, const struct options *o,
                                struct model_price *pr, char *reason, size_t rlen,
                                double *congestion) {
  struct ar_params p;
  struct ar_schedule s;
  struct model_net net;
  scenario_params(sc, o, &p);
  ar_status st = ar_build(sc->algo, &p, &s);
  if (st != AR_OK) {
    snprintf(reason, rlen, "%s", s.reason);
    return st;
  }
  if ((st = model_net_init(&net, o->topology, &p)) == AR_OK)
    st = model_price_schedule(&s, &net, pr);
  if (st != AR_OK) snprintf(reason, rlen, "pricing failed: %s", ar_status_str(st));
  double ideal = pr->pre.load_ideal + pr->main.load_ideal;
  *congestion = ideal > 0 ? (pr->pre.load + pr->main.load) / ideal : 1;
  sched_free(&s);
  return st;
}

/* The papers' closed form for this case where there is one (switch, healthy), else -1;
 * *after says whether it is an after-arrival time (straggler-aware algorithms). */
static double closed_form(const struct scenario *sc, const struct options *o,
                          const struct model_hw *hw, double bytes, int *after) {
  const char *a = sc->algo->name;
  *after = 0;
  if (o->topology != MODEL_SWITCH || sc->dg.n || hw->gamma > 0) return -1;
  if (!strcmp(a, "ring") || !strcmp(a, "async-ring")) return model_closed_ring(sc->n, hw, bytes);
  if (!strcmp(a, "rhd")) return model_closed_rhd(sc->n, hw, bytes);
  if (!strcmp(a, "rd")) return model_closed_rd(sc->n, hw, bytes);
  *after = 1;
  if (!strcmp(a, "stragglar")) return model_closed_stragglar(sc->n, hw, bytes);
  if (!strcmp(a, "bcast")) return model_closed_bcast(sc->n, hw, bytes);
  return -1;
}

/* ---- output ---- */

/* Writes one CSV row through the harness's writer (status ok when t != NULL, else n/a). */
static void csv_row_named(struct out *out, const struct scenario *sc, const char *algorithm,
                          const char *transport, double bytes, const struct model_times *t) {
  if (!out->csv.f) return;
  struct hx_csv_row r = {.run_id = out->run_id,
                         .timestamp = out->stamp,
                         .host = out->host,
                         .gpu = "model",
                         .n_gpus = sc->n,
                         .driver = "-",
                         .cuda = "-",
                         .nccl = "-",
                         .source = "model",
                         .algorithm = algorithm,
                         .transport = transport,
                         .pipeline = 0,
                         .dtype = "float32",
                         .bytes = (uint64_t)bytes,
                         .straggler_rank = sc->straggler,
                         .delay_us = sc->straggler >= 0 ? sc->delay_us : 0,
                         .iters = 0,
                         .degraded_rank = sc->dg.n ? sc->dg.rank[0] : -1,
                         .factor = sc->dg.n ? sc->dg.factor[0] : 1,
                         .time_after_arrival_us = NAN,
                         .algbw_gbps = NAN,
                         .busbw_gbps = NAN,
                         .model_time_us = NAN,
                         .wrong = -1,
                         .status = t ? "ok" : "n/a"};
  if (t) { /* one predicted value stands for every statistic */
    r.t = (struct hx_stats){.n = 1,
                            .mean = t->time_us,
                            .median = t->time_us,
                            .min = t->time_us,
                            .max = t->time_us,
                            .p95 = t->time_us,
                            .stdev = 0};
    r.time_after_arrival_us = t->after_arrival_us;
    r.algbw_gbps = hx_algbw(bytes, t->time_us);
    r.busbw_gbps = hx_busbw(r.algbw_gbps, sc->n);
    r.model_time_us = t->time_us;
    r.wrong = 0;
  }
  if (hx_csv_append(&out->csv, &r)) out->write_failed = 1;
}

/* Writes one CSV row for the scenario's algorithm. */
static void csv_row(struct out *out, const struct scenario *sc, const char *transport, double bytes,
                    const struct model_times *t) {
  csv_row_named(out, sc, sc->algo->name, transport, bytes, t);
}

/* The degraded-bandwidth lower bound for a scenario with degraded GPUs, else -1. */
static double scenario_bound(const struct scenario *sc, const struct model_hw *hw, double bytes) {
  return sc->dg.n ? model_degraded_bound_us(sc->n, sc->dg.n, sc->dg.factor, hw, bytes) : -1;
}

/* Prints the key: value block of a single case. */
static void print_single(const struct scenario *sc, const struct options *o,
                         const struct model_hw *hw, double bytes, const struct model_price *pr,
                         const struct model_times *t, double congestion) {
  int after;
  double cf = closed_form(sc, o, hw, bytes, &after);
  printf("algorithm: %s\nranks: %d\nbytes: %.0f\n", sc->algo->name, sc->n, bytes);
  if (o->topology == MODEL_TORUS) {
    struct ar_params p;
    struct model_net net;
    scenario_params(sc, o, &p);
    model_net_init(&net, MODEL_TORUS, &p);
    printf("topology: torus ");
    for (int d = 0; d < net.ndims; d++)
      printf(d ? "x%d" : "%d", net.dims[d]);
    printf("\n");
  } else {
    printf("topology: switch\n");
  }
  printf("alpha_us: %g\nbw_GBps: %g\n", hw->alpha_us, 1e6 / hw->beta / 1e9);
  if (hw->hop_us > 0) printf("hop_latency_us: %g\n", hw->hop_us);
  if (hw->gamma > 0) printf("gamma_GBps: %g\n", 1e6 / hw->gamma / 1e9);
  printf("rounds: %d\nprecondition_rounds: %d\n", pr->main.rounds, pr->pre.rounds);
  if (pr->pre.rounds) printf("precondition_us: %.3f\n", t->pre_us);
  if (sc->straggler >= 0) printf("delay_us: %.3f\n", sc->delay_us);
  printf("model_time_us: %.3f\n", t->time_us);
  if (sc->straggler >= 0) printf("model_time_after_arrival_us: %.3f\n", t->after_arrival_us);
  if (cf >= 0) printf("%s: %.3f\n", after ? "closed_form_after_arrival_us" : "closed_form_us", cf);
  double lb = scenario_bound(sc, hw, bytes);
  if (lb >= 0) printf("lower_bound_us: %.3f\n", lb); /* optcc.txt Theorems 6 and 2 */
  if (o->topology == MODEL_TORUS) printf("congestion_deficiency: %.4f\n", congestion);
  printf("algbw_GBps: %.3f\n", bytes / (t->time_us * 1e3));
}

/* Prints one table line of a sweep (t == NULL: n/a with reason). */
static void print_row(struct out *out, const struct scenario *sc, const char *transport,
                      double bytes, const struct model_times *t, const char *reason,
                      double measured_us) {
  if (!out->table_header) {
    printf("%-12s %6s %12s %-10s %14s %14s %10s%s\n", "# algorithm", "ranks", "bytes", "transport",
           "model_us", "after_arr_us", "algbw_GBps",
           measured_us >= 0 ? "    measured_us  model/meas" : "");
    out->table_header = 1;
  }
  printf("%-12s %6d %12.0f %-10s ", sc->algo->name, sc->n, bytes, transport);
  if (!t) {
    printf("n/a: %s\n", reason);
    return;
  }
  printf("%14.3f %14.3f %10.3f", t->time_us, t->after_arrival_us, bytes / (t->time_us * 1e3));
  if (measured_us > 0) printf(" %14.3f %11.4f", measured_us, t->time_us / measured_us);
  printf("\n");
}

/* ---- calibration ---- */

#define CALIBRATE_MIN_ROWS 3

/* A measured row of results.csv that the model can price. */
struct mrow {
  struct scenario sc;
  char transport[32];
  double bytes, time_us;
};

/* Reads one line of any length into *buf; returns its length or -1 at the end. */
static long read_line(FILE *f, char **buf, size_t *cap) {
  ssize_t len = getline(buf, cap, f);
  if (len < 0) return -1;
  while (len > 0 && ((*buf)[len - 1] == '\n' || (*buf)[len - 1] == '\r'))
    (*buf)[--len] = 0;
  return len;
}

/* Splits a CSV line in place into fields, undoing the writer's quoting ("a,b" and ""); returns
 * the field count. */
static int split_csv(char *line, char **fields, int max) {
  int k = 0;
  char *p = line;
  while (k < max) {
    char *w = p;
    fields[k++] = w;
    if (*p == '"') { /* quoted: copy down, "" stands for one quote */
      for (p++; *p; p++) {
        if (*p == '"' && p[1] == '"')
          *w++ = '"', p++;
        else if (*p == '"') {
          p++;
          break;
        } else
          *w++ = *p;
      }
      char *c = strchr(p, ',');
      *w = 0;
      if (!c) break;
      p = c + 1;
      continue;
    }
    char *c = strchr(p, ',');
    if (!c) break;
    *c = 0;
    p = c + 1;
  }
  return k;
}

/* Reads the usable gpu rows of RUN_DIR/results.csv (or the CSV file itself); returns the row
 * count, or -1 after a one-line message (bad input). */
static int read_run(const char *dir, struct mrow **rows_out) {
  char path[1024];
  size_t dl = strlen(dir);
  if (dl > 4 && !strcmp(dir + dl - 4, ".csv"))
    snprintf(path, sizeof(path), "%s", dir);
  else
    snprintf(path, sizeof(path), "%s/results.csv", dir);
  FILE *f = fopen(path, "r");
  if (!f) return args_bad("--calibrate", dir, "cannot read results.csv there");
  static const char *want[] = {"source", "algorithm",      "transport", "n_gpus",
                               "bytes",  "straggler_rank", "delay_us",  "degraded_rank",
                               "factor", "time_us_median", "status"};
  enum { W_SRC, W_ALGO, W_TP, W_N, W_BYTES, W_ST, W_DELAY, W_DG, W_F, W_MED, W_STATUS, W_COUNT };
  int col[W_COUNT];
  char *line = NULL, *fields[128];
  size_t cap = 0;
  int nrows = 0, capr = 0, ret = -1;
  struct mrow *rows = NULL;
  if (read_line(f, &line, &cap) < 0) {
    args_bad("--calibrate", path, "empty file");
    goto out;
  }
  int nf = split_csv(line, fields, 128);
  for (int w = 0; w < W_COUNT; w++) {
    col[w] = -1;
    for (int i = 0; i < nf; i++)
      if (!strcmp(fields[i], want[w])) col[w] = i;
    if (col[w] < 0) {
      char why[96];
      snprintf(why, sizeof(why), "the header lacks the column %s", want[w]);
      args_bad("--calibrate", path, why);
      goto out;
    }
  }
  while (read_line(f, &line, &cap) >= 0) {
    nf = split_csv(line, fields, 128);
    int ok = 1;
    for (int w = 0; w < W_COUNT; w++)
      ok &= col[w] < nf;
    if (!ok || strcmp(fields[col[W_SRC]], "gpu") || strcmp(fields[col[W_STATUS]], "ok")) continue;
    const struct ar_algo *a = ar_algo_find(fields[col[W_ALGO]]);
    if (!a || (a->flags & (AR_ALGO_NATIVE | AR_ALGO_PIPELINED))) continue;
    struct mrow r = {0};
    r.sc.algo = a;
    r.sc.n = atoi(fields[col[W_N]]);
    r.sc.straggler = atoi(fields[col[W_ST]]);
    r.sc.delay_us = atof(fields[col[W_DELAY]]);
    int dgr = atoi(fields[col[W_DG]]);
    if (dgr >= 0) {
      r.sc.dg.n = 1;
      r.sc.dg.rank[0] = dgr;
      r.sc.dg.factor[0] = atof(fields[col[W_F]]);
      if (r.sc.dg.factor[0] < 1) continue;
    }
    r.bytes = atof(fields[col[W_BYTES]]);
    r.time_us = atof(fields[col[W_MED]]);
    snprintf(r.transport, sizeof(r.transport), "%s", fields[col[W_TP]]);
    if (r.sc.n < 2 || r.sc.n > AR_MAX_RANKS || r.sc.straggler >= r.sc.n || dgr >= r.sc.n ||
        !(r.bytes >= 1) || !(r.time_us > 0))
      continue;
    if (nrows == capr) {
      capr = capr ? 2 * capr : 256;
      struct mrow *nr = realloc(rows, sizeof(*rows) * capr);
      if (!nr) goto out;
      rows = nr;
    }
    rows[nrows++] = r;
  }
  if (!nrows) {
    args_bad("--calibrate", path, "no usable rows (source=gpu, status=ok, a schedule algorithm)");
    goto out;
  }
  ret = nrows;
  *rows_out = rows;
  rows = NULL;
out:
  free(rows);
  free(line);
  fclose(f);
  return ret;
}

/* Schedules priced so far, so a sweep or a run folder builds each scenario once. */
struct price_cache {
  struct {
    struct scenario sc;
    struct model_price pr;
    ar_status st;
    char reason[192];
    double congestion;
  } * e;
  int n, cap;
};

/* Returns the index of sc's pricing in the cache (priced on first use), or -1 on no memory. */
static int cache_get(struct price_cache *c, const struct scenario *sc, const struct options *o) {
  for (int i = 0; i < c->n; i++) {
    const struct scenario *k = &c->e[i].sc;
    if (k->algo == sc->algo && k->n == sc->n && k->straggler == sc->straggler &&
        !memcmp(&k->dg, &sc->dg, sizeof(k->dg)))
      return i;
  }
  if (c->n == c->cap) {
    int cap = c->cap ? 2 * c->cap : 32;
    void *e = realloc(c->e, sizeof(*c->e) * cap);
    if (!e) return -1;
    c->e = e;
    c->cap = cap;
  }
  int i = c->n++;
  memset(&c->e[i], 0, sizeof(c->e[i]));
  c->e[i].sc = *sc;
  c->e[i].st = price_scenario(sc, o, &c->e[i].pr, c->e[i].reason, sizeof(c->e[i].reason),
                              &c->e[i].congestion);
  return i;
}

/* Fits alpha and beta to the healthy rows of one transport (and one algorithm, unless algo is
 * NULL); fills ft and prints one line. */
static void fit_rows(const struct mrow *rows, int nrows, const struct options *o,
                     struct price_cache *cache, const char *transport, const struct ar_algo *algo,
                     struct fit *ft) {
  memset(ft, 0, sizeof(*ft));
  snprintf(ft->transport, sizeof(ft->transport), "%s", transport);
  ft->algo = algo;
  ft->hw = o->hw;
  struct model_sample *smp = malloc(sizeof(*smp) * nrows);
  int ns = 0;
  for (int j = 0; smp && j < nrows; j++) {
    const struct mrow *r = &rows[j];
    if (strcmp(r->transport, transport) || (algo && r->sc.algo != algo) ||
        r->sc.straggler >= 0 || r->sc.dg.n)
      continue;
    /* OPTCC ran with k chosen per size, which the CSV does not let us rebuild: keep it out of
     * the pooled fit, where its many rounds would drag alpha down for every other schedule */
    if (!algo && (r->sc.algo->flags & AR_ALGO_DEGRADE_AWARE)) continue;
    int k = cache_get(cache, &r->sc, o);
    if (k < 0 || cache->e[k].st != AR_OK) continue;
    const struct model_price *pr = &cache->e[k].pr;
    smp[ns].rounds = pr->pre.rounds + pr->main.rounds;
    smp[ns].beta_bytes = r->bytes * (pr->pre.load + pr->main.load);
    smp[ns].fixed_us = (pr->pre.hops + pr->main.hops) * o->hw.hop_us +
                       r->bytes * (pr->pre.reduce + pr->main.reduce) * o->hw.gamma;
    smp[ns].time_us = r->time_us;
    ns++;
  }
  ft->rows = ns;
  /* two parameters: fewer than 3 rows fit exactly (rel_rms 0) and say nothing */
  ft->ok = smp && ns >= CALIBRATE_MIN_ROWS && !model_fit(smp, ns, &ft->hw.alpha_us, &ft->hw.beta, &ft->rel_rms);
  free(smp);
  const char *name = algo ? algo->name : "all";
  if (ft->ok)
    printf("calibration: transport=%s algorithm=%s rows=%d alpha_us=%.3f bw_GBps=%.2f "
           "rel_rms=%.4f\n",
           transport, name, ns, ft->hw.alpha_us, 1e6 / ft->hw.beta / 1e9, ft->rel_rms);
  else
    printf("calibration: transport=%s algorithm=%s rows=%d failed: too few healthy rows to fit "
           "(at least %d)\n", transport, name, ns, CALIBRATE_MIN_ROWS);
}

/* Returns 1 when fits[0..nfits) already has (transport, algo). */
static int have_fit(const struct fit *fits, int nfits, const char *transport,
                    const struct ar_algo *algo) {
  for (int j = 0; j < nfits; j++)
    if (fits[j].algo == algo && !strcmp(fits[j].transport, transport)) return 1;
  return 0;
}

/* Fits alpha and beta from the healthy rows: pooled per transport (for pricing what was not
 * measured), then per (transport, algorithm), since each schedule pays its own per-round cost
 * on a transport. Returns the number of fits. */
static int calibrate(const struct mrow *rows, int nrows, const struct options *o,
                     struct price_cache *cache, struct fit *fits) {
  int nfits = 0;
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < nrows && nfits < MAX_FITS; i++) {
      const struct ar_algo *algo = pass ? rows[i].sc.algo : NULL;
      if (have_fit(fits, nfits, rows[i].transport, algo)) continue;
      fit_rows(rows, nrows, o, cache, rows[i].transport, algo, &fits[nfits++]);
    }
  return nfits;
}

/* ---- the command ---- */

/* Fills the run id, timestamp and host that every CSV row of this command carries. */
static void out_open_ids(struct out *out) {
  hx_utc_iso(out->stamp, sizeof(out->stamp));
  snprintf(out->run_id, sizeof(out->run_id), "model-%s", out->stamp);
  if (gethostname(out->host, sizeof(out->host))) snprintf(out->host, sizeof(out->host), "-");
  out->host[sizeof(out->host) - 1] = 0;
}

/* Prices every (algorithm, n, size) of the options with hw under the transport name. Returns
 * the exit status for a single case (EXIT_NA for n/a), EXIT_OK for a sweep. */
static int sweep(const struct options *o, const struct model_hw *hw, const char *transport,
                 struct price_cache *cache, struct out *out, int single) {

  for (int a = 0; a < o->nalgos; a++)
    for (int r = 0; r < o->nranks; r++) {
      struct scenario sc = {.algo = o->algos[a], .n = o->ranks[r], .straggler = -1};
      sc.dg = o->dg;
      for (int i = 0; i < o->nst; i++) { /* the first named straggler is the schedule's */
        double d = spec_delay_us(&o->st[i]);
        if (i == 0) sc.straggler = o->st[i].rank;
        if (d > sc.delay_us) sc.delay_us = d; /* bulk-synchronous: wait for the latest */
      }
      int k = cache_get(cache, &sc, o);
      if (k < 0) return fprintf(stderr, "arbench: model: out of memory\n"), EXIT_FAIL;
      ar_status st = cache->e[k].st;
      if (st == AR_ERR_INVALID) {
        fprintf(stderr, "arbench: %s: %s\n", sc.algo->name, cache->e[k].reason);
        return EXIT_BAD_INPUT;
      }
      for (int z = 0; z < o->nsizes; z++) {
        double bytes = (double)o->sizes[z];
        struct model_times t;
        if (st != AR_OK) {
          if (single) {
            printf("n/a: %s\n", cache->e[k].reason);
            return st == AR_ERR_UNSUPPORTED ? EXIT_NA : EXIT_FAIL;
          }
          print_row(out, &sc, transport, bytes, NULL, cache->e[k].reason, -1);
          csv_row(out, &sc, transport, bytes, NULL);
          continue;
        }
        model_times(&cache->e[k].pr, hw, bytes, sc.straggler >= 0 ? sc.delay_us : 0, &t);
        if (single)
          print_single(&sc, o, hw, bytes, &cache->e[k].pr, &t, cache->e[k].congestion);
        else
          print_row(out, &sc, transport, bytes, &t, NULL, -1);
        csv_row(out, &sc, transport, bytes, &t);
      }
    }
  /* beside degraded scenarios, the bound no algorithm can beat (the plots draw it) */
  static const struct ar_algo bound_algo = {.name = "lower-bound"};
  for (int r = 0; r < o->nranks && o->dg.n; r++)
    for (int z = 0; z < o->nsizes; z++) {
      struct scenario sc = {.algo = &bound_algo, .n = o->ranks[r], .straggler = -1, .dg = o->dg};
      double bytes = (double)o->sizes[z], lb = scenario_bound(&sc, hw, bytes);
      if (lb < 0) continue;
      struct model_times t = {.main_us = lb, .time_us = lb, .after_arrival_us = lb};
      if (!single) print_row(out, &sc, transport, bytes, &t, NULL, -1);
      csv_row(out, &sc, transport, bytes, &t);
    }
  return EXIT_OK;
}

/* Prices every measured row beside its measurement, with the fit of its own algorithm on its
 * transport where there is one, else its transport's pooled fit. */
static void mirror(const struct mrow *rows, int nrows, const struct options *o,
                   const struct fit *fits, int nfits, struct price_cache *cache, struct out *out) {
  for (int i = 0; i < nrows; i++) {
    const struct mrow *r = &rows[i];
    const struct fit *ft = NULL;
    for (int j = 0; j < nfits; j++)
      if (fits[j].ok && !strcmp(fits[j].transport, r->transport) &&
          (!fits[j].algo || fits[j].algo == r->sc.algo) && (!ft || fits[j].algo))
        ft = &fits[j];
    if (!ft) continue;
    int k = cache_get(cache, &r->sc, o);
    if (k < 0) continue;
    if (cache->e[k].st != AR_OK) {
      print_row(out, &r->sc, r->transport, r->bytes, NULL, cache->e[k].reason, -1);
      csv_row(out, &r->sc, r->transport, r->bytes, NULL);
      continue;
    }
    struct model_times t;
    model_times(&cache->e[k].pr, &ft->hw, r->bytes, r->sc.straggler >= 0 ? r->sc.delay_us : 0, &t);
    print_row(out, &r->sc, r->transport, r->bytes, &t, NULL, r->time_us);
    csv_row(out, &r->sc, r->transport, r->bytes, &t);
  }
}

int cmd_model(int argc, char **argv) {
  struct options o;
  int rc = parse_options(argc, argv, &o);
  if (rc < 0) return EXIT_OK;
  if (rc) return rc;
  struct mrow *rows = NULL;
  int nrows = 0;
  if (o.calibrate && (nrows = read_run(o.calibrate, &rows)) < 0) return EXIT_BAD_INPUT;
  struct out out = {0};
  out_open_ids(&out);
  if (o.csv && hx_csv_open(&out.csv, o.csv)) {
    free(rows);
    return args_bad("--csv", o.csv, "cannot write there"), EXIT_BAD_INPUT;
  }
  struct price_cache cache = {0};
  int single = !o.calibrate && o.nalgos == 1 && o.nranks == 1 && o.nsizes == 1;
  if (!o.calibrate) {
    rc = sweep(&o, &o.hw, "model", &cache, &out, single);
  } else {
    struct fit fits[MAX_FITS];
    int nfits = calibrate(rows, nrows, &o, &cache, fits), any = 0;
    for (int j = 0; j < nfits; j++)
      any |= fits[j].ok;
    rc = EXIT_OK;
    if (!any) { /* nothing fitted: bad input, never a fit that reads as perfect */
      char why[128];
      snprintf(why, sizeof(why), "too few usable rows to fit alpha and bw (%d; at least %d "
               "healthy rows of one transport)", nrows, CALIBRATE_MIN_ROWS);
      args_bad("--calibrate", o.calibrate, why);
      rc = EXIT_BAD_INPUT;
    }
    for (int j = 0; j < nfits && o.nalgos; j++) /* a sweep of chosen algorithms: pooled fits */
      if (fits[j].ok && !fits[j].algo) sweep(&o, &fits[j].hw, fits[j].transport, &cache, &out, 0);
    if (!o.nalgos && any) mirror(rows, nrows, &o, fits, nfits, &cache, &out);
  }
  hx_csv_close(&out.csv);
  if (out.write_failed) {
    fprintf(stderr, "arbench: --csv: writing %s failed\n", o.csv);
    rc = EXIT_FAIL;
  }
  free(cache.e);
  free(rows);
  return rc;
}
