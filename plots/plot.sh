#!/usr/bin/env bash
# plots/plot.sh RUN_DIR: draws a run folder's results.csv (and critical.csv, phases.csv,
# overlap.csv and meta.txt, if there) as RUN_DIR/plots/*.png and *.svg with gnuplot; no GPU needed. prep.awk
# says which pictures exist and why some are not drawn; the *.gp scripts draw them. The PNGs and
# SVGs of an earlier drawing in RUN_DIR/plots are removed first, so that no picture outlives the
# data or naming it came from.
# Exit status: 0 drawn, or gnuplot missing (it says how to install it: the run that made the CSV
# must never fail because of plots); 1 no results.csv, a malformed one, or a picture gnuplot
# could not draw; 2 usage. AR_PLOT_KEEP=1 keeps the data and drivers in RUN_DIR/plots/data/
# (tests/plot_tables.sh runs them again to read back what each picture plots).
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: plots/plot.sh RUN_DIR   (or: make plots RUN=RUN_DIR)" >&2
  exit 2
fi
run=$1
case $run in -* | [!/.]*=*) run=./$run ;; esac # a leading '-' is no option, an '=' no awk assignment
if [ ! -s "$run/results.csv" ]; then
  echo "plot.sh: $run/results.csv: missing or empty" >&2
  exit 1
fi
if ! command -v gnuplot >/dev/null 2>&1; then
  echo "plot.sh: gnuplot is not installed, so no pictures were drawn for $run; the results are fine." >&2
  echo "plot.sh: install it with: sudo apt-get update && sudo apt-get install -y gnuplot-nox" \
       "(Fedora/RHEL: sudo dnf install -y gnuplot; macOS: brew install gnuplot)," \
       "then run: plots/plot.sh $run" >&2
  exit 0
fi
# pngcairo draws anti-aliased lines; plain png (libgd) is the fallback on builds without cairo
pngterm=pngcairo
gnuplot -e 'set terminal pngcairo' </dev/null >/dev/null 2>&1 || pngterm=png

mkdir -p "$run/plots" || exit 1
# awk and gnuplot see the run folder through a link whose path has safe characters only: a
# quote in the real path would end a gnuplot string, a backslash would be an awk -v escape
link=$(mktemp -d "${TMPDIR:-/tmp}/arbench-run.XXXXXX") || exit 1
ln -s "$(cd "$run" && pwd)" "$link/run" || exit 1
run_abs=$link/run
if [ "${AR_PLOT_KEEP:-0}" = 1 ]; then
  tmp=$run_abs/plots/data
  rm -rf "$tmp" && mkdir -p "$tmp" || exit 1
  trap 'rm -rf "$link"' EXIT
else
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/arbench-plots.XXXXXX") || exit 1
  trap 'rm -rf "$tmp" "$link"' EXIT
fi
crit=()
[ -s "$run_abs/critical.csv" ] && crit=("$run_abs/critical.csv")

meta=
[ -s "$run_abs/meta.txt" ] && meta=$run_abs/meta.txt
if ! awk -f "$here/csv.awk" -f "$here/stats.awk" -f "$here/style.awk" -f "$here/prep.awk" -f "$here/prep_names.awk" \
     -f "$here/prep_nccl.awk" -f "$here/prep_pic.awk" -f "$here/prep_best.awk" -f "$here/prep_scen.awk" \
     -f "$here/prep_sweeps.awk" -v tmp="$tmp" -v out="$run_abs/plots" -v gpdir="$here" -v crit="${crit[0]:-}" \
     -v meta="$meta" "$run_abs/results.csv" "${crit[@]}" >"$tmp/drivers.txt"; then
  echo "plot.sh: could not read $run/results.csv" >&2
  exit 1
fi

# the pictures of an earlier drawing go (a picture no longer drawn, or renamed, must not linger)
rm -f "$run_abs"/plots/*.png "$run_abs"/plots/*.svg

# phases.csv (arbench run --phases): per-rank timelines, drawn by phases.awk and phases.gp
if [ -s "$run_abs/phases.csv" ] &&
   ! awk -f "$here/csv.awk" -f "$here/phases.awk" -v tmp="$tmp" -v out="$run_abs/plots" \
       -v gpdir="$here" "$run_abs/phases.csv" >>"$tmp/drivers.txt"; then
  echo "plot.sh: could not read $run/phases.csv" >&2
fi

# overlap.csv (arbench run --profile overlap): copy time overlapped with reduction and with the
# delay, per algorithm/transport, drawn by overlap.awk and overlap.gp
if [ -s "$run_abs/overlap.csv" ] &&
   ! awk -f "$here/csv.awk" -f "$here/overlap.awk" -v tmp="$tmp" -v out="$run_abs/plots" \
       -v gpdir="$here" "$run_abs/overlap.csv" >>"$tmp/drivers.txt"; then
  echo "plot.sh: could not read $run/overlap.csv" >&2
fi

drawn=0 failed=0
while IFS= read -r drv; do
  name=$(basename "$drv" .gp)
  if ! err=$(gnuplot -e "pngterm='$pngterm'" "$drv" 2>&1); then
    echo "plot.sh: gnuplot failed on $name:" >&2
    printf '%s\n' "$err" | sed 's/^/  /' >&2
    rm -f "$run_abs/plots/$name.png" "$run_abs/plots/$name.svg"   # no half-drawn pictures
    failed=$((failed + 1)); continue
  fi
  [ -n "$err" ] && printf '%s\n' "$err" | sed "s/^/plot.sh: $name: /" >&2
  drawn=$((drawn + 1))
done <"$tmp/drivers.txt"
if [ "$failed" -gt 0 ]; then echo "plot.sh: $drawn pictures (PNG and SVG) in $run/plots, $failed failed" >&2
else echo "plot.sh: $drawn pictures (PNG and SVG) in $run/plots"; fi
[ "$failed" -eq 0 ]
