#!/usr/bin/env bash
# trace.json (--profile timeline) without a GPU: the simulator (tests/sim/fake_gpu.c) with the
# stand-in CUPTI (tests/sim/fake_cupti.c, whose records overlap on one stream) and --phases;
# tests/check_trace.py validates the file against the Chrome trace event format (fields,
# metadata, every slice nested on its track) and finds every timeline.csv record and every
# phases.csv phase of the profiled rows in it. Also: one file for a config's scenarios, none
# without timeline, a valid empty trace when CUPTI fails.
. "$(dirname "$0")/lib.sh"
B=${B:-build}
. tests/sim/build.sh
sim_build trace
cupti_build trace
if ! command -v python3 >/dev/null 2>&1; then
  echo "skipped: trace.json validation (python3 is not installed)"
  finish
fi
# run NAME ARGS...: the simulator with the fake CUPTI into $tmp/NAME
run() {
  local name=$1; shift
  AR_CUPTI_LIB=$F "$S" run --out "$tmp/$name" -b 1M -e 1M -n 2 -w 1 "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
}
# valid NAME: check_trace.py passes on the run folder
valid() {
  local out
  out=$(python3 tests/check_trace.py "$tmp/$1" 2>&1) && ok || bad "$1: trace.json: $out"
}

run tl --profile timeline --phases --gpus 0,1,2,3 --algo nccl,ring,stragglar --transport ce,sm --straggler 1:1ms; rc=$?
[ "$rc" -eq 0 ] && [ -s "$tmp/tl/trace.json" ] && ok || bad "timeline run: exit $rc, no trace.json: $(cat "$tmp/tl.err")"
valid tl
# every profiled row is a process; the overlapping fake records got a second lane
n=$(grep -c '"name":"process_name"' "$tmp/tl/trace.json")
[ "$n" = 5 ] && ok || bad "trace.json: $n processes, want 5 rows"
grep -q '"args":{"name":"rank 0 stream 0 (2)"}' "$tmp/tl/trace.json" && ok || bad "no second lane for the overlapping records"
grep -q '"args":{"name":"ring/ce 1 MiB"}' "$tmp/tl/trace.json" && ok || bad "process names: $(grep -o '"process_name","args":{"name":"[^"]*"' "$tmp/tl/trace.json" | head -3)"
[ "$(grep -c '"cat":"phase"' "$tmp/tl/trace.json")" -gt 0 ] && ok || bad "no phases in trace.json"
grep -q '"name":"delay","cat":"phase"' "$tmp/tl/trace.json" && grep -q '"name":"allreduce","cat":"phase"' "$tmp/tl/trace.json" && ok ||
  bad "the straggler's delay and the collective are not phases in trace.json"
# a peer copy names its peer rank, copies their bytes
grep -q '"cat":"copy","pid":[0-9]*,"tid":[0-9]*,"ts":[0-9.]*,"dur":[0-9.]*,"args":{"rank":1,"device":1,"stream":0,"peer":2,"bytes":0}' "$tmp/tl/trace.json" && ok ||
  bad "the peer copy's args: $(grep -o '"name":"ptop"[^}]*}' "$tmp/tl/trace.json" | head -2)"
# the report points at it
grep -q '<a href="trace.json">trace.json</a>' "$tmp/tl/report.html" && ok || bad "report.html does not link trace.json"

# ranks by device (--gpus 3,2,1,0); no phases
run rev --profile overlap,timeline --gpus 3,2,1,0 --algo ring --transport ce --straggler 2:1ms
valid rev
# scenarios of a config share one trace; only the timeline ones are in it
printf -- '--algo ring --transport ce -b 1M -e 1M -n 1 -w 0 --gpus 0,1,2,3\n[scenario plain]\n[scenario prof]\n--profile overlap\n[scenario tl]\n--profile timeline --phases\n[scenario tl2]\n--profile timeline --straggler 2:1ms\n' >"$tmp/scen.conf"
AR_CUPTI_LIB=$F "$S" run --config "$tmp/scen.conf" --out "$tmp/scen" >/dev/null 2>"$tmp/scen.err"
valid scen
[ "$(grep -o '"process_name","args":{"name":"[^"]*"' "$tmp/scen/trace.json" | sed 's/.*"name":"//; s/"$//' | tr '\n' ';')" = \
  "ring/ce 1 MiB, scenario tl;ring/ce 1 MiB, scenario tl2;" ] && ok || bad "scenarios in trace.json: $(grep -o '"process_name","args":{"name":"[^"]*"' "$tmp/scen/trace.json")"
# no timeline, no trace
run ov --profile overlap --gpus 0,1 --algo ring --transport ce
[ ! -e "$tmp/ov/trace.json" ] && ok || bad "--profile overlap wrote trace.json"
# CUPTI fails: the trace is valid and empty
AR_FAKE_CUPTI_FAIL=flush run fail --profile timeline --gpus 0,1 --algo ring,rhd --transport ce
valid fail
[ "$(grep -c '"ph":"X"' "$tmp/fail/trace.json")" = 0 ] && ok || bad "CUPTI failed but trace.json has slices"
finish
