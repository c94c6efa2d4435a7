#!/usr/bin/env bash
# What the pictures plot, read back from gnuplot itself and compared with results.csv: each run
# folder below is drawn by plots/plot.sh (AR_PLOT_KEEP=1 keeps the drivers), every driver is run
# again with `tables = 1` so that gnuplot writes the points of each plot command (`set table`),
# and tests/plot_points.py recomputes each picture from results.csv alone (not plots/*.awk):
# every point's size and value, no row lost, no series named after another. Fixtures: the
# synthetic nightly and scenarios runs, co-located (4 ranks/GPU), and tests/fixtures/points/:
# straggler rows at 1-64 KiB, model rows, an MPI run, a run whose every row is n/a.
. "$(dirname "$0")/lib.sh"
if ! command -v gnuplot >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
  echo "skipped: gnuplot or python3 is not installed (apt-get install -y gnuplot-nox python3)"
  echo "0 passed, 0 failed"; exit 0
fi
# points DIR: draws DIR, writes each picture's table and checks it; one check
points() {
  local d=$1 name out rc drv
  out=$(AR_PLOT_KEEP=1 bash plots/plot.sh "$d" 2>&1); rc=$?
  if [ "$rc" -ne 0 ]; then bad "$(basename "$d"): plot.sh exit $rc: $out"; return; fi
  # the drivers name the run through plot.sh's temporary link: here they read and write in DIR
  for drv in "$d"/plots/data/*.gp; do
    [ -e "$drv" ] || continue
    sed -i "s|^data = '.*/plots/data/|data = '$d/plots/data/|; s|^out = '.*/plots/|out = '$d/plots/|" "$drv"
    out=$(gnuplot -e 'tables = 1' "$drv" 2>&1 | grep -v 'unknown. terminal\|No output will be generated\|select a terminal')
    [ -n "$out" ] && { bad "$(basename "$d"): gnuplot on $(basename "$drv"): $out"; return; }
  done
  if out=$(python3 tests/plot_points.py "$d" 2>&1); then ok; else bad "$(basename "$d"): $out"; fi
  name=$(basename "$d"); printf '%s: %s\n' "$name" "$(printf '%s' "$out" | tail -n 1)" >>"$tmp/log"
}
for f in nightly scenarios colocated points/straggler points/model points/mpi points/na; do
  cp -r "tests/fixtures/$f" "$tmp/$(basename "$f")"
  points "$tmp/$(basename "$f")"
done
cat "$tmp/log" 2>/dev/null
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
