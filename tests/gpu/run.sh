#!/usr/bin/env bash
# `make gputest`: the GPU correctness sweep. Every algorithm x transport on 2, 3 and 4 GPUs
# (as many as exist) at 1K, an odd size (1000003 bytes, rounded down to the element size), 1M,
# 64M and 1G, plus bf16 and fp16 at small sizes, and a straggler run. A row passes when its
# status is ok (its check counted no wrong element); n/a and oom rows are listed, not counted;
# error and timeout rows, and a run that dies, fail. Ends with "N passed, N failed".
# Env: B (build dir, default build), GPUTEST_OUT (where run folders go; default a temp dir),
# GPUTEST_SIZES, GPUTEST_ITERS, GPUTEST_TIMEOUT (-T), GPUTEST_TRANSPORTS.
set -u
cd "$(dirname "$0")/../.."
A=${B:-build}/arbench
export NCCL_NVLS_ENABLE=0
out=${GPUTEST_OUT:-$(mktemp -d)}
mkdir -p "$out"
sizes=${GPUTEST_SIZES:-1K,1000003,1M,64M,1G}
iters=${GPUTEST_ITERS:-3}
limit=${GPUTEST_TIMEOUT:-30} # -T: seconds per size and algorithm before the watchdog fires
pass=0 fail=0 skipped=0

ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
if [ "$ngpu" -lt 2 ]; then
  echo "gputest: needs at least 2 GPUs (found $ngpu)"
  echo "0 passed, 1 failed"
  exit 1
fi

# sweep NAME ARGS...: runs arbench into $out/NAME and scores its results.csv
sweep() {
  local name=$1; shift
  local dir=$out/$name
  echo "== $name: arbench run $* -n $iters -w 1"
  "$A" run "$@" -n "$iters" -w 1 -T "$limit" --out "$dir" >"$dir.log" 2>&1
  local rc=$?
  local csv=$dir/results.csv
  if [ ! -s "$csv" ]; then
    echo "FAIL $name: no results.csv (exit $rc)"; tail -5 "$dir.log"; fail=$((fail + 1)); return
  fi
  # status is the last column; algorithm, transport, bytes are columns 10, 11, 14
  local p f s
  read -r p f s < <(awk -F, -v name="$name" '
    NR == 1 { next }
    $NF == "ok" { p++; next }
    $NF == "n/a" || $NF == "oom" { s++; skip[$10 "/" $11 " (" $NF ")"] = 1; next }
    { f++; printf "FAIL %s: %s/%s %s bytes: %s (wrong %s)\n", name, $10, $11, $14, $NF, $(NF-1) > "/dev/stderr" }
    END { for (k in skip) printf "  not run: %s\n", k > "/dev/stderr"; print p + 0, f + 0, s + 0 }' "$csv")
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    echo "FAIL $name: exit $rc with no failed row"; tail -5 "$dir.log"; f=1
  fi
  echo "   $p ok, $f failed, $s n/a or oom"
  pass=$((pass + p)); fail=$((fail + f)); skipped=$((skipped + s))
}

# one process per transport, so a hang (the watchdog ends the process) costs only that
# transport's remaining rows; nccl itself runs once, with the first
transports=${GPUTEST_TRANSPORTS:-nccl-p2p ce sm}
schedules=$("$A" --list | awk 'NR > 1 && $1 != "nccl" { printf "%s%s", sep, $1; sep = "," }')
for n in 2 3 4; do
  [ "$n" -le "$ngpu" ] || continue
  gpus=$(seq -s, 0 $((n - 1)))
  algos=nccl,$schedules
  for t in $transports; do
    sweep "n${n}_float32_$t" --gpus "$gpus" --algo "$algos" --transport "$t" --sizes "$sizes"
    algos=$schedules
  done
done
n=$(( ngpu < 4 ? ngpu : 4 )); gpus=$(seq -s, 0 $((n - 1)))
for dt in bf16 fp16; do
  algos=nccl,$schedules
  for t in $transports; do
    sweep "n${n}_${dt}_$t" --gpus "$gpus" --algo "$algos" --transport "$t" --dtype "$dt" \
      --sizes 1K,1000003,1M
    algos=$schedules
  done
done
sweep "n${n}_straggler" --gpus "$gpus" --algo nccl,ring,bcast,stragglar --transport nccl-p2p \
  --sizes 1M --straggler $((n - 1)):1ms
# the straggler's delay is inside the measured time: time >= delay, after-arrival = time - delay
if [ -s "$out/n${n}_straggler/results.csv" ]; then
  if awk -F, 'function abs(x) { return x < 0 ? -x : x }
              NR > 1 && $NF == "ok" && ($21 < 1000 || $16 != 1000 || abs($21 - $16 - $26) > 0.01) {
                bad = 1; print "FAIL straggler row: " $0 > "/dev/stderr" }
              END { exit bad }' "$out/n${n}_straggler/results.csv"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
  fi
fi
echo "run folders: $out ($skipped rows n/a or oom)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
