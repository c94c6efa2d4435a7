#!/usr/bin/env bash
# Issue 37 on the GPU machine: `make compare-nccl-tests` (arbench beside nccl-tests' four modes,
# host, events and graph timing, compare.md) on every GPU here, then real nccl-tests output for
# tests/fixtures/nccl-tests (JSON, -G, -c 0, a run cut off by a kill). Carried: build/ (the
# arbench built on the CPU machine: make -o keeps it) and .carry/nccl-tests (the source tree).
# Everything lands under $OUT.
set -u
deadline=${DEADLINE:-580}
out=${OUT:-/tmp/nccl_tests_compare}
mkdir -p "$out/fixtures"
export NCCL_NVLS_ENABLE=0
{ nvidia-smi -L; nvidia-smi topo -m; } >"$out/gpu.txt" 2>&1; head -3 "$out/gpu.txt"
n=$(nvidia-smi -L | grep -c '^GPU')
NT=.carry/nccl-tests
make -o build/arbench compare-nccl-tests NCCL_TESTS=$NT GPUS="$n" OUT="$out/compare" DEADLINE=$((deadline - 70))
P=$NT/build/all_reduce_perf
[ -x "$P" ] || exit 1
# fx NAME TIMEOUT ARGS...: one all_reduce_perf run into fixtures/NAME.log, its command first,
# in an environment of PATH, LD_LIBRARY_PATH and NCCL_NVLS_ENABLE only (-J records every
# variable it sees)
fx() {
  local name=$1 t=$2; shift 2
  { echo "# command: NCCL_NVLS_ENABLE=0 all_reduce_perf $*"
    env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}" NCCL_NVLS_ENABLE=0 \
      timeout -s KILL "$t" stdbuf -oL "$P" "$@"; } >"$name.log" 2>&1
  echo "  fixture $name: exit $?"
}
P=$PWD/$P
cd "$out/fixtures" || exit 1
fx g2-json 30 -g 2 -b 1K -e 1M -f 4 -J g2.json
fx t2-graph 30 -t 2 -g 1 -b 1K -e 1M -f 4 -G 1 -R 2 -J t2-graph.json
fx g2-nocheck 30 -g 2 -b 1K -e 64K -f 4 -c 0
fx g2-cut 4 -g 2 -b 1K -e 8G -f 2 -n 200 -J g2-cut.json
cd "$OLDPWD" || exit 1
# host and graph timing with both ranks on GPU 0 (co-located), every algorithm, checked
for m in host graph; do
  timeout -k 5 60 build/arbench run --gpus 0,0 --algo all --transport ce,sm,ll --sizes 4K,1M,64M -n 20 -w 1 \
    -T 20 --set timing.mode=$m --out "$out/colocated-$m" >"$out/colocated-$m.log" 2>&1
  echo "colocated $m: exit $?, $(awk -F, 'NR > 1 { s[$31]++; w += $30 } END { for (k in s) printf "%s %d, ", k, s[k]; printf "wrong %d", w }' "$out/colocated-$m/results.csv")"
done
# one archive: the output's file count is limited (the pictures are made on the CPU machine)
(cd "$out" && tar czf /tmp/nccl_tests_compare.tgz --exclude=plots --exclude=report.html . &&
  rm -rf ./* && mv /tmp/nccl_tests_compare.tgz .)
