#!/usr/bin/env bash
# arbench history (plots/history.sh, history.awk, trend.gp) on the fixture nights of
# tests/fixtures/history (gen.sh there says what each holds):
# - spread/: nights from before samples (no intervals): seven of one machine with noise and a
#   5% regression injected on the last, beside runs of another host, of 2 GPUs and co-located
#   ranks that must never join that trend. The spread rule flags the regression and nothing
#   else; groups apart; --sizes and --algo; the pictures, read back from gnuplot, are the
#   nights' values; INCOMPLETE and FAILED nights left out.
# - intervals/: nights with samples.csv: every verdict and the rule that decided it agree with
#   tests/check_history.py, which recomputes them from the samples; each flagged series is
#   drawn; a picture of more than 12 series draws what moved and the best; "never" is drawn
#   at its bound.
# - mixed/: an nccl-tests import, a bf16 night and a host-timed night of spread's machine: each
#   its own group, never the last night of the others; CRLF files the same nights as without.
# - every argument read or refused; any list of run folders and folders of nights; --out never a
#   run folder, inside one or checked in.
# - nights the simulator writes (samples.csv and the interval columns of `arbench run`).
. "$(dirname "$0")/lib.sh"
F=tests/fixtures/history
cp -r "$F/spread" "$tmp/runs"
out=$("$A" history "$tmp/runs" 2>&1); rc=$?
H=$tmp/runs/history
[ "$rc" -eq 0 ] && [ -s "$H/history.md" ] && [ -s "$H/history.csv" ] && [ -s "$H/history.html" ] && ok || bad "history: exit $rc: $out"
printf '%s\n' "$out" | grep -q '^history: 10 run folders, 4 groups, 1 changes beyond noise$' && ok || bad "history summary line: $out"
# said before the work: how many nights, and that a verdict needs 3
[ "$(printf '%s\n' "$out" | head -n 1)" = "history: 10 run folders, 10 nights in 4 groups (machine, GPU count, placement, source, dtype, timing method); a verdict needs 3 nights of a group: 3 have fewer (drawn, not judged)" ] &&
  ok || bad "history does not open with the nights and the 3 a verdict needs: $(printf '%s\n' "$out" | head -n 1)"
printf '%s\n' "$out" | grep -qE '^history: dgx-h200-07: NVIDIA H200 x4, 1 rank/GPU: algbw \(GB/s\) ring/ce at 1 GiB: [0-9.]+ -> [0-9.]+ \(-5\.[0-9]%, spread \(no interval on 2026-11-21\)\)$' && ok ||
  bad "the injected 5% regression is not flagged by the spread rule: $out"
grep -qE '^\| algbw \(GB/s\) \| ring/ce \| 1 GiB \| .* \| -5\.[0-9]% \| .* \| \*\*slower\*\* \| spread \(no interval on 2026-11-21\) \|$' "$H/history.md" && ok ||
  bad "history.md: no slower ring/ce 1 GiB line decided by the spread: $(grep 'ring/ce | 1 GiB' "$H/history.md")"
[ "$(grep -c '\*\*slower\*\*\|\*\*faster\*\*\|\*\*later\*\*\|\*\*earlier\*\*\|\*\*further\|\*\*closer' "$H/history.md")" = 1 ] && ok ||
  bad "history.md flags more than the regression: $(grep '\*\*' "$H/history.md")"
[ "$(grep -c 'within noise' "$H/history.md")" = 19 ] && ok || bad "history.md: $(grep -c 'within noise' "$H/history.md") series within noise, want 19"
check=$(python3 tests/check_history.py "$tmp/runs" "$H") && [ "$(printf '%s\n' "$check" | tail -n 1)" = "checked 20 series in 4 groups, 1 flagged" ] && ok ||
  bad "spread/: history.md against the recomputed verdicts: $check"
# the groups: one trend per machine, GPU count and placement
for g in 'dgx-h200-07: NVIDIA H200 x4, 1 rank/GPU' 'dgx-h200-07: NVIDIA H200 x2, 1 rank/GPU' \
         'dgx-h200-07: NVIDIA H200, 4 ranks on 1 GPU' 'dgx-h200-09: NVIDIA H200 x4, 1 rank/GPU'; do
  grep -qxF "## $g" "$H/history.md" && ok || bad "history.md: no section for $g"
done
grep -A2 -xF '## dgx-h200-07: NVIDIA H200 x4, 1 rank/GPU' "$H/history.md" | grep -q '^7 nights: 2026-11-15 to 2026-11-21\.$' && ok ||
  bad "the main group is not the 7 nights"
[ "$(grep -c '^Too few nights for a verdict' "$H/history.md")" = 3 ] && ok || bad "the single runs got verdicts"
# history.csv: the main trend holds the seven nights' folders only
awk -F'"' '$2 == "dgx-h200-07: NVIDIA H200 x4, 1 rank/GPU" { print $4 }' "$H/history.csv" | sort -u >"$tmp/dirs"
[ "$(wc -l <"$tmp/dirs")" = 7 ] && ! grep -q 'other-host\|2gpus\|colocated' "$tmp/dirs" && ok || bad "the main trend mixes runs: $(cat "$tmp/dirs")"

# noise alone: the first six nights (and the others) flag nothing
mkdir "$tmp/calm" && cp -r "$tmp"/runs/night-* "$tmp/calm/" && rm -rf "$tmp/calm/night-2026-11-21"
out=$("$A" history "$tmp/calm" 2>&1)
printf '%s\n' "$out" | grep -q '^history: 9 run folders, 4 groups, 0 changes beyond noise$' && ok || bad "noise flagged: $out"

# --sizes and --algo (either spelling, --flag=value too)
out=$("$A" history "$tmp/runs" --sizes 1G --algo=ring --out "$tmp/sel" 2>&1); rc=$?
[ "$rc" -eq 0 ] && [ "$(sed '1d; s/^"[^"]*",//' "$tmp/sel/history.csv" | cut -d, -f1-3 | sort -u | tr '\n' ' ')" = \
  "algbw,nccl,1073741824 algbw,ring/ce,1073741824 degraded,ring/ce x2,1073741824 " ] && ok ||
  bad "--sizes 1G --algo ring: $rc $out $(sed '1d; s/^"[^"]*",//' "$tmp/sel/history.csv" | cut -d, -f1-3 | sort -u | tr '\n' ' ')"
expect 0 'changes beyond noise' "$A" history "$tmp/runs" --algo all --out "$tmp/all"

# every argument read or refused: one line naming the flag and the value, exit 2, nothing written
hist_bad() {
  local pat=$1 err rc; shift
  err=$("$A" history "$@" 2>&1 >/dev/null); rc=$?
  if [ "$rc" -ne 2 ]; then bad "history $* -> exit $rc, want 2 ($err)"
  elif [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ]; then bad "history $* -> want one line: $err"
  elif ! printf '%s' "$err" | grep -qE -- "$pat"; then bad "history $* -> '$err' lacks /$pat/"
  elif [ -e "$tmp/refused" ]; then bad "history $* -> wrote $tmp/refused"; rm -rf "$tmp/refused"
  else ok; fi
}
hist_bad "^arbench: --algo: bad value 'nosuch': unknown algorithm; known: " "$tmp/runs" --algo nosuch --out "$tmp/refused"
hist_bad "^arbench: --algo: bad value 'ring,nosuch': |^arbench: --algo: bad value 'nosuch'" "$tmp/runs" --algo ring,nosuch --out "$tmp/refused"
hist_bad "^arbench: --algo: bad value 'ring,ring': an algorithm is named twice" "$tmp/runs" --algo ring,ring --out "$tmp/refused"
hist_bad "^arbench: --algo: bad value 'ring,': " "$tmp/runs" --algo ring, --out "$tmp/refused"
hist_bad "^arbench: --algo: bad value '': empty" "$tmp/runs" --algo '' --out "$tmp/refused"
hist_bad "^arbench: --sizes: bad value '1X': unknown unit" "$tmp/runs" --sizes 1X --out "$tmp/refused"
hist_bad "^arbench: --sizes: bad value '1024': 1024 bytes named twice" "$tmp/runs" --sizes 1K,1024 --out "$tmp/refused"
hist_bad "^arbench: --out: needs a value$" "$tmp/runs" --out
hist_bad "^arbench: --out: bad value '$tmp/refused2': given twice" "$tmp/runs" --out "$tmp/refused" --out "$tmp/refused2"
hist_bad "^arbench: --algo: bad value 'nccl': given twice" "$tmp/runs" --algo ring --algo nccl --out "$tmp/refused"
hist_bad "^arbench: history: unknown option '--sise' " "$tmp/runs" --sise 1G --out "$tmp/refused"
hist_bad "^arbench: history: unknown option '-n' " "$tmp/runs" -n 5 --out "$tmp/refused"
hist_bad "^arbench: history: bad value '$tmp/runs/': named twice$" "$tmp/runs" "$tmp/calm" "$tmp/runs/" --out "$tmp/refused"
# 70 arguments: the first one it does not take is named, whatever comes after it
many=(); for ((i = 0; i < 64; i++)); do many+=(--sizes 1G); done
hist_bad "^arbench: --sizes: bad value '1G': given twice" "$tmp/runs" --out "$tmp/refused" --algo ring "${many[@]}"
expect 2 '^usage: arbench history' "$A" history
# a folder that is neither a run folder nor holds one, or none at all: named, exit 2, whatever
# else is named beside it
hist_bad "^arbench: history: bad value '$tmp/nowhere': no such folder: history reads run folders \(with results.csv\) and folders of them$" \
  "$tmp/runs" "$tmp/nowhere" --out "$tmp/refused"
mkdir -p "$tmp/empty"
hist_bad "^arbench: history: bad value '$tmp/empty': neither a run folder \(no results.csv\) nor a folder of run folders \(no $tmp/empty/\*/results.csv\)$" \
  "$tmp/empty" --out "$tmp/refused"
hist_bad "^arbench: history: bad value '$tmp/runs/night-2026-11-21/results.csv': not a folder: " \
  "$tmp/runs/night-2026-11-21/results.csv" --out "$tmp/refused"
# a folder of model rows only holds no night to compare
mkdir -p "$tmp/modelonly/m" && printf 'run_id,source,status\nm,model,ok\n' >"$tmp/modelonly/m/results.csv"
expect 1 'no run folder with measured rows' "$A" history "$tmp/modelonly"

# any list of run folders and folders of nights: each night read once, counted before the work;
# the pictures go to history/ in the folder that holds them all, never into a run folder
mkdir -p "$tmp/list/a" "$tmp/list/b"
cp -r "$tmp"/runs/night-2026-11-1[567] "$tmp/list/a/" && cp -r "$tmp"/runs/night-2026-11-18 "$tmp/list/b/"
out=$("$A" history "$tmp/list/a/night-2026-11-15" "$tmp/list/a/night-2026-11-16" 2>&1); rc=$?
[ "$rc" -eq 0 ] && [ "$(printf '%s\n' "$out" | head -n 1)" = "history: 2 run folders, 2 nights in 1 group (machine, GPU count, placement, source, dtype, timing method); a verdict needs 3 nights of a group: 1 has fewer (drawn, not judged)" ] &&
  [ -s "$tmp/list/a/history/history.md" ] && grep -q '^Too few nights for a verdict' "$tmp/list/a/history/history.md" && ok ||
  bad "history of two run folders: exit $rc: $out"
out=$("$A" history "$tmp/list/a" "$tmp/list/b/night-2026-11-18" "$tmp/list/a/night-2026-11-17" 2>&1); rc=$?
[ "$rc" -eq 0 ] && [ "$(printf '%s\n' "$out" | head -n 1)" = "history: 4 run folders, 4 nights in 1 group (machine, GPU count, placement, source, dtype, timing method); a verdict needs 3 nights of a group" ] &&
  [ -s "$tmp/list/history/history.md" ] && grep -A2 -xF '## dgx-h200-07: NVIDIA H200 x4, 1 rank/GPU' "$tmp/list/history/history.md" | grep -q '^4 nights: 2026-11-15 to 2026-11-18\.$' &&
  ok || bad "history of a folder of nights and run folders: exit $rc: $out"
expect 0 'A verdict needs 3 nights of a group' "$A" history --help

# --out: the run folder's rules. Never a run folder, a folder inside one, the nights' folder,
# a used folder history did not write, or checked-in files; a folder history wrote is rewritten
sum_of() { find "$1" -type f -exec md5sum {} + | sort | md5sum; }
before=$(sum_of "$tmp/runs")
hist_bad "^arbench: --out: bad value '$tmp/runs/night-2026-11-21': is a run folder" "$tmp/runs" --out "$tmp/runs/night-2026-11-21"
hist_bad "^arbench: --out: bad value '$tmp/runs/night-2026-11-21/trend': lies in the run folder $tmp/runs/night-2026-11-21$" "$tmp/runs" --out "$tmp/runs/night-2026-11-21/trend"
hist_bad "^arbench: --out: bad value '$tmp/runs': holds files history did not write \(history night-2026-11-15 " "$tmp/runs" --out "$tmp/runs"
mkdir -p "$tmp/used" && echo keep >"$tmp/used/notes.txt"
hist_bad "^arbench: --out: bad value '$tmp/used': holds files history did not write \(notes.txt\)" "$tmp/runs" --out "$tmp/used"
hist_bad "^arbench: --out: bad value '$tmp/runs/night-2026-11-21/results.csv': is not a folder" "$tmp/runs" --out "$tmp/runs/night-2026-11-21/results.csv"
[ "$(sum_of "$tmp/runs")" = "$before" ] && [ "$(cat "$tmp/used/notes.txt")" = keep ] && ok || bad "a refused --out changed a folder"
expect 0 'changes beyond noise' "$A" history "$tmp/runs" --out "$tmp/sel"
# checked-in nights: a repository of its own, with runs/ ignored but runs/reference/ (as ours)
R=$tmp/repo
mkdir -p "$R/runs/reference" && cp -r "$tmp"/runs/night-2026-11-1* "$R/runs/reference/"
printf 'runs/*\n!runs/reference/\n' >"$R/.gitignore"
if command -v git >/dev/null 2>&1 && git -C "$R" init -q && git -C "$R" add -A &&
   git -C "$R" -c user.name=t -c user.email=t@t commit -qm fixture; then
  out=$("$A" history "$R/runs/reference" 2>&1); rc=$?
  [ "$rc" -eq 0 ] && [ -s "$R/runs/history-reference/history.md" ] && [ ! -e "$R/runs/reference/history" ] &&
    printf '%s\n' "$out" | grep -qxF "history: $R/runs/reference is checked in: writing to $R/runs/history-reference (not into it; --out DIR writes elsewhere)" &&
    [ -z "$(git -C "$R" status --porcelain)" ] && ok || bad "history of checked-in nights: exit $rc, $(git -C "$R" status --porcelain) $out"
  hist_bad "^arbench: --out: bad value '$R/runs/reference/h': lies in checked-in files of $R " "$R/runs/reference" --out "$R/runs/reference/h"
  hist_bad "^arbench: --out: bad value '$R/docs': lies in checked-in files of $R " "$R/runs/reference" --out "$R/docs"
  expect 0 'changes beyond noise' "$A" history "$R/runs/reference" --out "$R/runs/mine"
else
  echo "skipped: the checked-in --out checks (git is not installed)"
fi

# the pictures and the page
if command -v gnuplot >/dev/null 2>&1; then
  P=$H/plots
  [ "$(ls "$P"/trend_*.png | wc -l)" = 6 ] && ok || bad "trend pictures: $(ls "$P")"
  f=$(ls "$P"/trend_*_algbw_1GiB.svg 2>/dev/null)
  [ -n "$f" ] && grep -q "beyond the nights' spread" "$f" && grep -q '>algbw (GB/s) per night, 1 GiB<' "$f" &&
    grep -q '>dgx-h200-07: NVIDIA H200 x4, 1 rank/GPU, 2026-11-15 to 2026-11-21<' "$f" &&
    ok || bad "the 1 GiB trend neither rings the regression nor names machine and nights"
  ! grep -q "beyond the nights' spread" "$(ls "$P"/trend_*_algbw_64MiB.svg)" && ok || bad "the 64 MiB trend rings a point"
  [ "$(grep -c '<figure id="fig-trend_' "$H/history.html")" = 6 ] && ok || bad "history.html: not every picture inlined"
  [ "$(head -c 24 "$(ls "$P"/trend_*_critical.png)" | od -An -j16 -N8 -tx1 | tr -d ' \n')" = 00000500000002d0 ] && ok || bad "trend picture not 1280x720"
else
  echo "skipped: the trend picture checks (gnuplot is not installed: apt-get install -y gnuplot-nox)"
fi
[ "$(grep -c '<tr class="regressed">' "$H/history.html")" = 1 ] && ! grep -qi '<script\|<img' "$H/history.html" && ok ||
  bad "history.html: the flagged row is not highlighted once"
# an INCOMPLETE or FAILED last night never decides a verdict: a night after the seven, every
# row twice as slow, marked as a stopped (or failed) run, is left out with one line saying so,
# and the verdicts are those of the seven
for mark in INCOMPLETE FAILED; do
  r=$tmp/marked-$mark
  mkdir -p "$r" && cp -r "$tmp"/runs/night-* "$r/"
  n22=$r/night-2026-11-22
  cp -r "$r/night-2026-11-21" "$n22"
  mc=$(col "$n22/results.csv" time_us_median)
  sed 's/2026-11-21/2026-11-22/g; s/20261121/20261122/g' "$r/night-2026-11-21/results.csv" |
    awk -F, -v OFS=, -v c="$mc" 'NR > 1 { $c = 2 * $c } 1' >"$n22/results.csv"
  echo "stopped by SIGINT before every row was measured" >"$n22/$mark"
  out=$("$A" history "$r" 2>&1); rc=$?
  [ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -q '^history: 10 run folders, 4 groups, 1 changes beyond noise$' && ok ||
    bad "a night marked $mark decides the verdicts: $out"
  [ "$(printf '%s\n' "$out" | grep -c "^history: left out $n22: marked $mark (stopped by SIGINT")" = 1 ] && ok ||
    bad "the night marked $mark is not said to be left out, once: $out"
  grep -q "^- left out (never a night of the trend): $n22: marked $mark" "$r/history/history.md" && ok ||
    bad "history.md does not list the night marked $mark"
  ! grep -q 2026-11-22 "$r/history/history.csv" && ok || bad "history.csv holds the night marked $mark"
done

# what must not mix: an nccl-tests import (imported after the last night), a bf16 night and a
# host-timed night of the same machine, each 40% off, are groups of their own; the seven
# nights keep their last night and their one flag, nccl its values
M=$tmp/mixed
mkdir -p "$M" && cp -r "$tmp"/runs/night-* "$F"/mixed/* "$M/"
out=$("$A" history "$M" 2>&1); rc=$?
[ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -q '^history: 13 run folders, 7 groups, 1 changes beyond noise$' && ok || bad "mixed nights: $out"
for g in 'dgx-h200-07: NVIDIA H200 x4, 1 rank/GPU, nccl-tests imports (dated when imported)' \
         'dgx-h200-07: NVIDIA H200 x4, 1 rank/GPU, bf16' 'dgx-h200-07: NVIDIA H200 x4, 1 rank/GPU, host timing'; do
  grep -A2 -xF "## $g" "$M/history/history.md" | grep -q '^1 night: 2026-11-22 to 2026-11-22\.$' && ok || bad "history.md: no group of its own for $g"
done
grep -A2 -xF '## dgx-h200-07: NVIDIA H200 x4, 1 rank/GPU' "$M/history/history.md" | grep -q '^7 nights: 2026-11-15 to 2026-11-21\.$' && ok ||
  bad "the import, bf16 or host-timed night joined the seven: $(grep -A2 -xF '## dgx-h200-07: NVIDIA H200 x4, 1 rank/GPU' "$M/history/history.md")"
awk -F'"' '$2 == "dgx-h200-07: NVIDIA H200 x4, 1 rank/GPU" { print $4 }' "$M/history/history.csv" | sort -u >"$tmp/dirs"
[ "$(wc -l <"$tmp/dirs")" = 7 ] && ! grep -q 'import\|bf16\|host-timed' "$tmp/dirs" && ok || bad "the main trend holds: $(cat "$tmp/dirs")"
grep -q ',algbw,nccl-tests out-of-place,1073741824,"[^"]*/import-2026-11-22",' "$M/history/history.csv" &&
  ! grep -q ',algbw,nccl,[0-9]*,"[^"]*/import-2026-11-22",' "$M/history/history.csv" && ok || bad "the import's rows joined arbench's nccl series"
check=$(python3 tests/check_history.py "$M" "$M/history") && ok || bad "mixed/: history.md against the recomputed verdicts: $check"
# CRLF: meta.txt and results.csv saved with CRLF are the same nights as without (co-located
# ranks stay apart)
C=$tmp/crlf
cp -r "$tmp/runs" "$C" && rm -rf "$C/history"
for f in "$C"/night-2026-11-19/meta.txt "$C"/night-2026-11-19/results.csv "$C"/night-colocated/meta.txt "$C"/night-colocated/results.csv; do
  sed -i 's/$/\r/' "$f"
done
out=$("$A" history "$C" 2>&1)
printf '%s\n' "$out" | grep -q '^history: 10 run folders, 4 groups, 1 changes beyond noise$' &&
  diff <(grep '^## \|^[0-9]* nights\?:' "$H/history.md") <(grep '^## \|^[0-9]* nights\?:' "$C/history/history.md") >/dev/null && ok ||
  bad "CRLF files make other groups: $out $(grep '^## ' "$C/history/history.md")"

# nights with samples: every verdict and its rule recomputed from the samples (check_history.py)
I=$tmp/intervals
cp -r "$F/intervals" "$I"
out=$("$A" history "$I" 2>&1); rc=$?
IH=$I/history
[ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -q '^history: 6 run folders, 1 group, 9 changes beyond noise$' && ok || bad "intervals/: $out"
check=$(python3 tests/check_history.py "$I" "$IH") && [ "$(printf '%s\n' "$check" | tail -n 1)" = "checked 23 series in 1 groups, 9 flagged" ] && ok ||
  bad "intervals/: history.md against the verdicts recomputed from the samples: $check"
# row (series, size, verdict, rule) of history.md
row_is() {
  grep -qE "^\| [^|]+ \| $1 \| $2 \| [^|]+ \| [^|]+ \| [^|]+ \| [^|]+ \| $3 \| $4 \|$" "$IH/history.md" && ok ||
    bad "intervals/: $1 at $2 is not '$3' by '$4': $(grep "| $1 | $2 |" "$IH/history.md")"
}
row_is 'optcc/sm' '1 GiB' '\*\*slower\*\*' intervals
row_is 'optcc-multi/sm' '1 GiB' '\*\*slower\*\*' intervals
row_is 'swing-bw/ce' '1 GiB' '\*\*slower\*\*' intervals
row_is 'async-ring/ce' '1 GiB' '\*\*faster\*\*' intervals
row_is 'ring/sm' '1 GiB' 'within noise' intervals
row_is 'direct/sm' '1 GiB' 'within noise' intervals
row_is 'rhd/ce' '1 GiB' "within the nights' drift" intervals
row_is 'oneshot/sm' '1 GiB' '\*\*slower\*\*' 'spread \(the interval of 2026-12-06 covers 87\.5% \(4 samples\)\)'
row_is 'bcast/ce' '1 GiB' '\*\*slower\*\*' 'spread \(no interval on 2026-12-02\)'
row_is 'ring/ce x2' '1 GiB' '\*\*further from the bound\*\*' intervals
row_is 'stragglar' '256 MiB' '\*\*later\*\*' 'spread \(a critical delay has no interval\)'
row_is 'stragglar' '64 MiB' '\*\*earlier\*\*' 'spread \(a critical delay has no interval\)'
grep -qF '| stragglar | 256 MiB | 0.4000 | never (up to 64 ms) | >= ' "$IH/history.md" && ok || bad "history.md does not say never (up to 64 ms)"
# a size beyond 2^31 bytes is chosen by --sizes (4G: 4294967296, never 4.29497e+09)
expect 0 'changes beyond noise' "$A" history "$I" --sizes 4G --out "$tmp/4g"
[ "$(sed '1d; s/^"[^"]*",//' "$tmp/4g/history.csv" | cut -d, -f1-3 | sort -u)" = "algbw,nccl,4294967296" ] && grep -q '| nccl | 4 GiB |' "$tmp/4g/history.md" && ok ||
  bad "--sizes 4G: $(sed '1d; s/^"[^"]*",//' "$tmp/4g/history.csv" | cut -d, -f1-3 | sort -u | tr '\n' ' ')"

# the pictures of nights with samples, read back from gnuplot (`set table` on the kept driver):
# table CURVES DRIVER: "title<TAB>x<TAB>y" of every point plotted
table() {
  sed "s|^out = .*|out = '$tmp/scratch'|" "$1" >"$tmp/drv.gp"
  gnuplot -e "pngterm='png'" -e "set table '$tmp/table'" "$tmp/drv.gp" >/dev/null 2>&1
  awk '/^# Curve title:/ { t = $0; sub(/^# Curve title: "/, "", t); sub(/"$/, "", t); next }
       NF == 3 && $1 ~ /^[0-9.]+$/ && !((t, $1, $2) in seen) { seen[t, $1, $2] = 1; print t "\t" $1 "\t" $2 }' "$tmp/table"
}
if command -v gnuplot >/dev/null 2>&1; then
  drv=$(ls "$IH"/plots/data/trend_*_algbw_1GiB.gp) svg=$(ls "$IH"/plots/trend_*_algbw_1GiB.svg)
  table "$drv" >"$tmp/points"
  # what is drawn: every flagged series, nccl, and the best on the last night (recomputed from
  # its results.csv: the largest bytes / median at 1 GiB among clean rows)
  grep '| 1 GiB |.*\*\*' "$IH/history.md" | grep '^| algbw' | cut -d'|' -f3 | tr -d ' ' >"$tmp/want"
  echo nccl >>"$tmp/want"
  f=$I/night-2026-12-06/results.csv
  awk -F, -v a="$(col "$f" algorithm)" -v t="$(col "$f" transport)" -v b="$(col "$f" bytes)" -v m="$(col "$f" time_us_median)" \
      -v d="$(col "$f" degraded_rank)" 'NR > 1 && $b == 1073741824 && $d == -1 && $a != "nccl" { v = $b / $m; if (v > best) { best = v; s = $a "/" $t } }
      END { print s }' "$f" >>"$tmp/want"
  cut -f1 "$tmp/points" | grep -v "beyond the nights' spread" | sort -u >"$tmp/got"
  [ "$(sort -u "$tmp/want")" = "$(cat "$tmp/got")" ] && [ "$(wc -l <"$tmp/got")" = 8 ] && ok ||
    bad "the 1 GiB trend of 14 series draws $(tr '\n' ' ' <"$tmp/got"), want the flagged, nccl and the best: $(sort -u "$tmp/want" | tr '\n' ' ')"
  # optcc/sm's points are its nights' values (bytes / median of each night's row)
  for k in 1 2 3 4 5 6; do
    awk -F, -v a="$(col "$f" algorithm)" -v t="$(col "$f" transport)" -v b="$(col "$f" bytes)" -v m="$(col "$f" time_us_median)" -v k="$k" \
      'NR > 1 && $a == "optcc" && $t == "sm" && $b == 1073741824 { print "optcc/sm\t" k "\t" $b / ($m * 1e3); exit }' \
      "$I/night-2026-12-0$k/results.csv"
  done >"$tmp/want"
  grep '^optcc/sm	' "$tmp/points" | paste - "$tmp/want" | awk -F'\t' '$2 != $5 || ($3 / $6 - 1) ^ 2 > 1e-10 { bad = 1 } END { exit bad || NR != 6 }' &&
    ok || bad "optcc/sm's trend points are not its nights' values: $(grep '^optcc/sm' "$tmp/points" | tr '\n' ' ') / $(tr '\n' ' ' <"$tmp/want")"
  # the ring: on every flagged series' last night
  [ "$(awk -F'\t' '$1 == "beyond the nights'"'"' spread" && $2 == 6' "$tmp/points" | wc -l)" = 6 ] && ok || bad "the 1 GiB trend does not ring the 6 flagged"
  # a readable title: two lines, each within the picture
  grep -o '<text[^>]*>algbw (GB/s) per night, 1 GiB: 6 flagged, nccl, the best 1 on 2026-12-06 (8 of 14 series; every one in history.csv)</text>' "$svg" |
    grep -q . && grep -q '>dgx-h200-11: NVIDIA H200 x4, 1 rank/GPU, 2026-12-01 to 2026-12-06<' "$svg" && ok || bad "the 1 GiB trend's title: $(grep -o '<text[^>]*>algbw[^<]*<' "$svg")"
  # never: drawn at the bound, marked, never a gap: 256 MiB has a point on each of the six
  # nights, the last at 64 ms; 64 MiB at 64 ms on the first five
  table "$(ls "$IH"/plots/data/trend_*_critical.gp)" >"$tmp/points"
  [ "$(grep -c '^stragglar 256 MiB	' "$tmp/points")" = 6 ] && grep -q '^stragglar 256 MiB	6	64$' "$tmp/points" &&
    [ "$(grep -c '^stragglar 64 MiB	[1-5]	64$' "$tmp/points")" = 5 ] && ok || bad "never is not drawn at its bound: $(grep '64 MiB\|256' "$tmp/points" | tr '\n' ' ')"
  [ "$(grep -c '^never: no critical delay up to 64 ms	[0-9]*	64$' "$tmp/points")" = 6 ] && ok ||
    bad "the never markers: $(grep '^never' "$tmp/points" | tr '\n' ' ')"
fi

# the trend pictures read back: seven nights on one date (hours 01..07) with ring/sm beside
# ring/ce; what gnuplot plots (`set table` on the kept driver) is each night's value from its
# results.csv, recomputed here (bytes / median); the x tick labels in the SVG are distinct and
# name each night; every series looks different: colour per algorithm, point per transport
if command -v gnuplot >/dev/null 2>&1; then
  sd=$tmp/same
  mkdir -p "$sd"
  for k in 1 2 3 4 5 6 7; do
    src=$tmp/runs/night-2026-11-$((14 + k)) dst=$sd/n$k
    mkdir -p "$dst" && cp "$src/meta.txt" "$src/critical.csv" "$dst/"
    tc=$(col "$src/results.csv" transport) mc=$(col "$src/results.csv" time_us_median)
    ac=$(col "$src/results.csv" algorithm) dc=$(col "$src/results.csv" degraded_rank)
    sed "s/2026-11-$((14 + k))T03:00:00Z/2026-11-21T0$k:00:00Z/" "$src/results.csv" |
      awk -F, -v OFS=, -v tc="$tc" -v mc="$mc" -v ac="$ac" -v dc="$dc" \
        '{ print } NR > 1 && $ac == "ring" && $tc == "ce" && $dc == -1 { $tc = "sm"; $mc = $mc * 1.1; print }' >"$dst/results.csv"
  done
  "$A" history "$sd" >/dev/null 2>&1 || bad "history on one date's nights failed"
  drv=$(ls "$sd"/history/plots/data/trend_dgx-h200-07*_algbw_1GiB.gp 2>/dev/null | head -n 1)
  svg=$(ls "$sd"/history/plots/trend_dgx-h200-07*_algbw_1GiB.svg 2>/dev/null | head -n 1)
  if [ -z "$drv" ] || [ -z "$svg" ]; then
    bad "no kept driver or SVG of the 1 GiB trend: $(ls -R "$sd/history/plots")"
  else
    # the x tick labels as the SVG shows them, left to right
    grep -oE '<text>20[0-9]{2}-[0-9]{2}-[0-9]{2}[^<]*</text>' "$svg" | sed 's/<[^>]*>//g' >"$tmp/ticks"
    [ "$(wc -l <"$tmp/ticks")" = 7 ] && [ "$(sort -u "$tmp/ticks" | wc -l)" = 7 ] && ok ||
      bad "the trend's x tick labels are not 7 distinct ones: $(tr '\n' '|' <"$tmp/ticks")"
    # each night's own label: its date and its first row's hour and minute (the dates repeat)
    for k in 1 2 3 4 5 6 7; do
      printf '%s\tn%s\n' "$(awk -F, 'NR == 2 { print substr($2, 1, 10) " " substr($2, 12, 5); exit }' "$sd/n$k/results.csv")" "$k"
    done >"$tmp/labels"
    table "$drv" >"$tmp/points"
    # every clean row at 1 GiB of every night, recomputed: series, night, bytes / median
    for k in 1 2 3 4 5 6 7; do
      f=$sd/n$k/results.csv
      awk -F, -v k="n$k" -v a="$(col "$f" algorithm)" -v t="$(col "$f" transport)" -v b="$(col "$f" bytes)" \
          -v m="$(col "$f" time_us_median)" -v d="$(col "$f" degraded_rank)" -v s="$(col "$f" straggler_rank)" \
        'NR > 1 && $b == 1073741824 && $d == -1 && $s == -1 {
           print ($a == "nccl" ? "nccl" : $a "/" $t) "\t" k "\t" $b / ($m * 1e3) }' "$f"
    done | sort >"$tmp/want"
    awk -F'\t' 'FILENAME == ARGV[1] { night[FNR] = $1; next } FILENAME == ARGV[2] { of[$1] = $2; next }
                $1 != "beyond the nights'"'"' spread" { print $1 "\t" of[night[$2]] "\t" $3 }' "$tmp/ticks" "$tmp/labels" "$tmp/points" |
      sort >"$tmp/got"
    [ "$(wc -l <"$tmp/want")" = 35 ] && [ "$(cut -f1,2 "$tmp/got")" = "$(cut -f1,2 "$tmp/want")" ] && ok ||
      bad "the 1 GiB trend plots other points than the nights' rows: $(diff <(cut -f1,2 "$tmp/want") <(cut -f1,2 "$tmp/got") | head -n 6)"
    paste "$tmp/want" "$tmp/got" | awk -F'\t' '{ r = $6 / $3 - 1 } r > 1e-5 || r < -1e-5 { print; bad = 1 } END { exit bad }' >"$tmp/off" &&
      ok || bad "trend points off their rows' values: $(head -n 3 "$tmp/off")"
    # the series' looks, as the driver hands them to gnuplot
    look() { sed -n "s/^$1 = '\(.*\)'$/\1/p" "$drv" | tr -d '"' | tr -s ' ' '\n' | grep .; }
    sed -n "s/^names = '\(.*\)'$/\1/p" "$drv" | grep -o '"[^"]*"' | tr -d '"' >"$tmp/names"
    paste "$tmp/names" <(look colors) <(look pts) <(look dts) >"$tmp/looks"
    [ "$(cut -f2- "$tmp/looks" | sort -u | wc -l)" = "$(wc -l <"$tmp/names")" ] && [ "$(wc -l <"$tmp/names")" = 5 ] && ok ||
      bad "two series of the trend look alike: $(tr '\t\n' ' |' <"$tmp/looks")"
    ringc=$(awk -f plots/style.awk -f <(echo 'BEGIN { print algo_color("ring") }'))
    ce=$(awk -F'\t' '$1 == "ring/ce"' "$tmp/looks") sm=$(awk -F'\t' '$1 == "ring/sm"' "$tmp/looks")
    [ "$(echo "$ce" | cut -f2)" = "$ringc" ] && [ "$(echo "$sm" | cut -f2)" = "$ringc" ] &&
      [ "$(echo "$ce" | cut -f3)" != "$(echo "$sm" | cut -f3)" ] && ok ||
      bad "ring/ce and ring/sm: not ring's colour ($ringc) with two point types: $ce | $sm"
  fi
fi

# the night's report links the trend
bash plots/summary.sh "$tmp/runs/night-2026-11-21" "$tmp/runs/night-2026-11-20" >/dev/null 2>&1
grep -q '<a href="../history/history.html">Trend over nights</a>' "$tmp/runs/night-2026-11-21/report.html" && ok || bad "report.html does not link the trend"

# nights as `arbench run` writes them (samples.csv and the interval columns), on the simulated
# GPUs (tests/sim/fake_gpu.c): three alike, then every transport 8% slower (AR_SIM_SCALE); nccl
# is not a transport and stays. ring/ce is flagged by its intervals at each size, nccl is not,
# and check_history.py, from the samples, agrees
B=${B:-build}
. tests/sim/build.sh
sim_build history
N=$tmp/sim
for k in 1 2 3 4; do
  AR_SIM_SCALE=$([ "$k" = 4 ] && echo 1.08 || echo 1) AR_SIM_JITTER=0.01 "$S" run --out "$N/n$k" --gpus 0,1,2,3 --algo ring,nccl \
    --transport ce --sizes 1M,1G -n 12 -w 1 >/dev/null 2>&1 || bad "the simulated night $k failed"
done
out=$("$A" history "$N" 2>&1)
printf '%s\n' "$out" | grep -q '^history: 4 run folders, 1 group, 2 changes beyond noise$' &&
  [ "$(grep -cE '^\| algbw \(GB/s\) \| ring/ce \| 1 (MiB|GiB) \| [0-9.]+ \([0-9.-]+\) \| [0-9.]+ \([0-9.-]+\) \| -7\.[0-9]% \| .* \| \*\*slower\*\* \| intervals \|$' "$N/history/history.md")" = 2 ] &&
  [ "$(grep -c '^| algbw (GB/s) | nccl | .* | within noise | intervals |$' "$N/history/history.md")" = 2 ] && ok ||
  bad "simulated nights: $out $(grep '^| algbw' "$N/history/history.md")"
check=$(python3 tests/check_history.py "$N" "$N/history") && ok || bad "simulated nights: history.md against the recomputed verdicts: $check"
finish
