#!/usr/bin/env bash
# MPI jobs (`make MPI=1`, issue #23) end to end on the simulated machine: tests/sim/fake_gpu.c
# with AR_SIM_SHM, where the processes of a job share one file as device memory, and CUDA IPC
# and interprocess events work across them. Checked: the fake's own pieces (tests/sim/ipc_check.c);
# every algorithm on nccl-p2p, ce, sm and ll under mpirun -np 4 at real, odd and token sizes (rows ok
# or n/a with the reason, one results.csv with a plain run's header, meta.txt's process lines);
# the same rows from -np 4, -np 1, -np 2 with 2 ranks each and co-located processes as from a
# plain run (the fake's times are deterministic); wrong and stale sums caught across processes;
# two simulated hosts (ce, sm and ll n/a, nccl across them), and the same from procs.hosts (blocks
# of processes as rehearsed hosts: meta.txt, the placement column, NCCL's variables and paths,
# bad values); a killed and a hung rank ending the job within -T and naming the rank, and a
# stopped process named while the other's rank waits in its AllReduce; timing.mode=host and graph across processes (a wrong sum
# caught after the batches); bad input (one line, exit
# 2; nccl.registration refused). Without Open MPI (mpicc, mpirun) it skips, or fails where
# CI=true. Every mpirun runs
# under timeout: a hang fails the suite instead of blocking it. `make test-long` adds what
# waits on a watchdog again (a hung thread of a process of two ranks; rank 0 named while the
# other process runs), the rest of the bad input and a load that did nothing across processes.
. "$(dirname "$0")/lib.sh"
B=${B:-build}
MPICC=${MPICC:-${MPI_HOME:+$MPI_HOME/bin/}mpicc}
MPIRUN=${MPIRUN:-${MPI_HOME:+$MPI_HOME/bin/}mpirun}
# Open MPI as root (CI containers), and no single-copy transfers between its processes
# (ptrace is often denied in containers)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
# a waiting process yields its CPU instead of polling: Open MPI polls unless it counts more
# processes than cores, and beside the other suites a poller takes CPU they need
export OMPI_MCA_mpi_yield_when_idle=1

# ---- Open MPI and an MPI build ----
why=""
command -v "$MPICC" >/dev/null 2>&1 || why="no $MPICC on PATH"
command -v "$MPIRUN" >/dev/null 2>&1 || why="${why:+$why, }no $MPIRUN on PATH"
if [ -z "$why" ] && ! "$MPIRUN" --version 2>&1 | grep -q "Open MPI"; then
  why="$MPIRUN is not Open MPI's ($("$MPIRUN" --version 2>&1 | head -n 1))"
fi
if [ -n "$why" ]; then
  if [ "${CI:-}" = true ]; then bad "$why (CI installs openmpi-bin libopenmpi-dev)"
  else echo "skipped: $why (apt-get install -y openmpi-bin libopenmpi-dev)"; fi
  finish
  exit
fi
# not an MPI build: one of its own, never sanitized (make test-asan exports SANITIZE=1; the
# simulator's own code gets SAN_FLAGS from sim_build)
if [ ! -e "$B/obj/harness/procs_mpi.o" ]; then
  B=build-mpi
  if ! make --no-print-directory B="$B" MPI=1 MPICC="$MPICC" SANITIZE= -j2 >"$tmp/make.log" 2>&1; then
    bad "make B=$B MPI=1: $(tail -n 5 "$tmp/make.log")"
    finish
    exit
  fi
fi
. tests/sim/build.sh
sim_build mpi
S=$PWD/$S

# ---- helpers ----
# mpi NAME NP [VAR=VALUE ...] -- ARGS...: `mpirun -np NP` of `arbench-sim run --out $tmp/NAME
# ARGS` from the empty folder $tmp/NAME.cwd, device memory shared in a file of its own, the VARs
# given to every process; under timeout (LIMIT s, default 120), quiet unless Q is set to "";
# sets rc, out (stdout and stderr) and secs (its duration)
mpi() {
  local name=$1 np=$2 t0 env=(); shift 2
  while [ "$1" != -- ]; do env+=(-x "$1"); shift; done
  shift
  mkdir -p "$tmp/$name.cwd"
  t0=$(date +%s.%N)
  out=$(cd "$tmp/$name.cwd" && AR_SIM_SHM=$tmp/$name.shm timeout -k 5 "${LIMIT:-120}" \
        "$MPIRUN" ${Q--q} --oversubscribe -np "$np" -x AR_SIM_SHM "${env[@]}" \
        "$S" run --out "$tmp/$name" "$@" 2>&1)
  rc=$?
  secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  rm -f "$tmp/$name.shm"
}
# plain NAME [VAR=VALUE ...] -- ARGS...: the same run in one process, no mpirun
plain() {
  local name=$1 env=(); shift
  while [ "$1" != -- ]; do env+=("$1"); shift; done
  shift
  out=$(env "${env[@]}" "$S" run --out "$tmp/$name" "$@" 2>&1)
  rc=$?
}
# rows FILE: results.csv without the columns a run names for itself (run_id, timestamp, host)
rows() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) skip[i] = $i ~ /^(run_id|timestamp|host)$/ }
           { s = ""; for (i = 1; i <= NF; i++) if (!skip[i]) s = s "," $i; print s }' "$1"
}
# same_rows NAME REF: NAME's rows are REF's (a plain run's)
same_rows() {
  if [ -s "$tmp/$1/results.csv" ] && [ "$(rows "$tmp/$1/results.csv")" = "$(rows "$tmp/$2/results.csv")" ]; then ok
  else bad "$1: rows differ from the plain run's: $(diff <(rows "$tmp/$2/results.csv") <(rows "$tmp/$1/results.csv") 2>&1 | head -n 4)"; fi
}
# statuses FILE: "algorithm transport bytes status" of every row, sorted
statuses() {
  local a t b s
  a=$(col "$1" algorithm) t=$(col "$1" transport) b=$(col "$1" bytes) s=$(col "$1" status)
  awk -F, -v a="$a" -v t="$t" -v b="$b" -v s="$s" 'NR > 1 { print $a, $t, $b, $s }' "$1" | sort
}
# whole FILE: every line of the CSV has the header's fields and the file ends with a newline
whole() {
  [ -s "$1" ] && [ -z "$(tail -c 1 "$1")" ] &&
    awk -F, 'NR == 1 { n = NF } NF != n { bad = 1 } END { exit bad }' "$1"
}
# arbench_lines: out without the fake GPU's own lines (its hooks say what they do)
arbench_lines() { printf '%s\n' "$out" | grep -v '^fake_gpu:'; }

algos=$("$S" --list | awk 'NR > 1 && /^[^ ]/ { print $1 }')
tps="nccl-p2p ce sm ll"
# want_rows SIZES: "algorithm transport bytes" of every algorithm on every transport and size
want_rows() {
  for a in $algos; do
    for b in "$@"; do
      if [ "$a" = nccl ]; then echo "nccl nccl $b"; else for t in $tps; do echo "$a $t $b"; done; fi
    done
  done | sort
}
# sweep_checks NAME SIZES...: every algorithm on every transport and size, each row ok or n/a
# with its reason in the output; one results.csv, the plain run's header; nothing else written
sweep_checks() {
  local name=$1 r=$tmp/$1/results.csv; shift
  [ "$rc" -eq 0 ] && ok || bad "$name: exit $rc in ${secs}s: $(arbench_lines | grep -v '^#' | tail -n 5)"
  [ "$(statuses "$r" | cut -d' ' -f1-3)" = "$(want_rows "$@")" ] && ok ||
    bad "$name: rows: $(diff <(want_rows "$@") <(statuses "$r" | cut -d' ' -f1-3) | head -n 4)"
  local odd
  odd=$(statuses "$r" | while read -r a t b s; do
    [ "$s" = ok ] && continue
    [ "$s" = n/a ] && printf '%s\n' "$out" | grep -qF "n/a: $a ($t): " && continue
    echo "$a/$t/$b: $s"
  done)
  [ -z "$odd" ] && ok || bad "$name: rows neither ok nor n/a with a reason: $(echo $odd | head -c 300)"
  [ "$(head -n 1 "$r")" = "$(head -n 1 "$tmp/plain/results.csv")" ] && ok ||
    bad "$name: header differs from a plain run's: $(head -n 1 "$r")"
  [ "$(find "$tmp/$name" "$tmp/$name.cwd" -name results.csv | wc -l)" -eq 1 ] &&
    [ -z "$(ls -A "$tmp/$name.cwd")" ] && ok ||
    bad "$name: written besides $r: $(find "$tmp/$name" "$tmp/$name.cwd" -name results.csv; ls -A "$tmp/$name.cwd")"
  [ "$(printf '%s\n' "$out" | grep -c '^# results: ')" -eq 1 ] && ok ||
    bad "$name: the table's closing line $(printf '%s\n' "$out" | grep -c '^# results: ') times, want once (process 0)"
}

# ---- 1. the fake GPU's pieces for MPI (tests/sim/ipc_check.c) ----
if "$MPICC" -O1 -g -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -Isrc -Iharness -Itests ${SAN_FLAGS:-} \
     "${SIM_INC[@]}" tests/sim/ipc_check.c "$B/tests/fake_gpu_mpi.o" "$B/obj/harness/critical.o" \
     "$B/libarcore.a" -lpthread -lm -o "$B/tests/ipc_check" 2>"$tmp/cc.log"; then
  for how in alone shared; do
    if [ $how = alone ]; then o=$(env -u AR_SIM_SHM timeout 60 "$B/tests/ipc_check" 2>&1)
    else o=$(AR_SIM_SHM=$tmp/ipc.shm timeout 60 "$MPIRUN" -q --oversubscribe -np 2 -x AR_SIM_SHM \
             "$B/tests/ipc_check" 2>&1); fi
    line=$(printf '%s\n' "$o" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -n 1)
    p=${line%% passed*} f=${line#*, } f=${f%% failed*}
    if [ -n "$line" ] && [ "$f" -eq 0 ]; then pass=$((pass + p))
    else bad "ipc_check ($how): $(printf '%s\n' "$o" | grep -v 'another unique id' | tail -n 5)"; fi
  done
else
  bad "cannot build tests/sim/ipc_check.c: $(head -n 5 "$tmp/cc.log")"
fi

# ---- 2. every algorithm and transport under mpirun -np 4 ----
# real memory at an odd size (1025 floats) and 64 KiB; a token buffer at 4 MiB (no data)
sweep=(--algo all --transport nccl-p2p,ce,sm,ll -n 2 -w 1 -T 30)
plain plain -- "${sweep[@]}" --sizes 4100,64K
[ "$rc" -eq 0 ] && ok || bad "plain run: exit $rc: $(printf '%s\n' "$out" | tail -n 3)"
mpi np4 4 -- "${sweep[@]}" --sizes 4100,64K
sweep_checks np4 4100 65536
same_rows np4 plain
m=$tmp/np4/meta.txt host=$(hostname | cut -c 1-60)
grep -qx "processes: 4 (1 rank each)" "$m" && ok || bad "meta.txt: $(grep '^processes' "$m")"
grep -q "^mpi_library: Open MPI v" "$m" && ok || bad "meta.txt: $(grep '^mpi_library' "$m")"
grep -qE "^launch: .*mpirun .*-np 4 .*arbench-sim-mpi run --out $tmp/np4 " "$m" && ok ||
  bad "meta.txt: $(grep '^launch' "$m")"
grep -qx "hosts: $host (ranks 0-3)" "$m" && ok || bad "meta.txt: $(grep '^hosts' "$m")"
for r in 0 1 2 3; do
  grep -q "^rank $r: host $host, process $r, device $r, Simulated GPU" "$m" && ok ||
    bad "meta.txt rank $r: $(grep "^rank $r:" "$m")"
done
[ "$(cat "$tmp/np4/COMMAND")" = "$(sed -n 's/^launch: //p' "$m")" ] && ok ||
  bad "COMMAND: $(cat "$tmp/np4/COMMAND")"
printf '%s\n' "$out" | grep -q "^# 4 processes (Open MPI v.*), 1 rank each$" && ok ||
  bad "table head: $(printf '%s\n' "$out" | grep processes)"

# the ranks' starts line up across processes, a straggler's too (interprocess events: every
# rank waits for the others' last iteration before its next): timing.start_skew's stamps
mpi skew 4 -- --algo ring,rhd,nccl --transport ce,sm --sizes 4K -n 3 -w 1 --straggler 2:50us \
  --set timing.start_skew=on
skew=$(printf '%s\n' "$out" | grep -c '^#   start skew over the ranks (us): median 0.00, max 0.00')
[ "$rc" -eq 0 ] && [ "$skew" -eq 5 ] && ok ||
  bad "start skew: exit $rc, $skew of 5 rows at 0: $(printf '%s\n' "$out" | grep 'start skew' | head -n 2)"

# timing.mode=host across processes: every rank's batch times gathered, the checked iteration
# after the batches as good as a plain run's
hostt=(--algo nccl,ring,rhd --transport nccl-p2p,ce,sm,ll --sizes 4100,64K -n 2 -w 1 --set timing.mode=host)
plain hostplain -- "${hostt[@]}"
mpi hostnp4 4 -- "${hostt[@]}"
[ "$rc" -eq 0 ] && [ "$(statuses "$tmp/hostnp4/results.csv")" = "$(statuses "$tmp/hostplain/results.csv")" ] &&
  ! statuses "$tmp/hostnp4/results.csv" | grep -qv ' ok$' && ok ||
  bad "host timing under mpirun -np 4: exit $rc: $(statuses "$tmp/hostnp4/results.csv" | grep -v ' ok$' | head -n 3)"
t=$(col "$tmp/hostnp4/results.csv" time_us_min)
awk -F, -v t="$t" 'NR > 1 && !($t > 0) { bad = 1 } END { exit bad }' "$tmp/hostnp4/results.csv" && ok ||
  bad "host timing under mpirun -np 4: a time column not above 0 (a rank's batch not gathered)"
# timing.mode=graph across processes: each process captures its rank's batches; and in both
# modes a wrong sum (AR_SIM_BAD_SUM: one element off in every AllReduce) caught by the checked
# iteration after the batches on every row
graph=("${hostt[@]/timing.mode=host/timing.mode=graph}")
mpi graphnp4 4 -- "${graph[@]}"
[ "$rc" -eq 0 ] && [ "$(statuses "$tmp/graphnp4/results.csv")" = "$(statuses "$tmp/hostplain/results.csv")" ] && ok ||
  bad "graph timing under mpirun -np 4: exit $rc: $(statuses "$tmp/graphnp4/results.csv" | grep -v ' ok$' | head -n 3)"
for m in host graph; do
  # the same with -w 0 (no warm-up to pass the wrong sums unchecked): a flag is given once
  mpi "${m}bad" 4 AR_SIM_BAD_SUM=nccl,ring,rhd -- --algo nccl,ring,rhd --transport nccl-p2p,ce,sm,ll \
    --sizes 4100,64K -n 2 -w 0 --set timing.mode=$m
  n=$(statuses "$tmp/hostplain/results.csv" | grep -c ' ok$')
  [ "$rc" -eq 1 ] && [ "$(statuses "$tmp/${m}bad/results.csv" | grep -c ' error$')" -eq "$n" ] &&
    [ "$(printf '%s\n' "$out" | grep -c 'wrong elements in the iteration after the batches')" -eq "$n" ] && ok ||
    bad "$m timing under mpirun -np 4, every sum wrong: exit $rc, $(statuses "$tmp/${m}bad/results.csv" | grep -c ' error$') of $n rows error"
done

plain plain4m -- "${sweep[@]}" --sizes 4M
mpi np4-4m 4 -- "${sweep[@]}" --sizes 4M
sweep_checks np4-4m 4194304
same_rows np4-4m plain4m

# ---- 3. one process, several ranks per process, co-located processes: the plain run's rows ----
mpi np1 1 -- "${sweep[@]}" --sizes 4100,64K
[ "$rc" -eq 0 ] && ok || bad "np1: exit $rc: $(printf '%s\n' "$out" | tail -n 3)"
same_rows np1 plain
mpi np2x2 2 -- "${sweep[@]}" --sizes 4100,64K --ranks-per-process 2
[ "$rc" -eq 0 ] && ok || bad "np2x2: exit $rc: $(printf '%s\n' "$out" | tail -n 3)"
same_rows np2x2 plain
m=$tmp/np2x2/meta.txt
grep -qx "processes: 2 (2 ranks each)" "$m" && ok || bad "np2x2 meta.txt: $(grep '^processes' "$m")"
[ "$(grep -E '^rank [0-3]: ' "$m" | sed -E 's/^rank ([0-3]): host .*, process ([0-9]+), device ([0-9]+),.*/\1\2\3/' | tr '\n' ' ')" = "000 101 212 313 " ] &&
  ok || bad "np2x2 meta.txt rank lines: $(grep '^rank' "$m")"
plain coloc AR_SIM_GPUS=1 -- "${sweep[@]}" --sizes 4100 --ranks 4
mpi np4-coloc 4 AR_SIM_GPUS=1 -- "${sweep[@]}" --sizes 4100
[ "$rc" -eq 0 ] && ok || bad "np4-coloc: exit $rc: $(printf '%s\n' "$out" | tail -n 3)"
same_rows np4-coloc coloc
grep -q "^placement: 4 ranks/GPU (GPU 0: ranks 0-3; 1 GPU): co-located" "$tmp/np4-coloc/meta.txt" && ok ||
  bad "np4-coloc meta.txt: $(grep '^placement' "$tmp/np4-coloc/meta.txt")"
printf '%s\n' "$out" | grep -q '^n/a: nccl (nccl): NCCL cannot run two ranks on one GPU' && ok ||
  bad "np4-coloc: no n/a line for nccl"

# the critical-delay search: process 0 picks each probe from its measurements, the others
# follow; the same probes, rows and answers as in one process
crit=(--algo ring,rhd,stragglar --transport ce --find-critical 64M,256M --straggler 3:1ms -n 3 -w 1)
plain crit1 -- "${crit[@]}"
mpi crit4 4 -- "${crit[@]}"
[ "$rc" -eq 0 ] && cmp -s "$tmp/crit1/critical.csv" "$tmp/crit4/critical.csv" &&
  [ "$(grep -c ',found,' "$tmp/crit4/critical.csv")" -eq 2 ] && ok ||
  bad "critical search under mpirun: exit $rc: $(tail -n 2 "$tmp/crit4/critical.csv")"
same_rows crit4 crit1

# stats.ci_target across processes (noisy times: AR_SIM_JITTER, a fixed function of the rank
# and its AllReduce's number): each step's decision made on every rank's times, gathered, so
# every rank of every process runs the same count (AR_SIM_COUNT: each process appends its
# ranks' AllReduces), and the rows and samples are the plain run's; process 0 writes
# samples.csv, read back by tests/check_samples.py; a straggler and host timing too
tgt=(--algo ring,rhd,nccl --transport ce,sm --sizes 4100,1M -n 6 -w 1 --set stats.ci_target=0.02
     --set stats.max_iters=60)
plain tgt1 AR_SIM_JITTER=0.3 -- "${tgt[@]}"
for how in np4:4 np2x2:2; do
  name=tgt-${how%%:*} np=${how#*:} extra=()
  [ "$np" = 2 ] && extra=(--ranks-per-process 2)
  mpi "$name" "$np" AR_SIM_JITTER=0.3 AR_SIM_COUNT="$tmp/$name.count" -- "${tgt[@]}" "${extra[@]}"
  want=$(awk -F, -v n="$(col "$tmp/$name/results.csv" n_samples)" 'NR > 1 && $n != "" { s += 1 + $n } END { print s + 0 }' "$tmp/$name/results.csv")
  [ "$rc" -eq 0 ] && [ "$(sort "$tmp/$name.count" | tr '\n' ' ')" = "rank 0: $want allreduces rank 1: $want allreduces rank 2: $want allreduces rank 3: $want allreduces " ] &&
    ok || bad "$name with a target: exit $rc, each rank's AllReduces: $(tr '\n' ' ' <"$tmp/$name.count" 2>&1), want $want"
  same_rows "$name" tgt1
  cmp -s "$tmp/$name/samples.csv" "$tmp/tgt1/samples.csv" && ok || bad "$name: samples.csv differs from the plain run's"
  o=$(python3 tests/check_samples.py "$tmp/$name" -n 6 --expect-stop target 2>&1) && ok || bad "$name: $o"
done
awk -F, -v n="$(col "$tmp/tgt1/results.csv" n_samples)" 'NR > 1 && $n > 6 { k++ } END { exit !k }' "$tmp/tgt1/results.csv" &&
  ok || bad "with a target: no row took more than -n samples (the jitter too small to test the steps)"
mpi tgt-late 4 AR_SIM_JITTER=0.3 -- "${tgt[@]}" --straggler 2:100us
o=$(python3 tests/check_samples.py "$tmp/tgt-late" -n 6 2>&1) && [ "$rc" -eq 0 ] && ok || bad "a straggler with a target under mpirun: exit $rc: $o"
mpi tgt-host 4 -- "${tgt[@]}" --set timing.mode=host --set timing.host_batches=3
o=$(python3 tests/check_samples.py "$tmp/tgt-host" 2>&1) && [ "$rc" -eq 0 ] && ok || bad "host timing with a target under mpirun: exit $rc: $o"

# --compute across processes: the load sized on the slowest rank's probe (summed over the
# processes), its lanes' times and wrong counts gathered: the plain run's rows and
# compute_samples.csv, and a load that did nothing fails its rows from any process
beside=(--algo ring,nccl --transport ce,sm -n 6 -w 1 --compute gemm)
plain beside1 -- "${beside[@]}" --sizes 4100,1M
mpi beside4 4 -- "${beside[@]}" --sizes 4100,1M
[ "$rc" -eq 0 ] && ok || bad "--compute under mpirun: exit $rc: $(printf '%s\n' "$out" | tail -n 3)"
same_rows beside4 beside1
cmp -s "$tmp/beside4/compute_samples.csv" "$tmp/beside1/compute_samples.csv" && ok ||
  bad "--compute: compute_samples.csv differs from the plain run's"
if long; then # test_compute_sim checks a load that did nothing in one process
  mpi beside-noop 4 AR_SIM_LOAD_NOOP=1 -- "${beside[@]}" --sizes 4100
  [ "$rc" -eq 1 ] && [ "$(awk -F, -v w="$(col "$tmp/beside-noop/results.csv" compute_wrong)" 'NR > 1 { print $w }' "$tmp/beside-noop/results.csv" | sort -u)" = 4 ] &&
    ok || bad "--compute, a load that did nothing under mpirun: exit $rc, compute_wrong $(awk -F, -v w="$(col "$tmp/beside-noop/results.csv" compute_wrong)" 'NR > 1 { print $w }' "$tmp/beside-noop/results.csv" | tr '\n' ' ')"
fi

# --dry-run plans processes x --ranks-per-process ranks, said once, nothing written
mpi dry 2 -- --algo ring --transport ce --sizes 4K --ranks-per-process 2 --dry-run
[ "$rc" -eq 0 ] && [ "$(printf '%s\n' "$out" | grep -c '^dry run: 1 scenario, 4 ranks')" -eq 1 ] &&
  [ ! -e "$tmp/dry" ] && ok || bad "dry run: exit $rc: $(printf '%s\n' "$out" | head -n 3)"

# rows_by_transport CSV: "transport status count" per transport and status, nccl's as
# "nccl nccl ok N", sorted
rows_by_transport() {
  awk -F, -v t="$(col "$1" transport)" -v s="$(col "$1" status)" 'NR > 1 {print $t, $s}' "$1" |
    sort | uniq -c | awk '{print $2, $3, $1}' | sed 's/^nccl ok/nccl nccl ok/' | sort
}
# na_across_hosts LABEL: $out says ce, sm and ll are n/a because the ranks span 2 hosts
na_across_hosts() {
  local t
  for t in ce sm ll; do
    printf '%s\n' "$out" | grep -q "^n/a: ring ($t): $t reaches other GPUs' memory within one host only (CUDA IPC); the ranks span 2 hosts" &&
      ok || bad "$1: no n/a line for $t: $(printf '%s\n' "$out" | grep '^n/a' | head -n 3)"
  done
}

# two hosts (AR_SIM_HOSTS: processes 0-1 on simhost0, 2-3 on simhost1): nccl and nccl-p2p run
# across them (the start line a one-element AllReduce), ce, sm and ll are n/a with the reason,
# and no memory or event of the other host is mapped
mpi hosts2 4 AR_SIM_HOSTS=2 -- --algo nccl,ring,rhd --transport nccl-p2p,ce,sm,ll --sizes 4100,64K -n 2 -w 1
f=$tmp/hosts2/results.csv
[ "$rc" -eq 0 ] && ok || bad "two hosts: exit $rc: $(printf '%s\n' "$out" | tail -n 3)"
want="nccl nccl ok 2
nccl-p2p ok 4
ce n/a 4
sm n/a 4
ll n/a 4"
got=$(rows_by_transport "$f")
[ "$got" = "$(printf '%s\n' "$want" | sort)" ] && ok || bad "two hosts: rows $(echo $got)"
na_across_hosts "two hosts"
grep -qx "hosts: simhost0 (ranks 0-1), simhost1 (ranks 2-3)" "$tmp/hosts2/meta.txt" && ok ||
  bad "two hosts meta.txt: $(grep '^hosts' "$tmp/hosts2/meta.txt")"

# rehearsed hosts: --set procs.hosts=2 makes processes 0-1 one host and 2-3 another, without
# AR_SIM_HOSTS (the fake takes each process's host from the NCCL_HOSTID arbench gave NCCL, and
# fails any row that maps another host's memory): the same rows as two real hosts, the hosts
# in meta.txt, the placement column, NCCL's variables, and the fake NCCL's path to each peer
hh=$(hostname | cut -c 1-50)
mpi rh2 4 NCCL_DEBUG=INFO -- --algo nccl,ring,rhd --transport nccl-p2p,ce,sm,ll --sizes 4100,64K \
  -n 2 -w 1 --set procs.hosts=2
f=$tmp/rh2/results.csv
[ "$rc" -eq 0 ] && ok || bad "procs.hosts=2: exit $rc: $(arbench_lines | tail -n 3)"
got=$(rows_by_transport "$f")
[ "$got" = "$(printf '%s\n' "$want" | sort)" ] && ok || bad "procs.hosts=2: rows $(echo $got)"
na_across_hosts "procs.hosts=2"
m=$tmp/rh2/meta.txt
grep -qx "hosts: $hh/h0 (ranks 0-1), $hh/h1 (ranks 2-3)" "$m" && ok ||
  bad "procs.hosts=2 meta.txt: $(grep '^hosts' "$m")"
grep -q "^placement: 1 rank/GPU on 2 hosts (rehearsed on one) (" "$m" && ok ||
  bad "procs.hosts=2 meta.txt: $(grep '^placement' "$m")"
grep -qx "rehearsed_hosts: 2 (procs.hosts=2): processes in blocks of 2, each block a host; each process set NCCL_HOSTID=<its host> NCCL_SOCKET_IFNAME=lo NCCL_NET=Socket NCCL_IB_DISABLE=1 NCCL_MNNVL_ENABLE=0" "$m" &&
  ok || bad "procs.hosts=2 meta.txt: $(grep '^rehearsed' "$m")"
grep -qx "setting procs.hosts = 2 (--set)" "$m" && ok || bad "procs.hosts=2 meta.txt: $(grep 'procs.hosts' "$m")"
[ "$(awk -F, -v p="$(col "$f" placement)" 'NR > 1 { print $p }' "$f" | sort -u)" = '1 rank/GPU on 2 hosts (rehearsed on one)' ] &&
  ok || bad "procs.hosts=2 placement column: $(awk -F, -v p="$(col "$f" placement)" 'NR > 1 { print $p }' "$f" | sort -u)"
# every rank's path to every peer: the network to the other block, peer-to-peer within its own
paths=$(printf '%s\n' "$out" | sed -n 's/.*NCCL INFO Channel 00\/0 : \([0-3]\)\[[0-3]\] -> \([0-3]\)\[[0-3]\] \[send\] via \(.*\)/\1 \2 \3/p' | sort -u)
want_paths=$(for r in 0 1 2 3; do for q in 0 1 2 3; do [ $r = $q ] && continue
  if [ $((r / 2)) = $((q / 2)) ]; then echo "$r $q P2P/IPC"; else echo "$r $q NET/Socket/0"; fi; done; done)
[ "$paths" = "$want_paths" ] && ok || bad "procs.hosts=2: NCCL's paths: $(echo $paths | head -c 300)"
# one host of 4 processes, and 4 hosts of 1: the n/a reasons follow the blocks
mpi rh1 4 -- --algo ring --transport nccl-p2p,ce --sizes 4100 -n 2 -w 1 --set procs.hosts=1
[ "$rc" -eq 0 ] && [ "$(statuses "$tmp/rh1/results.csv" | tr '\n' ';')" = "ring ce 4100 ok;ring nccl-p2p 4100 ok;" ] &&
  grep -qx "hosts: $hh/h0 (ranks 0-3)" "$tmp/rh1/meta.txt" && ok ||
  bad "procs.hosts=1: exit $rc, $(statuses "$tmp/rh1/results.csv" | tr '\n' ';') $(grep '^hosts' "$tmp/rh1/meta.txt")"
mpi rh4 4 -- --algo ring --transport nccl-p2p,ce --sizes 4100 -n 2 -w 1 --set procs.hosts=4
[ "$rc" -eq 0 ] && [ "$(statuses "$tmp/rh4/results.csv" | tr '\n' ';')" = "ring ce 4100 n/a;ring nccl-p2p 4100 ok;" ] &&
  printf '%s\n' "$out" | grep -q "^n/a: ring (ce): .*the ranks span 4 hosts" && ok ||
  bad "procs.hosts=4: exit $rc, $(statuses "$tmp/rh4/results.csv" | tr '\n' ';')"
# a degraded network (degrade.network_bw): host 1's ranks degraded, only nccl-p2p emulates it
# (ce n/a for the hosts, nccl cannot be degraded), the network's bandwidth as given in
# meta.txt's degrade line and the settings column; on one host nothing crosses a network
mpi rhnet 4 -- --algo nccl,ring-rails --transport nccl-p2p,ce --sizes 64K -n 2 -w 1 \
  --set procs.hosts=2 --degrade 2:2,3:2 --set degrade.network_bw=3G
f=$tmp/rhnet/results.csv
[ "$rc" -eq 0 ] && [ "$(statuses "$f" | tr '\n' ';')" = "nccl nccl 65536 n/a;ring-rails ce 65536 n/a;ring-rails nccl-p2p 65536 ok;" ] &&
  ok || bad "degrade.network_bw: exit $rc, $(statuses "$f" | tr '\n' ';') $(arbench_lines | tail -n 2)"
grep -qx "degrade_healthy_bw: 3.221 GB/s between hosts (degrade.network_bw, as given; nccl-p2p's emulation slows only the degraded ranks' bytes to and from other hosts)" "$tmp/rhnet/meta.txt" &&
  ok || bad "degrade.network_bw meta.txt: $(grep '^degrade' "$tmp/rhnet/meta.txt")"
awk -F, -v p="$(col "$f" settings)" 'NR > 1 && $p !~ /degrade.network_bw=3221225472/ { exit 1 }' "$f" &&
  ok || bad "degrade.network_bw: settings column $(awk -F, -v p="$(col "$f" settings)" 'NR > 1 { print $p }' "$f" | sort -u)"
mpi rhnet1 2 -- --algo ring --transport nccl-p2p --sizes 64K -n 2 -w 1 --degrade 1:2 \
  --set degrade.network_bw=3G
[ "$rc" -eq 0 ] && [ "$(statuses "$tmp/rhnet1/results.csv")" = "ring nccl-p2p 65536 n/a" ] &&
  printf '%s\n' "$out" | grep -q "^n/a: ring (nccl-p2p): degrade.network_bw: no network to degrade: the ranks are not on several hosts of equal blocks" &&
  ok || bad "degrade.network_bw on one host: exit $rc, $(statuses "$tmp/rhnet1/results.csv") $(arbench_lines | grep '^n/a' | head -n 2)"
# tools/device/hosts_two_tier.sh end to end on the simulator: both tiers fitted by model
# --calibrate, the degraded runs given the network's fit, the model on both fits, the table's
# ratio recomputed from a run's and the model's CSV (optcc-multi priced as optcc-switch)
d2=$tmp/two_tier.cwd root=$PWD
mkdir -p "$d2"
(cd "$d2" && AR_SIM_SHM=$tmp/two_tier.shm OUT=$tmp/two_tier NP=4 ARBENCH=$S DEADLINE=300 \
  MPIRUN="timeout -k 5 60 $MPIRUN -q --oversubscribe -x AR_SIM_SHM" SIZES=64K,1M FIT_SIZES=1K,64K,1M,16M \
  bash "$root/tools/device/hosts_two_tier.sh" >"$tmp/two_tier.out" 2>&1)
rm -f "$tmp/two_tier.shm"
tar xzf "$tmp/two_tier/two_tier.tgz" -C "$tmp/two_tier" && for t in healthy nic host; do
  tar xzf "$tmp/two_tier/$t.tgz" -C "$tmp/two_tier"; done
T=$tmp/two_tier
net=$(awk '/^calibration: transport=nccl-p2p algorithm=all/ { sub(/.*bw_GBps=/, ""); print $1 }' "$T/fit_net.calibrate.txt")
grep -q "^network (2 hosts, nccl-p2p, fit_net): alpha_us=[0-9.]* bw_GBps=$net$" "$T/fits.txt" &&
  grep -q -- "--degrade 2:2,3:2 --set degrade.network_bw=$(awk -v b="$net" 'BEGIN { printf "%.0f", b * 1e9 }') -o $T/host$" "$T/COMMAND" &&
  grep -q -- "--gpus-per-node 2 .*--alpha-local [0-9.]*us --bw-local [0-9.]*GB/s --degrade 2:2,3:2 --csv" "$T/COMMAND" &&
  ok || bad "two_tier.sh: fits and command lines: $(cat "$T/fits.txt" "$T/COMMAND" 2>&1 | head -c 600) $(tail -n 3 "$tmp/two_tier.out")"
# median_of CSV ALGO BYTES
median_of() { awk -F, -v a="$2" -v b="$3" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
  $c["algorithm"] == a && $c["bytes"] == b { print $c["time_us_median"] }' "$1"; }
for a in ring-rails optcc-multi; do
  m=$a; [ $a = optcc-multi ] && m=optcc-switch
  want=$(awk -v x="$(median_of "$T/host/results.csv" $a 1048576)" -v y="$(median_of "$T/model_host.csv" $m 1048576)" 'BEGIN { printf "%.2f", x / y }')
  grep -q "^| host | $a | 1048576 | [0-9.]* | [0-9.]* | $want |$" "$T/table.md" &&
    ok || bad "two_tier table: host $a 1M not $want: $(grep "| host | $a | 1048576" "$T/table.md")"
done
grep -q "^| host | nccl | n/a | n/a |$" "$T/table.md" && grep -q "^| healthy | nccl | - | - |$" "$T/table.md" &&
  grep -q "^| host | r2ccl | n/a | n/a |$" "$T/table.md" && ok ||
  bad "two_tier table: nccl, r2ccl rows: $(grep -E 'nccl|r2ccl' "$T/table.md" | head -n 4)"

# ---- 4. wrong and stale sums across processes fail their rows, and only theirs ----
mpi wrong 4 AR_SIM_WRONG=rhd -- --algo ring,rhd --transport ce --sizes 4K -n 2 -w 1 -T 30
[ "$rc" -eq 1 ] && [ "$(statuses "$tmp/wrong/results.csv" | tr '\n' ';')" = "rhd ce 4096 error;ring ce 4096 ok;" ] &&
  ok || bad "AR_SIM_WRONG=rhd: exit $rc, $(statuses "$tmp/wrong/results.csv" | tr '\n' ';')"
mpi stale 4 AR_SIM_STALE=ring -- --algo nccl,ring,rhd --transport ce,sm,ll --sizes 4K -n 3 -w 2 -T 30
[ "$rc" -eq 1 ] && [ "$(statuses "$tmp/stale/results.csv" | awk '$4 != "ok"' | tr '\n' ';')" = "ring ce 4096 error;ring ll 4096 error;ring sm 4096 error;" ] &&
  ok || bad "AR_SIM_STALE=ring: exit $rc, $(statuses "$tmp/stale/results.csv" | tr '\n' ';')"

# ---- 5. a killed rank, a hung rank: the job ends within -T, naming the rank ----
# rank 2's AllReduce 8: the second iteration of nccl, after ring and rhd (3 each)
fail3=(--algo ring,rhd,nccl --transport ce --sizes 4K -n 2 -w 1)
# ended NAME T: nonzero, not timeout's, within T + 25 s; rows before whole (ring, rhd ok)
ended() {
  [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$rc" -ne 137 -o "$1" = kill ] &&
    awk -v s="$secs" -v t="$2" 'BEGIN { exit !(s <= t + 25) }' && ok ||
    bad "$1: exit $rc after ${secs}s (-T $2): $(arbench_lines | grep -v '^#' | tail -n 4)"
  local r=$tmp/$1/results.csv
  whole "$r" && [ "$(statuses "$r" | grep -c ' ok$')" -eq 2 ] &&
    statuses "$r" | grep -q '^rhd ce 4096 ok$' && statuses "$r" | grep -q '^ring ce 4096 ok$' &&
    ok || bad "$1: rows before: $(cat "$r" 2>&1 | cut -d, -f10,11,14,31 | tr '\n' ';')"
}
LIMIT=90 Q="" mpi kill 4 AR_SIM_KILL=2:8 -- "${fail3[@]}" -T 10
ended kill 10
arbench_lines | grep -qE "(process rank 2 .*(killed|signal 9)|arbench: .*rank 2[^0-9])" && ok ||
  bad "kill: no message names rank 2: $(arbench_lines | grep -v '^#' | tail -n 6)"
LIMIT=90 mpi hang 4 AR_SIM_HANG=2:8 -- "${fail3[@]}" -T 4
ended hang 4
arbench_lines | grep -qE "^arbench: timeout: .* did not finish within 4 s \(-T\); ranks not finished:( [0-9]+)* 2( |$)" &&
  ok || bad "hang: no watchdog line names rank 2: $(arbench_lines | grep -v '^#' | tail -n 4)"
arbench_lines | grep -E "^arbench: timeout: " | grep -qE "not finished:.* [13]( |$)" &&
  bad "hang: ranks 1 and 3 came to the barrier, yet: $(arbench_lines | grep '^arbench: timeout')" || ok
grep -q ",nccl,nccl,.*,timeout," "$tmp/hang/results.csv" && ok ||
  bad "hang: no timeout row: $(tail -n 1 "$tmp/hang/results.csv")"
# a thread of a process with two ranks hangs: rank 3 (process 1), at its AllReduce 8
if long; then
  LIMIT=90 mpi hang2 2 AR_SIM_HANG=3:8 -- "${fail3[@]}" -T 4 --ranks-per-process 2
  ended hang2 4
  arbench_lines | grep -qE "^arbench: timeout: .* ranks not finished:( [0-9]+)* 3( |$)" &&
    ok || bad "hang2: no watchdog line names rank 3: $(arbench_lines | grep -v '^#' | tail -n 4)"
  arbench_lines | grep -E "^arbench: timeout: " | grep -qE "not finished:.* [01]( |$)" &&
    bad "hang2: ranks 0 and 1 came to the barrier, yet: $(arbench_lines | grep '^arbench: timeout')" || ok
fi

# rehearsed hosts: rank 0 waits in its AllReduce (as on a network peer) while process 1 is
# stopped (SIGSTOP): process 0 is in no barrier, so its watchdog asks the other processes and
# names the rank whose process does not answer; with process 1 running, it names rank 0
hosts3=(--algo ring,rhd,nccl --transport nccl-p2p --sizes 4K -n 2 -w 1 --set procs.hosts=2)
LIMIT=90 mpi rhstop 2 AR_SIM_HANG=0:8 AR_SIM_STOP=1:8 -- "${hosts3[@]}" -T 4
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] &&
  awk -v s="$secs" 'BEGIN { exit !(s <= 4 + 25) }' && ok ||
  bad "rhstop: exit $rc after ${secs}s (-T 4): $(arbench_lines | grep -v '^#' | tail -n 4)"
arbench_lines | grep -qE "^arbench: timeout: .* did not finish within 4 s \(-T\); ranks not finished: 1$" &&
  ok || bad "rhstop: no watchdog line names rank 1 alone: $(arbench_lines | grep '^arbench: ' | tail -n 3)"
whole "$tmp/rhstop/results.csv" && ok || bad "rhstop: results.csv not whole"
if long; then
  LIMIT=90 mpi rhhang 2 AR_SIM_HANG=0:8 -- "${hosts3[@]}" -T 4
  arbench_lines | grep -qE "^arbench: timeout: .* did not finish within 4 s \(-T\); ranks not finished: 0$" &&
    ok || bad "rhhang: no watchdog line names rank 0 alone: $(arbench_lines | grep '^arbench: ' | tail -n 3)"
fi

# ---- 5b. --row-budget across processes: every rank runs the count decided from the slowest
#      rank's warm-up over every process, so the rows are a plain run's (1 KiB keeps -n, 1 GiB
#      gets 6, the floor), under -np 4 and -np 2 with 2 ranks each ----
bud=(--algo ring,rhd,nccl --transport ce,sm --sizes 1K,256M,1G -n 12 -w 2 --row-budget 5ms)
plain bplain -- "${bud[@]}"
[ "$rc" -eq 0 ] && [ "$(awk -F, -v c="$(col "$tmp/bplain/results.csv" iters)" 'NR > 1 { print $c }' \
    "$tmp/bplain/results.csv" | sort -un | paste -sd,)" = "6,12" ] && ok ||
  bad "row budget, plain: exit $rc, iters $(cut -d, -f10,11,14,19 "$tmp/bplain/results.csv" | tr '\n' ' ')"
mpi bnp4 4 -- "${bud[@]}"
[ "$rc" -eq 0 ] && ok || bad "row budget, -np 4: exit $rc: $(arbench_lines | tail -n 3)"
same_rows bnp4 bplain
mpi bnp2 2 -- "${bud[@]}" --ranks-per-process 2
[ "$rc" -eq 0 ] && ok || bad "row budget, -np 2 x 2: exit $rc: $(arbench_lines | tail -n 3)"
same_rows bnp2 bplain

# ---- 6. bad input under mpirun: one line naming the flag, exit 2, nothing written ----
# mpi_bad PATTERN NP ARGS...: exit 2, one line on stderr matching PATTERN, no run folder
mpi_bad() {
  local pat=$1 np=$2; shift 2
  mpi bad "$np" -- "$@"
  local lines
  lines=$(printf '%s\n' "$out" | grep -c .)
  if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || ! printf '%s' "$out" | grep -qE -- "$pat"; then
    bad "mpirun -np $np ... $*: exit $rc, want 2 and one line /$pat/: $out"
  elif [ -e "$tmp/bad" ]; then bad "mpirun -np $np ... $*: wrote $tmp/bad"
  else ok; fi
  rm -rf "$tmp/bad" "$tmp/bad.cwd"
}
mpi_bad "^arbench: --ranks-per-process: bad value '0'" 2 --ranks-per-process 0
mpi_bad "^arbench: --ranks: bad value '3'" 2 --ranks 3
mpi_bad "^arbench: --phases: " 2 --phases --algo ring
# each mpirun that refuses takes seconds of waiting: the rest under make test-long
if long; then
  mpi_bad "^arbench: --ranks-per-process: bad value '9'" 2 --ranks-per-process 9
  mpi_bad "^arbench: --gpus: bad value '9'" 2 --gpus 0,9
  mpi_bad "^arbench: --algo: bad value 'nope'" 2 --algo nope
  mpi_bad "^arbench: --set: bad value 'procs.hosts=8': more hosts than processes \(4\)" 4 \
    --algo ring --set procs.hosts=8
fi
mpi_bad "^arbench: --ranks-per-process: bad value '2'" 1 --ranks-per-process 2
mpi_bad "^arbench: --set: bad value 'nccl.registration=symmetric': runs in one process" 2 \
  --algo nccl --set nccl.registration=symmetric
# procs.hosts: blocks of one size, no more than the processes, and several processes
mpi_bad "^arbench: --set: bad value 'procs.hosts=3': 4 processes do not split into 3 blocks of one size$" 4 \
  --algo ring --set procs.hosts=3
printf -- '--algo ring --sizes 4K\n[scenario a]\n[scenario b]\n--set procs.hosts=2\n' >"$tmp/rh.conf"
mpi_bad "^arbench: --set: bad value 'procs.hosts=2': every scenario of a run groups its processes alike" 2 \
  --config "$tmp/rh.conf"
plain rhplain -- --algo ring --sizes 4K --set procs.hosts=2
[ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$out" | grep -c .)" -eq 1 ] &&
  printf '%s\n' "$out" | grep -q "^arbench: --set: bad value 'procs.hosts=2': more hosts than processes" &&
  [ ! -e "$tmp/rhplain" ] && ok || bad "procs.hosts=2 without mpirun: exit $rc: $out"
plain rhplain1 -- --algo ring --sizes 4K --set procs.hosts=1
[ "$rc" -eq 2 ] && printf '%s\n' "$out" | grep -qx "arbench: --set: bad value 'procs.hosts=1': needs several processes: .*" &&
  [ ! -e "$tmp/rhplain1" ] && ok || bad "procs.hosts=1 without mpirun: exit $rc: $out"
mkdir -p "$tmp/full" && touch "$tmp/full/x"
mpi_bad "^arbench: --out: bad value '$tmp/full'" 2 --algo ring --out "$tmp/full"
finish
