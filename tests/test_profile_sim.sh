#!/usr/bin/env bash
# --profile overlap and timeline without a GPU: the flag's bad values (one line, exit 2), the
# plan, and `arbench run --profile overlap` end to end on the simulator (tests/sim/fake_gpu.c) with a
# stand-in CUPTI (tests/sim/fake_cupti.c, named by AR_CUPTI_LIB) that hands back fixed activity
# records: results.csv's overlap columns (mean over ranks), overlap.csv (per rank, attributed
# by device), one enable/flush per measured row, summary.md's table and the picture; then every
# way CUPTI can fail (not there, an enable, the flush, another version; the real libcupti with
# no GPU): one warning, every row still written, the columns empty. Then --profile timeline:
# the same figures, and timeline.csv (every record on a run's GPU, by start, ranks and peers
# by device; created only when asked, shared by scenarios; header only when CUPTI fails).
. "$(dirname "$0")/lib.sh"
B=${B:-build}

. tests/sim/build.sh
sim_build profile

cupti_build profile   # F: the fake CUPTI

# rcol FILE ALGO TRANSPORT NAME: that results.csv row's field (first match)
rcol() {
  awk -F, -v a="$2" -v t="$3" -v c="$(col "$1" algorithm)" -v tc="$(col "$1" transport)" \
      -v fc="$(col "$1" "$4")" 'NR > 1 && $c == a && $tc == t { print $fc; exit }' "$1"
}
# ocol FILE ALGO TRANSPORT RANK NAME: that overlap.csv line's field
ocol() {
  awk -F, -v a="$2" -v t="$3" -v r="$4" -v c="$(col "$1" algorithm)" -v tc="$(col "$1" transport)" \
      -v rc="$(col "$1" rank)" -v fc="$(col "$1" "$5")" \
      'NR > 1 && $c == a && $tc == t && $rc == r { print $fc; exit }' "$1"
}
# rows FILE: data lines of a CSV
rows() { echo $(($(wc -l <"$1") - 1)); }
# warnings FILE: stderr lines about --profile (overlap, timeline or both)
warnings() { grep -cE '^arbench: --profile (overlap|timeline|overlap,timeline): ' "$1"; }

# 1. bad values: one line naming the flag and the value, exit 2, nothing written (bad_input)

bad_input "^arbench: --profile: bad value 'foo': known: overlap, timeline$" --profile foo
bad_input "^arbench: --profile: bad value '': known: overlap, timeline$" --profile=
bad_input "^arbench: --profile: bad value 'overlap,': known: overlap, timeline$" --profile overlap,
bad_input "^arbench: --profile: bad value 'timeline,foo': known: overlap, timeline$" run --profile timeline,foo
bad_input "^arbench: --profile: needs a value" --profile
printf -- '-n 2\n[scenario a]\n--profile overlap\n[scenario b]\n--profile overlaps\n' >"$tmp/bad.conf"
bad_input "^arbench: --profile: bad value 'overlaps': known: overlap, timeline$" --config "$tmp/bad.conf" --dry-run
out=$("$A" run --help 2>&1)
printf '%s' "$out" | grep -q -- '--profile overlap' && ok || bad "run --help lacks --profile overlap"
printf '%s' "$out" | grep -q -- '--profile timeline ' && printf '%s' "$out" | grep -q 'timeline\.csv' && ok || bad "run --help lacks --profile timeline"
# the plan says so, per scenario
printf -- '-n 2 -b 1K -e 1K --algo ring\n[scenario a]\n[scenario b]\n--profile overlap --phases\n' >"$tmp/two.conf"
out=$("$A" run --config "$tmp/two.conf" --dry-run --gpus 0,1 2>&1)
[ "$(printf '%s\n' "$out" | grep -c '^  profile: overlap')" = 1 ] &&
  printf '%s\n' "$out" | grep -A1 '^  phases: ' | grep -q '^  profile: overlap' && ok || bad "plan: $out"
for v in timeline overlap,timeline; do
  out=$("$A" run --profile $v -n 2 -b 1K -e 1K --algo ring --dry-run --gpus 0,1 2>&1)
  printf '%s\n' "$out" | grep -q "^  profile: $v (.*timeline.csv)$" && ok || bad "plan of --profile $v: $out"
done

# 2. the fake CUPTI's records on 4 GPUs, rank r on device r (see fake_cupti.c for the numbers):
#    per rank copy 100, 40, 80, 50 us over the row's 3 iterations, reduction overlap 50, 0,
#    50, 0 %, delay overlap 80, 0, 75, 100 %; every measured row gets the same records
run() { # run NAME ARGS...: the simulator with --profile $PROF (default overlap) into $tmp/NAME
  local name=$1; shift
  AR_CUPTI_LIB=${LIB-$F} AR_FAKE_CUPTI_LOG=$tmp/$name.log "$S" run --profile "${PROF:-overlap}" --out "$tmp/$name" \
    -b 1M -e 1M -n 2 -w 1 "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
}
run fake --gpus 0,1,2,3 --algo nccl,ring,stragglar --transport ce,sm --straggler 1:1ms; rc=$?
r=$tmp/fake/results.csv o=$tmp/fake/overlap.csv
[ "$rc" -eq 0 ] && [ "$(rows "$r")" = 5 ] && ok || bad "fake run: exit $rc, $(rows "$r") rows: $(cat "$tmp/fake.err")"
[ "$(warnings "$tmp/fake.err")" = 0 ] && ok || bad "fake run warned: $(cat "$tmp/fake.err")"
head -n 1 "$r" | grep -q ',scenario,stragglers,degraded,overlap_reduce_pct,overlap_delay_pct,placement,settings,row_key,' && ok ||
  bad "results.csv header: $(head -n 1 "$r")"
for at in nccl/nccl ring/ce ring/sm stragglar/ce stragglar/sm; do
  a=${at%/*} t=${at#*/}
  [ "$(rcol "$r" "$a" "$t" overlap_reduce_pct)" = 25.000 ] && [ "$(rcol "$r" "$a" "$t" overlap_delay_pct)" = 63.750 ] &&
    ok || bad "$at: overlap $(rcol "$r" "$a" "$t" overlap_reduce_pct) / $(rcol "$r" "$a" "$t" overlap_delay_pct), want 25.000 / 63.750"
done
[ "$(head -n 1 "$o")" = "run_id,algorithm,transport,bytes,scenario,rank,copy_us,reduce_us,delay_us,overlap_reduce_pct,overlap_delay_pct,iterations" ] &&
  ok || bad "overlap.csv header: $(head -n 1 "$o")"
[ "$(rows "$o")" = 20 ] && ok || bad "overlap.csv: $(rows "$o") lines, want 5 rows x 4 ranks"
[ ! -e "$tmp/fake/timeline.csv" ] && ok || bad "--profile overlap wrote timeline.csv"
want=("33.333 33.333 0.000 50.000 80.000" "13.333 0.000 26.667 0.000 0.000"
      "26.667 13.333 0.000 50.000 75.000" "16.667 0.000 0.000 0.000 100.000")
for k in 0 1 2 3; do
  got="$(ocol "$o" ring ce $k copy_us) $(ocol "$o" ring ce $k reduce_us) $(ocol "$o" ring ce $k delay_us)"
  got="$got $(ocol "$o" ring ce $k overlap_reduce_pct) $(ocol "$o" ring ce $k overlap_delay_pct)"
  [ "$got" = "${want[$k]}" ] && ok || bad "overlap.csv ring/ce rank $k: '$got', want '${want[$k]}'"
done
[ "$(ocol "$o" stragglar sm 3 iterations)" = 3 ] && [ "$(ocol "$o" stragglar sm 3 bytes)" = 1048576 ] && ok ||
  bad "overlap.csv iterations/bytes: $(ocol "$o" stragglar sm 3 iterations) $(ocol "$o" stragglar sm 3 bytes)"
# CUPTI's calls: loaded once, each measured row enabled (3 kinds), disabled and flushed once
l=$tmp/fake.log
[ "$(grep -c '^register' "$l")" = 1 ] && [ "$(grep -c '^flush 1$' "$l")" = 5 ] &&
  [ "$(grep -c '^enable' "$l")" = 15 ] && [ "$(grep -c '^disable' "$l")" = 15 ] && ok ||
  bad "CUPTI calls: $(sort "$l" | uniq -c | tr '\n' ' ')"
awk '/^enable/ { if (on) bad = 1; n++; if (n == 3) { on = 1; n = 0 } }
     /^flush/ { if (!on) bad = 1; on = 0 } END { exit bad || on }' "$l" && ok || bad "enable/flush out of order: $(tr '\n' ' ' <"$l")"
# summary.md and the picture
s=$tmp/fake/summary.md
grep -q '^## Overlap (--profile overlap)$' "$s" && ok || bad "summary.md: no overlap section"
grep -qE '^\| straggler 1 \+1 ms \| 1 MiB \| ring/ce \| 25\.0 \| 63\.8 \|$' "$s" && ok || bad "summary.md: no ring/ce overlap line: $(grep '^|' "$s" | tail -5)"
[ "$(grep -cE '^\| straggler 1 \+1 ms \| 1 MiB \| ' "$s")" -ge 5 ] && ok || bad "summary.md: not every profiled row"
if command -v gnuplot >/dev/null 2>&1; then
  p=$tmp/fake/plots/overlap_1MiB
  [ -s "$p.png" ] && [ "$(head -c 4 "$p.png" | tail -c 3)" = PNG ] && [ -s "$p.svg" ] && ok ||
    bad "no overlap picture: $(ls "$tmp/fake/plots")"
  grep -q 'plots/overlap_1MiB.png' "$s" && ok || bad "summary.md does not link the overlap picture"
else
  echo "(gnuplot missing: the picture check is skipped)"
fi

# 3. ranks are found by device: --gpus 3,2,1,0 puts device 3 on rank 0
run rev --gpus 3,2,1,0 --algo ring --transport ce --straggler 2:1ms
o=$tmp/rev/overlap.csv
[ "$(ocol "$o" ring ce 0 copy_us) $(ocol "$o" ring ce 0 overlap_delay_pct)" = "16.667 100.000" ] &&
  [ "$(ocol "$o" ring ce 3 copy_us) $(ocol "$o" ring ce 3 overlap_delay_pct)" = "33.333 80.000" ] &&
  [ "$(ocol "$o" ring ce 2 delay_us)" = 26.667 ] && ok || bad "--gpus 3,2,1,0: $(tail -n 4 "$o" | tr '\n' ' ')"

# 4. three GPUs: device 3's records are not the run's; stragglar is n/a (no row, no flush)
run three --gpus 0,1,2 --algo ring,stragglar --transport ce --straggler 1:1ms
r=$tmp/three/results.csv o=$tmp/three/overlap.csv
[ "$(rcol "$r" ring ce overlap_reduce_pct) $(rcol "$r" ring ce overlap_delay_pct)" = "33.333 51.667" ] && ok ||
  bad "3 GPUs: $(rcol "$r" ring ce overlap_reduce_pct) $(rcol "$r" ring ce overlap_delay_pct), want 33.333 51.667"
[ "$(rcol "$r" stragglar ce status)" = n/a ] && [ -z "$(rcol "$r" stragglar ce overlap_reduce_pct)" ] &&
  [ "$(rows "$o")" = 3 ] && [ "$(grep -c '^flush' "$tmp/three.log")" = 1 ] && ok ||
  bad "n/a row: $(rcol "$r" stragglar ce status), $(rows "$o") overlap lines, $(grep -c '^flush' "$tmp/three.log") flushes"

# 5. no MEMCPY2 from this CUPTI: the run goes on, quietly; rank 1 (its only copy was one) copied
#    nothing, so its shares are empty and the means are over the other three ranks
AR_FAKE_CUPTI_FAIL=memcpy2 run nop2p --gpus 0,1,2,3 --algo ring --transport sm --straggler 1:1ms
r=$tmp/nop2p/results.csv o=$tmp/nop2p/overlap.csv
[ "$(warnings "$tmp/nop2p.err")" = 0 ] &&
  [ "$(rcol "$r" ring sm overlap_reduce_pct) $(rcol "$r" ring sm overlap_delay_pct)" = "33.333 85.000" ] &&
  [ "$(ocol "$o" ring sm 1 copy_us)|$(ocol "$o" ring sm 1 overlap_reduce_pct)|$(ocol "$o" ring sm 1 overlap_delay_pct)" = "0.000||" ] &&
  ok || bad "no MEMCPY2: $(rcol "$r" ring sm overlap_reduce_pct) $(rcol "$r" ring sm overlap_delay_pct); $(cat "$tmp/nop2p.err")"

# 6. without --profile: no CUPTI call, no overlap.csv or timeline.csv, the columns there but empty
AR_CUPTI_LIB=$F AR_FAKE_CUPTI_LOG=$tmp/off.log "$S" run --gpus 0,1 --algo ring --transport ce -b 1M -e 1M \
  -n 1 -w 0 --out "$tmp/off" >/dev/null 2>&1
[ ! -e "$tmp/off/overlap.csv" ] && [ ! -e "$tmp/off/timeline.csv" ] && [ ! -e "$tmp/off.log" ] && [ "$(rcol "$tmp/off/results.csv" ring ce status)" = ok ] &&
  [ -z "$(rcol "$tmp/off/results.csv" ring ce overlap_delay_pct)" ] && ok || bad "--profile off touched CUPTI or wrote overlap"
! grep -q '^## Overlap' "$tmp/off/summary.md" && ok || bad "summary.md has an overlap section without --profile"

# 7. scenarios of a config share one overlap.csv; only the profiled ones write to it
printf -- '--algo ring --transport ce -b 1M -e 1M -n 1 -w 0 --gpus 0,1,2,3\n[scenario plain]\n[scenario prof]\n--profile overlap\n[scenario late]\n--profile overlap --straggler 2:1ms\n' >"$tmp/scen.conf"
AR_CUPTI_LIB=$F "$S" run --config "$tmp/scen.conf" --out "$tmp/scen" >/dev/null 2>"$tmp/scen.err"
o=$tmp/scen/overlap.csv r=$tmp/scen/results.csv
sc=$(col "$o" scenario)
[ "$(grep -c '^run_id' "$o")" = 1 ] && [ "$(awk -F, -v c="$sc" 'NR > 1 { print $c }' "$o" | sort | uniq -c | tr -s ' ' | tr '\n' ';')" = " 4 late; 4 prof;" ] &&
  ok || bad "config scenarios: $(cat "$o")"
awk -F, -v s="$(col "$r" scenario)" -v p="$(col "$r" overlap_reduce_pct)" \
  'NR > 1 { n++; if (($s == "plain") != ($p == "")) bad = 1 } END { exit bad || n != 3 }' "$r" && ok ||
  bad "config: overlap columns filled for the wrong scenarios: $(cat "$r")"

# 8. CUPTI fails: one warning line, every row written, the columns empty, overlap.csv empty,
#    and CUPTI left alone after the failure
for how in missing enable flush version; do
  if [ "$how" = missing ]; then LIB=/nonexistent/libcupti.so run "f_$how" --gpus 0,1 --algo ring,rhd,nccl --transport ce,sm; rc=$?
  else AR_FAKE_CUPTI_FAIL=$how run "f_$how" --gpus 0,1 --algo ring,rhd,nccl --transport ce,sm; rc=$?; fi
  r=$tmp/f_$how/results.csv e=$tmp/f_$how.err
  filled=$(awk -F, -v a="$(col "$r" overlap_reduce_pct)" -v b="$(col "$r" overlap_delay_pct)" 'NR > 1 && ($a != "" || $b != "")' "$r" | wc -l)
  [ "$rc" -eq 0 ] && [ "$(rows "$r")" = 5 ] && [ "$filled" = 0 ] && [ "$(rows "$tmp/f_$how/overlap.csv")" = 0 ] && ok ||
    bad "CUPTI $how: exit $rc, $(rows "$r") rows, $filled with overlap values: $(cat "$e")"
  [ "$(wc -l <"$e")" = 1 ] && [ "$(warnings "$e")" = 1 ] && ok || bad "CUPTI $how: want one warning: $(cat "$e")"
done
grep -q "cannot load CUPTI: AR_CUPTI_LIB=/nonexistent/libcupti.so" "$tmp/f_missing.err" && ok || bad "missing: $(cat "$tmp/f_missing.err")"
grep -q "cuptiActivityEnable(MEMCPY): CUPTI_ERROR_NOT_INITIALIZED" "$tmp/f_enable.err" && ok || bad "enable: $(cat "$tmp/f_enable.err")"
grep -q "cuptiActivityFlushAll: CUPTI_ERROR_UNKNOWN" "$tmp/f_flush.err" && ok || bad "flush: $(cat "$tmp/f_flush.err")"
grep -q "CUPTI API version 120000" "$tmp/f_version.err" && ok || bad "version: $(cat "$tmp/f_version.err")"
[ "$(grep -c '^enable' "$tmp/f_enable.log")" = 1 ] && [ "$(grep -c '^enable' "$tmp/f_flush.log")" = 3 ] &&
  [ ! -s "$tmp/f_version.log" ] && ok ||
  bad "CUPTI called after failing: enable log $(grep -c '^enable' "$tmp/f_enable.log"), flush log $(grep -c '^enable' "$tmp/f_flush.log")"

# 9. the real libcupti (if this machine has one) in a process with no GPU: it fails, the run
#    does not (skipped where a GPU is present: the simulator is not a GPU program)
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "(a GPU is present: the real-CUPTI-without-a-GPU check is skipped)"
else
  env -u AR_CUPTI_LIB "$S" run --profile overlap --gpus 0,1,2,3 --algo ring,stragglar --transport ce,sm \
    --straggler 1:2ms -b 1M -e 2M -n 2 -w 1 --out "$tmp/real" >/dev/null 2>"$tmp/real.err"; rc=$?
  r=$tmp/real/results.csv
  [ "$rc" -eq 0 ] && [ "$(rows "$r")" = 8 ] && [ "$(wc -l <"$tmp/real.err")" = 1 ] && [ "$(warnings "$tmp/real.err")" = 1 ] &&
    [ -z "$(rcol "$r" ring ce overlap_reduce_pct)" ] && ok ||
    bad "real CUPTI without a GPU: exit $rc, $(rows "$r") rows: $(cat "$tmp/real.err")"
fi

# 10. --profile timeline: the same recording (the same calls, the same figures: overlap.csv
#     equal to overlap's but for run_id) and timeline.csv, 12 of the fake's 14 records per row
#     (device 7 is not the run's, the MEMCPY2 record is made once); by start, then rank, end
PROF=timeline run tl --gpus 0,1,2,3 --algo nccl,ring,stragglar --transport ce,sm --straggler 1:1ms; rc=$?
t=$tmp/tl/timeline.csv r=$tmp/tl/results.csv
[ "$rc" -eq 0 ] && [ "$(rows "$r")" = 5 ] && [ "$(warnings "$tmp/tl.err")" = 0 ] && ok ||
  bad "timeline run: exit $rc, $(rows "$r") rows: $(cat "$tmp/tl.err")"
[ "$(rcol "$r" ring ce overlap_reduce_pct) $(rcol "$r" ring ce overlap_delay_pct)" = "25.000 63.750" ] && ok ||
  bad "timeline: overlap columns $(rcol "$r" ring ce overlap_reduce_pct) $(rcol "$r" ring ce overlap_delay_pct)"
cmp -s <(cut -d, -f2- "$tmp/fake/overlap.csv") <(cut -d, -f2- "$tmp/tl/overlap.csv") && ok ||
  bad "timeline changed overlap.csv: $(diff <(cut -d, -f2- "$tmp/fake/overlap.csv") <(cut -d, -f2- "$tmp/tl/overlap.csv") | head -5)"
cmp -s <(sort "$tmp/fake.log") <(sort "$tmp/tl.log") && ok || bad "timeline: other CUPTI calls: $(sort "$tmp/tl.log" | uniq -c | tr '\n' ' ')"
[ "$(head -n 1 "$t")" = "run_id,algorithm,transport,bytes,scenario,rank,kind,name,start_us,end_us,peer,copy_bytes,stream" ] &&
  ok || bad "timeline.csv header: $(head -n 1 "$t")"
[ "$(rows "$t")" = 60 ] && ok || bad "timeline.csv: $(rows "$t") lines, want 5 rows x 12"
# tline FILE ALGO TRANSPORT: that row's lines from the rank column on
tline() {
  awk -F, -v a="$2" -v t="$3" -v c="$(col "$1" algorithm)" -v tc="$(col "$1" transport)" \
    -v rc="$(col "$1" rank)" 'NR > 1 && $c == a && $tc == t { s = $rc; for (i = rc + 1; i <= NF; i++) s = s "," $i; print s }' "$1"
}
want="0,copy,dtod,0.000,100.000,-1,1048576,0
0,kernel,,0.000,1000.000,-1,0,0
1,delay,_Z12delay_kernely,0.000,80.000,-1,0,0
3,copy,_Z22ncclDevKernel_SendRecv24ncclDevKernelArgsStorageILm4096E,0.000,50.000,-1,0,0
3,copy-host,dtoh,0.000,200.000,-1,1048576,0
3,kernel,_Z11fill_kernelIfEvPT_miy,0.000,300.000,-1,0,0
3,kernel,_Z11gate_kernelPVKyyyPj,0.000,300.000,-1,0,0
3,copy,dtod,10.000,20.000,-1,1048576,0
2,copy+reduce,_Z9sm_kernelIfLb0EEvPK5sm_opij,20.000,60.000,-1,0,0
2,copy,ptop,40.000,100.000,-1,1048576,0
0,reduce,_Z10sum_kernelIfEvPT_7tp_srcsim,50.000,150.000,-1,0,0
1,copy,ptop,100.000,140.000,2,0,0"
got=$(tline "$t" ring ce)
[ "$got" = "$want" ] && ok || bad "timeline.csv ring/ce: got
$got
want
$want"
for at in nccl/nccl ring/sm stragglar/ce stragglar/sm; do
  [ "$(tline "$t" "${at%/*}" "${at#*/}")" = "$want" ] && ok || bad "timeline.csv $at: $(tline "$t" "${at%/*}" "${at#*/}" | head -3)"
done
# the shared columns: the run's id, bytes, an empty scenario
rid=$(awk -F, -v c="$(col "$r" run_id)" 'NR == 2 { print $c }' "$r")
awk -F, -v want="$rid" 'NR > 1 && ($1 != want || $4 != 1048576 || $5 != "") { bad = 1 } END { exit bad }' "$t" && ok ||
  bad "timeline.csv run_id/bytes/scenario: $(sed -n 2p "$t"), results.csv run_id $rid"

# 11. ranks and peers by device: --gpus 3,2,1,0 (device 1, rank 2, copies to device 2, rank 1);
#     overlap,timeline is the same as timeline
PROF=overlap,timeline run tlrev --gpus 3,2,1,0 --algo ring --transport ce --straggler 2:1ms
got=$(tline "$tmp/tlrev/timeline.csv" ring ce)
printf '%s\n' "$got" | grep -qx '2,copy,ptop,100.000,140.000,1,0,0' &&
  printf '%s\n' "$got" | grep -qx '3,copy,dtod,0.000,100.000,-1,1048576,0' &&
  printf '%s\n' "$got" | grep -qx '0,copy-host,dtoh,0.000,200.000,-1,1048576,0' && [ "$(printf '%s\n' "$got" | wc -l)" = 12 ] &&
  [ "$(ocol "$tmp/tlrev/overlap.csv" ring ce 0 copy_us)" = 16.667 ] && ok || bad "timeline --gpus 3,2,1,0: $got"

# 12. three GPUs: device 3's records are skipped; the origin is still the earliest start (0)
PROF=timeline run tl3 --gpus 0,1,2 --algo ring --transport sm --straggler 1:1ms
got=$(tline "$tmp/tl3/timeline.csv" ring sm)
[ "$(printf '%s\n' "$got" | wc -l)" = 7 ] && ! printf '%s\n' "$got" | grep -q '^3,' &&
  [ "$(printf '%s\n' "$got" | head -n 1)" = "0,copy,dtod,0.000,100.000,-1,1048576,0" ] && ok || bad "timeline on 3 GPUs: $got"

# 13. scenarios: timeline.csv is created once, when a scenario asks for it, and holds only those
printf -- '--algo ring --transport ce -b 1M -e 1M -n 1 -w 0 --gpus 0,1,2,3\n[scenario plain]\n[scenario prof]\n--profile overlap\n[scenario tl]\n--profile timeline\n[scenario tl2]\n--profile overlap,timeline --straggler 2:1ms\n' >"$tmp/tlscen.conf"
AR_CUPTI_LIB=$F "$S" run --config "$tmp/tlscen.conf" --out "$tmp/tlscen" >/dev/null 2>"$tmp/tlscen.err"
t=$tmp/tlscen/timeline.csv
sc=$(col "$t" scenario)
[ "$(grep -c '^run_id' "$t")" = 1 ] && [ "$(awk -F, -v c="$sc" 'NR > 1 { print $c }' "$t" | sort | uniq -c | tr -s ' ' | tr '\n' ';')" = " 12 tl; 12 tl2;" ] &&
  [ "$(rows "$tmp/tlscen/overlap.csv")" = 12 ] && ok || bad "timeline scenarios: $(cut -d, -f5 "$t" | sort | uniq -c | tr '\n' ' '); $(cat "$tmp/tlscen.err")"
printf -- '--algo ring --transport ce -b 1M -e 1M -n 1 -w 0 --gpus 0,1\n[scenario prof]\n--profile overlap\n' >"$tmp/notl.conf"
AR_CUPTI_LIB=$F "$S" run --config "$tmp/notl.conf" --out "$tmp/notl" >/dev/null 2>&1
[ -e "$tmp/notl/overlap.csv" ] && [ ! -e "$tmp/notl/timeline.csv" ] && ok || bad "timeline.csv written without --profile timeline"

# 14. CUPTI fails under timeline: one warning naming it, rows written, timeline.csv header only
PROF=timeline AR_FAKE_CUPTI_FAIL=flush run tlfail --gpus 0,1 --algo ring,rhd --transport ce; rc=$?
e=$tmp/tlfail.err
[ "$rc" -eq 0 ] && [ "$(rows "$tmp/tlfail/results.csv")" = 2 ] && [ "$(rows "$tmp/tlfail/timeline.csv")" = 0 ] &&
  [ "$(wc -l <"$e")" = 1 ] && grep -q '^arbench: --profile timeline: cuptiActivityFlushAll: .* and timeline.csv gets no more lines$' "$e" &&
  ok || bad "timeline, CUPTI fails: exit $rc, $(rows "$tmp/tlfail/timeline.csv") timeline lines: $(cat "$e")"

# 15. --profile timeline beside --compute: a row's three lanes recorded together, so the overlap
#     columns stay empty and overlap.csv is not written; timeline.csv has the fake's records
#     (12 per row); --profile overlap alone is refused there (test_compute_sim)
PROF=timeline run cl --gpus 0,1,2,3 --algo ring --transport ce --compute membw; rc=$?
r=$tmp/cl/results.csv
[ "$rc" -eq 0 ] && [ "$(rows "$r")" = 1 ] && [ "$(rcol "$r" ring ce status)" = ok ] && ok ||
  bad "timeline beside compute: exit $rc, $(rows "$r") rows: $(cat "$tmp/cl.err")"
[ "$(rcol "$r" ring ce overlap_reduce_pct)|$(rcol "$r" ring ce overlap_delay_pct)" = "|" ] && [ ! -e "$tmp/cl/overlap.csv" ] &&
  ok || bad "timeline beside compute: overlap figures $(rcol "$r" ring ce overlap_reduce_pct), overlap.csv $(ls "$tmp/cl")"
[ "$(rows "$tmp/cl/timeline.csv")" = 12 ] && [ -n "$(rcol "$r" ring ce compute)" ] && ok ||
  bad "timeline beside compute: timeline.csv $(rows "$tmp/cl/timeline.csv") lines, compute '$(rcol "$r" ring ce compute)'"

finish
