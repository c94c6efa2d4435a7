#!/usr/bin/env bash
# One H200, one call: the waiting ranks' backoff (harness/procs/backoff.h) and MPI's collectives
# waited on by polling (session 25) on a GPU: make gputest (threads' barriers, every transport),
# then one rank per process under mpirun (tools/device/mpi_processes.sh's quick, np2 and np4
# stages: barriers, broadcasts and gathers across processes, every algorithm on ce and sm).
# Carried: build/arbench, .carry/ompi.tar.xz. Everything under $OUT.
set -u
cd "$(dirname "$0")/../.."
export NCCL_NVLS_ENABLE=0
. tools/device/lib.sh # gputest, stamp
nvidia-smi -L
gputest "$OUT/gputest.log" /tmp/gputest
DEADLINE=300 STAGES="quick np2 np4" OUT=$OUT/mpi bash tools/device/mpi_processes.sh >"$OUT/mpi.log" 2>&1
stamp "mpi_processes quick np2 np4: exit $?"
tail -n 40 "$OUT/mpi.log"
