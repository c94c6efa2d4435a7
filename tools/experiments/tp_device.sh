#!/usr/bin/env bash
# The transports' GPU checks in one go (run on a GPU machine, build done beforehand with
# `bash tests/gpu/build_tp_check.sh build-tp`): copy-engine and reduce bandwidth, correctness of
# every algorithm on ce and sm (several sizes, odd ones included, three dtypes, pipelines,
# both flag implementations, 2, 3 and all GPUs), and timings. Logs go to $OUT (default
# tp_out); each step has its own time limit so one hang does not take the rest with it.
#   B=build-tp OUT=/tmp/x bash tools/experiments/tp_device.sh [quick]
# quick: the ce checks and timings only (about 4 minutes when all is well).
set -u
export NCCL_NVLS_ENABLE=0
B=${B:-build-tp}
OUT=${OUT:-tp_out}
mkdir -p "$OUT"
T="$B/tp_check"
SMALL=1K,12345e,1M,1000003e,16M
BIG=ring,async-ring,rd,rhd,direct,stragglar,swing-bw,x-pair
step() { # step LOG LIMIT_S ARGS...: runs tp_check with a limit, appends to LOG
  local log=$1 lim=$2
  shift 2
  echo "### $*" >>"$OUT/$log"
  local t0=$SECONDS
  timeout -k 5 "$lim" "$T" "$@" >>"$OUT/$log" 2>&1
  echo "### exit $? after $((SECONDS - t0)) s" >>"$OUT/$log"
}
{
  date -u
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv
  nvidia-smi topo -m
} >"$OUT/bw.log" 2>&1

step ce.log 150 gpu --transport ce --algos all --sizes $SMALL --dtypes f32 --pipelines 1,0,3 --timeout 20
export AR_DEBUG=info # the chosen mini-batches and grids go to the logs
step time.log 60 time --transport ce --algos ring,async-ring --sizes 1G --pipelines 1,2,4,8,0 --iters 20
step time.log 60 time --transport ce --algos ring,direct,rd,rhd --sizes 1K,1M,16M,256M --pipelines 0 --iters 20
unset AR_DEBUG
step large.log 90 gpu --transport ce --algos $BIG --sizes 1G --dtypes f32 --pipelines 0 --iters 2 --timeout 40
step ce.log 60 gpu --transport ce --algos ring,rd,rhd,direct,stragglar,x-pair,x-precond --sizes 1K,1000003e,16M --dtypes bf16,fp16 --pipelines 2 --timeout 20
AR_FLAGS=kernel step kflags.log 60 gpu --transport ce --algos ring,rd,direct,x-pair,x-precond,stragglar --sizes 1K,1000003e --dtypes f32 --pipelines 1,3 --timeout 20
AR_FLAGS=kernel step kflags.log 30 time --transport ce --algos ring --sizes 1K,1G --pipelines 0 --iters 20
step ranks.log 60 gpu --transport ce --ranks 3 --algos all --sizes 1K,1000003e --dtypes f32 --pipelines 3 --timeout 20
[ "${1:-}" = quick ] && exit 0
step bw.log 40 reduce
step bw.log 60 bw
step sm.log 100 gpu --transport sm --algos all --sizes $SMALL --dtypes f32,bf16,fp16 --timeout 20
step time.log 60 time --transport sm --algos ring,direct,rd,rhd --sizes 1K,64K,1M,16M,256M --iters 20
step large.log 60 gpu --transport sm --algos ring,rd,direct,x-pair --sizes 1G --dtypes f32 --iters 2 --timeout 40
step ranks.log 40 gpu --transport sm --ranks 3 --algos all --sizes 1K,1000003e --dtypes f32 --timeout 20
grep -h -E '^(FAIL|HANG|STALL|WRONG)|passed, .* failed|^### exit' "$OUT"/*.log >"$OUT/summary.txt"
