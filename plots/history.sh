#!/usr/bin/env bash
# plots/history.sh RUNS_DIR [--sizes LIST] [--algo LIST] [--out DIR] (arbench history runs it):
# reads every run folder in RUNS_DIR (RUNS_DIR/*/results.csv, with critical.csv and meta.txt),
# groups them by machine, GPU count and placement (never one trend across groups), and writes
# to DIR (default RUNS_DIR/history): history.md (per group, the last night's verdict per
# series against the earlier nights' spread: history.awk), history.csv (every value),
# plots/trend_*.png and .svg (gnuplot; skipped, saying how to install it, without; their data
# and drivers in plots/data/), and
# history.html (one self-contained page: the verdicts and every trend picture inlined).
# --sizes 1M,1G: sizes for algbw (default 1 KiB, 1 MiB, 64 MiB, 1 GiB) and the other metrics
# (default all); --algo ring,stragglar: these algorithms (and nccl) only.
# Exit status: 0 written (whatever the verdicts); 1 no run folder or not writable; 2 usage.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/html.sh"
usage() { echo "usage: arbench history RUNS_DIR [--sizes LIST] [--algo LIST] [--out DIR]" >&2; exit 2; }
runs= sizes= algos= out=
while [ $# -gt 0 ]; do
  case $1 in
    --sizes) [ $# -ge 2 ] || usage; sizes=$2; shift 2 ;;
    --algo) [ $# -ge 2 ] || usage; algos=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
    -h|--help) usage ;;
    -*) echo "arbench history: unknown option $1" >&2; usage ;;
    *) [ -z "$runs" ] || usage; runs=$1; shift ;;
  esac
done
[ -n "$runs" ] || usage
if [ -n "$sizes" ] && ! printf '%s' "$sizes" | grep -qiE '^[0-9]+[KMGT]?(i?B)?(,[0-9]+[KMGT]?(i?B)?)*$'; then
  echo "arbench history: --sizes: bad value '$sizes' (e.g. 64K,1M,1G)" >&2; exit 2
fi
[ -d "$runs" ] || { echo "arbench history: $runs: not a folder" >&2; exit 1; }
out=${out:-$runs/history}
mkdir -p "$out/plots" || exit 1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/arbench-history.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# the manifest: DIR, group, group in words, date, time; by time. The group is where the run ran:
# host, GPU model, ranks, GPUs and placement (runinfo.awk's, as make run's baseline rule). A
# run marked INCOMPLETE (stopped early: rows missing) or FAILED (wrong or failed rows, a
# timeout) is no night of the trend: it would decide the verdicts. Each is said in one line.
for d in "$runs"/*/; do
  d=${d%/}
  [ -s "$d/results.csv" ] || continue
  mark=
  for m in INCOMPLETE FAILED; do [ -e "$d/$m" ] && { mark=$m; break; }; done
  if [ -n "$mark" ]; then
    why=$(head -n 1 "$d/$mark" 2>/dev/null | tr -d '\r')
    echo "history: left out $d: marked $mark${why:+ ($why)}; an incomplete or failed run is no night of the trend" >>"$tmp/left"
    continue
  fi
  meta=/dev/null
  [ -s "$d/meta.txt" ] && meta=$d/meta.txt
  info=$(awk -f "$here/csv.awk" -f "$here/runinfo.awk" "$meta" "$d/results.csv") || continue
  IFS=$'\t' read -r nrows pl gpus <<<"$info"
  [ "${nrows:-0}" -gt 0 ] || continue   # model-only folders have no nights to compare
  awk -f "$here/csv.awk" -f "$here/nightinfo.awk" -v d="$d" -v pl="$pl" -v gpus="$gpus" "$d/results.csv"
done | sort | cut -f2- >"$tmp/manifest"
[ -s "$tmp/left" ] && cat "$tmp/left" >&2
if [ ! -s "$tmp/manifest" ]; then
  [ -s "$tmp/left" ] && left=" that is complete" || left=
  echo "arbench history: no run folder with measured rows$left in $runs" >&2; exit 1
fi
# history.awk wants DIR, group, words, date, time
awk -F'\t' -v OFS='\t' '{ print $1, $2, $3, $4, $5 }' "$tmp/manifest" >"$tmp/m"
files=()
while IFS=$'\t' read -r d _; do
  files+=("$d/results.csv")
  [ -s "$d/critical.csv" ] && files+=("$d/critical.csv")
done <"$tmp/m"
# the pictures' data and gnuplot drivers stay in DIR/plots/data (what each picture drew)
rm -f "$out"/plots/trend_*.png "$out"/plots/trend_*.svg
rm -rf "$out/plots/data" && mkdir -p "$out/plots/data" || exit 1
if ! awk -f "$here/csv.awk" -f "$here/style.awk" -f "$here/history.awk" -v tmp="$out/plots/data" -v out="$out/plots" \
     -v gpdir="$here" -v sizes="$sizes" -v algos="$algos" -v left="$tmp/left" "$tmp/m" "${files[@]}" >"$tmp/drivers" 2>"$tmp/said"; then
  cat "$tmp/said" >&2; echo "arbench history: could not read the runs in $runs" >&2; exit 1
fi
mv "$out/plots/history.md" "$out/plots/history.csv" "$out/" || exit 1
cat "$tmp/said"

# the trend pictures
pngterm=pngcairo
if command -v gnuplot >/dev/null 2>&1; then
  gnuplot -e 'set terminal pngcairo' </dev/null >/dev/null 2>&1 || pngterm=png
  while IFS= read -r drv; do
    err=$(gnuplot -e "pngterm='$pngterm'" "$drv" 2>&1) || echo "history: gnuplot failed on $(basename "$drv" .gp): $err" >&2
  done <"$tmp/drivers"
else
  echo "history: gnuplot is not installed, so no trend pictures (apt-get install -y gnuplot-nox)" >&2
fi

# history.html: the verdicts, then each group's pictures
{
  page_head "arbench history of $runs"
  awk -f "$here/md2html.awk" "$out/history.md" |
    awk '/<tr>.*<strong>(slower|later|further from the bound)<\/strong>/ { sub(/<tr>/, "<tr class=\"regressed\">") } 1'
  printf '<section id="trends">\n<h2>Trends</h2>\n'
  found=0
  for f in "$out"/plots/trend_*.svg; do
    [ -e "$f" ] || continue
    figure "$out" "$(basename "$f" .svg)"; found=1
  done
  [ "$found" = 1 ] || printf '<p class="none">No trend pictures (gnuplot missing, or no machine with two nights).</p>\n'
  printf '</section>\n</body>\n</html>\n'
} >"$out/history.html.tmp" && mv "$out/history.html.tmp" "$out/history.html" || exit 1
echo "history: wrote $out/history.html, history.md, history.csv and $(ls "$out"/plots/trend_*.png 2>/dev/null | wc -l) pictures"
