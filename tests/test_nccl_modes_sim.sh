#!/usr/bin/env bash
# The nccl baseline's registration modes (nccl.registration) and nccl-tests' timing method
# (timing.mode=host) end to end on the simulated GPUs (tests/sim/fake_gpu.c, fake_nccl.c):
# rows, the settings column and meta.txt in every mode; a mode that cannot be had (an NCCL too
# old, a refused registration, co-located ranks) makes the nccl rows n/a with the reason and
# nothing else; the buffer deregistered before it is freed; host timing's batches followed by
# exactly one checked iteration (a wrong or stale sum there fails the row); what host timing
# cannot time refused before any GPU work.
. "$(dirname "$0")/lib.sh"
B=${B:-build}
. tests/sim/build.sh
sim_build nccl_modes
# values FILE COLUMN: the distinct values of a column
values() { local c; c=$(col "$1" "$2"); awk -F, -v c="$c" 'NR > 1 { print $c }' "$1" | sort -u | tr '\n' '|'; }
# rows_of FILE: "algorithm transport bytes status" of every row
rows_of() {
  local a t b s
  a=$(col "$1" algorithm) t=$(col "$1" transport) b=$(col "$1" bytes) s=$(col "$1" status)
  awk -F, -v a="$a" -v t="$t" -v b="$b" -v s="$s" 'NR > 1 { print $a, $t, $b, $s }' "$1"
}
# sim_bad PATTERN ARGS...: `arbench-sim run ARGS` exits 2 with one line matching PATTERN and
# writes no run folder
sim_bad() {
  local pat=$1 out rc; shift
  out=$("$S" run --out "$tmp/bad" "$@" 2>&1); rc=$?
  if [ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] &&
     printf '%s\n' "$out" | grep -qE -- "$pat" && [ ! -e "$tmp/bad" ]; then ok
  else bad "run $*: exit $rc, want 2 and one line /$pat/: $out"; rm -rf "$tmp/bad"; fi
}
rows=(--gpus 0,1,2,3 --algo nccl,ring,rhd --transport nccl-p2p,ce,sm,ll --sizes 1K,64K,4M -n 2 -w 1)

# ---- 1. every registration mode: every row ok, the mode in the settings column and meta.txt ----
# (nccl-p2p's rows are n/a on a registered buffer: NCCL would move them zero-copy, which summed
# wrong and hung on the GPUs; bench_buf.c)
p2pna="nccl.registration=%s: ncclSend/ncclRecv on the registered data buffer take NCCL's zero-copy path"
for m in none registered symmetric; do
  out=$("$S" run "${rows[@]}" --set nccl.registration=$m --out "$tmp/$m" 2>&1); rc=$?
  nok=27 nna=0
  [ $m != none ] && nok=21 nna=6
  [ "$rc" -eq 0 ] && [ "$(rows_of "$tmp/$m/results.csv" | grep -c ' ok$')" -eq $nok ] &&
    [ "$(rows_of "$tmp/$m/results.csv" | grep -c '^r[a-z]* nccl-p2p [0-9]* n/a$')" -eq $nna ] && ok ||
    bad "$m: exit $rc: $(rows_of "$tmp/$m/results.csv" | grep -v ' ok$' | head -n 3) $(printf '%s\n' "$out" | tail -n 2)"
  [ $m = none ] || { [ "$(printf '%s\n' "$out" | grep -cF "(nccl-p2p): $(printf "$p2pna" $m)")" -eq 2 ] && ok ||
    bad "$m: nccl-p2p's n/a lines: $(printf '%s\n' "$out" | grep '^n/a')"; }
  [ "$(values "$tmp/$m/results.csv" settings)" = "nccl.registration=$m|" ] && ok ||
    bad "$m: settings column: $(values "$tmp/$m/results.csv" settings)"
  grep -qx "setting nccl.registration = $m (--set)" "$tmp/$m/meta.txt" && ok ||
    bad "$m: meta.txt: $(grep 'nccl.registration' "$tmp/$m/meta.txt")"
  printf '%s\n' "$out" | grep -q '^fake_gpu: ' && bad "$m: the fake complained: $(printf '%s\n' "$out" | grep '^fake_gpu: ')" || ok
done
# the modes give the same sums and the fake's same times: only the settings column differs
for m in registered symmetric; do
  [ "$(grep -v nccl-p2p "$tmp/$m/results.csv" | cut -d, -f10-31)" = \
    "$(grep -v nccl-p2p "$tmp/none/results.csv" | cut -d, -f10-31)" ] && ok ||
    bad "$m: rows differ from none's beyond the settings"
done
# the default: none, an empty settings column
"$S" run --gpus 0,1 --algo nccl --sizes 1K -n 2 -w 1 --out "$tmp/def" >/dev/null 2>&1
[ "$(values "$tmp/def/results.csv" settings)" = "|" ] &&
  grep -qx "setting nccl.registration = none" "$tmp/def/meta.txt" && ok ||
  bad "default: $(values "$tmp/def/results.csv" settings) $(grep nccl.registration "$tmp/def/meta.txt")"

# ---- 2. a mode that cannot be had: the nccl rows n/a with the reason, never another mode ----
# na NAME WHY_PATTERN [VAR=VALUE ...] -- ARGS...: nccl's rows n/a saying WHY once, ring's ok, exit 0
na() {
  local name=$1 pat=$2 env=(); shift 2
  while [ "$1" != -- ]; do env+=("$1"); shift; done
  shift
  out=$(env "${env[@]}" "$S" run --algo nccl,ring --transport ce --sizes 1K,64K -n 2 -w 1 \
    --out "$tmp/$name" "$@" 2>&1); rc=$?
  local r; r=$(rows_of "$tmp/$name/results.csv" | sort | tr '\n' '|')
  [ "$rc" -eq 0 ] && [ "$r" = "nccl nccl 1024 n/a|nccl nccl 65536 n/a|ring ce 1024 ok|ring ce 65536 ok|" ] && ok ||
    bad "$name: exit $rc, rows $r"
  [ "$(printf '%s\n' "$out" | grep -c '^n/a: nccl (nccl): ')" -eq 1 ] &&
    printf '%s\n' "$out" | grep -qE "^n/a: nccl \(nccl\): $pat" && ok ||
    bad "$name: the reason: $(printf '%s\n' "$out" | grep 'n/a')"
}
na old 'nccl.registration=symmetric: NCCL 2\.26\.0 has no symmetric windows \(2\.27 or later\)$' \
  AR_SIM_NCCL_VERSION=22600 -- --gpus 0,1 --set nccl.registration=symmetric
na refused 'nccl.registration=registered: rank 0: ncclCommRegister: simulated error$' \
  AR_SIM_REG_FAIL=1 -- --gpus 0,1 --set nccl.registration=registered
na refusedwin 'nccl.registration=symmetric: rank 0: ncclCommWindowRegister: simulated error$' \
  AR_SIM_REG_FAIL=1 -- --gpus 0,1,2,3 --set nccl.registration=symmetric
na coloc 'NCCL cannot run two ranks on one GPU' -- --gpus 0,0 --set nccl.registration=symmetric
# registered needs no 2.27: an old NCCL still has it
out=$(AR_SIM_NCCL_VERSION=22600 "$S" run --gpus 0,1 --algo nccl --sizes 1K -n 2 -w 1 \
  --set nccl.registration=registered --out "$tmp/old-reg" 2>&1)
[ "$(values "$tmp/old-reg/results.csv" status)" = "ok|" ] && ok || bad "registered on 2.26: $out"

# ---- 3. a config's scenarios in the three modes: one row each, each its own settings ----
printf -- '--gpus 0,1 --algo nccl --sizes 1K -n 2 -w 1\n[scenario plain]\n[scenario reg]\n--set nccl.registration=registered\n[scenario sym]\n--set nccl.registration=symmetric\n' >"$tmp/modes.conf"
"$S" run --config "$tmp/modes.conf" --out "$tmp/conf" >/dev/null 2>&1
[ "$(awk -F, -v s="$(col "$tmp/conf/results.csv" scenario)" -v t="$(col "$tmp/conf/results.csv" settings)" \
      -v st="$(col "$tmp/conf/results.csv" status)" 'NR > 1 { printf "%s %s %s|", $s, $t, $st }' "$tmp/conf/results.csv")" = \
   "plain  ok|reg nccl.registration=registered ok|sym nccl.registration=symmetric ok|" ] &&
  grep -qx "settings of scenario sym: nccl.registration=symmetric" "$tmp/conf/meta.txt" && ok ||
  bad "config scenarios: $(cut -d, -f10,31- "$tmp/conf/results.csv" | tr '\n' '|')"

# ---- 4. timing.mode=host: batches, then one checked iteration ----
out=$("$S" run "${rows[@]}" --set timing.mode=host --set timing.host_batches=3 \
  --set nccl.registration=symmetric --out "$tmp/host" 2>&1); rc=$?
h=$tmp/host/results.csv
[ "$rc" -eq 0 ] && [ "$(rows_of "$h" | grep -c ' ok$')" -eq 21 ] && ok ||
  bad "host: exit $rc: $(rows_of "$h" | grep -v ' ok$' | head -n 3) $(printf '%s\n' "$out" | tail -n 2)"
[ "$(values "$h" settings)" = "nccl.registration=symmetric;timing.mode=host;timing.host_batches=3|" ] &&
  [ "$(values "$h" iters)" = "2|" ] && ok || bad "host: settings $(values "$h" settings), iters $(values "$h" iters)"
awk -F, -v lo="$(col "$h" time_us_min)" -v md="$(col "$h" time_us_median)" -v hi="$(col "$h" time_us_max)" \
  -v st="$(col "$h" status)" \
  'NR > 1 && $st == "ok" && !($lo > 0 && $lo <= $md && $md <= $hi) { bad = 1 } END { exit bad }' "$h" && ok ||
  bad "host: time columns: $(cut -d, -f20-25 "$h" | head -n 3)"
printf '%s\n' "$out" | grep -qx "# timing.mode=host: per row 3 batches of 2 back-to-back AllReduces timed on the host (nccl-tests' method), then one checked iteration" &&
  grep -qx "setting timing.mode = host (--set)" "$tmp/host/meta.txt" &&
  grep -qx "setting timing.host_batches = 3 (--set)" "$tmp/host/meta.txt" && ok ||
  bad "host: the table's line or meta.txt: $(printf '%s\n' "$out" | grep timing) $(grep timing "$tmp/host/meta.txt")"
# a wrong sum in the checked iteration fails the row and says where
out=$(AR_SIM_WRONG=ring "$S" run --gpus 0,1 --algo ring --transport ce --sizes 1K -n 2 -w 0 \
  --set timing.mode=host --out "$tmp/wrong" 2>&1); rc=$?
[ "$rc" -eq 1 ] && [ "$(values "$tmp/wrong/results.csv" status)" = "error|" ] &&
  printf '%s\n' "$out" | grep -q "wrong elements in the iteration after the batches (1 of 1 iterations" && ok ||
  bad "host, wrong sums: exit $rc: $(printf '%s\n' "$out" | grep wrong)"
# AR_SIM_STALE reads stale inputs in a row's odd AllReduces (counted from 0): after 1 warm-up
# and B batches of n, the checked one is AllReduce 1 + B x n, stale exactly when B x n is even
for bn in 1:3:ok 2:2:error 3:3:ok 1:4:error; do
  IFS=: read -r nb ni want <<<"$bn"
  AR_SIM_STALE=ring "$S" run --gpus 0,1,2 --algo ring --transport ce,sm,ll --sizes 1K -n "$ni" -w 1 \
    --set timing.mode=host --set timing.host_batches="$nb" --out "$tmp/st$nb$ni" >/dev/null 2>&1
  [ "$(values "$tmp/st$nb$ni/results.csv" status)" = "$want|" ] && ok ||
    bad "stale, $nb batches of $ni: $(values "$tmp/st$nb$ni/results.csv" status), want $want"
done
# the plan's estimate counts the batches: 1005 iterations of 8 GiB ring on nccl-p2p (35.5 ms,
# and 15 ms of inputs and check), or 6 such and 5 x 1000 bare AllReduces
est() { "$S" run --gpus 0,1 --algo ring --sizes 8G -n 1000 -w 5 --dry-run "$@" 2>&1 | sed -n 's/^plan: .*estimated \([0-9ms]*\)[ ;].*/\1/p'; }
e1=$(est) e2=$(est --set timing.mode=host)
[ "$e1" = 53s ] && [ "$e2" = 3m00s ] && ok || bad "dry run estimate: events $e1, host $e2 (want 53s, 3m00s)"

# ---- 4b. nccl.rotate: AllReduce i of a batch on slice i of the buffer (nccl-tests' shift),
# each batch from slice 0; the warm-up and the checked iteration on the buffer's start; a size
# the buffer holds once never moves; off: every one on the start (the fake NCCL logs each
# call's rank, bytes and offset, and refuses one that passes the buffer's end) ----
# offsets FILE BYTES: the offsets of rank 0's AllReduces of BYTES bytes, in order
offsets() { awk -v b="$2" '$1 == 0 && $2 == b { printf "%s ", $3 }' "$1"; }
for m in host graph; do
  for r in on off; do
    rm -f "$tmp/rot.log"
    AR_SIM_NCCL_LOG="$tmp/rot.log" "$S" run --gpus 0,1 --algo nccl --sizes 1K,4K -n 4 -w 1 --set timing.mode=$m \
      --set timing.host_batches=2 --set nccl.rotate=$r --out "$tmp/rot-$m-$r" >/dev/null 2>&1; rc=$?
    want="0 0 1024 2048 3072 0 1024 2048 3072 0 " # warm-up, two batches, the checked one
    [ $r = off ] && want="0 0 0 0 0 0 0 0 0 0 "
    got=$(offsets "$tmp/rot.log" 1024) got4=$(offsets "$tmp/rot.log" 4096)
    [ "$rc" -eq 0 ] && [ "$got" = "$want" ] && [ "$got4" = "0 0 0 0 0 0 0 0 0 0 " ] &&
      [ "$(values "$tmp/rot-$m-$r/results.csv" status)" = "ok|" ] && ok ||
      bad "nccl.rotate=$r, $m timing: exit $rc, offsets at 1 KiB '$got' (want '$want'), at 4 KiB '$got4'"
  done
done
# a size that does not divide the buffer (3 slices of 1 KiB in 3 KiB: i mod 3), -n over the
# slices, and 2-byte elements (the offsets in bytes)
for dt in float32 bf16; do
  rm -f "$tmp/rot.log"
  AR_SIM_NCCL_LOG="$tmp/rot.log" "$S" run --gpus 0,1 --algo nccl --sizes 1K,3K -n 5 -w 1 --dtype $dt --set timing.mode=host \
    --set timing.host_batches=1 --set nccl.rotate=on --out "$tmp/rot3-$dt" >/dev/null 2>&1; rc=$?
  got=$(offsets "$tmp/rot.log" 1024)
  [ "$rc" -eq 0 ] && [ "$got" = "0 0 1024 2048 0 1024 0 " ] && [ "$(values "$tmp/rot3-$dt/results.csv" status)" = "ok|" ] && ok ||
    bad "nccl.rotate=on, 1 KiB in 3 KiB, $dt: exit $rc, offsets '$got' (want '0 0 1024 2048 0 1024 0 ')"
done
grep -qx 'setting nccl.rotate = on (--set)' "$tmp/rot-host-on/meta.txt" && [ "$(values "$tmp/rot-host-on/results.csv" settings)" = "nccl.rotate=on;timing.mode=host;timing.host_batches=2|" ] &&
  ok || bad "nccl.rotate=on: meta.txt or the settings column: $(values "$tmp/rot-host-on/results.csv" settings)"

# timing.graph_upload: each batch's graph uploaded before its timed launch, or (off) not, as
# nccl-tests -G (the fake logs every launch)
for up in on off; do
  rm -f "$tmp/up.log"
  AR_SIM_GRAPH_LOG="$tmp/up.log" "$S" run --gpus 0,1 --algo nccl,ring --transport ce --sizes 1K -n 2 -w 1 --set timing.mode=graph \
    --set timing.host_batches=3 --set timing.graph_upload=$up --out "$tmp/up-$up" >/dev/null 2>&1; rc=$?
  want="uploaded"; [ $up = off ] && want="not uploaded"
  got=$(sort "$tmp/up.log" | uniq -c | sed 's/^ *//')
  sets="timing.mode=graph;timing.host_batches=3;timing.graph_upload=$up|"
  [ "$rc" -eq 0 ] && [ "$got" = "12 launch $want" ] && [ "$(values "$tmp/up-$up/results.csv" status)" = "ok|" ] &&
    [ "$(values "$tmp/up-$up/results.csv" settings)" = "$sets" ] && ok ||
    bad "timing.graph_upload=$up: exit $rc, launches '$got' (want 12 '$want': 2 rows x 2 ranks x 3 batches)"
done

# ---- 5. refused before any GPU work: one line, exit 2 ----
hb="--set: bad value 'timing.mode=host': "
sim_bad "^arbench: $hb--straggler needs every iteration timed on its own" --algo ring --straggler 1:1ms --set timing.mode=host
sim_bad "^arbench: $hb--find-critical needs" --algo ring,stragglar --find-critical 1M --set timing.mode=host
sim_bad "^arbench: $hb--phases needs" --algo ring --phases --set timing.mode=host
sim_bad "^arbench: $hb--profile needs" --algo ring --profile overlap --set timing.mode=host
sim_bad "^arbench: ${hb}timing.start_skew=on needs" --algo ring --set timing.start_skew=on --set timing.mode=host
sim_bad "^arbench: --set: bad value 'timing.host_batches=0': out of range" --algo ring --set timing.host_batches=0
sim_bad "^arbench: --set: bad value 'nccl.registration=local': none,registered,symmetric" --algo nccl --set nccl.registration=local
sim_bad "^arbench: --set: bad value 'timing.mode=cpu': events,host" --algo nccl --set timing.mode=cpu
sim_bad "^arbench: --set: bad value 'nccl.rotate=on': needs timing.mode=host or graph" --algo nccl --set nccl.rotate=on
sim_bad "^arbench: --set: bad value 'nccl.rotate=on': moves only the nccl rows, and --algo has none" --algo ring,rhd --set nccl.rotate=on --set timing.mode=host
sim_bad "^arbench: --set: bad value 'timing.graph_upload=off': needs timing.mode=graph" --algo nccl --set timing.graph_upload=off --set timing.mode=host

# arbench settings lists them
list=$("$S" settings)
for s in nccl.registration nccl.rotate timing.mode timing.host_batches timing.graph_upload; do
  [ "$(printf '%s\n' "$list" | grep -c "^$s ")" -eq 1 ] && ok || bad "arbench settings: $s"
done
finish
