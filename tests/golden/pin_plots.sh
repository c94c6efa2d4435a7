#!/usr/bin/env bash
# Pins what plots/ draws, for a change to plots/ that must not change it: writes into DIR, per
# run folder, what plot.sh, summary.sh and report.sh write (the .dat tables and drivers gnuplot
# reads, the SVGs, the points gnuplot plots: tests/plot_tables.sh's .table files, summary.md,
# report.html, their stdout and stderr), and history.sh's on the fixture nights. Run it before and
# after, then `diff -r`.
#   tests/golden/pin_plots.sh DIR [--quick]
# The folders: every fixture under tests/fixtures with a results.csv, the variants
# tests/test_plots.sh derives from them, and every run folder of runs/reference (drawn with a
# gnuplot that draws nothing, so that its tables and drivers are pinned fast; --quick leaves
# them out).
set -u
cd "$(dirname "$0")/../.." || exit 1
out=${1:?usage: pin_plots.sh DIR [--quick]}
quick=${2:-}
mkdir -p "$out" && out=$(cd "$out" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/pin-plots.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
# a gnuplot that draws nothing, for the many checked-in runs
mkdir -p "$work/nognu" && printf '#!/bin/sh\nexit 0\n' >"$work/nognu/gnuplot" && chmod +x "$work/nognu/gnuplot"

# neutral FILE...: the temporary paths of a drawing made the same in every run
neutral() { sed -i -e 's#/tmp/arbench-run\.[A-Za-z0-9]*/#TMP/#g' -e "s#$work/[^/']*/#WORK/#g" -e "s#$work/#WORK/#g" -e "s#$PWD/#REPO/#g" "$@"; }

# pin NAME SRC [BASE] [nognu]: draws a copy of run folder SRC (against the copy of BASE) into
# $out/NAME
pin() {
  local name=$1 src=$2 base=${3:-} fast=${4:-} d=$work/$1 o=$out/$1 b=
  rm -rf "$d" && mkdir -p "$d" && cp -r "$src"/. "$d"/ && rm -rf "$d/plots" "$d/summary.md" "$d/report.html"
  if [ -n "$base" ]; then b=$work/$1.base; rm -rf "$b"; cp -r "$base" "$b"; fi
  mkdir -p "$o"
  if [ -n "$fast" ]; then
    PATH=$work/nognu:$PATH AR_PLOT_KEEP=1 bash plots/plot.sh "$d" >"$o/plot.out" 2>&1
  else
    AR_PLOT_KEEP=1 bash plots/plot.sh "$d" >"$o/plot.out" 2>&1
  fi
  echo "exit $?" >>"$o/plot.out"
  if [ -z "$fast" ] && [ -d "$d/plots/data" ]; then
    bash tests/plot_tables.sh --drawn "$d" >"$o/tables.out" 2>&1; echo "exit $?" >>"$o/tables.out"
  fi
  bash plots/summary.sh "$d" ${b:+"$b"} >"$o/summary.out" 2>&1; echo "exit $?" >>"$o/summary.out"
  for f in summary.md report.html; do [ -e "$d/$f" ] && cp "$d/$f" "$o/"; done
  if [ -d "$d/plots" ]; then
    mkdir -p "$o/plots"
    find "$d/plots" -type f \( -name '*.svg' -o -name '*.dat' -o -name '*.gp' -o -name '*.table' -o -name '*.txt' \) |
      while read -r f; do cp "$f" "$o/plots/$(basename "$f")"; done
  fi
  neutral "$o"/*.out "$o"/*.md "$o"/*.html "$o"/plots/* 2>/dev/null
}

for csv in $(find tests/fixtures -name results.csv | sort); do
  src=$(dirname "$csv")
  name=fx-$(printf '%s' "${src#tests/fixtures/}" | tr / -)
  pin "$name" "$src"
done
pin fx-regressed-vs-nightly tests/fixtures/regressed tests/fixtures/nightly
pin fx-scenarios-vs-scenbase tests/fixtures/scenarios tests/fixtures/scenbase
pin fx-nightly-vs-regressed tests/fixtures/nightly tests/fixtures/regressed

# the variants tests/test_plots.sh derives (same awk)
derive() {
  local name=$1 src=$2 prog=$3 d=$work/src-$1
  rm -rf "$d" && mkdir -p "$d" && awk -F, -v OFS=, "$prog" "$src/results.csv" >"$d/results.csv"
  pin "dv-$name" "$d"
}
derive model tests/fixtures/nightly 'NR == 1 || $9 == "model"'
derive na tests/fixtures/small 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "status") c = i } NR > 1 { $c = "n/a" } 1'
derive calplain tests/fixtures/calibrated 'NR > 1 && $9 == "model" { $11 = "model" } 1'
derive calfew tests/fixtures/calibrated 'NR == 1 || (($10 == "ring" || $10 == "rhd") && ($11 == "ce" || $11 == "sm"))'
derive onlynccl tests/fixtures/nightly 'NR == 1 || $10 == "nccl"'
derive many tests/fixtures/wide 'NR == 1 { print; next } $9 != "model" && $14 == 1073741824 && $15 == -1 && $17 == -1 && $10 != "async-ring" {
  for (d = 0; d <= 8000; d += 2000) { $15 = 3; $16 = d; m = $21; $21 = m + d * (0.9 + 0.02 * length($10 $11)); print; $21 = m } }'

# history on the fixture nights
for h in tests/fixtures/history/*/; do
  name=hist-$(basename "$h") o=$out/hist-$(basename "$h")
  rm -rf "$work/$name" && mkdir -p "$o"
  bash plots/history.sh --out "$work/$name" "$h" >"$o/history.out" 2>&1; echo "exit $?" >>"$o/history.out"
  find "$work/$name" -type f \( -name '*.md' -o -name '*.csv' -o -name '*.svg' -o -name '*.dat' -o -name '*.gp' \) |
    while read -r f; do cp "$f" "$o/$(basename "$f")"; done
  neutral "$o"/*
done

[ "$quick" = --quick ] && exit 0
for csv in $(find runs/reference -name results.csv | sort); do
  src=$(dirname "$csv")
  pin "ref-$(printf '%s' "${src#runs/reference/}" | tr / -)" "$src" "" nognu
done
