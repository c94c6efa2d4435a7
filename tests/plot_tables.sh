#!/usr/bin/env bash
# tests/plot_tables.sh [--drawn] RUN_DIR: draws RUN_DIR (plots/plot.sh, AR_PLOT_KEEP=1 keeps the
# drivers; --drawn: it was drawn so already), runs every driver again with `tables = 1` so that gnuplot writes the points of each of its plot
# commands to RUN_DIR/plots/NAME.table (`set table`), and compares them with results.csv
# (tests/plot_points.py). Prints what disagrees and "N pictures checked"; exit status 1 on any
# disagreement or gnuplot error. Used by test_plot_points.sh and test_make_run.sh.
set -u
cd "$(dirname "$0")/.." || exit 1
drawn=0
[ "${1:-}" = --drawn ] && { drawn=1; shift; }
d=$1
if [ "$drawn" = 0 ]; then
  out=$(AR_PLOT_KEEP=1 bash plots/plot.sh "$d" 2>&1) || { echo "plot.sh: $out"; exit 1; }
fi
# the drivers name the run through plot.sh's temporary link: here they read and write in RUN_DIR;
# all of them in one gnuplot with `tables = 1` (plots/draw.sh), its markers naming each driver
# in what gnuplot says
. plots/draw.sh
ls "$d"/plots/data/*.gp >"$d/plots/data/tables.list" 2>/dev/null
while IFS= read -r drv; do
  sed -i "s|^data = '.*/plots/data/|data = '$d/plots/data/|; s|^out = '.*/plots/|out = '$d/plots/|" "$drv"
done <"$d/plots/data/tables.list"
driver_batch "$d/plots/data/tables.list" 1 'tables = 1' >"$d/plots/data/tables.gpi"
out=$(gnuplot "$d/plots/data/tables.gpi" 2>&1)
said=$(printf '%s\n' "$out" | awk 'NR == FNR { name[NR] = $0; sub(/.*\//, "", name[NR]); next }
  /^@@arbench driver / { drv = name[$3]; next }
  NF { print "gnuplot on " drv ": " $0 }' "$d/plots/data/tables.list" -)
rm -f "$d/plots/data/tables.list" "$d/plots/data/tables.gpi"
[ -n "$said" ] && { printf '%s\n' "$said"; exit 1; }
python3 tests/plot_points.py "$d"
