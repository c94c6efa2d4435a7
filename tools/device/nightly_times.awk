# The wall time of a stamped nightly (tools/device/nightly_fit.sh's stamped.txt: every stdout
# line after the time it came): per scenario and size, the seconds from the row before (or the
# scenario's start) to each row's table line, summed; then the slowest rows.
#   awk -f tools/device/nightly_times.awk stamped.txt
$1 == "start" { t0 = $2; prev = $2; next }
$1 == "end" { end = $2; next }
$2 == "#" && $3 == "scenario" { scen = $4; prev = $1; order[++ns] = scen; next }
$2 ~ /^[0-9]+$/ && $4 ~ /^(float32|bf16|fp16)$/ && NF >= 11 {
  dt = $1 - prev; prev = $1
  key = scen SUBSEP $2
  if (!(key in secs)) sizes[scen] = sizes[scen] " " $2
  secs[key] += dt; rows[key]++; total[scen] += dt; nrows[scen]++
  slow[$5 "/" $6 " " $2 " " scen] = dt
}
END {
  for (i = 1; i <= ns; i++) {
    s = order[i]
    printf "%-14s %5d rows %8.1f s\n", s, nrows[s], total[s]
    n = split(sizes[s], sz, " ")
    for (j = 1; j <= n; j++)
      printf "  %12s B %4d rows %8.1f s\n", sz[j], rows[s SUBSEP sz[j]], secs[s SUBSEP sz[j]]
  }
  if (end) printf "whole run %.1f s\n", end - t0
  printf "slowest rows:\n"
  for (k = 0; k < 5; k++) {
    best = ""; bv = -1
    for (r in slow) if (slow[r] > bv) { bv = slow[r]; best = r }
    if (best == "") break
    printf "  %8.1f s %s\n", bv, best
    delete slow[best]
  }
}
