/* The processes of a run. Without MPI, or without an MPI launcher, there is one, holding
 * every rank as a thread. A binary built with `make MPI=1` and started by mpirun or srun runs
 * one process per MPI rank, each holding the same number of arbench's ranks (a block:
 * process p has ranks p*G .. p*G+G-1). The calls that talk to other processes are collective
 * (every process makes them, in the same order) and are made by one thread of a process at a
 * time. Two implementations: procs_single.c and procs_mpi.c (make picks one). */
#ifndef HX_PROCS_H
#define HX_PROCS_H

#include <stddef.h>

/* Starts MPI when an MPI launcher started this process (its environment says so: OpenMPI's
 * OMPI_COMM_WORLD_SIZE, PMI_SIZE of MPICH and Slurm, PMIX_RANK); 0, or -1 (printed). */
int hx_procs_init(int *argc, char ***argv);
int hx_procs_count(void);      /* processes (1 without MPI) */
int hx_procs_me(void);         /* this process's index, 0 .. count-1 */
int hx_procs_node_index(void); /* its index among the processes of its host (0 without MPI) */
/* The MPI library's version (its first line), or "" without MPI. */
const char *hx_procs_library(void);
void hx_procs_finalize(void);
/* Ends every process of the job with status: MPI_Abort, or _exit in one process. */
void hx_procs_abort(int status) __attribute__((noreturn));

/* ---- collectives ---- */
/* Waits for every process; returns 1 on all of them when any passed err != 0, else 0. */
int hx_procs_barrier(int err);
/* len bytes at buf from process root to every process; 0 or -1. */
int hx_procs_bcast(void *buf, size_t len, int root);
/* Every process's len bytes at mine, in process order, into all (count * len bytes). */
int hx_procs_allgather(const void *mine, void *all, size_t len);
/* Element-wise sums over the processes, in place on every process; 0 or -1. */
int hx_procs_sum_u64(unsigned long long *v, size_t n);
int hx_procs_sum_f64(double *v, size_t n);

/* For the watchdog (any thread): away[p] = 1 for each process p that process 0 is still waiting
 * for in a barrier; when it is not in one (its own ranks wait on a peer), for each process that
 * does not answer a ping within 2 s: stopped, dead, its host out of reach (away holds
 * hx_procs_count() entries); returns how many. */
int hx_procs_absent(unsigned char *away);

#endif
