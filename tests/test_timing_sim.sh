#!/usr/bin/env bash
# timing.mode=host and timing.mode=graph on the simulated GPUs (tests/sim/fake_gpu.c), every
# algorithm on every transport, with threads (a rank per GPU) and co-located ranks (four on one
# GPU), clean and under --degrade (the ce flow programs): every row as the events run has it
# (ok where it is ok, n/a where it is n/a); a wrong sum in every AllReduce (AR_SIM_BAD_SUM, one
# element off in the real buffer) caught by the checked iteration after the batches on every
# row that runs; graph: ce n/a with co-located ranks (its captured waits hung such a run); each batch captured and launched once (the fake refuses a second launch
# of one graph), n/a with the reason on a transport that cannot be captured (AR_SIM_NO_CAPTURE),
# the batches' AllReduces counted (a stale read on odd AllReduces caught exactly when B x n is
# even), refused with what needs every iteration on its own. Every run's samples.csv read back
# (tests/check_samples.py: n_samples, median and interval recomputed; a host or graph sample is a
# batch); stats.ci_target with host and graph batches: more batches in steps of
# timing.host_batches, every rank the same count. mpirun: tests/test_mpi_sim.sh. `make test` runs
# the matrix with threads and co-located ranks, `make test-long` under --degrade too, and the
# target with co-located ranks.
. "$(dirname "$0")/lib.sh"
B=${B:-build}
. tests/sim/build.sh
sim_build timing
algos=$("$S" --list | awk 'NR > 1 && /^[^ ]/ { printf "%s%s", s, $1; s = "," }')
# rows DIR: "algorithm/transport status" of every row, in order
rows() {
  local c=$1/results.csv
  awk -F, -v a="$(col "$c" algorithm)" -v t="$(col "$c" transport)" -v s="$(col "$c" status)" \
    'NR > 1 { print $a "/" $t, $s }' "$c"
}
# run NAME ENV... -- ARGS...: the simulator's run into $tmp/NAME; out, rc
run() {
  local name=$1 env=() d=(-n 3 -w 0) a; shift
  while [ "$1" != -- ]; do env+=("$1"); shift; done
  shift
  for a in "$@"; do [ "$a" = -w ] && d=(-n 3); done # the caller's -w instead (a flag is given once)
  out=$(env "${env[@]}" "$S" run --out "$tmp/$name" --sizes 4100 "${d[@]}" "$@" 2>&1); rc=$?
}
# samples DIR ARGS...: tests/check_samples.py on a run folder
samples() {
  local o
  o=$(python3 tests/check_samples.py "$@" 2>&1) && ok || bad "check_samples $*: $o"
}
# matrix NAME ENV... -- ARGS...: events, then host and graph, clean and with every sum wrong
matrix() {
  local name=$1 env=() ev m n_ok n_err n_said; shift
  while [ "$1" != -- ]; do env+=("$1"); shift; done
  shift
  run "$name-events" "${env[@]}" -- "$@"
  ev=$(rows "$tmp/$name-events")
  n_ok=$(printf '%s\n' "$ev" | grep -c ' ok$')
  [ "$rc" -eq 0 ] && [ "$n_ok" -ge 20 ] && ok || bad "$name events: exit $rc, $n_ok ok rows: $(printf '%s\n' "$out" | tail -n 2)"
  samples "$tmp/$name-events" -n 3 --expect-stop fixed
  for m in host graph; do
    run "$name-$m" "${env[@]}" -- "$@" --set timing.mode=$m
    samples "$tmp/$name-$m" --expect-stop fixed
    # co-located graph timing: ce is n/a (its captured waits hung a co-located graph on a GPU)
    if [ "$m$name" = graphcoloc ]; then
      ev=$(printf '%s\n' "$ev" | sed 's|^\([^ ]*/ce\) ok$|\1 n/a|')
      printf '%s\n' "$out" | grep -q "^n/a: ring (ce): timing.mode=graph with ranks sharing a GPU (4 ranks/GPU): ce's captured stream waits" && ok ||
        bad "co-located graph: no n/a line for ring/ce: $(printf '%s\n' "$out" | grep '^n/a: ring')"
    fi
    [ "$rc" -eq 0 ] && [ "$(rows "$tmp/$name-$m")" = "$ev" ] && ok ||
      bad "$name $m: exit $rc, rows not as the events run's: $(diff <(rows "$tmp/$name-$m") <(printf '%s\n' "$ev") | head -n 4) $(printf '%s\n' "$out" | grep -v '^ ' | tail -n 2)"
    awk -F, -v t="$(col "$tmp/$name-$m/results.csv" time_us_min)" -v s="$(col "$tmp/$name-$m/results.csv" status)" \
        -v g="$(col "$tmp/$name-$m/results.csv" settings)" -v m="timing.mode=$m" \
        'NR > 1 && (index($g, m) == 0 || ($s == "ok" && !($t > 0))) { bad = 1 } END { exit bad }' "$tmp/$name-$m/results.csv" && ok ||
      bad "$name $m: a row without $m timing in its settings or without a time"
    run "$name-$m-bad" "${env[@]}" AR_SIM_BAD_SUM="$algos" -- "$@" --set timing.mode=$m
    n_ok=$(printf '%s\n' "$ev" | grep -c ' ok$')
    n_err=$(rows "$tmp/$name-$m-bad" | grep -c ' error$')
    n_said=$(printf '%s\n' "$out" | grep -c 'wrong elements in the iteration after the batches (1 of 1 iterations wrong')
    [ "$rc" -eq 1 ] && [ "$(rows "$tmp/$name-$m-bad" | sed 's/ error$/ ok/')" = "$ev" ] && [ "$n_err" -eq "$n_ok" ] &&
      [ "$n_said" -eq "$n_ok" ] && ok ||
      bad "$name $m, every sum wrong: exit $rc, $n_err error rows and $n_said said of $n_ok: $(diff <(rows "$tmp/$name-$m-bad") <(printf '%s\n' "$ev") | grep -v ' error$' | head -n 3)"
  done
}
every=(--algo all --transport nccl-p2p,ce,sm,ll)
matrix threads -- --gpus 0,1,2,3 "${every[@]}"
matrix coloc AR_SIM_GPUS=1 -- --ranks 4 "${every[@]}"
long && matrix degraded -- --gpus 0,1,2,3 "${every[@]}" --degrade 1:2 --set ce.program=flow

# graph: a transport that cannot be captured is n/a with the reason, once per algorithm; the
# others run
run nocap AR_SIM_NO_CAPTURE=ce -- --gpus 0,1,2,3 --algo ring,rhd,nccl --transport ce,sm --set timing.mode=graph
[ "$rc" -eq 0 ] && [ "$(rows "$tmp/nocap" | tr '\n' '|')" = "ring/ce n/a|ring/sm ok|rhd/ce n/a|rhd/sm ok|nccl/nccl ok|" ] &&
  [ "$(printf '%s\n' "$out" | grep -c '^n/a: r[a-z]* (ce): timing.mode=graph: cannot be captured into a CUDA graph (its enqueue under capture: ')" -eq 2 ] && ok ||
  bad "graph, ce not capturable: exit $rc, $(rows "$tmp/nocap" | tr '\n' '|') $(printf '%s\n' "$out" | grep '^n/a')"
grep -qx "setting timing.mode = graph (--set)" "$tmp/nocap/meta.txt" &&
  printf '%s\n' "$out" | grep -qx "# timing.mode=graph: per row 5 batches of 3 AllReduces captured into one CUDA graph, its launch timed on the host (nccl-tests -G), then one checked iteration" &&
  ok || bad "graph: meta.txt or the table's line: $(grep timing "$tmp/nocap/meta.txt") $(printf '%s\n' "$out" | grep timing)"
# the batches' AllReduces are enqueued (captured) one by one: AR_SIM_STALE reads stale inputs
# on a row's odd AllReduces, so the checked one (1 + B x n after 1 warm-up) is stale iff B x n is even
for bn in 1:3:ok 2:2:error 3:3:ok 1:4:error; do
  IFS=: read -r nb ni want <<<"$bn"
  AR_SIM_STALE=ring "$S" run --gpus 0,1,2 --algo ring --transport ce,sm,ll --sizes 1K -n "$ni" -w 1 \
    --set timing.mode=graph --set timing.host_batches="$nb" --out "$tmp/st$nb$ni" >/dev/null 2>&1
  [ "$(rows "$tmp/st$nb$ni" | cut -d' ' -f2 | sort -u)" = "$want" ] && ok ||
    bad "graph, stale, $nb batches of $ni: $(rows "$tmp/st$nb$ni" | tr '\n' ' '), want $want"
done
# stats.ci_target with host and graph batches (their times are the host clock's, so a row may
# stop at the target or at the cap: check_samples.py replays which), threads and co-located;
# every rank the same count (AR_SIM_COUNT: warm-up + batches x -n + the checked one, each row)
placements=threads
long && placements="threads coloc"
for m in host graph; do
  for pl in $placements; do
    g=(--gpus 0,1,2,3) e=()
    [ "$pl" = coloc ] && g=(--ranks 4) e=(AR_SIM_GPUS=1)
    run "target-$m-$pl" "${e[@]}" AR_SIM_COUNT="$tmp/$m-$pl.count" -- "${g[@]}" --algo ring,rhd,nccl --transport sm,ll \
      -w 1 --set timing.mode=$m --set timing.host_batches=3 --set stats.ci_target=0.05 --set stats.max_iters=12
    samples "$tmp/target-$m-$pl"
    want=$(awk -F, -v n="$(col "$tmp/target-$m-$pl/results.csv" n_samples)" 'NR > 1 && $n != "" { s += 1 + 3 * $n + 1 } END { print s + 0 }' "$tmp/target-$m-$pl/results.csv")
    got=$(awk '{ print $3 }' "$tmp/$m-$pl.count" 2>/dev/null | sort -u | tr '\n' ' ')
    [ "$rc" -eq 0 ] && [ "$got" = "$want " ] && ok || bad "$m $pl with a target: exit $rc, each rank's AllReduces '$got', want $want: $(printf '%s\n' "$out" | tail -n 2)"
  done
done

# refused with what needs every iteration on its own (one line, exit 2, no folder)
sim_refused() {
  local pat=$1; shift
  "$S" run --out "$tmp/refused" "$@" >/dev/null 2>"$tmp/err"; rc=$?
  [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qE "$pat" "$tmp/err" && [ ! -e "$tmp/refused" ] && ok ||
    bad "$* -> exit $rc: $(cat "$tmp/err")"
}
sim_refused "^arbench: --set: bad value 'timing.mode=graph': --straggler needs every iteration timed on its own \(timing.mode=events\); graph timing" \
  --algo ring --straggler 1:1ms --set timing.mode=graph
sim_refused "^arbench: --set: bad value 'timing.mode=gpu': events,host,graph" --algo ring --set timing.mode=gpu
finish
