#!/usr/bin/env bash
# arbench history (plots/history.sh, history.awk, trend.gp) on the fixture nights of
# tests/fixtures/history (gen.sh there): seven nights of one machine with noise and a 5%
# regression injected on the last (ring/ce clean 1 GiB), beside runs of another host, of 2 GPUs
# and co-located ranks that must never join that trend. Flags the regression and nothing else,
# flags nothing without it, keeps the groups apart, honours --sizes and --algo, draws the
# trend pictures (with gnuplot) and history.html, and a run's report.html links the trend.
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
expect 2 "^arbench history: --sizes: bad value '1X'" "$A" history "$tmp/runs" --sizes 1X
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
# the night's report links the trend
bash plots/summary.sh "$tmp/runs/night-2026-11-21" "$tmp/runs/night-2026-11-20" >/dev/null 2>&1
grep -q '<a href="../history/history.html">Trend over nights</a>' "$tmp/runs/night-2026-11-21/report.html" && ok || bad "report.html does not link the trend"
finish
