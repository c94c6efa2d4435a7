#!/usr/bin/env bash
# Pins what the command line shows, for a redesign that must not change it: writes into DIR the
# outputs (stdout, stderr, exit status) of every subcommand's help, --list, settings, a set of
# models, schedules and lowerings, bad inputs, and a simulated sweep (the fake GPU's results.csv
# without its run id, clock and host columns). Run it before and after, then `diff -r`.
#   tests/golden/pin.sh DIR [BUILD]
set -u
cd "$(dirname "$0")/../.." || exit 1
out=${1:?usage: pin.sh DIR [BUILD]}; B=${2:-build}
A=$B/arbench S=$B/tests/arbench-sim-main
mkdir -p "$out"
n=0
# pin NAME CMD...: CMD's stdout, stderr (build paths made neutral) and exit status into NAME
pin() {
  local name=$1; shift
  n=$((n + 1))
  "$@" >"$out/$name.out" 2>"$out/$name.err"; echo "exit $?" >>"$out/$name.out"
  sed -i "s#$B/#BUILD/#g" "$out/$name.out" "$out/$name.err"
}
pin help "$A" --help
for c in run schedule model lower settings history import; do pin "help-$c" "$A" $c --help; done
pin list "$A" --list
pin settings "$A" settings
algos=$("$A" --list | awk 'NR > 1 && /^[a-z]/ { print $1 }' | sort -u | tr '\n' ' ')
echo "$algos" >"$out/algos.txt"
for a in $algos; do
  for r in 4 8 6; do pin "schedule-$a-$r" "$A" schedule --algo "$a" --ranks $r; done
  pin "schedule-$a-4-json" "$A" schedule --algo "$a" --ranks 4 --format json
done
pin model-all-8 "$A" model --algo all --ranks 8 --bytes 1K,1M,1G
pin model-all-16-strag "$A" model --algo all --ranks 16 --bytes 64M --straggler 3:2ms
pin model-all-16-degr "$A" model --algo all --ranks 16 --bytes 64M --degrade 5:4
pin model-transports "$A" model --algo all --ranks 8 --bytes 1M --transport nccl-p2p,ce,sm,ll
pin model-torus "$A" model --algo all --ranks 64 --topology torus --torus 8x8 --bytes 2M
pin model-nodes "$A" model --algo all --ranks 16 --gpus-per-node 4 --bytes 256M
pin model-help-transport "$A" model --help
for t in ce sm ll nccl-p2p; do
  pin "lower-$t" "$A" lower --algo all --ranks 4 --sizes 4K,1M,256M --transport $t
  pin "lower-$t-strag" "$A" lower --algo all --ranks 4 --sizes 1M --transport $t --straggler 2:1ms
  pin "lower-$t-degr" "$A" lower --algo all --ranks 4 --sizes 64M --transport $t --degrade 1:2
  pin "lower-$t-json" "$A" lower --algo ring,rhd,direct --ranks 4 --sizes 1M --transport $t --format json
done
pin lower-odd "$A" lower --algo all --ranks 3 --sizes 1000000 --transport ce,sm,ll --dtype float16
for c in configs/*.conf; do pin "dry-$(basename "$c" .conf)" "$A" run --config "$c" --dry-run --out /tmp/pin-dry; done
pin dry-gpus "$A" run --gpus 0,1,2,3 --algo all --transport all -b 1K -e 8G -f 4 --dry-run
pin bad-sizes "$A" run --gpus 0,1 --sizes 1K,3
pin bad-sizes2 "$A" lower --algo ring --ranks 4 --sizes 12x
pin bad-algo "$A" run --gpus 0,1 --algo nope
pin bad-transport "$A" run --gpus 0,1 --transport nope
pin bad-model-bytes "$A" model --algo ring --ranks 4 --bytes 1Q
pin bad-set "$A" run --gpus 0,1 --set ce.ring_batch=7
pin bad-straggler "$A" run --gpus 0,1 --straggler 9:1ms
# the simulated sweep: every algorithm on every transport, a straggler and a degraded link
if [ -x "$S" ]; then
  for case in "plain:" "strag:--straggler 1:200us" "degr:--degrade 2:2"; do
    name=${case%%:*} extra=${case#*:}
    rm -rf "/tmp/pin-sim-$name"
    pin "sim-$name" "$S" run --gpus 0,1,2,3 --algo all --transport all -b 1K -e 64M -f 8 -n 3 -w 1 $extra --out "/tmp/pin-sim-$name"
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "run_id" || $i == "timestamp" || $i == "host") skip[i] = 1 }
             { s = ""; for (i = 1; i <= NF; i++) if (!skip[i]) s = s $i ","; print s }' \
      "/tmp/pin-sim-$name/results.csv" >"$out/sim-$name.csv"
    sed -i "s#/tmp/pin-sim-$name#OUT#g" "$out/sim-$name.out" "$out/sim-$name.err"
  done
fi
echo "$n outputs pinned in $out"
