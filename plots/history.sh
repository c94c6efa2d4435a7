#!/usr/bin/env bash
# plots/history.sh [--sizes BYTES] [--algo LIST] [--out DIR] [--] RUN_OR_RUNS_DIR... (arbench
# history runs it, after checking every argument): reads each run folder named and every run
# folder in each folder of nights named (RUNS_DIR/*/results.csv, with critical.csv and
# meta.txt), says how many nights it found and that a verdict needs 3 of a group, groups the
# nights by machine, GPU count, placement, source,
# dtype and timing method (never one trend across groups), and writes to DIR: history.md (per
# group, the last night's verdict per series: history.awk), history.csv (every value),
# plots/trend_*.png and .svg (gnuplot; skipped, saying how to install it, without; their data
# and drivers in plots/data/), and history.html (one self-contained page: the verdicts and
# every trend picture inlined).
# DIR must be new, empty or a folder history wrote before; never a run folder, a folder inside
# one, or a folder git tracks (runs/reference/). The default is history/ in the folder that
# holds the nights (a folder of nights named alone: RUNS_DIR/history; run folders: their
# common parent's), or, where git tracks that folder, history-NAME beside it (runs/reference ->
# runs/history-reference).
# --sizes 1048576,1073741824: sizes in bytes for algbw (default 1 KiB, 1 MiB, 64 MiB, 1 GiB) and
# the other metrics (default all); --algo ring,stragglar: these algorithms (and nccl) only.
# Exit status: 0 written (whatever the verdicts); 1 no run folder or not writable; 2 bad input.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/html.sh"
usage() { echo "usage: arbench history RUN_OR_RUNS_DIR... [--sizes LIST] [--algo LIST] [--out DIR]" >&2; exit 2; }
# refuse FLAG VALUE WHY: the one line of bad input, exit 2
refuse() { echo "arbench: $1: bad value '$2': $3" >&2; exit 2; }
inputs=() sizes= algos= out=
while [ $# -gt 0 ]; do
  case $1 in
    --sizes|--algo|--out)
      [ $# -ge 2 ] || { echo "arbench: $1: needs a value" >&2; exit 2; }
      case $1 in --sizes) sizes=$2 ;; --algo) algos=$2 ;; --out) out=$2 ;; esac
      shift 2 ;;
    -h|--help) usage ;;
    --) shift; inputs+=("$@"); break ;;
    -*) echo "arbench: history: unknown option '$1' (history takes run folders, folders of nights, --sizes, --algo and --out)" >&2; exit 2 ;;
    *) inputs+=("$1"); shift ;;
  esac
done
[ ${#inputs[@]} -gt 0 ] || usage
[ -z "$sizes" ] || printf '%s' "$sizes" | grep -qE '^[0-9]+(,[0-9]+)*$' || refuse --sizes "$sizes" "want bytes (arbench history converts 1M, 1G)"

# the nights: each folder named is a run folder (it holds results.csv) or a folder of nights
# (run folders in it); anything else, or a folder named twice, is refused. A night reached twice
# (a run folder and the folder that holds it) is read once. homes: the folders that hold them
nights=() homes=() seen_in=" " seen_run=" "
for a in "${inputs[@]}"; do
  [ -n "$a" ] || refuse history "$a" "an empty folder name"
  [ -d "$a" ] || refuse history "$a" "$([ -e "$a" ] && echo "not a folder" || echo "no such folder"): history reads run folders (with results.csv) and folders of them"
  abs=$(cd "$a" && pwd -P) || refuse history "$a" "cannot be read"
  case $seen_in in *" $abs "*) refuse history "$a" "named twice" ;; esac
  seen_in="$seen_in$abs "
  d=${a%/}; [ -n "$d" ] || d=/
  if [ -e "$d/results.csv" ]; then
    found=("$d") homes+=("$(dirname "$abs")")
  else
    found=()
    for r in "$d"/*/; do [ -e "$r/results.csv" ] && found+=("${r%/}"); done
    [ ${#found[@]} -gt 0 ] ||
      refuse history "$a" "neither a run folder (no results.csv) nor a folder of run folders (no $d/*/results.csv)"
    homes+=("$abs")
  fi
  for r in "${found[@]}"; do
    ra=$(cd "$r" && pwd -P) || continue
    case $seen_run in *" $ra "*) continue ;; esac
    seen_run="$seen_run$ra " nights+=("$r")
  done
done
# runs: what the pages name as their source; home: the folder that holds every night (the
# longest common path of homes), where the default output goes
if [ ${#inputs[@]} -eq 1 ]; then runs=${inputs[0]%/}; [ -n "$runs" ] || runs=/
else runs="${inputs[*]}"; fi
home=${homes[0]}
for h in "${homes[@]}"; do
  while [ "$home" != / ] && [ "$h" != "$home" ] && [ "${h#"$home"/}" = "$h" ]; do home=$(dirname "$home"); done
done

# out_problem DIR: why history must not write into DIR, or nothing: a file, a run folder or a
# folder inside one, a folder git tracks or would track (checked-in data: runs/reference/), a
# used folder that history did not write
out_problem() {
  local abs a top rc f extra=
  abs=$(realpath -m -- "$1") || { echo "cannot be resolved"; return; }
  if [ -e "$abs" ] && [ ! -d "$abs" ]; then echo "is not a folder"; return; fi
  a=$abs
  while :; do
    if [ -d "$a" ] && { [ -e "$a/results.csv" ] || [ -e "$a/meta.txt" ]; }; then
      if [ "$a" = "$abs" ]; then echo "is a run folder (it holds results.csv or meta.txt)"; else echo "lies in the run folder $a"; fi
      return
    fi
    [ "$a" = / ] && break
    a=$(dirname "$a")
  done
  if command -v git >/dev/null 2>&1; then
    a=$abs
    while [ ! -d "$a" ]; do a=$(dirname "$a"); done
    if top=$(git -C "$a" rev-parse --show-toplevel 2>/dev/null) && [ -n "$top" ]; then
      git -C "$top" check-ignore -q --no-index -- "$abs/history.md" 2>/dev/null; rc=$?
      if [ "$rc" = 1 ] || [ -n "$(git -C "$top" ls-files -- "$abs" 2>/dev/null | head -n 1)" ]; then
        echo "lies in checked-in files of $top (git would track what history writes there); give a folder git ignores (runs/...) or one outside the source tree"
        return
      fi
    fi
  fi
  [ -d "$abs" ] || return 0
  for f in "$abs"/* "$abs"/.[!.]*; do
    [ -e "$f" ] || continue
    case ${f##*/} in
      history.md) [ "$(head -n 1 "$f" | tr -d '\r')" = "# arbench history" ] || extra="$extra history.md (not history's)" ;;
      history.csv|history.html) ;;
      plots) for p in "$f"/* "$f"/.[!.]*; do
               [ -e "$p" ] || continue
               case ${p##*/} in trend_*.png|trend_*.svg|data) ;; *) extra="$extra plots/${p##*/}" ;; esac
             done ;;
      *) extra="$extra ${f##*/}" ;;
    esac
  done
  [ -z "$extra" ] || echo "holds files history did not write (${extra# }); history writes into a new or empty folder, or one it wrote before"
}

if [ -n "$out" ]; then
  why=$(out_problem "$out")
  [ -z "$why" ] || refuse --out "$out" "$why"
else
  # a folder of nights named alone: in it, as the user wrote it; else in the common home
  if [ ${#inputs[@]} -eq 1 ] && [ "$home" = "$(cd "$runs" && pwd -P)" ]; then base=$runs; else base=$home; fi
  out=${base%/}/history
  why=$(out_problem "$out")
  case $why in
    "lies in checked-in"*)
      # checked-in nights (runs/reference): the default moves beside them, where git ignores it
      abs=$(realpath -m -- "$base")
      alt=$(dirname "$abs")/history-$(basename "$abs")
      if [ -z "$(out_problem "$alt")" ]; then
        echo "history: $base is checked in: writing to $alt (not into it; --out DIR writes elsewhere)" >&2
        out=$alt why=
      fi ;;
  esac
  [ -z "$why" ] || { echo "arbench: history: cannot write to $out (the default): $why; give --out DIR" >&2; exit 2; }
fi
mkdir -p "$out/plots" || exit 1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/arbench-history.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# the manifest: a line per night and group (nightinfo.awk), by time. A run marked INCOMPLETE
# (stopped early: rows missing) or FAILED (wrong or failed rows, a timeout) is no night of the
# trend: it would decide the verdicts. Each is said in one line. meta.txt and results.csv are
# read without carriage returns: a file saved with CRLF is the same night as without
for d in "${nights[@]}"; do
  [ -s "$d/results.csv" ] || continue
  mark=
  for m in INCOMPLETE FAILED; do [ -e "$d/$m" ] && { mark=$m; break; }; done
  if [ -n "$mark" ]; then
    why=$(head -n 1 "$d/$mark" 2>/dev/null | tr -d '\r')
    echo "history: left out $d: marked $mark${why:+ ($why)}; an incomplete or failed run is no night of the trend" >>"$tmp/left"
    continue
  fi
  tr -d '\r' <"$d/results.csv" >"$tmp/results.csv"
  if [ -s "$d/meta.txt" ]; then tr -d '\r' <"$d/meta.txt" >"$tmp/meta.txt"; else : >"$tmp/meta.txt"; fi
  info=$(awk -f "$here/csv.awk" -f "$here/runinfo.awk" "$tmp/meta.txt" "$tmp/results.csv") || continue
  IFS=$'\t' read -r nrows pl gpus <<<"$info"
  [ "${nrows:-0}" -gt 0 ] || continue   # model-only folders have no nights to compare
  awk -f "$here/csv.awk" -f "$here/rowkind.awk" -f "$here/nightinfo.awk" -v d="$d" -v pl="$pl" -v gpus="$gpus" "$tmp/results.csv"
done | sort | cut -f2- >"$tmp/manifest"
[ -s "$tmp/left" ] && cat "$tmp/left" >&2
if [ ! -s "$tmp/manifest" ]; then
  [ -s "$tmp/left" ] && left=" that is complete" || left=
  echo "arbench history: no run folder with measured rows$left in $runs" >&2; exit 1
fi
# before the work: how many nights each group has, and that a verdict needs 3
awk -F'\t' '{ if (!($1 in dir)) { dir[$1] = 1; nd++ } if (!($2 in n)) ng++; n[$2]++; nights++ }
  END { for (g in n) if (n[g] < 3) few++
        printf "history: %d run folder%s, %d night%s in %d group%s (machine, GPU count, placement, source, dtype, timing method); a verdict needs 3 nights of a group", nd, (nd > 1 ? "s" : ""), nights, (nights > 1 ? "s" : ""), ng, (ng > 1 ? "s" : "")
        if (few) printf ": %d ha%s fewer (drawn, not judged)", few, (few > 1 ? "ve" : "s")
        printf "\n" }' "$tmp/manifest" >&2
files=()
while IFS=$'\t' read -r d _; do
  case " ${seen:-} " in *" $d "*) continue ;; esac
  seen="${seen:-} $d"
  files+=("$d/results.csv")
  [ -s "$d/critical.csv" ] && files+=("$d/critical.csv")
done <"$tmp/manifest"
# the pictures' data and gnuplot drivers stay in DIR/plots/data (what each picture drew)
rm -f "$out"/plots/trend_*.png "$out"/plots/trend_*.svg
rm -rf "$out/plots/data" && mkdir -p "$out/plots/data" || exit 1
if ! awk -f "$here/csv.awk" -f "$here/style.awk" -f "$here/labels.awk" -f "$here/stats.awk" -f "$here/rowkind.awk" -f "$here/history.awk" \
     -v tmp="$out/plots/data" -v out="$out/plots" -v gpdir="$here" -v sizes="$sizes" -v algos="$algos" -v left="$tmp/left" \
     "$tmp/manifest" "${files[@]}" >"$tmp/drivers" 2>"$tmp/said"; then
  cat "$tmp/said" >&2; echo "arbench history: could not read the runs in $runs" >&2; exit 1
fi
mv "$out/plots/history.md" "$out/plots/history.csv" "$out/" || exit 1
cat "$tmp/said"

# the trend pictures
if command -v gnuplot >/dev/null 2>&1; then
  . "$here/draw.sh"
  draw_drivers "$tmp/drivers" "$out/plots" history
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
