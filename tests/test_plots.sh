#!/usr/bin/env bash
# plots/plot.sh and plots/summary.sh on the synthetic run folders of tests/fixtures/ (see
# gen.sh there): which pictures are drawn, their names, titles, series, styles and data blocks;
# summary.md names the expected best algorithms, critical delays and regressions. The points
# each picture plots are compared with results.csv by tests/test_plot_points.sh. Without
# gnuplot the picture checks say skipped.
set -u
cd "$(dirname "$0")/.." || exit 1
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/arbench-test-plots.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp -r tests/fixtures/nightly tests/fixtures/regressed tests/fixtures/small tests/fixtures/wide tests/fixtures/calibrated \
  tests/fixtures/scenarios tests/fixtures/scenbase "$tmp/"

# check NAME CMD...: one check that passes when CMD succeeds
check() { local name=$1; shift; if "$@"; then ok; else bad "$name"; fi; }
# not CMD...: CMD fails
not() { ! "$@"; }
# has FILE REGEX: FILE has a line matching the extended REGEX
has() { grep -qE -- "$2" "$1"; }
# section FILE HEADING: prints the lines of one "## HEADING" section of a markdown file
section() { awk -v h="## $2" '$0 == h { on = 1; next } /^## / { on = 0 } on' "$1"; }
# in_section FILE HEADING REGEX: a line of that section matches REGEX
in_section() { section "$1" "$2" | grep -qE -- "$3"; }

# ---- summary.md (awk and bash only: always checked) ----
S=$tmp/nightly/summary.md
out=$(bash plots/summary.sh "$tmp/nightly" 2>&1); rc=$?
check "summary.sh nightly exits 0 (got $rc: $out)" [ "$rc" -eq 0 ]
check "summary.md written" test -s "$S"
check "title names the run" has "$S" '^# arbench run 20261121T030000Z_dgx-h200-07$'
check "row counts" has "$S" '^- rows: 618, 582 ok, .*34 n/a'
# direct/sm wins small sizes, nccl is 10.36 us there: 1.48x
check "clean 1 KiB best is direct/sm at 1.48x nccl" in_section "$S" Clean '^\| 1 KiB \| direct/sm \| 7\.00 \| 0\.15 \| none \| 10\.36 \| 0\.10 \| 1\.48x \|$'
check "clean 1 GiB best is ring/ce at 1.04x nccl" in_section "$S" Clean '^\| 1 GiB \| ring/ce \| 4348\.2 \| 246\.94 \| none \| 4539\.7 \| 236\.52 \| 1\.04x \|$'
check "clean 8 MiB: nccl faster than the best (< 1x)" in_section "$S" Clean '^\| 8 MiB \| [^|]+ \|.*\| 0\.9[0-9]x \|$'
check "an error row (rd 2 KiB, 0.01 us) is never the best" in_section "$S" Clean '^\| 2 KiB \| direct/sm \|'
check "an oom row (direct 8 GiB) is never the best" in_section "$S" Clean '^\| 8 GiB \| ring/ce \|'
check "one clean row per size (24)" [ "$(section "$S" Clean | grep -cE '^\| [0-9]+ [KMG]iB \|')" -eq 24 ]
check "straggler 8 ms at 1 GiB: stragglar wins" in_section "$S" Straggler '^\| 3 \| 8 \| 1 GiB \| stragglar/nccl-p2p \| 11301 \|.*\| 1\.11x \|$'
check "straggler 8 ms at 4 GiB: ring/ce wins" in_section "$S" Straggler '^\| 3 \| 8 \| 4 GiB \| ring/ce \|'
check "straggler no delay at 1 GiB: ring/ce wins" in_section "$S" Straggler '^\| 3 \| 0 \| 1 GiB \| ring/ce \|'
check "degraded x1 at 1 GiB: ring/ce" in_section "$S" "Degraded link" '^\| 3 \| 1 \| 1 GiB \| ring/ce \|'
check "degraded x4 at 1 GiB: optcc, 1.07 x the lower bound" in_section "$S" "Degraded link" '^\| 3 \| 4 \| 1 GiB \| optcc/nccl-p2p \| 10143 \| [0-9.]+ \| 9448\.9 \| 1\.07 \|$'
check "degraded table has no nccl column" not in_section "$S" "Degraded link" 'nccl median'
check "critical delay 1 GiB with the model next to it" in_section "$S" "Critical straggler delay" '^\| 1 GiB \| stragglar \| ring/ce \| 4\.94 \| 4\.54 \|$'
check "failed rows listed" in_section "$S" "Rows that failed" '^\| rd \| nccl-p2p \| 2 KiB \| clean \| error \| 512 \|$'
check "no baseline, no regression section" not has "$S" '^## Regressions'
check "no pictures yet: says how to draw them" in_section "$S" Pictures 'plots/plot.sh'

R=$tmp/regressed/summary.md
out=$(bash plots/summary.sh "$tmp/regressed" "$tmp/nightly" 2>&1); rc=$?
check "summary.sh with a baseline exits 0 and counts 2 regressions (got $rc: $out)" \
  test "$rc" -eq 0 -a -n "$(printf '%s' "$out" | grep '2 regressions')"
check "regression count" has "$R" '^\*\*2 regressions\*\* \(500 rows compared'
check "ring/ce clean 1 GiB +20% flagged" in_section "$R" "Regressions against $tmp/nightly (20261121T030000Z_dgx-h200-07)" '^\| clean \| ring/ce \| 1 GiB \| 4348\.2 \| 5217\.9 \| \+20\.0% \|'
check "stragglar straggler 4 GiB +10% flagged" in_section "$R" "Regressions against $tmp/nightly (20261121T030000Z_dgx-h200-07)" '^\| straggler 3 \+8 ms \| stragglar/nccl-p2p \| 4 GiB \|.*\+10\.0% \|'
check "rhd 1 MiB +8% within 3 x the larger (baseline's) stdev: not flagged" not has "$R" '^\| clean \| rhd/nccl-p2p \| 1 MiB \|'
check "direct 1 KiB +3% under 5%: not flagged" not has "$R" '^\| clean \| direct/sm \| 1 KiB \|'
# async-ring always ran with pipeline 4 (no pipeline sweep): no /p4 in its name
check "regressed night's 1 GiB best moves to async-ring/ce" in_section "$R" Clean '^\| 1 GiB \| async-ring/ce \|'
check "no pipeline sweep in the nightly run: no /pK anywhere, nor its explanation" \
  test -z "$(grep -E '/p[0-9]+ \||/pK' "$S" "$R")"
bash plots/summary.sh "$tmp/nightly" "$tmp/nightly" >/dev/null 2>&1
check "a run against itself: no regressions" has "$S" '^None: 500 rows compared, 0 faster beyond noise\.$'
bash plots/summary.sh "$tmp/nightly" "$tmp/regressed" >/dev/null 2>&1
check "the other way round: 2 faster beyond noise" has "$S" '^None: 500 rows compared, 2 faster beyond noise\.$'

M=$tmp/small/summary.md
bash plots/summary.sh "$tmp/small" >/dev/null 2>&1
check "columns in another order: best found by name; no nccl, no nccl columns" in_section "$M" Clean '^\| 1 MiB \| rhd/nccl-p2p \| 25\.47 \| 41\.18 \|$'
check "small: the error row (8 MiB, 99999 GB/s) is skipped" not has "$M" '^\| 8 MiB \|'
check "small: a critical delay that is not a number" in_section "$M" "Critical straggler delay" '^\| 1 MiB \| stragglar \| rhd/nccl-p2p \| not found \(inf\) \| - \|$'
check "small: lower bound from a lower_bound_us column" in_section "$M" "Degraded link" '^\| 1 \| 2 \| 1 MiB \| ring/ce \| 62\.21 \| 16\.86 \| 5\.87 \| 10\.60 \|$'

# the series rule: OPTCC's per-size segment count k (pipeline column) does not split a series,
# a genuine pipeline sweep does; nccl measured twice at 1 GiB is ranked by its faster run
W=$tmp/wide/summary.md
bash plots/summary.sh "$tmp/wide" >/dev/null 2>&1
check "wide: optcc/ce best at 128 MiB, without its k" in_section "$W" Clean '^\| 128 MiB \| optcc/ce \| 577\.3[0-9]* \|'
check "wide: optcc/ce best at 512 MiB, without its k" in_section "$W" Clean '^\| 512 MiB \| optcc/ce \|'
check "wide: no optcc label carries a pipeline" not has "$W" 'optcc/[a-z0-9-]+/p'
check "wide: the pipeline sweep keeps /p4 (1 GiB, faster nccl run 4539.7 us)" \
  in_section "$W" Clean '^\| 1 GiB \| async-ring/ce/p4 \| 4047\.5 \| 265\.29 \| none \| 4539\.7 \| 236\.52 \| 1\.12x \|$'
check "wide: says what /pK means" has "$W" '^A /pK after the transport'
check "wide: critical delay not found, the model's next to it" in_section "$W" "Critical straggler delay" '^\| 1 GiB \| stragglar \| nccl \| not found \(inf\) \| 1\.30 \|$'

out=$(bash plots/summary.sh 2>&1); rc=$?
check "summary.sh without arguments: usage, exit 2 (got $rc)" [ "$rc" -eq 2 ]
out=$(bash plots/summary.sh "$tmp/nowhere" 2>&1); rc=$?
check "summary.sh on a missing run: exit 1 (got $rc)" [ "$rc" -eq 1 ]
mkdir -p "$tmp/broken"
printf 'run_id,algorithm,bytes,status\nx,ring,1024,ok\n' >"$tmp/broken/results.csv"
out=$(bash plots/summary.sh "$tmp/broken" 2>&1); rc=$?
check "summary.sh on a CSV without time_us_median: exit 1 naming it (got $rc: $out)" \
  test "$rc" -eq 1 -a -n "$(printf '%s' "$out" | grep 'no column time_us_median')"

# a model-only CSV (arbench model) is summarised from its model rows
mkdir -p "$tmp/model"
awk -F, 'NR == 1 || $9 == "model"' "$tmp/nightly/results.csv" >"$tmp/model/results.csv"
bash plots/summary.sh "$tmp/model" >/dev/null 2>&1
check "model-only CSV: says so and ranks the model rows" \
  test -n "$(grep 'no measured rows' "$tmp/model/summary.md")" -a -n "$(section "$tmp/model/summary.md" Clean | grep -E '^\| 1 KiB \| direct \|')"

# ---- plot.sh without gnuplot: says how to install it, exit 0 (always checked) ----
mkdir -p "$tmp/bin"
for t in bash dirname; do ln -sf "$(command -v $t)" "$tmp/bin/$t"; done
out=$(PATH=$tmp/bin bash plots/plot.sh "$tmp/small" 2>&1); rc=$?
check "no gnuplot: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "no gnuplot: says how to install it ($out)" test -n "$(printf '%s' "$out" | grep 'apt-get install -y gnuplot-nox')"
check "no gnuplot: nothing drawn" test ! -e "$tmp/small/plots"
out=$(bash plots/plot.sh 2>&1); rc=$?
check "plot.sh without arguments: usage, exit 2 (got $rc)" [ "$rc" -eq 2 ]
out=$(bash plots/plot.sh "$tmp/nowhere" 2>&1); rc=$?
check "plot.sh on a missing run: exit 1 (got $rc)" [ "$rc" -eq 1 ]

# ---- style.awk: each transport its own point shape (pipeline variants open; awk only) ----
printf 'BEGIN { n = split("nccl-p2p ce sm ll other", t, " "); for (i = 1; i <= n; i++) printf "%%s ", transport_point(t[i], 1); print transport_point("ll", 2) }\n' >"$tmp/pts.awk"
pts=$(awk -f plots/style.awk -f "$tmp/pts.awk")
check "style.awk: point shapes of nccl-p2p ce sm ll other, ll's open variant: $pts" [ "$pts" = "7 5 9 11 13 10" ]
# every algorithm of arbench --list its own colour (nccl black) and its family's panel
algos="nccl ring rhd rd swing-bw swing-lat swing-mp bucket direct oneshot bcast stragglar optcc optcc-multi optcc-ring
  optcc-switch async-ring rd-torus rhd-torus swing-lat-torus bucket-sync ring-ham ring-rails r2ccl rhd-elim
  optcc-servers"
# the families of these names by the rule an old run's unknown names fall back on (no registry)
printf 'BEGIN { families_read(fam) } { print $1, algo_color($1), algo_family($1) }\n' >"$tmp/col.awk"
printf '%s\n' $algos | awk -v fam= -f plots/style.awk -f "$tmp/col.awk" >"$tmp/byname"
check "style.awk: the families by name (classic 1, Swing 2, straggler-aware 3, OPTCC 4, nccl 0)" \
  [ "$(awk '{ f[$3] = f[$3] " " $1 } END { for (k = 0; k <= 4; k++) print k ":" f[k] }' "$tmp/byname" | tr '\n' '|')" = \
    "0: nccl|1: ring rhd rd direct oneshot rhd-elim|2: swing-bw swing-lat swing-mp bucket rd-torus rhd-torus swing-lat-torus bucket-sync ring-ham|3: bcast stragglar async-ring|4: optcc optcc-multi optcc-ring optcc-switch ring-rails r2ccl optcc-servers|" ]
fam=
if [ -x "${B:-build}/arbench" ]; then
  algos=$("${B:-build}/arbench" --list | awk 'NR > 1 && /^[^ ]/ { print $1 }')
  "${B:-build}/arbench" --list --format families >"$tmp/families" && fam=$tmp/families
fi
printf '%s\n' $algos | awk -v fam="$fam" -f plots/style.awk -f "$tmp/col.awk" >"$tmp/colors"
check "style.awk: $(wc -l <"$tmp/colors") algorithms, as many colours ($(cut -d' ' -f2 "$tmp/colors" | sort -u | wc -l))" \
  [ "$(cut -d' ' -f2 "$tmp/colors" | sort -u | wc -l)" -eq "$(wc -l <"$tmp/colors")" -a "$(wc -l <"$tmp/colors")" -ge 24 ]
check "style.awk: nccl black" [ "$(awk '$1 == "nccl" { print $2 }' "$tmp/colors")" = "#000000" ]
# with the registry's families (arbench --list --format families): each in its family's panel
[ -n "$fam" ] && check "style.awk: every algorithm in its registry family's panel" \
  [ "$(cut -d' ' -f1,3 "$tmp/colors")" = "$(awk 'BEGIN { split("reference classic swing straggler-aware optcc", w, " ")
                                                  for (i = 1; i <= 5; i++) p[w[i]] = i - 1 }
                                                { print $1, ($2 in p) ? p[$2] : "none" }' "$fam")" ]

# ---- the pictures ----
# is_png FILE: PNG magic, at least 1280x720 in the IHDR, more than 15 kB (a real picture, not an
# empty frame; what it shows is tests/test_plot_points.sh's)
is_png() {
  [ -f "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
    [ "$(od -An -j16 -N4 -tu1 "$1" | awk '{ print $3 * 256 + $4 }')" -ge 1280 ] &&
    [ "$(od -An -j20 -N4 -tu1 "$1" | awk '{ print $3 * 256 + $4 }')" -ge 720 ] && [ "$(wc -c <"$1")" -gt 15000 ]
}
# is_svg FILE: an SVG document with drawn paths, more than 5 kB
is_svg() {
  [ -f "$1" ] && head -c 200 "$1" | grep -q '<svg\|<?xml' && grep -q '</svg>' "$1" && grep -q '<path' "$1" &&
    [ "$(wc -c <"$1")" -gt 5000 ]
}
pictures="best_clean algbw_clean time_clean best_straggler_r3_d8ms algbw_straggler_r3_d8ms arrival_straggler_r3_d8ms
  straggler_delay_1GiB straggler_delay_4GiB critical_delay degraded_factor_256MiB degraded_factor_1GiB model_vs_measured_clean"
# without gnuplot plot.sh still runs (and says how to install it) but these checks are skipped
have_gp=0
command -v gnuplot >/dev/null 2>&1 && have_gp=1
pcheck() { if [ "$have_gp" = 1 ]; then check "$@"; else skip=$((skip + 1)); fi; }
P=$tmp/nightly/plots
out=$(AR_PLOT_KEEP=1 bash plots/plot.sh "$tmp/nightly" 2>&1); rc=$?
pcheck "plot.sh nightly exits 0 (got $rc: $out)" [ "$rc" -eq 0 ]
for p in $pictures; do
  pcheck "$p.png is a PNG of 1280x720 or more" is_png "$P/$p.png"
  pcheck "$p.svg is an SVG" is_svg "$P/$p.svg"
done
pcheck "exactly 12 PNGs (no S-curves for the 2-size degraded sweep)" [ "$(ls "$P"/*.png 2>/dev/null | wc -l)" -eq 12 ]
pcheck "title has GPU, n, placement, host and date" grep -qx "ptitle = 'algbw vs size, clean  |  NVIDIA H200 x4, 1 rank/GPU, dgx-h200-07, 2026-11-21'" "$P/data/algbw_clean.gp"
pcheck "the title is in the picture" grep -q '>algbw vs size, clean  |  NVIDIA H200 x4, 1 rank/GPU, dgx-h200-07, 2026-11-21<' "$P/algbw_clean.svg"
pcheck "best_clean: the answer first, against nccl's mode (none, the default: no settings column)" \
  grep -q "^ptitle = 'best schedule vs nccl (registration none): faster at [0-9]*, slower at [0-9]* of 24 sizes ([0-9.]*-[0-9.]*x), no intervals (rows without samples)  |  clean  |" "$P/data/best_clean.gp"
pcheck "algbw_clean: busbw on the right axis (x 1.5 for 4 GPUs)" grep -qx 'y2f = 1.5' "$P/data/algbw_clean.gp"
pcheck "the straggler scenario is drawn as time after arrival, not time from the first entry" \
  test -e "$P/arrival_straggler_r3_d8ms.png" -a ! -e "$P/time_straggler_r3_d8ms.png" -a ! -e "$P/arrival_clean.png"
pcheck "critical delay marked on the 1 GiB delay sweep" grep -q 'critical delay 4.94 ms' "$P/straggler_delay_1GiB.svg"
pcheck "nccl first, black and thick" test -n "$(grep -E "^names = ' \"nccl\"" "$P/data/algbw_clean.gp" 2>/dev/null)" -a \
  -n "$(grep -E "^colors = ' \"#000000\"" "$P/data/algbw_clean.gp" 2>/dev/null)" -a -n "$(grep -E "^lws = ' 4 " "$P/data/algbw_clean.gp" 2>/dev/null)"
pcheck "OPTCC lower bound drawn from model rows" grep -q 'OPTCC lower bound' "$P/data/degraded_factor_1GiB.gp"
pcheck "model series next to the measured ones" grep -q '"ring model"' "$P/data/model_vs_measured_clean.gp"
pcheck "error row (rd 2 KiB, 204.8 GB/s) not drawn" not grep -q '^2048 204.8' "$P/data/algbw_clean.dat"
bash plots/summary.sh "$tmp/nightly" >/dev/null 2>&1
pcheck "summary links the pictures" in_section "$S" Pictures '^- \[algbw_clean\]\(plots/algbw_clean\.png\) \(\[svg\]\(plots/algbw_clean\.svg\)\)$'

Q=$tmp/small/plots
out=$(AR_PLOT_KEEP=1 bash plots/plot.sh "$tmp/small" 2>&1); rc=$?
pcheck "plot.sh small exits 0 (got $rc)" [ "$rc" -eq 0 ]
pcheck "small: 5 pictures drawn" [ "$(ls "$Q"/*.png 2>/dev/null | wc -l)" -eq 5 ]
pcheck "small: says the delay sweep is missing" test -n "$(printf '%s' "$out" | grep 'straggler_delay_\* not drawn')"
pcheck "small: says critical_delay has no data" test -n "$(printf '%s' "$out" | grep 'critical_delay not drawn')"
pcheck "small: shuffled columns read by name (algbw 41.18, time 25.47)" \
  test -n "$(grep '^1048576 41.18 7$' "$Q/data/algbw_clean.dat" 2>/dev/null)" -a -n "$(grep '^1048576 25.47 7$' "$Q/data/time_clean.dat" 2>/dev/null)"
pcheck "small: error row (99999 GB/s) skipped" not grep -q 99999 "$Q/data/algbw_clean.dat"

out=$(bash plots/plot.sh "$tmp/broken" 2>&1); rc=$?
pcheck "plot.sh on a CSV without time_us_median: exit 1 naming it (got $rc: $out)" \
  test "$rc" -eq 1 -a -n "$(printf '%s' "$out" | grep 'no column time_us_median')"
pcheck "plot.sh on a broken CSV draws nothing" test -z "$(ls "$tmp/broken/plots" 2>/dev/null)"

out=$(bash plots/plot.sh "$tmp/model" 2>&1); rc=$?
pcheck "model-only CSV drawn from its model rows ($out)" test "$rc" -eq 0 -a -n "$(grep -l 'clean (model)' "$tmp/model/plots/algbw_clean.svg" 2>/dev/null)"
# a run whose every row is n/a: one picture that says so
mkdir -p "$tmp/na"
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "status") c = i } NR > 1 { $c = "n/a" } 1' \
  "$tmp/small/results.csv" >"$tmp/na/results.csv"
out=$(bash plots/plot.sh "$tmp/na" 2>&1); rc=$?
pcheck "every row n/a: exit 0, one picture no_data ($out)" \
  test "$rc" -eq 0 -a "$(ls "$tmp/na/plots/" 2>/dev/null | tr '\n' ' ')" = "no_data.png no_data.svg "
pcheck "every row n/a: the picture says why" grep -q 'no row of results.csv has a time to draw: 11 rows (11 n/a)' "$tmp/na/plots/no_data.svg"

# ---- wide: too many series for one S-curve picture; the series rule; a geometric delay sweep ----
V=$tmp/wide/plots
# a stale picture of an earlier drawing (the old single S-curve) must go
mkdir -p "$V" && cp "$P/algbw_clean.png" "$V/busbw_clean.png" 2>/dev/null
out=$(AR_PLOT_KEEP=1 bash plots/plot.sh "$tmp/wide" 2>&1); rc=$?
pcheck "plot.sh wide exits 0 (got $rc: $out)" [ "$rc" -eq 0 ]
wide_pics="algbw_clean algbw_clean_ce algbw_clean_nccl-p2p algbw_clean_sm best_clean pipeline_clean_1GiB
  pipeline_clean_256MiB straggler_delay_1GiB time_clean"
for p in $wide_pics; do
  pcheck "wide: $p.png is a PNG of 1280x720 or more" is_png "$V/$p.png"
  pcheck "wide: $p.svg is an SVG" is_svg "$V/$p.svg"
done
pcheck "wide: exactly these pictures (the stale busbw_clean removed)" \
  [ "$(for f in "$V"/*.png; do basename "$f" .png; done | tr '\n' ' ')" = "$(printf '%s ' $wide_pics)" ]
pcheck "wide: says critical_delay needs 2+ sizes" test -n "$(printf '%s' "$out" | grep 'critical.csv has one size')"
# names = ' "a" "b" ...' of a driver, one per line
names_of() { sed -n "s/^names = '//p" "$V/data/$1.gp" 2>/dev/null | tr -d "'" | tr ' ' '\n' | grep . | tr -d '"'; }
pcheck "wide: ce picture is nccl first, ce series only, the async-ring sweep as /p2 /p4 /p8" \
  [ "$(names_of algbw_clean_ce | tr '\n' ' ')" = "nccl async-ring/ce/p2 async-ring/ce/p4 async-ring/ce/p8 bcast/ce direct/ce optcc/ce rd/ce rhd/ce ring/ce swing-bw/ce " ]
pcheck "wide: sm picture has sm series and nccl only" [ "$(names_of algbw_clean_sm | grep -vc -e '/sm$' -e '^nccl$')" -eq 0 ]
pcheck "wide: optcc/sm is one series over all 21 sizes, whatever its k" \
  [ "$(awk '/^# /{on = ($0 == "# optcc/sm")} on && /^[0-9]/' "$V/data/algbw_clean_sm.dat" 2>/dev/null | wc -l)" -eq 21 ]
pcheck "wide: nccl measured twice at 1 GiB is one point, the faster run" \
  [ "$(awk '/^# /{on = ($0 == "# nccl")} on && /^1073741824 /' "$V/data/algbw_clean_ce.dat" 2>/dev/null)" = "1073741824 236.52 7" ]
pcheck "wide: the families picture is one line per algorithm, each on its best transport" \
  [ "$(names_of algbw_clean | tr '\n' ' ')" = "nccl async-ring bcast direct optcc rd rhd ring swing-bw " ]
pcheck "wide: its points are shaped by transport (direct/sm at 1 KiB, async-ring/ce at 1 GiB)" \
  test -n "$(grep -q '^ptcol = 3$' "$V/data/algbw_clean.gp" 2>/dev/null && awk '/^# /{s = $2} s == "direct" && $1 == 1024 && $3 == 9 {a = 1} s == "async-ring" && $1 == 1073741824 && $3 == 5 {b = 1} END {if (a && b) print "ok"}' "$V/data/algbw_clean.dat")"
pcheck "wide: the families of its series (nccl 0, classic 1, straggler-aware 3, OPTCC 4, Swing 2)" \
  grep -qx "fams = ' 0 3 3 1 4 1 1 1 2'" "$V/data/algbw_clean.gp"
pcheck "wide: no S-curve key has more than 14 entries" \
  test -z "$(for f in "$V"/data/algbw_clean*.gp; do n=$(names_of "$(basename "$f" .gp)" | wc -l); [ "$n" -gt 14 ] && echo "$f"; done)"
pcheck "wide: pipeline picture: async-ring/ce vs pipeline 2 4 8, nccl as reference" \
  test "$(names_of pipeline_clean_1GiB | tr '\n' ' ')" = "nccl async-ring/ce " -a -n "$(grep -x "xt = ' 2 4 8'" "$V/data/pipeline_clean_1GiB.gp" 2>/dev/null)"
pcheck "wide: geometric delay sweep on log axes" grep -qx 'xlog = 1' "$V/data/straggler_delay_1GiB.gp"
pcheck "wide: the model's critical delay marked" grep -q 'model: critical delay 1.3 ms' "$V/straggler_delay_1GiB.svg"
pcheck "wide: no measured critical delay, said so" grep -q 'stragglar never beat nccl up to 64 ms' "$V/straggler_delay_1GiB.svg"
pcheck "nightly: arithmetic delay sweep stays linear" not grep -q 'xlog' "$P/data/straggler_delay_1GiB.gp"
pcheck "nightly: model critical delay marked next to the measured one" grep -q 'model: critical delay 4.54 ms' "$P/straggler_delay_1GiB.svg"

# ---- model vs measured: the model rows of arbench model --calibrate name their transport ----
# words DRIVER LIST: a word list of a driver (names, colors, pts, dts), one word per line, quotes gone
words() { sed -n "s/^$2 = '//p" "$1" 2>/dev/null | tr -d "'" | grep -o '"[^"]*"\|[^ "]\+' | tr -d '"'; }
# style_of DRIVER NAME: "colour pt dt" of the series called NAME
style_of() {
  paste -d '|' <(words "$1" names) <(words "$1" colors) <(words "$1" pts) <(words "$1" dts) |
    awk -F'|' -v n="$2" '$1 == n { print $2, $3, $4 }'
}
# block DAT NAME: the data lines of the series called NAME
block() { awk -v h="# $2" '/^# /{on = ($0 == h)} on && /^[0-9]/' "$1" 2>/dev/null; }
C=$tmp/calibrated/plots
out=$(AR_PLOT_KEEP=1 bash plots/plot.sh "$tmp/calibrated" 2>&1); rc=$?
pcheck "plot.sh calibrated exits 0 (got $rc: $out)" [ "$rc" -eq 0 ]
for t in ce nccl-p2p sm; do
  pcheck "calibrated: model_vs_measured_clean_$t.png is a 1280x720 PNG" is_png "$C/model_vs_measured_clean_$t.png"
  pcheck "calibrated: model_vs_measured_clean_$t.svg is an SVG" is_svg "$C/model_vs_measured_clean_$t.svg"
  pcheck "calibrated: $t picture: that transport's 4 measured series, then their 4 model series" \
    [ "$(words "$C/data/model_vs_measured_clean_$t.gp" names | tr '\n' ,)" = \
      "direct/$t,rhd/$t,ring/$t,stragglar/$t,direct/$t model,rhd/$t model,ring/$t model,stragglar/$t model," ]
  for a in direct rhd ring stragglar; do
    ms=$(style_of "$C/data/model_vs_measured_clean_$t.gp" "$a/$t")
    mm=$(style_of "$C/data/model_vs_measured_clean_$t.gp" "$a/$t model")
    # same colour, the open form of the same point shape (filled pt - 1), dashed
    pcheck "calibrated: $a/$t model dashed in $a/$t's colour and shape ($ms | $mm)" \
      test -n "$ms" -a "$(echo "$ms" | awk '{ print $1, $2 - 1, 2 }')" = "$mm"
  done
  pcheck "calibrated: $t picture draws the ratio panel of its 4 measured series" grep -qsx 'nmeas = 4' "$C/data/model_vs_measured_clean_$t.gp"
done
pcheck "calibrated: no single model_vs_measured_clean (24 series)" test ! -e "$C/model_vs_measured_clean.png"
pcheck "calibrated: the SVG labels the model lines per transport" grep -q 'ring/ce model' "$C/model_vs_measured_clean_ce.svg"
# 0.9 * (30 + 20) + 1.03 * 1024 / 250e3 = 45.00 on ce; 0.9 * (30 + 10) + ... = 36.01 on nccl-p2p
pcheck "calibrated: each transport's model line has its own fit (ring 1 KiB: ce 45, nccl-p2p 36.01)" \
  test "$(block "$C/data/model_vs_measured_clean_ce.dat" 'ring/ce model' | head -1)" = "1024 45" -a \
       "$(block "$C/data/model_vs_measured_clean_nccl-p2p.dat" 'ring/nccl-p2p model' | head -1)" = "1024 36.01"
pcheck "calibrated: measured ring/ce carries model / measured (45 / 50.02)" \
  test "$(block "$C/data/model_vs_measured_clean_ce.dat" ring/ce | awk '$1 == 1024 { printf "%.4f", $3 }')" = 0.8996
# a plain arbench model sweep names no transport ("model"): one model line per algorithm, as before
mkdir -p "$tmp/calplain"
awk -F, -v OFS=, 'NR > 1 && $9 == "model" { $11 = "model" } 1' "$tmp/calibrated/results.csv" >"$tmp/calplain/results.csv"
out=$(AR_PLOT_KEEP=1 bash plots/plot.sh "$tmp/calplain" 2>&1); rc=$?
pcheck "plot.sh calplain exits 0 (got $rc: $out)" [ "$rc" -eq 0 ]
pcheck "transport 'model': one dashed line per algorithm, no points, in every transport's picture" \
  test "$(words "$tmp/calplain/plots/data/model_vs_measured_clean_sm.gp" names | tr '\n' ,)" = \
       "direct/sm,rhd/sm,ring/sm,stragglar/sm,direct model,rhd model,ring model,stragglar model," -a \
       "$(style_of "$tmp/calplain/plots/data/model_vs_measured_clean_sm.gp" 'ring model')" = "#1f77b4 -1 2"
# few enough series: one picture, still per algorithm/transport
mkdir -p "$tmp/calfew"
awk -F, 'NR == 1 || (($10 == "ring" || $10 == "rhd") && ($11 == "ce" || $11 == "sm"))' "$tmp/calibrated/results.csv" >"$tmp/calfew/results.csv"
out=$(AR_PLOT_KEEP=1 bash plots/plot.sh "$tmp/calfew" 2>&1); rc=$?
pcheck "plot.sh calfew exits 0 (got $rc: $out)" [ "$rc" -eq 0 ]
pcheck "calfew: 8 series in one model_vs_measured_clean, model lines per algorithm/transport" \
  test "$(words "$tmp/calfew/plots/data/model_vs_measured_clean.gp" names | tr '\n' ,)" = \
       "rhd/ce,rhd/sm,ring/ce,ring/sm,rhd/ce model,rhd/sm model,ring/ce model,ring/sm model," -a \
       -z "$(find "$tmp/calfew/plots" -name 'model_vs_measured_clean_*')"
pcheck "calfew: is a 1280x720 PNG" is_png "$tmp/calfew/plots/model_vs_measured_clean.png"
# the nightly run's model rows have transport "-" (and model_time_us on measured rows): per algorithm
pcheck "nightly: model lines per algorithm, dashed, without points" \
  test "$(words "$P/data/model_vs_measured_clean.gp" names | tr '\n' ,)" = \
       "direct/sm,rhd/nccl-p2p,ring/ce,ring/nccl-p2p,direct model,rhd model,ring model," -a \
       "$(words "$P/data/model_vs_measured_clean.gp" dts | tr '\n' ' ')" = "1 1 1 1 2 2 2 " -a \
       "$(style_of "$P/data/model_vs_measured_clean.gp" 'rhd model')" = "#ff7f0e -1 2"
pcheck "nightly: ring/ce and ring/nccl-p2p measured both against the one ring model" \
  test -n "$(block "$P/data/model_vs_measured_clean.dat" ring/ce | awk '$1 == 1073741824 && $3 > 0.5 && $3 < 1')" -a \
       -n "$(block "$P/data/model_vs_measured_clean.dat" ring/nccl-p2p | awk '$1 == 1073741824 && $3 > 0.5 && $3 < 1')"

# ---- scenarios: arbench run's scenario columns keep scenarios apart (by name, any position) ----
# fixed-8ms and two-stragglers share the fixed columns (straggler 1, delay 8 ms), as rank1-x2 and
# two-x2 do (degraded 1, x2); the delay and factor sweeps are made of scenarios
X=$tmp/scenarios/summary.md
out=$(bash plots/summary.sh "$tmp/scenarios" "$tmp/scenbase" 2>&1); rc=$?
check "summary.sh scenarios exits 0 (got $rc: $out)" [ "$rc" -eq 0 ]
check "scenarios: the straggler table has a scenario column" in_section "$X" Straggler '^\| scenario \| straggler \| delay \(ms\) \| size \|'
check "scenarios: fixed-8ms and two-stragglers are two rows at 16 MiB" \
  test "$(section "$X" Straggler | grep -cE '^\| (fixed-8ms \| 1|two-stragglers \| 1 \(and 0 \+2 ms\)) \| 8 \| 16 MiB \|')" -eq 2
check "scenarios: two-stragglers' own times (5% slower)" in_section "$X" Straggler '^\| two-stragglers \| 1 \(and 0 \+2 ms\) \| 8 \| 64 MiB \| stragglar/nccl-p2p \| 8673\.9 \|'
check "scenarios: rank1-x2 and two-x2 are two rows at 64 MiB" \
  test "$(section "$X" "Degraded link" | grep -cE '^\| (rank1-x2 \| 1|two-x2 \| 1 \(and 0 x2\)) \| 2 \| 64 MiB \|')" -eq 2
check "scenarios: no scenario column in a CSV without one" not in_section "$S" Clean 'scenario'
# the baseline is matched by scenario: fixed-8ms rhd 16 MiB was 10% faster the night before
# (two-stragglers, with the same fixed columns, was not): one regression, named by scenario
check "scenarios: one regression, fixed-8ms's" has "$X" '^\*\*1 regression\*\* \(92 rows compared, 0 faster'
check "scenarios: the regression names its scenario" in_section "$X" "Regressions against $tmp/scenbase (20261121T030000Z_dgx-h200-07)" \
  '^\| fixed-8ms \(straggler 1 \+8 ms\) \| rhd/nccl-p2p \| 16 MiB \| [0-9.]+ \| [0-9.]+ \| \+11\.1% \|'
# a baseline without the scenario columns still matches on the fixed columns
mkdir -p "$tmp/oldbase"
awk -F, -v OFS=, '{ NF = 32; print }' "$tmp/scenbase/results.csv" >"$tmp/oldbase/results.csv"
bash plots/summary.sh "$tmp/scenarios" "$tmp/oldbase" >/dev/null 2>&1
check "scenarios: an older baseline without the columns is still compared" has "$X" '^(\*\*[0-9]+ regressions\*\* \(|None: )92 rows compared'
Y=$tmp/scenarios/plots
out=$(AR_PLOT_KEEP=1 bash plots/plot.sh "$tmp/scenarios" 2>&1); rc=$?
pcheck "plot.sh scenarios exits 0 (got $rc: $out)" [ "$rc" -eq 0 ]
for p in algbw_clean algbw_fixed-8ms algbw_two-stragglers algbw_rank1-x2 algbw_rank1-x3 algbw_two-x2 straggler_delay_64MiB degraded_factor_64MiB; do
  pcheck "scenarios: $p.png is a PNG of 1280x720 or more" is_png "$Y/$p.png"
done
pcheck "scenarios: 24 pictures (best, algbw and time or arrival per scenario, no merged straggler_r1_d8ms)" \
  test "$(ls "$Y"/*.png 2>/dev/null | wc -l)" -eq 24 -a ! -e "$Y/algbw_straggler_r1_d8ms.png"
pcheck "scenarios: the title names the scenario and every straggler" \
  grep -q "^ptitle = 'algbw (bytes / time after the straggler''s arrival) vs size, scenario two-stragglers: straggler rank 1 delayed 8 ms (and rank 0 delayed 2 ms)  |" "$Y/data/algbw_two-stragglers.gp"
pcheck "scenarios: the delay sweep spans the scenarios delay-0..4ms and fixed-8ms, not two-stragglers" \
  test "$(block "$Y/data/straggler_delay_64MiB.dat" rhd/nccl-p2p | tr '\n' ' ')" = "0 0.37313 2 2.37275 4 4.37236 8 8.37159 "
pcheck "scenarios: the factor sweep is rank1-x2 and rank1-x3, not two-x2" \
  test "$(block "$Y/data/degraded_factor_64MiB.dat" rhd/nccl-p2p | tr '\n' ' ')" = "2 690.96 3 1008.78 "
# by name, not position: the scenario columns moved to the front change nothing
mkdir -p "$tmp/moved"
awk -F, -v OFS=, '{ printf "%s,%s,%s", $33, $34, $35; for (i = 1; i <= 32; i++) printf ",%s", $i; print "" }' \
  "$tmp/scenarios/results.csv" >"$tmp/moved/results.csv"
bash plots/summary.sh "$tmp/moved" >/dev/null 2>&1
check "scenarios: columns in another order give the same tables" \
  test "$(section "$tmp/moved/summary.md" Straggler)" = "$(section "$X" Straggler)" -a -n "$(section "$X" Straggler)"

# ---- a delay sweep of 21 series (7 algorithms x 3 transports): one line per algorithm ----
mkdir -p "$tmp/many"
awk -F, -v OFS=, 'NR == 1 { print; next } $9 != "model" && $14 == 1073741824 && $15 == -1 && $17 == -1 && $10 != "async-ring" {
  for (d = 0; d <= 8000; d += 2000) { $15 = 3; $16 = d; m = $21; $21 = m + d * (0.9 + 0.02 * length($10 $11)); print; $21 = m } }' \
  "$tmp/wide/results.csv" >"$tmp/many/results.csv"
out=$(AR_PLOT_KEEP=1 bash plots/plot.sh "$tmp/many" 2>&1); rc=$?
pcheck "many: plot.sh exits 0 (got $rc: $out)" [ "$rc" -eq 0 ]
pcheck "many: 21 series become one per algorithm, nccl first" \
  test "$(words "$tmp/many/plots/data/straggler_delay_1GiB.gp" names | tr '\n' ' ')" = "nccl bcast direct optcc rd rhd ring swing-bw "
pcheck "many: the title says so" grep -q 'each algorithm on its best transport' "$tmp/many/plots/straggler_delay_1GiB.svg"
# ---- the answer first: titles of tests/fixtures/points/ci (gen_ci.sh; its points: test_plot_points.sh) ----
cp -r tests/fixtures/points/ci "$tmp/ci"
out=$(AR_PLOT_KEEP=1 bash plots/plot.sh "$tmp/ci" 2>&1); rc=$?
pcheck "ci: plot.sh exits 0 (got $rc: $out)" [ "$rc" -eq 0 ]
# answer NAME: the part of NAME's title before its first "  |  "
answer() { sed -n "s/^ptitle = '//p" "$tmp/ci/plots/data/$1.gp" 2>/dev/null | sed 's/  |  .*//'; }
pcheck "ci: critical_delay: where stragglar wins, and never at 64 KiB up to the largest delay tried" \
  test "$(answer critical_delay)" = "stragglar wins from 0.5 ms (256 KiB) to 1 ms (1 MiB); never at 64 KiB (up to 4 ms)"
pcheck "ci: straggler_delay_64KiB: never, beside the model's 0.1 ms" \
  test "$(answer straggler_delay_64KiB)" = "stragglar never beat ring/ll up to 4 ms (model: 0.1 ms)"
pcheck "ci: straggler_delay_1MiB: the critical delay, beside the model's" \
  test "$(answer straggler_delay_1MiB)" = "stragglar beats ring/ll from 1 ms (model: 1.5 ms)"
pcheck "ci: degraded_factor_1MiB: the best at x4 against OPTCC's bound (60 us) and the healthy best (45 us)" \
  test -n "$(answer degraded_factor_1MiB | grep -E "^at x4 the best is optcc/ce, 2\.0[0-9]x OPTCC''s bound, 2\.6[0-9]x the healthy best$")"
pcheck "ci: best_clean: against nccl's fastest mode, a tie at 1 KiB, three sizes tied" \
  test "$(answer best_clean)" = "best schedule vs nccl''s fastest mode: faster at 5, a tie at 1 of 6 sizes (1.00-1.40x), 3 sizes tied between schedules"
pcheck "ci: best_degraded-2x: against the healthy best and OPTCC's bound" \
  test -n "$(answer best_degraded-2x | grep -E "^best schedule [0-9.]+-[0-9.]+x the healthy best, [0-9.]+x OPTCC''s bound at 1 MiB \(no nccl rows\)$")"
pcheck "ci: the critical search's probes are probes_*, after the answers" \
  test -e "$tmp/ci/plots/probes_best_critical_straggler_r1_d0ms.png" -a ! -e "$tmp/ci/plots/best_critical_straggler_r1_d0ms.png"
pcheck "ci: the never size is drawn at its bound, labelled" grep -q '>none up to 4 ms<' "$tmp/ci/plots/critical_delay.svg"

# ---- the families: four panels, each with its own key beside it ----
pcheck "nightly: algbw_clean has the four family panels" \
  test "$(grep -c -e '>classic<' -e '>Swing<' -e '>straggler-aware<' -e '>OPTCC<' "$P/algbw_clean.svg")" -eq 4

# ---- an algorithm's family is its registry's, not its name's: a run of hx-ring (a name the
# rule for old runs calls classic) drawn by the arbench that wrote it (meta.txt's command),
# whose registry puts it in Swing; no-such, which that registry lacks, is placed by its name,
# and plot.sh says so ----
mkdir -p "$tmp/famrun" "$tmp/fambin"
awk -F, -v OFS=, 'NR > 1 && $10 == "swing-bw" { $10 = "hx-ring" } NR > 1 && $10 == "rd" { $10 = "no-such" } 1' \
  "$tmp/wide/results.csv" >"$tmp/famrun/results.csv"
printf 'command: %s/fambin/arbench run --algo all\n' "$tmp" >"$tmp/famrun/meta.txt"
printf '#!/bin/sh\n[ "$*" = "--list --format families" ] || exit 2\nprintf "%%s\\n" "nccl reference" "ring classic" "rhd classic" "direct classic" "hx-ring swing" "bcast straggler-aware" "async-ring straggler-aware" "stragglar straggler-aware" "optcc optcc"\n' \
  >"$tmp/fambin/arbench" && chmod +x "$tmp/fambin/arbench"
out=$(AR_PLOT_KEEP=1 bash plots/plot.sh "$tmp/famrun" 2>&1); rc=$?
pcheck "famrun: plot.sh exits 0 (got $rc: $out)" [ "$rc" -eq 0 ]
pcheck "famrun: hx-ring in the Swing panel, no-such by its name in classic (nccl async-ring bcast direct hx-ring no-such optcc rhd ring)" \
  grep -qx "fams = ' 0 3 3 1 2 1 4 1 1'" "$tmp/famrun/plots/data/algbw_clean.gp"
pcheck "famrun: says no-such was placed by its name" test -n "$(printf '%s' "$out" | grep -F "plot.sh: no-such: not in $tmp/fambin/arbench --list: placed in a family by name")"

# ---- a run of nccl alone: no best-schedule picture (there is none), the rest drawn ----
mkdir -p "$tmp/onlynccl"
awk -F, 'NR == 1 || $10 == "nccl"' "$tmp/nightly/results.csv" >"$tmp/onlynccl/results.csv"
out=$(bash plots/plot.sh "$tmp/onlynccl" 2>&1); rc=$?
pcheck "nccl alone: exit 0, algbw_clean drawn, no best_clean, and says why ($out)" \
  test "$rc" -eq 0 -a -e "$tmp/onlynccl/plots/algbw_clean.png" -a ! -e "$tmp/onlynccl/plots/best_clean.png" -a \
    -n "$(printf '%s' "$out" | grep 'clean: only nccl rows: best_clean not drawn')"

# ---- what the pictures plot: gnuplot's own points against results.csv (tests/plot_tables.sh) ----
# (tests/fixtures/points/ci: its conclusions recomputed by tests/plot_conclusions.py, and no key
# over the data, tests/check_keys.py)
if command -v python3 >/dev/null 2>&1; then
  for d in nightly wide calibrated scenarios ci; do
    out=$(bash tests/plot_tables.sh --drawn "$tmp/$d" 2>&1)
    pcheck "$d: every picture plots results.csv's rows ($(printf '%s' "$out" | tail -n 1))" test $? -eq 0 -a \
      -n "$(printf '%s' "$out" | grep -E '^[1-9][0-9]* pictures checked$')"
  done
  out=$(python3 tests/check_keys.py "$tmp/ci"/plots/*.svg 2>&1)
  pcheck "ci: no key over the data ($out)" test $? -eq 0
else skip=$((skip + 6)); fi

# ---- plots/draw.sh: every driver in one gnuplot, each failure its own driver's ----
# four drivers (the second's path has a quote): a warning, an error after its PNG was begun,
# a clean one, an error; each starts afresh (a variable of the one before is gone)
if [ "$have_gp" = 1 ]; then
  g=$tmp/draw && mkdir -p "$g"
  printf "set terminal svg; set output '%s/w.svg'\nleft = 1\nplot 1\n" "$g" >"$g/w.gp"
  printf "set terminal svg; set output \"%s/q'x.svg\"\nplot nosuch(x)\n" "$g" >"$g/q'x.gp"
  printf "if (exists('left')) print 'carried over'\nset terminal svg; set output '%s/c.svg'\nplot x\n" "$g" >"$g/c.gp"
  printf "undefined_command\n" >"$g/e.gp"
  printf '%s\n' "$g/w.gp" "$g/q'x.gp" "$g/c.gp" "$g/e.gp" >"$g/list"
  out=$(. plots/draw.sh && draw_drivers "$g/list" "$g" who 2>&1 && echo "drawn $drawn failed $failed")
  check "draw.sh: 2 drawn, 2 failed ($out)" has <(printf '%s\n' "$out") '^drawn 2 failed 2$'
  check "draw.sh: the warning is the first driver's ($out)" has <(printf '%s\n' "$out") '^who: w: Warning: empty y range'
  check "draw.sh: the error is the second's, indented ($out)" \
    has <(printf '%s\n' "$out" | grep -A1 "^who: gnuplot failed on q'x:$") "^  .*undefined function: nosuch"
  check "draw.sh: the last one's error is its own ($out)" \
    has <(printf '%s\n' "$out" | grep -A1 '^who: gnuplot failed on e:$') '^  .*undefined_command'
  check "draw.sh: nothing carried from one driver to the next ($out)" not has <(printf '%s\n' "$out") 'carried over'
  check "draw.sh: the drawn pictures are there, the half-drawn one is gone" \
    test -s "$g/w.svg" -a -s "$g/c.svg" -a ! -e "$g/q'x.svg"
  check "draw.sh: every message under its driver ($out)" \
    test -z "$(printf '%s\n' "$out" | grep -vE '^(who: w: |who: gnuplot failed on (q.x|e):$|  |drawn )')"
else skip=$((skip + 7)); fi

# ---- any run folder path (#26): a leading '-', an '=', a quote, a backslash, a space (drawn:
#      the first three; the others under make test-long, as plot.sh reads them through the link
#      it makes for a quote) ----
k=0
for name in "-run" "a=b" "q'run" 'back\slash' "two words"; do
  k=$((k + 1))
  d=$tmp/odd/$name
  mkdir -p "$tmp/odd" && cp -r tests/fixtures/small "$d"
  out=$(cd "$tmp/odd" && bash "$OLDPWD/plots/summary.sh" "$name" "$name" 2>&1); rc=$?
  check "summary.sh '$name' exits 0 (got $rc: $out)" [ "$rc" -eq 0 ]
  check "summary.sh '$name': summary.md and report.html" test -s "$d/summary.md" -a -s "$d/report.html"
  check "summary.sh '$name': compared with itself" has "$d/summary.md" '^## Regressions against'
  [ "$k" -le 3 ] || [ "${TEST_LONG:-0}" = 1 ] || continue
  out=$(cd "$tmp/odd" && AR_PLOT_KEEP=$((RANDOM % 2)) bash "$OLDPWD/plots/plot.sh" "$name" 2>&1); rc=$?
  pcheck "plot.sh '$name' exits 0 (got $rc: $out)" [ "$rc" -eq 0 ]
  pcheck "plot.sh '$name': pictures" test -n "$(ls "$d/plots/"*.svg 2>/dev/null)"
done
check "plot.sh leaves no link behind" test -z "$(ls "${TMPDIR:-/tmp}" | grep '^arbench-run\.' | xargs -r -I{} find "${TMPDIR:-/tmp}/{}" -lname "$tmp/odd/*")"

[ "$skip" -gt 0 ] && echo "skipped: $skip picture checks (gnuplot is not installed: apt-get install -y gnuplot-nox)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
