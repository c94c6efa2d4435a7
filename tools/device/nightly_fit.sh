#!/usr/bin/env bash
# The nightly (`make run`: configs/run-main.sh, configs/nightly.conf) on the GPUs here, every
# stdout line stamped with the time it came (bash's EPOCHREALTIME), so that each row's and each
# scenario's wall time can be read back (tools/device/nightly_times.awk) and set beside
# `arbench run --config configs/nightly.conf --dry-run`. Run from a checkout with build/arbench.
#   OUT=$OUT DEADLINE=560 bash tools/device/nightly_fit.sh [extra arbench run words]
set -u
out=${OUT:-/tmp/nightly_fit}; mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 AR_PROGRESS=1
{ nvidia-smi -L; nvidia-smi topo -m; } >"$out/gpu.txt" 2>&1
head -4 "$out/gpu.txt"
build/arbench run --config configs/nightly.conf --dry-run "$@" >"$out/dryrun.txt" 2>&1
tail -1 "$out/dryrun.txt"
t0=$EPOCHREALTIME
echo "start $t0" >"$out/stamped.txt"
timeout -k 10 "${DEADLINE:-560}" env B=build bash configs/run-main.sh --out "$out/run" "$@" 2>"$out/stderr.txt" |
  while IFS= read -r line; do printf '%s %s\n' "$EPOCHREALTIME" "$line"; done >>"$out/stamped.txt"
rc=${PIPESTATUS[0]}
echo "end $EPOCHREALTIME rc $rc" >>"$out/stamped.txt"
echo "exit $rc after $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s"
grep -c ',ok,' "$out/run/results.csv" 2>/dev/null | sed 's/$/ ok rows/'
awk -F, 'NR > 1 { n[$31]++ } END { for (s in n) printf "%s %d; ", s, n[s]; print "" }' "$out/run/results.csv" 2>/dev/null
tail -3 "$out/stderr.txt"
# the report and pictures `make run` made (listed; the pictures travel in their own tarball)
(cd "$out/run" 2>/dev/null && ls -la report.html summary.md 2>&1; find . -name '*.png' | sort) >"$out/made.txt"
echo "$(grep -c '\.png$' "$out/made.txt") pictures; $(grep -c 'report.html$' "$out/made.txt") report"
(cd "$out" && tar czf pictures.tgz $(cd "$out" && find run -name '*.png') 2>/dev/null
 tar czf nightly_fit.tgz --exclude='*.png' --exclude='*.svg' \
   gpu.txt dryrun.txt stamped.txt stderr.txt made.txt run && rm -rf run stamped.txt stderr.txt)
