#!/usr/bin/env bash
# `arbench run` without a GPU: every bad flag answered with one line naming the flag and the
# value, exit 2, nothing written; a good command on a machine with no GPU says so in one line,
# points at model/schedule, exits 1, and writes nothing either. Input files (configs, delay
# files, --baseline's results.csv and marks) are read within bounds, never waiting on a FIFO;
# on the simulated machine, config.conf is the config's bytes as parsed.
. "$(dirname "$0")/lib.sh"


out=$("$A" run --help 2>&1); rc=$?
if [ "$rc" -eq 0 ] && printf '%s' "$out" | grep -q -- "--transport LIST|all  nccl-p2p, ce, sm, ll "; then ok
else bad "run --help -> exit $rc: $out"; fi
# help texts in groups a reader scans (run's: what runs, sizes, ranks, iterations, conditions,
# schedules, the folder, profiles, self-tests), each option once, within 100 columns; the two
# --profile lines together
# help_check NAME SOURCE HEADINGS... : `arbench NAME --help` against the long options of SOURCE
help_check() {
  local name=$1 src=$2 h last=0 at o missing="" twice=""; shift 2
  local text; text=$("$A" "$name" --help 2>&1)
  for h in "$@"; do
    at=$(printf '%s\n' "$text" | grep -nx -- "$h" | cut -d: -f1)
    if [ -z "$at" ] || [ "$at" -le "$last" ]; then bad "$name --help: heading '$h' missing or out of order"; return; fi
    last=$at
  done
  for o in $(grep -oE '\{"[a-z-]+", (required|optional|no)_argument' "$src" | sed -E 's/\{"([a-z-]+)".*/\1/' | sort -u); do
    case $o in help | bytes) continue ;; esac   # --help itself; model's --bytes, --sizes' alias
    n=$(printf '%s\n' "$text" | grep -cE -- "^ +(-[a-zA-Z], )?--$o( |\[|=|$)")
    [ "$n" -eq 0 ] && missing="$missing --$o"
    case $o in profile | self-test) ;; *) [ "$n" -gt 1 ] && twice="$twice --$o" ;; esac
  done
  [ -z "$missing$twice" ] && ok || bad "$name --help: options not listed:$missing; listed twice:$twice"
  [ -z "$(printf '%s\n' "$text" | awk 'length($0) > 100')" ] && ok || bad "$name --help: lines over 100 columns"
}
help_check run harness/plan/options.c "What runs" "Sizes" "Ranks and GPUs" "Iterations and checks" \
  "Stragglers and degraded links" "Schedules and tuning" "The run folder" "Phases and profiles" "Self-tests"
help_check model harness/model/cmd_model.c "What is priced" "Links" "Topology" "Pricing" "Output and fits"
printf '%s\n' "$out" | awk '/^ +--profile overlap/ { o = NR } /^ +--profile timeline/ { t = NR }
  /^ +-/ && o && !t && NR > o && !/--profile/ { between = 1 } END { exit !(o && t && !between) }' && ok ||
  bad "run --help: an option between --profile overlap and --profile timeline"
# --row-budget's floor as the code keeps it (HX_BUDGET_MIN_ITERS)
floor=$(sed -nE 's/^#define HX_BUDGET_MIN_ITERS ([0-9]+).*/\1/p' harness/plan/sweep.h)
printf '%s\n' "$out" | grep -q "never below $floor (or -n)" && ok || bad "run --help: --row-budget's floor is not $floor"

bad_input "^arbench: -b: bad value '8X'" run -b 8X
bad_input "^arbench: -b: bad value '8X'" -b 8X              # run is the default subcommand
bad_input "^arbench: -b: bad value '2M': larger than -e" run -b 2M -e 1M
bad_input "^arbench: -e: bad value '1Q'" run -e 1Q
bad_input "^arbench: -f: bad value '1'" run -f 1
bad_input "^arbench: --algo: bad value 'foo'.*known:.* ring" run --algo ring,foo
bad_input "^arbench: --transport: bad value 'tcp': unknown transport; known: nccl-p2p ce sm ll all$" run --transport nccl-p2p,tcp
bad_input "^arbench: --gpus: bad value '0'.*at least 2" run --gpus 0
bad_input "^arbench: --ranks: bad value '2'.*fewer ranks than the GPUs" run --gpus 0,1,0 --ranks 2
bad_input "^arbench: --ranks: bad value '1'" run --ranks 1
bad_input "^arbench: --ranks: bad value '17'" run --ranks 17
bad_input "^arbench: --gpus: bad value 'x'" run --gpus 0,x
bad_input "^arbench: -n: bad value '0'" run -n 0
bad_input "^arbench: -w: bad value 'many'" run -w many
bad_input "^arbench: -T: bad value '0'" run -T 0
bad_input "^arbench: --dtype: bad value 'int8'" run --dtype int8
: > "$tmp/a-file"
bad_input "^arbench: --out: bad value '$tmp/a-file/run': cannot make a run folder there: Not a directory" run --out "$tmp/a-file/run"
# a place no folder can be made in (also as root, whom access() lets write anywhere): exit 2
# before any GPU work, not 1 after it (#26)
bad_input "^arbench: --out: bad value '/proc/arbench-run': cannot make a run folder there" run --out /proc/arbench-run --gpus 0,1
ls -a "$tmp" | grep -q arbench-probe && bad "the writability probe was left behind" || ok
bad_input "^arbench: --check: bad value 'yes'" run --check yes
bad_input "^arbench: --pipeline: bad value '-1'" run --pipeline -1
bad_input "^arbench: --straggler: bad value '2'.*< 2 GPUs" run --gpus 0,1 --straggler 2:1ms
bad_input "^arbench: --straggler: bad value '1'.*RANK:DELAY" run --straggler 1
bad_input "^arbench: --straggler: bad value '-3ms'.*negative" run --straggler 1:-3ms
bad_input "^arbench: --straggler: bad value '@/nonexistent/d'.*read" run --straggler 1:@/nonexistent/d
bad_input "^arbench: --torus: bad value '2x3'.*multiply" run --gpus 0,1,2,3 --torus 2x3
bad_input "^arbench: --sizes: bad value 'x'" run --sizes 1K,x
bad_input "^arbench: run: unknown option '--frobnicate'" run --frobnicate
bad_input "^arbench: run: unexpected argument 'now'" run now
bad_input "^arbench: -n: needs a value" run -n
# --out on a non-empty folder: refused before any GPU work, also in a dry run (#26)
mkdir -p "$tmp/full" && echo x >"$tmp/full/results.csv"
bad_input "^arbench: --out: bad value '$tmp/full': the folder is not empty \(--force writes into it\)$" run --out "$tmp/full"
bad_input "^arbench: --out: bad value '$tmp/full': the folder is not empty" run --out "$tmp/full" --dry-run
bad_input "^arbench: --force: bad value '': given in some scenarios only" run \
  --config <(printf -- '[scenario a]\n--force\n[scenario b]\n')
[ "$(cat "$tmp/full/results.csv")" = x ] && ok || bad "a refused --out was touched"
"$A" run --help | grep -q -- "--force" && ok || bad "run --help lacks --force"
# messages echo the user's own words and name the file and line of a delay file (#26)
bad_input "^arbench: -i: bad value '1K': more than 1024 sizes between -b and -e$" run -b 4 -e 8G -i 1K
bad_input "^arbench: --straggler: bad value ':8ms': the rank is missing" run --straggler :8ms
bad_input "^arbench: --straggler: bad value '3:': the delay is missing" run --straggler 3:
bad_input "^arbench: --straggler: bad value '8ms-2ms': range LO-HI has LO > HI" run --straggler 3:8ms-2ms
bad_input "^arbench: --degrade: bad value ':2': the rank is missing" run --degrade :2
bad_input "^arbench: --degrade: bad value '1:': the factor is missing" run --degrade 1:
printf '1ms\n\n# warm\n2ms\nbad\n' >"$tmp/d.txt"
bad_input "^arbench: --straggler: $tmp/d.txt:5: bad value 'bad': not a duration" run --gpus 0,1,2,3 --straggler "3:@$tmp/d.txt" --dry-run
{ printf '1ms # '; head -c 300 /dev/zero | tr '\0' x; printf ' 1s\n9ms\n'; } >"$tmp/wide.txt"
out=$("$A" run --dry-run --gpus 0,1,2,3 --straggler "3:@$tmp/wide.txt" 2>&1)
printf '%s' "$out" | grep -q "(2 delays, mean 5 ms)" && ok || bad "a long delay line was split: $out"
printf '1ms\n2m\0s\n' >"$tmp/nul.txt"
# upper bounds (#26): delays, factors; a dry run never estimates a negative duration
bad_input "^arbench: --straggler: bad value '1e300s': longer than 1 h" run --straggler 3:1e300s --dry-run
bad_input "^arbench: --straggler: bad value '2e9s': longer than 1 h" run --straggler 3:1ms-2e9s --dry-run
bad_input "^arbench: --degrade: bad value '1e300': a slowdown factor above 1000" run --degrade 1:1e300 --dry-run
bad_input "^arbench: --critical-max: bad value '1e300s'" run --critical-max 1e300s --dry-run
printf '1ms\n1e300s\n' >"$tmp/huge.txt"
bad_input "^arbench: --straggler: $tmp/huge.txt:2: bad value '1e300s': longer than 1 h" run --straggler "3:@$tmp/huge.txt" --gpus 0,1,2,3 --dry-run
for args in "--sizes 1G --straggler 3:3600s -n 100000 -w 1000000" "--degrade 1:1000 --sizes 1T -n 100000" "--sizes 1G --straggler 3:3600s --find-critical --critical-max 10s"; do
  # shellcheck disable=SC2086
  out=$("$A" run --dry-run --gpus 0,1,2,3 --algo ring,stragglar $args 2>&1); rc=$?
  if [ "$rc" -eq 0 ] && ! printf '%s' "$out" | grep -qE 'estimated (at most )?-|nan|inf'; then ok
  else bad "dry run $args -> exit $rc: $out"; fi
done
bad_input "^arbench: --straggler: $tmp/nul.txt:2: bad value '': a NUL byte" run --gpus 0,1,2,3 --straggler "3:@$tmp/nul.txt" --dry-run

# Inputs read exactly or refused (#35): each line below was read as something else before
# (exit 0, or a hang, or two lines); now exit 2, one line naming the flag (or FILE:LINE) and
# the value as typed, nothing written.
# sizes are whole elements of --dtype (1,7,6 were three rows of 4 bytes; 1000003 was measured
# as 1000000 while the plan said 1000003), whichever flag or file names them
bad_input "^arbench: --sizes: bad value '1': not a whole number of float32 elements \(4 bytes each\)$" run --sizes 1,7,6 --dry-run
bad_input "^arbench: --sizes: bad value '1000003': not a whole number of float32 elements \(4 bytes each; the nearest are 1000000 and 1000004\)$" run --sizes 1K,1000003,1M --dry-run
bad_input "^arbench: --sizes: bad value '1000003': not a whole number of bf16 elements \(2 bytes each" run --sizes 1000003 --dtype bf16 --dry-run
bad_input "^arbench: -b: bad value '6': not a whole number of float32" run -b 6 -e 1K --dry-run
bad_input "^arbench: -e: bad value '1001': not a whole number of float32" run -b 4 -e 1001 --dry-run
bad_input "^arbench: -i: bad value '6': not a whole number of float32" run -b 4 -e 64 -i 6 --dry-run
bad_input "^arbench: --find-critical: bad value '1000001': not a whole number of float32" run --find-critical 64M,1000001 --algo ring,stragglar --dry-run
printf -- '-n 2\n--sizes 1K,7\n' >"$tmp/odd.conf"
bad_input "^arbench: --sizes: bad value '7': not a whole number of float32" run --config "$tmp/odd.conf" --dry-run
# every scenario is read before any runs: a bad size in the second leaves no run folder, no
# row of the first (not a dry run)
printf -- '-n 2\n[scenario a]\n--sizes 1K\n[scenario b]\n--sizes 1K,7\n' >"$tmp/two.conf"
bad_input "^arbench: --sizes: bad value '7': not a whole number of float32" run --config "$tmp/two.conf" --gpus 0,1
# the help's own example is whole elements, and the plan shows exactly its sizes
ex=$("$A" run --help | grep -oE -- '--sizes LIST +an explicit list of sizes \(e\.g\. [^)]*\)' | sed 's/.*e\.g\. //; s/)$//')
out=$("$A" run --dry-run --gpus 0,1 --algo ring --sizes "$ex" 2>&1); rc=$?
[ -n "$ex" ] && [ "$rc" -eq 0 ] && printf '%s' "$out" | grep -q "sizes: 3, 1K\.\.1M" && ok || bad "the help's --sizes example '$ex' -> exit $rc: $out"
# repeated --degrade flags add up (the last alone was kept); a rank named twice is refused
out=$("$A" run --dry-run --gpus 0,1,2,3 --algo optcc,ring --sizes 1G --degrade 1:2 --degrade 2:3 2>&1)
printf '%s' "$out" | grep -q "degraded: rank 1 links x2" && printf '%s' "$out" | grep -q "degraded: rank 2 links x3" && ok ||
  bad "repeated --degrade: $out"
bad_input "^arbench: --degrade: bad value '1:3': a rank is named twice$" run --gpus 0,1,2,3 --degrade 1:2 --degrade 1:3 --dry-run
# repeated --straggler flags add up too, a config's and the command line's alike (the last
# alone was kept): the plan lists every straggler, the first named first; a rank named twice
# is refused
out=$("$A" run --dry-run --gpus 0,1,2,3 --algo ring --sizes 1K --straggler 2:8ms --straggler 0:4ms 2>&1)
[ "$(printf '%s\n' "$out" | grep '^  straggler: ')" = "$(printf '  straggler: rank 2 delayed 8 ms\n  straggler: rank 0 delayed 4 ms')" ] &&
  ok || bad "repeated --straggler: $out"
printf -- '--straggler 1:2ms\n' >"$tmp/st.conf"
out=$("$A" run --dry-run --config "$tmp/st.conf" --gpus 0,1,2,3 --algo ring --sizes 1K --straggler 3:1ms 2>&1)
[ "$(printf '%s\n' "$out" | grep '^  straggler: ')" = "$(printf '  straggler: rank 1 delayed 2 ms\n  straggler: rank 3 delayed 1 ms')" ] &&
  ok || bad "a config's --straggler and the command line's: $out"
bad_input "^arbench: --straggler: bad value '2:4ms': a rank is named twice$" run --gpus 0,1,2,3 --straggler 2:8ms --straggler 2:4ms --dry-run
bad_input "^arbench: --straggler: bad value '1:1ms': a rank is named twice$" run --config "$tmp/st.conf" --gpus 0,1,2,3 --straggler 1:1ms --dry-run
bad_input "^arbench: --straggler: bad value '8:1ms': too many stragglers \(at most 8\)$" run --gpus 0,1,2,3 --straggler 0:1ms,1:1ms,2:1ms,3:1ms --straggler 4:1ms,5:1ms,6:1ms,7:1ms --straggler 8:1ms --dry-run
# a delay file's line is one duration: the first word alone was taken, the rest ignored
printf '4ms garbage\n' >"$tmp/d1.txt"; printf '2ms\n1ms 2ms\n' >"$tmp/d2.txt"; printf '1 ms\n' >"$tmp/d3.txt"
printf '1ms\r2ms\n' >"$tmp/d4.txt"; printf '0x1p3ms\n' >"$tmp/d5.txt"
bad_input "^arbench: --straggler: $tmp/d1.txt:1: bad value '4ms garbage': one duration per line$" run --gpus 0,1 --straggler "1:@$tmp/d1.txt" --dry-run
bad_input "^arbench: --straggler: $tmp/d2.txt:2: bad value '1ms 2ms': one duration per line$" run --gpus 0,1 --straggler "1:@$tmp/d2.txt" --dry-run
bad_input "^arbench: --straggler: $tmp/d3.txt:1: bad value '1 ms'" run --gpus 0,1 --straggler "1:@$tmp/d3.txt" --dry-run
bad_input "^arbench: --straggler: $tmp/d4.txt:1: bad value '1ms\\\\r2ms'" run --gpus 0,1 --straggler "1:@$tmp/d4.txt" --dry-run
bad_input "^arbench: --straggler: $tmp/d5.txt:1: bad value '0x1p3ms': not a duration" run --gpus 0,1 --straggler "1:@$tmp/d5.txt" --dry-run
{ head -c 70000 /dev/zero | tr '\0' ' '; printf '1ms\n'; } >"$tmp/d6.txt"
bad_input "^arbench: --straggler: $tmp/d6.txt:1: a line longer than 65535 bytes$" run --gpus 0,1 --straggler "1:@$tmp/d6.txt" --dry-run
# files are read with a bound on bytes and on time: /dev/zero grew memory without end, a FIFO
# with no writer hung (each run under timeout 20: a hang is exit 124)
mkfifo "$tmp/fifo"
bounded() {
  local pat=$1; shift
  local rc err
  timeout 20 "$A" run --out "$tmp/run" "$@" >/dev/null 2>"$tmp/err"; rc=$?
  err=$(cat "$tmp/err")
  if [ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && printf '%s' "$err" | grep -qE -- "$pat" &&
     [ ! -e "$tmp/run" ]; then ok; else bad "$* -> exit $rc: $err"; rm -rf "$tmp/run"; fi
}
bounded "^arbench: --config: /dev/zero:1: a line longer than 65535 bytes$" --config /dev/zero --dry-run
bounded "^arbench: --straggler: /dev/zero:1: a line longer than 65535 bytes$" --gpus 0,1 --straggler 1:@/dev/zero --dry-run
bounded "^arbench: --config: $tmp/fifo: the file is empty$" --config "$tmp/fifo" --dry-run
bounded "^arbench: --straggler: bad value '$tmp/fifo': the delay file has no delays$" --gpus 0,1 --straggler "1:@$tmp/fifo" --dry-run
# a FIFO as the --baseline's INCOMPLETE mark was opened blocking: the run hung before a row
mkdir -p "$tmp/bmark" && cp tests/fixtures/nightly/results.csv "$tmp/bmark/" && mkfifo "$tmp/bmark/INCOMPLETE"
bounded "^arbench: --baseline: bad value '$tmp/bmark': that run is marked INCOMPLETE: " --gpus 0,1 --algo ring --sizes 1K --baseline "$tmp/bmark"
# --baseline's results.csv: its head is read, from a regular file only (a FIFO hung the run;
# a first line of any length was read whole); a first line at the bound is still read
mkdir -p "$tmp/bfifo" "$tmp/blong" "$tmp/bedge"
mkfifo "$tmp/bfifo/results.csv"
hdr=$(head -n 1 tests/fixtures/nightly/results.csv) row=$(sed -n 2p tests/fixtures/nightly/results.csv)
{ printf '%s,' "$hdr"; head -c 70000 /dev/zero | tr '\0' x; printf '\n%s\n' "$row"; } >"$tmp/blong/results.csv"
{ printf '%s,' "$hdr"; head -c $((65535 - ${#hdr} - 1)) /dev/zero | tr '\0' x; printf '\n%s\n' "$row"; } >"$tmp/bedge/results.csv"
bounded "^arbench: --baseline: bad value '$tmp/bfifo': its results.csv is not a regular file$" --gpus 0,1 --baseline "$tmp/bfifo" --dry-run
bounded "^arbench: --baseline: bad value '$tmp/blong': its results.csv's first line is longer than 65535 bytes$" --gpus 0,1 --baseline "$tmp/blong" --dry-run
out=$(timeout 20 "$A" run --gpus 0,1 --baseline "$tmp/bedge" --dry-run 2>&1); rc=$?
[ "$rc" -eq 0 ] && [ "$(head -n 1 "$tmp/bedge/results.csv" | wc -c)" -eq 65536 ] && ok || bad "a 65535-byte header -> exit $rc: $out"
# --scenario with an empty name selected no scenario, ignored --dry-run and wrote a run folder
# (under runs/ of the working directory: run from an empty one)
printf -- '--sizes 1K\n[scenario a]\n-n 2\n[scenario b]\n-n 3\n' >"$tmp/ab.conf"
abs=$(cd "$(dirname "$A")" && pwd)/$(basename "$A")
for sc in , a, ,a a,,b; do
  mkdir -p "$tmp/cwd" && out=$(cd "$tmp/cwd" && timeout 20 "$abs" run --config "$tmp/ab.conf" --scenario "$sc" --dry-run --gpus 0,1 2>&1); rc=$?
  if [ "$rc" -eq 2 ] && [ "$out" = "arbench: --scenario: bad value '$sc': an empty item in the list (a comma too many?)" ] &&
     [ -z "$(ls -A "$tmp/cwd")" ]; then ok; else bad "--scenario '$sc' -> exit $rc: $out; wrote: $(ls -A "$tmp/cwd")"; fi
  rm -rf "$tmp/cwd"
done
# an empty item in a list (a comma too many) was skipped: fewer items than typed
bad_input "^arbench: --gpus: bad value '0,,1': an empty item in the list" run --gpus 0,,1 --dry-run
bad_input "^arbench: --gpus: bad value '0,1,': an empty item in the list" run --gpus 0,1, --dry-run
bad_input "^arbench: --algo: bad value 'ring,,nccl': an empty item" run --gpus 0,1 --algo ring,,nccl --dry-run
bad_input "^arbench: --algo: bad value 'ring,': an empty item" run --gpus 0,1 --algo ring, --dry-run
bad_input "^arbench: --transport: bad value ',ce': an empty item" run --gpus 0,1 --transport ,ce --dry-run
bad_input "^arbench: --sizes: bad value '1K,,1M': an empty item" run --gpus 0,1 --sizes 1K,,1M --dry-run
bad_input "^arbench: --find-critical: bad value '64M,,1G': an empty item" run --gpus 0,1 --algo ring,stragglar --find-critical 64M,,1G --dry-run
bad_input "^arbench: --straggler: bad value '1:1ms,,2:2ms': an empty item" run --gpus 0,1,2,3 --straggler 1:1ms,,2:2ms --dry-run
bad_input "^arbench: --straggler: bad value '1:1ms,': an empty item" run --gpus 0,1,2,3 --straggler 1:1ms, --dry-run
bad_input "^arbench: --degrade: bad value '1:2,': an empty item" run --gpus 0,1,2,3 --degrade 1:2, --dry-run
printf -- '-n 2 --sizes 1K,,1M\n' >"$tmp/empty-item.conf"
bad_input "^arbench: --sizes: bad value '1K,,1M': an empty item" run --gpus 0,1 --config "$tmp/empty-item.conf" --dry-run
# a size named twice was two rows of one size
bad_input "^arbench: --sizes: bad value '1024': 1024 bytes named twice in the list$" run --gpus 0,1 --sizes 1K,1024 --dry-run
bad_input "^arbench: --find-critical: bad value '64M': 67108864 bytes named twice" run --gpus 0,1 --algo ring,stragglar --find-critical 64M,64M --dry-run
# numbers are plain decimals: hexadecimal and leading blanks were taken (0x400 was 1024)
bad_input "^arbench: -b: bad value '0x400': not a size" run --gpus 0,1 -b 0x400 --dry-run
bad_input "^arbench: --straggler: bad value '0x10ms': not a duration" run --gpus 0,1 --straggler 1:0x10ms --dry-run
bad_input "^arbench: --degrade: bad value '0x2': not a number" run --gpus 0,1 --degrade 1:0x2 --dry-run
bad_input "^arbench: --critical-max: bad value '0x10ms': not a duration" run --gpus 0,1 --critical-max 0x10ms --dry-run
bad_input "^arbench: --row-budget: bad value '0x10ms': not a duration" run --gpus 0,1 --row-budget 0x10ms -w 2 --dry-run
bad_input "^arbench: -n: bad value ' 5': not an integer" run --gpus 0,1 -n " 5" --dry-run
bad_input "^arbench: -w: bad value ' 2': not an integer" run --gpus 0,1 -w " 2" --dry-run
bad_input "^arbench: -b: bad value ' 1K': not a size" run --gpus 0,1 -b " 1K" --dry-run
bad_input "^arbench: --torus: bad value ' 2x2'" run --gpus 0,1,2,3 --torus " 2x2" --dry-run
# a value with a newline is still one line (it was two)
bad_input "^arbench: --algo: bad value 'ring\\\\nnccl': unknown algorithm" run --gpus 0,1 --algo "$(printf 'ring\nnccl')" --dry-run

# a good command with no GPU: one line, exit 1, no run folder (skipped where a GPU exists)
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "(a GPU is present: the no-GPU check is skipped)"
else
  out=$("$A" run -b 1K -e 1M --algo ring,nccl --out "$tmp/run" 2>"$tmp/err"); rc=$?
  err=$(cat "$tmp/err")
  if [ "$rc" -eq 1 ] && [ -z "$out" ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] &&
     printf '%s' "$err" | grep -q "no GPU" && printf '%s' "$err" | grep -q "arbench model" &&
     [ ! -e "$tmp/run" ]; then ok
  else bad "no GPU -> exit $rc, stdout '$out', stderr '$err'"; fi
  out=$("$A" --out "$tmp/run" 2>&1); rc=$?
  if [ "$rc" -eq 1 ] && [ ! -e "$tmp/run" ]; then ok; else bad "default run, no GPU -> exit $rc: $out"; fi
  # with no driver installed at all, the message says so rather than blaming its version (#26)
  if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
    printf '%s' "$err" | grep -q "no GPU found (no CUDA driver: libcuda.so.1 not found)" && ok ||
      bad "no driver: '$err'"
  fi
fi

# config.conf is the config's bytes as parsed, on the simulated machine: the file was read a
# second time to copy it, so a FIFO's run hung waiting for a writer (killed: 137) and a
# pipe's (<(...)) config.conf was empty
B=${B:-build}
. tests/sim/build.sh
sim_build run_cli
conf=$(printf -- '-n 2 -w 1  # two iterations\n[scenario a]\n--sizes 1K\n[scenario b]\n--sizes 2K\n')
printf '%s\n' "$conf" >"$tmp/conf.want"
mkfifo "$tmp/conf.fifo"
(timeout 25 bash -c 'printf "%s\n" "$1" >"$2"' _ "$conf" "$tmp/conf.fifo" &) # never left waiting
timeout -k 2 20 "$S" run --config "$tmp/conf.fifo" --gpus 0,1 --algo ring --out "$tmp/cfifo" >/dev/null 2>"$tmp/err"; rc=$?
[ "$rc" -eq 0 ] && cmp -s "$tmp/conf.want" "$tmp/cfifo/config.conf" && ok ||
  bad "--config FIFO -> exit $rc: $(cat "$tmp/err"); config.conf: $(cat "$tmp/cfifo/config.conf" 2>&1)"
timeout -k 2 20 "$S" run --config <(printf '%s\n' "$conf") --gpus 0,1 --algo ring --out "$tmp/cpipe" >/dev/null 2>"$tmp/err"; rc=$?
[ "$rc" -eq 0 ] && cmp -s "$tmp/conf.want" "$tmp/cpipe/config.conf" && ok ||
  bad "--config <(...) -> exit $rc: $(cat "$tmp/err"); config.conf: $(cat "$tmp/cpipe/config.conf" 2>&1)"

finish
