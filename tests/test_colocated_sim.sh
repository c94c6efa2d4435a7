#!/usr/bin/env bash
# Ranks placed on fewer GPUs than ranks (co-located), end to end on the simulated GPUs
# (tests/sim/fake_gpu.c, which refuses what CUDA and NCCL refuse: peer access to the device
# itself, two NCCL ranks on one GPU, and co-located SM shares that do not fit the GPU).
. "$(dirname "$0")/lib.sh"
B=${B:-build}
. tests/sim/build.sh
sim_build colocated
# rows FILE: "algorithm/transport/status/placement" of every row, sorted and counted
rows() {
  local a t s p
  a=$(col "$1" algorithm) t=$(col "$1" transport) s=$(col "$1" status) p=$(col "$1" placement)
  awk -F, -v a="$a" -v t="$t" -v s="$s" -v p="$p" 'NR > 1 { print $a "/" $t "/" $s "/" $p }' "$1" |
    sort | uniq -c | awk '{ $1 = $1; print }' | tr '\n' ';'
}

# 1. 8 ranks on the only GPU: nccl and nccl-p2p n/a with the reason, ce, sm and ll run, placement
out=$(AR_SIM_GPUS=1 "$S" run --ranks 8 --algo nccl,ring,rhd --transport nccl-p2p,ce,sm,ll \
  -b 1K -e 1M -f 1024 -n 2 -w 1 --out "$tmp/r8" 2>&1); rc=$?
[ "$rc" -eq 0 ] && ok || bad "8 ranks on 1 GPU: exit $rc: $(printf '%s\n' "$out" | tail -3)"
r=$tmp/r8/results.csv
want="2 nccl/nccl/n/a/8 ranks/GPU;2 rhd/ce/ok/8 ranks/GPU;2 rhd/ll/ok/8 ranks/GPU;2 rhd/nccl-p2p/n/a/8 ranks/GPU;2 rhd/sm/ok/8 ranks/GPU;2 ring/ce/ok/8 ranks/GPU;2 ring/ll/ok/8 ranks/GPU;2 ring/nccl-p2p/n/a/8 ranks/GPU;2 ring/sm/ok/8 ranks/GPU;"
[ "$(rows "$r")" = "$want" ] && ok || bad "rows: $(rows "$r")"
printf '%s\n' "$out" | grep -q '^n/a: nccl (nccl): NCCL cannot run two ranks on one GPU (8 ranks/GPU)$' &&
  ok || bad "the nccl n/a line: $(printf '%s\n' "$out" | grep '^n/a' | head -2)"
# every rank's waiting kernels within its share: 132 SMs / 8 ranks
printf '%s\n' "$out" | grep -q "^# placement: 8 ranks/GPU (GPU 0: ranks 0-7); each rank's waiting kernels on 16 of GPU 0's 132 SMs$" &&
  ok || bad "placement line: $(printf '%s\n' "$out" | grep '^# placement')"
printf '%s\n' "$out" | grep -q "^# co-located ranks (8 ranks/GPU): these timings measure one GPU's memory system, not NVLink" &&
  ok || bad "no co-located note above the table"
grep -q "^placement: 8 ranks/GPU (GPU 0: ranks 0-7; 1 GPU): co-located" "$tmp/r8/meta.txt" && ok ||
  bad "meta.txt placement: $(grep '^placement' "$tmp/r8/meta.txt")"
grep -q "^CUDA_DEVICE_MAX_CONNECTIONS: 32$" "$tmp/r8/meta.txt" && ok ||
  bad "meta.txt queues: $(grep '^CUDA_DEVICE_MAX' "$tmp/r8/meta.txt")"
[ "$(grep -c '^rank [0-7]: device 0,' "$tmp/r8/meta.txt")" -eq 8 ] && ok || bad "meta.txt rank lines"

# 2. --gpus with repeats, two GPUs: 2-3 ranks/GPU, shares 44 and 66
out=$(AR_SIM_GPUS=2 "$S" run --gpus 0,1,0,1,0 --algo ring --transport ce --sizes 1K -n 2 -w 1 \
  --out "$tmp/r5" 2>&1); rc=$?
[ "$rc" -eq 0 ] && [ "$(rows "$tmp/r5/results.csv")" = "1 ring/ce/ok/2-3 ranks/GPU;" ] && ok ||
  bad "5 ranks on 2 GPUs: exit $rc, $(rows "$tmp/r5/results.csv")"
grep -q "^placement: 2-3 ranks/GPU (GPU 0: ranks 0,2,4; GPU 1: ranks 1,3; 2 GPUs)" "$tmp/r5/meta.txt" &&
  ok || bad "meta.txt: $(grep '^placement' "$tmp/r5/meta.txt")"

# 3. one rank per GPU stays as it was: NCCL runs, no note, no queue setting
out=$(env -u CUDA_DEVICE_MAX_CONNECTIONS AR_SIM_GPUS=4 "$S" run --gpus 0,1,2,3 --algo nccl,ring --transport nccl-p2p \
  --sizes 1K -n 2 -w 1 --out "$tmp/r4" 2>&1); rc=$?
[ "$rc" -eq 0 ] && [ "$(rows "$tmp/r4/results.csv")" = "1 nccl/nccl/ok/1 rank/GPU;1 ring/nccl-p2p/ok/1 rank/GPU;" ] &&
  ok || bad "4 GPUs: exit $rc, $(rows "$tmp/r4/results.csv")"
printf '%s\n' "$out" | grep -q "co-located" && bad "co-located note on a 1 rank/GPU run" || ok
grep -q "^CUDA_DEVICE_MAX_CONNECTIONS: (unset)$" "$tmp/r4/meta.txt" && ok ||
  bad "queues set for 1 rank/GPU: $(grep '^CUDA_DEVICE_MAX' "$tmp/r4/meta.txt")"

# 4. a placement the GPU cannot hold (more ranks than SMs) is refused before any row
out=$(AR_SIM_GPUS=1 AR_SIM_SMS=4 "$S" run --ranks 8 --algo ring --transport ce --sizes 1K -n 2 \
  -w 1 --out "$tmp/r8s" 2>&1); rc=$?
[ "$rc" -ne 0 ] && printf '%s\n' "$out" | grep -q "GPU 0 has 4 SMs, fewer than the 8 ranks" && ok ||
  bad "8 ranks on 4 SMs: exit $rc: $(printf '%s\n' "$out" | tail -2)"

# 5. one GPU and nothing said: one line naming the way out, exit 1
out=$(AR_SIM_GPUS=1 "$S" run --algo ring --out "$tmp/none" 2>&1); rc=$?
[ "$rc" -eq 1 ] && printf '%s\n' "$out" | grep -q "1 GPU visible: place several ranks on it with --ranks 4" &&
  ok || bad "1 GPU, no --ranks: exit $rc: $out"

# 6. a straggler and the critical search with co-located ranks (nccl n/a among the candidates)
out=$(AR_SIM_GPUS=1 "$S" run --ranks 4 --algo nccl,ring,stragglar --transport ce,ll --find-critical 64M \
  --straggler 3:0 -n 2 -w 1 --out "$tmp/crit" 2>&1); rc=$?
[ "$rc" -eq 0 ] && grep -q ",found," "$tmp/crit/critical.csv" && ok ||
  bad "critical search, 4 ranks on 1 GPU: exit $rc: $(tail -1 "$tmp/crit/critical.csv")"

# 7. --dry-run counts ranks, not GPUs
out=$("$S" run --ranks 6 --algo ring --transport ce --sizes 1K --dry-run 2>&1); rc=$?
[ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -q "^dry run: 1 scenario, 6 ranks (--ranks)" && ok ||
  bad "dry run: $(printf '%s\n' "$out" | head -1)"

# 8. one plan: with --gpus naming a GPU twice, the dry run counts the n/a rows the run writes
#    (nccl and nccl-p2p cannot put two ranks on one GPU), and says why
co=(--gpus 0,0 --algo ring,nccl --transport nccl-p2p,sm -b 1K -e 1M -f 32 -n 2 -w 1)
out=$("$S" run "${co[@]}" --dry-run 2>&1)
"$S" run "${co[@]}" --out "$tmp/plan" >/dev/null 2>&1; rc=$?
st=$(col "$tmp/plan/results.csv" status)
na=$(awk -F, -v c="$st" 'NR > 1 && $c == "n/a"' "$tmp/plan/results.csv" | wc -l)
ran=$(awk -F, -v c="$st" 'NR > 1 && $c == "ok"' "$tmp/plan/results.csv" | wc -l)
[ "$rc" -eq 0 ] && [ "$na" -eq 6 ] && [ "$ran" -eq 3 ] &&
  printf '%s\n' "$out" | grep -q "^  rows: 9 (3 to measure, 6 n/a)" &&
  printf '%s\n' "$out" | grep -q "every algorithm on nccl-p2p: NCCL cannot run two ranks on one GPU (2 ranks/GPU)" &&
  ok || bad "dry run vs run on 2 ranks/GPU: exit $rc, $ran ok, $na n/a; $(printf '%s\n' "$out" | grep -E '^  (rows|n/a)')"
finish
