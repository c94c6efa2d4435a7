#!/usr/bin/env bash
# Settings end to end on the simulated GPUs: --set (command line and config) reaches meta.txt
# and results.csv's settings column, every setting is listed in meta.txt, bad ones are refused
# before any GPU work, retired environment variables only warn; `arbench settings` lists all.
. "$(dirname "$0")/lib.sh"
B=${B:-build}
. tests/sim/build.sh
sim_build settings
# values FILE COLUMN: the distinct values of a column
values() { local c; c=$(col "$1" "$2"); awk -F, -v c="$c" 'NR > 1 { print $c }' "$1" | sort -u | tr '\n' '|'; }

out=$("$S" run --gpus 0,1,2,3 --algo ring,stragglar --transport ce --sizes 1M --straggler 1:1ms \
  --set ce.flow_batch=8M --set ce.program=round -n 2 -w 1 --out "$tmp/set" 2>&1); rc=$?
[ "$rc" -eq 0 ] && ok || bad "run with --set: exit $rc: $(printf '%s\n' "$out" | tail -2)"
[ "$(values "$tmp/set/results.csv" settings)" = "ce.program=round;ce.flow_batch=8388608|" ] && ok ||
  bad "settings column: $(values "$tmp/set/results.csv" settings)"
grep -q '^setting ce.flow_batch = 8388608 (--set)$' "$tmp/set/meta.txt" &&
  grep -q '^setting ce.program = round (--set)$' "$tmp/set/meta.txt" &&
  grep -q '^setting ce.ring_batch = 268435456$' "$tmp/set/meta.txt" && ok ||
  bad "meta.txt settings: $(grep '^setting' "$tmp/set/meta.txt" | tr '\n' '|')"
[ "$(grep -c '^setting ' "$tmp/set/meta.txt")" -eq "$("$S" settings | tail -n +2 | wc -l)" ] && ok ||
  bad "meta.txt does not list every setting"
printf '%s\n' "$out" | grep -q '^# settings: ce.program=round;ce.flow_batch=8388608' && ok ||
  bad "no settings line above the table"

# defaults: an empty column, no (--set) in meta.txt
"$S" run --gpus 0,1 --algo ring --transport ce --sizes 1K -n 2 -w 1 --out "$tmp/def" >/dev/null 2>&1
[ "$(values "$tmp/def/results.csv" settings)" = "|" ] && ! grep -q '(--set)' "$tmp/def/meta.txt" && ok ||
  bad "defaults: $(values "$tmp/def/results.csv" settings)"

# a config's scenario with its own settings
printf -- '--algo ring --transport ce --sizes 1K -n 2 -w 1\n[scenario a]\n[scenario b]\n--set ce.sum_blocks=8\n' >"$tmp/c.conf"
"$S" run --gpus 0,1 --config "$tmp/c.conf" --out "$tmp/conf" >/dev/null 2>&1
[ "$(values "$tmp/conf/results.csv" settings)" = "|ce.sum_blocks=8|" ] &&
  grep -q '^settings of scenario b: ce.sum_blocks=8$' "$tmp/conf/meta.txt" && ok ||
  bad "per-scenario settings: $(values "$tmp/conf/results.csv" settings)"

# bad settings: one line naming --set and the user's words, exit 2, nothing written
for a in ce.bogus=1 ce.ring_streams=9 ce.program=fast ce.flow_batch=8X ce.flow_batch ll.protocol=fast \
         ll.blocks=4097 ll.lines_max=-1 ll.slice=32M stats.ci_target=-0.01 stats.ci_target=1.5 \
         stats.ci_target=1% stats.ci_target=0x1 stats.ci_target= stats.max_iters=0 stats.max_iters=2.5 \
         stats.max_iters=100001 stats.max_iters=1K; do
  out=$("$S" run --gpus 0,1 --algo ring --sizes 1K --set "$a" --out "$tmp/bad" 2>&1); rc=$?
  [ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] &&
    printf '%s\n' "$out" | grep -q "^arbench: --set: bad value '$a'" && [ ! -e "$tmp/bad" ] && ok ||
    bad "--set $a: exit $rc: $out"
done

# ll.protocol and ll.lines_max reach the ll transport: ring on 4 ranks receives 1.5 MiB of a
# 1 MiB buffer, slots of two parities take 3 MiB as signals, 3.2 MiB as lines128 (auto above
# ll.lines_max) and 6 MiB as lines, and one allocation may take 4 MiB here: lines rows are
# oom, the others run, the rest unchanged
ll_status() {
  AR_SIM_MEM=$((4 << 20)) "$S" run --gpus 0,1,2,3 --algo ring --transport ce,ll --sizes 1M -n 2 -w 1 \
    "$@" --out "$tmp/ll" --force >/dev/null 2>&1
  awk -F, -v t="$(col "$tmp/ll/results.csv" transport)" -v s="$(col "$tmp/ll/results.csv" status)" \
    -v c="$(col "$tmp/ll/results.csv" settings)" 'NR > 1 { printf "%s/%s/%s;", $t, $s, $c }' "$tmp/ll/results.csv"
}
[ "$(ll_status)" = "ce/ok/;ll/ok/;" ] && ok || bad "ll, auto at 1 MiB (lines128): $(ll_status)"
got=$(ll_status --set ll.lines_max=1M)
[ "$got" = "ce/ok/ll.lines_max=1048576;ll/oom/ll.lines_max=1048576;" ] && ok || bad "ll, auto up to 1 MiB (lines): $got"
got=$(ll_status --set ll.protocol=lines)
[ "$got" = "ce/ok/ll.protocol=lines;ll/oom/ll.protocol=lines;" ] && ok || bad "ll.protocol=lines: $got"
got=$(ll_status --set ll.protocol=lines128 --set ll.lines_max=1M)
[ "$got" = "ce/ok/ll.protocol=lines128;ll.lines_max=1048576;ll/ok/ll.protocol=lines128;ll.lines_max=1048576;" ] && ok ||
  bad "ll.protocol=lines128: $got"
got=$(ll_status --set ll.protocol=signals --set ll.lines_max=1M)
[ "$got" = "ce/ok/ll.protocol=signals;ll.lines_max=1048576;ll/ok/ll.protocol=signals;ll.lines_max=1048576;" ] && ok ||
  bad "ll.protocol=signals: $got"

# stats.ci_target and stats.max_iters: the row's settings column and meta.txt say them
"$S" run --gpus 0,1 --algo ring --transport ce --sizes 1K -n 6 -w 1 --set stats.ci_target=0.025 \
  --set stats.max_iters=40 --out "$tmp/stats" >/dev/null 2>&1
[ "$(values "$tmp/stats/results.csv" settings)" = "stats.ci_target=0.025;stats.max_iters=40|" ] &&
  grep -qx 'setting stats.ci_target = 0.025 (--set)' "$tmp/stats/meta.txt" &&
  grep -qx 'setting stats.max_iters = 40 (--set)' "$tmp/stats/meta.txt" && ok ||
  bad "stats settings: $(values "$tmp/stats/results.csv" settings) $(grep stats "$tmp/stats/meta.txt")"

# a retired variable changes nothing and says so
out=$(AR_CE_PROGRAM=flow "$S" run --gpus 0,1 --algo ring --transport ce --sizes 1K -n 2 -w 1 \
  --out "$tmp/env" 2>&1)
printf '%s\n' "$out" | grep -q "AR_CE_PROGRAM is no longer read" &&
  [ "$(values "$tmp/env/results.csv" settings)" = "|" ] && ok || bad "retired variable: $out"

# arbench settings: every setting once, with its default
list=$("$S" settings)
for s in ce.program ce.ring_batch ce.ring_streams ce.direct_batch ce.flow_batch ce.flow_sum_blocks \
         ce.sum_blocks ce.sum_wait flags sm.oneshot_max_bytes ll.protocol ll.lines_max ll.blocks ll.slice \
         ll.forward stats.ci_target stats.max_iters; do
  [ "$(printf '%s\n' "$list" | grep -c "^$s ")" -eq 1 ] && ok || bad "arbench settings: $s"
done
finish
