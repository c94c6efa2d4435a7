#!/usr/bin/env bash
# The command-line contract outside run (schedule, lower, --list): exit codes and one-line
# messages; repeated --straggler and --degrade flags add up; numbers (--set's too) are plain
# decimals.
. "$(dirname "$0")/lib.sh"

# one_line CMD...: bad input answered with exactly one line on stderr, nothing on stdout
one_line() {
  local out err
  out=$("$@" 2>/dev/null); err=$("$@" 2>&1 >/dev/null)
  if [ -n "$out" ] || [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ]; then
    bad "$* -> want one stderr line, got stdout='$out' stderr='$err'"; else ok; fi
}

expect 0 "^ring " $A --list
# --list says where the model prices each algorithm: the torus forms on the grids, the forms
# of G-GPU servers on two tiers, the rest anywhere
expect 0 "^algorithm +supported n +topologies \(model\) +flags" $A --list
expect 0 "^swing-mp +2\.\.65536, .* torus,hx2mesh,hx4mesh,hyperx +torus( |$)" $A --list
expect 0 "^optcc-servers .* two-tier +degrade-aware( |$)" $A --list
expect 0 "^rhd-elim +2\.\.65536 +any +-( |$)" $A --list
# --list fits 100 columns: an algorithm's line starts with its name and holds its columns where
# the header has them, whatever the name's length; indented lines under it continue it (a long
# rank rule, the description and its source); every algorithm once
list=$("$A" --list)
wide=$(printf '%s\n' "$list" | awk 'length($0) > 100')
[ -z "$wide" ] && ok || bad "--list lines over 100 columns: $wide"
known=$("$A" schedule --algo nosuch --ranks 4 2>&1 | sed 's/.*known: //')
names=$(printf '%s\n' "$list" | awk 'NR > 1 && /^[^ ]/ { printf "%s%s", s, $1; s = " " }')
[ -n "$known" ] && [ "$names" = "$known" ] && ok || bad "--list's first-column names '$names', the registry's '$known'"
misaligned=$(printf '%s\n' "$list" | awk 'NR == 1 { r = index($0, "supported n"); t = index($0, "topologies"); f = index($0, "flags"); next }
  /^[^ ]/ && !(substr($0, r - 1, 1) == " " && substr($0, r, 1) != " " && substr($0, t - 1, 1) == " " &&
               substr($0, t, 1) != " " && substr($0, f - 1, 1) == " " && substr($0, f, 1) != " ") { print }')
[ -z "$misaligned" ] && ok || bad "--list columns off the header's: $misaligned"
printf '%s\n' "$list" | grep -qE '^ {16}(OPTCC on a switch|.*\[optcc\.txt s4\.1-4\.2, Theorem 1\])' && ok ||
  bad "--list: optcc-switch's description and source not on the indented lines under it"
# --list --format families (what plots/ draws each in): every algorithm once, in a family
# plots/ has a panel for
fam=$("$A" --list --format families)
[ "$(printf '%s\n' "$fam" | awk '{ printf "%s%s", s, $1; s = " " }')" = "$names" ] &&
  [ -z "$(printf '%s\n' "$fam" | awk 'NF != 2 || $2 !~ /^(reference|classic|swing|straggler-aware|optcc)$/')" ] && ok ||
  bad "--list --format families: $fam"
expect 0 "^swing-bw swing$" $A --list --format families
expect 0 "verified: yes" $A schedule --algo ring --ranks 4
expect 0 "rounds: 6" $A schedule --algo ring --ranks 4
expect 0 "bytes_sent_per_rank \(1073741824-byte buffer\): 0:1610612736 1:1610612736" $A schedule --algo ring --ranks 4 --sizes 1G
expect 2 "--sizes: bad value '8X'" $A schedule --algo ring --ranks 4 --sizes 8X
expect 0 '"verified":true' $A schedule --algo ring --ranks 5 --format json
# lower's JSON carries the ll program's protocol, slices and flag words (the kernel's layout)
expect 0 '"ll_protocol": 1, "ll_slice": 480, "ll_slot": 512' $A lower --transport ll --algo ring --ranks 4 --sizes 1M --format json
expect 0 '"ll_flags": 3282' $A lower --transport ll --algo ring --ranks 4 --sizes 1M --format json
# ... and which TAKEs forward (ll.forward): a ring's first five, none with it off; signals from
# 32 MiB sent a round (a ring of 4 ranks at 128 MiB: 8K slices)
expect 0 '"ll_forward": 1' $A lower --transport ll --algo ring --ranks 4 --sizes 1M --format json
expect 0 '"op": "take".*"forwards": 1' $A lower --transport ll --algo ring --ranks 4 --sizes 1M --format json
expect 0 '"ll_forward": 0' $A lower --transport ll --algo ring --ranks 4 --sizes 1M --format json --set ll.forward=off
expect 0 'protocol signals, slice 8192 bytes, 8192 in a slot, forward on' $A lower --transport ll --algo ring --ranks 4 --sizes 128M
expect 3 "^n/a: " $A schedule --algo nccl --ranks 4
expect 3 "^n/a: .*even" $A schedule --algo stragglar --ranks 5

# bad input: exit 2, one line naming the flag and the value
expect 2 "--algo: bad value 'foo'.*known:.* ring" $A schedule --algo foo --ranks 4
expect 2 "--ranks: bad value '1'" $A schedule --algo ring --ranks 1
expect 2 "--ranks: bad value 'x4'" $A schedule --algo ring --ranks x4
expect 2 "--straggler: bad value '4'" $A schedule --algo stragglar --ranks 4 --straggler 4
expect 2 "--straggler: bad value '-1ms'.*negative" $A schedule --algo stragglar --ranks 4 --straggler 1:-1ms
expect 2 "--degrade: bad value '0.5'.*>= 1" $A schedule --algo optcc --ranks 4 --degrade 1:0.5
expect 2 "--degrade: bad value '9'" $A schedule --algo optcc --ranks 4 --degrade 9:2
expect 2 "--torus: bad value '2x3'.*multiply" $A schedule --algo swing-mp --ranks 4 --torus 2x3
expect 2 "--torus: bad value '2y2'" $A schedule --algo swing-mp --ranks 4 --torus 2y2
expect 2 "--format: bad value 'xml'" $A schedule --algo ring --ranks 4 --format xml
expect 2 "--segments: bad value '0'" $A schedule --algo optcc --ranks 4 --segments 0
expect 2 "unknown option" $A schedule --algo ring --ranks 4 --bogus
expect 2 "needs a value" $A schedule --algo ring --ranks
expect 2 "unknown subcommand" $A frobnicate
# Inputs read exactly or refused (#35). Repeated --degrade flags add up in schedule and lower
# as in model (the last alone was kept): the same output as one comma-separated flag
same() {
  local a b
  a=$("$A" $1 2>&1); b=$("$A" $2 2>&1)
  if [ -n "$a" ] && [ "$a" = "$b" ]; then ok; else bad "'$1' and '$2' differ"; fi
}
same "schedule --algo optcc --ranks 4 --degrade 1:2 --degrade 2:3" "schedule --algo optcc --ranks 4 --degrade 1:2,2:3"
same "lower --algo optcc --ranks 4 --sizes 1G --transport ce --degrade 1:2 --degrade 2:3" "lower --algo optcc --ranks 4 --sizes 1G --transport ce --degrade 1:2,2:3"
expect 2 "^arbench: --degrade: bad value '2:3': a rank is named twice$" $A schedule --algo optcc --ranks 4 --degrade 2:2 --degrade 2:3
# repeated --straggler flags add up the same way: the first named is stragglar's straggler
same "schedule --algo stragglar --ranks 4 --straggler 1 --straggler 2" "schedule --algo stragglar --ranks 4 --straggler 1,2"
expect 0 "^straggler: 1$" $A schedule --algo stragglar --ranks 4 --straggler 1 --straggler 2
same "lower --algo stragglar --ranks 4 --sizes 1M --transport ce --straggler 1:1ms --straggler 2:2ms" "lower --algo stragglar --ranks 4 --sizes 1M --transport ce --straggler 1:1ms,2:2ms"
expect 2 "^arbench: --straggler: bad value '1': a rank is named twice$" $A schedule --algo stragglar --ranks 4 --straggler 1 --straggler 1
expect 2 "^arbench: --straggler: bad value '2:2ms': a rank is named twice$" $A lower --algo stragglar --ranks 4 --sizes 1M --straggler 2:1ms --straggler 2:2ms
# lower measures no other size than asked: a size not whole elements is refused (1000003 was
# lowered as 1000000)
expect 2 "^arbench: --sizes: bad value '1000003': not a whole number of float32 elements" $A lower --algo ring --ranks 4 --sizes 1000003
expect 2 "^arbench: --sizes: bad value '6': not a whole number of float32" $A lower --algo ring --ranks 4 --sizes 6,8
expect 0 "1000002 bytes \(500001 bf16\)" $A lower --algo ring --ranks 4 --sizes 1000002 --dtype bf16 --transport ce
# an empty list item and hexadecimal numbers are refused
expect 2 "^arbench: --straggler: bad value '1:1ms,': an empty item" $A schedule --algo stragglar --ranks 4 --straggler 1:1ms,
expect 2 "^arbench: --degrade: bad value '1:2,': an empty item" $A schedule --algo optcc --ranks 4 --degrade 1:2,
expect 2 "^arbench: --sizes: bad value '1M,': an empty item" $A lower --algo ring --ranks 4 --sizes 1M,
expect 2 "^arbench: --sizes: bad value '0x400': not a size" $A schedule --algo ring --ranks 4 --sizes 0x400
expect 2 "^arbench: --ranks: bad value ' 4': not an integer" $A schedule --algo ring --ranks " 4"
# --set's numbers too (0x1 was 1, " 1" was 1): one line naming the setting and the value
expect 2 "^arbench: --set: bad value 'ce.sum_wait=0x1': not a plain decimal number$" $A lower --algo ring --ranks 4 --sizes 1M --transport ce --set ce.sum_wait=0x1
expect 2 "^arbench: --set: bad value 'ce.ring_streams= 1': not a plain decimal number$" $A lower --algo ring --ranks 4 --sizes 1M --transport ce --set "ce.ring_streams= 1"
one_line $A lower --algo ring --ranks 4 --sizes 1M --transport ce --set ce.sum_wait=0x1
for c in "lower --algo ring --ranks 4 --sizes 1000003" "schedule --algo optcc --ranks 4 --degrade 1:2," \
         "lower --algo ring --ranks 4 --sizes 1M,"; do
  one_line $A $c
done
for c in "schedule --algo foo --ranks 4" "schedule --algo ring --ranks 0" \
         "schedule --algo optcc --ranks 4 --degrade 1:0.5" "schedule --algo ring --ranks 4 --torus 3x3"; do
  one_line $A $c
done

# One size-list parser for every subcommand: the same bad size gets the same one line (exit 2,
# nothing on stdout) from run, lower, model, schedule and history, naming the flag as typed
# (--sizes, or model's and schedule's alias --bytes); run's line is the reference.
# sizes_line CMD...: "rc|stdout|stderr" with every flag spelled FLAG
sizes_line() {
  local out err rc
  out=$("$@" 2>"$tmp/err"); rc=$?; err=$(cat "$tmp/err")
  printf '%s|%s|%s' "$rc" "$out" "$err" | sed -E 's/^(2\|\|arbench: )--(sizes|bytes): /\1FLAG: /'
}
for v in 12x 1K,,2K 0 0x400 1.5 2048T 1M,; do
  want=$(sizes_line $A run --gpus 0,1 --dry-run --sizes "$v")
  case $want in "2||arbench: FLAG: bad value '"*) ok ;; *) bad "run --sizes $v: $want" ;; esac
  for c in "lower --algo ring --ranks 4 --sizes" "model --algo ring --ranks 4 --sizes" \
           "model --algo ring --ranks 4 --bytes" "schedule --algo ring --ranks 4 --sizes" \
           "schedule --algo ring --ranks 4 --bytes" "history $tmp --sizes"; do
    got=$(sizes_line $A $c "$v")
    [ "$got" = "$want" ] && ok || bad "$c $v: '$got', want run's '$want'"
  done
  one_line $A model --algo ring --ranks 4 --sizes "$v"
done
expect 2 "^arbench: --sizes: bad value '12x': unknown unit \(use K, M, G or T: binary\)$" $A model --algo ring --ranks 4 --sizes 12x
expect 2 "^arbench: --bytes: bad value '12x': unknown unit \(use K, M, G or T: binary\)$" $A schedule --algo ring --ranks 4 --bytes 12x
# a size not whole elements: run's rule and message in lower too
want=$(sizes_line $A run --gpus 0,1 --dry-run --sizes 1K,1000003)
[ "$want" = "2||arbench: FLAG: bad value '1000003': not a whole number of float32 elements (4 bytes each; the nearest are 1000000 and 1000004)" ] && ok || bad "run --sizes 1K,1000003: $want"
got=$(sizes_line $A lower --algo ring --ranks 4 --sizes 1K,1000003)
[ "$got" = "$want" ] && ok || bad "lower --sizes 1K,1000003: '$got', want '$want'"
# the alias: the same output as the flag (and a message naming the one typed)
for c in "model --algo all --ranks 8 SZ 1K,1M,1G" "model --algo ring --ranks 4 SZ 1G --straggler 2:1ms" \
         "schedule --algo ring --ranks 4 SZ 1G"; do
  a=$($A ${c/SZ/--sizes} 2>&1); b=$($A ${c/SZ/--bytes} 2>&1)
  if [ -n "$a" ] && [ "$a" = "$b" ] && printf '%s' "$a" | grep -q "1073741824"; then ok
  else bad "${c/SZ/--sizes} and ${c/SZ/--bytes} differ: '$a' / '$b'"; fi
done
expect 2 "^arbench: -b: bad value '1K': give --bytes or -b/-e, not both$" $A model --algo ring --ranks 4 --bytes 1K -b 1K -e 2K
expect 2 "^arbench: -b: bad value '1K': give --sizes or -b/-e, not both$" $A model --algo ring --ranks 4 --sizes 1K -b 1K -e 2K

finish
