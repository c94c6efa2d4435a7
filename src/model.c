/* Model mode: the network, times from a priced schedule, the papers' closed forms, and the
 * alpha/beta fit used by --calibrate (the pricing itself: model_price.c). */
#include "model.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int model_default_torus(int n, int dims[AR_MAX_TORUS_DIMS]) {
  struct ar_params p;
  ar_params_init(&p, n);
  return ar_torus_shape(&p, dims, NULL, 0);
}

static const char *const topology_names[] = {"switch",  "torus",   "two-tier", "hx2mesh",
                                              "hx4mesh", "hyperx", "mesh"};

const char *model_topology_name(int topology) {
  return topology >= 0 && topology <= MODEL_MESH ? topology_names[topology] : "?";
}

int model_topology_find(const char *name) {
  for (int t = 0; t <= MODEL_MESH; t++)
    if (!strcmp(name, topology_names[t])) return t;
  return -1;
}

const char *model_algo_topologies(const struct ar_algo *a) {
  if (a->flags & AR_ALGO_NATIVE) return "GPUs only";
  if (a->flags & AR_ALGO_TORUS) return "torus,hx2mesh,hx4mesh,hyperx";
  if (a->ranks && strstr(a->ranks, "--gpus-per-node")) return "two-tier";
  return "any";
}

ar_status model_net_init(struct model_net *net, int topology, const struct ar_params *p) {
  memset(net, 0, sizeof(*net));
  net->topology = topology;
  if ((topology == MODEL_TORUS || model_topology_grid(topology)) &&
      (net->ndims = ar_torus_shape(p, net->dims, NULL, 0)) < 0)
    return AR_ERR_INVALID;
  if (model_topology_grid(topology)) { /* rows and columns: 2-D, boards tiling it */
    net->board = topology == MODEL_HX2MESH ? 2 : topology == MODEL_HX4MESH ? 4 : 0;
    if (net->ndims != 2 || (net->board && (net->dims[0] % net->board || net->dims[1] % net->board)))
      return AR_ERR_INVALID;
  }
  if (topology == MODEL_MESH && p->nranks > MODEL_MESH_MAX) return AR_ERR_INVALID;
  if (topology == MODEL_TWO_TIER) { /* G GPUs a node; links inside a node as fast as a NIC
                                     * unless the caller says otherwise */
    net->gpus_per_node = p->gpus_per_node > 0 ? p->gpus_per_node : 1;
    net->local_speed = 1;
    if (p->nranks % net->gpus_per_node) return AR_ERR_INVALID;
  }
  net->ndegraded = p->ndegraded;
  for (int i = 0; i < p->ndegraded && i < AR_MAX_DEGRADED; i++) {
    net->degraded[i] = p->degraded[i];
    net->factor[i] = p->factor[i] >= 1 ? p->factor[i] : 1;
  }
  return AR_OK;
}

/* Returns the latency terms of phase c: alpha per round (the local tier's inside the nodes),
 * the hop latency and the busiest sender's messages. */
static double cost_latency_us(const struct model_cost *c, const struct model_hw *hw,
                              double msg_us) {
  return (c->rounds - c->rounds_local) * hw->alpha_us + c->local_us + c->hops * hw->hop_us +
         c->msgs * msg_us;
}

double model_cost_us(const struct model_cost *c, const struct model_hw *hw, double bytes) {
  if (hw->sums_overlap && hw->gamma > 0) return model_cost_msg_us(c, hw, 0, bytes, 1);
  return cost_latency_us(c, hw, 0) + bytes * c->load * hw->beta + bytes * c->reduce * hw->gamma;
}

#define MODEL_BATCH_BYTES (8.0 * 1024 * 1024) /* tp_ce.cu: about 8 MiB a mini-batch */
#define MODEL_BATCH_MAX 8

double model_cost_overlap_us(const struct model_cost *c, const struct model_hw *hw, double bytes,
                             int k) {
  return model_cost_msg_us(c, hw, 0, bytes, k);
}

/* Adds count rounds of ratio key, their sums load and reduce, to c's ratios (when it has room). */
static void ratio_put(struct model_cost *c, double key, double load, double reduce, int count) {
  int i = 0;
  while (i < c->nratio && c->ratio[i].key != key)
    i++;
  if (i == c->nratio) {
    if (c->nratio == MODEL_RATIOS) return; /* left to the serial sums */
    c->ratio[c->nratio++] = (struct model_ratio){.key = key};
  }
  c->ratio[i].load += load;
  c->ratio[i].reduce += reduce;
  c->ratio[i].count += count;
  c->ratio_rounds += count;
}

void model_cost_ratio_add(struct model_cost *c, double load, double reduce, int count) {
  if (!(load > 0) && !(reduce > 0)) { /* nothing moved, nothing summed: costs no bytes */
    c->ratio_rounds += count;
    return;
  }
  ratio_put(c, load > 0 ? reduce / load : INFINITY, load, reduce, count);
}

void model_cost_ratio_merge(struct model_cost *a, const struct model_cost *b) {
  int in = 0;
  for (int j = 0; j < b->nratio; j++) {
    in += b->ratio[j].count;
    ratio_put(a, b->ratio[j].key, b->ratio[j].load, b->ratio[j].reduce, b->ratio[j].count);
  }
  a->ratio_rounds += b->ratio_rounds - in; /* b's rounds in no ratio, or of no bytes */
}

/* Overlapped sums: each ratio's rounds the larger of their bytes' and sums' times, the rounds
 * in none with their sums after their bytes. */
static double overlap_us(const struct model_cost *c, const struct model_hw *hw, double bytes) {
  double t = 0, load = 0, reduce = 0;
  for (int i = 0; i < c->nratio; i++) {
    const struct model_ratio *m = &c->ratio[i];
    double copy = bytes * m->load * hw->beta, sum = bytes * m->reduce * hw->gamma;
    t += copy > sum ? copy : sum;
    load += m->load;
    reduce += m->reduce;
  }
  if (c->ratio_rounds < c->rounds)
    t += bytes * (c->load - load) * hw->beta + bytes * (c->reduce - reduce) * hw->gamma;
  return t;
}

double model_cost_msg_us(const struct model_cost *c, const struct model_hw *hw, double msg_us,
                         double bytes, int k) {
  double t = cost_latency_us(c, hw, msg_us), load = c->load, reduce = c->reduce;
  if (hw->sums_overlap && hw->gamma > 0) return t + overlap_us(c, hw, bytes);
  for (int i = 0; i < c->nclass; i++) {
    const struct model_class *m = &c->cls[i];
    double copy = bytes * m->load * hw->beta, sum = bytes * m->reduce * hw->gamma;
    int kk = k;
    if (kk <= 0) { /* the transport's choice: the round's transfer in ~8 MiB batches */
      kk = (int)ceil(bytes * m->load / MODEL_BATCH_BYTES);
      kk = kk < 1 ? 1 : kk > MODEL_BATCH_MAX ? MODEL_BATCH_MAX : kk;
    }
    /* the first batch's copy and the last one's sum stand alone; between them the slower of
     * the two streams sets the pace */
    t += m->count * ((copy + sum) / kk + (1 - 1.0 / kk) * (copy > sum ? copy : sum));
    load -= m->count * m->load;
    reduce -= m->count * m->reduce;
  }
  return t + bytes * load * hw->beta + bytes * reduce * hw->gamma; /* rounds in no class */
}

void model_times(const struct model_price *pr, const struct model_hw *hw, double bytes,
                 double delay_us, struct model_times *out) {
  model_times_msg(pr, hw, 0, bytes, delay_us, out);
}

void model_times_msg(const struct model_price *pr, const struct model_hw *hw, double msg_us,
                     double bytes, double delay_us, struct model_times *out) {
  int k = pr->pipelined ? pr->minibatches : 1;
  out->pre_us = model_cost_msg_us(&pr->pre, hw, msg_us, bytes, k);
  out->main_us = model_cost_msg_us(&pr->main, hw, msg_us, bytes, k);
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

/* Each executor's cost per round and bandwidth are in its descriptor (src/transports.c), NCCL's
 * own AllReduce's too; the dry run's estimate and `model --transport` read them. */
const struct ar_transport *model_transport_find(const char *name) {
  const struct ar_transport *nccl = ar_executor_nccl();
  return !strcmp(name, nccl->name) ? nccl : ar_transport_find(name);
}

void model_transport_hw(const struct ar_transport *t, struct model_hw *hw) {
  hw->alpha_us = t->alpha_us;
  hw->beta = 1e6 / t->bytes_per_s;
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

double model_degraded_servers_bound_us(int q, int g, double l, const struct model_hw *hw,
                                       double bytes) {
  if (q < 3 || g < 1 || l < 1) return -1;
  double a = 2 * l * (q - 1) / (l * (q - 2) + 2);
  return (a > l ? a : l) * bytes / g * hw->beta;
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

/* Solves the weighted normal equations for the coefficients in use[] (alpha, msg, beta), the
 * others 0, into x[3]; returns its relative sum of squares, or -1 when singular. */
static double fit_subset(const struct model_sample *smp, size_t n, const int use[3], double x[3]) {
  double a[3][4] = {{0}};
  int idx[3], k = 0;
  for (int j = 0; j < 3; j++)
    if (use[j]) idx[k++] = j;
  for (size_t i = 0; i < n; i++) {
    double w = 1.0 / smp[i].time_us, c[3] = {smp[i].rounds * w, smp[i].msgs * w, smp[i].beta_bytes * w};
    double y = (smp[i].time_us - smp[i].fixed_us) * w;
    for (int r = 0; r < k; r++) {
      for (int q = 0; q < k; q++)
        a[r][q] += c[idx[r]] * c[idx[q]];
      a[r][3] += c[idx[r]] * y;
    }
  }
  double scale = 0;
  for (int r = 0; r < k; r++)
    scale = a[r][r] > scale ? a[r][r] : scale;
  for (int r = 0; r < k; r++) { /* Gaussian elimination, partial pivoting */
    int piv = r;
    for (int q = r + 1; q < k; q++)
      if (fabs(a[q][r]) > fabs(a[piv][r])) piv = q;
    if (!(fabs(a[piv][r]) > 1e-12 * scale)) return -1;
    for (int q = 0; q < 4; q++) {
      double t = a[r][q];
      a[r][q] = a[piv][q];
      a[piv][q] = t;
    }
    for (int q = 0; q < k; q++)
      if (q != r) {
        double f = a[q][r] / a[r][r];
        for (int m = r; m < 4; m++)
          a[q][m] -= f * a[r][m];
      }
  }
  x[0] = x[1] = x[2] = 0;
  for (int r = 0; r < k; r++)
    x[idx[r]] = a[r][3] / a[r][r];
  double e2 = 0;
  for (size_t i = 0; i < n; i++) {
    double e = (x[0] * smp[i].rounds + x[1] * smp[i].msgs + x[2] * smp[i].beta_bytes +
                smp[i].fixed_us - smp[i].time_us) / smp[i].time_us;
    e2 += e * e;
  }
  return e2;
}

int model_fit_msg(const struct model_sample *smp, size_t n, double *alpha_us, double *msg_us,
                  double *beta, double *rel_rms) {
  static const int subsets[4][3] = {{1, 1, 1}, {1, 0, 1}, {0, 1, 1}, {0, 0, 1}};
  double best = -1, bx[3] = {0};
  if (n < 1) return -1;
  for (size_t i = 0; i < n; i++)
    if (!(smp[i].time_us > 0)) return -1;
  for (int s = 0; s < 4; s++) {
    double x[3], e2 = fit_subset(smp, n, subsets[s], x);
    if (e2 < 0 || x[0] < 0 || x[1] < 0 || !(x[2] > 0)) continue;
    if (best < 0 || e2 < best * (1 - 1e-12)) {
      best = e2;
      memcpy(bx, x, sizeof(bx));
    }
  }
  if (best < 0) return -1;
  *alpha_us = bx[0];
  *msg_us = bx[1];
  *beta = bx[2];
  if (rel_rms) *rel_rms = sqrt(best / n);
  return 0;
}
