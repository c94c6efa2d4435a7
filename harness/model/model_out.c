/* `arbench model`: pricing scenarios (each once, several at a time), and the rows a sweep
 * prints and writes. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/wrap.h"
#include "model/model_cmd.h"

#define FILL_MAX_JOBS 16


/* Fills generator parameters for a scenario. */
void scenario_params(const struct scenario *sc, const struct options *o,
                            struct ar_params *p) {
  args_fill_params(p, sc->n, NULL, 0, &sc->dg, o->tdims, o->torus);
  p->straggler = sc->straggler;
  p->segments = o->segments;
  p->gpus_per_node = o->gpus_per_node;
}

/* Builds and prices a scenario's schedule on the chosen topology. Returns AR_OK, or the
 * build's status with the reason in `reason`. */
static ar_status price_scenario(const struct scenario *sc, const struct options *o,
                                struct model_price *pr, char *reason, size_t rlen,
                                double *congestion, struct model_flow_graph **flow) {
  struct ar_params p;
  struct model_net net;
  memset(pr, 0, sizeof(*pr));
  scenario_params(sc, o, &p);
  ar_status st = model_net_init(&net, o->topology, &p);
  if (o->topology == MODEL_TWO_TIER) { /* the local tier, relative to a NIC */
    net.local_speed = o->hw.beta / o->beta_local;
    net.local_alpha_us = o->alpha_local_us;
  }
  if (st == AR_OK) st = model_price_algo(sc->algo, &p, &net, pr, reason, rlen);
  else snprintf(reason, rlen, "the topology does not fit %d ranks", sc->n);
  if (st == AR_OK && o->pricing == PRICING_FLOWS)
    st = model_flow_algo(sc->algo, &p, &net, flow, reason, rlen);
  pr->minibatches = o->segments; /* async-ring's K (0: as the ce transport picks them) */
  double ideal = pr->pre.load_ideal + pr->main.load_ideal;
  *congestion = ideal > 0 ? (pr->pre.load + pr->main.load) / ideal : 1;
  return st;
}


/* Returns the index of sc's pricing in the cache (priced on first use), or -1 on no memory. */
/* Returns the index of sc in the cache, or -1 when it is not there. */
static int cache_find(const struct price_cache *c, const struct scenario *sc) {
  for (int i = 0; i < c->n; i++) {
    const struct scenario *k = &c->e[i].sc;
    if (k->algo == sc->algo && k->n == sc->n && k->straggler == sc->straggler &&
        !memcmp(&k->dg, &sc->dg, sizeof(k->dg)))
      return i;
  }
  return -1;
}

/* Adds sc to the cache, not yet priced; returns its index or -1 on no memory. */
static int cache_add(struct price_cache *c, const struct scenario *sc) {
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
  return i;
}

/* Prices cache entry i (a worker's or the caller's). */
static void cache_price(struct price_cache *c, int i, const struct options *o) {
  c->e[i].st = price_scenario(&c->e[i].sc, o, &c->e[i].pr, c->e[i].reason,
                              sizeof(c->e[i].reason), &c->e[i].congestion, &c->e[i].flow);
  c->e[i].priced = 1;
}

int cache_get(struct price_cache *c, const struct scenario *sc, const struct options *o) {
  int i = cache_find(c, sc);
  if (i < 0 && (i = cache_add(c, sc)) < 0) return -1;
  if (!c->e[i].priced) cache_price(c, i, o);
  return i;
}

/* Returns a monotonic clock in seconds. */
static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The work cache_fill shares among its threads: entries [first, last) in turn. */
struct fill {
  struct price_cache *c;
  const struct options *o;
  int next, last, total;
  double t0;
  pthread_mutex_t mu;
};

/* A pricing thread: takes the next entry until none are left; returns NULL. */
static void *fill_run(void *arg) {
  struct fill *f = arg;
  for (;;) {
    pthread_mutex_lock(&f->mu);
    int i = f->next < f->last ? f->next++ : -1;
    double t = now_s() - f->t0;
    if (i >= 0 && t >= PROGRESS_AFTER_S) /* long pricing: say where it is (stderr) */
      fprintf(stderr, "arbench: model: pricing %s at %d ranks (%d of %d) after %.1f s\n",
              f->c->e[i].sc.algo->name, f->c->e[i].sc.n, i - (f->last - f->total) + 1, f->total,
              t);
    pthread_mutex_unlock(&f->mu);
    if (i < 0) return NULL;
    cache_price(f->c, i, f->o);
  }
}

int cache_fill(struct price_cache *c, const struct scenario *sc, int n, const struct options *o) {
  int first = c->n;
  for (int k = 0; k < n; k++)
    if (cache_find(c, &sc[k]) < 0 && cache_add(c, &sc[k]) < 0) return -1;
  struct fill f = {.c = c, .o = o, .next = first, .last = c->n, .total = c->n - first,
                   .t0 = now_s()};
  long jobs = sysconf(_SC_NPROCESSORS_ONLN);
  if (ar_setting(AR_SET_MODEL_JOBS) > 0) jobs = (long)ar_setting(AR_SET_MODEL_JOBS);
  if (jobs > FILL_MAX_JOBS) jobs = FILL_MAX_JOBS;
  if (jobs > f.total) jobs = f.total;
  pthread_t tid[FILL_MAX_JOBS];
  int started[FILL_MAX_JOBS] = {0};
  pthread_mutex_init(&f.mu, NULL);
  for (int t = 1; t < jobs; t++)
    started[t] = !pthread_create(&tid[t], NULL, fill_run, &f);
  fill_run(&f);
  for (int t = 1; t < jobs; t++)
    if (started[t]) pthread_join(tid[t], NULL);
  pthread_mutex_destroy(&f.mu);
  return 0;
}

void cache_free(struct price_cache *c) {
  for (int i = 0; i < c->n; i++)
    model_flow_free(c->e[i].flow);
  free(c->e);
  c->e = NULL;
  c->n = c->cap = 0;
}

const char *pricing_name(int pricing) {
  return pricing == PRICING_FLOWS ? "flows" : "rounds";
}

ar_status entry_times(const struct price_cache *c, int k, const struct options *o,
                      const struct model_hw *hw, double msg_us, double bytes,
                      struct model_times *t) {
  const struct scenario *sc = &c->e[k].sc;
  double delay = sc->straggler >= 0 ? sc->delay_us : 0;
  if (o->pricing == PRICING_FLOWS)
    return model_flow_times(c->e[k].flow, hw, msg_us, bytes, sc->straggler, delay, t);
  model_times_msg(&c->e[k].pr, hw, msg_us, bytes, delay, t);
  return AR_OK;
}

/* Writes the degraded GPUs as RANK:FACTOR,... (the flag's syntax) into buf; "" when none. */
void degraded_text(const struct degrade_spec *dg, char *buf, size_t len) {
  size_t k = 0;
  buf[0] = 0;
  for (int i = 0; i < dg->n && k < len; i++)
    k += (size_t)snprintf(buf + k, len - k, "%s%d:%g", i ? "," : "", dg->rank[i], dg->factor[i]);
}



/* Writes one CSV row through the harness's writer (status ok when t != NULL, else n/a). */
static void csv_row_named(struct out *out, const struct scenario *sc, const char *algorithm,
                          const char *transport, double bytes, const struct model_times *t) {
  if (!out->csv.f) return;
  struct hx_csv_row r = {.run_id = out->run_id,
                         .timestamp = out->stamp,
                         .host = out->host,
                         .gpu = out->gpu,
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
void csv_row(struct out *out, const struct scenario *sc, const char *transport, double bytes,
                    const struct model_times *t) {
  csv_row_named(out, sc, sc->algo->name, transport, bytes, t);
}


/* The table's name column: as wide as the longest algorithm name (and "# algorithm"). */
static int name_width(void) {
  size_t n, w = strlen("# algorithm");
  const struct ar_algo *const *all = ar_algo_all(&n);
  for (size_t i = 0; i < n; i++)
    if (strlen(all[i]->name) > w) w = strlen(all[i]->name);
  return (int)w;
}

/* Prints one table line of a sweep (t == NULL: n/a with reason, wrapped under its column so
 * that the table stays within WRAP_COLUMNS). */
void print_row(struct out *out, const struct scenario *sc, const char *transport,
                      double bytes, const struct model_times *t, const char *reason,
                      double measured_us) {
  int nw = name_width(), bw = out->bytes_width > 5 ? out->bytes_width : 5;
  if (!out->table_header) {
    printf("# pricing: %s\n", out->pricing);
    if (out->all_algos)
      printf("# nccl: no row: ncclAllReduce has no schedule to price (NCCL picks its own as it runs)\n");
    if (sc->dg.n) {
      char dgt[256];
      degraded_text(&sc->dg, dgt, sizeof(dgt));
      printf("# degraded: %s\n", dgt);
    }
    printf("%-*s %5s %*s %-9s %11s %12s %10s%s\n", nw, "# algorithm", "ranks", bw, "bytes",
           "transport", "model_us", "after_arr_us", "algbw_GBps",
           measured_us >= 0 ? " measured_us  mod/meas" : "");
    out->table_header = 1;
  }
  printf("%-*s %5d %*.0f %-9s ", nw, sc->algo->name, sc->n, bw, bytes, transport);
  if (!t) {
    char line[WRAP_COLUMNS + 1], text[512];
    int at = nw + 5 + bw + 9 + 4; /* the columns before the reason, and their blanks */
    snprintf(text, sizeof(text), "n/a: %s", reason);
    for (const char *r = wrap_take(text, WRAP_COLUMNS - at, line, sizeof(line));;
         r = wrap_take(r, WRAP_COLUMNS - at - 2, line, sizeof(line))) {
      printf("%s\n", line);
      if (!*r) break;
      printf("%*s  ", at, ""); /* the reason goes on, indented under its start */
    }
    return;
  }
  printf("%11.3f %12.3f %10.3f", t->time_us, t->after_arrival_us, bytes / (t->time_us * 1e3));
  if (measured_us > 0) printf(" %11.3f %9.4f", measured_us, t->time_us / measured_us);
  printf("\n");
}

/* The first line of every model output: the link figures the prices rest on and where they
 * come from, so that a modelled GB/s is never read as a measurement (wrapped as "#" lines
 * within WRAP_COLUMNS). */
void print_links(const struct options *o) {
  char text[1024], line[WRAP_COLUMNS + 1];
  size_t k = 0, len = sizeof(text);
#define LINKS_ADD(...) (k += (size_t)snprintf(text + k, k < len ? len - k : 0, __VA_ARGS__))
  if (o->calibrate) {
    LINKS_ADD("fitted per transport to %s's measurements (the calibration lines)", o->calibrate);
  } else if (o->ntransports) {
    LINKS_ADD("fitted on 4 x H200 by --calibrate:");
    for (int t = 0; t < o->ntransports; t++)
      LINKS_ADD("%s %s %g us %g GB/s", t ? "," : "", o->transports[t]->name,
                o->alpha_given ? o->hw.alpha_us : o->transports[t]->alpha_us,
                o->bw_given ? 1e6 / o->hw.beta / 1e9 : o->transports[t]->bytes_per_s / 1e9);
    if (o->alpha_given || o->bw_given) LINKS_ADD(" (--alpha, --bw as given)");
  } else {
    int mine = o->alpha_given || o->bw_given;
    LINKS_ADD("%g us a round%s, %g GB/s a %s%s", o->hw.alpha_us,
              mine ? (o->alpha_given ? " (--alpha)" : " (default)") : "", 1e6 / o->hw.beta / 1e9,
              o->gpus_per_node ? "NIC" : "port", mine ? (o->bw_given ? " (--bw)" : " (default)") : "");
    if (!mine) LINKS_ADD(" (the defaults: StragglAR's H100 NVLink, not measured)");
    else if (!o->alpha_given || !o->bw_given)
      LINKS_ADD("; default: StragglAR's H100 NVLink, not measured");
  }
  if (o->gpus_per_node)
    LINKS_ADD("; inside a node %g us and %g GB/s", o->alpha_local_us, 1e6 / o->beta_local / 1e9);
  if (o->hw.hop_us > 0) LINKS_ADD("; %g us a hop", o->hw.hop_us);
  if (o->msg_given) LINKS_ADD("; %g us a message", o->msg_us);
  if (o->hw.gamma > 0)
    LINKS_ADD("; sums at %g GB/s%s", 1e6 / o->hw.gamma / 1e9,
              o->hw.sums_overlap ? ", overlapped with the bytes (--gamma-overlap)" : "");
#undef LINKS_ADD
  const char *r = wrap_take(text, WRAP_COLUMNS - 9, line, sizeof(line));
  printf("# links: %s\n", line);
  while (*r) {
    r = wrap_take(r, WRAP_COLUMNS - 9, line, sizeof(line));
    printf("#        %s\n", line);
  }
}
