#!/usr/bin/env bash
# Every row's samples and stats.ci_target on the simulated GPUs (tests/sim/fake_gpu.c), read
# back by tests/check_samples.py, which recomputes each row's n_samples, median, interval and
# level from samples.csv and replays the repeat decision at every step: steady times meet a
# target at -n; noisy ones (AR_SIM_JITTER) repeat in steps of -n until they meet it, or stop at
# stats.max_iters; every rank runs the same count (AR_SIM_COUNT: each rank's AllReduces);
# with a straggler (delays.csv has every sample's delay), in a critical-delay search, with
# co-located ranks; every iteration of a repeated row is still checked (a stale read caught);
# the table and meta.txt say it; the nightly has nccl in every registration mode at every
# clean size, each row naming its mode. The budget: test_budget_sim.sh; host and graph timing:
# test_timing_sim.sh; MPI: test_mpi_sim.sh; interrupted runs: test_runs_sim.sh.
. "$(dirname "$0")/lib.sh"
B=${B:-build}
. tests/sim/build.sh
sim_build stats

# samples DIR ARGS...: check_samples.py on the run folder, quiet when it passes
samples() {
  local o
  o=$(python3 tests/check_samples.py "$@" 2>&1) && ok || bad "check_samples $*: $o"
}
# column DIR NAME: that column of every row, one line each
column() { awk -F, -v c="$(col "$1/results.csv" "$2")" 'NR > 1 { print $c }' "$1/results.csv"; }
# counts FILE: "K" when every rank of AR_SIM_COUNT's file made K AllReduces, else the lines
counts() { awk '{ k[$3]++ } END { for (v in k) n++; if (n == 1) for (v in k) print v; else print "differ" }' "$1"; }
# want_count DIR: the AllReduces every rank must have made: warm-up + samples of each row run
want_count() {
  awk -F, -v w="$2" -v n="$(col "$1/results.csv" n_samples)" 'NR > 1 && $n != "" { s += w + $n } END { print s + 0 }' "$1/results.csv"
}
run() { # run NAME ENV... -- ARGS...: the simulator into $tmp/NAME, each rank's count in NAME.count
  local name=$1 env=(); shift
  while [ "$1" != -- ]; do env+=("$1"); shift; done
  shift
  out=$(env AR_SIM_COUNT="$tmp/$name.count" "${env[@]}" "$S" run --out "$tmp/$name" "$@" 2>"$tmp/$name.err"); rc=$?
}
ALL=(--gpus 0,1,2,3 --algo ring,rhd,nccl,stragglar --transport ce,sm,ll --sizes 1K,64K,1M -w 1)

# 1. no target: exactly -n samples each, repeat_stop fixed, the samples as the row has them
run fixed -- "${ALL[@]}" -n 7
[ "$rc" -eq 0 ] && [ "$(column "$tmp/fixed" repeat_stop | sort -u)" = fixed ] && ok || bad "fixed: exit $rc, $(column "$tmp/fixed" repeat_stop | sort -u | tr '\n' ' ')"
samples "$tmp/fixed" -n 7 --expect-stop fixed
[ "$(wc -l <"$tmp/fixed/samples.csv")" -eq $((1 + 7 * $(column "$tmp/fixed" n_samples | grep -c .))) ] && ok ||
  bad "fixed: $(wc -l <"$tmp/fixed/samples.csv") lines in samples.csv"

# 2. steady times (the fake's model): the target is met at once, -n samples
run steady -- "${ALL[@]}" -n 7 --set stats.ci_target=0.01
[ "$rc" -eq 0 ] && [ "$(column "$tmp/steady" repeat_stop | grep . | sort -u)" = target ] &&
  [ "$(column "$tmp/steady" n_samples | grep . | sort -u)" = 7 ] && ok ||
  bad "steady: exit $rc, $(column "$tmp/steady" repeat_stop | sort | uniq -c | tr '\n' ' ')"
samples "$tmp/steady" -n 7 --expect-stop target
printf '%s\n' "$out" | grep -q '^# stats.ci_target 0.01: each row takes 7 more timed iterations at a time until the larger half of its median.s 95% interval is within 1% of the median, or 1000 are taken' &&
  grep -qx 'setting stats.ci_target = 0.01 (--set)' "$tmp/steady/meta.txt" &&
  grep -qx 'setting stats.max_iters = 1000' "$tmp/steady/meta.txt" && ok ||
  bad "steady: the table's line or meta.txt: $(printf '%s\n' "$out" | grep ci_target) $(grep stats "$tmp/steady/meta.txt")"

# 3. noisy times: more samples in steps of -n until the interval is within 2%; every rank the
#    same count (each rank's AllReduces: warm-up + samples of every row)
run noisy AR_SIM_JITTER=0.3 -- "${ALL[@]}" -n 10 --set stats.ci_target=0.02 --set stats.max_iters=400
[ "$rc" -eq 0 ] && ok || bad "noisy: exit $rc: $(cat "$tmp/noisy.err")"
samples "$tmp/noisy" -n 10 --expect-stop target
more=$(column "$tmp/noisy" n_samples | awk '$1 > 10' | wc -l)
[ "$more" -gt 0 ] && ok || bad "noisy: no row took more than -n samples"
[ "$(counts "$tmp/noisy.count")" = "$(want_count "$tmp/noisy" 1)" ] && [ "$(wc -l <"$tmp/noisy.count")" -eq 4 ] && ok ||
  bad "noisy: each rank's AllReduces $(tr '\n' ' ' <"$tmp/noisy.count"), want $(want_count "$tmp/noisy" 1) each"

# 4. a target too tight for the noise: stops at stats.max_iters, and says so
run tight AR_SIM_JITTER=0.5 -- "${ALL[@]}" -n 10 --set stats.ci_target=0.001 --set stats.max_iters=35
[ "$rc" -eq 0 ] && [ "$(column "$tmp/tight" repeat_stop | grep . | sort -u)" = max ] &&
  [ "$(column "$tmp/tight" n_samples | grep . | sort -u)" = 35 ] && ok ||
  bad "tight: exit $rc, $(column "$tmp/tight" repeat_stop | sort | uniq -c | tr '\n' ' ')"
samples "$tmp/tight" -n 10 --expect-stop max
[ "$(counts "$tmp/tight.count")" = "$(want_count "$tmp/tight" 1)" ] && ok || bad "tight: counts $(tr '\n' ' ' <"$tmp/tight.count")"

# 5. a straggler: every sample's delay in delays.csv, the count as the row's
run late AR_SIM_JITTER=0.3 -- --gpus 0,1,2,3 --algo ring,stragglar --transport ce --sizes 1K,1M -n 5 -w 1 \
  --straggler 1:100us --set stats.ci_target=0.002 --set stats.max_iters=60
[ "$rc" -eq 0 ] && ok || bad "straggler: exit $rc: $(cat "$tmp/late.err")"
samples "$tmp/late" -n 5
for a in ring stragglar; do
  for b in 1024 1048576; do
    n=$(field "$tmp/late/results.csv" "$a" ce "$b" n_samples)
    d=$(awk -F, -v a="$a" -v b="$b" '$2 == a && $4 == b' "$tmp/late/delays.csv" | wc -l)
    [ -n "$n" ] && [ "$d" = "$n" ] && ok || bad "straggler $a $b: $d delays.csv lines, n_samples $n"
  done
done

# 6. a critical-delay search: every probe's row repeats as any row, the search ends
run crit AR_SIM_JITTER=0.2 -- --gpus 0,1,2,3 --find-critical 1M --algo ring,stragglar --transport ce \
  --straggler 1:0 -n 5 -w 1 --set stats.ci_target=0.01 --set stats.max_iters=40
[ "$rc" -eq 0 ] && [ "$(($(wc -l <"$tmp/crit/critical.csv") - 1))" -eq 1 ] && ok || bad "critical: exit $rc: $(cat "$tmp/crit.err")"
samples "$tmp/crit" -n 5
[ "$(counts "$tmp/crit.count")" = "$(want_count "$tmp/crit" 1)" ] && ok || bad "critical: counts $(tr '\n' ' ' <"$tmp/crit.count")"

# 7. co-located ranks (four on one GPU): the same rules
run coloc AR_SIM_GPUS=1 AR_SIM_JITTER=0.3 -- --ranks 4 --algo ring,rhd --transport ce,sm,ll --sizes 1K,1M -n 8 -w 1 \
  --set stats.ci_target=0.02 --set stats.max_iters=200
[ "$rc" -eq 0 ] && grep -q '4 ranks/GPU' "$tmp/coloc/results.csv" && ok || bad "co-located: exit $rc: $(cat "$tmp/coloc.err")"
samples "$tmp/coloc" -n 8 --expect-stop target
[ "$(counts "$tmp/coloc.count")" = "$(want_count "$tmp/coloc" 1)" ] && ok || bad "co-located: counts $(tr '\n' ' ' <"$tmp/coloc.count")"

# 8. every iteration of a repeated row is checked: a stale read on odd iterations fails it, and
#    the error counts every iteration it ran (warm-up + samples)
run stale AR_SIM_STALE=ring AR_SIM_JITTER=0.5 -- --gpus 0,1,2,3 --algo ring,rhd --transport ce --sizes 4K -n 4 -w 1 \
  --set stats.ci_target=0.001 --set stats.max_iters=12
n=$(field "$tmp/stale/results.csv" ring ce 4096 n_samples)
[ "$rc" -eq 1 ] && [ "$(field "$tmp/stale/results.csv" ring ce 4096 status)" = error ] && [ "$n" = 12 ] &&
  grep -q "(6 of 13 iterations wrong, warm-up included)" "$tmp/stale.err" &&
  [ "$(field "$tmp/stale/results.csv" rhd ce 4096 status)" = ok ] && ok ||
  bad "stale under repeats: exit $rc, n_samples $n: $(cat "$tmp/stale.err")"

# 9. rows that did not run have no samples (n/a: nccl on degraded links; oom)
run na AR_SIM_MEM=300000 -- --gpus 0,1,2,3 --algo ring,nccl --transport ce --sizes 1K,1M -n 3 -w 1 \
  --degrade 1:2 --set stats.ci_target=0.01
[ "$(column "$tmp/na" status | sort -u | tr '\n' ' ')" = "n/a ok oom " ] && ok ||
  bad "n/a and oom rows: $(column "$tmp/na" status | tr '\n' ' ') $(cat "$tmp/na.err")"
samples "$tmp/na" -n 3

# 10. the nightly (configs/nightly.conf, its nccl rows only, two sizes): nccl in every
#     registration mode at every clean size, each row's settings naming its mode (none: the
#     default, unnamed) and the target; on an NCCL without symmetric windows those rows are n/a
#     with the reason; meta.txt says NVLS is off
modes() { awk -F, -v b="$(col "$1/results.csv" bytes)" -v s="$(col "$1/results.csv" status)" \
  -v g="$(col "$1/results.csv" settings)" 'NR > 1 { m = "none"; if (match($g, /nccl.registration=[a-z]*/)) m = substr($g, RSTART + 18, RLENGTH - 18)
    t = index($g, "stats.ci_target=0.01") ? "target" : "no-target"; print $b, m, $s, t }' "$1/results.csv" | sort | tr '\n' ' '; }
NIGHT=(--config configs/nightly.conf --scenario clean,nccl-registered,nccl-symmetric --gpus 0,1,2,3 --sizes 1K,1M --algo nccl -T 60)
run night -- "${NIGHT[@]}"
want="1024 none ok target 1024 registered ok target 1024 symmetric ok target 1048576 none ok target 1048576 registered ok target 1048576 symmetric ok target "
[ "$rc" -eq 0 ] && [ "$(modes "$tmp/night")" = "$want" ] &&
  grep -qx 'NCCL_NVLS_ENABLE: 0' "$tmp/night/meta.txt" && ok || bad "nightly's nccl modes: exit $rc, $(modes "$tmp/night")"
samples "$tmp/night" -n 20
run night-old AR_SIM_NCCL_VERSION=22600 -- "${NIGHT[@]}"
[ "$rc" -eq 0 ] && [ "$(modes "$tmp/night-old" | grep -o 'symmetric n/a' | wc -l)" -eq 2 ] &&
  printf '%s\n' "$out" | grep -q '^n/a: nccl (nccl): nccl.registration=symmetric: NCCL 2.26.0 has no symmetric windows' &&
  ok || bad "nightly's symmetric rows on NCCL 2.26: exit $rc, $(modes "$tmp/night-old")"

finish
