#!/usr/bin/env bash
# #27, second call: the first (issue27.sh) found ring on nccl-p2p wrong at 64 MiB (every
# iteration) and then hung, with nccl.registration=symmetric. Here: nccl-p2p alone in each
# registration mode at 16 MiB, 64 MiB and 1 GiB, one process per row (a hang costs that row
# only), with NCCL's INFO lines of the first failing one; ce and sm on the registered buffers at
# 64 MiB and 1 GiB; and a repeat of nccl's host-timed rows beside nccl-tests -t 2 -g 1 (the
# spread between two runs). Same invocation as issue27.sh; everything lands in
# $OUT/issue27b.tgz.
set -u
export NCCL_NVLS_ENABLE=0
out=${OUT:-/tmp/issue27b}; mkdir -p "$out"
carry=${CARRY:?CARRY names the folder with nccl-tests}
. tools/device/lib.sh
t0=$SECONDS
nt=$carry/nccl-tests
make B=build-dev -j16 ${REV:+GIT_REV=$REV} >"$out/build.log" 2>&1 &
build_nccl_tests "$nt" "$out/nccl-tests-build.log" &
wait
echo "built in $((SECONDS - t0)) s"
A=build-dev/arbench P=$nt/build/all_reduce_perf
[ -x $A ] || { tail -20 "$out/build.log"; exit 1; }
nvidia-smi -L | head -2
# row NAME ARGS...: one arbench run (watchdog 15 s, killed at 40 s), its table line(s)
row() {
  local name=$1; shift
  timeout -k 5 40 $A run --gpus 0,1 -n 10 -w 3 -T 15 --out "$out/$name" "$@" >"$out/$name.log" 2>&1
  local rc=$?
  printf '%-22s exit %3d: ' "$name" "$rc"
  grep -E "^ +[0-9]+ .* (ok|error|n/a|timeout)$|^n/a|timeout:" "$out/$name.log" | head -3 | tr -s ' ' | tr '\n' '|'
  echo
}
echo "== nccl-p2p (ring) on the data buffer in each registration mode"
for m in none registered symmetric; do
  for s in 16M 64M 1G; do row p2p-$m-$s --algo ring --transport nccl-p2p --sizes $s --set nccl.registration=$m; done
done
echo "== NCCL's words on the first failing one (NCCL_DEBUG=INFO, SUBSYS=INIT,REG,P2P)"
for m in symmetric registered; do
  if grep -q " error$\|timeout" "$out/p2p-$m-64M.log"; then
    NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,REG,P2P timeout -k 5 40 $A run --gpus 0,1 --algo ring \
      --transport nccl-p2p --sizes 64M -n 1 -w 0 -T 15 --set nccl.registration=$m --out "$out/dbg-$m" 2>&1 |
      grep -iE "regist|zero|copy|window|buffer|p2p/|via" | sort | uniq -c | sort -rn | head -30 >"$out/dbg-$m.txt"
    cat "$out/dbg-$m.txt"
    break
  fi
done
echo "== ce and sm on the registered buffers (every algorithm that runs on 2 ranks)"
for m in registered symmetric; do
  row cesm-$m --algo ring,rhd,direct,swing-bw --transport ce,sm --sizes 64M,1G --set nccl.registration=$m
  grep -cE " ok$" "$out/cesm-$m.log"; grep -E " (error|timeout)$" "$out/cesm-$m.log" | head -3
done
echo "== repeat: nccl host-timed (3 modes) and nccl-tests -t 2 -g 1 (-R 0/1/2)"
timeout -k 5 100 $A run --gpus 0,1 --config tools/device/issue27.conf --scenario host-none,host-registered,host-symmetric \
  --out "$out/repeat" >"$out/repeat.log" 2>&1; echo "repeat: exit $?"
for R in 0 1 2; do timeout -k 5 40 "$P" -t 2 -g 1 -b 1K -e 1G -f 4 -R $R >"$out/repeat-nccl-tests-t2-R$R.log" 2>&1; echo "nccl-tests -R $R: exit $?"; done
echo "== total $((SECONDS - t0)) s"
(cd "$out" && tar czf /tmp/issue27b.tgz --exclude='*.png' --exclude='*.svg' --exclude=report.html \
  --exclude=plots . && rm -rf ./* && mv /tmp/issue27b.tgz .)
