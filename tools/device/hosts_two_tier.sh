#!/usr/bin/env bash
# The two-tier scenario on real GPUs, rehearsed on one machine (#38): NP processes as 2 hosts
# of NP/2 GPUs (--set procs.hosts=2: NVLink inside a host, NCCL's socket network on the
# loopback interface between them), in one call:
#   fit_local  2 processes on one host (GPUs 0,1), nccl-p2p at n = 2 over a size sweep
#   fit_net    2 processes as 2 hosts, the same rows across the network (NCCL_DEBUG=INFO:
#              the lines naming NET/Socket)
#   fits.txt   `arbench model --calibrate` of each: the local tier's and the network's alpha
#              (cost per round) and bandwidth
#   healthy    NP processes as 2 hosts: nccl, ring-rails, r2ccl, optcc-multi, optcc-ring on
#              nccl-p2p (--segments K for the OPTCC forms, as the model prices them)
#   host       --degrade NP/2:F,..,NP-1:F (host 1's whole network), degrade.network_bw =
#              fit_net's bandwidth
#   nic        --degrade NP/2:F (one GPU's network of host 1), the same
#   model_*.csv `arbench model --gpus-per-node NP/2` of each scenario on the two fits
#   table.md   measured against modelled (tools/two_tier_table.sh)
# Open MPI comes from OMPI (an archive of Open MPI 4.1, unpacked here: GPU images have none;
# MPIRUN replaces the launcher line, e.g. for the simulator),
# arbench (an MPI=1 build) and this folder's scripts from CARRY. DEADLINE (s) bounds the whole
# call: a stage starts only with time left for it, and what was measured is kept. Everything
# under OUT, packed at the end into OUT/two_tier.tgz (the run folders as an archive each inside).
set -u
t0=$SECONDS; deadline=${DEADLINE:-400}
out=${OUT:-/tmp/two_tier}; mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
C=${CARRY:-$PWD/.carry/tiers}; A=${ARBENCH:-$C/arbench}
OMPI=${OMPI:-$PWD/.carry/hosts/ompi.tar.xz}
NP=${NP:-4}; F=${F:-2}; K=${SEGMENTS:-4}
FIT_SIZES=${FIT_SIZES:-1K,4K,16K,64K,256K,1M,4M,16M,64M,256M}
SIZES=${SIZES:-64K,1M,16M,64M,256M}
ITERS=${ITERS:-"-n 5 -w 1"}
G=$((NP / 2))
export NCCL_NVLS_ENABLE=0
o=/tmp/ompi_tiers
if ! command -v orterun >/dev/null 2>&1; then
  mkdir -p $o && tar xJf "$OMPI" -C $o || { echo "cannot unpack $OMPI"; exit 1; }
  export OPAL_PREFIX=$o/usr PATH=$o/usr/bin:$PATH PMIX_MCA_pcompress_base_silence_warning=1
  export LD_LIBRARY_PATH=$o/usr/lib/x86_64-linux-gnu:$o/usr/lib/x86_64-linux-gnu/openmpi/lib:$o/lib/x86_64-linux-gnu
fi
mpirun=${MPIRUN:-"orterun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader --mca btl_vader_single_copy_mechanism none --mca pml ob1 --mca mtl ^ofi,psm,psm2 --mca osc ^ucx"}
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version --format=csv; orterun --version | head -1
  ldd "$A" | grep -E "nccl|mpi"; nproc; } >"$out/gpu.txt" 2>&1
cat "$out/gpu.txt"
: >"$out/COMMAND"
left() { echo $((deadline - (SECONDS - t0))); }
# stage NAME NEED_S LINE...: runs LINE (logged in COMMAND) when NEED_S seconds are left, under
# a timeout of the time left; its output in NAME.log
stage() {
  local name=$1 need=$2 l; shift 2
  l=$(left)
  if [ "$l" -lt "$need" ]; then echo "== $name: skipped, $l s left (needs $need)" | tee -a "$out/skipped.txt"; return 1; fi
  echo "$*" >>"$out/COMMAND"
  echo "== $name ($l s left)"
  local t1=$SECONDS
  timeout -k 5 $((l - 5)) "$@" >"$out/$name.log" 2>&1; echo "exit $?" >>"$out/$name.log"
  echo "   $(tail -1 "$out/$name.log") after $((SECONDS - t1)) s: $(grep -c . "$out/$name/results.csv" 2>/dev/null) lines in results.csv"
}
fitargs="--algo nccl,ring,rhd,direct --transport nccl-p2p --sizes $FIT_SIZES -n 10 -w 2 -T 60 --force"
stage fit_local 60 $mpirun -np 2 "$A" run --gpus 0,1 --set procs.hosts=1 $fitargs -o "$out/fit_local"
stage fit_net 60 $mpirun -np 2 -x NCCL_DEBUG=INFO -x NCCL_DEBUG_FILE="$out/nccl_fit.%h.%p.log" \
  "$A" run --gpus 0,1 --set procs.hosts=2 $fitargs -o "$out/fit_net"
# fit TIER: "alpha_us bw_GBps" of the pooled nccl-p2p fit of fit_TIER
fit() {
  "$A" model --calibrate "$out/fit_$1" 2>&1 | tee "$out/fit_$1.calibrate.txt" |
    awk '/^calibration: transport=nccl-p2p algorithm=all/ {
           for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
           print v["alpha_us"], v["bw_GBps"] }'
}
read -r la lbw <<<"$(fit local)"; read -r na nbw <<<"$(fit net)"
{ echo "local (2 GPUs of one host, nccl-p2p, fit_local): alpha_us=${la:-?} bw_GBps=${lbw:-?}"
  echo "network (2 hosts, nccl-p2p, fit_net): alpha_us=${na:-?} bw_GBps=${nbw:-?}"
  echo "fitted by: arbench model --calibrate DIR (transport=nccl-p2p algorithm=all: least squares"
  echo "over the healthy nccl-p2p rows of ring, rhd and direct, each priced on its own rounds)"; } | tee "$out/fits.txt"
if [ -z "${nbw:-}" ] || [ -z "${lbw:-}" ]; then echo "no fit: the degraded and model stages need both"; fi
net_bps=$(awk -v b="${nbw:-0}" 'BEGIN { printf "%.0f", b * 1e9 }')
host1=$(seq -s, $G $((NP - 1)) | sed "s/\([0-9]*\)/\1:$F/g")
runargs="--set procs.hosts=2 --algo nccl,ring-rails,r2ccl,optcc-multi,optcc-ring --transport nccl-p2p --sizes $SIZES --segments $K $ITERS -T 60 --force"
stage healthy 90 $mpirun -np $NP -x NCCL_DEBUG=INFO -x NCCL_DEBUG_FILE="$out/nccl_run.%h.%p.log" \
  "$A" run $runargs -o "$out/healthy"
if [ "$net_bps" -gt 0 ]; then
  stage host 120 $mpirun -np $NP "$A" run $runargs --degrade "$host1" --set degrade.network_bw=$net_bps -o "$out/host"
  stage nic 90 $mpirun -np $NP "$A" run $runargs --degrade "$G:$F" --set degrade.network_bw=$net_bps -o "$out/nic"
fi
# the model of each scenario on the two tiers' fits: the schedules that ran (optcc-multi runs
# its switch form on GPUs, which the model names optcc-switch)
if [ -n "${nbw:-}" ] && [ -n "${lbw:-}" ]; then
  for s in healthy nic host; do
    dg=""; [ $s = nic ] && dg="--degrade $G:$F"; [ $s = host ] && dg="--degrade $host1"
    line="$A model --algo ring-rails,r2ccl,optcc-switch,optcc-ring --ranks $NP --gpus-per-node $G --sizes $SIZES --segments $K --alpha ${na}us --bw ${nbw}GB/s --alpha-local ${la}us --bw-local ${lbw}GB/s $dg --csv $out/model_$s.csv"
    echo "$line" >>"$out/COMMAND"
    $line >"$out/model_$s.txt" 2>&1
  done
  bash "$here/../two_tier_table.sh" "$out" >"$out/table.md" 2>&1 || bash "$C/two_tier_table.sh" "$out" >"$out/table.md" 2>&1
  cat "$out/table.md"
fi
grep -h "via NET" "$out"/nccl_*.log 2>/dev/null | sed 's/^[^ ]* //' | sort | uniq -c | sort -rn | head -12 >"$out/nccl_net_lines.txt"
grep -h "NET/Socket : Using\|Using network Socket" "$out"/nccl_*.log 2>/dev/null | sed 's/^[^ ]* //' | sort | uniq | head -4 >>"$out/nccl_net_lines.txt"
cat "$out/nccl_net_lines.txt"
echo "== total $((SECONDS - t0)) s"
(cd "$out" && tar czf /tmp/two_tier_nccl.tgz nccl_*.log 2>/dev/null && rm -f nccl_*.log && mv /tmp/two_tier_nccl.tgz nccl_logs.tgz)
for d in fit_local fit_net healthy nic host; do
  [ -d "$out/$d" ] && (cd "$out" && rm -rf "$d/plots" "$d/report.html" && tar czf "$d.tgz" "$d" && rm -rf "$d")
done
# the device tool brings back a few files only: everything as one archive
(cd "$out" && tar czf /tmp/two_tier_all.tgz --exclude=two_tier.tgz . && find . -mindepth 1 -delete && mv /tmp/two_tier_all.tgz two_tier.tgz)
ls -la "$out"
