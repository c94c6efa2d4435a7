#!/usr/bin/env bash
# make profile (tools/nsys.sh): without nsys on PATH it says what to install and exits 1,
# profiling nothing; with one (a stand-in that logs its arguments) it runs the chosen rows of
# arbench run under `nsys profile -t cuda,nvtx` with the arbench NVTX domain.
. "$(dirname "$0")/lib.sh"
mkdir -p "$tmp/bin"
for t in bash dirname date mkdir make cat; do ln -sf "$(command -v $t)" "$tmp/bin/$t"; done
out=$(PATH=$tmp/bin make -s -o "${B:-build}/arbench" profile OUT="$tmp/p0" 2>&1); rc=$?
[ "$rc" -ne 0 ] && printf '%s' "$out" | grep -q 'nsys (Nsight Systems) is not on PATH' &&
  printf '%s' "$out" | grep -q 'apt-get install -y nsight-systems-cli' && ok || bad "no nsys: exit $rc: $out"
[ ! -e "$tmp/p0" ] && ok || bad "no nsys: a run folder was made"
# a stand-in nsys: logs its arguments, writes the report file
printf '#!/bin/bash\necho "$@" >"%s/nsys.log"\nwhile [ "$1" != -o ]; do shift; done; touch "$2.nsys-rep"\n' "$tmp" >"$tmp/bin/nsys"
chmod +x "$tmp/bin/nsys"
out=$(PATH=$tmp/bin:$PATH make -s -o "${B:-build}/arbench" profile OUT="$tmp/p1" ROWS="--algo ring --sizes 1M --dry-run" 2>&1); rc=$?
log=$(cat "$tmp/nsys.log" 2>/dev/null)
[ "$rc" -eq 0 ] && [ "$log" = "profile -t cuda,nvtx --nvtx-domain-include=arbench --force-overwrite=true -o $tmp/p1/arbench ${B:-build}/arbench run --out $tmp/p1 --algo ring --sizes 1M --dry-run" ] &&
  ok || bad "nsys called as: $log (exit $rc: $out)"
printf '%s' "$out" | grep -q "open $tmp/p1/arbench.nsys-rep" && ok || bad "does not say where the report is: $out"
PATH=$tmp/bin:$PATH make -s -o "${B:-build}/arbench" profile OUT="$tmp/p2" >/dev/null 2>&1
grep -q -- '--algo ring,stragglar,nccl --transport ce --sizes 1G --straggler 1:8ms' "$tmp/nsys.log" && ok || bad "default rows: $(cat "$tmp/nsys.log")"
finish
