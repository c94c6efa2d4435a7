/* What a run was measured on: host, GPUs, driver, CUDA, NCCL; meta.txt and COMMAND. */
#ifndef HX_META_H
#define HX_META_H

#include <stddef.h>

#include "placement.h"

struct hx_meta {
  char host[128];
  char gpu[256];    /* rank 0's GPU name, e.g. "NVIDIA H200" */
  char driver[64];  /* e.g. "580.159.04" (nvidia-smi), else the driver API version */
  char cuda[32];    /* the CUDA runtime, e.g. "13.0" */
  char nccl[32];    /* the NCCL library loaded, e.g. "2.28.3" */
  char command[4096];
  char rank[16][224]; /* each rank's host and GPU (run_procs.c; HX_MAX_DEVS) */
  /* several processes (MPI; nproc 0 or 1: one process) */
  int nproc, per_proc;
  char mpi[256];      /* the MPI library */
  char launch[1024];  /* the launcher's command line, or how the job was seen to start */
  char hosts[1024];   /* "host (ranks 0-3), host2 (ranks 4-7)" */
  char rehearsal[512]; /* procs.hosts: how the processes became hosts, and NCCL's variables */
};

/* Fills everything but the GPU and driver fields (no GPU needed); returns 0. */
int hx_meta_basic(struct hx_meta *m, int argc, char **argv);
/* Adds the GPU name of device dev0, the driver, CUDA runtime and NCCL versions; returns 0. */
int hx_meta_devices(struct hx_meta *m, int dev0);
/* Writes DIR/meta.txt (command, git revision, placement, GPUs, versions, topology, clocks,
 * NVLink) and
 * DIR/COMMAND; returns 0, or -1 when a file could not be written. */
int hx_meta_write(const struct hx_meta *m, const char *dir, const struct ar_placement *pl);

#endif
