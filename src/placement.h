/* Where ranks run: rank r on CUDA device dev[r]; several ranks may share one device
 * (co-located: correctness, smoke runs and CI on small machines, never NVLink timings).
 * Pure C so the CPU tests check every rule. */
#ifndef AR_PLACEMENT_H
#define AR_PLACEMENT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AR_PLACE_MAX 16 /* ranks, as AR_MAX_GPUS */

struct ar_placement {
  int n;                     /* ranks */
  int dev[AR_PLACE_MAX];     /* CUDA ordinal of each rank */
  int share[AR_PLACE_MAX];   /* ranks on rank r's device, r included (1: alone) */
  int slot[AR_PLACE_MAX];    /* r's position among them (0 .. share - 1) */
  int ndev;                  /* distinct devices */
  int min_share, max_share;  /* over the devices used */
  int nhosts;                /* hosts the ranks span (0 or 1: one) */
  int machines;              /* rehearsed hosts (procs.hosts): the machines they ran on; else 0 */
};

/* Fills p for n ranks on dev[0..n-1] (n <= AR_PLACE_MAX). */
void ar_place(struct ar_placement *p, const int *dev, int n);

/* Places n ranks round-robin over the ngpus ordinals of gpus: rank r on gpus[r % ngpus]. */
void ar_place_round_robin(struct ar_placement *p, const int *gpus, int ngpus, int n);

/* The ranks span nhosts hosts; machines > 0: they are rehearsed, as processes grouped into
 * hosts on that many machines (procs.hosts). After ar_place. */
void ar_place_hosts(struct ar_placement *p, int nhosts, int machines);

/* 1 when some device hosts more than one rank. */
int ar_place_colocated(const struct ar_placement *p);

/* The placement column: "1 rank/GPU", "4 ranks/GPU", "2-3 ranks/GPU" (uneven), then the hosts
 * where there are several: "1 rank/GPU on 2 hosts", "1 rank/GPU on 2 hosts (rehearsed on
 * one)"; returns buf. */
char *ar_place_text(const struct ar_placement *p, char *buf, size_t len);

/* Which ranks each device hosts: "GPU 0: ranks 0-3" or "GPU 0: ranks 0,2; GPU 1: ranks 1,3";
 * returns buf. */
char *ar_place_detail(const struct ar_placement *p, char *buf, size_t len);

/* The SMs rank r's kernels that wait on peers may occupy: the device's sms divided evenly
 * among the ranks on it (at least 1). Every transport sizes such kernels within this share
 * (at most one resident block per SM of it), so that all co-located ranks' waiting blocks
 * are resident at once and a spinning rank can never keep the rank it waits for off the GPU. */
int ar_place_sms(const struct ar_placement *p, int r, int sms);

#ifdef __cplusplus
}
#endif
#endif
