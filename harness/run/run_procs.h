/* A run's ranks over its processes and GPUs (run_procs.c). */
#ifndef HX_RUN_PROCS_H
#define HX_RUN_PROCS_H

#include "bench/bench.h"
#include "record/meta.h"

/* One process: every rank here (cfg->dev already picked); each rank's line in m->rank. */
void procs_describe_local(struct hx_bench_cfg *cfg, struct hx_meta *m);
/* procs.hosts (rehearsed hosts): refuses, with one line naming the setting and its value, a
 * value that cannot group this run's processes (not under mpirun or srun, more blocks than
 * processes, blocks of unequal size, scenarios that disagree); 0 or -1. Every process finds the
 * same; process 0 says it. */
int procs_hosts_refuse(const struct run_plan *plan);
/* Several processes (collective): this process's ranks and every rank's device, physical GPU,
 * placement and line, and m's MPI fields; 0, or the exit status (the same on every process;
 * the process that found bad input printed it). */
int procs_place(const struct run_opts *o, struct hx_bench_cfg *cfg, struct hx_meta *m);

#endif
