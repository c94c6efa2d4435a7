#!/usr/bin/env bash
# `make run`: the main job on the GPUs present. Extra arguments go to `arbench run` (e.g.
# --dry-run, --scenario clean).
#   2+ GPUs  the nightly (configs/nightly.conf), one rank per GPU.
#   1 GPU    a smoke run (configs/quick.conf) with 4 ranks placed on GPU 0 (--ranks 4).
#   no GPU   model mode: a run folder runs/<UTC time>_<host>_model/ of source=model rows for the
#            nightly's algorithms and sizes on a modelled 8-GPU node, with pictures and summary.
# With a GPU the latest earlier run folder of the same placement and GPU count, complete (rows
# in results.csv and a summary.md, no INCOMPLETE or FAILED) and not the run's own --out, is the
# baseline, unless --baseline or --dry-run is given.
# GPUs are those `nvidia-smi -L` lists (narrowed by CUDA_VISIBLE_DEVICES); B names the build
# folder. Tests run a copy of this script beside stub nvidia-smi and arbench programs.
set -u
cd "$(dirname "$0")/.."
B=${B:-build}

# gpu_count: the GPUs visible to CUDA: nvidia-smi -L's GPU lines, at most as many as
# CUDA_VISIBLE_DEVICES names when it is set; 0 without nvidia-smi or when it fails
gpu_count() {
  local n
  n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ') || n=0
  if [ "${CUDA_VISIBLE_DEVICES+set}" = set ]; then
    local v
    v=$(printf '%s' "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c .)
    [ "$v" -lt "$n" ] && n=$v
  fi
  echo "$n"
}

# placement_of RANKS GPUS: the placement column's words for RANKS ranks round-robin over GPUS
# GPUs ("1 rank/GPU", "4 ranks/GPU", "2-3 ranks/GPU")
placement_of() {
  local n=$1 g=$2 lo hi
  [ "$g" -gt "$n" ] && g=$n
  lo=$((n / g)) hi=$(((n + g - 1) / g))
  if [ "$hi" -eq 1 ]; then echo "1 rank/GPU"
  elif [ "$lo" -eq "$hi" ]; then echo "$lo ranks/GPU"
  else echo "$lo-$hi ranks/GPU"; fi
}

# expect RANKS GPUS ARGS...: sets want_pl and want_g, the placement and GPU count of this run:
# RANKS ranks on GPUS GPUs unless ARGS (the user's) give --gpus LIST or --ranks N (last wins);
# and want_out, the user's --out (never its own baseline)
expect() {
  local n=$1 g=$2 gpus="" ranks=""; shift 2
  want_out=""
  while [ $# -gt 0 ]; do
    case $1 in
    --out) want_out=${2:-}; shift ;;
    --out=*) want_out=${1#--out=} ;;
    --gpus) gpus=${2:-}; shift ;;
    --gpus=*) gpus=${1#--gpus=} ;;
    --ranks) ranks=${2:-}; shift ;;
    --ranks=*) ranks=${1#--ranks=} ;;
    esac
    shift
  done
  if [ -n "$gpus" ]; then
    n=$(printf '%s' "$gpus" | tr ',' '\n' | grep -c .)
    g=$(printf '%s' "$gpus" | tr ',' '\n' | grep . | sort -u | wc -l)
  fi
  case $ranks in '' | *[!0-9]*) ;; *) n=$ranks ;; esac
  [ "$n" -ge 1 ] 2>/dev/null || n=1
  [ "$g" -ge 1 ] 2>/dev/null || g=1
  [ "$g" -gt "$n" ] && g=$n
  want_pl=$(placement_of "$n" "$g") want_g=$g
}

# pick_baseline: prints the latest earlier run folder in runs/ (not runs/reference/) that is
# complete (measured rows in results.csv, a summary.md, no INCOMPLETE or FAILED), is not the
# --out folder this run writes (want_out: a run never compares with itself) and ran with want_pl
# on want_g GPUs; says on stderr how many later folders it passed over and why
pick_baseline() {
  local d info rows pl g skipped=0 why="" out=""
  [ -n "${want_out:-}" ] && out=$(realpath -m -- "$want_out")
  while IFS= read -r d; do
    d=${d%/}
    [ -n "$d" ] || continue
    if [ -n "$out" ] && [ "$(realpath -m -- "$d")" = "$out" ]; then
      skipped=$((skipped + 1)) why="$why; $d: the --out folder of this run"; continue
    fi
    [ -e "$d/results.csv" ] || continue # no run folder (runs/history/, arbench history's)
    if [ ! -s "$d/results.csv" ] || [ ! -s "$d/summary.md" ]; then
      skipped=$((skipped + 1)) why="$why; $d: incomplete (no results.csv or summary.md)"; continue
    fi
    if [ -e "$d/INCOMPLETE" ]; then # stopped by a signal: some rows never ran
      skipped=$((skipped + 1)) why="$why; $d: incomplete (stopped early)"; continue
    fi
    if [ -e "$d/FAILED" ]; then # wrong or failed rows: not a night to compare with
      skipped=$((skipped + 1)) why="$why; $d: failed (wrong or failed rows)"; continue
    fi
    local meta=/dev/null
    [ -r "$d/meta.txt" ] && meta=$d/meta.txt
    info=$(awk -f plots/csv.awk -f plots/runinfo.awk "$meta" "$d/results.csv" 2>/dev/null) || info=""
    IFS=$'\t' read -r rows pl g <<<"$info"
    if [ "${rows:-0}" -eq 0 ]; then
      skipped=$((skipped + 1)) why="$why; $d: no measured rows"; continue
    fi
    if [ "$pl" != "$want_pl" ] || [ "$g" != "$want_g" ]; then
      skipped=$((skipped + 1)) why="$why; $d: $pl on $g GPU(s)"; continue
    fi
    [ "$skipped" -gt 0 ] && echo "make run: passed over $skipped later run folder(s)${why}" >&2
    echo "$d"
    return 0
  done < <(ls -1d runs/*/ 2>/dev/null | grep -v '^runs/reference/' | sort -r)
  [ "$skipped" -gt 0 ] && echo "make run: no baseline: no earlier complete run of $want_pl on $want_g GPU(s)${why}" >&2
  return 1
}

# model_mode: no GPU: writes runs/<UTC time>_<host>_model/ (results.csv of source=model rows,
# meta.txt, COMMAND, model.txt, summary.md, plots/) and tells the user where it is
model_mode() {
  local stamp host dir="" i algos csv n
  echo "make run: no GPU here (nvidia-smi lists none), so model mode: nothing is measured; every row is priced by \`arbench model\`" >&2
  [ $# -gt 0 ] && echo "make run: the arguments '$*' are for arbench run on GPUs: not used in model mode" >&2
  host=$(hostname 2>/dev/null || uname -n); host=${host%%.*}
  mkdir -p runs || return 1
  # runs never share a folder: a second run within the same second waits for the next
  for i in 1 2 3 4 5; do
    stamp=$(date -u +%Y%m%dT%H%M%SZ) dir=runs/${stamp}_${host}_model
    mkdir "$dir" 2>/dev/null && break
    dir="" && sleep 1
  done
  [ -n "$dir" ] || { echo "make run: could not make a new folder in runs/" >&2; return 1; }

  # the nightly's `--algo all`: every schedule of --list; nccl (native) has no schedule to price
  algos=$("$B/arbench" --list | awk 'NR > 1 && /^[^ ]/ && $NF !~ /(^|,)native(,|$)/ { printf "%s%s", s, $1; s = "," }')
  [ -n "$algos" ] || { echo "make run: $B/arbench --list gave no algorithms" >&2; return 1; }
  # the nightly's clean, straggler-8ms and degraded-2x scenarios (configs/nightly.conf)
  local names=(clean straggler-8ms degraded-2x)
  local extra=("-f 2" "-f 4 --straggler 1:8ms" "-f 4 --degrade 1:2.0")
  local cmds=()
  for i in 0 1 2; do
    # shellcheck disable=SC2206 # the extra words split on purpose
    local cmd=("$B/arbench" model --algo "$algos" --ranks 8 -b 1K -e 8G ${extra[$i]} --csv "$dir/.${names[$i]}.csv")
    cmds+=("${cmd[*]}")
    { echo "# scenario ${names[$i]}: ${cmd[*]}"; "${cmd[@]}"; echo; } >>"$dir/model.txt" 2>&1 ||
      { echo "make run: arbench model failed (${names[$i]}; see $dir/model.txt)" >&2; return 1; }
  done
  # shown: the commands as a reader would retype them (each scenario's CSV by its name)
  shown() { sed "s#--csv $dir/\.\([a-z0-9-]*\)\.csv#--csv \1.csv#"; }
  # one results.csv: the run id is the folder's, each row says its scenario
  csv=$dir/results.csv
  awk -v id="$(basename "$dir")" -v names="${names[*]}" '
    BEGIN { split(names, nm, " ") }
    FNR == 1 { k++; if (k == 1) print $0 ",scenario"; next }
    /^[ \t\r]*$/ { next }
    { sub(/\r$/, ""); sub(/^[^,]*/, id); print $0 "," nm[k] }' \
    "$dir/.clean.csv" "$dir/.straggler-8ms.csv" "$dir/.degraded-2x.csv" >"$csv" || return 1
  rm -f "$dir"/.*.csv
  n=$(($(wc -l <"$csv") - 1))

  local params links
  # the model's first line: the link figures and where they come from (not a measurement)
  links=$("$B/arbench" model --algo ring --ranks 8 --bytes 1K | sed -n '1s/^# links: //p')
  params=$("$B/arbench" model --algo ring --ranks 8 --bytes 1K | grep -E '^(topology|alpha_us|bw_GBps|gamma|hop)' | paste -sd ';' | sed 's/;/; /g')
  {
    echo "command: configs/run-main.sh (make run) with no GPU: model mode"
    echo "mode: model (no GPU found: nothing measured; every row source=model, priced by arbench model)"
    echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $host"
    echo "git_revision: $(git rev-parse HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- 2>/dev/null || echo ' (modified)')"
    echo "modelled node: 8 GPUs, one rank each, on a full switch (arbench model's defaults: $params)"
    echo "links: $links"
    echo "algorithms: $algos (nccl left out: ncclAllReduce has no schedule for the model to price)"
    echo "scenarios: as configs/nightly.conf: clean 1 KiB..8 GiB every 2x; straggler-8ms (rank 1 8 ms late) and degraded-2x (rank 1's links 2x slower) every 4x"
    for i in 0 1 2; do echo "model_command ${names[$i]}: ${cmds[$i]}"; done
  } | shown >"$dir/meta.txt"
  {
    echo "# make run with no GPU (configs/run-main.sh): model mode; the rows of each scenario come from"
    for i in 0 1 2; do echo "${cmds[$i]}"; done
    echo "plots/plot.sh $dir"
    echo "plots/summary.sh $dir"
  } | shown >"$dir/COMMAND"

  local pout sout npic
  pout=$(bash plots/plot.sh "$dir" 2>&1)
  printf '%s\n' "$pout" | grep -E 'not installed|install it|failed' >&2
  sout=$(bash plots/summary.sh "$dir" 2>&1) || { printf '%s\n' "$sout" >&2; return 1; }
  npic=$(ls "$dir"/plots/*.png 2>/dev/null | wc -l)
  echo "make run: wrote $dir/"
  echo "  results.csv  $n rows, source=model: $(echo "$algos" | tr ',' '\n' | wc -l) algorithms (nccl left out: the model cannot price it)"
  echo "               on a modelled 8-GPU node, 1 KiB..8 GiB, scenarios clean, straggler-8ms, degraded-2x;"
  echo "               links: $links"
  echo "  summary.md   best algorithm per size and scenario (the model's, not measurements)"
  echo "  report.html  the same tables and every picture on one page (open it in a browser)"
  echo "  plots/       $npic pictures (PNG and SVG): per scenario the best schedule first (no nccl beside it: nccl is left out),"
  echo "               then algbw and time (or time after arrival) by family"
  echo "  meta.txt, COMMAND, model.txt  the model's parameters and the commands that made the rows"
  echo "make run: on a GPU machine, \`make run\` measures (the nightly on 2+ GPUs; a 4-rank smoke run on 1 GPU)" \
       "and \`make gputest\` checks every algorithm on the GPUs"
}

ngpu=$(gpu_count)
if [ "$ngpu" -eq 0 ]; then
  model_mode "$@"
  exit
fi
job=(--config configs/nightly.conf)
if [ "$ngpu" -eq 1 ]; then
  gname=$(nvidia-smi -L 2>/dev/null | grep -m 1 '^GPU ' | sed 's/^GPU [0-9]*: *//; s/ *(UUID.*//')
  echo "make run: 1 GPU found (${gname:-GPU 0}): a smoke run (configs/quick.conf) with 4 ranks placed on GPU 0;" \
       "such timings measure one GPU's memory system, not NVLink" >&2
  expect 4 1 "$@"
  job=(--config configs/quick.conf --ranks 4)
else
  expect "$ngpu" "$ngpu" "$@"
fi
case " $* " in
*" --baseline "* | *" --baseline="* | *" --dry-run "*) ;;
*)
  if last=$(pick_baseline); then
    echo "make run: comparing with $last (--baseline)" >&2
    job+=(--baseline "$last")
  fi
  ;;
esac
exec "$B/arbench" run "${job[@]}" "$@"
