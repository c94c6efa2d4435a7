#!/usr/bin/env bash
# #38 on 2 x H200, one call: 2 processes as 2 rehearsed hosts (--set procs.hosts=2). Open MPI 4.1
# from .carry/hosts/ompi.tar.xz (the GPU image has none), arbench (MPI=1) built on the CPU
# machine from branch hosts. Stages: a process stopped (SIGSTOP) and one killed (SIGKILL) mid-run
# (-T 10), then nccl and every algorithm on nccl-p2p, ce, sm, ll at 1 KiB..1 GiB with the start
# skew, NCCL_DEBUG=INFO into one file per process (the NET lines). Everything under $OUT.
set -u
t0=$SECONDS; deadline=${DEADLINE:-405}
out=${OUT:-/tmp/hosts}; mkdir -p "$out"
C=$PWD/.carry/hosts; A=$C/arbench
export NCCL_NVLS_ENABLE=0
o=/tmp/ompi
mkdir -p $o && tar xJf $C/ompi.tar.xz -C $o || { echo "cannot unpack ompi"; exit 1; }
export OPAL_PREFIX=$o/usr PATH=$o/usr/bin:$PATH PMIX_MCA_pcompress_base_silence_warning=1
export LD_LIBRARY_PATH=$o/usr/lib/x86_64-linux-gnu:$o/usr/lib/x86_64-linux-gnu/openmpi/lib:$o/lib/x86_64-linux-gnu
mpirun="orterun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader --mca btl_vader_single_copy_mechanism none --mca pml ob1 --mca mtl ^ofi,psm,psm2 --mca osc ^ucx"
{ echo "machine's own mpirun: $(command -v mpirun || echo none)"; nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version --format=csv; orterun --version | head -1; ldd $A | grep -E "nccl|mpi"; } >"$out/gpu.txt" 2>&1
cat "$out/gpu.txt"
: >"$out/COMMAND"
cmd() { echo "$*" >>"$out/COMMAND"; }
# interrupt NAME SIG [MPIRUN ARGS]: 2 processes as 2 hosts, process 1 gets SIG once 3 rows are
# written
interrupt() {
  local name=$1 sig=$2 t1=$SECONDS victim="" n; shift 2
  local line="$mpirun $* -np 2 $A run --set procs.hosts=2 --algo all --transport nccl-p2p,ce --sizes 1K,1M,64M -n 20 -w 2 -T 10 --force -o $out/$name"
  cmd "$line   # process 1 (OMPI_COMM_WORLD_RANK=1) gets SIG$sig once 3 rows are in results.csv"
  ( timeout -k 5 90 $line >"$out/$name.log" 2>&1; echo "exit $?" >>"$out/$name.log" ) &
  local bg=$!
  for i in $(seq 1 400); do
    n=$(grep -c . "$out/$name/results.csv" 2>/dev/null); [ "${n:-0}" -ge 4 ] && break
    sleep 0.1
  done
  victim=$(for p in $(pgrep -f "$A run"); do tr '\0' '\n' </proc/$p/environ 2>/dev/null | grep -qx OMPI_COMM_WORLD_RANK=1 && echo $p; done | head -1)
  local ts=$SECONDS
  echo "   SIG$sig to pid ${victim:-none} (OMPI_COMM_WORLD_RANK=1) $((SECONDS - t1)) s after the start, $(($(grep -c . "$out/$name/results.csv" 2>/dev/null) - 1)) rows written" | tee -a "$out/$name.log"
  [ -n "$victim" ] && kill -"$sig" "$victim"
  wait $bg
  [ -n "$victim" ] && kill -9 "$victim" 2>/dev/null
  echo "   job ended $((SECONDS - ts)) s after the signal (-T 10): $(tail -1 "$out/$name.log")" | tee -a "$out/$name.log"
  grep -iE "timeout|not finished|rank 1|process 1|signal" "$out/$name.log" | grep -v "^#  rank" | head -5
}
echo "== a process stopped mid-run"; interrupt stop STOP
echo "== a process killed mid-run"; interrupt kill KILL
echo "== a process killed mid-run, the launcher told to keep the job (arbench's watchdog ends it)"
interrupt kill_kept KILL --mca orte_abort_on_non_zero_status 0
left=$((deadline - (SECONDS - t0)))
echo "== nccl and every algorithm, 1K..1G, 2 processes as 2 hosts (${left} s left)"
line="$mpirun -np 2 -x NCCL_DEBUG=INFO -x NCCL_DEBUG_FILE=$out/nccl.%h.%p.log $A run --set procs.hosts=2 --set timing.start_skew=on --algo all --transport nccl-p2p,ce,sm,ll -b 1K -e 1G -n 3 -w 1 -T 60 --force -o $out/all"
cmd "$line"
t1=$SECONDS
timeout -k 5 $((left - 8)) $line >"$out/all.log" 2>&1; echo "exit $?" >>"$out/all.log"
echo "   exit: $(tail -1 $out/all.log) after $((SECONDS - t1)) s"
f=$out/all/results.csv
awk -F, 'NR==1{for(i=1;i<=NF;i++){if($i=="status")s=i; if($i=="wrong")w=i; if($i=="transport")t=i}; next} {c[$t" "$s]++; W+=$w} END{for(k in c) print "   ", k, c[k]; print "    wrong elements", W}' "$f"
grep -h "via NET" $out/nccl.*.log | sort | uniq | head -20 >"$out/nccl_net_lines.txt"
grep -h "NCCL_HOSTID\|NET/Socket : Using\|Using network Socket" $out/nccl.*.log | sort | uniq | head >>"$out/nccl_net_lines.txt"
cat "$out/nccl_net_lines.txt"
grep -c "start skew" "$out/all.log"
grep "start skew" "$out/all.log" | head -3
echo "== total $((SECONDS - t0)) s"
rm -rf "$out"/*/plots "$out"/*/report.html
(cd "$out" && tar czf /tmp/hosts.tgz nccl.*.log && rm -f nccl.*.log && mv /tmp/hosts.tgz nccl_logs.tgz)
