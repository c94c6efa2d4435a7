#!/usr/bin/env bash
# `make run`: the nightly job on the GPUs present (configs/nightly.conf, compared with the
# latest earlier run folder in runs/ unless --baseline is given), or model mode with a note
# when there are none. Extra arguments go to `arbench run` (e.g. --dry-run, --scenario clean).
set -u
cd "$(dirname "$0")/.."
B=${B:-build}
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  case " $* " in
  *" --baseline "* | *" --baseline="* | *" --dry-run "*) ;;
  *)
    last=$(ls -1d runs/*/ 2>/dev/null | grep -v '^runs/reference/' | sort | tail -n 1)
    last=${last%/}
    if [ -n "$last" ] && [ -s "$last/results.csv" ]; then
      echo "make run: comparing with $last (--baseline)" >&2
      set -- --baseline "$last" "$@"
    fi
    ;;
  esac
  exec "$B/arbench" run --config configs/nightly.conf "$@"
fi
echo "make run: no GPU here; showing model mode instead (arbench model; see README)" >&2
for a in ring rhd stragglar direct; do
  "$B/arbench" model --algo "$a" --ranks 8 --bytes 1G --straggler 7:8ms || true
done
