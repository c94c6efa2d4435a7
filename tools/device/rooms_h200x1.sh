#!/usr/bin/env bash
# One H200, one call: the tree after the rooms and file moves (#47): make gputest, and the
# degrade self-test on co-located ranks with the default flags and with --set flags=kernel
# (the setting reaches the transports as an argument now); logs under $OUT.
set -u
cd "$(dirname "$0")/../.."
export NCCL_NVLS_ENABLE=0
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
GPUTEST_OUT=/tmp/gputest B=build bash tests/gpu/run.sh >"$OUT/gputest.log" 2>&1
stamp "gputest: exit $?, $(tail -n 1 "$OUT/gputest.log")"
for s in "" "--set flags=kernel"; do
  name=selftest${s:+-kernel}
  build/arbench run --gpus 0,0,0,0 --self-test degrade $s >"$OUT/$name.log" 2>&1
  stamp "self-test degrade $s: exit $?; $(grep -c ' pass$' "$OUT/$name.log") pass, $(grep -c ' FAIL$' "$OUT/$name.log") FAIL: $(grep ' FAIL$' "$OUT/$name.log" | awk '{print $1, $2, $3, $7 "%"}' | tr '\n' ';')"
done
