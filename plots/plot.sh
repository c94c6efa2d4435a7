#!/usr/bin/env bash
# plots/plot.sh RUN_DIR [OUT_DIR]: draws a run folder's results.csv (and critical.csv, phases.csv,
# overlap.csv and meta.txt, if there) as OUT_DIR/*.png and *.svg with gnuplot; no GPU needed. prep.awk
# says which pictures exist and why some are not drawn; the *.gp scripts draw them. The PNGs and
# SVGs of an earlier drawing in OUT_DIR are removed first, so that no picture outlives the
# data or naming it came from.
# OUT_DIR (`make plots RUN=RUN_DIR OUT=OUT_DIR`) is any folder the user names that is new, empty or
# holds only pictures (and data/); the default is RUN_DIR/plots, except for a run folder that git
# tracks (runs/reference/NAME: checked-in data is never redrawn unless named as OUT_DIR), whose
# pictures go to plots-NAME in the nearest folder above it that git ignores (runs/plots-NAME).
# Exit status: 0 drawn, or gnuplot missing (it says how to install it: the run that made the CSV
# must never fail because of plots); 1 no results.csv, a malformed one, or a picture gnuplot
# could not draw; 2 usage or an OUT_DIR that holds other files. AR_PLOT_KEEP=1 keeps the data and
# drivers in OUT_DIR/data/
# (tests/plot_tables.sh runs them again to read back what each picture plots).
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 1 ] || [ $# -gt 2 ] || [ -z "$1" ] || { [ $# = 2 ] && [ -z "$2" ]; }; then
  echo "usage: plots/plot.sh RUN_DIR [OUT_DIR]   (or: make plots RUN=RUN_DIR [OUT=OUT_DIR])" >&2
  exit 2
fi
run=$1
case $run in -* | [!/.]*=*) run=./$run ;; esac # a leading '-' is no option, an '=' no awk assignment
if [ ! -s "$run/results.csv" ]; then
  echo "plot.sh: $run/results.csv: missing or empty" >&2
  exit 1
fi
# not_pictures DIR: what in DIR is no picture of plot.sh's (nothing: DIR may be drawn into)
not_pictures() {
  local f extra=
  [ -d "$1" ] || { [ -e "$1" ] && echo "is not a folder"; return; }
  for f in "$1"/* "$1"/.[!.]*; do
    [ -e "$f" ] || continue
    case ${f##*/} in *.png|*.svg|*.table|data) ;; *) extra="$extra ${f##*/}" ;; esac
  done
  [ -z "$extra" ] || echo "holds files plot.sh did not write (${extra# }); plot.sh draws into a new or empty folder, or one of pictures"
}
if [ $# = 2 ]; then
  outdir=$2
  why=$(not_pictures "$outdir")
  [ -z "$why" ] || { echo "plot.sh: OUT: bad value '$outdir': $why" >&2; exit 2; }
else
  outdir=$run/plots
  # checked-in data (git lists files of the run folder): its pictures go beside, where git ignores them
  if command -v git >/dev/null 2>&1 && [ -n "$(git -C "$run" ls-files -- . 2>/dev/null | head -n 1)" ]; then
    name=$(basename "$(cd "$run" && pwd -P)") d=$(cd "$run/.." && pwd -P) alt=
    top=$(git -C "$run" rev-parse --show-toplevel 2>/dev/null)
    while [ -n "$top" ]; do
      if git -C "$d" check-ignore -q --no-index -- "$d/plots-$name" 2>/dev/null; then alt=$d/plots-$name; break; fi
      [ "$d" = "$top" ] || [ "$d" = / ] && break
      d=$(dirname "$d")
    done
    [ -n "$alt" ] || { echo "plot.sh: $run is checked in and no folder above it is ignored by git: give OUT=DIR (make plots RUN=$run OUT=DIR)" >&2; exit 2; }
    why=$(not_pictures "$alt")
    [ -z "$why" ] || { echo "plot.sh: $run is checked in, and $alt (its default) $why: give OUT=DIR" >&2; exit 2; }
    echo "plot.sh: $run is checked in: drawing into $alt (not into it; OUT=DIR draws elsewhere)" >&2
    outdir=$alt
  fi
fi
if ! command -v gnuplot >/dev/null 2>&1; then
  echo "plot.sh: gnuplot is not installed, so no pictures were drawn for $run; the results are fine." >&2
  echo "plot.sh: install it with: sudo apt-get update && sudo apt-get install -y gnuplot-nox" \
       "(Fedora/RHEL: sudo dnf install -y gnuplot; macOS: brew install gnuplot)," \
       "then run: plots/plot.sh $run" >&2
  exit 0
fi
mkdir -p "$outdir" || exit 1
# awk and gnuplot see the run folder and the pictures' folder through links whose paths have
# safe characters only: a quote in the real path would end a gnuplot string, a backslash would be
# an awk -v escape
link=$(mktemp -d "${TMPDIR:-/tmp}/arbench-run.XXXXXX") || exit 1
mkdir "$link/o" && ln -s "$(cd "$run" && pwd)" "$link/run" && ln -s "$(cd "$outdir" && pwd)" "$link/o/plots" || exit 1
run_abs=$link/run
out_abs=$link/o/plots
if [ "${AR_PLOT_KEEP:-0}" = 1 ]; then
  tmp=$out_abs/data
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
# each algorithm's family (the panel it is drawn in) is the registry's: `arbench --list --format
# families` of the binary that wrote the run (meta.txt's command; a relative path from here, as
# when arbench run draws at its end), else of this checkout's build. A name neither knows (an
# old run's algorithm) is placed by its name, and prep.awk says so
families=$tmp/families.txt famfrom=
for bin in "$(sed -n 's/^command: \([^ ]*\).*/\1/p' "${meta:-/dev/null}" | head -n 1)" "$here/../build/arbench"; do
  case ${bin##*/} in arbench*) ;; *) continue ;; esac
  [ -f "$bin" ] && [ -x "$bin" ] && "$bin" --list --format families >"$families" 2>/dev/null && { famfrom=$bin; break; }
done
[ -n "$famfrom" ] || families=
if ! AR_PLOT_FAMILIES_FROM=$famfrom awk -f "$here/csv.awk" -f "$here/stats.awk" -f "$here/style.awk" -f "$here/labels.awk" -f "$here/rows.awk" \
     -f "$here/prep.awk" -f "$here/prep_names.awk" -f "$here/prep_nccl.awk" -f "$here/prep_pic.awk" \
     -f "$here/prep_best.awk" -f "$here/prep_scen.awk" -f "$here/prep_sweeps.awk" -v tmp="$tmp" -v out="$out_abs" -v gpdir="$here" -v crit="${crit[0]:-}" \
     -v meta="$meta" -v families="$families" "$run_abs/results.csv" "${crit[@]}" >"$tmp/drivers.txt"; then
  echo "plot.sh: could not read $run/results.csv" >&2
  exit 1
fi

# the pictures of an earlier drawing go (a picture no longer drawn, or renamed, must not linger)
rm -f "$out_abs"/*.png "$out_abs"/*.svg

# phases.csv (arbench run --phases): per-rank timelines, drawn by phases.awk and phases.gp
if [ -s "$run_abs/phases.csv" ] &&
   ! awk -f "$here/csv.awk" -f "$here/style.awk" -f "$here/labels.awk" -f "$here/phases.awk" -v tmp="$tmp" -v out="$out_abs" \
       -v gpdir="$here" "$run_abs/phases.csv" >>"$tmp/drivers.txt"; then
  echo "plot.sh: could not read $run/phases.csv" >&2
fi

# overlap.csv (arbench run --profile overlap): copy time overlapped with reduction and with the
# delay, per algorithm/transport, drawn by overlap.awk and overlap.gp
if [ -s "$run_abs/overlap.csv" ] &&
   ! awk -f "$here/csv.awk" -f "$here/style.awk" -f "$here/labels.awk" -f "$here/overlap.awk" -v tmp="$tmp" -v out="$out_abs" \
       -v gpdir="$here" "$run_abs/overlap.csv" >>"$tmp/drivers.txt"; then
  echo "plot.sh: could not read $run/overlap.csv" >&2
fi

# results.csv's --compute columns: per size the AllReduce alone, the load alone and both, drawn
# by compute.awk and compute.gp
if ! awk -f "$here/csv.awk" -f "$here/style.awk" -f "$here/labels.awk" -f "$here/compute.awk" -v tmp="$tmp" \
     -v out="$out_abs" -v gpdir="$here" "$run_abs/results.csv" >>"$tmp/drivers.txt"; then
  echo "plot.sh: could not read $run/results.csv's compute columns" >&2
fi

. "$here/draw.sh"
draw_drivers "$tmp/drivers.txt" "$out_abs" plot.sh
if [ "$failed" -gt 0 ]; then echo "plot.sh: $drawn pictures (PNG and SVG) in $outdir, $failed failed" >&2
else echo "plot.sh: $drawn pictures (PNG and SVG) in $outdir"; fi
[ "$failed" -eq 0 ]
