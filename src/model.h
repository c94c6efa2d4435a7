/* Model mode: prices a schedule without GPUs, in one of two ways (docs/model.md).
 * Rounds (model_price_*, the fast bound): every round is bulk-synchronous: its flows are
 * routed on a topology (a full switch, a full mesh of links, a D-dimensional torus with
 * shortest-path dimension-order routing, or two tiers: G GPUs per node on a switch, a NIC per
 * GPU between nodes) and the round lasts
 *     alpha + hops * hop_latency + messages_of_the_busiest_sender * msg_cost
 *           + bytes_on_the_most_loaded_link * slowdown * beta
 *           + bytes_reduced_at_the_busiest_rank * gamma
 * (the local tier's alpha for a round that stays inside the nodes). A degraded GPU (--degrade R:F) has
 * every link into and out of it F times slower (a slow port; on two tiers its NIC). A
 * pipelined schedule (async-ring) overlaps each round's sums with its copies over K
 * mini-batches: (transfer + sum) / K + (1 - 1/K) max(transfer, sum). Pricing reduces a
 * schedule to a few size-independent sums (struct model_cost), so a size sweep prices each
 * schedule once. Closed forms from the papers sit beside the pricing so tests can hold the two
 * against each other. Flows (model_flow_*): every transfer is a flow on its route's links,
 * started when the transfers it depends on end, the links shared max-min fairly among the
 * flows crossing them, priced by events. Pure C, no CUDA. */
#ifndef AR_MODEL_H
#define AR_MODEL_H

#include <stddef.h>

#include "ar.h"
#include "transports.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most ranks the model prices (the papers' 16384-node tori and 256 x 256): beyond
 * AR_MAX_RANKS only generators whose transfers grow slower than n^2 build. */
#define MODEL_MAX_RANKS 65536

/* The torus-like networks of swing.txt s5.4 lay the ranks on a 2-D grid as a torus does
 * (--torus AxB, or the most square shape): HammingMesh (Hx2Mesh, Hx4Mesh) joins square boards
 * of 2x2 or 4x4 ranks, each a 2-D mesh, by one fat tree per row and per column that every board
 * edge on that row or column reaches (modelled as non-blocking: only its ports load); HyperX
 * links every rank directly to every other of its row and of its column. */
enum model_topology {
  MODEL_SWITCH = 0,
  MODEL_TORUS = 1,
  MODEL_TWO_TIER = 2,
  MODEL_HX2MESH = 3,
  MODEL_HX4MESH = 4,
  MODEL_HYPERX = 5,
  MODEL_MESH = 6, /* every GPU linked to every other: an NVLink mesh, its bandwidth split
                   * evenly over its n - 1 links (a switch is one port for all peers) */
};

#define MODEL_MESH_MAX 64 /* ranks a mesh prices (n^2 links; NVLink meshes have 4-8 GPUs) */

/* The topologies' names as --topology takes them ("switch", "torus", "two-tier", "hx2mesh",
 * "hx4mesh", "hyperx", "mesh"): the name of t, and the topology of a name (-1: none). */
const char *model_topology_name(int topology);
int model_topology_find(const char *name);

/* The topologies algorithm a's schedules are priced on, in words for --list: those on a
 * logical torus ("torus,hx2mesh,hx4mesh,hyperx": --torus gives the grid), those needing
 * --gpus-per-node ("two-tier"), NCCL itself ("GPUs only"), else "any". */
const char *model_algo_topologies(const struct ar_algo *a);

/* Returns 1 for a topology laid on the ranks' 2-D grid (torus-like: HammingMesh, HyperX). */
static inline int model_topology_grid(int topology) {
  return topology >= MODEL_HX2MESH && topology <= MODEL_HYPERX;
}

/* The network the flows are routed on. */
struct model_net {
  int topology;                /* enum model_topology */
  int ndims;                   /* torus and grid topologies */
  int dims[AR_MAX_TORUS_DIMS]; /* dimension 0 varies fastest: rank = a0 + d0*(a1 + ...) */
  int ndegraded;
  int degraded[AR_MAX_DEGRADED];
  double factor[AR_MAX_DEGRADED]; /* slowdown of every link touching that rank */
  int board;          /* HammingMesh: the side of its square boards (2, 4) */
  int gpus_per_node;  /* two tiers: G; rank r sits in node r / G */
  double local_speed;    /* two tiers: a link inside a node over a NIC, in bandwidth (> 0) */
  double local_alpha_us; /* two tiers: alpha of a round whose flows all stay inside nodes */
};

/* Hardware constants: times in microseconds, beta and gamma in microseconds per byte. */
struct model_hw {
  double alpha_us; /* per round (flows: per transfer, after its last byte leaves) */
  double hop_us;   /* per hop of the longest route of a round (torus; 1 hop on a switch) */
  double beta;     /* per byte over one link (1e6 / bytes per second) */
  double gamma;    /* per byte reduced at one rank; 0 to ignore reduction cost */
  int sums_overlap; /* --gamma-overlap: sums hide behind the bytes they sum (rounds: a round
                     * costs max(bytes' time, sums' time); flows: a reduce's sum runs as its
                     * bytes land); 0: sums after the bytes */
};
/* Beside model_hw, what a message costs (LogGP's o, or g per port), msg_us: every transfer pays
 * it on the port it leaves by before its bytes move, a port's messages one after another (a
 * GPU's port: all its transfers, whatever link they take; a NIC's: each link). Rounds: each
 * round, the messages of its busiest port. The functions without it price none. */

#define MODEL_CLASSES 8 /* distinct rounds a pipelined schedule's overlap is priced for */

/* Rounds of a pipelined schedule alike in their loads: count rounds of (load, reduce). */
struct model_class {
  double load, reduce;
  int count;
};

#define MODEL_RATIOS 32 /* distinct sums-to-bytes ratios a phase keeps for overlapped sums */

/* Rounds of one ratio reduce / load (key): sum_i max(L_i beta, R_i gamma) over them is
 * max(L beta, R gamma) of their sums, so overlapped sums price exactly from a few of these. */
struct model_ratio {
  double key, load, reduce;
  int count;
};

/* One phase of a schedule (precondition or main) reduced to sums over its non-empty rounds.
 * Loads are in buffer fractions (1 = the whole vector) so any size prices in O(1). */
struct model_cost {
  int rounds;        /* non-empty rounds */
  double hops;       /* sum of each round's longest route, in hops */
  double load;       /* sum of each round's most loaded link (fraction x slowdown) */
  double load_ideal; /* the same with every flow charged to its first and last link only */
  double reduce;     /* sum of each round's largest fraction reduced at one rank */
  double msgs;       /* sum of each round's most messages sent by one port */
  int rounds_local;  /* two tiers: rounds with no flow between nodes, which cost */
  double local_us;   /* ... the net's local_alpha_us each (summed here) instead of alpha */
  int nclass;        /* pipelined schedules: its rounds by (load, reduce); the rest serial */
  struct model_class cls[MODEL_CLASSES];
  int nratio;        /* every schedule: its rounds by reduce / load, for overlapped sums ... */
  int ratio_rounds;  /* ... covering this many rounds (the rest priced with sums after bytes) */
  struct model_ratio ratio[MODEL_RATIOS];
};

struct model_price {
  int nranks;
  struct model_cost pre;  /* rounds [0, nprecond): among the non-stragglers, during the delay */
  struct model_cost main; /* the rest: after the straggler arrives */
  int pipelined;          /* AR_TRAIT_PIPELINED: sums overlap copies over mini-batches */
  int minibatches;        /* K for a pipelined schedule; 0: as the ce transport picks them
                           * (about 8 MiB each, at most 8) */
};

/* Predicted times of one AllReduce, as the harness reports them. */
struct model_times {
  double pre_us, main_us;
  double time_us;          /* from the non-stragglers' entry to the last rank's finish */
  double after_arrival_us; /* time_us minus the straggler's delay */
};

/* The most square 2-D factorisation a x b of n with a <= b (1-D {n} when n is prime);
 * returns the number of dimensions written to dims. */
int model_default_torus(int n, int dims[AR_MAX_TORUS_DIMS]);

/* Fills net for n ranks from the generator's parameters (torus shape, GPUs per node, degraded
 * GPUs); two tiers start with local_speed 1 and local_alpha_us 0 for the caller to set.
 * Returns AR_OK, or AR_ERR_INVALID when the torus does not multiply to n, G does not
 * divide it, or a grid topology's shape is not 2-D (HammingMesh: sides the board divides). */
ar_status model_net_init(struct model_net *net, int topology, const struct ar_params *p);

/* model_price.c: routes every round of s on net and sums the costs of each phase into out.
 * Linear in the number of transfers (a dense torus round: in its straight runs); a round that
 * repeats the one before is not routed again; never runs the verifier. Rounds are priced
 * independently, so schedules of millions of transfers split across threads
 * (the setting model.threads forces a count). */
ar_status model_price_schedule(const struct ar_schedule *s, const struct model_net *net,
                               struct model_price *out);
/* Prices algorithm a's schedule for p on net into out: by the algorithm itself where it can
 * (a->price: the same sums without the transfers), else built and streamed (priced round by
 * round as the generator emits them, nothing stored) when the generator builds in round
 * order, else stored and priced by model_price_schedule. On failure the build's status, with
 * its reason in reason[0..rlen). */
ar_status model_price_algo(const struct ar_algo *a, const struct ar_params *p,
                           const struct model_net *net, struct model_price *out, char *reason,
                           size_t rlen);

/* Adds one round's most loaded link and most reduced rank (buffer fractions) to c's ratios. */
void model_cost_ratio_add(struct model_cost *c, double load, double reduce, int count);
/* Adds b's ratios into a's (phases summed: threads' parts). */
void model_cost_ratio_merge(struct model_cost *a, const struct model_cost *b);

/* Time of one phase for a buffer of `bytes` bytes, its sums after its copies (hw->sums_overlap
 * and gamma: each round the larger of its bytes' and its sums' times, by model_cost_msg_us). */
double model_cost_us(const struct model_cost *c, const struct model_hw *hw, double bytes);
/* The same with the rounds of c's classes overlapping sums and copies over k mini-batches
 * (k <= 0: the ce transport's choice per round, about 8 MiB each and at most 8). */
double model_cost_overlap_us(const struct model_cost *c, const struct model_hw *hw, double bytes,
                             int k);
/* The same with msg_us per message (the busiest sender's, each round). With hw->sums_overlap
 * (and gamma > 0) every round, pipelined or not, costs its latency + max(bytes x load x beta,
 * bytes x reduce x gamma): the limit of k -> infinity; rounds beyond the phase's ratios
 * (more than MODEL_RATIOS distinct) keep their sums after their bytes. */
double model_cost_msg_us(const struct model_cost *c, const struct model_hw *hw, double msg_us,
                         double bytes, int k);

/* Times with a straggler delay (0: none). Straggler-aware schedules (a precondition) overlap
 * the precondition with the delay; bulk-synchronous ones start after it. */
void model_times(const struct model_price *pr, const struct model_hw *hw, double bytes,
                 double delay_us, struct model_times *out);
/* The same with msg_us per message. */
void model_times_msg(const struct model_price *pr, const struct model_hw *hw, double msg_us,
                     double bytes, double delay_us, struct model_times *out);

/* ---- flows (model_flow_graph.c builds, model_flow.c prices; docs/model.md) ----
 * A transfer x of round k, src -> dst, waits for:
 *  - its data: the transfers that last wrote its chunks at src before round k (every one of
 *    them when several reduced into them in that round);
 *  - its ports: the transfers of the last earlier round on the port x leaves src by and on
 *    the port it enters dst by (a port sends, and receives, in round order; one round's
 *    transfers on a port share it). A GPU (switch, mesh, two tiers) has one port each way,
 *    its program's order whatever link a transfer takes; a NIC (tori, grids) a port a link;
 *  - a straggler: a transfer from or to it starts at its arrival at the earliest.
 * Then it pays msg_us on its port (a port's messages one after another, in the order they
 * become ready, ties in schedule order), its bytes move at the rate max-min fair sharing of its
 * route's links gives it (a route split both ways round a ring carries half each way, at one
 * rate), its last byte lands alpha (the local tier's inside a node) + hops x hop latency
 * later, and a reduce then sums at dst (bytes x gamma, a rank's sums one after another; with
 * hw->sums_overlap its route ends in dst's summing instead, a link of 1 / gamma). A
 * copy onto its own rank costs nothing. A write into chunks that an earlier transfer still
 * sends does not wait (the lowering lands it in scratch). */

#define MODEL_FLOW_MAX_XFERS (1 << 23) /* transfers a flow graph takes (about 1 GB) */

struct model_flow_graph; /* a schedule's flows: routes and what each waits for */

/* Builds s's flow graph on net into *out (model_flow_free releases it). Returns AR_OK,
 * AR_ERR_INVALID (the topology does not fit s), AR_ERR_UNSUPPORTED (more than
 * MODEL_FLOW_MAX_XFERS transfers) or AR_ERR_NOMEM. */
ar_status model_flow_build(const struct ar_schedule *s, const struct model_net *net,
                           struct model_flow_graph **out);
void model_flow_free(struct model_flow_graph *g);
/* Builds algorithm a's schedule for p (stored) and its flow graph; on failure the status,
 * with its reason in reason[0..rlen). */
ar_status model_flow_algo(const struct ar_algo *a, const struct ar_params *p,
                          const struct model_net *net, struct model_flow_graph **out,
                          char *reason, size_t rlen);
/* Times of one AllReduce of `bytes` priced by events, with `straggler` (-1: none) arriving
 * delay_us after the others began. pre_us: when the precondition's last transfer ended. */
ar_status model_flow_times(const struct model_flow_graph *g, const struct model_hw *hw,
                           double msg_us, double bytes, int straggler, double delay_us,
                           struct model_times *out);
/* The graph's transfers, and its nodes (transfers and the joins of what they wait for). */
size_t model_flow_xfers(const struct model_flow_graph *g);

/* Parses a bandwidth: 450GB/s, 400Gb/s (bits), 1.5TB/s, 200GiB/s, 4.5e11 (bytes/s); must be
 * > 0. Returns 0 and sets *bytes_per_s, or -1 with a reason in *why. */
int model_parse_bw(const char *s, double *bytes_per_s, const char **why);

/* ---- each transport's cost per round and bandwidth ---- */

/* The fitted figures (alpha per round, one link's bandwidth) of a transport (its descriptor,
 * src/transports.h) or of the native nccl call (its executor, AR_EX_NCCL; nccl as a
 * ring), as `arbench model --calibrate` fitted them on 4 x H200, or NULL. */
const struct ar_transport *model_transport_find(const char *name);
/* Sets hw's alpha and beta to a transport's figures (hop latency and gamma untouched). */
void model_transport_hw(const struct ar_transport *t, struct model_hw *hw);

/* ---- closed forms from the papers (buffer of `bytes`, alpha-beta on a switch) ---- */

/* stragglar.txt Table 1 and s4.1: ring, 2(n-1) alpha + 2(n-1)/n S beta (any n). */
double model_closed_ring(int n, const struct model_hw *hw, double bytes);
/* stragglar.txt Table 1: RH/D, 2 log2 n alpha + 2(n-1)/n S beta; n a power of 2, else -1. */
double model_closed_rhd(int n, const struct model_hw *hw, double bytes);
/* swing.txt s2.3.2: latency-optimal recursive doubling, log2 n (alpha + S beta); pow2 or -1. */
double model_closed_rd(int n, const struct model_hw *hw, double bytes);
/* stragglar.txt Table 1: StragglAR after the straggler arrives,
 * (n + log2 n - 2) alpha + (n + log2 n - 2)/(n-1) S beta; n a power of 2 >= 4, else -1. */
double model_closed_stragglar(int n, const struct model_hw *hw, double bytes);
/* stragglar.txt s4.1: Broadcast baseline after arrival, log2 n (alpha + S beta); pow2 or -1. */
double model_closed_bcast(int n, const struct model_hw *hw, double bytes);

/* swing.txt s4.1: congestion deficiency of multiport Swing (bandwidth-optimal) on a torus with
 * power-of-2 dimensions: sum_s delta(sigma(s)) / 2^(s+1) over the log2 p steps, divided by
 * (1 - 1/p), the no-congestion bytes; sigma advances only over dimensions still active. */
double model_swing_congestion(int ndims, const int *dims);
/* swing.txt Table 2: Swing (B) congestion deficiency for D = 2, 3, 4 (p -> infinity). */
double model_swing_table2(int ndims);

/* optcc.txt App. C / Table 3: OPTCC time over T0 = 2(p-1)/p n for one GPU slowed by l, with
 * k segments (k <= 0: k -> infinity). l < 2: p l/((p-2)l+2) (k+l-1)/k; l >= 2: l n (k+1)/k. */
double model_optcc_ratio(int p, double l, int k);
/* optcc.txt Theorem 6 (Table 2 row 1): lower bound on T/T0, max{2l(p-1)/(l(p-2)+2), l} n / T0. */
double model_optcc_bound_ratio(int p, double l);

/* optcc.txt Theorems 6 and 2 (Table 2): the time no AllReduce can beat with m >= 1 degraded
 * GPUs of slowdowns l[0..m) among p, bandwidth only: max{2l(p-1)/(l(p-2)+2), l} S beta for
 * m = 1, max{2(p-1)/(p-m+sum 1/l_i), max l_i} S beta for m > 1; -1 when p < 3 or m < 1. */
double model_degraded_bound_us(int p, int m, const double *l, const struct model_hw *hw,
                               double bytes);

/* optcc.txt Theorem 13 (Table 2 row 3): the time no AllReduce can beat on q servers of g GPUs
 * (a NIC each) with one server's NICs slowed by l, bandwidth only:
 * n/g max{2l(q-1)/(l(q-2)+2), l} S beta; -1 when q < 3 or g < 1. */
double model_degraded_servers_bound_us(int q, int g, double l, const struct model_hw *hw,
                                       double bytes);

/* ---- calibration: fitting alpha and beta to measured times ---- */

struct model_sample {
  double rounds;     /* coefficient of alpha: the phase's rounds (plus hops x hop/alpha: 0) */
  double msgs;       /* coefficient of the per-message cost: the busiest port's, summed */
  double beta_bytes; /* coefficient of beta: bytes x load (most loaded link per round, summed) */
  double fixed_us;   /* time not explained by alpha or beta (gamma, delay): subtracted */
  double time_us;    /* measured */
};

/* Least squares on relative error: minimises sum ((alpha R + beta B + fixed - t) / t)^2 with
 * alpha >= 0 and beta > 0. Returns 0, or -1 when the samples cannot fix beta. */
int model_fit(const struct model_sample *smp, size_t n, double *alpha_us, double *beta,
              double *rel_rms);
/* The same with a per-message cost: minimises sum ((alpha R + msg M + beta B + fixed - t) /
 * t)^2 with alpha >= 0, msg >= 0 and beta > 0 (the best of the fits that keep them so, a
 * coefficient pinned to 0 where the free fit would make it negative or cannot separate it).
 * Returns 0, or -1 when the samples cannot fix beta. */
int model_fit_msg(const struct model_sample *smp, size_t n, double *alpha_us, double *msg_us,
                  double *beta, double *rel_rms);

#ifdef __cplusplus
}
#endif
#endif
