#!/usr/bin/env bash
# Configs and the run plan without a GPU: every configs/*.conf dry-runs (exit 0, a plan, no run
# folder); bad configs, bad scenarios and bad new flags (--degrade, --find-critical,
# --critical-max, --critical-algo, --baseline, --self-test) are one line and exit 2; the
# command line wins over the config; --scenario picks scenarios; the plan counts rows.
. "$(dirname "$0")/lib.sh"


# plan PATTERN ARGS...: a dry run exits 0, prints a plan matching PATTERN (grep -E, on the
# whole stdout), writes no run folder
plan() {
  local pat=$1; shift
  local out rc
  out=$("$A" run --dry-run --out "$tmp/run" "$@" 2>"$tmp/err"); rc=$?
  if [ "$rc" -ne 0 ]; then bad "dry run $* -> exit $rc: $(cat "$tmp/err")"; return; fi
  if ! printf '%s\n' "$out" | grep -qE -- "$pat"; then bad "dry run $* -> lacks /$pat/: $out"; return; fi
  if [ -e "$tmp/run" ]; then bad "dry run $* -> wrote $tmp/run"; rm -rf "$tmp/run"; return; fi
  ok
}

# every config in configs/: exit 0, a plan line per scenario and a total
n=0
for c in configs/*.conf; do
  n=$((n + 1))
  out=$("$A" run --config "$c" --dry-run --out "$tmp/run" 2>"$tmp/err"); rc=$?
  nscen=$(grep -c '^\[scenario ' "$c")
  [ "$nscen" -eq 0 ] && nscen=1
  if [ "$rc" -ne 0 ]; then bad "$c: dry run exit $rc: $(cat "$tmp/err")"; continue; fi
  if [ -s "$tmp/err" ]; then bad "$c: dry run wrote to stderr: $(cat "$tmp/err")"; continue; fi
  if ! printf '%s\n' "$out" | grep -qE '^plan: [0-9]+ rows, [0-9]+ to measure, estimated [0-9]'; then
    bad "$c: no plan line: $out"; continue; fi
  got=$(printf '%s\n' "$out" | grep -cE '^scenario .*: [0-9]+ GPUs')
  if [ "$got" -ne "$nscen" ]; then bad "$c: $got scenarios planned, $nscen in the file"; continue; fi
  if [ "$(printf '%s\n' "$out" | grep -cE '^  rows: (at most )?[0-9]+ \([0-9]+ to measure, [0-9]+ n/a\), estimated')" -ne "$nscen" ]; then
    bad "$c: a scenario without its rows line: $out"; continue; fi
  [ -e "$tmp/run" ] && { bad "$c: dry run wrote $tmp/run"; continue; }
  ok
done
[ "$n" -ge 4 ] && ok || bad "only $n configs in configs/"
for c in quick nightly straggler degraded; do [ -f "configs/$c.conf" ] && ok || bad "configs/$c.conf missing"; done
# the nightly job covers what README says it runs
nightly=$("$A" run --config configs/nightly.conf --dry-run --gpus 0,1,2,3 2>&1)
for pat in 'transports nccl-p2p,ce,sm' 'sizes: 24, 1K\.\.8G' 'straggler: rank 1 delayed 8 ms' \
           'degraded: rank 1 links x2' 'critical-delay search at 4 sizes 64M\.\.4G' \
           'nccl cannot be degraded'; do
  printf '%s\n' "$nightly" | grep -qE -- "$pat" && ok || bad "nightly plan lacks /$pat/"
done
# the profiled scenario: 1 GiB, an 8 ms straggler, the overlap figure and the phase timeline
prof=$(printf '%s\n' "$nightly" | awk '/^scenario / { on = /^scenario profile-8ms:/ } on')
for pat in '^scenario profile-8ms: 4 GPUs, 4 algorithms, transports ce,sm,nccl-p2p, float32, 6 iterations \+ 2 warm-up$' \
           '^  sizes: 1, 1G$' '^  straggler: rank 1 delayed 8 ms$' '^  rows: 10 \(10 to measure, 0 n/a\)' \
           '^  phases: ' '^  profile: overlap'; do
  printf '%s\n' "$prof" | grep -qE -- "$pat" && ok || bad "nightly profile-8ms plan lacks /$pat/: $prof"
done
nalgos=$("$A" --list | awk 'NR > 1 && /^[^ ]/' | wc -l)
# every algorithm in clean and straggler-8ms (their --algo lists name them: a new algorithm
# must be added there)
for sc in clean straggler-8ms; do
  printf '%s\n' "$nightly" | grep -q "^scenario $sc: 4 GPUs, $nalgos algorithms" && ok ||
    bad "nightly $sc: not every algorithm ($nalgos)"
done
[ "$(awk '/^\[scenario clean\]/ { on = 1; next } on && /^--algo / { print $2; exit }' configs/nightly.conf |
       tr ',' '\n' | sort | paste -sd,)" = "$("$A" --list | awk 'NR > 1 && /^[^ ]/ { print $1 }' | sort | paste -sd,)" ] &&
  ok || bad "nightly clean: its --algo list is not every algorithm"
printf '%s\n' "$nightly" | grep -q "^scenario degraded-2x: 4 GPUs, $nalgos algorithms" && ok || bad "nightly degraded-2x: not every algorithm"
# the plan counts what the run will say is n/a: nccl and every algorithm on ll, at every size
deg=$(printf '%s\n' "$nightly" | awk '/^scenario degraded-2x/ { on = 1; next } /^scenario / { on = 0 } on')
nsz=$(printf '%s\n' "$deg" | awk -F'[:,]' '/^  sizes: / { print $2 + 0; exit }')
printf '%s\n' "$deg" | grep -qE "^  rows: [0-9]+ \([0-9]+ to measure, $((nalgos * ${nsz:-0})) n/a\)" && ok ||
  bad "nightly degraded-2x: n/a rows not counted as the run has them: $deg"
printf '%s\n' "$deg" | grep -q "every algorithm on ll: no degraded-link emulation on this transport" && ok ||
  bad "nightly degraded-2x: ll's n/a not said: $deg"
# the row budget in every scenario, and the whole job within issue #27's 10 minutes on 4 GPUs
[ "$(printf '%s\n' "$nightly" | grep -c '^  row budget: 100 ms: ')" -eq "$(printf '%s\n' "$nightly" | grep -c '^scenario ')" ] &&
  ok || bad "nightly: row budget lines: $nightly"
est=$(printf '%s\n' "$nightly" | awk '/^plan:/ { for (i = 1; i <= NF; i++) if ($i == "estimated") { s = $(i + 1); break } }
  END { m = 0; if (s ~ /m/) { split(s, p, "m"); m = p[1]; s = p[2] } sub(/s$/, "", s); print m * 60 + s }')
[ "${est:-999}" -lt 480 ] && ok || bad "nightly: estimated ${est}s on 4 GPUs, over 8 minutes"

# bad configs: one line, exit 2
printf -- '-n 5\n[scenario a]\n--frobnicate\n' >"$tmp/unknown.conf"
printf -- '-n 5\n[scenario a]\n-n 3\n[scenario a]\n' >"$tmp/dup.conf"
printf -- '-n 5\n[scenario]\n' >"$tmp/noname.conf"
printf -- '-n 5\n[section a]\n' >"$tmp/section.conf"
printf -- '[scenario a] junk\n' >"$tmp/junk.conf"
printf -- '--algo "ring\n' >"$tmp/quote.conf"
printf -- '--config other.conf\n' >"$tmp/nested.conf"
printf -- '[scenario a]\n-n x\n' >"$tmp/badval.conf"
mkdir -p "$tmp/b1" "$tmp/b2" && cp tests/fixtures/nightly/results.csv "$tmp/b1/" && cp tests/fixtures/nightly/results.csv "$tmp/b2/"
printf -- '[scenario a]\n--baseline %s/b1\n[scenario b]\n--baseline %s/b2\n' "$tmp" "$tmp" >"$tmp/bases.conf"
printf -- '-n 5 --straggler 3:1ms\n' >"$tmp/rank3.conf"
bad_input "^arbench: --config: bad value '/nonexistent/x.conf': cannot read" --config /nonexistent/x.conf
bad_input "^arbench: run: unknown option '--frobnicate' in scenario 'a' of .*unknown.conf" \
  --config "$tmp/unknown.conf" --dry-run
bad_input "^arbench: --config: .*dup.conf:4: scenario 'a' appears twice" --config "$tmp/dup.conf"
bad_input "^arbench: --config: .*noname.conf:2: a section line must be" --config "$tmp/noname.conf"
bad_input "^arbench: --config: .*section.conf:2: a section line must be" --config "$tmp/section.conf"
bad_input "^arbench: --config: .*junk.conf:1: a section line" --config "$tmp/junk.conf"
bad_input "^arbench: --config: .*quote.conf:1: unbalanced quote" --config "$tmp/quote.conf"
bad_input "^arbench: run: '--config' belongs on the command line" --config "$tmp/nested.conf"
bad_input "^arbench: -n: bad value 'x'" --config "$tmp/badval.conf" --dry-run
bad_input "^arbench: --baseline: bad value '.*/b2': scenarios name different baselines" --config "$tmp/bases.conf"
bad_input "^arbench: --config: bad value 'b': given twice" --config a --config b
bad_input "^arbench: --scenario: bad value 'nope': no such scenario .*known: clean straggler-2ms critical" \
  --config configs/quick.conf --scenario clean,nope --dry-run
bad_input "^arbench: --scenario: bad value 'a': needs --config" --scenario a --dry-run
bad_input "^arbench: --straggler: bad value '3'.*< 2 GPUs" --config "$tmp/rank3.conf" --gpus 0,1 --dry-run
bad_input "^arbench: --config: needs a value" --config

# the config is read exactly or refused with FILE:LINE (#26): a value flag ending a line never
# takes the next line's or the command line's word; no directory, NUL, control byte, overlong
# line or word, empty file; CRLF reads as LF
printf -- '-n 3\n-o\n' >"$tmp/last.conf"
printf -- '-n\n3\n' >"$tmp/split.conf"
printf -- '-o\n[scenario a]\n-n 3\n' >"$tmp/sec.conf"
printf -- '-n 3\n--sizes 1K\0 -n 4\n' >"$tmp/nul.conf"
printf -- '-n 3\r--sizes 1K\n' >"$tmp/cr.conf"
printf -- '-n 3 \033[1m\n' >"$tmp/esc.conf"
{ printf -- '-n 3\n--sizes '; head -c 5000 /dev/zero | tr '\0' 1; printf '\n'; } >"$tmp/word.conf"
{ printf -- '-n 3\n\n# '; head -c 70000 /dev/zero | tr '\0' x; printf ' --frobnicate\n'; } >"$tmp/line.conf"
{ printf -- '-n 3 # '; head -c 60000 /dev/zero | tr '\0' x; printf ' --frobnicate\n'; } >"$tmp/longok.conf"
: >"$tmp/empty.conf"
printf '# nothing\n\n' >"$tmp/comments.conf"
bad_input "^arbench: --config: .*last.conf:2: '-o' needs its value on the same line \(it would take '--out' from the command line\)$" \
  --config "$tmp/last.conf" --dry-run
(cd "$tmp" && "$OLDPWD/$A" run --config last.conf --dry-run >out 2>err; echo $? >rc)
[ "$(cat "$tmp/rc")" = 2 ] && [ ! -e "$tmp/--dry-run" ] && [ ! -s "$tmp/out" ] &&
  grep -qx "arbench: --config: last.conf:2: '-o' needs its value on the same line (it would take '--dry-run' from the command line)" "$tmp/err" &&
  ok || bad "-o ending a config took --dry-run: exit $(cat "$tmp/rc"): $(cat "$tmp/err")"
(cd "$tmp" && "$OLDPWD/$A" run --config last.conf >out 2>err; echo $? >rc)
[ "$(cat "$tmp/rc")" = 2 ] && grep -qx "arbench: --config: last.conf:2: '-o' needs a value" "$tmp/err" &&
  ok || bad "-o ending a config: exit $(cat "$tmp/rc"): $(cat "$tmp/err")"
bad_input "^arbench: --config: .*split.conf:1: '-n' needs its value on the same line \(it would take '3' from a later line\)" \
  --config "$tmp/split.conf" --dry-run
bad_input "^arbench: --config: .*sec.conf:1: '-o' needs its value on the same line" --config "$tmp/sec.conf" --dry-run
bad_input "^arbench: --config: bad value '$tmp': a directory, not a config file" --config "$tmp" --dry-run
bad_input "^arbench: --config: .*nul.conf:2: a NUL byte at column 11$" --config "$tmp/nul.conf" --dry-run
bad_input "^arbench: --config: .*cr.conf:1: a carriage return inside the line" --config "$tmp/cr.conf" --dry-run
bad_input "^arbench: --config: .*esc.conf:1: a control character at column 6" --config "$tmp/esc.conf" --dry-run
bad_input "^arbench: --config: .*word.conf:2: a word longer than 4095 bytes" --config "$tmp/word.conf" --dry-run
bad_input "^arbench: --config: .*line.conf:3: a line longer than 65535 bytes" --config "$tmp/line.conf" --dry-run
bad_input "^arbench: --config: .*empty.conf: the file is empty$" --config "$tmp/empty.conf" --dry-run
bad_input "^arbench: --config: .*comments.conf: no options in the file" --config "$tmp/comments.conf" --dry-run
printf -- '--algo ring,nccl\r\n[scenario a]\r\n-n 3\r\n' >"$tmp/crlf.conf"
plan '^scenario a: 4 GPUs, 2 algorithms, .* 3 iterations' --config "$tmp/crlf.conf" --gpus 0,1,2,3
plan '^scenario \(default\): 4 GPUs, .* 3 iterations' --config "$tmp/longok.conf" --gpus 0,1,2,3
printf -- '--find-critical\n1G,4G\n' >"$tmp/fc.conf"
bad_input "^arbench: run: unexpected argument '1G,4G' in .*fc.conf" --config "$tmp/fc.conf" --dry-run

# the new flags: validated before anything else
bad_input "^arbench: --degrade: bad value '0.5'.*>= 1" --degrade 1:0.5 --dry-run
bad_input "^arbench: --degrade: bad value '2'.*< 2 GPUs" --degrade 2:2 --gpus 0,1
bad_input "^arbench: --degrade: bad value '1'.*RANK:FACTOR" --degrade 1
bad_input "^arbench: --find-critical: bad value '1X'" --find-critical 1G,1X --dry-run
bad_input "^arbench: --find-critical: bad value 'stragglar': needs it and at least one" \
  --find-critical --algo ring,nccl --dry-run
bad_input "^arbench: --find-critical: bad value 'stragglar'" --find-critical --algo stragglar,bcast
bad_input "^arbench: --critical-max: bad value '10us': must be between" --critical-max 10us
bad_input "^arbench: --critical-algo: bad value 'ring': not a straggler-aware" --critical-algo ring
bad_input "^arbench: --critical-algo: bad value 'nope': unknown algorithm" --critical-algo nope
bad_input "^arbench: --baseline: bad value '/nonexistent/run'" --baseline /nonexistent/run
# a baseline that cannot be compared with is bad input, never "0 regressions" (#26)
mkdir -p "$tmp/bw" "$tmp/be" "$tmp/bh" "$tmp/bc"
printf 'a,b\n1,2\n' >"$tmp/bw/results.csv"
: >"$tmp/be/results.csv"
head -n 1 tests/fixtures/nightly/results.csv >"$tmp/bh/results.csv"
head -n 1 tests/fixtures/nightly/results.csv | sed 's/time_us_median/median/' >"$tmp/bc/results.csv"
tail -n +2 tests/fixtures/nightly/results.csv >>"$tmp/bc/results.csv"
bad_input "^arbench: --baseline: bad value '$tmp/bw': its results.csv header lacks the column run_id$" --baseline "$tmp/bw" --dry-run
bad_input "^arbench: --baseline: bad value '$tmp/be': its results.csv is empty$" --baseline "$tmp/be" --dry-run
bad_input "^arbench: --baseline: bad value '$tmp/bh': its results.csv has no rows$" --baseline "$tmp/bh" --dry-run
bad_input "^arbench: --baseline: bad value '$tmp/bc': its results.csv header lacks the column time_us_median$" --baseline "$tmp/bc" --dry-run
plan '^plan: ' --baseline tests/fixtures/nightly --gpus 0,1
bad_input "^arbench: --self-test: bad value 'disk': known: delay" --self-test disk
bad_input "^arbench: --dry-run: bad value '': given in some scenarios only" \
  --config <(printf -- '[scenario a]\n--dry-run\n[scenario b]\n')

# the command line wins over the config; --scenario picks; a file with no section is one scenario
plan '^scenario clean: .* 3 iterations \+ 2 warm-up' --config configs/quick.conf -n 3
plan '^plan: ' --config configs/quick.conf --scenario straggler-2ms
out=$("$A" run --config configs/quick.conf --scenario straggler-2ms,critical --dry-run 2>&1)
if printf '%s\n' "$out" | grep -q '^scenario straggler-2ms' && printf '%s\n' "$out" | grep -q '^scenario critical' &&
   ! printf '%s\n' "$out" | grep -q '^scenario clean'; then ok; else bad "--scenario picked: $out"; fi
printf -- '--algo ring,nccl  # a comment\n--transport nccl-p2p,ce\n-b 1K -e 4K\n' >"$tmp/flat.conf"
plan '^scenario \(default\): 4 GPUs, 2 algorithms' --config "$tmp/flat.conf" --gpus 0,1,2,3
plan '^  rows: 9 \(9 to measure, 0 n/a\)' --config "$tmp/flat.conf" --gpus 0,1,2,3
plan '^  sizes: 4, 1K\.\.8K' --config "$tmp/flat.conf" -e 8K
plan '^dry run: 1 scenario from .*flat.conf, 4 ranks \(--gpus\)' --config "$tmp/flat.conf" --gpus 0,1,2,3

# plans: counts, n/a rows, stragglers, degraded links, searches
plan '^  rows: 9 \(9 to measure, 0 n/a\)' --gpus 0,1,2,3 --algo ring,nccl --transport nccl-p2p,ce -b 1K -e 4K
plan '^  rows: 6 \(3 to measure, 3 n/a\)' --gpus 0,1,2,3 --algo ring,nccl --transport nccl-p2p -b 1K -e 4K --degrade 1:2
plan '^  n/a: nccl: nccl cannot be degraded$' --gpus 0,1,2,3 --algo nccl,ring,rhd --degrade 1:2
plan '^  rows: 4 \(2 to measure, 2 n/a\)' --gpus 0,1,2 --algo stragglar,ring --transport ce,sm -b 1K -e 1K
plan '^  n/a: stragglar: ' --gpus 0,1,2 --algo stragglar,ring --transport ce -b 1K -e 1K
plan '^  sizes: 1, 1K$' --gpus 0,1,2 --algo ring -b 1K -e 1K
plan '^  straggler: rank 2 delayed uniformly 2\.\.10 ms' --gpus 0,1,2,3 --straggler 2:2ms-10ms
plan '^  straggler: rank 0 delayed 4 ms' --gpus 0,1,2,3 --straggler 2:8ms,0:4ms
printf '1ms\n3ms\n' >"$tmp/d.txt"
plan "delayed per iteration from $tmp/d.txt \(2 delays, mean 2 ms\)" --gpus 0,1 --straggler "1:@$tmp/d.txt"
plan '^  critical-delay search at 2 sizes 1G\.\.4G: stragglar vs the fastest other, delays 0\.\.64 ms' \
  --find-critical 1G,4G --gpus 0,1,2,3
plan 'search at 1 size 1G: .* straggler rank 3$' --find-critical=1G --gpus 0,1,2,3
plan 'search at 7 sizes 64M\.\.4G: .*delays 0\.\.8 ms.* straggler rank 1$' --find-critical \
  --critical-max 8ms --straggler 1:0 --algo ring,stragglar
plan 'search at 7 sizes 64M\.\.4G: bcast vs' --find-critical --critical-algo bcast --algo ring,bcast
# ring and bcast, one transport, 4 GPUs: 2 live candidates x (delay 0, 8 coarse to 64 ms, 9
# bisection steps of the 32..64 ms bracket) per size
plan '^  rows: at most 36 \(36 to measure, 0 n/a\)' --find-critical 1G --critical-algo bcast \
  --algo ring,bcast --transport ce --gpus 0,1,2,3

# --self-test needs a GPU: one line, exit 1 (where there is none)
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "(a GPU is present: the no-GPU self-test check is skipped)"
else
  out=$("$A" run --self-test delay 2>"$tmp/err"); rc=$?
  if [ "$rc" -eq 1 ] && [ -z "$out" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "self-test delay" "$tmp/err"; then ok
  else bad "self-test without a GPU -> exit $rc: $out $(cat "$tmp/err")"; fi
fi
out=$("$A" run --help 2>&1)
for f in --config --scenario --dry-run --baseline --degrade --find-critical --critical-max --self-test; do
  printf '%s' "$out" | grep -q -- "$f" && ok || bad "run --help lacks $f"
done

finish
