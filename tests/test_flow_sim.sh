#!/usr/bin/env bash
# `arbench model --pricing flows` against a second, independent simulator (tests/flow_sim.py: the
# flow mode of docs/model.md written again from its definition, every rate recomputed from
# scratch at every event) on the generators' schedules: switch, mesh and tori, with alpha, hop
# latency, a per-message cost, sums and a late straggler; and the command line: the pricing
# named in the single case, the table and the CSV, bad input in one line.
. "$(dirname "$0")/lib.sh"
T=$tmp

if ! command -v python3 >/dev/null; then
  if [ "${CI:-}" = true ]; then bad "python3 is missing: the second simulator cannot run"
  else echo "skipped: python3 missing"; fi
  finish; exit
fi

# value KEY TEXT: the number after "KEY: " in TEXT
value() { printf '%s\n' "$2" | sed -n "s/^$1: //p" | head -n 1; }
# close A B TOL: |A - B| <= TOL * |B| + 0.0005 (arbench prints 3 decimals)
close() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; exit !(d <= t * m + 0.0005) }'; }

HW=(--alpha 2us --hop-latency 0.5us --bw 100GB/s)
PY_HW=(--alpha 2 --hop 0.5 --bw 100e9)
# same ALGO N TOPO DIMS BYTES [MSG_US [GAMMA_BPS [STRAGGLER DELAY_US [OVERLAP]]]]: the flow mode and
# flow_sim.py (OVERLAP 1: --gamma-overlap)
# agree to 1e-6 and the printed digits on the time (and on the precondition's end where there is
# one)
same() {
  local algo=$1 n=$2 topo=$3 dims=$4 bytes=$5 msg=${6:-0} gamma=${7:-0} st=${8:--1} delay=${9:-0}
  local ov=${10:-0}
  local net=() sched=() extra=() pyx=()
  case $topo in
    torus) net=(--torus "$dims"); sched=(--torus "$dims") ;;
    mesh) net=(--topology mesh) ;;
  esac
  [ "$gamma" != 0 ] && extra+=(--gamma "$gamma") && pyx+=(--gamma "$gamma")
  [ "$ov" = 1 ] && extra+=(--gamma-overlap) && pyx+=(--gamma-overlap)
  if [ "$st" -ge 0 ]; then
    extra+=(--straggler "$st:${delay}us"); sched+=(--straggler "$st"); pyx+=(--straggler "$st" --delay "$delay")
  fi
  local what="$algo n=$n $topo $dims ${bytes}B msg=$msg gamma=$gamma straggler=$st:$delay overlap=$ov"
  if ! $A schedule --algo "$algo" --ranks "$n" "${sched[@]}" --format json >"$T/s.json" 2>"$T/err"; then
    bad "$what: schedule: $(cat "$T/err")"; return
  fi
  local c p
  c=$($A model --algo "$algo" --ranks "$n" "${net[@]}" --sizes "$bytes" "${HW[@]}" --msg-cost "${msg}us" \
      "${extra[@]}" --pricing flows 2>&1)
  p=$(python3 tests/flow_sim.py "$T/s.json" "$topo" "$bytes" --dims "$dims" "${PY_HW[@]}" --msg "$msg" \
      "${pyx[@]}" 2>&1)
  if ! close "$(value model_time_us "$c")" "$(value time_us "$p")" 1e-6; then
    bad "$what: flows $(value model_time_us "$c"), flow_sim.py $(value time_us "$p"): $c // $p"; return
  fi
  local pc; pc=$(value precondition_us "$c")
  if [ -n "$pc" ] && ! close "$pc" "$(value pre_us "$p")" 1e-6; then
    bad "$what: precondition $pc, flow_sim.py $(value pre_us "$p")"; return
  fi
  ok
}

# one port a GPU (switch), a link a pair (mesh)
same ring 6 switch "" 1048576 0.5
same direct 8 switch "" 1048576 1 50e9
same rhd 8 mesh "" 1048576 1
same direct 4 mesh "" 4194304 0.25
same stragglar 8 switch "" 1048576 0.5 200e9
same stragglar 4 mesh "" 16777216 0 0 3 100
same ring 8 switch "" 1048576 0 0 5 30
same bcast 8 switch "" 1048576 0.5 0 7 50
# tori: multiport collectives, rings of unequal length, ties both ways round a ring
same bucket 16 torus 8x2 1048576 1
same bucket-sync 16 torus 8x2 1048576 1
same bucket 32 torus 4x8 4194304 0
same swing-mp 32 torus 8x4 1048576 1
same rd-torus 16 torus 4x4 65536 0.5
same swing-lat-torus 64 torus 4x4x4 1048576 0
same ring-ham 16 torus 4x4 1048576 1
same rhd-torus 64 torus 8x8 1048576 0.25
# one-port schedules on a torus: routes of several hops, a late straggler's sends held by the
# ports they enter ranks by
same stragglar 8 torus 2x4 1048576 0 0 3 20
same stragglar 8 torus 4x2 1048576 0.5 0 5 0
# sums overlapped with their bytes (--gamma-overlap): a rank's summing shared by the flows that
# reduce there, binding (gamma below what its ports bring) and not
same ring 6 switch "" 1048576 0.5 50e9 -1 0 1
same direct 8 switch "" 1048576 1 300e9 -1 0 1
same rhd 8 mesh "" 1048576 0 40e9 -1 0 1
same stragglar 8 switch "" 1048576 0.5 60e9 7 50 1
same bucket 16 torus 8x2 1048576 1 150e9 -1 0 1
same swing-mp 32 torus 8x4 1048576 0 250e9 -1 0 1
same rhd-torus 64 torus 8x8 1048576 0.25 80e9 -1 0 1
# ... where they hide (gamma above a rank's ports) the same as gamma free; where they bind,
# faster than summed after the bytes
t_free=$(value model_time_us "$($A model --algo swing-mp --torus 8x4 --sizes 1M "${HW[@]}" --pricing flows)")
t_hid=$(value model_time_us "$($A model --algo swing-mp --torus 8x4 --sizes 1M "${HW[@]}" --pricing flows --gamma 400GB/s --gamma-overlap)")
[ "$t_free" = "$t_hid" ] && ok || bad "swing-mp 8x4, sums hidden at 400 GB/s: $t_hid, free $t_free"
t_ov=$(value model_time_us "$($A model --algo swing-mp --torus 8x4 --sizes 1M "${HW[@]}" --pricing flows --gamma 250GB/s --gamma-overlap)")
t_ser=$(value model_time_us "$($A model --algo swing-mp --torus 8x4 --sizes 1M "${HW[@]}" --pricing flows --gamma 250GB/s)")
awk -v f="$t_free" -v o="$t_ov" -v s="$t_ser" 'BEGIN { exit !(f < o && o < s) }' && ok ||
  bad "swing-mp 8x4 at 250 GB/s: free $t_free < overlapped $t_ov < after $t_ser"

# the check has teeth: on 8x2 the unsynchronised bucket's rings overlap, so the two pricings
# differ there (and flow_sim.py agreed with the flow mode above)
fl=$($A model --algo bucket --torus 8x2 --sizes 1M "${HW[@]}" --pricing flows 2>&1)
ro=$($A model --algo bucket --torus 8x2 --sizes 1M "${HW[@]}" --pricing rounds 2>&1)
if ! close "$(value model_time_us "$fl")" "$(value model_time_us "$ro")" 1e-3; then ok
else bad "bucket 8x2: flows and rounds should differ: $fl // $ro"; fi

# the command line names the pricing: the single case, the table, the CSV's gpu column
out=$($A model --algo ring --ranks 4 --sizes 1M --pricing flows 2>&1)
[ "$(value pricing "$out")" = flows ] && [ -n "$(value flows "$out")" ] && ok || bad "single case: $out"
out=$($A model --algo ring --ranks 4 --sizes 1M 2>&1)
[ "$(value pricing "$out")" = rounds ] && ok || bad "single case, rounds by default: $out"
out=$($A model --algo ring,rhd --ranks 4 --sizes 1M,2M --pricing flows --csv "$T/f.csv" 2>&1)
printf '%s\n' "$out" | grep -qx '# pricing: flows' && ok || bad "table: $out"
gc=$(col "$T/f.csv" gpu)
[ "$(tail -n +2 "$T/f.csv" | cut -d, -f"$gc" | sort -u)" = "model (flows)" ] && ok || bad "csv: $(cat "$T/f.csv")"
$A model --algo ring --ranks 4 --sizes 1M --csv "$T/r.csv" >/dev/null 2>&1
[ "$(tail -n +2 "$T/r.csv" | cut -d, -f"$gc" | sort -u)" = "model (rounds)" ] && ok || bad "csv: $(cat "$T/r.csv")"
# a per-message cost is printed where given, and a transport brings its own
out=$($A model --algo direct --ranks 4 --sizes 1K --msg-cost 2us 2>&1)
[ "$(value msg_cost_us "$out")" = 2 ] && ok || bad "msg cost line: $out"

# bad input: one line naming the flag and the value, exit 2
one_line() {
  local flag=$1 val=$2; shift 2
  local out err rc
  out=$("$@" 2>/dev/null); err=$("$@" 2>&1 >/dev/null); rc=$?
  if [ "$rc" -eq 2 ] && [ -z "$out" ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] &&
     printf '%s' "$err" | grep -qF -- "$flag: bad value '$val'"; then ok
  else bad "$* -> want exit 2 and one line naming $flag '$val', got $rc '$out' '$err'"; fi
}
one_line --pricing events $A model --algo ring --ranks 4 --sizes 1M --pricing events
one_line --msg-cost -1us $A model --algo ring --ranks 4 --sizes 1M --msg-cost -1us
one_line --topology mesh $A model --algo ring --ranks 100 --sizes 1M --topology mesh
one_line --gamma-overlap "" $A model --algo ring --ranks 4 --sizes 1M --gamma-overlap
finish
