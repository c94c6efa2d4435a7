#!/usr/bin/env bash
# `arbench run` end to end on a simulated machine (tests/sim/fake_gpu.c: stream clocks instead
# of GPUs, the model's times instead of transfers): the real harness objects, linked with the
# fake, run sweeps, stragglers (fixed, uniform, per-iteration file, several), the
# critical-delay search, config scenarios into one run folder (the scenario columns), degraded
# rows, oom and wrong rows, a transport that reads stale data (caught because every iteration
# has inputs of its own), the progress line, plots/ and --baseline at the end. Timing is checked against
# `arbench model` (the fake uses the model's constants; ll its 2 us a round): from the
# non-stragglers' entry to the last finish, the straggler-aware precondition overlapping the
# delay on the others. Every row's samples read back (tests/check_samples.py); stats.ci_target:
# tests/test_stats_sim.sh.
. "$(dirname "$0")/lib.sh"
B=${B:-build}

. tests/sim/build.sh
sim_build main

# field FILE ALGO TRANSPORT BYTES NAME: that row's field (first match)
field() {
  awk -F, -v a="$2" -v t="$3" -v b="$4" -v c="$(col "$1" algorithm)" -v tc="$(col "$1" transport)" \
      -v bc="$(col "$1" bytes)" -v fc="$(col "$1" "$5")" \
      'NR > 1 && $c == a && $tc == t && $bc == b { print $fc; exit }' "$1"
}
# near X Y REL: |X - Y| <= REL * |Y|
near() { awk -v x="$1" -v y="$2" -v r="$3" 'BEGIN { d = x - y; if (d < 0) d = -d; m = y < 0 ? -y : y; exit !(x != "" && d <= r * m + 1e-6) }'; }
# model ALGO BYTES DELAY_RANK DELAY [ALPHA]: arbench model's time_us (4 ranks)
model() { "$A" model --algo "$1" --ranks 4 --sizes "$2" ${3:+--straggler "$3:$4"} ${5:+--alpha "$5"} | awk '/^model_time_us:/ { print $2 }'; }

# 1. a sweep with a fixed straggler: each row's time is the model's, with the precondition of
#    the straggler-aware bcast hidden under the delay on every rank but rank 1
out=$("$S" run --gpus 0,1,2,3 --algo nccl,ring,rhd,bcast,stragglar --transport nccl-p2p,ce,ll \
      -b 1M -e 16M -f 4 --straggler 1:8ms -n 4 -w 1 --out "$tmp/fixed" 2>"$tmp/err"); rc=$?
r=$tmp/fixed/results.csv
if [ "$rc" -eq 0 ] && [ -s "$r" ]; then ok; else bad "fixed straggler run -> exit $rc: $(cat "$tmp/err")"; fi
[ "$(($(wc -l <"$r") - 1))" -eq 39 ] && ok || bad "fixed: $(($(wc -l <"$r") - 1)) rows, want 3 sizes x 13"
for a in ring rhd bcast; do
  for b in 1048576 16777216; do
    want=$(model "$a" "$b" 1 8ms) got=$(field "$r" "$a" ce "$b" time_us_median)
    near "$got" "$want" 1e-4 && ok || bad "fixed: $a $b B: time $got, model $want"
    d=$(field "$r" "$a" ce "$b" delay_us) after=$(field "$r" "$a" ce "$b" time_after_arrival_us)
    near "$d" 8000 1e-9 && near "$after" "$(awk -v t="$got" -v d="$d" 'BEGIN { print t - d }')" 1e-4 && ok ||
      bad "fixed: $a $b B: delay $d, after arrival $after (time $got)"
    [ "$(field "$r" "$a" ce "$b" straggler_rank)" = 1 ] && ok || bad "fixed: straggler_rank column"
    want=$(model "$a" "$b" 1 8ms 2us) got=$(field "$r" "$a" ll "$b" time_us_median)
    near "$got" "$want" 1e-4 && ok || bad "fixed: $a/ll $b B: time $got, model at 2 us a round $want"
  done
done
# bcast hides its ReduceScatter: less than delay + its undelayed time
b0=$(model bcast 16777216) b8=$(field "$r" bcast ce 16777216 time_us_median)
awk -v a="$b8" -v b="$b0" 'BEGIN { exit !(a < 8000 + b - 1) }' && ok || bad "bcast does not overlap: $b8 vs 8000 + $b0"
[ "$(field "$r" stragglar ce 1048576 status)" = "n/a" ] || [ "$(field "$r" stragglar ce 1048576 status)" = "ok" ] && ok ||
  bad "stragglar row: $(field "$r" stragglar ce 1048576 status)"
printf '%s\n' "$out" | grep -qE '^ +1048576 +262144 +float32 +ring +ce ' && ok || bad "fixed: no table line: $out"
# delays.csv: every timed iteration of every measured row
dl=$tmp/fixed/delays.csv
nok=$(awk -F, -v s="$(col "$r" status)" 'NR > 1 && $s == "ok"' "$r" | wc -l)
[ "$(head -n 1 "$dl")" = "scenario,algorithm,transport,bytes,iteration,straggler_rank,delay_us,time_us" ] && ok ||
  bad "delays.csv header: $(head -n 1 "$dl")"
[ "$(($(wc -l <"$dl") - 1))" -eq $((nok * 4)) ] && ok || bad "delays.csv: $(($(wc -l <"$dl") - 1)) lines for $nok rows x 4"
# no progress line unless asked (stderr is not a terminal here)
grep -q 'rows\]' "$tmp/err" && bad "progress line without AR_PROGRESS: $(cat "$tmp/err")" || ok
[ -s "$tmp/fixed/summary.md" ] && ok || bad "no summary.md after the run"
printf '%s\n' "$out" | grep -q '^# summary.sh: wrote' && ok || bad "summary.sh not called: $out"
printf '%s\n' "$out" | grep -q '^# results: ' && ok || bad "no results line"

# 2. uniform delays: a new draw per iteration within the range, the same draws for every
#    algorithm of a size, delay_us their mean; a per-iteration file, cycled; two stragglers
AR_PROGRESS=1 "$S" run --gpus 0,1,2,3 --algo ring,rhd,bcast --transport ce -b 1M -e 4M -f 4 \
  --straggler 2:1ms-3ms -n 6 -w 2 --out "$tmp/uni" >/dev/null 2>"$tmp/err" && ok || bad "uniform run: $(cat "$tmp/err")"
dl=$tmp/uni/delays.csv
awk -F, 'NR > 1 && ($7 < 1000 || $7 > 3000) { bad = 1 } END { exit bad }' "$dl" && ok || bad "uniform delay out of range"
[ "$(awk -F, 'NR > 1 { print $7 }' "$dl" | sort -u | wc -l)" -ge 10 ] && ok || bad "uniform delays do not vary"
same=$(awk -F, 'NR > 1 { k = $4 "|" $5; if (k in v && v[k] != $7) bad = 1; v[k] = $7 } END { print bad + 0 }' "$dl")
[ "$same" = 0 ] && ok || bad "algorithms of one size saw different draws"
for a in ring bcast; do
  mean=$(awk -F, -v a="$a" 'NR > 1 && $2 == a && $4 == 1048576 { s += $7; n++ } END { printf "%.3f", s / n }' "$dl")
  near "$(field "$tmp/uni/results.csv" "$a" ce 1048576 delay_us)" "$mean" 1e-5 && ok || bad "uniform: delay_us is not the mean ($mean)"
  # time_us per iteration = max(delay, precondition) + the rest: the model at that delay
  line=$(awk -F, -v a="$a" 'NR > 1 && $2 == a && $4 == 1048576 { print $7 " " $8; exit }' "$dl")
  want=$(model "$a" 1048576 2 "${line% *}us")
  near "${line#* }" "$want" 1e-4 && ok || bad "uniform: $a iteration time ${line#* } vs model $want at ${line% *} us"
done
grep -qE '^\[0/6 rows\] [0-9]+s elapsed, ~[0-9]+s left: size 1048576 B, algorithm ring, transport ce$' "$tmp/err" && ok ||
  bad "AR_PROGRESS=1: no progress line: $(cat "$tmp/err")"
printf '1ms\n# comment\n5ms\n2ms\n' >"$tmp/d.txt"
"$S" run --gpus 0,1,2,3 --algo ring --transport ce -b 1M -e 1M --straggler "3:@$tmp/d.txt,0:500us" \
  -n 5 -w 1 --out "$tmp/file" >/dev/null 2>"$tmp/err" && ok || bad "file run: $(cat "$tmp/err")"
# timed iterations 0..4 are iterations 1..5 of the file's 3 delays (the first was warm-up)
got=$(awk -F, '$6 == 3 { printf "%s ", $7 }' "$tmp/file/delays.csv")
[ "$got" = "5000.000 2000.000 1000.000 5000.000 2000.000 " ] && ok || bad "file delays: $got"
got=$(awk -F, '$6 == 0 { printf "%s ", $7 }' "$tmp/file/delays.csv")
[ "$got" = "500.000 500.000 500.000 500.000 500.000 " ] && ok || bad "second straggler: $got"
# the row's delay is the last arrival's (the larger of the two), its straggler the first listed
near "$(field "$tmp/file/results.csv" ring ce 1048576 delay_us)" 3000 1e-9 && ok || bad "file: delay_us"
[ "$(field "$tmp/file/results.csv" ring ce 1048576 straggler_rank)" = 3 ] && ok || bad "file: straggler_rank"

# 3. the critical-delay search: the search's answer equals the model's (the fake runs the
#    model), every probe is a row in results.csv, critical.csv has the contract's columns
out=$("$S" run --gpus 0,1,2,3 --algo ring,rhd,bcast --transport nccl-p2p,ce --find-critical 4K,1M,64M \
      --critical-algo bcast -n 3 -w 1 --out "$tmp/crit" 2>"$tmp/err"); rc=$?
c=$tmp/crit/critical.csv
[ "$rc" -eq 0 ] && [ -s "$c" ] && ok || bad "critical run -> exit $rc: $(cat "$tmp/err")"
head -n 1 "$c" | grep -q '^bytes,algorithm,baseline,critical_delay_us,model_critical_delay_us,' && ok ||
  bad "critical.csv header: $(head -n 1 "$c")"
[ "$(($(wc -l <"$c") - 1))" -eq 3 ] && ok || bad "critical.csv: $(($(wc -l <"$c") - 1)) sizes, want 3"
awk -F, 'NR > 1 && ($4 != $5 || $4 == "") { bad = 1 } END { exit bad }' "$c" && ok || bad "measured != model: $(cat "$c")"
grep -q '^4096,bcast,rhd/nccl-p2p,100.0,100.0,4,3,nccl-p2p,found,' "$c" && ok || bad "4K: $(grep ^4096 "$c")"
grep -q '^67108864,bcast,.*,inf,inf,4,3,.*,never,9,' "$c" && ok || bad "64M: $(grep ^67108864 "$c")"
probes=$(awk -F, 'NR > 1 { s += $10 } END { print s }' "$c")
[ "$(($(wc -l <"$tmp/crit/results.csv") - 1))" -eq $((probes * 6)) ] && ok ||
  bad "results.csv: $(($(wc -l <"$tmp/crit/results.csv") - 1)) rows for $probes probes x 6 candidates"
awk -F, -v d="$(col "$tmp/crit/results.csv" delay_us)" 'NR > 1 && $d == "64000.000" { n++ } END { exit n != 6 }' \
  "$tmp/crit/results.csv" && ok || bad "the 64 ms probes are not rows of results.csv"
printf '%s\n' "$out" | grep -q '^# critical delay, 4096 B: 100.0 us; model 100.0 us; ' && ok || bad "critical stdout: $out"
# the straggler-aware algorithm n/a (stragglar not built for these n, or odd n): the search says so
"$S" run --gpus 0,1,2 --algo ring,stragglar --transport ce --find-critical 1M -n 2 -w 0 \
  --out "$tmp/crit3" >/dev/null 2>&1
if [ "$("$A" schedule --algo stragglar --ranks 3 >/dev/null 2>&1; echo $?)" -ne 0 ]; then
  grep -q '^1048576,stragglar,ring/ce,,,3,2,,n/a,1,,no stragglar row could be measured at delay 0: ' "$tmp/crit3/critical.csv" &&
    ok || bad "stragglar n/a: $(cat "$tmp/crit3/critical.csv")"
fi

# 4. a config with scenarios into one run folder; degraded rows (nccl's n/a) with their columns
cat >"$tmp/s.conf" <<EOF
--gpus 0,1,2,3 --algo nccl,ring,bcast --transport ce -b 1M -e 4M -f 4 -n 2 -w 1
[scenario clean]
[scenario late]
--straggler 1:2ms
[scenario late2]
--straggler 1:2ms,3:500us
[scenario slow]
--degrade 2:2.5
[scenario crit]
--find-critical 4K --critical-algo bcast --algo ring,bcast
EOF
out=$("$S" run --config "$tmp/s.conf" --out "$tmp/scen" 2>"$tmp/err"); rc=$?
r=$tmp/scen/results.csv
[ "$rc" -eq 0 ] && ok || bad "scenarios -> exit $rc: $(cat "$tmp/err")"
[ "$(printf '%s\n' "$out" | grep -c '^# scenario ')" -eq 5 ] && ok || bad "scenario lines: $out"
[ "$(grep -c '^run_id,' "$r")" -eq 1 ] && ok || bad "one header in results.csv"
cmp -s "$tmp/s.conf" "$tmp/scen/config.conf" && ok || bad "the config is not copied into the run folder"
# clean 2 sizes x 3 + late 6 + late2 6 + slow 6 + crit at least 2 (delay 0)
[ "$(($(wc -l <"$r") - 1))" -ge 26 ] && ok || bad "scenarios: $(($(wc -l <"$r") - 1)) rows"
slow=$(awk -F, -v d="$(col "$r" degraded_rank)" -v f="$(col "$r" factor)" -v s="$(col "$r" status)" \
       -v a="$(col "$r" algorithm)" 'NR > 1 && $d == 2 { n++; if ($f != 2.5 || $s != ($a == "nccl" ? "n/a" : "ok")) bad++ }
       END { print n + 0, bad + 0 }' "$r")
[ "$slow" = "6 0" ] && ok || bad "degraded rows (count, not ok / nccl n/a): $slow"
printf '%s\n' "$out" | grep -q '^n/a: nccl (nccl): nccl cannot be degraded' && ok || bad "nccl degraded line"
grep -q '^late,ring,ce,1048576,0,1,2000.000,' "$tmp/scen/delays.csv" && ok || bad "delays.csv scenario column"
# results.csv: docs/csv.md's 31 fixed columns first and unchanged, then lower_bound_us
# and the scenario columns; every row names its scenario, every straggler and degraded GPU
spec='run_id,timestamp,host,gpu,n_gpus,driver,cuda,nccl,source,algorithm,transport,pipeline,dtype,bytes,straggler_rank,delay_us,degraded_rank,factor,iters,time_us_mean,time_us_median,time_us_min,time_us_max,time_us_p95,time_us_stdev,time_after_arrival_us,algbw_gbps,busbw_gbps,model_time_us,wrong,status'
[ "$(head -n 1 "$r")" = "$spec,lower_bound_us,scenario,stragglers,degraded,overlap_reduce_pct,overlap_delay_pct,placement,settings,row_key,n_samples,time_us_ci_lo,time_us_ci_hi,ci_level_pct,repeat_stop,compute,compute_us_median,compute_us_ci_lo,compute_us_ci_hi,allreduce_loaded_us_median,allreduce_loaded_us_ci_lo,allreduce_loaded_us_ci_hi,compute_loaded_us_median,compute_loaded_us_ci_lo,compute_loaded_us_ci_hi,span_us_median,span_us_ci_lo,span_us_ci_hi,allreduce_slowdown,compute_slowdown,hidden_share,compute_wrong,compute_n_samples" ] && ok || bad "results.csv header: $(head -n 1 "$r")"
# every row's samples: clean, stragglers, degraded (nccl n/a: none) and the search's probes
o=$(python3 tests/check_samples.py "$tmp/scen" -n 2 --expect-stop fixed 2>&1) && ok || bad "scenarios' samples: $o"
o=$(python3 tests/check_samples.py "$tmp/fixed" -n 4 --expect-stop fixed 2>&1) && ok || bad "fixed straggler's samples: $o"
# sc COLUMN...: the distinct "scenario|COLUMN|..." of the rows, one per line, sorted
sc() {
  LC_ALL=C awk -F, -v cols="scenario $*" -v hdr="$(head -n 1 "$r")" 'BEGIN { n = split(hdr, h, ","); for (i = 1; i <= n; i++) c[h[i]] = i; k = split(cols, w, " ") }
    NR > 1 { l = ""; for (i = 1; i <= k; i++) l = l (i > 1 ? "|" : "") $c[w[i]]; print l }' "$r" | LC_ALL=C sort -u
}
[ "$(sc stragglers degraded | grep -v '^crit|' | tr '\n' ' ')" = "clean|| late2|1:2000;3:500| late|1:2000| slow||2:2.5 " ] && ok ||
  bad "scenario, stragglers, degraded: $(sc stragglers degraded | tr '\n' ' ')"
[ "$(sc straggler_rank delay_us | grep '^late' | tr '\n' ' ')" = "late2|1|2000.000 late|1|2000.000 " ] && ok ||
  bad "late and late2 share the SPEC columns: $(sc straggler_rank delay_us | tr '\n' ' ')"
crit=$(sc stragglers | grep -c '^crit|3:')
[ "$crit" -ge 2 ] && ok || bad "the search's rows: the first straggler's probed delays in the list ($crit)"
# summary.md keeps late and late2 apart (the same first straggler and delay)
in_straggler=$(awk '/^## /{ on = ($0 == "## Straggler") } on' "$tmp/scen/summary.md")
printf '%s\n' "$in_straggler" | grep -qE '^\| late \| 1 \| 2 \| 1 MiB \|' &&
  printf '%s\n' "$in_straggler" | grep -qE '^\| late2 \| 1 \(and 3 \+0\.5 ms\) \| 2 \| 1 MiB \|' && ok ||
  bad "summary.md merges late and late2: $in_straggler"
[ "$(($(wc -l <"$tmp/scen/critical.csv") - 1))" -eq 1 ] && grep -q ',crit,' "$tmp/scen/critical.csv" && ok ||
  bad "scenario critical.csv: $(cat "$tmp/scen/critical.csv")"

# 5. oom and wrong rows: the sweep goes on; a wrong result fails the run
AR_SIM_MEM=$((8 << 20)) "$S" run --gpus 0,1 --algo ring --transport ce -b 4M -e 32M -n 2 -w 0 \
  --out "$tmp/oom" >/dev/null 2>&1 && ok || bad "oom run failed"
st=$(awk -F, -v s="$(col "$tmp/oom/results.csv" status)" 'NR > 1 { printf "%s ", $s }' "$tmp/oom/results.csv")
[ "$st" = "ok ok oom oom " ] && ok || bad "oom statuses: $st"
# ll's receive slots, two parities of everything a rank receives (ring on 2 ranks: 2 x the
# buffer as signals), do not fit where the data buffer still does
AR_SIM_MEM=$((8 << 20)) "$S" run --gpus 0,1 --algo ring --transport ce,ll --sizes 1M,3M,5M -n 2 -w 0 \
  --set ll.protocol=signals --out "$tmp/oomll" >/dev/null 2>&1 && ok || bad "ll oom run failed"
st=$(awk -F, -v s="$(col "$tmp/oomll/results.csv" status)" -v t="$(col "$tmp/oomll/results.csv" transport)" \
     'NR > 1 { printf "%s/%s ", $t, $s }' "$tmp/oomll/results.csv")
[ "$st" = "ce/ok ll/ok ce/ok ll/ok ce/ok ll/oom " ] && ok || bad "ll's oom statuses: $st"
AR_SIM_WRONG=ring "$S" run --gpus 0,1 --algo ring,rhd --transport ce -b 1M -e 1M -n 2 -w 0 \
  --out "$tmp/wrong" >/dev/null 2>&1; rc=$?
[ "$rc" -eq 1 ] && [ "$(field "$tmp/wrong/results.csv" ring ce 1048576 status)" = error ] &&
  [ "$(field "$tmp/wrong/results.csv" rhd ce 1048576 status)" = ok ] && ok || bad "wrong rows: exit $rc"
# a run with wrong rows says so in its folder (FAILED: make run compares with no such night)
[ -s "$tmp/wrong/FAILED" ] && ok || bad "wrong rows: no FAILED marker"

# 5b. stale data: AR_SIM_STALE=ring makes the ring's transports sum the peers' inputs of the
#     iteration before on every odd iteration (a scratch slot read before this iteration's
#     data landed). With the same inputs every iteration that would go unseen; with inputs of
#     their own it is wrong elements, the row an error and the run a failure. The same run
#     without it: every row ok with 0 wrong (the fake really sums, the check really checks)
"$S" run --gpus 0,1,2,3 --algo nccl,ring,rhd --transport ce,sm,ll -b 4K -e 64K -f 16 --dtype fp16 -n 3 -w 2 \
  --out "$tmp/fresh" >/dev/null 2>"$tmp/err"; rc=$?
st=$(awk -F, -v s="$(col "$tmp/fresh/results.csv" status)" -v w="$(col "$tmp/fresh/results.csv" wrong)" \
     'NR > 1 { printf "%s/%s ", $s, $w }' "$tmp/fresh/results.csv")
[ "$rc" -eq 0 ] && [ "$st" = "$(printf 'ok/0 %.0s' $(seq 14))" ] && ok || bad "fresh run: exit $rc, rows $st: $(cat "$tmp/err")"
AR_SIM_STALE=ring "$S" run --gpus 0,1,2,3 --algo nccl,ring,rhd --transport ce,sm,ll -b 4K -e 64K -f 16 -n 3 -w 2 \
  --out "$tmp/stale" >/dev/null 2>"$tmp/err"; rc=$?
r=$tmp/stale/results.csv
[ "$rc" -eq 1 ] && ok || bad "stale run -> exit $rc, want 1"
for tp in ce sm ll; do
  for b in 4096 65536; do
    w=$(field "$r" ring "$tp" "$b" wrong)
    [ "$(field "$r" ring "$tp" "$b" status)" = error ] && [ "${w:-0}" -gt $((b / 4 / 2)) ] && ok ||
      bad "stale ring/$tp $b B: status $(field "$r" ring "$tp" "$b" status), wrong $w"
    [ "$(field "$r" rhd "$tp" "$b" status)/$(field "$r" rhd "$tp" "$b" wrong)" = ok/0 ] && ok || bad "rhd/$tp $b B caught too"
  done
done
grep -q '^arbench: ring/ce size 4096 B: [0-9]* wrong elements in .* iteration 1 (2 of 5 iterations wrong, warm-up included):' \
  "$tmp/err" && ok || bad "stale: the error line: $(cat "$tmp/err")"
# only the warm-up is stale (-w 2 -n 1: iteration 1 is the second warm-up): still an error
AR_SIM_STALE=ring "$S" run --gpus 0,1 --algo ring --transport ce -b 4K -e 4K -n 1 -w 2 \
  --out "$tmp/stalew" >/dev/null 2>"$tmp/err"; rc=$?
w=$(field "$tmp/stalew/results.csv" ring ce 4096 wrong)
[ "$rc" -eq 1 ] && [ "$(field "$tmp/stalew/results.csv" ring ce 4096 status)" = error ] && [ "${w:-0}" -gt 0 ] &&
  grep -q 'wrong elements in warm-up iteration 1 (1 of 3 iterations wrong' "$tmp/err" && ok ||
  bad "a stale warm-up: exit $rc, wrong $w: $(cat "$tmp/err")"

# 6. --baseline: a slower run is flagged, its regression lines on stdout
"$S" run --gpus 0,1,2,3 --algo ring,rhd --transport ce -b 64M -e 256M -n 3 -w 1 --out "$tmp/base" >/dev/null 2>&1
[ -s "$tmp/base/results.csv" ] && [ ! -e "$tmp/base/FAILED" ] && ok || bad "a clean run marked FAILED"
out=$(AR_SIM_SCALE=1.5 "$S" run --gpus 0,1,2,3 --algo ring,rhd --transport ce -b 64M -e 256M -n 3 -w 1 \
      --out "$tmp/now" --baseline "$tmp/base" 2>&1); rc=$?
[ "$rc" -eq 0 ] && ok || bad "baseline run -> exit $rc"
printf '%s\n' "$out" | grep -q "^# regressions against $tmp/base:" && ok || bad "no regressions heading: $out"
printf '%s\n' "$out" | grep -q '^# \*\*6 regressions\*\*' && ok || bad "regressions not counted: $out"
[ "$(printf '%s\n' "$out" | grep -c '^# | clean | ring/ce\|^# | clean | rhd/ce')" -eq 6 ] && ok || bad "regression rows: $out"
out=$("$S" run --gpus 0,1,2,3 --algo ring,rhd --transport ce -b 64M -e 256M -n 3 -w 1 \
      --out "$tmp/same" --baseline "$tmp/base" 2>&1)
printf '%s\n' "$out" | grep -q '^# None: 6 rows compared' && ok || bad "an equal run flagged: $out"

# 7. the delay self-test's report (the fake's delays are exact)
out=$("$S" run --self-test delay --gpus 1,0 2>&1); rc=$?
[ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -q '^self-test delay: pass$' &&
  [ "$(printf '%s\n' "$out" | grep -cE '^ +(100|1000|8000)\.0 +[0-9.]+ +-?[0-9.]+ +[0-9.]+ +pass$')" -eq 3 ] &&
  printf '%s\n' "$out" | grep -q 'GPU 1 (Simulated GPU)' && ok || bad "self-test: exit $rc: $out"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
