#!/usr/bin/env bash
# arbench import nccl-tests on logs that are not what nccl-tests writes: each figure of a
# result line is range-checked and checked against the others (a size against count x type,
# a time above 0 and finite, algbw against size / time, busbw against algbw x 2(n-1)/n, #wrong
# within the elements, the sizes against the header's range), so each bad one is refused with
# FILE:LINE and its value in one line, exit 2, no folder; the JSON's numbers likewise; --out and
# --scenario by the run folder's rules and the rule for a repeated flag; an import whose log has
# wrong elements is marked FAILED, exits 1 and is no baseline.
. "$(dirname "$0")/lib.sh"
G=tests/fixtures/nccl-tests/h200x2-g2-json.log # 2 x H200, 1 KiB to 1 MiB by 4, rows at lines 14-19
J=tests/fixtures/nccl-tests/h200x2-g2.json

# refused NAME PATTERN: importing $tmp/NAME exits 2 with one stderr line matching PATTERN
# ($f stands for the file), nothing on stdout, no folder
refused() {
  local f=$tmp/$1 pat=${2//\$f/$tmp\/$1} rc
  "$A" import nccl-tests "$f" --out "$tmp/out" >"$tmp/o" 2>"$tmp/e"; rc=$?
  [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] && grep -qE -- "$pat" "$tmp/e" && [ ! -s "$tmp/o" ] &&
    [ ! -e "$tmp/out" ] && ok || bad "$1: exit $rc, '$(cat "$tmp/e" "$tmp/o")' (want /$pat/)"
  rm -rf "$tmp/out"
}
# text NAME SED: $G through sed into $tmp/NAME
text() { sed "$2" $G >"$tmp/$1"; }
# json NAME SED: $J through sed into $tmp/NAME
json() { sed "$2" $J >"$tmp/$1"; }

# the base imports as it is (each case below changes one thing)
"$A" import nccl-tests $G --out "$tmp/base" >/dev/null 2>&1 && ok || bad "the base log does not import"

# ---- #wrong ----
text wrong63 '15s/       0    13.57/ 9223372036854775808    13.57/'
refused wrong63 "^arbench import: \\\$f:15: #wrong '9223372036854775808': not a count of wrong elements \(or N/A\)$"
text wrongmany '15s/       0    13.57/    2049    13.57/'
refused wrongmany "^arbench import: \\\$f:15: #wrong 2049 is more than the 1024 elements x 2 ranks$"
text wronghalf '15s/       0    13.57/     1.5    13.57/'
refused wronghalf "^arbench import: \\\$f:15: #wrong '1.5': not a count"
text wrongneg '15s/       0    13.57/      -3    13.57/'
refused wrongneg "^arbench import: \\\$f:15: #wrong '-3': not a count"

# ---- times: above 0, finite, plain decimals ----
text tneg '15s/12.08/-12.08/'
refused tneg "^arbench import: \\\$f:15: time '-12.08': not a time in microseconds above 0$"
text thex '15s/12.08/0x1p4/'
refused thex "^arbench import: \\\$f:15: time '0x1p4': not a time"
text tbig '15s/12.08/1e400/'
refused tbig "^arbench import: \\\$f:15: time '1e400': not a time"
text tinf '15s/13.57/inf/'
refused tinf "^arbench import: \\\$f:15: time 'inf': not a time"
text tnan '15s/12.08/nan/'
refused tnan "^arbench import: \\\$f:15: time 'nan': not a time"
text tzero '15s/12.08/ 0.00/'
refused tzero "^arbench import: \\\$f:15: time '0.00': not a time in microseconds above 0$"

# ---- sizes: count x type, the header's range, each once ----
text count '15s/  1024     float/  1000     float/'
refused count "^arbench import: \\\$f:15: size 4096 is not count 1000 x 4 bytes \(float\)$"
text twice '16{p;s/.*/        4096          1024     float     sum      -1    12.08    0.34    0.34       0    13.57    0.30    0.30       0/}'
refused twice "^arbench import: \\\$f:17: size 4096 listed twice in the test from line 3 \(line 15 has it; only -N cycles repeat every size in order\)$"
text range '5s/maxBytes 1048576/maxBytes 262144/'
refused range "^arbench import: \\\$f:19: size 1048576 where the header's range \(1024 to 262144 by 4x\) gives 1024$"
text missing '17d'
refused missing "^arbench import: \\\$f:17: size 262144 where the header's range \(1024 to 1048576 by 4x\) gives 65536$"
text sizeexp '14s/        1024/         1e3/'
refused sizeexp "^arbench import: \\\$f:14: size '1e3': not a count of bytes$"
text size64 '14s/        1024/18446744073709551616/'
refused size64 "^arbench import: \\\$f:14: size '18446744073709551616': not a count of bytes$"

# ---- the other fields ----
text algbw '17s/ 4.84    4.84/ 9.84    9.84/'
refused algbw "^arbench import: \\\$f:17: algbw 9.84 GB/s is not size / time \(65536 B in 13.55 us: 4.837 GB/s\)$"
text busbw '18s/17.82   17.82/17.82   26.73/'
refused busbw "^arbench import: \\\$f:18: busbw 26.73 is not algbw 17.82 x 2\(n-1\)/n for the 2 ranks the log lists \(262144 bytes\)$"
text type '16s/float/float33/'
refused type "^arbench import: \\\$f:16: type 'float33': not a type nccl-tests prints$"
text redop '16s/sum /sums/'
refused redop "^arbench import: \\\$f:16: redop 'sums': not an operation nccl-tests prints$"
text root '16s/ -1 / x1 /'
refused root "^arbench import: \\\$f:16: root 'x1': not a rank \(or -1\)$"
text fields '16s/$/    7/'
refused fields "^arbench import: \\\$f:16: not an nccl-tests result line: 14 fields, want 13 "

# ---- the text around the figures ----
python3 -c 'import sys; d = open(sys.argv[1], "rb").read().split(b"\n"); d[15] = d[15][:30] + b"\0" + d[15][31:]; open(sys.argv[2], "wb").write(b"\n".join(d))' $G "$tmp/nul"
refused nul "^arbench import: \\\$f:16: a NUL byte at column 31$"
text inside '16a\
Segmentation fault (core dumped)'
refused inside "^arbench import: \\\$f:17: not nccl-tests output inside the table of the test from line 3: 'Segmentation fault \(core dumped\)'$"
text glued '19s/      -1  .*/      -1vm:2252:2260 [0] NCCL INFO Channel 00\/0 : 0[0] -> 1[1] via P2P/;19q'
refused glued "^arbench import: \\\$f:19: cut off inside a result line \(the file ends first\)$"
text concluded '3,22d'
refused concluded "^arbench import: \\\$f:3: a test's closing line without its results$"

# ---- JSON as nccl-tests -J writes it, and nothing else ----
json jneg 's/"size":1024,/"size":-1024,/'
refused jneg "^arbench import: \\\$f:1: results\[0\]: size or count is not a whole number of bytes or elements$"
json jfrac 's/"size":1024,/"size":1024.7,/'
refused jfrac "^arbench import: \\\$f:1: results\[0\]: size or count is not a whole number"
json jbig 's/"time":12.065800/"time":1e400/'
refused jbig "^arbench import: \\\$f:1: not nccl-tests JSON: a number beyond what a double holds$"
json jnan 's/"time":12.065800/"time":"nan"/'
refused jnan "^arbench import: \\\$f:1: results\[0\].out_of_place: time nan, alg_bw 0.084868, bus_bw 0.084868: a time above 0"
json jhex 's/"time":12.065800/"time":0x10/'
refused jhex "^arbench import: \\\$f:1: not nccl-tests JSON: ',' or a closing bracket was expected$"
json jempty 's/"results":\[.*\],"out_of_bounds"/"results":[],"out_of_bounds"/'
refused jempty "^arbench import: \\\$f:1: no results: the test from line 1 lists none$"
json jwrong 's/"nwrong":0.000000}/"nwrong":2.5}/'
refused jwrong "^arbench import: \\\$f:1: results\[0\].out_of_place: nwrong is not a count of wrong elements$"
json jcount 's/"count":256,//'
refused jcount "^arbench import: \\\$f:1: results\[0\]: size or count is not a whole number"

# ---- --out and --scenario: the run folder's rules, a flag of one value given once ----
mkdir -p "$tmp/used" && echo mine >"$tmp/used/notes.txt"
"$A" import nccl-tests $G --out "$tmp/used" >/dev/null 2>"$tmp/e"; rc=$?
[ "$rc" -eq 2 ] && [ "$(ls "$tmp/used")" = notes.txt ] && [ "$(cat "$tmp/used/notes.txt")" = mine ] &&
  grep -qx "arbench: --out: bad value '$tmp/used': the folder is not empty (an import makes a run folder of its own: name a new or empty one)" "$tmp/e" &&
  ok || bad "--out over a used folder: exit $rc, $(cat "$tmp/e"), holds $(ls "$tmp/used")"
"$A" import nccl-tests $G --out "$tmp/slash/" >/dev/null 2>&1; rc=$?
[ "$rc" -eq 0 ] && [ "$(awk -F, 'NR == 2 { print $1 }' "$tmp/slash/results.csv")" = slash ] && ok ||
  bad "--out DIR/: exit $rc, run_id '$(awk -F, 'NR == 2 { print $1 }' "$tmp/slash/results.csv")'"
expect 2 "^arbench: --out: bad value '$tmp/o2': given twice \(first '$tmp/o1'\): a flag that takes one value is given once$" \
  "$A" import nccl-tests $G --out "$tmp/o1" --out "$tmp/o2"
expect 2 "^arbench: --scenario: bad value 'b': given twice \(first 'a'\): a flag that takes one value is given once$" \
  "$A" import nccl-tests $G --scenario a --scenario b --out "$tmp/o3"
expect 2 "^arbench: --scenario: bad value '': a name of one line, not empty$" "$A" import nccl-tests $G --scenario "" --out "$tmp/o4"
expect 2 "^arbench: --out: bad value '': an empty path$" "$A" import nccl-tests $G --out ""
[ ! -e "$tmp/o1" ] && [ ! -e "$tmp/o2" ] && [ ! -e "$tmp/o3" ] && [ ! -e "$tmp/o4" ] && ok || bad "a refused import made a folder"
# the default folder is never reused: a second import of one file gets -2
mkdir -p "$tmp/cwd" && cp $G "$tmp/cwd/g2.log"
(cd "$tmp/cwd" && "$OLDPWD/$A" import nccl-tests g2.log && "$OLDPWD/$A" import nccl-tests g2.log) >/dev/null 2>&1
[ -s "$tmp/cwd/runs/nccl-tests-g2/results.csv" ] && [ -s "$tmp/cwd/runs/nccl-tests-g2-2/results.csv" ] &&
  [ "$(awk -F, 'NR == 2 { print $1 }' "$tmp/cwd/runs/nccl-tests-g2-2/results.csv")" = nccl-tests-g2-2 ] && ok ||
  bad "a second default import: $(ls "$tmp/cwd/runs" 2>&1)"

# ---- wrong elements: FAILED, exit 1, no baseline ----
text haswrong '16s/       0    13.48/       7    13.48/'
"$A" import nccl-tests "$tmp/haswrong" --out "$tmp/failed" >"$tmp/o" 2>&1; rc=$?
[ "$rc" -eq 1 ] && grep -qx "nccl-tests found wrong results: 1 row with status error in results.csv, 0 out of bounds values counted by nccl-tests" "$tmp/failed/FAILED" &&
  [ "$(awk -F, 'NR > 1 && $31 == "error" { print $14, $11, $30 }' "$tmp/failed/results.csv")" = "16384 out-of-place 7" ] && ok ||
  bad "wrong elements: exit $rc, $(cat "$tmp/o"), FAILED: $(cat "$tmp/failed/FAILED" 2>&1)"
expect 2 "^arbench: --baseline: bad value '$tmp/failed': that run is marked FAILED \(nccl-tests found wrong results" \
  "$A" run --dry-run --baseline "$tmp/failed" --sizes 1K --algo ring --ranks 2
expect 0 "" "$A" run --dry-run --baseline "$tmp/base" --sizes 1K --algo ring --ranks 2

finish
