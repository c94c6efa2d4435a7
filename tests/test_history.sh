#!/usr/bin/env bash
# arbench history (plots/history.sh, history.awk, trend.gp) on the fixture nights of
# tests/fixtures/history (gen.sh there): seven nights of one machine with noise and a 5%
# regression injected on the last (ring/ce clean 1 GiB), beside runs of another host, of 2 GPUs
# and co-located ranks that must never join that trend. Flags the regression and nothing else,
# flags nothing without it, keeps the groups apart, honours --sizes and --algo, draws the
# trend pictures (with gnuplot) and history.html, and a run's report.html links the trend. A
# night marked INCOMPLETE or FAILED is left out; the trend pictures' points, read back from
# gnuplot, are the nights' results.csv values, under distinct x labels, each series its own look.
. "$(dirname "$0")/lib.sh"
cp -r tests/fixtures/history "$tmp/runs"
rm -f "$tmp/runs/gen.sh"
out=$("$A" history "$tmp/runs" 2>&1); rc=$?
H=$tmp/runs/history
[ "$rc" -eq 0 ] && [ -s "$H/history.md" ] && [ -s "$H/history.csv" ] && [ -s "$H/history.html" ] && ok || bad "history: exit $rc: $out"
printf '%s\n' "$out" | grep -q '^history: 10 run folders, 4 machines, 1 changes beyond noise$' && ok || bad "history summary line: $out"
printf '%s\n' "$out" | grep -qE '^history: dgx-h200-07: NVIDIA H200 x4, 1 rank/GPU: algbw \(GB/s\) ring/ce at 1 GiB: [0-9.]+ -> [0-9.]+ \(-5\.[0-9]%' && ok ||
  bad "the injected 5% regression is not flagged: $out"
grep -qE '^\| algbw \(GB/s\) \| ring/ce \| 1 GiB \| .* \| -5\.[0-9]% \| \*\*slower\*\* \|$' "$H/history.md" && ok || bad "history.md: no slower ring/ce 1 GiB line"
[ "$(grep -c '\*\*slower\*\*\|\*\*faster\*\*\|\*\*later\*\*\|\*\*earlier\*\*\|\*\*further\|\*\*closer' "$H/history.md")" = 1 ] && ok ||
  bad "history.md flags more than the regression: $(grep '\*\*' "$H/history.md")"
[ "$(grep -c 'within noise' "$H/history.md")" = 19 ] && ok || bad "history.md: $(grep -c 'within noise' "$H/history.md") series within noise, want 19"
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
printf '%s\n' "$out" | grep -q '^history: 9 run folders, 4 machines, 0 changes beyond noise$' && ok || bad "noise flagged: $out"

# --sizes and --algo; bad input
out=$("$A" history "$tmp/runs" --sizes 1G --algo ring --out "$tmp/sel" 2>&1); rc=$?
[ "$rc" -eq 0 ] && [ "$(sed '1d; s/^"[^"]*",//' "$tmp/sel/history.csv" | cut -d, -f1-3 | sort -u | tr '\n' ' ')" = \
  "algbw,nccl,1073741824 algbw,ring/ce,1073741824 degraded,ring/ce x2,1073741824 " ] && ok ||
  bad "--sizes 1G --algo ring: $(sed '1d; s/^"[^"]*",//' "$tmp/sel/history.csv" | cut -d, -f1-3 | sort -u | tr '\n' ' ')"
expect 2 "^arbench: --sizes: bad value '1X': unknown unit" "$A" history "$tmp/runs" --sizes 1X
expect 2 '^usage: arbench history' "$A" history
expect 1 'not a folder' "$A" history "$tmp/nowhere"
mkdir -p "$tmp/empty"
expect 1 'no run folder with measured rows' "$A" history "$tmp/empty"
expect 0 'usage: arbench history' "$A" history --help

# the pictures and the page
if command -v gnuplot >/dev/null 2>&1; then
  P=$H/plots
  [ "$(ls "$P"/trend_*.png | wc -l)" = 6 ] && ok || bad "trend pictures: $(ls "$P")"
  f=$(ls "$P"/trend_*_algbw_1GiB.svg 2>/dev/null)
  [ -n "$f" ] && grep -q "beyond the nights' spread" "$f" && grep -q 'algbw (GB/s) per night, 1 GiB  |  dgx-h200-07: NVIDIA H200 x4, 1 rank/GPU, 2026-11-15 to 2026-11-21' "$f" &&
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
  [ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -q '^history: 10 run folders, 4 machines, 1 changes beyond noise$' && ok ||
    bad "a night marked $mark decides the verdicts: $out"
  [ "$(printf '%s\n' "$out" | grep -c "^history: left out $n22: marked $mark (stopped by SIGINT")" = 1 ] && ok ||
    bad "the night marked $mark is not said to be left out, once: $out"
  grep -q "^- left out (never a night of the trend): $n22: marked $mark" "$r/history/history.md" && ok ||
    bad "history.md does not list the night marked $mark"
  ! grep -q 2026-11-22 "$r/history/history.csv" && ok || bad "history.csv holds the night marked $mark"
done

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
    # what gnuplot plots: the driver on a scratch output, its points in `set table`
    sed "s|^out = .*|out = '$tmp/scratch'|" "$drv" >"$tmp/drv.gp"
    gnuplot -e "pngterm='png'" -e "set table '$tmp/table'" "$tmp/drv.gp" >/dev/null 2>&1
    awk '/^# Curve title:/ { t = $0; sub(/^# Curve title: "/, "", t); sub(/"$/, "", t); next }
         NF == 3 && $1 ~ /^[0-9.]+$/ && !((t, $1) in seen) { seen[t, $1] = 1; print t "\t" $1 "\t" $2 }' "$tmp/table" >"$tmp/points"
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
finish
