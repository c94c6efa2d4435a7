#!/usr/bin/env bash
# arbench import nccl-tests on real nccl-tests output (tests/fixtures/nccl-tests, README there):
# every result line of the file becomes two rows (out of place, in place) whose times, algbw,
# busbw and #wrong are the file's own (recomputed here from the file with awk), the test's
# flags the scenario, its ranks, host, GPU, NCCL and -n read from its header; other
# collectives left out and said; JSON (-J) read like the text; a file cut off, a truncated
# result line, a foreign file or a folder holding results.csv refused with FILE:LINE, exit 2,
# no folder. The imported folder draws and summarises like a run.
. "$(dirname "$0")/lib.sh"
F=tests/fixtures/nccl-tests

# expected FILE...: "side bytes time algbw busbw wrong" of every all_reduce_perf result line,
# straight from the text (tests of other collectives skipped by their closing line)
expected() {
  awk '/^# *(nccl-tests version|[a-z_]+_perf|######## )/ && !/concluded/ { n = 0 }
       /^#.*Collective test concluded: / { if ($NF == "all_reduce_perf" || $NF == "") for (i = 1; i <= n; i++) print L[i]; n = 0; next }
       /^ *[0-9]+ +[0-9]+ / { if (NF == 13) { L[++n] = "out-of-place " $1 " " $6 " " $7 " " $8 " " $9; L[++n] = "in-place " $1 " " $10 " " $11 " " $12 " " $13 }
}' "$@" |
    sed 's/ N\/A$/ /' | sort
}
# got DIR: the same fields of DIR/results.csv
got() {
  local c=$1/results.csv
  awk -F, -v t="$(col "$c" transport)" -v b="$(col "$c" bytes)" -v m="$(col "$c" time_us_median)" \
      -v a="$(col "$c" algbw_gbps)" -v u="$(col "$c" busbw_gbps)" -v w="$(col "$c" wrong)" \
      'NR > 1 { printf "%s %s %g %g %g %s\n", $t, $b, $m, $a, $u, $w }' "$c" | sort
}
norm() { awk '{ printf "%s %s %g %g %g %s\n", $1, $2, $3, $4, $5, $6 }' | sort; }
# values DIR COLUMN: the distinct values of a column, "|"-joined in order of appearance
values() { awk -F, -v c="$(col "$1/results.csv" "$2")" 'NR > 1 && !s[$c]++ { printf "%s|", $c }' "$1/results.csv"; }

# ---- 1. text: four modes on 2 x H200 in one log, each test's flags its scenario ----
out=$("$A" import nccl-tests $F/h200x2-modes.log --out "$tmp/modes" 2>&1); rc=$?
[ "$rc" -eq 0 ] && [ "$(got "$tmp/modes")" = "$(expected $F/h200x2-modes.log | norm)" ] && ok ||
  bad "h200x2-modes: exit $rc ($out) or rows differ from the file: $(diff <(got "$tmp/modes") <(expected $F/h200x2-modes.log | norm) | head -n 4)"
[ "$(values "$tmp/modes" scenario)" = "-g 2 -R 0|-g 2 -R 1|-g 2 -R 2|-t 2 -g 1 -R 0|-t 2 -g 1 -R 1|-t 2 -g 1 -R 2|-t 2 -g 1 -R 0 (7)|-t 2 -g 1 -R 1 (8)|-t 2 -g 1 -R 2 (9)|" ] &&
  ok || bad "h200x2-modes scenarios: $(values "$tmp/modes" scenario)"
[ "$(values "$tmp/modes" source)$(values "$tmp/modes" algorithm)$(values "$tmp/modes" transport)" = "nccl-tests|nccl|out-of-place|in-place|" ] &&
  [ "$(values "$tmp/modes" n_gpus)$(values "$tmp/modes" host)$(values "$tmp/modes" gpu)$(values "$tmp/modes" nccl)$(values "$tmp/modes" iters)" = "2|vm|NVIDIA H200|2.28.3|20|" ] &&
  [ "$(values "$tmp/modes" status)$(values "$tmp/modes" dtype)" = "ok|float32|" ] && ok ||
  bad "h200x2-modes columns: $(sed -n 2p "$tmp/modes/results.csv")"
# a run's header: the reference run's, then the columns added since (the statistics columns)
case "$(head -n 1 "$tmp/modes/results.csv")" in
"$(head -n 1 runs/reference/h200x2-nccl-modes/results.csv | tr -d '\r'),row_key,n_samples,"*) ok ;;
*) bad "the header is not a run's results.csv header" ;;
esac
grep -qx 'nccl-tests command: all_reduce_perf -t 2 -g 1 -b 1K -e 1G -f 4 -R 2' "$tmp/modes/meta.txt" &&
  grep -qx 'nccl-tests: nThread 2 nGpus 1 minBytes 1024 maxBytes 1073741824 step: 4(factor) warmup iters: 1 iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0' "$tmp/modes/meta.txt" &&
  [ "$(grep -c '^--- test ' "$tmp/modes/meta.txt")" = 9 ] && ok || bad "h200x2-modes meta.txt: $(head -n 12 "$tmp/modes/meta.txt")"

# ---- 2. a hand-kept log of 4 x H200: commands in comments, no device lines, other collectives ----
out=$("$A" import nccl-tests $F/h200x4-mixed.txt --out "$tmp/mixed" 2>&1); rc=$?
[ "$rc" -eq 0 ] && [ "$(got "$tmp/mixed")" = "$(expected $F/h200x4-mixed.txt | norm)" ] && ok ||
  bad "h200x4-mixed: exit $rc ($out) or rows differ: $(diff <(got "$tmp/mixed") <(expected $F/h200x4-mixed.txt | norm) | head -n 4)"
[ "$(values "$tmp/mixed" scenario)" = "-t 4 -g 1|-g 4|NCCL_ALGO=Ring|" ] && [ "$(values "$tmp/mixed" n_gpus)" = "4|" ] &&
  [ "$(values "$tmp/mixed" iters)" = "20|0|" ] && ok ||
  bad "h200x4-mixed: scenarios $(values "$tmp/mixed" scenario), n_gpus $(values "$tmp/mixed" n_gpus), iters $(values "$tmp/mixed" iters)"
printf '%s\n' "$out" | grep -qx "arbench import: $F/h200x4-mixed.txt:82: reduce_scatter_perf's results left out (not all_reduce_perf)" &&
  printf '%s\n' "$out" | grep -qx "arbench import: $F/h200x4-mixed.txt:93: sendrecv_perf's results left out (not all_reduce_perf)" && ok ||
  bad "h200x4-mixed: other collectives not said: $out"
# the folder reads as a run: the summary's nccl column is the faster side's time in the file,
# the side named
"$A" import nccl-tests $F/h200x2-modes.log --out "$tmp/sum" --scenario mine >/dev/null 2>&1
bash plots/summary.sh "$tmp/sum" >/dev/null 2>&1
want=$(awk '/^######## call 2/ { c = 1 } c && $1 == 1073741824 { printf "%.1f", $6 < $10 ? $6 : $10; exit }' $F/h200x2-modes.log)
side=$(awk '/^######## call 2/ { c = 1 } c && $1 == 1073741824 { print $6 < $10 ? "out-of-place" : "in-place"; exit }' $F/h200x2-modes.log)
grep -q "^| mine 7 | 1 GiB | - | - | - | - | none $side | $want | " "$tmp/sum/summary.md" && ok ||
  bad "summary.md of an import: no 'mine 7' 1 GiB line with nccl $want: $(grep 'mine 7 | 1 GiB' "$tmp/sum/summary.md")"

# ---- 3. 2 x H200, the comparison's four modes and nccl-tests' variants (-J, -G, -c 0) ----
out=$("$A" import nccl-tests $F/h200x2-g2R0.log $F/h200x2-g2R2.log $F/h200x2-t2g1R0.log $F/h200x2-t2g1R2.log --out "$tmp/four" 2>&1); rc=$?
[ "$rc" -eq 0 ] && [ "$(got "$tmp/four")" = "$(expected $F/h200x2-g2R0.log $F/h200x2-g2R2.log $F/h200x2-t2g1R0.log $F/h200x2-t2g1R2.log | norm)" ] &&
  [ "$(values "$tmp/four" scenario)" = "NCCL_NVLS_ENABLE=0 -g 2 -R 0|NCCL_NVLS_ENABLE=0 -g 2 -R 2|NCCL_NVLS_ENABLE=0 -t 2 -g 1 -R 0|NCCL_NVLS_ENABLE=0 -t 2 -g 1 -R 2|" ] &&
  [ "$(wc -l <"$tmp/four/results.csv")" = 193 ] && ok ||
  bad "four modes: exit $rc ($out), $(values "$tmp/four" scenario), $(wc -l <"$tmp/four/results.csv") lines"
# one run's text and its JSON (-J) give the same rows (JSON's figures within the table's rounding)
"$A" import nccl-tests $F/h200x2-g2.json --out "$tmp/json" >/dev/null 2>&1; rc=$?
"$A" import nccl-tests $F/h200x2-g2-json.log --out "$tmp/jtext" >/dev/null 2>&1
[ "$rc" -eq 0 ] && paste -d' ' <(got "$tmp/json") <(got "$tmp/jtext") |
  awk 'function off(a, b) { return a - b > 0.006 || b - a > 0.006 } $1 != $7 || $2 != $8 || off($3, $9) || off($4, $10) || off($5, $11) || $6 != $12 { bad = 1 } END { exit bad || NR != 12 }' &&
  [ "$(values "$tmp/json" scenario)$(values "$tmp/json" iters)$(values "$tmp/json" nccl)$(values "$tmp/json" n_gpus)" = "-g 2|20|2.28.3|2|" ] &&
  grep -qx 'environment: NCCL_NVLS_ENABLE=0' "$tmp/json/meta.txt" && ! grep -q '^environment: PATH' "$tmp/json/meta.txt" &&
  grep -qx 'nccl-tests command: all_reduce_perf -g 2 -b 1K -e 1M -f 4 -J g2.json' "$tmp/json/meta.txt" && ok ||
  bad "JSON against its text: exit $rc, $(diff <(got "$tmp/json") <(got "$tmp/jtext") | head -n 3) $(grep -E '^(environment|nccl-tests)' "$tmp/json/meta.txt")"
# -G (CUDA-graph launches), text and JSON: the flag in the scenario, graph 1 in meta.txt
"$A" import nccl-tests $F/h200x2-t2-graph.log --out "$tmp/gtext" >/dev/null 2>&1
"$A" import nccl-tests $F/h200x2-t2-graph.json --out "$tmp/gjson" >/dev/null 2>&1
[ "$(values "$tmp/gtext" scenario)" = "NCCL_NVLS_ENABLE=0 -t 2 -g 1 -G 1 -R 2|" ] && [ "$(values "$tmp/gjson" scenario)" = "-t 2 -g 1 -G 1 -R 2|" ] &&
  [ "$(got "$tmp/gtext")" = "$(expected $F/h200x2-t2-graph.log | norm)" ] && grep -q 'graph: 1 ' "$tmp/gtext/meta.txt" &&
  grep -q 'graph 1 ' "$tmp/gjson/meta.txt" && ok || bad "-G: $(values "$tmp/gtext" scenario) $(values "$tmp/gjson" scenario)"
# -c 0: nccl-tests checks nothing and prints N/A: wrong empty, never 0
"$A" import nccl-tests $F/h200x2-g2-nocheck.log --out "$tmp/nocheck" >/dev/null 2>&1
[ "$(values "$tmp/nocheck" wrong)$(values "$tmp/nocheck" status)" = "|ok|" ] && [ "$(got "$tmp/nocheck")" = "$(expected $F/h200x2-g2-nocheck.log | norm)" ] && ok ||
  bad "-c 0: wrong $(values "$tmp/nocheck" wrong), status $(values "$tmp/nocheck" status)"

# ---- 4. refused: FILE:LINE, exit 2, nothing written ----
# import_bad PATTERN FILE...: one stderr line matching PATTERN, exit 2, no folder
import_bad() {
  local pat=$1; shift
  local err rc
  "$A" import nccl-tests "$@" --out "$tmp/bad" >"$tmp/o" 2>"$tmp/e"; rc=$?
  err=$(cat "$tmp/e")
  [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] && printf '%s' "$err" | grep -qE -- "$pat" &&
    [ ! -e "$tmp/bad" ] && ok || bad "import $* -> exit $rc, '$err' (want /$pat/), folder: $(ls "$tmp/bad" 2>&1)"
  rm -rf "$tmp/bad"
}
head -n 20 $F/h200x2-modes.log >"$tmp/cut.log"
import_bad "^arbench import: $tmp/cut.log:20: cut off: the test from line 2 ends without nccl-tests' closing lines \('# Avg bus bandwidth', 8 results before the end\)$" "$tmp/cut.log"
head -n 20 $F/h200x2-modes.log | head -c -30 >"$tmp/half.log"
import_bad "^arbench import: $tmp/half.log:20: not an nccl-tests result line: 9 fields, want 13" "$tmp/half.log"
cp runs/reference/h200x2-nccl-modes/results.csv "$tmp/csv"
import_bad "^arbench import: $tmp/csv: no all_reduce_perf results: no nccl-tests table in it \(skipped [0-9]+ lines that are not nccl-tests output: other [0-9]+\)$" "$tmp/csv"
# a run killed at 512 MiB (its text and its JSON), as nccl-tests left them
import_bad "^arbench import: $F/h200x2-g2-cut.log:33: cut off: the test from line 3 ends without nccl-tests' closing lines \('# Avg bus bandwidth', 20 results before the end\)$" $F/h200x2-g2-cut.log
import_bad "^arbench import: $F/h200x2-g2-cut.json:1: not nccl-tests JSON: the document ends early \(cut off\?\)$" $F/h200x2-g2-cut.json
sed 's/,"end_time":"[^"]*"//' $F/h200x2-g2.json >"$tmp/noend.json"
import_bad "^arbench import: $tmp/noend.json:1: cut off: no 'end_time'" "$tmp/noend.json"
printf '{"results": 3}\n' >"$tmp/other.json"
import_bad "^arbench import: $tmp/other.json:1: not nccl-tests JSON: no 'config' and 'results'" "$tmp/other.json"
# a good file beside a bad one: nothing written
import_bad "^arbench import: $F/h200x2-g2-cut.log:33: cut off" $F/h200x2-g2R0.log $F/h200x2-g2-cut.log
printf '# just a comment\n' >"$tmp/empty.txt"
import_bad "^arbench import: $tmp/empty.txt: no all_reduce_perf results: no nccl-tests table in it \(skipped 1 line that is not nccl-tests output: comment 1\)$" "$tmp/empty.txt"
import_bad "^arbench: import: bad value '$tmp/missing': cannot read the nccl-tests output: No such file" "$tmp/missing"
# read within bounds like every input: a FIFO with no writer, /dev/zero (a line without end)
mkfifo "$tmp/fifo"
import_bad "^arbench import: $tmp/fifo: no all_reduce_perf results: no nccl-tests table in it$" "$tmp/fifo"
import_bad "^arbench: import: /dev/zero:1: a line longer than 65535 bytes" /dev/zero
mkdir -p "$tmp/full" && echo keep >"$tmp/full/results.csv"
"$A" import nccl-tests $F/h200x2-modes.log --out "$tmp/full" >/dev/null 2>"$tmp/e"; rc=$?
[ "$rc" -eq 2 ] && [ "$(cat "$tmp/full/results.csv")" = keep ] &&
  grep -qx "arbench: --out: bad value '$tmp/full': the folder is not empty (an import makes a run folder of its own: name a new or empty one)" "$tmp/e" && ok ||
  bad "--out over a run: exit $rc, $(cat "$tmp/e")"
expect 2 "bad value 'nccl': the only format is nccl-tests" "$A" import nccl $F/h200x2-modes.log

# make compare-nccl-tests (tools/compare_nccl_tests.sh): tests/test_compare.sh

finish
