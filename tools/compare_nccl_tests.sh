#!/usr/bin/env bash
# make compare-nccl-tests [NCCL_TESTS=DIR] [GPUS=N] [OUT=DIR]: arbench beside NVIDIA's
# nccl-tests on the same GPUs, each in its own methods, in one call:
#   1. all_reduce_perf built from the nccl-tests source tree DIR (only that binary), or the one
#      on PATH without NCCL_TESTS;
#   2. its four usual modes, float sum, -b 1K -e 8G -f 2 (its -n 20 -w 1): -R 0 and -R 2, each
#      as `-g N` (one thread drives every GPU) and `-t N -g 1` (a thread per GPU, as arbench's
#      ranks); every log in OUT/nccl-tests/, its command on its first line;
#   3. arbench on the same sizes and iterations, every algorithm (ARB_ALGOS) on every transport
#      with its mini-batches chosen per size (--pipeline 0, as the nightly), in host,
#      events and graph timing (three scenarios of one run; OUT is its run folder);
#   4. the logs imported (arbench import nccl-tests) into OUT/nccl-tests/imported;
#   5. OUT/compare.md: per size and timing method, arbench's best against nccl-tests' best of
#      the four modes (tools/compare_nccl_tests.awk), also a section of OUT/report.html.
# Environment: A (the arbench binary, default build/arbench), NCCL_HOME (default /usr where
# /usr/include/nccl.h is, else CUDA's), CUDA_HOME (/usr/local/cuda), NVCC_GENCODE (default
# sm_90), SIZES (-b 1K -e 8G -f 2), ARB_ITERS (-n 20 -w 1), ARB_ALGOS (all: arbench's --algo, a
# shorter list where the call has little time), DEADLINE (seconds for the whole
# command: arbench's run gets what is left, its rows so far kept if it runs out).
set -u
cd "$(dirname "$0")/.."
A=${A:-build/arbench}
gpus=${GPUS:-2}
out=${OUT:-runs/compare-nccl-tests-$(date -u +%Y%m%d-%H%M%S)}
sizes=${SIZES:--b 1K -e 8G -f 2}
iters=${ARB_ITERS:--n 20 -w 1}
algos=${ARB_ALGOS:-all}
[ -n "$algos" ] || algos=all
deadline=${DEADLINE:-3600}
export NCCL_NVLS_ENABLE=0 # NVLink multicast can take a shared host's GPUs down
[ -x "$A" ] || { echo "compare-nccl-tests: no $A (make first)" >&2; exit 2; }
case "$gpus" in ''|*[!0-9]*|0|1) echo "compare-nccl-tests: GPUS: bad value '$gpus': 2 or more GPUs" >&2; exit 2 ;; esac
if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
  echo "compare-nccl-tests: OUT: bad value '$out': the folder is not empty" >&2
  exit 2
fi
mkdir -p "$out/nccl-tests" || exit 1
logs=$out/nccl-tests
t0=$SECONDS

# ---- 1. all_reduce_perf ----
if [ -n "${NCCL_TESTS:-}" ]; then
  [ -f "$NCCL_TESTS/src/all_reduce.cu" ] ||
    { echo "compare-nccl-tests: NCCL_TESTS: bad value '$NCCL_TESTS': no nccl-tests source tree (src/all_reduce.cu)" >&2; exit 2; }
  nh=${NCCL_HOME:-$([ -e /usr/include/nccl.h ] && echo /usr || echo "${CUDA_HOME:-/usr/local/cuda}")}
  bd=$(cd "$NCCL_TESTS" && pwd)/build
  make -C "$NCCL_TESTS/src" MPI=0 BUILDDIR="$bd" CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}" NCCL_HOME="$nh" \
    NVCC_GENCODE="${NVCC_GENCODE:--gencode=arch=compute_90,code=sm_90}" -j"$(nproc)" os.build "$bd/all_reduce_perf" \
    >"$logs/build.log" 2>&1 || { tail -n 20 "$logs/build.log"; echo "compare-nccl-tests: nccl-tests did not build ($logs/build.log)" >&2; exit 1; }
  P=$bd/all_reduce_perf
else
  P=$(command -v all_reduce_perf) ||
    { echo "compare-nccl-tests: no all_reduce_perf on PATH (NCCL_TESTS=DIR builds it from its source)" >&2; exit 2; }
fi
echo "compare-nccl-tests: $P, $gpus GPUs, into $out ($((SECONDS - t0)) s)"

# ---- 2. nccl-tests' four modes ----
for R in 0 2; do
  for mode in "-g $gpus" "-t $gpus -g 1"; do
    name=all_reduce_perf_$(echo "$mode -R $R" | tr -d ' -')
    args="$mode $sizes -d float -o sum -R $R"
    { echo "# command: NCCL_NVLS_ENABLE=0 all_reduce_perf $args"; timeout -k 5 300 "$P" $args; } >"$logs/$name.log" 2>&1
    echo "  all_reduce_perf $args: exit $? ($((SECONDS - t0)) s)"
  done
done

# ---- 3. arbench: host, events and graph timing ----
conf=$(mktemp)
cat >"$conf" <<EOF
# written by tools/compare_nccl_tests.sh: every algorithm on every transport, nccl-tests' sizes
--gpus $(seq -s, 0 $((gpus - 1))) --algo $algos --transport all --pipeline 0 $sizes $iters -T 30
[scenario host]
--set timing.mode=host --set timing.host_batches=1
[scenario events]
[scenario graph]
--set timing.mode=graph --set timing.host_batches=1
EOF
left=$((deadline - (SECONDS - t0) - 15))
[ "$left" -gt 30 ] || left=30
timeout -k 10 "$left" "$A" run --config "$conf" --out "$out" --force >"$logs/arbench.log" 2>&1
echo "  arbench run: exit $? ($((SECONDS - t0)) s, at most $left s)"
rm -f "$conf"

# ---- 4, 5. import and compare ----
"$A" import nccl-tests "$logs"/all_reduce_perf_*.log --out "$logs/imported" >"$logs/import.log" 2>&1 ||
  cat "$logs/import.log"
awk -f plots/csv.awk -f tools/compare_nccl_tests.awk -v gpus="$gpus" "$out/results.csv" "$logs/imported/results.csv" >"$out/compare.md"
echo "compare-nccl-tests: $out/compare.md ($((SECONDS - t0)) s)"
# the run's report.html, written when arbench's run ended, now with compare.md in it
[ -s "$out/summary.md" ] && bash plots/report.sh "$out" >/dev/null
sed -n '/^- /p' "$out/compare.md"
