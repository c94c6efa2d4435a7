/* A compute load beside the AllReduce (`arbench run --compute KIND`, docs/cli.md): what runs on
 * every rank's GPU, on a stream of its own, starting with each timed AllReduce, as a training
 * step's GEMMs run beside its gradient buckets' reduction. Pure C: the option's words, the
 * load's text in results.csv's `compute` column, and the rule that sizes a load to last about
 * as long as the AllReduce alone. The GPUs' loads are src/cuda/load.cu and load_gemm.cu; the
 * fake GPU (tests/sim/fake_load.c) times the same sizes on its clocks. */
#ifndef AR_COMPUTE_H
#define AR_COMPUTE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ar_compute_kind {
  AR_COMPUTE_NONE,  /* no load: the row is the AllReduce alone */
  AR_COMPUTE_MEMBW, /* a streaming kernel: HBM busy, as an optimizer step */
  AR_COMPUTE_SM,    /* N SMs busy with integer arithmetic, no memory traffic */
  AR_COMPUTE_GEMM   /* cuBLASLt, bf16 inputs, fp32 accumulation, bf16 output */
};

#define AR_COMPUTE_MAX_SMS 1024
#define AR_COMPUTE_MAX_DIM 65536
#define AR_COMPUTE_MAX_GEMM_BYTES (8ull << 30) /* A, B and C of one rank's GEMM */
#define AR_COMPUTE_MAX_MEMBW (256ull << 20)    /* each of membw's two buffers: past any L2 */

struct ar_compute {
  int kind;       /* enum ar_compute_kind */
  int fixed;      /* gemm:MxNxK: its shape given, never sized */
  int sms;        /* sm: the SMs kept busy (one block of 1024 threads on each) */
  int m, n, k;    /* gemm: C (m x n) = A (m x k) B (k x n), column-major */
  uint64_t bytes; /* membw: each of its two buffers */
  int passes;     /* membw: passes, each reading one buffer and writing the other */
  uint64_t steps; /* sm: dependent integer steps of each thread */
};

/* Parses --compute's value: membw, sm:N (1..AR_COMPUTE_MAX_SMS), gemm or gemm:MxNxK (each
 * 1..AR_COMPUTE_MAX_DIM, A, B and C within AR_COMPUTE_MAX_GEMM_BYTES), every number a plain
 * decimal. Returns 0, or -1 with why (for the one line of bad input) in why. The sizes not
 * given are left 0: ar_compute_probe and ar_compute_fit choose them per row. */
int ar_compute_parse(const char *text, struct ar_compute *c, char *why, size_t len);
/* The load as the option names it ("membw", "sm:8", "gemm", "gemm:4096x4096x4096"); "" for
 * none. Returns buf. */
char *ar_compute_kind_text(const struct ar_compute *c, char *buf, size_t len);
/* The load as sized, results.csv's `compute` column: "gemm:6144x6144x6144",
 * "membw:268435456x12" (bytes of each buffer x passes), "sm:8x40960" (SMs x steps); "" for
 * none. Returns buf. */
char *ar_compute_text(const struct ar_compute *c, char *buf, size_t len);
/* The work a load does, in what its time grows with: a GEMM's flops (2mnk), membw's bytes
 * moved (2 x bytes x passes), sm's steps. */
double ar_compute_work(const struct ar_compute *c);
/* The first size timed for want's kind (a given GEMM is itself): gemm 2048^3, membw 64 MiB
 * once, sm want's SMs x 4096 steps. */
void ar_compute_probe(const struct ar_compute *want, struct ar_compute *probe);
/* The size of probe's kind that lasts target_us at the pace probe showed (probe_us): its work
 * scaled by target_us / probe_us, then rounded: a GEMM's m = n = k to a multiple of 128 in
 * 128..16384; membw's buffers to whole MiB in 1 MiB..AR_COMPUTE_MAX_MEMBW, then the passes
 * (at least 1); sm's steps (at least 16). A target or probe time that is not > 0 gives the
 * smallest. A fixed GEMM stays as it is. */
void ar_compute_fit(const struct ar_compute *probe, double probe_us, double target_us,
                    struct ar_compute *out);

#ifdef __cplusplus
}
#endif
#endif
