#!/usr/bin/env bash
# On the GPU machine: `make compare-nccl-tests` (arbench beside nccl-tests: -R 0/1/2 without and
# with -G, -N cycles as samples; host, events and graph timing; compare.md) on every GPU here,
# then real nccl-tests output for tests/fixtures/nccl-tests (-N cycles with and without -G, JSON,
# -c 0, a run cut off by a kill), each fixture read by tools/nccl_tests_log.awk (fixtures/read.txt:
# its ranks, GPU and dtype, or why not). On one GPU only the fixtures (an AllReduce of one rank:
# the mechanics of -N and -G, no comparison: arbench needs 2 ranks, NCCL one GPU per rank).
# Carried: build/ (the arbench built on the CPU machine: make -o keeps it) and .carry/nccl-tests
# (the source tree). Everything lands under $OUT. SIZES, ARB_ALGOS and SAMPLES are passed on
# (defaults here: 1 KiB to 1 GiB, ten algorithms, 10 samples: about 7 minutes on 4 x H200).
set -u
deadline=${DEADLINE:-580}
out=${OUT:-/tmp/nccl_tests_compare}
. tools/device/lib.sh
mkdir -p "$out/fixtures"
export NCCL_NVLS_ENABLE=0
{ nvidia-smi -L; nvidia-smi topo -m; } >"$out/gpu.txt" 2>&1; head -3 "$out/gpu.txt"
n=$(nvidia-smi -L | grep -c '^GPU')
NT=.carry/nccl-tests
P=$NT/build/all_reduce_perf
if [ "$n" -ge 2 ]; then
  make -o build/arbench compare-nccl-tests NCCL_TESTS=$NT GPUS="$n" OUT="$out/compare" DEADLINE=$((deadline - 80)) \
    SIZES="${SIZES:--b 1K -e 1G -f 2}" SAMPLES="${SAMPLES:-10}" \
    ARB_ALGOS="${ARB_ALGOS:-nccl,oneshot,direct,rd,ring,async-ring,swing-lat,swing-bw,rhd,optcc}"
  echo "compare-nccl-tests: exit $?"
else
  build_nccl_tests $NT "$out/fixtures/build.log" || { tail "$out/fixtures/build.log"; exit 1; }
fi
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
here=$PWD
cd "$out/fixtures" || exit 1
k=$([ "$n" -ge 2 ] && echo 2 || echo 1)
fx t$k-cycles 60 -t $k -g 1 -b 1K -e 1M -f 4 -N 3 -R 0
fx t$k-cycles-graph 60 -t $k -g 1 -b 1K -e 1M -f 4 -N 3 -G 1 -R 2
fx t$k-cycles-registered 60 -t $k -g 1 -b 1K -e 1M -f 4 -N 3 -R 1
if [ "$n" -ge 2 ]; then
  fx g2-json 30 -g 2 -b 1K -e 1M -f 4 -J g2.json
  fx t2-graph 30 -t 2 -g 1 -b 1K -e 1M -f 4 -G 1 -R 2 -J t2-graph.json
  fx g2-nocheck 30 -g 2 -b 1K -e 64K -f 4 -c 0
  fx g2-cut 4 -g 2 -b 1K -e 8G -f 2 -n 200 -J g2-cut.json
fi
for f in t$k-cycles*.log; do
  echo "$f: $(cd "$here" && awk -f plots/csv.awk -f plots/stats.awk -f tools/nccl_tests_log.awk \
    -f tools/compare_nccl_tests.awk -v describe=logs -v logs="$f" "$out/fixtures/$f" 2>&1)"
done | tee read.txt
cd "$here" || exit 1
if [ "$n" -ge 2 ] && [ "$(left)" -gt 140 ]; then
  # host and graph timing with both ranks on GPU 0 (co-located), every algorithm, checked
  for m in host graph; do
    timeout -k 5 60 build/arbench run --gpus 0,0 --algo all --transport ce,sm,ll --sizes 4K,1M,64M -n 20 -w 1 \
      -T 20 --set timing.mode=$m --out "$out/colocated-$m" >"$out/colocated-$m.log" 2>&1
    echo "colocated $m: exit $?, $(awk -F, 'NR > 1 { s[$31]++; w += $30 } END { for (k in s) printf "%s %d, ", k, s[k]; printf "wrong %d", w }' "$out/colocated-$m/results.csv")"
  done
fi
# one archive: the output's file count is limited (the pictures are made on the CPU machine)
(cd "$out" && tar czf /tmp/nccl_tests_compare.tgz --exclude=plots --exclude=report.html . &&
  rm -rf ./* && mv /tmp/nccl_tests_compare.tgz .)
