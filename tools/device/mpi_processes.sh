#!/usr/bin/env bash
# One rank per process (docs/multiprocess.md): arbench built with MPI=1 (OpenMPI carried from
# the CPU machine in .carry/ompi.tar.xz: the GPU image has no MPI) and started by mpirun; on a
# one-GPU machine every process's rank is on that GPU, so every transport's peer memory is
# another process's, mapped by CUDA IPC. Made runs/reference/h100x1-mpi and h200x2-mpi (x2).
#   STAGES="quick np2 np4 rpp np1 scen skew stop kill" OUT=$OUT bash tools/device/mpi_processes.sh
# Stages: quick (a few rows, timed: what a row costs), np2 / np4 (every algorithm on ce and sm,
# -np 2 / -np 4), np1 (mpirun -np 1 --ranks 4 against a plain run: the same rows), scen (a
# straggler and a degraded GPU across processes), rpp (2 processes of 2 ranks), skew (the
# ranks' start spread, timing.start_skew), stop (a process stopped mid-run: the watchdog names
# its rank and ends the job), kill (a process killed mid-run: the job must end, naming it, with
# the rows already written kept). Everything lands in $OUT/mpi_processes.tgz.
set -u
export NCCL_NVLS_ENABLE=0
deadline=${DEADLINE:-570}
out=${OUT:-/tmp/mpi_processes}; mkdir -p "$out"
stages=${STAGES:-quick np2}
. tools/device/lib.sh
ompi_env || { echo "no .carry/ompi.tar.xz"; exit 1; }
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version --format=csv; orterun --version | head -1; } >"$out/gpu.txt" 2>&1
cat "$out/gpu.txt"
t0=$SECONDS
echo "== build (MPI=1)"
{ time make B=build-dev -j16 MPI=1 MPICC=$MPICC >"$out/build.log" 2>&1; } 2>&1 | grep real
[ -x build-dev/arbench ] || { tail -20 "$out/build.log"; exit 1; }
A=build-dev/arbench
rows() { # summary of a run folder's results.csv: status counts
  local f=$out/$1/results.csv
  [ -s "$f" ] || { echo "     (no results.csv)"; return; }
  awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="status") s=i; next} {c[$s]++} END{for(k in c) printf "     %s %d\n", k, c[k]}' "$f"
}
common="-n ${ITERS:-3} -w 1 -T 30 --force"
# interrupt NAME SIGNAL T PATTERN: a 4-process run (watchdog -T T) whose process 2 gets SIGNAL
# after 12 s; says when the job ended and the lines matching PATTERN
interrupt() {
  local name=$1 sig=$2 t=$3 pattern=$4 t1=$SECONDS victim
  ( timeout -k 5 120 $mpirun -np 4 $A run --algo all --transport ce,sm --sizes 1K,1M,64M -T "$t" --force -o "$out/$name" >"$out/$name.log" 2>&1; echo "exit $?" >>"$out/$name.log" ) &
  sleep 12
  victim=$(for p in $(pgrep -f "$A run"); do tr '\0' '\n' </proc/$p/environ 2>/dev/null | grep -qx OMPI_COMM_WORLD_RANK=2 && echo $p; done | head -1)
  echo "   SIG$sig to pid ${victim:-none} (OMPI_COMM_WORLD_RANK=2) after 12 s"
  [ -n "$victim" ] && kill -"$sig" "$victim"
  wait
  [ -n "$victim" ] && kill -9 "$victim" 2>/dev/null
  echo "   job ended $((SECONDS - t1)) s after its start: $(tail -1 "$out/$name.log")"
  grep -iE "$pattern" "$out/$name.log" | head -5
  rows "$name"
}
for st in $stages; do
  case $st in
  quick)
    echo "== quick: ring and rhd, ce and sm, -np 2 and -np 4"
    run quick_np2 60 $mpirun -np 2 $A run --algo ring,rhd,nccl --transport ce,sm --sizes 1K,1M,64M $common -o $out/quick_np2
    rows quick_np2
    run quick_np4 60 $mpirun -np 4 $A run --algo ring,rhd --transport ce,sm --sizes 1K,1M,64M $common -o $out/quick_np4
    rows quick_np4 ;;
  np2|np4)
    np=${st#np}
    echo "== every algorithm on ce and sm, -np $np, all on the one GPU"
    run all_np$np 200 $mpirun -np $np $A run --algo all --transport ce,sm --sizes ${SIZES:-1K,1000004,64M} $common -o $out/all_np$np
    rows all_np$np ;;
  np1)
    echo "== mpirun -np 1 --ranks 4 against a plain run"
    run np1_mpi 120 $mpirun -np 1 $A run --ranks 4 --algo ring,rhd,direct --transport ce,sm --sizes 1K,1M $common -o $out/np1_mpi
    run np1_plain 120 $A run --ranks 4 --algo ring,rhd,direct --transport ce,sm --sizes 1K,1M $common -o $out/np1_plain
    rows np1_mpi; rows np1_plain ;;
  scen)
    echo "== a straggler and a degraded GPU across 4 processes"
    run straggler_np4 150 $mpirun -np 4 $A run --algo ring,stragglar,rhd --transport ce,sm --sizes 64M --straggler 3:2ms $common -o $out/straggler_np4
    rows straggler_np4
    run degrade_np4 150 $mpirun -np 4 $A run --algo ring,optcc,optcc-ring --transport ce,sm --sizes 1M,64M --degrade 0:8 $common -o $out/degrade_np4
    rows degrade_np4 ;;
  rpp)
    echo "== 2 processes of 2 ranks each (threads), all on the one GPU"
    run rpp_np2 150 $mpirun -np 2 $A run --ranks-per-process 2 --algo all --transport ce,sm --sizes 1K,1M $common -o $out/rpp_np2
    rows rpp_np2 ;;
  skew)
    echo "== how far apart the ranks' starts are (timing.start_skew), -np 4 and one process"
    run skew_np4 100 $mpirun -np 4 $A run --algo ring,direct --transport ce,sm --sizes 1K,1M,64M -n 20 -w 5 -T 30 --force --set timing.start_skew=on -o $out/skew_np4
    run skew_np1 100 $A run --ranks 4 --algo ring,direct --transport ce,sm --sizes 1K,1M,64M -n 20 -w 5 -T 30 --force --set timing.start_skew=on -o $out/skew_np1
    grep -h -B1 "start skew" $out/skew_np4.log $out/skew_np1.log | head -40 ;;
  stop)
    echo "== process 2 of 4 stopped (SIGSTOP) during a run: the watchdog must name its rank"
    interrupt stop_np4 STOP 10 "timeout|not finished|MPI_ABORT" ;;
  x2)
    echo "== two GPUs: every algorithm across 2 processes, then 2 processes against 2 threads"
    run x2_all 200 $mpirun -np 2 $A run --algo all --transport nccl-p2p,ce,sm --sizes 1K,1000004,1M,64M,1G -n 10 -w 3 -T 30 --force -o $out/x2_all
    rows x2_all
    for how in procs threads; do
      if [ $how = procs ]; then launch="$mpirun -np 2 $A run"; else launch="$A run --gpus 0,1"; fi
      run x2_skew_$how 120 $launch --algo nccl,ring,direct --transport ce,sm --sizes 1K,1M,64M,1G -n 20 -w 5 -T 30 --force --set timing.start_skew=on -o $out/x2_skew_$how
    done
    grep -h -B1 "start skew" $out/x2_skew_procs.log $out/x2_skew_threads.log | head -60 ;;
  kill)
    echo "== process 2 of 4 killed during a run"
    interrupt kill_np4 KILL 30 "rank 2|process 2|exited on signal|timeout" ;;
  esac
done
echo "== total $((SECONDS - t0)) s"
# one archive: the device tool brings back a limited number of files
(cd "$out" && tar czf /tmp/mpi_processes.tgz --exclude='*.png' --exclude='*.svg' --exclude=report.html . && rm -rf ./* && mv /tmp/mpi_processes.tgz .)
