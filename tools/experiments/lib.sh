# Shared by the device scripts in tests/gpu (flow, tune, next, pipeline, reference): source it
# first. From the repository root, with NVLink multicast off (KINDS.md); A = the binary under
# test (B = its build dir), O = where outputs go ($OUT), W = a scratch folder, T0 = the start.
set -u
cd "$(dirname "$0")/../.."
export NCCL_NVLS_ENABLE=0
A=${B:-build}/arbench
O=${OUT:-$(mktemp -d)}
W=$(mktemp -d)
T0=$(date +%s)
g=(--gpus "${GPUS:-0,1,2,3}")
i=0

# row LOG LIMIT LABEL ARGS...: one `arbench run` (killed after LIMIT s) into $W/r<i>; appends the
# label and one line per row (algorithm, transport, pipeline, bytes, median, after arrival,
# wrong, status) to LOG and stdout
row() {
  local log=$1 lim=$2 label=$3; shift 3
  i=$((i + 1))
  timeout -s KILL "$lim" "$A" run "${g[@]}" "$@" -T 60 --out "$W/r$i" >"$W/r$i.log" 2>&1
  echo "== $label (rc=$?): $*" | tee -a "$log"
  awk -F, 'NR > 1 { printf "  %-11s %-8s p=%-3s %11s B  %10s us  after %10s  wrong %s %s\n", $10, $11, $12, $14, $21, $26, $30, $31 }' \
    "$W/r$i/results.csv" 2>/dev/null | tee -a "$log"
}

# step NAME LIMIT CMD...: runs CMD with at most LIMIT seconds, never past DEADLINE (default 300
# s after T0); its command line and output go to $W/NAME.COMMAND and $W/NAME.log
step() {
  local name=$1 lim=$2 left=$(( ${DEADLINE:-300} - ($(date +%s) - T0) - 10 ))
  shift 2
  if [ "$left" -lt 20 ]; then echo "-- $name: skipped (out of time)"; return; fi
  [ "$lim" -gt "$left" ] && lim=$left
  echo "$*" > "$W/$name.COMMAND"
  local t=$(date +%s)
  timeout -s KILL "$lim" "$@" > "$W/$name.log" 2>&1
  echo "-- $name: exit $? in $(( $(date +%s) - t )) s"
}

# factors_conf FILE COMMON F...: an `arbench run --config` file: the COMMON flags, then one
# scenario xF (--degrade 3:F, GPU 3 slowed F times) per factor
factors_conf() {
  local file=$1 common=$2 f
  shift 2
  echo "$common" >"$file"
  for f in "$@"; do printf '[scenario x%s]\n--degrade 3:%s\n' "${f%.0}" "$f"; done >>"$file"
}

# show DIR: one line per row of DIR/results.csv (algorithm, transport, bytes, delay, factor,
# pipeline or k, median, after arrival, lower bound, wrong, status), to stdout and $L
show() {
  awk -F, 'NR == 1 { for (k = 1; k <= NF; k++) c[$k] = k; next }
  { printf "  %-12s %-8s %11s delay %8s factor %-4s k %-3s median %10s after %10s lb %10s wrong %s %s\n",
    $c["algorithm"], $c["transport"], $c["bytes"], $c["delay_us"], $c["factor"], $c["pipeline"],
    $c["time_us_median"], $c["time_after_arrival_us"], $c["lower_bound_us"], $c["wrong"], $c["status"] }' \
    "$1/results.csv" 2>/dev/null | tee -a "$L"
}

# tally LABEL DIR: DIR/results.csv's rows, how many wrong, and a count per status, to stdout and $L
tally() {
  awk -F, -v label="$1" 'NR == 1 { for (k = 1; k <= NF; k++) c[$k] = k; next }
  { n++; st[$c["status"]]++; if ($c["wrong"] != "" && $c["wrong"] != 0) bad++ }
  END { printf "  %s: %d rows, %d wrong;", label, n, bad; for (k in st) printf " %s %d", k, st[k]; print "" }' \
    "$2/results.csv" 2>/dev/null | tee -a "$L"
}
