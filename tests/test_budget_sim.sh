#!/usr/bin/env bash
# --row-budget end to end on the simulated machine (tests/sim/fake_gpu.c: every AllReduce takes
# the model's time, so the count each row must get is known): a row's timed iterations are
# min(-n, max(6, floor(budget / its last warm-up iteration's time))), the same on every rank;
# results.csv's iters column, delays.csv and the table say the count used; every iteration of a
# cut row is still checked (a transport that reads stale data on odd iterations is caught); the
# budget with a straggler, in a critical-delay search and with --phases; 0 turns it off; bad
# input (-w 1, timing.mode=host); meta.txt and the plan name it. With stats.ci_target a row
# that does not meet it grows past -n up to what the budget fits (repeat_stop budget) or
# stats.max_iters (max); the plan estimates both the first samples and every row at its cap;
# every run's samples read back by tests/check_samples.py.
. "$(dirname "$0")/lib.sh"
B=${B:-build}

. tests/sim/build.sh
sim_build budget

# model ALGO BYTES [RANK DELAY]: arbench model's time_us on 4 ranks (the fake's time)
model() { "$A" model --algo "$1" --ranks 4 --sizes "$2" ${3:+--straggler "$3:$4"} | awk '/^model_time_us:/ { print $2 }'; }
# want N BUDGET_US TIME_US: the count a row should get
want() { awk -v n="$1" -v b="$2" -v t="$3" 'BEGIN { k = int(b / t); if (k > n) k = n; if (k < 6) k = 6; if (n <= 6) k = n; print k }'; }

# 1. a sweep: 1 KiB keeps -n, 256 MiB and 1 GiB get what fits 10 ms (at least 6)
out=$("$S" run --gpus 0,1,2,3 --algo ring,rhd --transport ce,sm --sizes 1K,256M,1G -n 20 -w 2 \
      --row-budget 10ms --out "$tmp/sweep" 2>"$tmp/err"); rc=$?
r=$tmp/sweep/results.csv
[ "$rc" -eq 0 ] && [ "$(($(wc -l <"$r") - 1))" -eq 12 ] && ok || bad "sweep: exit $rc, $(cat "$tmp/err")"
for a in ring rhd; do
  for b in 1024 268435456 1073741824; do
    k=$(want 20 10000 "$(model "$a" "$b")")
    for t in ce sm; do
      [ "$(field "$r" "$a" "$t" "$b" iters)" = "$k" ] && [ "$(field "$r" "$a" "$t" "$b" status)" = ok ] &&
        [ "$(field "$r" "$a" "$t" "$b" wrong)" = 0 ] && ok ||
        bad "sweep: $a/$t $b B: iters $(field "$r" "$a" "$t" "$b" iters) status $(field "$r" "$a" "$t" "$b" status), want $k ok"
    done
  done
done
[ "$(field "$r" ring ce 1024 iters)" = 20 ] && [ "$(field "$r" ring ce 1073741824 iters)" = 6 ] &&
  [ "$(field "$r" ring ce 268435456 iters)" -gt 6 ] && [ "$(field "$r" ring ce 268435456 iters)" -lt 20 ] &&
  ok || bad "sweep: the three regimes (20, between, 6): $(cut -d, -f10,11,14,19 "$r" | tr '\n' ' ')"
printf '%s\n' "$out" | grep -q '^# row budget 10 ms: ' && ok || bad "sweep: no row budget line: $out"
grep -q '^row_budget: 10 ms ' "$tmp/sweep/meta.txt" && ok || bad "sweep: meta.txt lacks row_budget: $(grep -i budget "$tmp/sweep/meta.txt")"

# 2. 0 turns it off: every row runs -n
"$S" run --gpus 0,1,2,3 --algo ring --transport ce --sizes 1K,1G -n 7 -w 2 --row-budget 0 \
  --out "$tmp/off" >/dev/null 2>&1
[ "$(awk -F, -v c="$(col "$tmp/off/results.csv" iters)" 'NR > 1 { print $c }' "$tmp/off/results.csv" | sort -u)" = 7 ] &&
  ! grep -q row_budget "$tmp/off/meta.txt" && ok || bad "budget 0: $(cut -d, -f14,19 "$tmp/off/results.csv" | tr '\n' ' ')"

# 3. every iteration of a cut row is checked: stale data on odd iterations is caught, in the
#    warm-up or the timed ones, and fails the run (64 KiB: the fake's buffers under 1 MiB hold
#    real data; AR_SIM_SCALE makes its rows slow enough for the budget to cut them to 6)
AR_SIM_STALE=ring AR_SIM_SCALE=2000 "$S" run --gpus 0,1,2,3 --algo ring,rhd --transport ce --sizes 64K \
  -n 20 -w 2 --row-budget 100ms --out "$tmp/stale" >/dev/null 2>"$tmp/err"; rc=$?
r=$tmp/stale/results.csv
[ "$rc" -eq 1 ] && [ "$(field "$r" ring ce 65536 status)" = error ] && [ "$(field "$r" ring ce 65536 iters)" = 6 ] &&
  [ "$(field "$r" rhd ce 65536 status)/$(field "$r" rhd ce 65536 iters)" = ok/6 ] && [ -e "$tmp/stale/FAILED" ] &&
  grep -q "(4 of 8 iterations wrong, warm-up included)" "$tmp/err" && ok ||
  bad "stale under a budget: exit $rc, $(cut -d, -f10,11,19,30,31 "$r" | tr '\n' ' '): $(cat "$tmp/err")"

# 4. a straggler: the delay is in the pace (8 ms + the AllReduce: 6 iterations fit no more
#    than 20 ms), delays.csv has the timed iterations used
"$S" run --gpus 0,1,2,3 --algo ring,stragglar --transport ce --sizes 1M,1G -n 10 -w 2 \
  --straggler 1:8ms --row-budget 20ms --out "$tmp/st" >/dev/null 2>"$tmp/err"; rc=$?
r=$tmp/st/results.csv
ok_st=1
for a in ring stragglar; do
  for b in 1048576 1073741824; do
    k=$(want 10 20000 "$(model "$a" "$b" 1 8ms)")
    [ "$(field "$r" "$a" ce "$b" iters)" = "$k" ] || { ok_st=0; bad "straggler: $a $b: iters $(field "$r" "$a" ce "$b" iters), want $k"; }
    n=$(awk -F, -v a="$a" -v b="$b" '$2 == a && $4 == b' "$tmp/st/delays.csv" | wc -l)
    [ "$n" = "$k" ] || { ok_st=0; bad "straggler: $a $b: $n delays.csv lines, want $k"; }
  done
done
[ "$rc" -eq 0 ] && [ "$ok_st" = 1 ] && ok || bad "straggler: exit $rc $(cat "$tmp/err")"

# 5. a critical-delay search under a budget: each probe's rows get their own count (the delay
#    makes the pace), and the search ends
"$S" run --gpus 0,1,2,3 --find-critical 1G --algo ring,stragglar --transport ce --straggler 1:0 \
  -n 10 -w 2 --row-budget 50ms --out "$tmp/crit" >/dev/null 2>"$tmp/err"; rc=$?
r=$tmp/crit/results.csv
ks=$(awk -F, -v c="$(col "$r" iters)" 'NR > 1 { print $c }' "$r" | sort -un | tr '\n' ' ')
[ "$rc" -eq 0 ] && [ "$(($(wc -l <"$tmp/crit/critical.csv") - 1))" -eq 1 ] &&
  [ "$(printf '%s' "$ks" | wc -w)" -ge 2 ] && ok || bad "critical: exit $rc, counts '$ks': $(cat "$tmp/err")"

# 6. --phases: the phases of the last timed iteration of the count used
AR_SIM_ROUNDS=1 "$S" run --gpus 0,1,2,3 --algo ring --transport ce --sizes 1G -n 20 -w 2 \
  --row-budget 10ms --phases --out "$tmp/ph" >/dev/null 2>&1
it=$(awk -F, -v c="$(col "$tmp/ph/phases.csv" iteration)" 'NR > 1 { print $c }' "$tmp/ph/phases.csv" | sort -u)
[ "$it" = 5 ] && ok || bad "phases: iteration '$it', want 5 (the 6th of 6)"

# 7. the plan: the budget line, and fewer seconds than without it
with=$("$S" run --gpus 0,1,2,3 --algo ring --transport ce -b 1K -e 8G -n 20 -w 2 --row-budget 100ms --dry-run)
without=$("$S" run --gpus 0,1,2,3 --algo ring --transport ce -b 1K -e 8G -n 20 -w 2 --dry-run)
printf '%s\n' "$with" | grep -q '^  row budget: 100 ms: timed iterations cut to what fits it' && ok ||
  bad "plan: no row budget line: $with"
secs() { printf '%s\n' "$1" | awk '/^  rows:/ { s = $NF; m = 0; if (s ~ /m/) { split(s, p, "m"); m = p[1]; s = p[2] } sub(/s$/, "", s); print m * 60 + s }'; }
[ "$(secs "$with")" -lt "$(secs "$without")" ] && ok || bad "plan: $(secs "$with") s with the budget, $(secs "$without") s without"

# 8. stats.ci_target under the budget: noisy rows (AR_SIM_JITTER 0.5) that never meet 0.01%
#    grow in steps of -n past -n, up to max(6, floor(budget / the last warm-up's time)): that
#    time lies between the model's and 1.5x it; below -n the budget stops them at once
samples() {
  local o
  o=$(python3 tests/check_samples.py "$@" 2>&1) && ok || bad "check_samples $*: $o"
}
AR_SIM_JITTER=0.5 "$S" run --gpus 0,1,2,3 --algo ring,rhd --transport ce --sizes 1K,64M,1G -n 4 -w 2 \
  --row-budget 20ms --set stats.ci_target=0.0001 --set stats.max_iters=2000 --out "$tmp/tb" >/dev/null 2>"$tmp/err"; rc=$?
r=$tmp/tb/results.csv
[ "$rc" -eq 0 ] && [ "$(awk -F, -v c="$(col "$r" repeat_stop)" 'NR > 1 { print $c }' "$r" | sort -u)" = budget ] && ok ||
  bad "target under a budget: exit $rc, $(cut -d, -f10,14,19,45 "$r" | tr '\n' ' ') $(cat "$tmp/err")"
samples "$tmp/tb" -n 4 --expect-stop budget
for a in ring rhd; do
  for b in 1024 67108864 1073741824; do
    t=$(model "$a" "$b") n=$(field "$r" "$a" ce "$b" n_samples)
    lo=$(want 100000000 20000 "$(awk -v t="$t" 'BEGIN { print 1.5 * t }')") hi=$(want 100000000 20000 "$t")
    [ -n "$n" ] && [ "$n" -ge "$lo" ] && [ "$n" -le "$hi" ] && ok || bad "target under a budget: $a $b B: $n samples, want $lo..$hi"
  done
done
[ "$(field "$r" ring ce 1024 n_samples)" -gt 4 ] && [ "$(field "$r" ring ce 1073741824 n_samples)" = 6 ] && ok ||
  bad "target under a budget: 1 KiB should grow past -n, 1 GiB stop at 6: $(cut -d, -f10,14,40- "$r" | tr '\n' ' ')"
grep -q '^row_budget: 20 ms (.*, then stats.ci_target.s more, up to max(6, that floor) and stats.max_iters in all' "$tmp/tb/meta.txt" &&
  ok || bad "meta.txt's budget line: $(grep row_budget "$tmp/tb/meta.txt")"
# stats.max_iters below what the budget fits: max
AR_SIM_JITTER=0.5 "$S" run --gpus 0,1,2,3 --algo ring --transport ce --sizes 1K -n 4 -w 2 --row-budget 20ms \
  --set stats.ci_target=0.0001 --set stats.max_iters=10 --out "$tmp/tm" >/dev/null 2>&1
[ "$(field "$tmp/tm/results.csv" ring ce 1024 n_samples)/$(field "$tmp/tm/results.csv" ring ce 1024 repeat_stop)" = 10/max ] &&
  ok || bad "max under a budget: $(cut -d, -f19,40- "$tmp/tm/results.csv" | tr '\n' ' ')"
samples "$tmp/tm" -n 4 --expect-stop max
# the budget-cut rows of the sweep above (no target): fixed, as many samples as iterations
samples "$tmp/sweep" -n 20 --expect-stop fixed
# the plan: the first samples' estimate and every row at its cap, here more
plan=$("$S" run --gpus 0,1,2,3 --algo ring --transport ce -b 1K -e 1G -n 20 -w 2 --row-budget 100ms \
       --set stats.ci_target=0.01 --set stats.max_iters=200 --dry-run)
line=$(printf '%s\n' "$plan" | grep '^  repeats: ')
capped=$(printf '%s\n' "$line" | sed -n 's/.*every row at its cap: \([0-9ms]*\).*/\1/p')
printf '%s\n' "$line" | grep -q '^  repeats: stats.ci_target 0.01: 20 more timed iterations at a time until the median.s 95% interval is within 1% of it, up to stats.max_iters 200 or what the row budget fits; estimated as if every row met it with its first 20; every row at its cap: ' &&
  printf '%s\n' "$plan" | grep -q "^plan: .*(at most $capped with every row repeated to its cap)" &&
  [ "$(secs "$(printf '%s\n' "$plan" | grep '^  rows:')")" -lt "$(secs "  rows: $capped")" ] && ok ||
  bad "plan with a target: $plan"

# 9. bad input: one line, exit 2
A=$S
bad_input "^arbench: --row-budget: bad value '10ms': needs -w 2 or more" run --algo ring --row-budget 10ms -w 1
bad_input "^arbench: --row-budget: bad value 'x': not a duration" run --algo ring --row-budget x
bad_input "^arbench: --set: bad value 'timing.mode=host': --row-budget needs every iteration timed" \
  run --algo ring --row-budget 10ms --set timing.mode=host

finish
