#!/usr/bin/env bash
# NVTX ranges and --phases, checked on the CPU. An NVTX injection library
# (tests/nvtx/inject.c, loaded through NVTX_INJECTION64_PATH as Nsight Systems is) records every
# range, thread name, stream name and the domain; tests/nvtx/check.awk checks the log's nesting
# and balance. It records:
#   1. tests/nvtx/driver.c calling src/nvtx.c directly: the precondition range follows the
#      transports' round numbers; a transport that marks no rounds gets it around the whole
#      collective; nothing is emitted without a tool;
#   2. `arbench run` on the simulated machine of tests/sim/fake_gpu.c (the real harness
#      objects; the fake transports push a range per round as the real ones do) with a
#      straggler and --phases: domain, thread and stream names, size > iter > delay | allreduce
#      > precondition > round, and phases.csv (the fake's clocks make every phase exact);
#   3. plots/plot.sh drawing phases.csv (tests/fixtures/phases, and the run of 2) when gnuplot
#      is installed.
set -u
cd "$(dirname "$0")/.."
B=${B:-build}
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/arbench-test-nvtx.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# the headers the harness was built against (from its dependency files): the CUDA include
# folder holds nvtx3/
dep=$B/obj/harness/bench.d
cu=$(grep -o '[^ ]*/cuda_runtime\.h' "$dep" 2>/dev/null | head -n 1)
nc=$(grep -o '[^ ]*/nccl\.h' "$dep" 2>/dev/null | head -n 1)
inc=$(dirname "${cu:-.}")
CC=${CC:-cc}
. tests/sim/build.sh # sim_linker, sim_gpu_object
CF=(-O1 -g -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -Isrc -Iharness -I"$inc")
INJ=$B/tests/libarbench_nvtx_inject.so DRV=$B/tests/nvtx_driver S=$B/tests/arbench-sim-nvtx
mkdir -p "$B/tests"
if [ -z "$cu" ] || [ -z "$nc" ] || [ ! -f "$inc/nvtx3/nvToolsExt.h" ] ||
   ! $CC "${CF[@]}" -shared -fPIC tests/nvtx/inject.c -o "$INJ" ||
   ! $CC "${CF[@]}" tests/nvtx/driver.c "$B/obj/src/nvtx.o" -o "$DRV" -lpthread -ldl ||
   ! sim_gpu_object "$B/tests/fake_gpu_nvtx.o" "" "${CF[@]}" -I"$(dirname "$nc")" ||
   ! $CC "${CF[@]}" -I"$(dirname "$nc")" -c tests/sim/fake_nccl.c -o "$B/tests/fake_nccl_nvtx.o" ||
   ! "$(sim_linker)" ${SAN_FLAGS:-} -o "$S" "$B"/obj/harness/*.o "$B/tests/fake_gpu_nvtx.o" \
       "$B/tests/fake_nccl_nvtx.o" "$B/libarcore.a" -lpthread -lm -ldl; then
  echo "FAIL: cannot build the injection library, the driver or the simulator (run make first)"
  echo "0 passed, 1 failed"
  exit 1
fi

# traced LOG CMD...: runs CMD with the injection library logging into LOG
traced() { local log=$1; shift; NVTX_INJECTION64_PATH=$PWD/$INJ AR_NVTX_LOG=$log "$@"; }
# ranges LOG: the checker's report of LOG
ranges() { awk -f tests/nvtx/check.awk "$1"; }
# has TEXT REGEX: a line of TEXT matches the extended REGEX
has() { printf '%s\n' "$1" | grep -qE -- "$2"; }
# count TEXT REGEX: lines of TEXT matching REGEX
count() { printf '%s\n' "$1" | grep -cE -- "$2"; }

# ---- 1. the driver ----
out=$("$DRV" 2>&1)
[ "$out" = "nvtx: inactive" ] && ok || bad "driver without a tool: $out"
out=$(traced "$tmp/drv.log" "$DRV" 2>&1)
[ "$out" = "nvtx: active" ] && ok || bad "driver with the injection library: $out"
rep=$(ranges "$tmp/drv.log")
has "$rep" $'^summary\tpushes=30 pops=30 threads=3 errors=0$' && ok || bad "driver log: $rep"
[ "$(count "$rep" $'^domain\tarbench$')" -eq 1 ] && ok || bad "driver: domain arbench not created once"
has "$rep" $'^stream\tmarks stream$' && ok || bad "driver: stream not named"
P=$'^path\tmarks\tsize 1 MiB bcast/ce > iter 0 > allreduce bcast/ce'
has "$rep" "$P > precondition > round 0\$" && has "$rep" "$P > precondition > round 1\$" && ok ||
  bad "driver: rounds 0 and 1 not inside the precondition: $rep"
has "$rep" "$P > round 2\$" && has "$rep" "$P > round 3\$" && ok || bad "driver: round 2 still inside the precondition"
[ "$(count "$rep" $'^path\tmarks\t.*precondition$')" -eq 1 ] && ok || bad "driver: a precondition without precondition rounds"
# no rounds marked: the job's first collective cannot know, the second gets the whole range
has "$rep" $'^path\tsilent\tsize job 0 > iter 1 > allreduce bcast/ce > precondition \\(whole collective\\)$' &&
  has "$rep" $'^path\tsilent\tsize job 1 > iter 1 > allreduce bcast/ce > precondition \\(whole collective\\)$' &&
  [ "$(count "$rep" $'^path\tsilent\t.*precondition')" -eq 2 ] && ok || bad "driver: whole-collective precondition: $rep"
has "$rep" $'^path\tall\tsize all > iter 0 > allreduce bcast/ce > precondition > round 1$' && ok ||
  bad "driver: all rounds precondition"

# ---- 2. a simulated run ----
R=$tmp/run
out=$(traced "$tmp/run.log" "$S" run --gpus 0,1,2,3 --algo nccl,ring,bcast --transport ce,nccl-p2p \
      -b 1M -e 4M -f 4 --straggler 1:2ms -n 3 -w 1 --phases --out "$R" 2>"$tmp/err"); rc=$?
[ "$rc" -eq 0 ] && ok || bad "simulated run -> exit $rc: $(cat "$tmp/err")"
rep=$(ranges "$tmp/run.log")
has "$rep" $'^summary\tpushes=[0-9]+ pops=[0-9]+ threads=4 errors=0$' && ok ||
  bad "run: ranges not balanced and nested: $(printf '%s\n' "$rep" | grep -E '^(error|summary)' | head -n 20)"
p=$(printf '%s\n' "$rep" | sed -n 's/^summary\tpushes=\([0-9]*\) pops=\([0-9]*\).*/\1 \2/p')
[ "${p% *}" = "${p#* }" ] && [ "${p% *}" -gt 0 ] && ok || bad "run: pushes and pops differ: $p"
[ "$(count "$rep" $'^domain\t')" -eq 1 ] && has "$rep" $'^domain\tarbench$' && ok || bad "run: the domain: $(count "$rep" $'^domain')"
[ "$(printf '%s\n' "$rep" | sed -n 's/^thread\t//p' | sort | tr '\n' ,)" = "rank 0,rank 1,rank 2,rank 3," ] && ok ||
  bad "run: thread names: $(printf '%s\n' "$rep" | grep ^thread)"
[ "$(printf '%s\n' "$rep" | sed -n 's/^stream\t//p' | sort | tr '\n' ,)" = "rank 0,rank 1,rank 2,rank 3," ] && ok ||
  bad "run: stream names: $(printf '%s\n' "$rep" | grep ^stream)"
# 2 sizes x (nccl + ring and bcast on 2 transports) = 10 jobs on every rank's thread
for r in 0 1 2 3; do
  [ "$(count "$rep" $'^path\trank '"$r"$'\tsize [^>]*$')" -eq 10 ] && ok || bad "run: rank $r: job ranges"
  [ "$(count "$rep" $'^path\trank '"$r"$'\tsize [^>]* > iter [0-2]$')" -eq 30 ] &&
    [ "$(count "$rep" $'^path\trank '"$r"$'\tsize [^>]* > warmup 0$')" -eq 10 ] && ok || bad "run: rank $r: iteration ranges"
  [ "$(count "$rep" $'^path\trank '"$r"$'\tsize [^>]* > (iter|warmup) [0-9]+ > allreduce [^>]*$')" -eq 40 ] && ok ||
    bad "run: rank $r: collective ranges"
done
has "$rep" $'^path\trank 0\tsize 1 MiB ring/ce > iter 2 > allreduce ring/ce > round 5$' && ok || bad "run: round ranges of ring/ce"
has "$rep" $'^path\trank 2\tsize 4 MiB nccl > iter 0 > allreduce nccl$' && ok || bad "run: the nccl job's ranges"
has "$rep" $'^path\trank [0-9]\tsize [^>]* nccl > .*round' && bad "run: round ranges inside native nccl" || ok
# the straggler's delay, on rank 1 only, inside each iteration
[ "$(count "$rep" $'^path\trank 1\tsize [^>]* > (iter|warmup) [0-9]+ > delay 2000 us$')" -eq 40 ] && ok ||
  bad "run: delay ranges on rank 1: $(count "$rep" $'^path\trank 1\t.*delay')"
has "$rep" $'^path\trank [023]\t.*delay' && bad "run: a delay range off the straggler" || ok
# bcast's precondition (rounds 0..3 among the others), never on the straggler or in ring
npre=$("$B/arbench" schedule --algo bcast --ranks 4 --straggler 1 | sed -n 's/^precondition_rounds: //p')
[ "${npre:-0}" -gt 0 ] && ok || bad "bcast has no precondition rounds: $npre"
Q=$'^path\trank 3\tsize 4 MiB bcast/nccl-p2p > iter 1 > allreduce bcast/nccl-p2p'
has "$rep" "$Q > precondition > round 0\$" && has "$rep" "$Q > precondition > round $((npre - 1))\$" &&
  has "$rep" "$Q > round $npre\$" && ok || bad "run: bcast's precondition range does not follow its rounds"
has "$rep" $'^path\trank 1\t.*precondition' && bad "run: a precondition range on the straggler" || ok
has "$rep" $'^path\trank [0-3]\tsize [^>]* ring/.*precondition' && bad "run: a precondition range in ring" || ok

# phases.csv: every job's last timed iteration, every rank: a collective, and on rank 1 the
# delay before it; the fake's clocks make it exact: the delay is [0, 2000], rank 1's
# collective starts at 2000, and the latest end is the iteration's time (results.csv median)
F=$R/phases.csv
[ "$(head -n 1 "$F")" = "run_id,algorithm,transport,bytes,rank,phase,start_us,end_us,scenario,iteration,delay_us" ] && ok ||
  bad "phases.csv header: $(head -n 1 "$F")"
[ "$(($(wc -l <"$F") - 1))" -eq 50 ] && ok || bad "phases.csv: $(($(wc -l <"$F") - 1)) lines, want 10 jobs x (4 + 1)"
awk -F, 'NR > 1 && $6 == "delay" && ($5 != 1 || $7 != "0.000" || $8 != "2000.000") { bad++ }
         NR > 1 && $6 == "delay" { n++ } END { exit bad || n != 10 }' "$F" && ok || bad "phases.csv: delay rows"
awk -F, 'NR > 1 && $6 == "allreduce" && (($5 == 1) != ($7 == "2000.000") || $8 <= $7) { bad++ }
         NR > 1 && ($10 != 2 || $11 != "2000.000" || $9 != "") { bad++ } END { exit bad }' "$F" && ok ||
  bad "phases.csv: collective rows (start, iteration, delay_us, scenario)"
run_id=$(basename "$R")
awk -F, -v id="$run_id" 'NR > 1 && $1 != id { bad++ } END { exit bad }' "$F" && ok || bad "phases.csv: run_id"
# the latest end per job against results.csv's median (column found by name)
mc=$(head -n 1 "$R/results.csv" | tr ',' '\n' | grep -nx time_us_median | cut -d: -f1)
ac=$(head -n 1 "$R/results.csv" | tr ',' '\n' | grep -nx algorithm | cut -d: -f1)
worst=$(awk -F, -v mc="$mc" -v ac="$ac" '
  FNR == 1 { f++; next }
  f == 1 { k = $2 "|" $3 "|" $4; if ($8 > e[k]) e[k] = $8; next }
  { k = $ac "|" $(ac + 1) "|" $14; if (!(k in e)) { miss++; next }
    d = e[k] - $mc; if (d < 0) d = -d; d /= $mc; if (d > w) w = d; n++ }
  END { printf "%d %d %g", n, miss, w }' "$F" "$R/results.csv")
[ "${worst%% *}" -eq 10 ] && awk -v w="${worst##* }" 'BEGIN { exit !(w < 1e-4) }' && ok ||
  bad "phases.csv: latest end vs results.csv median (rows, missing, worst relative error): $worst"
# bcast's precondition overlaps the delay: its others start at 0 and end before rank 1 does
awk -F, 'NR > 1 && $2 == "bcast" && $6 == "allreduce" { if ($5 == 1) s[$3 $4] = $8; else if ($8 > o[$3 $4]) o[$3 $4] = $8 }
         END { for (k in s) { n++; if (!(o[k] > 0) || o[k] > s[k]) bad++ } exit bad || n != 4 }' "$F" && ok ||
  bad "phases.csv: bcast's ranks"

# no tool: the same run emits nothing and still works; no --phases: no phases.csv
"$S" run --gpus 0,1 --algo ring,bcast --transport ce -b 1M -e 1M --straggler 1:1ms -n 2 -w 1 \
  --out "$tmp/plain" >/dev/null 2>&1 && ok || bad "run without a tool failed"
[ ! -e "$tmp/plain/phases.csv" ] && ok || bad "phases.csv without --phases"
AR_NVTX_LOG=$tmp/none.log "$S" run --gpus 0,1 --algo ring --transport ce -b 1M -e 1M -n 2 -w 0 \
  --out "$tmp/none" >/dev/null 2>&1
[ ! -e "$tmp/none.log" ] && ok || bad "something was emitted with no injection library"
# --phases takes no value; --help says what it does
"$S" run --phases=1 --gpus 0,1 --dry-run >/dev/null 2>&1; rc=$?
[ "$rc" -eq 2 ] && ok || bad "--phases=1 -> exit $rc, want 2"
"$B/arbench" run --help | grep -q -- '--phases' && ok || bad "--help does not list --phases"
# a two-rank run with --phases and a scenario: phases.csv says the scenario
printf -- '--gpus 0,1 --algo ring --transport ce -b 64K -e 64K -n 2 -w 0\n[scenario late]\n--straggler 0:500us --phases\n[scenario clean]\n' >"$tmp/s.conf"
"$S" run --config "$tmp/s.conf" --out "$tmp/scen" >/dev/null 2>&1 && ok || bad "scenario run failed"
[ "$(awk -F, 'NR > 1 { print $9 "," $5 "," $6 }' "$tmp/scen/phases.csv" | tr '\n' ' ')" = "late,0,delay late,0,allreduce late,1,allreduce " ] &&
  ok || bad "scenario phases.csv: $(cat "$tmp/scen/phases.csv")"

# --compute: the load's stream named, its range `compute KIND` in every iteration of the row's
# second and third lanes (each a `lane` range in the row's), beside the collective's in the
# third; --phases still times the AllReduce alone (one allreduce line a rank)
out=$(traced "$tmp/ld.log" "$S" run --gpus 0,1 --algo ring --transport ce --sizes 1M -n 3 -w 1 \
      --compute gemm --phases --out "$tmp/ld" 2>&1); rc=$?
rep=$(ranges "$tmp/ld.log")
[ "$rc" -eq 0 ] && has "$rep" $'^summary\tpushes=[0-9]+ pops=[0-9]+ threads=2 errors=0$' && ok ||
  bad "--compute: exit $rc, ranges: $(printf '%s\n' "$rep" | grep -E '^(error|summary)' | head -n 5)"
[ "$(printf '%s\n' "$rep" | sed -n 's/^stream\t//p' | sort | tr '\n' ,)" = "rank 0,rank 0 compute,rank 1,rank 1 compute," ] &&
  ok || bad "--compute: stream names: $(printf '%s\n' "$rep" | grep ^stream)"
L=$'^path\trank 1\tsize 1 MiB ring/ce > lane '
[ "$(count "$rep" "$L"$'compute alone > (iter|warmup) [0-9] > compute gemm:[0-9]+x[0-9]+x[0-9]+$')" -eq 4 ] &&
  [ "$(count "$rep" "$L"$'compute alone > (iter|warmup) [0-9] > allreduce')" -eq 0 ] &&
  [ "$(count "$rep" "$L"$'allreduce beside compute > (iter|warmup) [0-9] > compute gemm:[0-9x]+$')" -eq 4 ] &&
  [ "$(count "$rep" "$L"$'allreduce beside compute > (iter|warmup) [0-9] > allreduce ring/ce$')" -eq 4 ] &&
  [ "$(count "$rep" $'^path\trank 1\tsize 1 MiB ring/ce > (iter|warmup) [0-9] > allreduce ring/ce$')" -eq 4 ] &&
  ok || bad "--compute: the lanes' ranges: $(printf '%s\n' "$rep" | grep $'^path\trank 1' | head -n 12)"
[ "$(awk -F, 'NR > 1 { print $5 $6 }' "$tmp/ld/phases.csv" | tr '\n' ' ')" = "0allreduce 1allreduce " ] && ok ||
  bad "--compute: phases.csv: $(cat "$tmp/ld/phases.csv")"

# ---- 3. pictures ----
if command -v gnuplot >/dev/null 2>&1; then
  cp -r tests/fixtures/phases "$tmp/fx"
  out=$(bash plots/plot.sh "$tmp/fx" 2>&1); rc=$?
  [ "$rc" -eq 0 ] && ok || bad "plot.sh on the phases fixture -> exit $rc: $out"
  for n in phases_256MiB_late_d8ms phases_1GiB_clean; do
    [ "$(head -c 8 "$tmp/fx/plots/$n.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
      grep -q '<svg' "$tmp/fx/plots/$n.svg" && ok || bad "fixture: $n.png/.svg not drawn ($out)"
  done
  printf '%s\n' "$out" | grep -q 'phases' && bad "plot.sh complained about phases: $out" || ok
  # the simulated run's: one picture per size (5 charts each: nccl, ring and bcast on 2 transports)
  bash plots/plot.sh "$R" >/dev/null 2>&1
  ls "$R/plots"/phases_1MiB_d2ms.png "$R/plots"/phases_4MiB_d2ms.png >/dev/null 2>&1 && ok ||
    bad "run: phases pictures: $(ls "$R/plots")"
  # 15 charts (every one of the clean 1 GiB five times) split into pictures of at most 6
  awk -F, 'NR == 1 { print; next } { print; for (k = 1; k <= 4; k++) { $2 = $2 "x" k; print } }' OFS=, \
    "$tmp/fx/phases.csv" >"$tmp/fx/p2" && mv "$tmp/fx/p2" "$tmp/fx/phases.csv"
  rm -rf "$tmp/fx/plots"
  bash plots/plot.sh "$tmp/fx" >/dev/null 2>&1
  ls "$tmp/fx/plots"/phases_1GiB_clean_1.png "$tmp/fx/plots"/phases_1GiB_clean_3.png >/dev/null 2>&1 &&
    [ ! -e "$tmp/fx/plots/phases_1GiB_clean_4.png" ] && ok || bad "15 charts are not 3 pictures: $(ls "$tmp/fx/plots")"
else
  echo "skipped: gnuplot is not installed, so the phases pictures were not checked"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
