#!/usr/bin/env bash
# tools/nsys.sh [ARBENCH RUN OPTIONS]: `make profile`: the chosen rows of `arbench run` under
# Nsight Systems (nsys profile -t cuda,nvtx, the "arbench" NVTX domain only), writing
# OUT/arbench.nsys-rep beside the run folder OUT (default runs/profile-<UTC time>). With no
# options: ring, stragglar and nccl at 1 GiB with an 8 ms straggler on rank 1, 5 iterations.
#   make profile ROWS="--algo ring,nccl --transport ce --sizes 64M,1G" [OUT=DIR]
# Without nsys on PATH it says what to install and exits 1.
set -u
cd "$(dirname "$0")/.."
B=${B:-build}
if ! command -v nsys >/dev/null 2>&1; then
  echo "make profile: nsys (Nsight Systems) is not on PATH, so nothing was profiled." >&2
  echo "make profile: install the CLI: sudo apt-get install -y nsight-systems-cli (from NVIDIA's CUDA apt" \
       "repository, developer.download.nvidia.com/compute/cuda/repos/), or the installer from" \
       "https://developer.nvidia.com/nsight-systems; then put nsys on PATH and run make profile again." >&2
  echo "make profile: without it, arbench run --profile timeline writes trace.json (Perfetto, chrome://tracing) from CUPTI." >&2
  exit 1
fi
out=${OUT:-runs/profile-$(date -u +%Y%m%dT%H%M%SZ)}
if [ $# -eq 0 ]; then set -- --algo ring,stragglar,nccl --transport ce --sizes 1G --straggler 1:8ms -n 5 -w 2; fi
mkdir -p "$out" || exit 1
echo "make profile: nsys profile -t cuda,nvtx (NVTX domain arbench) -> $out/arbench.nsys-rep"
nsys profile -t cuda,nvtx --nvtx-domain-include=arbench --force-overwrite=true -o "$out/arbench" \
  "$B/arbench" run --out "$out" "$@"
rc=$?
[ -e "$out/arbench.nsys-rep" ] && echo "make profile: open $out/arbench.nsys-rep in the Nsight Systems GUI (nsys-ui), or: nsys stats $out/arbench.nsys-rep"
exit "$rc"
