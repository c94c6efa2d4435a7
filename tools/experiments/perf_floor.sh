#!/usr/bin/env bash
# docs/performance.md's "Floor, prediction, measurement" tables (#27), made on the CPU from the
# checked-in 4 x H200 runs; nothing here touches a GPU. Run from the repository root:
#   A=build-perf/arbench bash tools/experiments/perf_floor.sh > /tmp/floor.md
# Per algorithm and power-of-4 size (1 KiB..4 GiB, and 8 GiB):
#   floor: `arbench model --alpha 0.56us --bw 397GB/s`: per round 0.56 us (half the shortest
#          GPU-to-GPU flag round trip, 1.12 us, runs/reference/h200x4-degraded-flow/selftest.log)
#          plus the most loaded GPU port's bytes at 397 GB/s (../shared/DEVICE.md: one pair's
#          cudaMemcpyPeerAsync, the fastest rate any checked-in probe moved one way per GPU).
#          nccl has no schedule: its floor is ring's (NCCL's ring, 2(n-1) steps).
#   model: `arbench model --calibrate RUN` (alpha and bw fitted per transport and algorithm to
#          that run's rows), priced on the transport of the measured best.
#   measured: the best median over transports in RUN's results.csv (status ok).
#   measured / nccl: against nccl's median in the same folder; gap: measured - floor;
#   per-round part: rounds x (alpha - 0.56), the part of the gap the fitted per-round cost
#          explains; port rate: the busiest port's bytes / measured time; larger part: per
#          round when the per-round part is at least half the gap, else per byte.
# RUN is runs/reference/h200x4-perf for nccl, ring, rhd, direct and h200x4-sweep-1k-8g for
# swing-bw, stragglar, optcc (the only clean 4-GPU rows of those three). optcc's rows ran k
# segments chosen per size (their pipeline column): its floor is priced at that k, and its fit
# (made at the model's default k) is not used.
set -euo pipefail
A=${A:-build/arbench}
REF=${REF:-runs/reference}
SIZES=1K,4K,16K,64K,256K,1M,4M,16M,64M,256M,1G,4G,8G
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

echo "# $A model --algo ring,rhd,swing-bw,direct,stragglar --ranks 4 --bytes $SIZES --alpha 0.56us --bw 397GB/s --csv floor.csv"
"$A" model --algo ring,rhd,swing-bw,direct,stragglar --ranks 4 --bytes "$SIZES" \
  --alpha 0.56us --bw 397GB/s --csv "$T/floor.csv" > /dev/null
for run in h200x4-perf h200x4-sweep-1k-8g; do
  echo "# $A model --calibrate $REF/$run --csv $run.model.csv"
  "$A" model --calibrate "$REF/$run" --csv "$T/$run.model.csv" > "$T/$run.model.txt"
  grep '^calibration:' "$T/$run.model.txt" | sed 's/^/#   /'
  sed -n 's/^calibration: transport=\([^ ]*\) algorithm=\([^ ]*\) .*alpha_us=\([^ ]*\) bw_GBps=\([^ ]*\) .*/fit:'"$run"',\2,\1,\3,\4/p' \
    "$T/$run.model.txt" >> "$T/extra.csv"
done
rounds() { # algorithm bytes [segments]: the schedule's rounds, preconditions included
  "$A" schedule --algo "$1" --ranks 4 --bytes "$2" ${3:+--segments "$3"} |
    awk '/^precondition_rounds:/ {p = $2} /^rounds:/ {r = $2} END {print p + r}'
}
for a in ring rhd swing-bw direct stragglar; do # the same at every size
  r=$(rounds "$a" 1K)
  echo "# rounds $a: $r"
  for s in ${SIZES//,/ }; do echo "rounds,$a,-,$s,$r"; done >> "$T/extra.csv"
done
# optcc's clean rows in the sweep ran k segments chosen per size (their pipeline column); its
# floor is priced at that k (the model's own default k is another schedule)
for s in ${SIZES//,/ }; do
  b=$(awk -v s="$s" 'BEGIN {n = s + 0; u = substr(s, length(s));
    printf "%.0f", n * (u == "K" ? 1024 : u == "M" ? 1048576 : u == "G" ? 1073741824 : 1)}')
  k=$(awk -F, -v b="$b" 'NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i; next}
    $c["algorithm"] == "optcc" && $c["bytes"] == b {print $c["pipeline"]; exit}' \
    "$REF/h200x4-sweep-1k-8g/results.csv")
  [ -n "$k" ] || continue
  echo "# $A model --algo optcc --ranks 4 --bytes $s --segments $k --alpha 0.56us --bw 397GB/s"
  t=$("$A" model --algo optcc --ranks 4 --bytes "$s" --segments "$k" --alpha 0.56us --bw 397GB/s |
    awk '/^model_time_us:/ {print $2}')
  echo "floor,optcc,model,$b,$t" >> "$T/extra.csv"
  echo "rounds,optcc,-,$s,$(rounds optcc "$s" "$k") (k = $k)" >> "$T/extra.csv"
done

# field positions by name; prints "kind,algorithm,transport,bytes,time"
rows() { # kind file column
  awk -F, -v kind="$1" -v col="$3" 'NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i; next}
    $c["status"] == "ok" && $c["straggler_rank"] == -1 && $c["degraded_rank"] == -1 {
      print kind "," $c["algorithm"] "," $c["transport"] "," $c["bytes"] "," $c[col]}' "$2"
}
{
  rows floor "$T/floor.csv" model_time_us
  cat "$T/extra.csv"
  for run in h200x4-perf h200x4-sweep-1k-8g; do
    rows "model:$run" "$T/$run.model.csv" model_time_us
    rows "gpu:$run" "$REF/$run/results.csv" time_us_median
  done
  # nccl-tests, out-of-place time, -t 4 -g 1 (the first table of the file)
  awk '/^# all_reduce_perf .*-t 4/ {on = 1; next} /^# all_reduce_perf/ {on = 0}
       on && $1 ~ /^[0-9]+$/ && NF >= 13 {print "nccltests,nccl,nccl," $1 "," $6}' \
    ../shared/reference/nccl-tests-h200x4.txt 2>/dev/null || true
} > "$T/all.csv"

awk -F, -v sizes="$SIZES" '
function bytes(s,  n, u) { n = s + 0; u = substr(s, length(s)); # a string: keys stay exact
  return sprintf("%.0f", n * (u == "K" ? 1024 : u == "M" ? 1048576 : u == "G" ? 1073741824 : 1)) }
function f(x) { return x == "" ? "-" : x < 100 ? sprintf("%.1f", x) : sprintf("%.0f", x) }
{ key = $2 SUBSEP $4
  if ($1 == "rounds") { rounds[$2 SUBSEP bytes($4)] = $5; next }
  if ($1 ~ /^fit:/) { k = substr($1, 5) SUBSEP $2 SUBSEP $3; alpha[k] = $4; bw[k] = $5; next }
  if ($1 == "floor") floor[key] = $5
  else if ($1 == "nccltests") nt[$4] = $5
  else if ($1 ~ /^model:/) model[substr($1, 7) SUBSEP $2 SUBSEP $3 SUBSEP $4] = $5
  else { run = substr($1, 5); k = run SUBSEP key
         if (!(k in best) || $5 + 0 < best[k] + 0) { best[k] = $5; tp[k] = $3 } } }
END {
  ns = split(sizes, S, ",")
  print ""
  print "### nccl (floor: ring'"'"'s; measured: h200x4-perf; nccl-tests: ../shared/reference, -t 4 -g 1, out-of-place)"
  print ""
  print "| size | floor (us) | nccl-tests (us) | arbench nccl (us) | measured / floor | gap (us) | gap / 6 steps (us) | port rate (GB/s) |"
  print "|---:|---:|---:|---:|---:|---:|---:|---:|"
  for (i = 1; i <= ns; i++) { b = bytes(S[i]); fl = floor["ring" SUBSEP b]
    m = best["h200x4-perf" SUBSEP "nccl" SUBSEP b]
    printf "| %s | %s | %s | %s | %.2fx | %s | %s | %.1f |\n", S[i], f(fl), f(nt[b]), f(m), m / fl,
      f(m - fl), f((m - fl) / 6), (fl - 6 * 0.56) * 397 / m }
  na = split("ring:h200x4-perf rhd:h200x4-perf swing-bw:h200x4-sweep-1k-8g direct:h200x4-perf stragglar:h200x4-sweep-1k-8g optcc:h200x4-sweep-1k-8g", AL, " ")
  for (j = 1; j <= na; j++) { split(AL[j], p, ":"); a = p[1]; run = p[2]
    print ""
    if (a == "optcc") {
      print "### optcc (rounds per size below; measured: " run "; no model: see the script)"
      print ""
      print "| size | rounds | floor (us) | measured (us) | transport | measured / floor | measured / nccl | gap (us) | port rate (GB/s) |"
      print "|---:|---:|---:|---:|---|---:|---:|---:|---:|"
      for (i = 1; i <= ns; i++) { b = bytes(S[i]); fl = floor[a SUBSEP b]; k = run SUBSEP a SUBSEP b
        m = best[k]; R = rounds[a SUBSEP b] + 0
        printf "| %s | %s | %s | %s | %s | %.2fx | %.2fx | %s | %.1f |\n", S[i], rounds[a SUBSEP b],
          f(fl), f(m), tp[k], m / fl, m / best[run SUBSEP "nccl" SUBSEP b], f(m - fl),
          (fl - R * 0.56) * 397 / m }
      continue }
    print "### " a " (" rounds[a SUBSEP bytes(S[1])] " rounds; model and measured: " run ")"
    print ""
    print "| size | floor (us) | model (us) | measured (us) | transport | model / measured | measured / floor | measured / nccl | gap (us) | per-round part (us) | port rate (GB/s) | larger part of the gap |"
    print "|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---|"
    for (i = 1; i <= ns; i++) { b = bytes(S[i]); fl = floor[a SUBSEP b]; k = run SUBSEP a SUBSEP b
      m = best[k]; t = tp[k]; R = rounds[a SUBSEP b] + 0; mo = model[run SUBSEP a SUBSEP t SUBSEP b]
      fk = run SUBSEP a SUBSEP t; rate = (fl - R * 0.56) * 397 / m; gap = m - fl
      rp = R * (alpha[fk] - 0.56)
      printf "| %s | %s | %s | %s | %s | %.2f | %.2fx | %.2fx | %s | %s | %.1f | %s |\n", S[i], f(fl),
        f(mo), f(m), t, mo / m, m / fl, m / best[run SUBSEP "nccl" SUBSEP b], f(gap), f(rp), rate,
        (rp >= gap / 2 ? "per round" : "per byte") } }
}' "$T/all.csv"

# The uncalibrated model (its defaults, alpha 3 us and bw 450 GB/s) for comparison
echo
echo "# $A model --algo ring,rhd,swing-bw,direct --ranks 4 --bytes 1K,1M,16M,256M,1G,8G"
"$A" model --algo ring,rhd,swing-bw,direct --ranks 4 --bytes 1K,1M,16M,256M,1G,8G | sed 's/^/#   /'
