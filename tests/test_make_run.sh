#!/usr/bin/env bash
# configs/run-main.sh (`make run`) by the GPUs it finds, run from a copy of configs/ and plots/
# in a scratch folder (so runs/ is the scratch one) beside stub programs: an nvidia-smi that lists
# N GPUs or fails, and (with GPUs) an arbench that records its arguments instead of running.
#   no GPU  the real build/arbench: a runs/*_model/ folder of source=model rows, meta.txt,
#           COMMAND, summary.md and (with gnuplot) pictures; what it tells the user
#   1 GPU   the smoke run's command line and its one line; the baseline rule (same placement and
#           GPU count, complete) against a runs/ of decoys
#   4 GPUs  the nightly and its baseline; CUDA_VISIBLE_DEVICES=0 makes it the 1-GPU case
. "$(dirname "$0")/lib.sh"
skip=0
check() { local name=$1; shift; if "$@"; then ok; else bad "$name"; fi; }
has() { grep -qE -- "$2" "$1"; }
not() { ! "$@"; }
have_gp=0
command -v gnuplot >/dev/null 2>&1 && have_gp=1
pcheck() { if [ "$have_gp" = 1 ]; then check "$@"; else skip=$((skip + 1)); fi; }
png() { [ -f "$1" ] && [ "$(head -c 4 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e47 ] && [ "$(wc -c <"$1")" -gt 10000 ]; }
real=$(cd "$(dirname "$A")" && pwd)/arbench
repo=$tmp/repo
mkdir -p "$repo" "$tmp/bin0" "$tmp/bin1" "$tmp/bin4" "$tmp/stub"
cp -r configs plots "$repo/"
printf '#!/bin/sh\necho "NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver."\nexit 9\n' >"$tmp/bin0/nvidia-smi"
printf '#!/bin/sh\necho "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)"\n' >"$tmp/bin1/nvidia-smi"
printf '#!/bin/sh\nfor i in 0 1 2 3; do echo "GPU $i: NVIDIA H200 (UUID: GPU-$i)"; done\n' >"$tmp/bin4/nvidia-smi"
printf '#!/bin/sh\nprintf "%%s\\n" "$@" >"%s/args"\n' "$tmp" >"$tmp/stub/arbench"
chmod +x "$tmp"/bin*/nvidia-smi "$tmp/stub/arbench"
# mkrun BIN B ARGS...: runs the script with BIN's nvidia-smi first on PATH and build folder B;
# sets out (stdout and stderr), rc and args (the stub arbench's arguments, one line: "" if none)
mkrun() {
  local bin=$1 b=$2; shift 2
  rm -f "$tmp/args"
  out=$(cd "$repo" && PATH="$tmp/$bin:$PATH" B=$b bash configs/run-main.sh "$@" 2>&1); rc=$?
  args=
  [ -f "$tmp/args" ] && args=$(tr '\n' ' ' <"$tmp/args")
}

# ---- no GPU: model mode writes a run folder ----
mkrun bin0 "$(dirname "$real")"
check "no GPU: exit 0 (got $rc: $out)" [ "$rc" -eq 0 ]
dirs=$(ls -d "$repo"/runs/*_model 2>/dev/null)
check "no GPU: one runs/<UTC time>_<host>_model folder ($dirs)" test "$(printf '%s\n' "$dirs" | grep -cE '/runs/[0-9]{8}T[0-9]{6}Z_[^/]+_model$')" -eq 1
D=$(printf '%s\n' "$dirs" | head -n 1)
check "no GPU: says it is model mode" test -n "$(printf '%s' "$out" | grep 'no GPU here.*model mode')"
check "no GPU: tells where the folder is" test -n "$(printf '%s' "$out" | grep -F "wrote runs/$(basename "$D")/")"
# nccl is left out, and nothing it says sets a modelled row against nccl; the links it priced
# with are named, and said to be no measurement
check "no GPU: never 'against nccl' where nccl was left out ($out)" not test -n "$(printf '%s' "$out" | grep -i 'against nccl')"
check "no GPU: names the links and that they are not measured ($out)" \
  test -n "$(printf '%s' "$out" | grep -F "links: 3 us a round, 450 GB/s a port (the defaults: StragglAR's H100 NVLink, not measured)")"
check "no GPU: tells what to run on a GPU machine" test -n "$(printf '%s' "$out" | grep -F '`make run`' | grep -F '`make gputest`')"
for f in results.csv meta.txt COMMAND summary.md model.txt; do check "no GPU: $f written" test -s "$D/$f"; done
check "no GPU: no scratch CSVs left" test -z "$(ls -A "$D" | grep '^\.')"
R=$D/results.csv
src=$(col "$R" source) alg=$(col "$R" algorithm) byt=$(col "$R" bytes) scn=$(col "$R" scenario) st=$(col "$R" status)
check "no GPU: every row source=model" test "$(tail -n +2 "$R" | cut -d, -f"$src" | sort -u)" = model
check "no GPU: every row ok" test "$(tail -n +2 "$R" | cut -d, -f"$st" | sort -u)" = ok
want=$("$real" --list | awk 'NR > 1 && /^[^ ]/ && $NF !~ /(^|,)native(,|$)/ { print $1 }' | sort | tr '\n' ' ')
# (lower-bound: the model's rows of OPTCC's bound beside the degraded ones)
check "no GPU: the algorithms of --list but nccl" test "$(tail -n +2 "$R" | cut -d, -f"$alg" | grep -vx lower-bound | sort -u | tr '\n' ' ')" = "$want"
check "no GPU: OPTCC's lower bound beside the degraded rows" \
  test "$(awk -F, -v s="$scn" -v a="$alg" '$a == "lower-bound" { print $s }' "$R" | sort | uniq -c | tr -s ' ')" = " 12 degraded-2x"
check "no GPU: nccl left out, and meta.txt says why" has "$D/meta.txt" 'nccl left out'
check "no GPU: clean 1 KiB..8 GiB every 2x (24 sizes)" \
  test "$(awk -F, -v s="$scn" -v b="$byt" '$s == "clean" { print $b }' "$R" | sort -un | tr '\n' ' ')" = "$(awk 'BEGIN { for (e = 10; e <= 33; e++) printf "%.0f ", 2^e }')"
check "no GPU: straggler-8ms and degraded-2x every 4x (12 sizes each)" \
  test "$(awk -F, -v s="$scn" -v b="$byt" '$s == "straggler-8ms" || $s == "degraded-2x" { print $s, $b }' "$R" | sort -u | wc -l)" -eq 24
check "no GPU: the straggler rows are rank 1 at 8 ms" \
  test "$(awk -F, -v s="$scn" -v r="$(col "$R" straggler_rank)" -v d="$(col "$R" delay_us)" '$s == "straggler-8ms" { print $r, $d + 0 }' "$R" | sort -u)" = "1 8000"
check "no GPU: 8 modelled GPUs" test "$(tail -n +2 "$R" | cut -d, -f"$(col "$R" n_gpus)" | sort -u)" = 8
check "no GPU: the run id is the folder's" test "$(tail -n +2 "$R" | cut -d, -f1 | sort -u)" = "$(basename "$D")"
check "no GPU: meta.txt says model mode" has "$D/meta.txt" '^mode: model'
check "no GPU: meta.txt has the model's parameters" has "$D/meta.txt" 'alpha_us: 3; bw_GBps: 450'
check "no GPU: meta.txt says where the links come from" has "$D/meta.txt" '^links: .*not measured'
check "no GPU: COMMAND has the three model commands" test "$(grep -c 'arbench model --algo .* --ranks 8 -b 1K -e 8G' "$D/COMMAND")" -eq 3
S=$D/summary.md
check "no GPU: summary.md says model mode" has "$S" '^- model mode: a modelled node of 8 GPUs'
check "no GPU: summary.md has no nccl comparison" not has "$S" 'vs nccl'
check "no GPU: summary.md clean, straggler and degraded tables" \
  test "$(grep -cE '^## (Clean|Straggler|Degraded link)$' "$S")" -eq 3
check "no GPU: summary.md 8 GiB clean row" has "$S" '^\| clean \| 8 GiB \| [a-z-]+ \|'
check "no GPU: not co-located" not has "$S" 'Co-located'
pcheck "no GPU: the pictures of each scenario" test "$(ls "$D/plots" 2>/dev/null | grep -c '\.png$')" -eq 9 -a \
  "$(cd "$D/plots" 2>/dev/null && ls best_clean.png algbw_clean.png time_clean.png best_straggler-8ms.png algbw_straggler-8ms.png \
     arrival_straggler-8ms.png best_degraded-2x.png algbw_degraded-2x.png time_degraded-2x.png 2>/dev/null | wc -l)" -eq 9
# what they plot, read back from gnuplot and compared with results.csv (tests/plot_tables.sh)
if command -v python3 >/dev/null 2>&1; then
  out=$(bash tests/plot_tables.sh "$D" 2>&1)
  pcheck "no GPU: every picture plots results.csv's rows ($out)" test $? -eq 0 -a -n "$(printf '%s' "$out" | grep '^9 pictures checked$')"
else skip=$((skip + 1)); fi
pcheck "no GPU: summary.md links the pictures" has "$S" '^- \[algbw_clean\]\(plots/algbw_clean\.png\)'
pcheck "no GPU: curves the model prices alike are one line (optcc = optcc-multi = optcc-ring = optcc-servers)" \
  grep -q '>optcc = optcc-multi = optcc-ring =\\noptcc-servers<' "$D/plots/algbw_clean.svg"
pcheck "no GPU: the header says modelled node" grep -q 'modelled node of 8 GPUs' "$D/plots/algbw_clean.svg"
mkrun bin0 "$(dirname "$real")" --scenario clean
check "no GPU: a second run, a new folder" test "$(ls -d "$repo"/runs/*_model | wc -l)" -eq 2
check "no GPU: the arguments for arbench run are said to be unused" test -n "$(printf '%s' "$out" | grep -F "'--scenario clean'" | grep 'not used')"

# ---- decoy run folders for the baseline rule (newest first) ----
r=$repo/runs
rm -rf "$r" && mkdir -p "$r"
# mk NAME FIXTURE [nosum]: runs/NAME from a fixture, with a summary.md unless nosum
mk() { cp -r "tests/fixtures/$2" "$r/$1"; [ "${3:-}" = nosum ] || echo '# summary' >"$r/$1/summary.md"; }
mk 20261120T000000Z_gpu colocated                      # 4 ranks/GPU on 1 GPU: the one to pick
mk 20261121T000000Z_gpu nightly                        # 1 rank/GPU on 4 GPUs (no placement column)
mk 20261122T000000Z_gpu colocated nosum                # incomplete: no summary.md
mk 20261123T000000Z_gpu colocated
head -n 1 "$r/20261123T000000Z_gpu/results.csv" >"$r/20261123T000000Z_gpu/x" && mv "$r/20261123T000000Z_gpu/x" "$r/20261123T000000Z_gpu/results.csv"   # no rows
mk 20261124T000000Z_gpu colocated                      # 4 ranks/GPU, but on 2 GPUs
sed -i 's/^rank \([23]\): device 0/rank \1: device 1/' "$r/20261124T000000Z_gpu/meta.txt"
mk 20261125T000000Z_vm_model colocated                 # a model folder: no measured rows
sed -i 's/,gpu,\([a-z]\)/,model,\1/' "$r/20261125T000000Z_vm_model/results.csv"
mk 20261126T000000Z_gpu colocated                      # stopped by a signal (#26): never a baseline
echo 'stopped by SIGINT before every row was measured' >"$r/20261126T000000Z_gpu/INCOMPLETE"
mk 20261127T000000Z_gpu colocated                      # wrong rows (exit 1): never a baseline
echo 'some rows were wrong or failed' >"$r/20261127T000000Z_gpu/FAILED"
mkdir -p "$r/reference/zzz" && cp -r tests/fixtures/colocated/. "$r/reference/zzz/" && echo x >"$r/reference/zzz/summary.md"

# ---- 1 GPU: the smoke run with 4 ranks on GPU 0 ----
mkrun bin1 "$tmp/stub" --scenario clean
check "1 GPU: exit 0 (got $rc: $out)" [ "$rc" -eq 0 ]
first=$(printf '%s\n' "$out" | head -n 1)
check "1 GPU: the first line says one GPU, 4 ranks on GPU 0, not NVLink ($first)" \
  test -n "$(printf '%s' "$first" | grep -F '1 GPU found (NVIDIA H100 80GB HBM3)' | grep -F '4 ranks placed on GPU 0' | grep -F "one GPU's memory system, not NVLink")"
check "1 GPU: quick.conf with --ranks 4, the baseline, then the user's arguments ($args)" \
  test "$args" = "run --config configs/quick.conf --ranks 4 --baseline runs/20261120T000000Z_gpu --scenario clean "
check "1 GPU: a run stopped early is passed over, saying so" \
  test -n "$(printf '%s' "$out" | grep -F 'runs/20261126T000000Z_gpu: incomplete (stopped early)')"
check "1 GPU: a failed run is passed over, saying so" \
  test -n "$(printf '%s' "$out" | grep -F 'runs/20261127T000000Z_gpu: failed (wrong or failed rows)')"
check "1 GPU: says why later folders were passed over" test -n "$(printf '%s' "$out" | grep 'passed over 7 later')"
check "1 GPU: incomplete folder named as such" test -n "$(printf '%s' "$out" | grep -F '20261122T000000Z_gpu: incomplete')"
mkrun bin1 "$tmp/stub" --dry-run
check "1 GPU: --dry-run takes no baseline ($args)" test "$args" = "run --config configs/quick.conf --ranks 4 --dry-run "
mkrun bin1 "$tmp/stub" --baseline runs/x
check "1 GPU: the user's --baseline wins ($args)" test "$args" = "run --config configs/quick.conf --ranks 4 --baseline runs/x "
rm -rf "$r/20261120T000000Z_gpu"
mkrun bin1 "$tmp/stub"
check "1 GPU: no fitting folder, no baseline ($args)" test "$args" = "run --config configs/quick.conf --ranks 4 "
check "1 GPU: says there is none" test -n "$(printf '%s' "$out" | grep 'no baseline: no earlier complete run of 4 ranks/GPU on 1 GPU')"

# ---- 4 GPUs: the nightly, one rank per GPU ----
mkrun bin4 "$tmp/stub"
check "4 GPUs: the nightly with the 1 rank/GPU run on 4 GPUs as baseline ($args)" \
  test "$args" = "run --config configs/nightly.conf --baseline runs/20261121T000000Z_gpu "
check "4 GPUs: no smoke-run line" not test -n "$(printf '%s' "$out" | grep 'GPU found')"
mkrun bin4 "$tmp/stub" --gpus 0,1
check "4 GPUs, --gpus 0,1: a 2-GPU run has no 4-GPU baseline ($args)" test "$args" = "run --config configs/nightly.conf --gpus 0,1 "
rc_args=$(cd "$repo" && PATH="$tmp/bin4:$PATH" CUDA_VISIBLE_DEVICES=0 B=$tmp/stub bash configs/run-main.sh 2>&1 >/dev/null | head -n 1)
check "4 GPUs, CUDA_VISIBLE_DEVICES=0: the 1-GPU smoke run" test -n "$(printf '%s' "$rc_args" | grep -F '1 GPU found')"

[ "$skip" -gt 0 ] && echo "skipped: $skip picture checks (gnuplot is not installed: apt-get install -y gnuplot-nox)"
finish
