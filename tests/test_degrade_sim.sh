#!/usr/bin/env bash
# `arbench run --degrade` end to end on the simulated machine of tests/sim/fake_gpu.c (the
# model's times, with its slow ports for the degraded GPUs): rows measured on every transport
# except nccl and ll (n/a, each with its reason), times equal to `arbench model --degrade`,
# OPTCC built per size with its k in the pipeline column, the healthy bandwidth measured once
# and written to meta.txt, a factor sweep over config scenarios, the bandwidth that cannot be
# measured, --self-test degrade.
. "$(dirname "$0")/lib.sh"
B=${B:-build}

. tests/sim/build.sh
sim_build degrade

# row FILE ALGO TRANSPORT BYTES FACTOR NAME: that row's field (degraded rows: FACTOR; else 1)
row() {
  awk -F, -v a="$2" -v t="$3" -v b="$4" -v f="$5" -v c="$(col "$1" algorithm)" \
      -v tc="$(col "$1" transport)" -v bc="$(col "$1" bytes)" -v fc="$(col "$1" factor)" \
      -v xc="$(col "$1" "$6")" 'NR > 1 && $c == a && $tc == t && $bc == b && $fc + 0 == f + 0 { print $xc; exit }' "$1"
}
# near X Y REL: |X - Y| <= REL * |Y|
near() { awk -v x="$1" -v y="$2" -v r="$3" 'BEGIN { d = x - y; if (d < 0) d = -d; m = y < 0 ? -y : y; exit !(x != "" && d <= r * m + 1e-6) }'; }
# model ALGO BYTES DEGRADE [SEGMENTS]: arbench model's time_us (4 ranks)
model() { "$A" model --algo "$1" --ranks 4 --sizes "$2" --degrade "$3" ${4:+--segments "$4"} | awk '/^model_time_us:/ { print $2 }'; }

# 1. one GPU x2 on every transport: nccl and ll n/a, the rest measured at the model's degraded
#    times; OPTCC built for rank 3 with the size's k (the pipeline column), rebuilt between sizes
out=$("$S" run --gpus 0,1,2,3 --algo nccl,ring,optcc --transport nccl-p2p,ce,sm,ll -b 16M -e 1G -f 8 \
      --degrade 3:2 -n 2 -w 1 --out "$tmp/d2" 2>"$tmp/err"); rc=$?
r=$tmp/d2/results.csv
[ "$rc" -eq 0 ] && [ -s "$r" ] && ok || bad "degraded run -> exit $rc: $(cat "$tmp/err")"
st=$(awk -F, -v a="$(col "$r" algorithm)" -v t="$(col "$r" transport)" -v s="$(col "$r" status)" -v d="$(col "$r" degraded_rank)" \
     'NR > 1 { n++; if ($d != 3 || $s != ($a == "nccl" || $t == "ll" ? "n/a" : "ok")) bad++ } END { print n + 0, bad + 0 }' "$r")
[ "$st" = "27 0" ] && ok || bad "rows (count, wrong status): $st, want 3 sizes x (1 + 2 x 4)"
printf '%s\n' "$out" | grep -q '^n/a: nccl (nccl): nccl cannot be degraded' && ok || bad "nccl n/a line: $out"
llna="ll: no degraded-link emulation on this transport (ce, sm and nccl-p2p have one)"
for a in ring optcc; do
  [ "$(printf '%s\n' "$out" | grep -cxF "n/a: $a (ll): $llna")" = 1 ] && ok || bad "$a/ll n/a line: $(printf '%s\n' "$out" | grep '^n/a')"
done
printf '%s\n' "$out" | grep -q 'not implemented' && bad "an old n/a line: $out" || ok
for b in 16777216 134217728 1073741824; do
  for t in nccl-p2p ce sm; do
    want=$(model ring $b 3:2) got=$(row "$r" ring $t $b 2 time_us_median)
    near "$got" "$want" 1e-4 && ok || bad "ring/$t $b B: $got us, model $want"
  done
  k=$(row "$r" optcc ce $b 2 pipeline)
  case $b in 16777216) wk=4 ;; 134217728) wk=4 ;; *) wk=16 ;; esac
  [ "$k" = "$wk" ] && ok || bad "optcc $b B: k $k in the pipeline column, want $wk"
  # on GPUs optcc is the switch form, which `arbench model` prices as optcc-switch
  want=$(model optcc-switch $b 3:2 "$wk") got=$(row "$r" optcc sm $b 2 time_us_median)
  near "$got" "$want" 1e-4 && ok || bad "optcc/sm $b B: $got us, model $want (k $wk)"
done
[ "$(row "$r" ring ce 1073741824 2 pipeline)" = 1 ] && ok || bad "ring's pipeline column changed"
# OPTCC beats ring on the slow link at 1 GiB (the model: 1.45x)
awk -v o="$(row "$r" optcc ce 1073741824 2 time_us_median)" -v g="$(row "$r" ring ce 1073741824 2 time_us_median)" \
  'BEGIN { exit !(g / o > 1.3) }' && ok || bad "optcc not 1.3x faster than ring at 1 GiB"
# optcc.txt's lower bound beside degraded rows (the column lower_bound_us, once csv.c has it):
# `arbench model`'s, at the fake's bandwidth
if [ -n "$(col "$r" lower_bound_us)" ]; then
  want=$("$A" model --algo ring --ranks 4 --sizes 1073741824 --degrade 3:2 | awk '/^lower_bound_us:/ { print $2 }')
  near "$(row "$r" ring ce 1073741824 2 lower_bound_us)" "$want" 1e-4 && ok || bad "lower_bound_us: want $want"
  near "$(row "$r" nccl nccl 1073741824 2 lower_bound_us)" "$want" 1e-4 && ok || bad "nccl row's lower_bound_us"
fi
# the healthy bandwidth: measured once, in meta.txt and on stdout
grep -q '^degrade_healthy_bw: 450\.00 GB/s (copy engine push GPU 0 -> GPU 3, 512 MiB, median of 5' "$tmp/d2/meta.txt" &&
  ok || bad "meta.txt: $(grep degrade "$tmp/d2/meta.txt")"
[ "$(printf '%s\n' "$out" | grep -c '^# degrade: healthy bandwidth 450\.00 GB/s')" = 1 ] && ok || bad "stdout: $out"

# 2. --segments K: every optcc row has k = K; optcc-multi with two degraded GPUs
"$S" run --gpus 0,1,2,3 --algo optcc,optcc-multi --transport ce -b 16M -e 1G -f 64 --degrade 3:2,0:1.5 \
  --segments 8 -n 2 -w 1 --out "$tmp/k8" >/dev/null 2>"$tmp/err" && ok || bad "--segments run: $(cat "$tmp/err")"
r=$tmp/k8/results.csv
ks=$(awk -F, -v p="$(col "$r" pipeline)" -v s="$(col "$r" status)" 'NR > 1 { printf "%s/%s ", $p, $s }' "$r")
[ "$ks" = "8/ok 8/ok 8/ok 8/ok " ] && ok || bad "--segments 8: $ks"
want=$("$A" model --algo optcc-switch --ranks 4 --sizes 1073741824 --degrade 3:2,0:1.5 --segments 8 | awk '/^model_time_us:/ { print $2 }')
near "$(row "$r" optcc-multi ce 1073741824 2 time_us_median)" "$want" 1e-4 && ok || bad "optcc-multi: model $want"
# optcc-ring: the papers' ring form on GPUs too, priced as `arbench model` prices optcc (k 8)
"$S" run --gpus 0,1,2,3 --algo optcc-ring --transport sm -b 1G -e 1G --degrade 3:2 -n 2 -w 1 \
  --out "$tmp/ring" >/dev/null 2>"$tmp/err" && ok || bad "optcc-ring run: $(cat "$tmp/err")"
r=$tmp/ring/results.csv
[ "$(row "$r" optcc-ring sm 1073741824 2 pipeline)" = 8 ] && ok || bad "optcc-ring: k $(row "$r" optcc-ring sm 1073741824 2 pipeline)"
want=$(model optcc 1073741824 3:2 8)
near "$(row "$r" optcc-ring sm 1073741824 2 time_us_median)" "$want" 1e-4 && ok || bad "optcc-ring: model $want"

# 3. a factor sweep: --degrade in each scenario of a config (1.0 .. 4.0), one run folder;
#    ring's time grows with the factor, the clean scenario has no degraded rows
cat >"$tmp/f.conf" <<EOF
--gpus 0,1,2,3 --algo ring,optcc --transport ce -b 256M -e 256M -n 2 -w 1
[scenario clean]
[scenario x1]
--degrade 1:1.0
[scenario x2]
--degrade 1:2.0
[scenario x4]
--degrade 1:4.0
EOF
"$S" run --config "$tmp/f.conf" --out "$tmp/sweep" >"$tmp/out" 2>"$tmp/err" && ok || bad "factor sweep: $(cat "$tmp/err")"
r=$tmp/sweep/results.csv
prev=0
for f in 1 2 4; do
  t=$(row "$r" ring ce 268435456 $f time_us_median)
  awk -v t="$t" -v p="$prev" 'BEGIN { exit !(t > p) }' && ok || bad "factor $f: ring $t us after $prev"
  near "$t" "$(model ring 268435456 1:$f)" 1e-4 && ok || bad "factor $f: ring $t us"
  prev=$t
done
[ "$(awk -F, -v d="$(col "$r" degraded_rank)" 'NR > 1 && $d == -1' "$r" | wc -l)" = 2 ] && ok || bad "clean rows"
# optcc at 1.0x is the direct AllReduce in one segment (its pipeline column: the k built)
[ "$(row "$r" optcc ce 268435456 1 pipeline)" = 1 ] && ok || bad "optcc x1: k $(row "$r" optcc ce 268435456 1 pipeline)"
[ "$(row "$r" optcc ce 268435456 2 pipeline)" = 8 ] && ok || bad "optcc x2: k $(row "$r" optcc ce 268435456 2 pipeline)"
if [ -n "$(col "$r" lower_bound_us)" ]; then
  [ -z "$(row "$r" ring ce 268435456 1 lower_bound_us)" ] || [ "$(row "$r" ring ce 268435456 1 degraded_rank)" != -1 ] ||
    bad "a clean row has a lower bound"
  awk -F, -v l="$(col "$r" lower_bound_us)" -v d="$(col "$r" degraded_rank)" 'NR > 1 && $d == -1 && $l != "" { bad = 1 } END { exit bad }' "$r" &&
    ok || bad "a clean row has a lower bound"
fi
[ "$(grep -c '^degrade_healthy_bw: ' "$tmp/sweep/meta.txt")" = 1 ] && ok || bad "one calibration per run"
[ "$(grep -c '^# degrade: healthy bandwidth' "$tmp/out")" = 1 ] && ok || bad "calibrated more than once: $(cat "$tmp/out")"
"$A" run --config configs/degraded.conf --dry-run --gpus 0,1,2,3 >"$tmp/plan" 2>&1 && ok || bad "degraded.conf: $(cat "$tmp/plan")"
for f in 1 1.5 2 3 4; do
  grep -q "degraded: rank 1 links x$f\$" "$tmp/plan" && ok || bad "degraded.conf lacks factor $f: $(cat "$tmp/plan")"
done
grep -q 'n/a: nccl: nccl cannot be degraded' "$tmp/plan" && ok || bad "degraded.conf plan: nccl"

# 4. without a healthy bandwidth the degraded rows are n/a and say why; healthy runs never
#    measure it
AR_SIM_NO_BW=1 "$S" run --gpus 0,1,2,3 --algo ring --transport ce,sm,ll -b 1M -e 1M --degrade 1:2 -n 2 -w 1 \
  --out "$tmp/nobw" >"$tmp/out" 2>&1; rc=$?
[ "$rc" -eq 0 ] && [ "$(row "$tmp/nobw/results.csv" ring sm 1048576 2 status)" = "n/a" ] && ok || bad "no bandwidth: exit $rc"
grep -q '^n/a: ring (ce): degraded links: the healthy bandwidth is not known' "$tmp/out" && ok || bad "no bandwidth line: $(cat "$tmp/out")"
# ll has no emulation to want a bandwidth for: its own reason
grep -qxF "n/a: ring (ll): $llna" "$tmp/out" && ok || bad "no bandwidth, ll: $(grep '^n/a' "$tmp/out")"
grep -q '^degrade_healthy_bw: not measured' "$tmp/nobw/meta.txt" && ok || bad "no bandwidth: meta.txt"
"$S" run --gpus 0,1 --algo ring --transport ce -b 1M -e 1M -n 2 -w 1 --out "$tmp/clean" >"$tmp/out" 2>&1
grep -q "degrade_healthy_bw\|healthy bandwidth" "$tmp/clean/meta.txt" "$tmp/out" && bad "a healthy run measured the bandwidth" || ok

# 5. the self-test's command line (the fake measures nothing)
out=$("$S" run --self-test degrade --gpus 2,0,1 2>&1); rc=$?
[ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -q '^# self-test degrade: GPU 2 degraded x2, 2 peers' &&
  printf '%s\n' "$out" | grep -q '^self-test degrade: pass$' && ok || bad "self-test: exit $rc: $out"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
