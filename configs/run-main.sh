#!/usr/bin/env bash
# `make run`: the nightly job on the GPUs present, or model mode with a note when there are none.
set -u
cd "$(dirname "$0")/.."
B=${B:-build}
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  exec "$B/arbench" run --config configs/nightly.conf "$@"
fi
echo "make run: no GPU here; showing model mode instead (arbench model; see README)" >&2
for a in ring rhd stragglar direct; do
  "$B/arbench" model --algo "$a" --ranks 8 --bytes 1G --straggler 7:8ms || true
done
