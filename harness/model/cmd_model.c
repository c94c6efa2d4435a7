/* `arbench model`: prices generated schedules with the alpha-beta(-gamma) link-contention
 * model of src/model.c, for one case (key: value lines), a sweep (a table, and --csv rows with
 * source=model), or a GPU run folder (--calibrate: fit alpha and beta per transport, then
 * price every measured row beside its measurement). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/once.h"
#include "model/model_cmd.h"

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
    items[k][len] = 0;
    for (int i = 0; i < k; i++) /* as every list: an item once */
      if (!strcmp(items[i], items[k])) return args_bad(flag, items[k], "named twice in the list");
    k++;
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
    o->all_algos = 1;
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
  for (int i = 0; i < k; i++) {
    if (args_parse_int("--ranks", items[i], 2, MODEL_MAX_RANKS, &o->ranks[i])) return -1;
    for (int j = 0; j < i; j++)
      if (o->ranks[j] == o->ranks[i]) return args_bad("--ranks", items[i], "named twice in the list");
  }
  o->nranks = k;
  return 0;
}

/* Parses --sizes S[,S...] (flag: as typed, --sizes or its alias --bytes) with every subcommand's size-list parser: the model
 * prices bytes (no dtype), so they stay plain bytes; returns 0 or -1. */
static int parse_sizes(const char *flag, const char *s, struct options *o) {
  int n = args_parse_sizes(flag, s, o->sizes, (int)(sizeof(o->sizes) / sizeof(o->sizes[0])));
  if (n < 0) return -1;
  o->nsizes = n;
  return 0;
}

/* Parses --transport LIST|all: each a transport of the run with fitted figures (src/transports.c);
 * returns 0 or -1 after a message. */
static int parse_transports(const char *s, struct options *o) {
  char items[MAX_LIST][64];
  int k = !strcmp(s, "all") ? AR_NTRANSPORTS : split_list("--transport", s, items, MAX_LIST);
  if (k < 0) return -1;
  char names[128], why[192];
  if (k > AR_NTRANSPORTS) {
    snprintf(why, sizeof(why), "at most %s", ar_transport_names(names, sizeof(names), ","));
    return args_bad("--transport", s, why);
  }
  for (int i = 0; i < k; i++) {
    const char *name = !strcmp(s, "all") ? ar_transport_at(i)->name : items[i];
    for (int j = 0; j < i; j++)
      if (!strcmp(name, o->transports[j]->name))
        return args_bad("--transport", name, "named twice");
    if (!(o->transports[i] = ar_transport_find(name))) {
      snprintf(why, sizeof(why), "use %s or all", ar_transport_names(names, sizeof(names), ", "));
      return args_bad("--transport", name, why);
    }
  }
  o->ntransports = k;
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

/* A torus shape says the topology and the rank count (docs/cli.md): fills them in, or refuses a
 * --ranks or --topology that says otherwise; returns 0 or -1 after a message. */
static int torus_implies(struct options *o) {
  long prod = 1;
  char why[96];
  for (int i = 0; i < o->tdims; i++)
    prod *= o->torus[i];
  int grid = o->topology_text && model_topology_grid(o->topology); /* the grid's shape */
  if (o->topology_text && strcmp(o->topology_text, "torus") && !grid) {
    snprintf(why, sizeof(why), "--torus %s implies the torus topology", o->torus_text);
    return args_bad("--topology", o->topology_text, why);
  }
  if (grid && o->tdims != 2) {
    snprintf(why, sizeof(why), "%s takes a 2-D shape (--torus AxB)", o->topology_text);
    return args_bad("--torus", o->torus_text, why);
  }
  if (!grid) o->topology = MODEL_TORUS;
  for (int i = 0; i < o->nranks; i++)
    if (o->ranks[i] != prod) {
      snprintf(why, sizeof(why), "--torus %s has %ld ranks", o->torus_text, prod);
      return args_bad("--ranks", o->ranks_text, why);
    }
  if (!o->nranks) {
    if (prod > MODEL_MAX_RANKS) {
      snprintf(why, sizeof(why), "%ld ranks, at most %d", prod, MODEL_MAX_RANKS);
      return args_bad("--torus", o->torus_text, why);
    }
    o->ranks[o->nranks++] = (int)prod;
  }
  return 0;
}

/* --gpus-per-node G says two tiers: fills in the topology and the local tier's defaults, or
 * refuses a --topology that says otherwise or ranks G does not divide; returns 0 or -1 after a
 * message. */
static int tiers_imply(struct options *o) {
  char why[96], val[16];
  snprintf(val, sizeof(val), "%d", o->gpus_per_node);
  if (o->topology_text && strcmp(o->topology_text, "two-tier")) {
    snprintf(why, sizeof(why), "--gpus-per-node %d implies the two-tier topology", o->gpus_per_node);
    return args_bad("--topology", o->topology_text, why);
  }
  o->topology = MODEL_TWO_TIER;
  for (int i = 0; i < o->nranks; i++)
    if (o->ranks[i] % o->gpus_per_node) {
      snprintf(why, sizeof(why), "does not divide %d ranks", o->ranks[i]);
      return args_bad("--gpus-per-node", val, why);
    }
  if (!(o->beta_local > 0)) /* optcc.txt s3: NVLink at (g-1) x the NIC's bandwidth */
    o->beta_local = o->hw.beta / (o->gpus_per_node > 2 ? o->gpus_per_node - 1 : 1);
  if (o->alpha_local_us < 0) o->alpha_local_us = o->hw.alpha_us;
  return 0;
}

/* Parses argv into o; returns -1 to exit 0 (help), 0 when valid, else EXIT_BAD_INPUT. */
static int parse_options(int argc, char **argv, struct options *o) {
  static const struct option opts[] = {{"algo", required_argument, 0, 'a'},
                                       {"ranks", required_argument, 0, 'r'},
                                       {"sizes", required_argument, 0, 'S'},
                                       {"bytes", required_argument, 0, 'B'}, /* --sizes' alias */
                                       {"alpha", required_argument, 0, 'A'},
                                       {"bw", required_argument, 0, 'W'},
                                       {"transport", required_argument, 0, 'P'},
                                       {"gamma", required_argument, 0, 'G'},
                                       {"gamma-overlap", no_argument, 0, 'O'},
                                       {"hop-latency", required_argument, 0, 'H'},
                                       {"straggler", required_argument, 0, 's'},
                                       {"degrade", required_argument, 0, 'd'},
                                       {"torus", required_argument, 0, 't'},
                                       {"topology", required_argument, 0, 'T'},
                                       {"segments", required_argument, 0, 'k'},
                                       {"gpus-per-node", required_argument, 0, 'g'},
                                       {"bw-local", required_argument, 0, 'L'},
                                       {"alpha-local", required_argument, 0, 'l'},
                                       {"csv", required_argument, 0, 'c'},
                                       {"calibrate", required_argument, 0, 'C'},
                                       {"set", required_argument, 0, 'X'},
                                       {"pricing", required_argument, 0, 'p'},
                                       {"msg-cost", required_argument, 0, 'm'},
                                       {"compute", required_argument, 0, 'K'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  memset(o, 0, sizeof(*o));
  o->hw.alpha_us = DEFAULT_ALPHA_US;
  o->hw.beta = 1e6 / DEFAULT_BW;
  o->torus_text = "";
  o->bfactor = 2;
  o->alpha_local_us = -1;
  optind = 1;
  opterr = 0;
  static struct once seen; /* a flag given twice is refused, but those that add up */
  memset(&seen, 0, sizeof(seen));
  for (int c; (c = getopt_long(argc, argv, ":hb:e:f:", opts, NULL)) != -1;) {
    int bad = c == 'X' ? once_setting(&seen, 0, optarg, "") : 0;
    if (c != ':' && c != '?' && c != 'h' && c != 's' && c != 'd' && c != 'X' &&
        once_given(&seen, c == 'B' ? 'S' : c, 0, argv, "")) /* --bytes: --sizes' alias */
      return EXIT_BAD_INPUT;
    if (bad) return EXIT_BAD_INPUT;
    switch (c) {
    case 'a': bad = parse_algos(optarg, o); break;
    case 'r':
      o->ranks_text = optarg;
      bad = parse_ranks(optarg, o);
      break;
    case 'S':
    case 'B': /* messages name the flag as typed */
      o->sizes_flag = c == 'S' ? "--sizes" : "--bytes";
      bad = parse_sizes(o->sizes_flag, optarg, o);
      break;
    case 'b': bad = args_parse_size("-b", o->bmin_text = optarg, &o->bmin); break;
    case 'e': bad = args_parse_size("-e", o->bmax_text = optarg, &o->bmax); break;
    case 'f': bad = args_parse_int("-f", o->bfactor_text = optarg, 2, 1024, &o->bfactor); break;
    case 'A':
      o->alpha_given = 1;
      bad = args_parse_time_us("--alpha", optarg, &o->hw.alpha_us);
      break;
    case 'H': bad = args_parse_time_us("--hop-latency", optarg, &o->hw.hop_us); break;
    case 'm':
      o->msg_given = 1;
      bad = args_parse_time_us("--msg-cost", optarg, &o->msg_us);
      break;
    case 'p':
      if (!strcmp(optarg, "rounds") || !strcmp(optarg, "flows"))
        o->pricing = optarg[0] == 'f' ? PRICING_FLOWS : PRICING_ROUNDS;
      else
        bad = args_bad("--pricing", optarg, "use rounds or flows");
      break;
    case 'W':
      o->bw_given = 1;
      bad = parse_bw_flag("--bw", optarg, &o->hw.beta);
      break;
    case 'P': bad = parse_transports(optarg, o); break;
    case 'G': bad = parse_bw_flag("--gamma", optarg, &o->hw.gamma); break;
    case 'O': o->hw.sums_overlap = 1; break;
    case 's': bad = args_add_stragglers("--straggler", optarg, 1, o->st, &o->nst); break;
    case 'd': bad = args_add_degrade("--degrade", optarg, &o->dg); break; /* flags add up */
    case 't':
      o->torus_text = optarg;
      bad = args_parse_torus("--torus", optarg, &o->tdims, o->torus);
      break;
    case 'T':
      if ((o->topology = model_topology_find(optarg)) < 0) {
        o->topology = MODEL_SWITCH;
        bad = args_bad("--topology", optarg,
                       "use switch, mesh, torus, two-tier, hx2mesh, hx4mesh or hyperx");
      }
      o->topology_text = optarg;
      break;
    case 'g': bad = args_parse_int("--gpus-per-node", optarg, 1, AR_MAX_RANKS, &o->gpus_per_node); break;
    case 'L': bad = parse_bw_flag("--bw-local", optarg, &o->beta_local); break;
    case 'l': bad = args_parse_time_us("--alpha-local", optarg, &o->alpha_local_us); break;
    case 'k': bad = args_parse_int("--segments", optarg, 1, 4096, &o->segments); break;
    case 'c': o->csv = optarg; break;
    case 'K': {
      char why[256];
      if (ar_compute_parse(optarg, &o->compute, why, sizeof(why)))
        bad = args_bad("--compute", optarg, why);
      break;
    }
    case 'C': o->calibrate = optarg; break;
    case 'X': bad = ar_settings_parse(&o->settings, optarg, NULL); break;
    case 'h': model_usage(stdout); return -1;
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
    if (o->nsizes) {
      char why[64];
      snprintf(why, sizeof(why), "give %s or -b/-e, not both", o->sizes_flag);
      return args_bad(flag, text, why), EXIT_BAD_INPUT;
    }
    if (!o->bmin || !o->bmax) return args_bad(flag, text, "-b and -e go together"), EXIT_BAD_INPUT;
    if (o->bmax < o->bmin) return args_bad("-e", o->bmax_text, "smaller than -b"), EXIT_BAD_INPUT;
    for (uint64_t b = o->bmin; b <= o->bmax; b *= (uint64_t)o->bfactor) {
      if (o->nsizes == (int)(sizeof(o->sizes) / sizeof(o->sizes[0])))
        return args_bad("-f", o->bfactor_text ? o->bfactor_text : "2",
                        "too many sizes between -b and -e (at most 128)"), EXIT_BAD_INPUT;
      o->sizes[o->nsizes++] = (struct msg_size){.bytes = b, .nelem = b, .esize = 1};
    }
  }
  if (o->ntransports && (o->calibrate || o->gpus_per_node)) { /* one tier, no fit of its own */
    const char *f = o->calibrate ? "--calibrate" : "--gpus-per-node";
    char why[64];
    snprintf(why, sizeof(why), "not with %s", f);
    return args_bad("--transport", o->transports[0]->name, why), EXIT_BAD_INPUT;
  }
  if (o->hw.sums_overlap && !(o->hw.gamma > 0)) /* nothing to overlap */
    return args_bad("--gamma-overlap", "", "needs --gamma RATE"), EXIT_BAD_INPUT;
  if (o->hw.sums_overlap && o->calibrate) /* the fit takes the sums as after the bytes */
    return args_bad("--gamma-overlap", "", "not with --calibrate"), EXIT_BAD_INPUT;
  if (o->tdims && torus_implies(o)) return EXIT_BAD_INPUT;
  if (o->topology == MODEL_TWO_TIER && !o->gpus_per_node)
    return args_bad("--gpus-per-node", "", "required by --topology two-tier"), EXIT_BAD_INPUT;
  if (o->gpus_per_node && (o->tdims ? args_bad("--gpus-per-node", "", "not with --torus") :
                                      tiers_imply(o)))
    return EXIT_BAD_INPUT;
  if (!o->calibrate || o->nalgos) { /* without --calibrate (or with --algo) a sweep is named */
    if (!o->nalgos) return args_bad("--algo", "", "required (see arbench --list)"), EXIT_BAD_INPUT;
    if (!o->nranks) return args_bad("--ranks", "", "required"), EXIT_BAD_INPUT;
    if (!o->nsizes) return args_bad("--sizes", "", "required (or -b MIN -e MAX)"), EXIT_BAD_INPUT;
  }
  for (int a = 0; a < o->nalgos; a++) /* the size --segments asks for: bounded */
    for (int r = 0; r < o->nranks; r++)
      if (args_check_segments(o->algos[a], o->ranks[r], o->segments)) return EXIT_BAD_INPUT;
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
  for (int i = 0; i < o->nranks && o->topology == MODEL_MESH; i++)
    if (o->ranks[i] > MODEL_MESH_MAX) {
      char why[96];
      snprintf(why, sizeof(why), "a mesh of at most %d ranks (n^2 links), got %d", MODEL_MESH_MAX,
               o->ranks[i]);
      return args_bad("--topology", o->topology_text, why), EXIT_BAD_INPUT;
    }
  for (int i = 0; i < o->nranks && model_topology_grid(o->topology); i++) {
    struct ar_params p; /* the grid's shape: 2-D, HammingMesh's boards tiling it */
    struct model_net net;
    int dims[AR_MAX_TORUS_DIMS], nd;
    char why[128];
    args_fill_params(&p, o->ranks[i], NULL, 0, NULL, o->tdims, o->torus);
    if (model_net_init(&net, o->topology, &p) == AR_OK) continue;
    nd = ar_torus_shape(&p, dims, NULL, 0);
    if (nd == 2)
      snprintf(why, sizeof(why), "its %dx%d boards do not tile %d ranks as %dx%d",
               o->topology == MODEL_HX2MESH ? 2 : 4, o->topology == MODEL_HX2MESH ? 2 : 4,
               o->ranks[i], dims[0], dims[1]);
    else
      snprintf(why, sizeof(why), "a 2-D grid, and %d ranks have no factors a x b", o->ranks[i]);
    return args_bad("--topology", o->topology_text, why), EXIT_BAD_INPUT;
  }
  return 0;
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

/* The degraded-bandwidth lower bound for a scenario with degraded GPUs, else -1: optcc.txt's
 * Theorems 6 and 2 for one GPU a NIC; on nodes of G > 1 GPUs Theorem 13, for one whole node
 * degraded at one factor (none stated for other cases). */
static double scenario_bound(const struct scenario *sc, const struct options *o,
                             const struct model_hw *hw, double bytes) {
  if (o->topology == MODEL_TWO_TIER && o->gpus_per_node > 1) {
    int g = o->gpus_per_node, node = sc->dg.n ? sc->dg.rank[0] / g : -1, whole = sc->dg.n == g;
    for (int i = 0; i < sc->dg.n && whole; i++)
      whole = sc->dg.rank[i] / g == node && sc->dg.factor[i] == sc->dg.factor[0];
    return whole ? model_degraded_servers_bound_us(sc->n / g, g, sc->dg.factor[0], hw, bytes) : -1;
  }
  return sc->dg.n ? model_degraded_bound_us(sc->n, sc->dg.n, sc->dg.factor, hw, bytes) : -1;
}

/* Prints the key: value block of a single case. */
static void print_single(const struct scenario *sc, const struct options *o,
                         const struct model_hw *hw, double msg_us, const char *transport,
                         double bytes, const struct price_cache_entry *e,
                         const struct model_times *t) {
  const struct model_price *pr = &e->pr;
  int after;
  double cf = closed_form(sc, o, hw, bytes, &after);
  printf("algorithm: %s\nranks: %d\nbytes: %.0f\n", sc->algo->name, sc->n, bytes);
  if (o->topology == MODEL_TORUS || model_topology_grid(o->topology)) {
    struct ar_params p;
    struct model_net net;
    scenario_params(sc, o, &p);
    model_net_init(&net, o->topology, &p);
    printf("topology: %s ", model_topology_name(o->topology));
    for (int d = 0; d < net.ndims; d++)
      printf(d ? "x%d" : "%d", net.dims[d]);
    if (net.board) printf(", %dx%d boards", net.board, net.board);
    printf("\n");
  } else if (o->topology == MODEL_TWO_TIER) {
    printf("topology: two-tier, %d GPUs per node, local %g GB/s, alpha_local_us %g\n",
           o->gpus_per_node, 1e6 / o->beta_local / 1e9, o->alpha_local_us);
  } else {
    printf("topology: %s\n", model_topology_name(o->topology));
  }
  if (sc->dg.n) {
    char dgt[256];
    degraded_text(&sc->dg, dgt, sizeof(dgt));
    printf("degraded: %s\n", dgt); /* every --degrade, each rank's link slowdown */
  }
  if (o->ntransports) printf("transport: %s\n", transport);
  printf("alpha_us: %g\nbw_GBps: %g\n", hw->alpha_us, 1e6 / hw->beta / 1e9);
  if (hw->hop_us > 0) printf("hop_latency_us: %g\n", hw->hop_us);
  if (hw->gamma > 0) printf("gamma_GBps: %g\n", 1e6 / hw->gamma / 1e9);
  if (hw->gamma > 0 && hw->sums_overlap) printf("sums: overlapped with the bytes\n");
  if (msg_us > 0) printf("msg_cost_us: %g\n", msg_us);
  printf("pricing: %s\n", pricing_name(o->pricing));
  if (e->flow) printf("flows: %zu\n", model_flow_xfers(e->flow));
  printf("rounds: %d\nprecondition_rounds: %d\n", pr->main.rounds, pr->pre.rounds);
  if (pr->pipelined && pr->minibatches > 0) /* sums overlap copies (async-ring) */
    printf("minibatches: %d\n", pr->minibatches);
  else if (pr->pipelined)
    printf("minibatches: auto (about 8 MiB each, at most 8; --segments K sets them)\n");
  if (pr->pre.rounds) printf("precondition_us: %.3f\n", t->pre_us);
  if (sc->straggler >= 0) printf("delay_us: %.3f\n", sc->delay_us);
  printf("model_time_us: %.3f\n", t->time_us);
  if (sc->straggler >= 0) printf("model_time_after_arrival_us: %.3f\n", t->after_arrival_us);
  if (cf >= 0) printf("%s: %.3f\n", after ? "closed_form_after_arrival_us" : "closed_form_us", cf);
  double lb = scenario_bound(sc, o, hw, bytes);
  if (lb >= 0) printf("lower_bound_us: %.3f\n", lb); /* optcc.txt Theorems 6 and 2 */
  if (o->topology == MODEL_TORUS || model_topology_grid(o->topology))
    printf("congestion_deficiency: %.4f\n", e->congestion); /* the rounds' */
  printf("algbw_GBps: %.3f\n", bytes / (t->time_us * 1e3));
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
/* Fills sc with scenario (a, r) of the options: its algorithm, ranks, straggler (the first
 * named is the schedule's; a bulk-synchronous one waits for the latest) and degraded GPUs. */
static void scenario_of(const struct options *o, int a, int r, struct scenario *sc) {
  *sc = (struct scenario){.algo = o->algos[a], .n = o->ranks[r], .straggler = -1, .dg = o->dg};
  for (int i = 0; i < o->nst; i++) {
    double d = spec_delay_us(&o->st[i]);
    if (i == 0) sc->straggler = o->st[i].rank;
    if (d > sc->delay_us) sc->delay_us = d;
  }
}

static int sweep(const struct options *o, const struct model_hw *hw, double msg_us,
                 const char *transport, struct price_cache *cache, struct out *out, int single) {
  struct scenario all[MAX_LIST * MAX_LIST];
  for (int a = 0; a < o->nalgos; a++)
    for (int r = 0; r < o->nranks; r++)
      scenario_of(o, a, r, &all[a * o->nranks + r]);
  if (cache_fill(cache, all, o->nalgos * o->nranks, o))
    return fprintf(stderr, "arbench: model: out of memory\n"), EXIT_FAIL;
  for (int a = 0; a < o->nalgos; a++)
    for (int r = 0; r < o->nranks; r++) {
      struct scenario sc = all[a * o->nranks + r];
      int k = cache_get(cache, &sc, o);
      if (k < 0) return fprintf(stderr, "arbench: model: out of memory\n"), EXIT_FAIL;
      ar_status st = cache->e[k].st;
      if (st == AR_ERR_INVALID) {
        fprintf(stderr, "arbench: %s: %s\n", sc.algo->name, cache->e[k].reason);
        return EXIT_BAD_INPUT;
      }
      for (int z = 0; z < o->nsizes; z++) {
        double bytes = (double)o->sizes[z].bytes;
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
        ar_status ft = entry_times(cache, k, o, hw, msg_us, bytes, &t);
        if (ft != AR_OK) { /* the event pricing failed: no number rather than a wrong one */
          fprintf(stderr, "arbench: model: %s at %d ranks: flow pricing failed: %s\n",
                  sc.algo->name, sc.n, ar_status_str(ft));
          return EXIT_FAIL;
        }
        if (single)
          print_single(&sc, o, hw, msg_us, transport, bytes, &cache->e[k], &t);
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
      double bytes = (double)o->sizes[z].bytes, lb = scenario_bound(&sc, o, hw, bytes);
      if (lb < 0) continue;
      struct model_times t = {.main_us = lb, .time_us = lb, .after_arrival_us = lb};
      if (!single) print_row(out, &sc, transport, bytes, &t, NULL, -1);
      csv_row(out, &sc, transport, bytes, &t);
    }
  return EXIT_OK;
}

int cmd_model(int argc, char **argv) {
  struct options o;
  int rc = parse_options(argc, argv, &o);
  if (rc < 0) return EXIT_OK;
  if (rc) return rc;
  ar_settings_retired();
  ar_settings_apply(&o.settings);
  struct mrow *rows = NULL;
  int nrows = 0;
  if (o.calibrate && (nrows = read_run(o.calibrate, &rows)) < 0) return EXIT_BAD_INPUT;
  struct out out = {0};
  out_open_ids(&out);
  out.pricing = pricing_name(o.pricing);
  out.all_algos = o.all_algos;
  out.bytes_width = 10; /* 8 GiB; a larger size widens the column */
  for (int z = 0; z < o.nsizes; z++)
    for (uint64_t b = o.sizes[z].bytes, w = 1; b; b /= 10, w++)
      if (b < 10 && (int)w > out.bytes_width) out.bytes_width = (int)w;
  snprintf(out.gpu, sizeof(out.gpu), "model (%s)", out.pricing);
  if (o.csv && hx_csv_open(&out.csv, o.csv)) {
    free(rows);
    return args_bad("--csv", o.csv, "cannot write there"), EXIT_BAD_INPUT;
  }
  print_links(&o); /* the input is good: the output starts */
  char given[256];
  if (ar_settings_text(&o.settings, given, sizeof(given))[0]) printf("# settings: %s\n", given);
  if (o.compute.kind) /* the model prices links and rounds, not kernels sharing a GPU */
    printf("# compute: %s is not priced: these are the AllReduce alone's times; interference "
           "is measured by arbench run --compute\n",
           ar_compute_kind_text(&o.compute, given, sizeof(given)));
  struct price_cache cache = {0};
  int single = !o.calibrate && o.nalgos == 1 && o.nranks == 1 && o.nsizes == 1 &&
               o.ntransports <= 1;
  if (!o.calibrate && !o.ntransports) {
    rc = sweep(&o, &o.hw, o.msg_us, "model", &cache, &out, single);
  } else if (!o.calibrate) { /* each transport's figures, an explicit --alpha or --bw kept */
    rc = EXIT_OK;
    for (int t = 0; t < o.ntransports && rc == EXIT_OK; t++) {
      struct model_hw hw = o.hw;
      model_transport_hw(o.transports[t], &hw);
      if (o.alpha_given) hw.alpha_us = o.hw.alpha_us;
      if (o.bw_given) hw.beta = o.hw.beta;
      double msg = o.msg_given ? o.msg_us : o.transports[t]->msg_us;
      rc = sweep(&o, &hw, msg, o.transports[t]->name, &cache, &out, single);
    }
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
      if (fits[j].ok && !fits[j].algo)
        sweep(&o, &fits[j].hw, fits[j].msg_us, fits[j].transport, &cache, &out, 0);
    if (!o.nalgos && any) mirror(rows, nrows, &o, fits, nfits, &cache, &out);
  }
  hx_csv_close(&out.csv);
  if (out.write_failed) {
    fprintf(stderr, "arbench: --csv: writing %s failed\n", o.csv);
    rc = EXIT_FAIL;
  }
  cache_free(&cache);
  free(rows);
  return rc;
}
