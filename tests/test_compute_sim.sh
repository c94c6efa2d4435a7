#!/usr/bin/env bash
# --compute on the simulated GPUs (tests/sim/fake_load.c: the load a lane of its own, each lane
# slowed while the other runs, AR_SIM_BESIDE's 1.5:1.2 by default): the three times of a row
# and the derived columns recomputed independently (tests/check_compute.py), the load sized to
# the AllReduce alone, the checks of the load and of every AllReduce beside it, rows without a
# load keeping the columns empty, bad values refused in one line, and the dry run and model
# mode saying that interference is not priced (the pictures: test_plot_points, points/compute).
. "$(dirname "$0")/lib.sh"
B=${B:-build}
. tests/sim/build.sh
sim_build compute
# cols FILE ROWS: "compute|status|wrong|compute_wrong" of each row, joined by ';'
cols() {
  local c=$(col "$1" compute) s=$(col "$1" status) w=$(col "$1" wrong) cw=$(col "$1" compute_wrong)
  awk -F, -v c="$c" -v s="$s" -v w="$w" -v cw="$cw" 'NR > 1 { printf "%s|%s|%s|%s;", $c, $s, $w, $cw }' "$1"
}

# 1. a config of two scenarios, one with a GEMM sized per row: the three times, the derived
# columns, the fake's sharing of the GPU, the GEMM as long as the AllReduce alone (within the
# rounding of its side to 128), summary.md's "Beside compute"; the clean scenario's rows keep
# every compute column empty
cat >"$tmp/beside.conf" <<'EOF'
--algo nccl,ring,rhd --transport ce,sm --sizes 1M,16M,64M -n 6 -w 1
[scenario clean]
[scenario gemm]
--compute gemm
EOF
out=$("$S" run --gpus 0,1,2,3 --config "$tmp/beside.conf" --out "$tmp/g" 2>&1); rc=$?
r=$tmp/g/results.csv
[ "$rc" -eq 0 ] && ok || bad "gemm: exit $rc: $(printf '%s\n' "$out" | tail -3)"
o=$(python3 tests/check_compute.py "$tmp/g" --beside 1.5:1.2 --sized 0.25 --summary 2>&1) && ok || bad "gemm: $o"
[ "$(awk -F, -v s="$(col "$r" scenario)" -v c="$(col "$r" compute)" 'NR > 1 && $s == "gemm" && $c ~ /^gemm:[0-9]+x[0-9]+x[0-9]+$/ { n++ }
     NR > 1 && $s == "clean" && $c == "" { e++ } END { print n "/" e }' "$r")" = 15/15 ] && ok ||
  bad "gemm: compute column per scenario: $(cols "$r")"
awk -F, -v c="$(col "$r" compute)" 'NR > 1 && $c != "" { split(substr($c, 6), d, "x"); if (d[1] % 128 || d[1] != d[2] || d[2] != d[3]) bad++ }
     END { exit bad }' "$r" && ok || bad "gemm: M = N = K, multiples of 128: $(cols "$r")"
python3 tests/check_samples.py "$tmp/g" -n 6 >/dev/null && ok || bad "gemm: the AllReduce alone's samples: $(python3 tests/check_samples.py "$tmp/g" -n 6 | tail -3)"
printf '%s\n' "$out" | grep -qE '^#   beside gemm:[0-9x]+: load [0-9.]+ us alone, [0-9.]+ beside \(x1\.200\); allreduce [0-9.]+ beside \(x1\.[0-9]+\); span [0-9.]+ us; hidden 0\.[0-9]+$' &&
  ok || bad "gemm: the table's beside line: $(printf '%s\n' "$out" | grep beside | head -2)"
[ "$(grep -c '^# ' "$tmp/g/compute_samples.csv")" -eq 0 ] && [ "$(head -n 1 "$tmp/g/compute_samples.csv")" = "row_key,series,sample,time_us" ] &&
  [ "$(($(wc -l <"$tmp/g/compute_samples.csv") - 1))" -eq $((15 * 3 * 6)) ] && ok ||
  bad "compute_samples.csv: $(head -n 2 "$tmp/g/compute_samples.csv") ($(wc -l <"$tmp/g/compute_samples.csv") lines)"

# 2. membw and sm:N, 4 ranks on one GPU, a straggler, and more samples than -n (stats.ci_target
# with noise: the lanes take the AllReduce alone's count, -n events at a time)
for k in membw sm:16; do
  out=$(AR_SIM_GPUS=1 AR_SIM_JITTER=0.3 "$S" run --gpus 0,0,0,0 --algo ring,direct --transport ce,ll --sizes 1M,32M \
    -n 6 -w 1 --set stats.ci_target=0.001 --set stats.max_iters=14 --compute "$k" --out "$tmp/k$k" 2>&1); rc=$?
  [ "$rc" -eq 0 ] && ok || bad "$k: exit $rc: $(printf '%s\n' "$out" | tail -3)"
  o=$(python3 tests/check_compute.py "$tmp/k$k" 2>&1) && ok || bad "$k: $o"
  pat=$([ "$k" = membw ] && echo '^membw:[0-9]+x[0-9]+$' || echo '^sm:16x[0-9]+$')
  [ "$(awk -F, -v c="$(col "$tmp/k$k/results.csv" compute)" -v n="$(col "$tmp/k$k/results.csv" n_samples)" -v p="$pat" \
       'NR > 1 && $c ~ p && $n == 14 { k++ } END { print k }' "$tmp/k$k/results.csv")" = 8 ] && ok ||
    bad "$k: rows of 14 samples with the load's text: $(cols "$tmp/k$k/results.csv")"
done
out=$("$S" run --gpus 0,1,2,3 --algo ring,stragglar --transport ce --sizes 4M --straggler 1:200us -n 6 -w 1 \
  --compute gemm:1024x1024x1024 --out "$tmp/st" 2>&1); rc=$?
[ "$rc" -eq 0 ] && [ "$(cols "$tmp/st/results.csv")" = "gemm:1024x1024x1024|ok|0|0;gemm:1024x1024x1024|ok|0|0;" ] && ok ||
  bad "a given GEMM beside a straggler: exit $rc, $(cols "$tmp/st/results.csv")"
o=$(python3 tests/check_compute.py "$tmp/st" 2>&1) && ok || bad "straggler: $o"

# 3. the checks: a load that does nothing, an AllReduce wrong only beside the load, --check 0
out=$(AR_SIM_LOAD_NOOP=1 "$S" run --gpus 0,1 --algo ring --transport ce --sizes 1M -n 6 -w 1 --compute sm:4 \
  --out "$tmp/noop" 2>&1); rc=$?
[ "$rc" -eq 1 ] && [ "$(cols "$tmp/noop/results.csv" | cut -d'|' -f2-)" = "error|0|2;" ] && ok ||
  bad "a load that did nothing: exit $rc, $(cols "$tmp/noop/results.csv")"
printf '%s\n' "$out" | grep -q "^arbench: ring/ce size 1048576 B beside --compute sm:4x[0-9]*: the load's result wrong (2 elements, 7 iterations alone, 7 beside the AllReduce)$" &&
  ok || bad "a load that did nothing: $(printf '%s\n' "$out" | grep '^arbench')"
out=$(AR_SIM_BESIDE_BAD=1 "$S" run --gpus 0,1 --algo nccl,ring --transport ce --sizes 1K -n 6 -w 1 --compute membw \
  --out "$tmp/bb" 2>&1); rc=$?
[ "$rc" -eq 1 ] && [ "$(cols "$tmp/bb/results.csv" | sed 's/membw:[0-9x]*//g')" = "|error|2|0;|error|2|0;" ] && ok ||
  bad "an AllReduce wrong beside the load: exit $rc, $(cols "$tmp/bb/results.csv")"
[ "$(printf '%s\n' "$out" | grep -c "beside --compute membw:[0-9x]*: 2 wrong elements in the AllReduce (7 iterations wrong)$")" -eq 2 ] &&
  ok || bad "an AllReduce wrong beside the load: $(printf '%s\n' "$out" | grep '^arbench')"
out=$(AR_SIM_LOAD_NOOP=1 "$S" run --gpus 0,1 --algo ring --transport ce --sizes 1M -n 6 -w 1 --compute sm:4 --check 0 \
  --out "$tmp/nc" 2>&1); rc=$?
[ "$rc" -eq 0 ] && [ "$(cols "$tmp/nc/results.csv" | cut -d'|' -f2-)" = "ok||;" ] && ok ||
  bad "--check 0: exit $rc, $(cols "$tmp/nc/results.csv")"

# 4. bad values: one line, exit 2, nothing written; on the command line, in a config, in lower
bad_input "^arbench: --compute: bad value 'gpu': unknown load; use membw, sm:N \(N SMs\), gemm \(sized per row\) or gemm:MxNxK$" run --compute gpu
bad_input "^arbench: --compute: bad value '': empty; use membw" run --compute ''
bad_input "^arbench: --compute: bad value 'sm:0': sm needs the SMs to keep busy: sm:N, N a whole number from 1 to 1024$" run --compute sm:0
bad_input "^arbench: --compute: bad value 'sm': sm needs" run --compute sm
bad_input "^arbench: --compute: bad value 'membw:1G': membw takes no value" run --compute membw:1G
bad_input "^arbench: --compute: bad value 'gemm:8x8': gemm's shape is MxNxK" run --compute gemm:8x8
bad_input "^arbench: --compute: bad value 'gemm:65536x65536x65536': its matrices take 24\.0 GiB a rank, at most 8 GiB$" run --compute gemm:65536x65536x65536
bad_input "^arbench: --compute: bad value 'gemm': not with --find-critical" run --compute gemm --find-critical 64M --algo ring,stragglar
bad_input "^arbench: --compute: bad value 'sm:2': not with --profile overlap: its figures would mix a row's three lanes" run --compute sm:2 --profile overlap
bad_input "^arbench: --set: bad value 'timing.mode=graph': --compute needs every iteration timed on its own" run --compute membw --set timing.mode=graph
bad_input "^arbench: --compute: bad value 'gemm': given twice \(first 'membw'\)" run --compute membw --compute gemm
printf -- '--algo ring\n[scenario a]\n--compute sm:x\n' >"$tmp/bad.conf"
bad_input "^arbench: --compute: bad value 'sm:x': sm needs" run --config "$tmp/bad.conf"
expect 2 "^arbench: --compute: not an option of lower" "$A" lower --algo ring --ranks 4 --sizes 1M --compute gemm
expect 2 "^arbench: --compute: bad value 'gemm:0x1x1'" "$A" model --algo ring --ranks 4 --sizes 1M --compute gemm:0x1x1

# 5. no GPU needed to hear that interference is not priced: one line each
out=$("$A" run --config "$tmp/beside.conf" --gpus 0,1,2,3 --dry-run 2>&1); rc=$?
[ "$rc" -eq 0 ] && [ "$(printf '%s\n' "$out" | grep -c 'interference is not priced')" -eq 1 ] &&
  printf '%s\n' "$out" | grep -q '^  compute: gemm beside every AllReduce, and alone (each row three times as long); interference is not priced: the estimate times each as the AllReduce alone$' &&
  ok || bad "dry run: exit $rc: $out"
out=$("$A" model --algo ring --ranks 4 --sizes 1M --compute sm:8 2>&1); rc=$?
[ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -q '^# compute: sm:8 is not priced: these are the AllReduce alone.s times; interference is measured by arbench run --compute$' &&
  printf '%s\n' "$out" | grep -q '^model_time_us: ' && ok || bad "model: exit $rc: $out"
finish
