#!/usr/bin/env bash
# `arbench run` without a GPU (SPEC.md sections 6 and 7): every bad flag answered with one line
# naming the flag and the value, exit 2, nothing written; a good command on a machine with no
# GPU says so in one line, points at model/schedule, exits 1, and writes nothing either.
. "$(dirname "$0")/lib.sh"


out=$("$A" run --help 2>&1); rc=$?
if [ "$rc" -eq 0 ] && printf '%s' "$out" | grep -q -- "--transport LIST|all  nccl-p2p, ce, sm, ll "; then ok
else bad "run --help -> exit $rc: $out"; fi

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
bad_input "^arbench: -i: bad value '1K': more than 1024 sizes between -b and -e$" run -b 1 -e 8G -i 1K
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
for args in "--straggler 3:3600s -n 100000 -w 1000000" "--degrade 1:1000 --sizes 1T -n 100000" "--straggler 3:3600s --find-critical --critical-max 10s --algo ring,stragglar"; do
  # shellcheck disable=SC2086
  out=$("$A" run --dry-run --gpus 0,1,2,3 --algo ring,stragglar --sizes 1G $args 2>&1); rc=$?
  if [ "$rc" -eq 0 ] && ! printf '%s' "$out" | grep -qE 'estimated (at most )?-|nan|inf'; then ok
  else bad "dry run $args -> exit $rc: $out"; fi
done
bad_input "^arbench: --straggler: $tmp/nul.txt:2: bad value '': a NUL byte" run --gpus 0,1,2,3 --straggler "3:@$tmp/nul.txt" --dry-run

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

finish
