#!/usr/bin/env bash
# `make gputest`: the GPU correctness sweep. A row passes when its status is ok (its check
# counted no wrong element); n/a and oom rows are listed, not counted; error and timeout rows,
# and a run that dies, fail. Ends with "N passed, N failed".
# With 2+ GPUs: every algorithm x transport on 2, 3 and 4 GPUs (as many as exist) at 1K, an odd
# size (1000004 bytes: 250001 float32; bf16 and fp16 at 1000002 bytes, 500001 elements: sizes
# are whole elements), 1M, 64M and 1G, plus bf16 and fp16 at small sizes, and a straggler run.
# With 1 GPU: ranks placed on it (co-located: correctness, not NVLink timings): every algorithm
# x {ce, sm, ll} for n = 2..8 at 1K, 1000004, 1M and 64M (nccl and nccl-p2p as n/a rows: NCCL
# cannot put two ranks on one GPU), swing-mp and bucket on a 2x4 torus, bf16 and fp16 at small
# sizes, a straggler run, degraded runs (optcc and optcc-multi with one and two degraded
# ranks; ce and sm: ll has no emulation), and the deadlock checks: 8 ranks with the largest
# sm grids (1G), with a straggler (sm, ce and ll).
# Env: B (build dir, default build), GPUTEST_OUT (where run folders go; default a temp dir),
# GPUTEST_SIZES, GPUTEST_ITERS, GPUTEST_TIMEOUT (-T), GPUTEST_TRANSPORTS, GPUTEST_NMAX (1 GPU:
# the most ranks, default 8).
set -u
cd "$(dirname "$0")/../.."
A=${B:-build}/arbench
export NCCL_NVLS_ENABLE=0
out=${GPUTEST_OUT:-$(mktemp -d)}
mkdir -p "$out"
iters=${GPUTEST_ITERS:-3}
limit=${GPUTEST_TIMEOUT:-30} # -T: seconds per size and algorithm before the watchdog fires
pass=0 fail=0 skipped=0

ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
if [ "$ngpu" -lt 1 ]; then
  echo "gputest: needs a GPU (found none; make test runs the CPU suites)"
  echo "0 passed, 1 failed"
  exit 1
fi

# csvawk PROGRAM FILE...: runs an awk program with plots/csv.awk's helpers loaded (columns are
# looked up by header name, quoted fields split right: csv_header, csv_split, get)
csvawk() { local prog=$1; shift; awk -f plots/csv.awk -f <(printf '%s\n' "$prog") "$@"; }
# every column the scoring reads, by name: a results.csv without one is a failure, not a guess
need_cols='algorithm transport bytes status wrong delay_us time_us_median time_after_arrival_us'

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
  # every column by its header name (more columns may follow the fixed ones, so none is "the last")
  local p f s
  read -r p f s < <(csvawk '
    FNR == 1 {
      csv_header($0, c); nn = split(need, req, " ")
      for (i = 1; i <= nn; i++) if (!(req[i] in c)) { printf "FAIL %s: results.csv has no column %s\n", name, req[i] > "/dev/stderr"; bad = 1 }
      next
    }
    bad || /^[ \t\r]*$/ { next }
    {
      csv_split($0, x); st = get(x, c, "status", ""); row = get(x, c, "algorithm", "?") "/" get(x, c, "transport", "?")
      if (st == "ok") { p++; next }
      if (st == "n/a" || st == "oom") { s++; skip[row " (" st ")"] = 1; next }
      f++; printf "FAIL %s: %s %s bytes: %s (wrong %s)\n", name, row, get(x, c, "bytes", "?"), st, get(x, c, "wrong", "-") > "/dev/stderr"
    }
    END { for (k in skip) printf "  not run: %s\n", k > "/dev/stderr"; print p + 0, f + bad, s + 0 }' \
    -v name="$name" -v need="$need_cols" "$csv")
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    echo "FAIL $name: exit $rc with no failed row"; tail -5 "$dir.log"; f=1
  fi
  echo "   $p ok, $f failed, $s n/a or oom"
  pass=$((pass + p)); fail=$((fail + f)); skipped=$((skipped + s))
}

# straggler_check DIR: the straggler's delay is inside the measured time: time >= delay,
# after-arrival = time - delay (1 ms delays)
straggler_check() {
  [ -s "$1/results.csv" ] || return 1
  csvawk 'function abs(x) { return x < 0 ? -x : x }
          FNR == 1 { csv_header($0, c); if (!("time_us_median" in c) || !("delay_us" in c) || !("time_after_arrival_us" in c)) bad = 1; next }
          bad || /^[ \t\r]*$/ { next }
          { csv_split($0, x); t = get(x, c, "time_us_median", 0) + 0; d = get(x, c, "delay_us", 0) + 0; a = get(x, c, "time_after_arrival_us", 0) + 0 }
          get(x, c, "status", "") == "ok" && (t < 1000 || d != 1000 || abs(t - d - a) > 0.01) {
            bad = 1; print "FAIL straggler row: " $0 > "/dev/stderr" }
          END { exit bad }' "$1/results.csv"
}
count() { if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); fi; }

# every rank on GPU 0: "0,0,...,0" with n zeros
on_gpu0() { seq -s, 1 "$1" | sed 's/[0-9]*/0/g'; }

# by_transport NAME GPUS ARGS...: one sweep per transport, NAME_<transport> (a hang costs only
# that transport's rows), nccl itself with the first
by_transport() {
  local name=$1 gpus=$2 t algos=nccl,$schedules
  shift 2
  for t in $transports; do
    sweep "${name}_$t" --gpus "$gpus" --algo "$algos" --transport "$t" "$@"
    algos=$schedules
  done
}

multi_gpu() {
  sizes=${GPUTEST_SIZES:-1K,1000004,1M,64M,1G}
  local n gpus dt
  for n in 2 3 4; do
    [ "$n" -le "$ngpu" ] || continue
    by_transport "n${n}_float32" "$(seq -s, 0 $((n - 1)))" --sizes "$sizes"
  done
  n=$((ngpu < 4 ? ngpu : 4)); gpus=$(seq -s, 0 $((n - 1)))
  for dt in bf16 fp16; do
    by_transport "n${n}_${dt}" "$gpus" --dtype "$dt" --sizes 1K,1000002,1M
  done
  sweep "n${n}_straggler" --gpus "$gpus" --algo nccl,ring,bcast,stragglar --transport nccl-p2p \
    --sizes 1M --straggler $((n - 1)):1ms
  count straggler_check "$out/n${n}_straggler"
}

colocated() {
  sizes=${GPUTEST_SIZES:-1K,1000004,1M,64M}
  local nmax=${GPUTEST_NMAX:-8} n g
  echo "gputest: 1 GPU: ranks placed on GPU 0 (co-located: correctness, not NVLink timings)"
  for n in $(seq 2 "$nmax"); do
    by_transport "co${n}_float32" "$(on_gpu0 "$n")" --sizes "$sizes"
  done
  g=$(on_gpu0 8)
  sweep "co8_torus2x4" --gpus "$g" --algo swing-mp,bucket --transport ce,sm --torus 2x4 --sizes "$sizes"
  for n in 4 8; do
    for dt in bf16 fp16; do
      sweep "co${n}_$dt" --gpus "$(on_gpu0 $n)" --algo "$schedules" --transport ce,sm,ll \
        --dtype "$dt" --sizes 1K,1000002,1M
    done
  done
  sweep "co4_straggler" --gpus "$(on_gpu0 4)" --algo nccl,ring,bcast,stragglar \
    --transport ce,sm,ll --sizes 1M --straggler 3:1ms
  count straggler_check "$out/co4_straggler"
  for n in 4 8; do
    sweep "co${n}_degraded1" --gpus "$(on_gpu0 $n)" --algo ring,optcc,optcc-multi,optcc-ring \
      --transport ce,sm --sizes 1M,64M --degrade $((n - 1)):2.0
    sweep "co${n}_degraded2" --gpus "$(on_gpu0 $n)" --algo ring,optcc-multi,optcc-ring \
      --transport ce,sm --sizes 1M,64M --degrade 1:2.0,$((n - 1)):1.5
  done
  # deadlock checks: 8 spinning ranks on one GPU, the sm grids at their largest (1G: a block
  # per 128 KiB, capped at the rank's share), clean and with a straggler; ce's flow program and
  # the ll kernel (its blocks wait on peers' blocks) too
  sweep "co8_deadlock_sm" --gpus "$g" --algo ring,rhd,direct,swing-bw,stragglar --transport sm \
    --sizes 1G
  sweep "co8_deadlock_straggler" --gpus "$g" --algo ring,direct,bcast,stragglar \
    --transport sm,ce,ll --sizes 64M,1G --straggler 7:1ms
}

transports=${GPUTEST_TRANSPORTS:-nccl-p2p ce sm ll}
schedules=$("$A" --list | awk 'NR > 1 && /^[^ ]/ && $1 != "nccl" { printf "%s%s", sep, $1; sep = "," }')
if [ "$ngpu" -ge 2 ]; then multi_gpu; else colocated; fi
echo "run folders: $out ($skipped rows n/a or oom)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
