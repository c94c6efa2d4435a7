#!/usr/bin/env bash
# What the pictures plot, read back from gnuplot itself and compared with results.csv
# (tests/plot_tables.sh): each run folder below is drawn by plots/plot.sh, every driver is run
# again with `tables = 1` so that gnuplot writes the points of each plot command (`set table`),
# and tests/plot_points.py recomputes each picture from results.csv alone (not plots/*.awk):
# every point's size and value, no row lost, no series named after another; and no key (legend)
# over the data (tests/check_keys.py, on the SVGs). Fixtures: co-located
# (4 ranks/GPU) and tests/fixtures/points/ (test_plots.sh reads back the synthetic nightly,
# scenarios, wide and calibrated runs it draws):
# straggler rows at 1-64 KiB, model rows, an MPI run, two placements in one CSV, a run whose
# every row is n/a, the nightly's 24 series on ce up to 4 GiB (whose top right a key covered);
# tests/fixtures/phases (phases.csv: an 8-rank iteration with rounds, a straggler's delay),
# tests/fixtures/points/phases_parts (the simulator's --phases: 7 charts in two pictures, a
# 30 ms delay on a time axis in ms) and
# tests/fixtures/points/overlap (overlap.csv of the simulator's --profile overlap on 4 ranks, two
# scenarios, three sizes, varied per series, a rank that copied nothing, fused sm kernels), read
# from those CSVs; tests/fixtures/points/ci (samples.csv and the interval columns: ties, nccl's
# registration modes and host timing, a straggler, degraded scenarios, the critical search's
# probes and critical.csv with a "never", a profiled scenario: tests/plot_conclusions.py
# recomputes each conclusion; test_plots.sh draws it and reads it back), points/hosts (one
# rank per GPU on 2 hosts, rehearsed) and points/compute (the simulator's --compute: scenarios
# without a load, with a GEMM and with membw, 1-64 MiB, noisy AllReduces; tests/plot_compute.py
# reads back compute_*). co-located, points/na, points/mpi and points/mixed are drawn under
# `make test-long` only: points/hosts is a run across processes too, and
# test_plots.sh draws a run whose every row is n/a.
. "$(dirname "$0")/lib.sh"
# without gnuplot or python3 the suite says it skipped, except in CI (CI=true), where it fails
if ! command -v gnuplot >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
  if [ "${CI:-}" = true ]; then bad "gnuplot or python3 is not installed: no picture read back"
  else echo "skipped: gnuplot or python3 is not installed (apt-get install -y gnuplot-nox python3)"; fi
  echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit
fi
# points DIR: one check, tests/plot_tables.sh's
points() {
  local out
  if out=$(bash tests/plot_tables.sh "$1" 2>&1); then ok; else bad "$(basename "$1"): $out"; fi
  printf '%s: %s\n' "$(basename "$1")" "$(printf '%s' "$out" | tail -n 1)" >>"$tmp/log"
}
# keys DIR: one check, that no key of DIR's pictures lies over their data (tests/check_keys.py)
keys() {
  local out
  if out=$(python3 tests/check_keys.py "$1"/plots/*.svg 2>&1); then ok; else bad "$(basename "$1"): $out"; fi
}
fixtures="points/straggler points/model points/keys phases points/phases_parts points/overlap points/hosts points/compute"
long && fixtures="colocated points/na points/mpi points/mixed $fixtures"
for f in $fixtures; do
  cp -r "tests/fixtures/$f" "$tmp/$(basename "$f")"
  points "$tmp/$(basename "$f")"
  keys "$tmp/$(basename "$f")"
done
cat "$tmp/log" 2>/dev/null
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
