#!/usr/bin/env bash
# make compare-nccl-tests (tools/compare_nccl_tests.sh) without a GPU: arbench on the simulated
# GPUs (tests/sim/) and a stand-in all_reduce_perf printing nccl-tests' output
# (tests/fixtures/compare/all_reduce_perf), or logs and a run folder given instead. compare.md
# is recomputed cell by cell from the logs and results.csv / samples.csv by
# tests/check_compare.py (medians, intervals, verdicts, ratios, the modes set side by side);
# every variable is refused before anything runs, sides of different GPUs or dtypes are refused,
# and a failed side gives a non-zero exit.
. "$(dirname "$0")/lib.sh"
B=${B:-build}
. tests/sim/build.sh
sim_build compare
X=tools/compare_nccl_tests.sh
F=tests/fixtures/nccl-tests
mkdir -p "$tmp/bin"
ln -s "$PWD/tests/fixtures/compare/all_reduce_perf" "$tmp/bin/all_reduce_perf"
calls=$tmp/calls
# call VAR=VALUE...: the script with those variables over small defaults (2 simulated GPUs, the
# stand-in all_reduce_perf, its calls in $calls); its output in $out, its status in $rc
call() {
  rm -f "$calls"
  out=$(env PATH="$tmp/bin:$PATH" AR_SIM_GPUS=2 A="$S" FAKE_NT_CALLS="$calls" FAKE_NT_MODEL="Simulated GPU" \
    SIZES="-b 1K -e 32K -f 32" ARB_ITERS="-n 2 -w 1" SAMPLES=6 ARB_ALGOS=ring OUT="$tmp/o" "$@" bash $X 2>&1)
  rc=$?
}
# refused VAR VALUE WHY VAR=VALUE...: exit 2 and one line "compare-nccl-tests: VAR: bad value
# 'VALUE': WHY..." before anything ran: no all_reduce_perf, no OUT folder
refused() {
  local var=$1 val=$2 why=$3; shift 3
  rm -rf "$tmp/o"
  call "$@"
  local want="compare-nccl-tests: $var: bad value '$val': $why"
  if [ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && [ "${out#"$want"}" != "$out" ] &&
     [ ! -e "$calls" ] && [ ! -e "$tmp/o" ]; then ok
  else bad "$* -> exit $rc, want 2 and '$want...' before anything ran (all_reduce_perf called: $([ -e "$calls" ] && echo yes || echo no), OUT made: $([ -e "$tmp/o" ] && echo yes || echo no)): $(printf '%s\n' "$out" | tail -n 2)"; fi
}
# logs DIR RANKS ARGS...: the stand-in's six modes of the script (-R 0, 1, 2, without and with
# -G 1), each a log with its command first, as the script writes them
logs() {
  local d=$1 n=$2 G R; shift 2
  mkdir -p "$d"
  for G in "" "-G 1"; do
    for R in 0 1 2; do
      # shellcheck disable=SC2086 # $G: no word or two
      { echo "# command: NCCL_NVLS_ENABLE=0 all_reduce_perf -t $n -g 1 $* -R $R $G"
        tests/fixtures/compare/all_reduce_perf -t "$n" -g 1 "$@" -R $R $G; } >"$d/all_reduce_perf_t${n}g1R$R${G:+G1}.log"
    done
  done
}
# checked MD RUN LOG...: check_compare.py recomputes compare.md; returns its "kinds" line
checked() {
  local o
  o=$(python3 tests/check_compare.py check "$@" 2>&1) || { bad "$1 recomputed: $(printf '%s\n' "$o" | head -n 6)"; return 1; }
  ok
  kinds=$(printf '%s\n' "$o" | sed -n 's/^kinds: //p')
}

# ---- 1. every variable checked before anything runs (#45) ----
refused DEADLINE abc "whole seconds" DEADLINE=abc
refused DEADLINE 0 "whole seconds" DEADLINE=0
refused GPUS 3 "arbench --gpus 0,1,2: --gpus: bad value '2': no such GPU (2 visible)" GPUS=3
refused GPUS 1 "a whole number of GPUs, 2 or more" GPUS=1
refused ARB_ALGOS "ring rhd" "a comma-separated list without blanks" ARB_ALGOS="ring rhd"
refused ARB_ALGOS ring,nosuch "arbench: --algo: bad value 'nosuch': unknown algorithm" ARB_ALGOS=ring,nosuch
refused SAMPLES 0 "a whole number from 1 to 1000" SAMPLES=0
refused SAMPLES 1001 "a whole number from 1 to 1000" SAMPLES=1001
refused SIZES "-b 1K -e 8X" "'8X' is not a whole number" SIZES="-b 1K -e 8X"
refused SIZES "--sizes 1K" "'--sizes' is not one of -b -e -f -i" SIZES="--sizes 1K"
refused SIZES "-b 1K -e" "its last flag has no value" SIZES="-b 1K -e"
refused SIZES "-b 2K -e 1K -f 2" "arbench: " SIZES="-b 2K -e 1K -f 2"
refused ARB_ITERS "-n abc" "'abc' is not a whole number" ARB_ITERS="-n abc"
refused A "$tmp/none" "no such program" A="$tmp/none"
mkdir -p "$tmp/empty" "$tmp/text"
echo "not nccl-tests" >"$tmp/text/a.log"
refused NCCL_TESTS_LOGS "$tmp/none" "not a folder" NCCL_TESTS_LOGS="$tmp/none"
refused NCCL_TESTS_LOGS "$tmp/empty" "no file in it" NCCL_TESTS_LOGS="$tmp/empty"
refused NCCL_TESTS_LOGS "$tmp/text" "no complete all_reduce_perf test in 1 file" NCCL_TESTS_LOGS="$tmp/text"
refused NCCL_TESTS "$tmp" "NCCL_TESTS_LOGS is given too" NCCL_TESTS="$tmp" NCCL_TESTS_LOGS="$tmp/text"
refused NCCL_TESTS "$tmp/empty" "no nccl-tests source tree" NCCL_TESTS="$tmp/empty"
refused RUN "$tmp/empty" "no results.csv in it" RUN="$tmp/empty"
mkdir -p "$tmp/full" && echo keep >"$tmp/full/x"
call OUT="$tmp/full"
[ "$rc" -eq 2 ] && [ "$out" = "compare-nccl-tests: OUT: bad value '$tmp/full': the folder is not empty" ] &&
  [ ! -e "$calls" ] && [ "$(ls "$tmp/full")" = x ] && ok || bad "OUT not empty: exit $rc, $out"

# ---- 2. logs and a run folder instead of running either (no GPU, no arbench, no
# all_reduce_perf): every cell recomputed, every kind of verdict in it ----
logs "$tmp/L" 2 -b 1K -e 1M -f 4 -n 20 -w 1 -N 10 -d float -o sum
python3 tests/check_compare.py make-run "$tmp/L" "$tmp/R"
rm -rf "$tmp/o"
call NCCL_TESTS_LOGS="$tmp/L" RUN="$tmp/R" A="$tmp/none" PATH=/usr/bin:/bin
if [ "$rc" -eq 0 ] && [ ! -e "$calls" ] && [ -s "$tmp/o/compare.md" ]; then ok; else bad "logs and RUN: exit $rc: $out"; fi
if checked "$tmp/o/compare.md" "$tmp/R" "$tmp"/L/*; then
  for k in same slower faster faster-best slower-best tie "not counted" "under 95%" group "one-buffer fallback" "one buffer faster"; do
    case " $kinds " in *" $k "*) ;; *) bad "logs and RUN: no '$k' verdict in compare.md (kinds: $kinds)" ;; esac
  done
fi
# the make target, and compare.md's lines beside each mode
rm -rf "$tmp/o2"
out=$(make -s compare-nccl-tests NCCL_TESTS_LOGS="$tmp/L" RUN="$tmp/R" OUT="$tmp/o2" B=/nonexistent 2>&1); rc=$?
[ "$rc" -eq 0 ] && cmp -s "$tmp/o/compare.md" "$tmp/o2/compare.md" 2>/dev/null && ok ||
  bad "make compare-nccl-tests NCCL_TESTS_LOGS RUN: exit $rc ($out), or its compare.md differs"
grep -qxF -- "- graph timing, registered (\`-t 2 -g 1 -R 1 -G 1\`): same at 3 of 5 sizes, arbench slower at 1 (by 50%), faster at 1 (by 40%); 1 size with one side lacking an interval, not counted" "$tmp/o/compare.md" &&
  ok || bad "graph registered line: $(grep -- '- graph timing, registered' "$tmp/o/compare.md")"
# real nccl-tests output: tests of several modes in one log (a mode twice: two samples), -G,
# -c 0, a run cut off, its JSON beside
mkdir -p "$tmp/LM"
cp $F/h200x2-modes.log $F/h200x2-t2-graph.log $F/h200x2-g2-nocheck.log $F/h200x2-g2-cut.log $F/h200x2-g2.json "$tmp/LM/"
python3 tests/check_compare.py make-run "$tmp/LM" "$tmp/RM"
rm -rf "$tmp/o"
call NCCL_TESTS_LOGS="$tmp/LM" RUN="$tmp/RM"
[ "$rc" -eq 0 ] && checked "$tmp/o/compare.md" "$tmp/RM" $(LC_ALL=C ls -d "$tmp"/LM/*) &&
  grep -qxF "| \`-t 2 -g 1 -R 0\` | 2 | 2 | 11 | 0 | 0 |" "$tmp/o/compare.md" &&
  grep -qF "h200x2-g2-cut.log, a test (\`NCCL_NVLS_ENABLE=0 all_reduce_perf -g 2 -b 1K -e 8G -f 2 -n 200 -J g2-cut.json\`): cut off" "$tmp/o/compare.md" &&
  grep -qxF -- "- 1 other file left out (no nccl-tests output): h200x2-g2.json" "$tmp/o/compare.md" && ok ||
  bad "real logs: exit $rc ($out), $(grep -F -- '-t 2 -g 1 -R 0`' "$tmp/o/compare.md")"

# ---- 3. sides that cannot be set side by side: one line naming both values, exit 2 ----
logs "$tmp/L4" 4 -b 1K -e 1M -f 4 -N 3 -d float
logs "$tmp/Lh" 2 -b 1K -e 1M -f 4 -N 3 -d half
FAKE_NT_MODEL="NVIDIA H100 80GB HBM3" logs "$tmp/L100" 2 -b 1K -e 1M -f 4 -N 3 -d float
refused NCCL_TESTS_LOGS "$tmp/L4" "nccl-tests ran on 4 GPUs, arbench ($tmp/R) on 2" NCCL_TESTS_LOGS="$tmp/L4" RUN="$tmp/R"
refused NCCL_TESTS_LOGS "$tmp/Lh" "nccl-tests' dtype is fp16, arbench's ($tmp/R) float32" NCCL_TESTS_LOGS="$tmp/Lh" RUN="$tmp/R"
refused NCCL_TESTS_LOGS "$tmp/L100" "nccl-tests ran on NVIDIA H100 80GB HBM3, arbench ($tmp/R) on NVIDIA H200" NCCL_TESTS_LOGS="$tmp/L100" RUN="$tmp/R"
refused GPUS 4 "the logs in '$tmp/L' ran on 2 GPUs" GPUS=4 NCCL_TESTS_LOGS="$tmp/L" RUN="$tmp/R"
refused GPUS 4 "RUN '$tmp/R' ran on 2 GPUs" GPUS=4 RUN="$tmp/R"
# logs of an H200 beside arbench run here on the simulated GPU: refused before arbench runs
refused NCCL_TESTS_LOGS "$tmp/L" "nccl-tests ran on NVIDIA H200, arbench here on Simulated GPU" NCCL_TESTS_LOGS="$tmp/L"

# no size measured by both: exit 1, no compare.md (never an empty comparison)
mkdir -p "$tmp/Lfar"
tests/fixtures/compare/all_reduce_perf -t 2 -g 1 -b 2M -e 8M -f 2 -N 3 >"$tmp/Lfar/a.log"
rm -rf "$tmp/o"
call NCCL_TESTS_LOGS="$tmp/Lfar" RUN="$tmp/R"
[ "$rc" -eq 1 ] && [ ! -e "$tmp/o/compare.md" ] &&
  [ "$out" = "compare-nccl-tests: nothing to set side by side: no size, timing method and mode measured by both (arbench: $tmp/R; nccl-tests: $tmp/Lfar)" ] &&
  ok || bad "no size in common: exit $rc: $out"

# ---- 4. the 4 x H200 reference folder read again: no interval on either side (one host batch,
# one nccl-tests run), so nothing counted; graph timing set beside nothing (no -G there) ----
ref=runs/reference/h200x4-nccl-tests-compare
rm -rf "$tmp/o"
call NCCL_TESTS_LOGS=$ref/nccl-tests RUN=$ref
[ "$rc" -eq 0 ] && checked "$tmp/o/compare.md" $ref $(LC_ALL=C ls -d $ref/nccl-tests/* | while read -r f; do [ -f "$f" ] && echo "$f"; done) &&
  grep -qxF -- "- graph timing: nccl-tests did not run with \`-G\`: nothing to set beside graph timing; 888 rows, 0 with wrong elements or errors" "$tmp/o/compare.md" &&
  grep -qxF "| 1 KiB | swing-lat/ll | 5.81 (no interval) | -t 4 -g 1 -R 2, in-place | 9.72 (1 sample) | 1.67x | ? / 1, not counted |" "$tmp/o/compare.md" &&
  ok || bad "reference folder: exit $rc ($out): $(grep -- '- graph timing:' "$tmp/o/compare.md")"

# ---- 5. one call on the simulated GPUs: six modes with -N, three with -G; graph beside -G,
# host beside no -G, each registration beside its -R; a mode that fails is said; report.html
# carries the tables ----
rm -rf "$tmp/o"
call FAKE_NT_FAIL="-R 1 -G 1"
nN=$(grep -c -- '-t 2 -g 1 -b 1K -e 32K -f 32 -n 2 -w 1 -N 6 -d float -o sum -R [012]' "$calls" 2>/dev/null)
nG=$(grep -c -- '-G 1$' "$calls" 2>/dev/null)
[ "$rc" -eq 0 ] && [ "$nN" = 6 ] && [ "$nG" = 3 ] && ok || bad "one call: exit $rc, $nN runs with -N 6, $nG with -G 1: $(printf '%s\n' "$out" | tail -n 3)"
checked "$tmp/o/compare.md" "$tmp/o" $(LC_ALL=C ls "$tmp"/o/nccl-tests/all_reduce_perf_*.log)
grep -qxF -- "- graph timing, registered (\`-R 1 -G 1\`): nccl-tests did not run this mode" "$tmp/o/compare.md" &&
  grep -qF "all_reduce_perf_t2g1R1G1.log, a test (\`NCCL_NVLS_ENABLE=0 all_reduce_perf -t 2 -g 1 -b 1K -e 32K -f 32 -n 2 -w 1 -N 6 -d float -o sum -R 1 -G 1\`): no results" "$tmp/o/compare.md" &&
  ok || bad "the failed mode: $(grep -- '- graph timing, registered' "$tmp/o/compare.md")"
# arbench's nccl ran as nccl-tests runs it in every registration (rotating; in graph timing
# launched without an upload) and on one buffer beside the schedules: no fallback said
scol=$(col "$tmp/o/results.csv" settings) acol=$(col "$tmp/o/results.csv" algorithm)
asnt=$(awk -F, -v s="$scol" -v a="$acol" 'NR > 1 && $a == "nccl" && $s ~ /nccl.rotate=on/ &&
  ($s ~ /timing.mode=host/ || $s ~ /timing.graph_upload=off/) { print $s }' "$tmp/o/results.csv" |
  sed 's/;timing.host_batches=[0-9]*//' | sort -u | tr '\n' '|')
want="nccl.registration=registered;nccl.rotate=on;timing.mode=graph;timing.graph_upload=off|nccl.registration=registered;nccl.rotate=on;timing.mode=host|nccl.registration=symmetric;nccl.rotate=on;timing.mode=graph;timing.graph_upload=off|nccl.registration=symmetric;nccl.rotate=on;timing.mode=host|nccl.rotate=on;timing.mode=graph;timing.graph_upload=off|nccl.rotate=on;timing.mode=host|"
[ "$asnt" = "$want" ] && ! grep -qF '**not so**' "$tmp/o/compare.md" && grep -qF '## NCCL on one buffer against rotating' "$tmp/o/compare.md" && ok ||
  bad "one call: arbench's nccl as nccl-tests: '$asnt', want '$want'"
# the graph table's nccl-tests column holds only -G modes, host's none
awk '/^##/ { g = $0 == "### graph timing"; h = $0 == "### host timing"; next }
     g && /^\| [0-9]/ { ng++; if ($0 !~ /-G 1, /) bad = 1 } h && /^\| [0-9]/ { nh++; if (/-G 1/) bad = 1 }
     END { exit bad || !ng || !nh }' "$tmp/o/compare.md" &&
  ok || bad "graph timing set beside nccl-tests without -G, or host beside -G"
sect=$(awk '/<section id="nccl-tests">/,/<\/section>/' "$tmp/o/report.html" 2>/dev/null)
# every table's body rows, cell by cell (a header is the line before its |---| line)
md_rows=$(awk -F'|' '/^\|/ { if ($0 ~ /^\|[-:|]+\|$/) { n--; next }
            r = ""; for (k = 2; k < NF; k++) { v = $k; gsub(/^ +| +$|`|\*\*/, "", v); r = r v ";" } L[++n] = r }
          END { for (i = 1; i <= n; i++) print L[i] }' "$tmp/o/compare.md")
html_rows=$(printf '%s\n' "$sect" | grep '<tr>' | grep '<td' | sed 's/<\/td>/;/g; s/<[^>]*>//g; s/&lt;/</g; s/&gt;/>/g; s/&amp;/\&/g')
[ -n "$md_rows" ] && [ "$md_rows" = "$html_rows" ] && grep -q 'href="#nccl-tests"' "$tmp/o/report.html" && ok ||
  bad "report.html's nccl-tests section: $(printf '%s\n' "$html_rows" | head -2) against compare.md's $(printf '%s\n' "$md_rows" | head -2)"

# ---- 6. a side that failed: exit 1 (#45) ----
rm -rf "$tmp/o"
call FAKE_NT_FAIL=all
[ "$rc" -eq 1 ] && [ ! -e "$tmp/o/compare.md" ] && [ ! -e "$tmp/o/results.csv" ] &&
  printf '%s\n' "$out" | grep -qx "compare-nccl-tests: all_reduce_perf failed in all 6 modes: nothing to compare with (logs in $tmp/o/nccl-tests)" &&
  ok || bad "all_reduce_perf failing in every mode: exit $rc, compare.md $([ -e "$tmp/o/compare.md" ] && echo written), arbench $([ -e "$tmp/o/results.csv" ] && echo ran): $(printf '%s\n' "$out" | tail -n 2)"
rm -rf "$tmp/o"
call AR_SIM_KILL=0:30
[ "$rc" -eq 1 ] && [ -s "$tmp/o/compare.md" ] &&
  grep -qxF "**arbench's run did not end well (exit 137): compare.md sets what it wrote beside nccl-tests.**" "$tmp/o/compare.md" &&
  printf '%s\n' "$out" | grep -qx "compare-nccl-tests: arbench's run: exit 137" && ok ||
  bad "arbench killed: exit $rc: $(printf '%s\n' "$out" | tail -n 2)"

finish
