/* Model mode: alpha-beta(-gamma) pricing of a schedule with link contention on a switch or a
 * torus, the papers' closed forms, and the alpha/beta fit used by --calibrate. */
#include "model.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int model_default_torus(int n, int dims[AR_MAX_TORUS_DIMS]) {
  int a = 1;
  for (int d = 1; (long)d * d <= n; d++)
    if (n % d == 0) a = d;
  if (a == 1) {
    dims[0] = n;
    return 1;
  }
  dims[0] = a;
  dims[1] = n / a;
  return 2;
}

ar_status model_net_init(struct model_net *net, int topology, const struct ar_params *p) {
  memset(net, 0, sizeof(*net));
  net->topology = topology;
  if (topology == MODEL_TORUS) {
    if (p->torus_ndims > 0) {
      long prod = 1;
      net->ndims = p->torus_ndims;
      for (int i = 0; i < p->torus_ndims; i++) {
        net->dims[i] = p->torus[i];
        prod *= p->torus[i];
      }
      if (prod != p->nranks) return AR_ERR_INVALID;
    } else {
      net->ndims = model_default_torus(p->nranks, net->dims);
    }
  }
  net->ndegraded = p->ndegraded;
  for (int i = 0; i < p->ndegraded && i < AR_MAX_DEGRADED; i++) {
    net->degraded[i] = p->degraded[i];
    net->factor[i] = p->factor[i] >= 1 ? p->factor[i] : 1;
  }
  return AR_OK;
}

/* ---- pricing ---- */

/* Working state for one pricing pass. Per-round sums live in arrays indexed by link (a link
 * is numbered rank * links_per_rank + k: on a switch k = 0 is the rank's egress and k = 1 its
 * ingress; on a torus k = 2 * dim + dir is the link leaving that rank) and by rank (reduced
 * fraction). Loads are kept unweighted and multiplied by each link's slowdown when the round
 * is read. Every entry is zero between rounds. A round with many transfers scans and clears
 * every link (dense); a small one only the links it touched, listed through per-link round
 * stamps (sparse). */
struct pricer {
  const struct ar_schedule *s;
  const struct model_net *net;
  int n, D2;
  size_t nlinks;
  double inv_chunks;
  double *link_slow;                   /* per link: slowdown of its slower end */
  double *load, *ideal_out, *ideal_in; /* per link; ideal_in keyed by the arriving link */
  unsigned *link_stamp;
  int *links; /* sparse rounds: links touched */
  size_t nlinks_used;
  double *reduced; /* per rank */
  unsigned *rank_stamp;
  int *ranks; /* sparse rounds: ranks that reduced */
  size_t nranks_used;
  unsigned stamp; /* the round being priced, from 1 */
  int dense;      /* this round clears and scans everything */
  int *coord;     /* torus: coordinates of every rank, n x ndims */
  int stride[AR_MAX_TORUS_DIMS];
};

/* In a sparse round, lists link id on its first touch (every entry is zero between rounds). */
static inline void link_fresh(struct pricer *pc, int id) {
  if (pc->dense || pc->link_stamp[id] == pc->stamp) return;
  pc->link_stamp[id] = pc->stamp;
  pc->links[pc->nlinks_used++] = id;
}

/* Walks `hops` steps from rank r along torus dimension d in direction dir (0: +, 1: -),
 * loading each link with amount; first/last mark the route's first and last hop for the
 * ideal load. Returns the rank reached. */
static int walk(struct pricer *pc, int r, int d, int dir, int hops, double amount, int first,
                int last) {
  int dim = pc->net->dims[d], a = pc->coord[(size_t)r * pc->net->ndims + d];
  int stride = pc->stride[d], k = 2 * d + dir;
  for (int h = 0; h < hops; h++) {
    int id = r * pc->D2 + k;
    link_fresh(pc, id);
    pc->load[id] += amount;
    if (first && h == 0) pc->ideal_out[id] += amount;
    if (last && h == hops - 1) pc->ideal_in[id] += amount;
    if (dir == 0)
      r = a + 1 == dim ? (a = 0, r - (dim - 1) * stride) : (a++, r + stride);
    else
      r = a == 0 ? (a = dim - 1, r + (dim - 1) * stride) : (a--, r - stride);
  }
  return r;
}

/* Routes one flow of `amount` (buffer fraction) from src to dst: dimension order, shortest way
 * round each ring, an exact tie split evenly both ways. Returns its hop count. */
static int route_torus(struct pricer *pc, int src, int dst, double amount) {
  int D = pc->net->ndims, hops = 0, first_dim = -1, last_dim = -1;
  const int *cs = pc->coord + (size_t)src * D, *cd = pc->coord + (size_t)dst * D;
  for (int d = 0; d < D; d++)
    if (cs[d] != cd[d]) {
      if (first_dim < 0) first_dim = d;
      last_dim = d;
    }
  int r = src;
  for (int d = first_dim; d >= 0 && d <= last_dim; d++) {
    int dim = pc->net->dims[d], fwd = cd[d] - cs[d];
    if (fwd < 0) fwd += dim;
    if (!fwd) continue;
    int bwd = dim - fwd, f = d == first_dim, l = d == last_dim;
    if (fwd < bwd) {
      r = walk(pc, r, d, 0, fwd, amount, f, l);
    } else if (bwd < fwd) {
      r = walk(pc, r, d, 1, bwd, amount, f, l);
    } else {
      walk(pc, r, d, 1, bwd, amount / 2, f, l);
      r = walk(pc, r, d, 0, fwd, amount / 2, f, l);
    }
    hops += fwd < bwd ? fwd : bwd;
  }
  return hops;
}

/* Prices transfers [lo, hi) of one round and adds the round to c. */
static void price_round(struct pricer *pc, size_t lo, size_t hi, struct model_cost *c) {
  const struct ar_xfer *xs = pc->s->xfers;
  int maxhops = 0, torus = pc->net->topology == MODEL_TORUS;
  pc->stamp++;
  pc->nlinks_used = pc->nranks_used = 0;
  pc->dense = (hi - lo) * 8 >= pc->nlinks;
  for (size_t i = lo; i < hi; i++) {
    const struct ar_xfer *x = &xs[i];
    int src = x->src, dst = x->dst, hops = 1;
    if (src == dst) continue; /* a local copy uses no link */
    double amount = x->count * pc->inv_chunks;
    if (torus) {
      hops = route_torus(pc, src, dst, amount);
    } else {
      link_fresh(pc, 2 * src);
      pc->load[2 * src] += amount;
      link_fresh(pc, 2 * dst + 1);
      pc->load[2 * dst + 1] += amount;
    }
    if (hops > maxhops) maxhops = hops;
    if (x->op == AR_REDUCE) {
      if (!pc->dense && pc->rank_stamp[dst] != pc->stamp) {
        pc->rank_stamp[dst] = pc->stamp;
        pc->ranks[pc->nranks_used++] = dst;
      }
      pc->reduced[dst] += amount;
    }
  }
  double worst = 0, worst_ideal = 0, worst_red = 0;
  size_t nl = pc->dense ? pc->nlinks : pc->nlinks_used;
  for (size_t t = 0; t < nl; t++) {
    size_t id = pc->dense ? t : (size_t)pc->links[t];
    double w = pc->link_slow[id], v = pc->load[id] * w;
    if (v > worst) worst = v;
    if (torus) {
      if (pc->ideal_out[id] * w > worst_ideal) worst_ideal = pc->ideal_out[id] * w;
      if (pc->ideal_in[id] * w > worst_ideal) worst_ideal = pc->ideal_in[id] * w;
    }
  }
  size_t nr = pc->dense ? (size_t)pc->n : pc->nranks_used;
  for (size_t t = 0; t < nr; t++) {
    int r = pc->dense ? (int)t : pc->ranks[t];
    if (pc->reduced[r] > worst_red) worst_red = pc->reduced[r];
  }
  if (pc->dense) { /* leave every entry zero for the next round */
    memset(pc->load, 0, sizeof(double) * pc->nlinks);
    if (torus) {
      memset(pc->ideal_out, 0, sizeof(double) * pc->nlinks);
      memset(pc->ideal_in, 0, sizeof(double) * pc->nlinks);
    }
    memset(pc->reduced, 0, sizeof(double) * pc->n);
  } else {
    for (size_t t = 0; t < pc->nlinks_used; t++) {
      int id = pc->links[t];
      pc->load[id] = 0;
      if (torus) pc->ideal_out[id] = pc->ideal_in[id] = 0;
    }
    for (size_t t = 0; t < pc->nranks_used; t++)
      pc->reduced[pc->ranks[t]] = 0;
  }
  if (!torus) worst_ideal = worst;
  c->rounds++;
  c->hops += maxhops;
  c->load += worst;
  c->load_ideal += worst_ideal;
  c->reduce += worst_red;
}

/* Frees what pricer_init allocated. */
static void pricer_free(struct pricer *pc) {
  free(pc->link_slow);
  free(pc->load);
  free(pc->link_stamp);
  free(pc->links);
  free(pc->reduced);
  free(pc->rank_stamp);
  free(pc->ranks);
  free(pc->ideal_out);
  free(pc->ideal_in);
  free(pc->coord);
}

/* Sets up a pricer for s on net; returns AR_OK, AR_ERR_INVALID for a torus that does not fit
 * the ranks, or AR_ERR_NOMEM (with everything freed). */
static ar_status pricer_init(struct pricer *pc, const struct ar_schedule *s,
                             const struct model_net *net) {
  int n = s->nranks, torus = net->topology == MODEL_TORUS;
  memset(pc, 0, sizeof(*pc));
  pc->s = s;
  pc->net = net;
  pc->n = n;
  pc->inv_chunks = 1.0 / s->nchunks;
  if (torus) {
    long prod = 1;
    if (net->ndims < 1 || net->ndims > AR_MAX_TORUS_DIMS) return AR_ERR_INVALID;
    for (int d = 0; d < net->ndims; d++)
      prod *= net->dims[d];
    if (prod != n) return AR_ERR_INVALID;
  }
  pc->D2 = torus ? 2 * net->ndims : 2;
  size_t nlinks = pc->nlinks = (size_t)n * pc->D2;
  double *slow = malloc(sizeof(double) * n);
  pc->link_slow = malloc(sizeof(double) * nlinks);
  pc->load = calloc(nlinks, sizeof(double));
  pc->link_stamp = calloc(nlinks, sizeof(unsigned));
  pc->links = malloc(sizeof(int) * nlinks);
  pc->reduced = calloc(n, sizeof(double));
  pc->rank_stamp = calloc(n, sizeof(unsigned));
  pc->ranks = malloc(sizeof(int) * n);
  if (torus) {
    pc->ideal_out = calloc(nlinks, sizeof(double));
    pc->ideal_in = calloc(nlinks, sizeof(double));
    pc->coord = malloc(sizeof(int) * (size_t)n * net->ndims);
  }
  if (!slow || !pc->link_slow || !pc->load || !pc->link_stamp || !pc->links || !pc->reduced ||
      !pc->rank_stamp || !pc->ranks || (torus && (!pc->ideal_out || !pc->ideal_in || !pc->coord))) {
    free(slow);
    pricer_free(pc);
    return AR_ERR_NOMEM;
  }
  for (int r = 0; r < n; r++)
    slow[r] = 1;
  for (int i = 0; i < net->ndegraded; i++)
    if (net->degraded[i] >= 0 && net->degraded[i] < n) slow[net->degraded[i]] = net->factor[i];
  if (torus) {
    int stride = 1;
    for (int d = 0; d < net->ndims; d++) {
      pc->stride[d] = stride;
      stride *= net->dims[d];
    }
    for (int r = 0; r < n; r++)
      for (int d = 0, rest = r; d < net->ndims; d++) {
        pc->coord[(size_t)r * net->ndims + d] = rest % net->dims[d];
        rest /= net->dims[d];
      }
    /* a torus link is as slow as the slower of the two ranks it joins */
    for (int r = 0; r < n; r++)
      for (int d = 0; d < net->ndims; d++) {
        int a = pc->coord[(size_t)r * net->ndims + d], dim = net->dims[d];
        int up = r + ((a + 1) % dim - a) * pc->stride[d];
        int down = r + ((a + dim - 1) % dim - a) * pc->stride[d];
        pc->link_slow[r * pc->D2 + 2 * d] = slow[r] > slow[up] ? slow[r] : slow[up];
        pc->link_slow[r * pc->D2 + 2 * d + 1] = slow[r] > slow[down] ? slow[r] : slow[down];
      }
  } else {
    /* a switch port: only a degraded rank's own egress and ingress are slow, so a healthy
     * sender keeps the rest of its bandwidth for its other flows */
    for (int r = 0; r < n; r++)
      pc->link_slow[2 * r] = pc->link_slow[2 * r + 1] = slow[r];
  }
  free(slow);
  return AR_OK;
}

/* One thread's share of the rounds: transfers [lo, hi), whole rounds only. */
struct price_part {
  const struct ar_schedule *s;
  const struct model_net *net;
  size_t lo, hi;
  struct model_price out;
  ar_status st;
};

/* Prices a part's rounds into part->out; returns NULL (a thread body). */
static void *price_part_run(void *arg) {
  struct price_part *pt = arg;
  struct pricer pc;
  memset(&pt->out, 0, sizeof(pt->out));
  if ((pt->st = pricer_init(&pc, pt->s, pt->net)) != AR_OK) return NULL;
  const struct ar_xfer *xs = pt->s->xfers;
  for (size_t lo = pt->lo; lo < pt->hi;) {
    size_t hi = lo;
    while (hi < pt->hi && xs[hi].round == xs[lo].round)
      hi++;
    price_round(&pc, lo, hi, xs[lo].round < pt->s->nprecond ? &pt->out.pre : &pt->out.main);
    lo = hi;
  }
  pricer_free(&pc);
  return NULL;
}

/* Adds cost b into a. */
static void cost_add(struct model_cost *a, const struct model_cost *b) {
  a->rounds += b->rounds;
  a->hops += b->hops;
  a->load += b->load;
  a->load_ideal += b->load_ideal;
  a->reduce += b->reduce;
}

#define PRICE_MAX_THREADS 16
#define PRICE_PER_THREAD 4000000 /* transfers: below this one thread is quicker */

ar_status model_price_schedule(const struct ar_schedule *s, const struct model_net *net,
                               struct model_price *out) {
  memset(out, 0, sizeof(*out));
  out->nranks = s->nranks;
  /* rounds are priced independently, so big schedules split across threads at round
   * boundaries (OPTCC at n = 1024 has ~1.3e8 transfers) */
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  int nt = (int)(s->nxfers / PRICE_PER_THREAD) + 1;
  if (nt > cpus) nt = cpus > 1 ? (int)cpus : 1;
  const char *env = getenv("AR_MODEL_THREADS"); /* tests force a split to check it */
  if (env && atoi(env) > 0) nt = atoi(env);
  if (nt > PRICE_MAX_THREADS) nt = PRICE_MAX_THREADS;
  struct price_part parts[PRICE_MAX_THREADS];
  pthread_t tids[PRICE_MAX_THREADS];
  int started[PRICE_MAX_THREADS] = {0};
  size_t lo = 0;
  for (int t = 0; t < nt; t++) {
    size_t hi = t == nt - 1 ? s->nxfers : s->nxfers / nt * (t + 1);
    if (hi < lo) hi = lo;
    while (hi > 0 && hi < s->nxfers && s->xfers[hi].round == s->xfers[hi - 1].round)
      hi++;
    parts[t] = (struct price_part){.s = s, .net = net, .lo = lo, .hi = hi};
    lo = hi;
  }
  for (int t = 1; t < nt; t++)
    started[t] = !pthread_create(&tids[t], NULL, price_part_run, &parts[t]);
  price_part_run(&parts[0]);
  ar_status st = AR_OK;
  for (int t = 0; t < nt; t++) {
    if (t > 0 && started[t]) pthread_join(tids[t], NULL);
    if (t > 0 && !started[t]) price_part_run(&parts[t]); /* no thread: price it here */
    if (parts[t].st != AR_OK && st == AR_OK) st = parts[t].st;
    cost_add(&out->pre, &parts[t].out.pre);
    cost_add(&out->main, &parts[t].out.main);
  }
  return st;
}

double model_cost_us(const struct model_cost *c, const struct model_hw *hw, double bytes) {
  return c->rounds * hw->alpha_us + c->hops * hw->hop_us + bytes * c->load * hw->beta +
         bytes * c->reduce * hw->gamma;
}

void model_times(const struct model_price *pr, const struct model_hw *hw, double bytes,
                 double delay_us, struct model_times *out) {
  out->pre_us = model_cost_us(&pr->pre, hw, bytes);
  out->main_us = model_cost_us(&pr->main, hw, bytes);
  if (pr->pre.rounds > 0) { /* the precondition runs while the straggler is late */
    double start = out->pre_us > delay_us ? out->pre_us : delay_us;
    out->time_us = start + out->main_us;
  } else {
    out->time_us = delay_us + out->main_us;
  }
  out->after_arrival_us = out->time_us - delay_us;
}

int model_parse_bw(const char *s, double *bytes_per_s, const char **why) {
  static const struct {
    const char *unit;
    double mul;
  } units[] = {
      {"", 1},
      {"B/s", 1},
      {"KB/s", 1e3},
      {"MB/s", 1e6},
      {"GB/s", 1e9},
      {"TB/s", 1e12},
      {"Kb/s", 1e3 / 8},
      {"Mb/s", 1e6 / 8},
      {"Gb/s", 1e9 / 8},
      {"Tb/s", 1e12 / 8},
      {"KiB/s", 1024.0},
      {"MiB/s", 1048576.0},
      {"GiB/s", 1073741824.0},
      {"GBps", 1e9},
      {"Gbps", 1e9 / 8},
  };
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || errno || isnan(v) || isinf(v)) {
    *why = "not a bandwidth (e.g. 450GB/s, 400Gb/s)";
    return -1;
  }
  for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
    if (!strcmp(end, units[i].unit)) {
      if (!(v > 0)) {
        *why = "a bandwidth must be > 0";
        return -1;
      }
      if (v * units[i].mul < 1e6 || v * units[i].mul > 1e15) { /* beyond: inf or 0 times */
        *why = "a bandwidth must be between 1 MB/s and 1 PB/s";
        return -1;
      }
      *bytes_per_s = v * units[i].mul;
      return 0;
    }
  *why = "unknown unit (use B/s, KB/s, MB/s, GB/s, TB/s; Gb/s etc. for bits)";
  return -1;
}

/* ---- closed forms ---- */

double model_closed_ring(int n, const struct model_hw *hw, double bytes) {
  return 2.0 * (n - 1) * hw->alpha_us + 2.0 * (n - 1) / n * bytes * hw->beta;
}

double model_closed_rhd(int n, const struct model_hw *hw, double bytes) {
  if (!ar_is_pow2(n)) return -1;
  return 2.0 * ar_log2(n) * hw->alpha_us + 2.0 * (n - 1) / n * bytes * hw->beta;
}

double model_closed_rd(int n, const struct model_hw *hw, double bytes) {
  if (!ar_is_pow2(n)) return -1;
  return ar_log2(n) * (hw->alpha_us + bytes * hw->beta);
}

double model_closed_stragglar(int n, const struct model_hw *hw, double bytes) {
  if (!ar_is_pow2(n) || n < 4) return -1;
  double r = n + ar_log2(n) - 2;
  return r * hw->alpha_us + r / (n - 1) * bytes * hw->beta;
}

double model_closed_bcast(int n, const struct model_hw *hw, double bytes) {
  if (!ar_is_pow2(n)) return -1;
  return ar_log2(n) * (hw->alpha_us + bytes * hw->beta);
}

/* Returns Swing's peer distance delta(s) = |sum_{i<=s} (-2)^i| = (2^(s+1) - (-1)^(s+1)) / 3. */
static long swing_delta(int s) {
  long p2 = 1L << (s + 1);
  return (p2 - ((s + 1) % 2 ? -1 : 1)) / 3;
}

double model_swing_congestion(int ndims, const int *dims) {
  int left[AR_MAX_TORUS_DIMS], sigma[AR_MAX_TORUS_DIMS], total = 0;
  long p = 1;
  for (int d = 0; d < ndims; d++) {
    if (!ar_is_pow2(dims[d])) return -1;
    left[d] = ar_log2(dims[d]);
    sigma[d] = 0;
    total += left[d];
    p *= dims[d];
  }
  double sum = 0;
  for (int s = 0, d = 0; s < total; s++) {
    while (!left[d])
      d = (d + 1) % ndims; /* dimensions done with their steps drop out */
    long delta = swing_delta(sigma[d]);
    if (delta > dims[d] - delta) delta = dims[d] - delta; /* shortest way round */
    sum += (double)delta / (double)(1L << (s + 1));
    sigma[d]++;
    left[d]--;
    d = (d + 1) % ndims;
  }
  return sum / (1.0 - 1.0 / p);
}

double model_swing_table2(int ndims) {
  switch (ndims) {
  case 2: return 1.19;
  case 3: return 1.03;
  case 4: return 1.008;
  default: return -1;
  }
}

double model_optcc_ratio(int p, double l, int k) {
  if (l >= 2) {
    double r = l * p / (2.0 * (p - 1));
    return k > 0 ? r * (k + 1.0) / k : r;
  }
  double r = p * l / ((p - 2) * l + 2);
  return k > 0 ? r * (k + l - 1) / k : r;
}

double model_optcc_bound_ratio(int p, double l) {
  double a = 2 * l * (p - 1) / (l * (p - 2) + 2), b = l;
  return (a > b ? a : b) * p / (2.0 * (p - 1));
}

double model_degraded_bound_us(int p, int m, const double *l, const struct model_hw *hw,
                               double bytes) {
  if (p < 3 || m < 1 || m >= p) return -1;
  double lmax = 1, inv = 0, a;
  for (int i = 0; i < m; i++) {
    if (l[i] > lmax) lmax = l[i];
    inv += 1 / l[i];
  }
  if (m == 1)
    a = 2 * l[0] * (p - 1) / (l[0] * (p - 2) + 2); /* Theorem 6 (tight) */
  else
    a = 2.0 * (p - 1) / (p - m + inv); /* Theorem 2 */
  return (a > lmax ? a : lmax) * bytes * hw->beta;
}

/* ---- calibration ---- */

/* Solves the 2x2 weighted normal equations for (alpha, beta); alpha_free = 0 pins alpha to 0. */
static int fit_solve(const struct model_sample *smp, size_t n, int alpha_free, double *a,
                     double *b) {
  double saa = 0, sab = 0, sbb = 0, say = 0, sby = 0;
  for (size_t i = 0; i < n; i++) {
    double w = 1.0 / smp[i].time_us; /* relative error: every size counts alike */
    double xa = smp[i].rounds * w, xb = smp[i].beta_bytes * w;
    double y = (smp[i].time_us - smp[i].fixed_us) * w;
    saa += xa * xa;
    sab += xa * xb;
    sbb += xb * xb;
    say += xa * y;
    sby += xb * y;
  }
  if (alpha_free) {
    double det = saa * sbb - sab * sab;
    if (!(fabs(det) > 1e-12 * (saa * sbb + 1e-300))) return -1;
    *a = (say * sbb - sab * sby) / det;
    *b = (saa * sby - sab * say) / det;
  } else {
    if (!(sbb > 0)) return -1;
    *a = 0;
    *b = sby / sbb;
  }
  return 0;
}

int model_fit(const struct model_sample *smp, size_t n, double *alpha_us, double *beta,
              double *rel_rms) {
  double a = 0, b = 0;
  for (size_t i = 0; i < n; i++)
    if (!(smp[i].time_us > 0)) return -1;
  if (n < 1) return -1;
  if (n < 2 || fit_solve(smp, n, 1, &a, &b) || a < 0) {
    if (fit_solve(smp, n, 0, &a, &b)) return -1;
  }
  if (!(b > 0)) return -1;
  double e2 = 0;
  for (size_t i = 0; i < n; i++) {
    double e = (a * smp[i].rounds + b * smp[i].beta_bytes + smp[i].fixed_us - smp[i].time_us) /
               smp[i].time_us;
    e2 += e * e;
  }
  *alpha_us = a;
  *beta = b;
  if (rel_rms) *rel_rms = sqrt(e2 / n);
  return 0;
}
