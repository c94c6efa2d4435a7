#!/usr/bin/env bash
# plots/summary.sh RUN_DIR [BASELINE_RUN_DIR]: writes RUN_DIR/summary.md: what kind of run it was,
# per scenario the best group per size (ties named) against nccl at its strongest (OPTCC's bound for degraded
# links), the critical search's probes and delays, regressions against the baseline run (if
# given, decided by the medians' intervals where both rows have one: docs/statistics.md), the rows
# that failed and those that could not run, and links to RUN_DIR/plots/*.
# INCOMPLETE and FAILED markers are said under the title.
# awk and bash only (the GPU machine may have no Python). Prints "summary.sh: ..., N regressions".
# Then report.sh writes RUN_DIR/report.html from it (a failure there says so and exits 0).
# Exit status: 0 written; 1 a results.csv missing or malformed; 2 usage.
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 1 ] || [ $# -gt 2 ] || [ -z "$1" ]; then
  echo "usage: plots/summary.sh RUN_DIR [BASELINE_RUN_DIR]" >&2
  exit 2
fi
run=$1 basedir=${2:-}
# a leading '-' is no option, an '=' no awk assignment
case $run in -* | [!/.]*=*) run=./$run ;; esac
case $basedir in -* | [!/.]*=*) basedir=./$basedir ;; esac
for d in "$run" ${basedir:+"$basedir"}; do
  if [ ! -s "$d/results.csv" ] || [ ! -r "$d/results.csv" ]; then
    echo "summary.sh: $d/results.csv: missing or empty" >&2
    exit 1
  fi
done
crit=
[ -s "$run/critical.csv" ] && crit=$run/critical.csv
base=
[ -n "$basedir" ] && base=$basedir/results.csv

# the name is known before the file exists, so that a stop at any moment leaves nothing behind
# (arbench run ends the drawing with TERM); a file of a killed process with this pid goes first
tmp=$run/.summary.md.$$
trap 'rm -f "$tmp" "$tmp.i"' EXIT
rm -f "$tmp" && : >"$tmp" || exit 1
files=()
[ -n "$base" ] && files+=("$base")
files+=("$run/results.csv")
[ -n "$crit" ] && files+=("$crit")
# which NCCL the ratios are against: meta.txt's NCCL_NVLS_ENABLE line (0: NVLink SHARP off)
meta=0 nvls=
if [ -s "$run/meta.txt" ]; then
  meta=1
  nvls=$(sed -n 's/^NCCL_NVLS_ENABLE:[ \t]*//p' "$run/meta.txt" | head -n 1)
fi
if ! awk -f "$here/csv.awk" -f "$here/stats.awk" -f "$here/rowkind.awk" -f "$here/style.awk" -f "$here/labels.awk" \
         -f "$here/rows.awk" -f "$here/summary.awk" -f "$here/summary_sections.awk" \
         -v crit="$crit" -v base="$base" -v basedir="$basedir" -v meta="$meta" -v nvls="$nvls" \
         "${files[@]}" >"$tmp"; then
  echo "summary.sh: could not summarise $run/results.csv" >&2
  exit 1
fi

# a run stopped early (arbench run wrote INCOMPLETE): said under the title, never a quiet table
if [ -s "$run/INCOMPLETE" ]; then
  why=$(head -n 1 "$run/INCOMPLETE")
  awk -v why="$why" 'NR == 2 { printf "\n**Incomplete run: %s; only the rows measured before are here.**\n", why } { print }' \
    "$tmp" >"$tmp.i" && mv "$tmp.i" "$tmp"
fi

# a run with wrong or failed rows (arbench run wrote FAILED): said under the title too
if [ -s "$run/FAILED" ]; then
  why=$(head -n 1 "$run/FAILED")
  awk -v why="$why" 'NR == 2 { printf "\n**Failed run: %s; see \"Rows that failed\".**\n", why } { print }' \
    "$tmp" >"$tmp.i" && mv "$tmp.i" "$tmp"
fi

# the pictures plot.sh drew, PNG linked with its SVG
{
  printf '\n## Pictures\n\n'
  found=0
  for png in "$run"/plots/*.png; do
    [ -e "$png" ] || continue
    name=$(basename "$png" .png); found=1
    svg=
    [ -e "$run/plots/$name.svg" ] && svg=" ([svg](plots/$name.svg))"
    printf -- '- [%s](plots/%s.png)%s\n' "$name" "$name" "$svg"
  done
  # shellcheck disable=SC2016 # the backquotes are markdown
  [ "$found" = 1 ] || printf 'None yet: run `plots/plot.sh %s` (or `make plots RUN=%s`).\n' "$run" "$run"
} >>"$tmp"

mv "$tmp" "$run/summary.md" || exit 1
trap - EXIT
nreg=$(grep -o -m1 '^\*\*[0-9]* regressions\{0,1\}\*\*' "$run/summary.md" | tr -dc 0-9)
[ "${nreg:-0}" = 1 ] && regs=regression || regs=regressions
echo "summary.sh: wrote $run/summary.md${basedir:+, ${nreg:-0} $regs against $basedir}"
# the morning view: the same tables and every picture on one page (report.html)
bash "$here/report.sh" "$run" ${basedir:+"$basedir"} || echo "summary.sh: report.html was not written" >&2
