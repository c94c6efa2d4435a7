#!/usr/bin/env bash
# One rule for repeated flags and for numbers, in every subcommand (#45; docs/cli.md "Repeated
# flags", "Values"): a flag that takes one value (a list is one) given twice in one place is
# refused naming the flag and both values, a config's place named FILE:LINE; --straggler,
# --degrade and --profile add up; --set once per setting; an item named twice in a list is
# refused; a later place (scenario, command line) replaces an earlier one. Whole numbers are
# read exactly (--set, sizes). model and schedule bound --segments; lower refuses run's options
# it does nothing with; --list and settings take no argument; a run that runs alone refuses the
# copies a launcher started; a dry run plans the GPUs CUDA will see. Each bad input: exit 2,
# one line, nothing on stdout, no run folder.
. "$(dirname "$0")/lib.sh"

# refused PATTERN CMD...: exit 2, one stderr line matching PATTERN, nothing on stdout
refused() {
  local pat=$1; shift
  local out err rc
  out=$(timeout 20 "$@" 2>"$tmp/err"); rc=$?
  err=$(cat "$tmp/err")
  if [ "$rc" -ne 2 ]; then bad "$* -> exit $rc, want 2 ($err)"; return; fi
  if [ -n "$out" ]; then bad "$* -> printed on stdout: $(printf '%s' "$out" | head -c 300)"; return; fi
  if [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ]; then bad "$* -> want one line: $err"; return; fi
  if ! printf '%s' "$err" | grep -qE -- "$pat"; then bad "$* -> '$err' lacks /$pat/"; return; fi
  ok
}
twice="given twice \(first "
R=(--dry-run --gpus 0,1,2,3)

# 1. run: a flag that takes one value, given twice on the command line (the last was kept)
bad_input "^arbench: -n: bad value '50': ${twice}'20'\): a flag that takes one value is given once" run "${R[@]}" -n 20 -n 50
bad_input "^arbench: --iters: bad value '6': ${twice}-n '5'\)" run "${R[@]}" -n 5 --iters 6
bad_input "^arbench: --algo: bad value 'rhd': ${twice}'ring'\)" run "${R[@]}" --algo ring --algo rhd
bad_input "^arbench: --sizes: bad value '2K': ${twice}'1K'\)" run "${R[@]}" --sizes 1K --sizes 2K
bad_input "^arbench: --transport: bad value 'sm': ${twice}'ce'\)" run "${R[@]}" --transport ce --transport sm
bad_input "^arbench: --gpus: bad value '0,1': ${twice}'0,1,2,3'\)" run "${R[@]}" --gpus 0,1
bad_input "^arbench: -d: bad value 'fp16': ${twice}--dtype 'bf16'\)" run "${R[@]}" --dtype bf16 -d fp16
bad_input "^arbench: -T: bad value '6': ${twice}--timeout '5'\)" run "${R[@]}" --timeout 5 -T 6
bad_input "^arbench: --pipeline: bad value '1': ${twice}'0'\)" run "${R[@]}" --pipeline 0 --pipeline 1
bad_input "^arbench: --row-budget: bad value '1s': ${twice}'100ms'\)" run "${R[@]}" -w 2 --row-budget 100ms --row-budget 1s
bad_input "^arbench: --torus: bad value '4x1': ${twice}'2x2'\)" run "${R[@]}" --torus 2x2 --torus 4x1
bad_input "^arbench: --segments: bad value '8': ${twice}'4'\)" run "${R[@]}" --segments 4 --segments 8
bad_input "^arbench: -w: bad value '2': ${twice}'1'\)" run "${R[@]}" -w 1 -w2
bad_input "^arbench: --critical-max: bad value '2ms': ${twice}'1ms'\)" run "${R[@]}" --critical-max 1ms --critical-max 2ms
bad_input "^arbench: --set: bad value 'ce.sum_wait=0': ${twice}'ce.sum_wait=1'\): each setting is given once" run "${R[@]}" --set ce.sum_wait=1 --set ce.sum_wait=0
bad_input "^arbench: --force: given twice: a flag is given once$" run "${R[@]}" --force --force
bad_input "^arbench: --dry-run: given twice: a flag is given once$" run "${R[@]}" --dry-run
bad_input "^arbench: --find-critical: given twice" run "${R[@]}" --algo ring,stragglar --find-critical --find-critical
mkdir -p "$tmp/a" "$tmp/b"
out=$("$A" run "${R[@]}" --out "$tmp/a/r" --out "$tmp/b/r" 2>&1); rc=$?
[ "$rc" -eq 2 ] && printf '%s' "$out" | grep -qE "^arbench: --out: bad value '$tmp/b/r': ${twice}'$tmp/a/r'\): " &&
  [ ! -e "$tmp/a/r" ] && [ ! -e "$tmp/b/r" ] && ok || bad "--out twice: exit $rc: $out"
# several flags that add up still do, and --set of two settings is two
out=$("$A" run "${R[@]}" --algo ring --sizes 1K --straggler 1:1ms --straggler 2:2ms --degrade 3:2 --degrade 0:3 \
  --set ce.sum_wait=0 --set ce.ring_streams=2 2>&1) && printf '%s' "$out" | grep -q 'rank 2 delayed 2 ms' &&
  printf '%s' "$out" | grep -q 'rank 0 links x3' && ok || bad "flags that add up: $out"

# 2. lists: an item named twice is refused (ring,ring and ce,ce were quietly one)
bad_input "^arbench: --algo: bad value 'ring': named twice in the list$" run "${R[@]}" --algo ring,rhd,ring
bad_input "^arbench: --transport: bad value 'ce': named twice in the list$" run "${R[@]}" --transport ce,sm,ce
bad_input "^arbench: --sizes: bad value '1024': 1024 bytes named twice" run "${R[@]}" --sizes 1K,1024
printf -- '--algo ring --sizes 1K\n[scenario a]\n-n 2\n[scenario b]\n-n 3\n' >"$tmp/ab.conf"
bad_input "^arbench: --scenario: bad value 'a': named twice in the list$" run "${R[@]}" --config "$tmp/ab.conf" --scenario a,b,a
bad_input "^arbench: --scenario: bad value 'b': ${twice}'a'\)" run "${R[@]}" --config "$tmp/ab.conf" --scenario a --scenario b
bad_input "^arbench: --config: bad value '$tmp/ab.conf': ${twice}'$tmp/ab.conf'\)" run "${R[@]}" --config "$tmp/ab.conf" --config "$tmp/ab.conf"
# --gpus is the one list whose repeats mean something: ranks sharing a GPU
out=$("$A" run --dry-run --gpus 0,0,1,1 --algo ring --sizes 1K 2>&1) && printf '%s' "$out" | grep -q '4 ranks' && ok ||
  bad "--gpus 0,0,1,1: $out"

# 3. a config file: one place above its scenarios, one per scenario; FILE:LINE named
printf -- '-n 5\n--algo ring --sizes 1K\n-n 6\n' >"$tmp/c1.conf"
bad_input "^arbench: -n: bad value '6': given twice in $tmp/c1.conf:3 \(first '5'\)" run "${R[@]}" --config "$tmp/c1.conf"
printf -- '--sizes 1K\n[scenario s]\n--algo ring\n--algo rhd\n' >"$tmp/c2.conf"
bad_input "^arbench: --algo: bad value 'rhd': given twice in $tmp/c2.conf:4 \(first 'ring'\)" run "${R[@]}" --config "$tmp/c2.conf"
printf -- '--algo ring --sizes 1K --set ll.blocks=4 --set ll.blocks=8\n' >"$tmp/c3.conf"
bad_input "^arbench: --set: bad value 'll.blocks=8': given twice in $tmp/c3.conf:1 \(first 'll.blocks=4'\)" run "${R[@]}" --config "$tmp/c3.conf"
printf -- '--algo ring\n--sizes 1K\n--dtype bf16\n[scenario s]\n--force --force\n' >"$tmp/c4.conf"
bad_input "^arbench: --force: given twice in $tmp/c4.conf:5: a flag is given once" run "${R[@]}" --config "$tmp/c4.conf"
# a later place replaces an earlier one: the scenario's and the command line's -n win
printf -- '--algo ring --sizes 1K -n 5 --set ce.sum_wait=0\n[scenario s]\n-n 6\n' >"$tmp/c5.conf"
out=$("$A" run "${R[@]}" --config "$tmp/c5.conf" 2>&1) && printf '%s' "$out" | grep -q ' 6 iterations' && ok || bad "a scenario's -n: $out"
out=$("$A" run "${R[@]}" --config "$tmp/c5.conf" -n 7 --set ce.sum_wait=1 2>&1) && printf '%s' "$out" | grep -q ' 7 iterations' &&
  ok || bad "the command line's -n: $out"

# 4. numbers read exactly: more decimals than a whole number holds are refused (were rounded)
bad_input "^arbench: --set: bad value 'ce.ring_streams=1.00000000000000001': not a whole number" run "${R[@]}" --set ce.ring_streams=1.00000000000000001
bad_input "^arbench: --set: bad value 'ce.flow_batch=0.3K': not a whole number" run "${R[@]}" --set ce.flow_batch=0.3K
bad_input "^arbench: --set: bad value 'ce.ring_streams=1e0': not a plain decimal number$" run "${R[@]}" --set ce.ring_streams=1e0
bad_input "^arbench: --set: bad value 'degrade.network_bw=1e12': not a plain decimal number$" run "${R[@]}" --set degrade.network_bw=1e12
bad_input "^arbench: --sizes: bad value '1.0000000000000001K': must be a whole number of bytes" run "${R[@]}" --sizes 1.0000000000000001K
bad_input "^arbench: --sizes: bad value '1e3': not a plain decimal \(no exponent\)$" run "${R[@]}" --sizes 1e3
bad_input "^arbench: -e: bad value '1.0000000000000000000001G': must be a whole number of bytes" run "${R[@]}" -e 1.0000000000000000000001G
out=$("$A" run "${R[@]}" --algo ring --sizes 0.5K,1.5M --set ce.flow_batch=64.5K 2>&1) &&
  printf '%s' "$out" | grep -q 'sizes: 2, 512\.\.1536K' && ok || bad "exact decimals refused: $out"

# 5. model, schedule, lower, settings, --list: the same rule
refused "^arbench: --sizes: bad value '2K': ${twice}'1K'\)" "$A" model --algo ring --ranks 4 --sizes 1K --sizes 2K
refused "^arbench: --bytes: bad value '2K': ${twice}--sizes '1K'\)" "$A" model --algo ring --ranks 4 --sizes 1K --bytes 2K
refused "^arbench: --ranks: bad value '4': named twice in the list$" "$A" model --algo ring --ranks 4,8,4 --sizes 1K
refused "^arbench: --ranks: bad value '04': named twice in the list$" "$A" model --algo ring --ranks 4,04 --sizes 1K
refused "^arbench: --algo: bad value 'ring': named twice in the list$" "$A" model --algo ring,rhd,ring --ranks 4 --sizes 1K
refused "^arbench: --alpha: bad value '4us': ${twice}'3us'\)" "$A" model --algo ring --ranks 4 --sizes 1K --alpha 3us --alpha 4us
refused "^arbench: --set: bad value 'model.jobs=2': ${twice}'model.jobs=1'\)" "$A" model --algo ring --ranks 4 --sizes 1K --set model.jobs=1 --set model.jobs=2
refused "^arbench: --topology: bad value 'torus': ${twice}'switch'\)" "$A" model --algo ring --ranks 4 --sizes 1K --topology switch --topology torus
refused "^arbench: --segments: bad value '4096': optcc at 4096 ranks in 4096 segments is about 1\.4e\+11 transfers" "$A" model --algo optcc --ranks 4096 --segments 4096 --sizes 1G
refused "^arbench: --segments: bad value '256': optcc-switch at 4096 ranks in 256 segments" "$A" model --algo ring,optcc-switch --ranks 16,4096 --segments 256 --sizes 1G
refused "^arbench: --segments: bad value '4096': optcc at 4096 ranks" "$A" schedule --algo optcc --ranks 4096 --segments 4096
refused "^arbench: --ranks: bad value '8': ${twice}'4'\)" "$A" schedule --algo ring --ranks 4 --ranks 8
refused "^arbench: --bytes: bad value '2K': ${twice}--sizes '1K'\)" "$A" schedule --algo ring --ranks 4 --sizes 1K --bytes 2K
refused "^arbench: --format: bad value 'text': ${twice}'json'\)" "$A" schedule --algo ring --ranks 4 --format json --format text
refused "^arbench: --format: bad value 'text': ${twice}'json'\)" "$A" lower --algo ring --ranks 4 --sizes 1K --format json --format text
refused "^arbench: --degrade-bw: bad value '2GB/s': ${twice}'1GB/s'\)" "$A" lower --algo ring --ranks 4 --sizes 1K --degrade 1:2 --degrade-bw 1GB/s --degrade-bw 2GB/s
refused "^arbench: --transport: bad value 'sm': ${twice}'ce'\)" "$A" lower --algo ring --ranks 4 --sizes 1K --transport ce --transport sm
refused "^arbench: -n: not an option of lower" "$A" lower --algo ring --ranks 4 --sizes 1K -n 5
refused "^arbench: --out: not an option of lower" "$A" lower --algo ring --ranks 4 --sizes 1K --out "$tmp/lowered"
[ ! -e "$tmp/lowered" ] && ok || bad "lower --out made a folder"
refused "^arbench: settings: unexpected argument 'ce.program' \(it takes none\)$" "$A" settings ce.program
refused "^arbench: --list: unexpected argument 'ring' \(it takes none, or --format text\|families\)$" "$A" --list ring
# lower's own default transports are replaced by --transport, not doubled
out=$("$A" lower --algo ring --ranks 4 --sizes 1K --transport sm 2>&1) && ! printf '%s' "$out" | grep -q 'on ce,' &&
  printf '%s' "$out" | grep -q '^== ring on sm' && ok || bad "lower --transport sm: $(printf '%s' "$out" | grep '^==')"

# 6. copies a launcher started of a run that runs alone (a build without MPI): refused
if [ -e "${B:-build}/obj/harness/procs_mpi.o" ]; then
  echo "skipped: 3 launcher checks (an MPI build joins the launcher's job)"
else
  for v in OMPI_COMM_WORLD_SIZE=2 PMI_SIZE=4 SLURM_STEP_NUM_TASKS=2 OMPI_COMM_WORLD_RANK=1; do
    out=$(env "$v" "$A" run "${R[@]}" --out "$tmp/copies" 2>&1 >/dev/null); rc=$?
    [ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] &&
      printf '%s' "$out" | grep -q "^arbench: $v: a launcher started [0-9]* copies" && [ ! -e "$tmp/copies" ] &&
      ok || bad "$v: exit $rc: $out"
  done
  out=$(env OMPI_COMM_WORLD_SIZE=1 SLURM_NTASKS=4 "$A" run "${R[@]}" --algo ring --sizes 1K 2>&1) && ok ||
    bad "one copy (OMPI_COMM_WORLD_SIZE=1, an allocation of 4 tasks) refused: $out"
fi

# 7. a dry run plans the GPUs CUDA will see (it counted CUDA_VISIBLE_DEVICES' commas)
for cv in "0,1,-1,2:2 ranks .*CUDA stops at '-1'" "0,1,2,3:4 ranks \(CUDA_VISIBLE_DEVICES\)" "2,x,3:8 ranks .*CUDA stops at 'x'" \
          "1,1:8 ranks .*'1' is named twice" "GPU-aa,GPU-bb,MIG-cc:2 ranks .*CUDA stops at 'MIG-cc'" " 1, 3gpu:2 ranks"; do
  out=$(env CUDA_VISIBLE_DEVICES="${cv%%:*}" "$A" run --dry-run --algo ring --sizes 1K 2>&1 | head -n 1)
  printf '%s' "$out" | grep -qE "^dry run: 1 scenario, ${cv#*:}" && ok || bad "CUDA_VISIBLE_DEVICES='${cv%%:*}': $out"
done

finish
