#!/usr/bin/env bash
# report.html (plots/report.sh, written by plots/summary.sh) on the fixture runs: its sections,
# pictures and references as written (always checked), then rendered in headless Chromium (CI
# installs it; skipped with a line saying so where it is missing): a screenshot of the expected
# size that is not blank, and the DOM after layout (tests/report_check.js): every section and
# picture there and drawn, no broken reference, nothing fetched, the regressions of the regressed
# fixture visible and highlighted; the model-mode and all-n/a pages (tests/fixtures/truth) say
# nothing ran, with no green line under Rows that failed; the answers first and the critical
# search's probes after every other table; ties, nccl's strongest mode and one-sample ratios in
# the size ranges of tests/fixtures/intervals/night; rehearsed hosts (runs/reference/
# h200x4-two-tier) never called co-located. `make test` draws the pictures of the nightly,
# regressed, phases and all-n/a pages and renders the regressed page in Chromium; `make
# test-long` draws and renders every page.
. "$(dirname "$0")/lib.sh"
for f in nightly regressed scenarios colocated small phases truth/model truth/allna intervals/night intervals/base; do cp -r "tests/fixtures/$f" "$tmp/"; done
mkdir -p "$tmp/twotier" && cp runs/reference/h200x4-two-tier/{results.csv,meta.txt} "$tmp/twotier/"
have_gp=0
command -v gnuplot >/dev/null 2>&1 && have_gp=1
# the pages drawn (their pictures inlined) and rendered in Chromium; the others are written
# without pictures and not rendered
drawn="nightly regressed phases allna" rendered=regressed
long && drawn="nightly scenarios colocated small phases model allna twotier regressed night" rendered=$drawn
# make RUN [BASE]: the pictures (with gnuplot, for the pages drawn) and summary.md, which
# writes report.html
make_report() {
  [ "$have_gp" = 1 ] && [[ " $drawn " == *" $1 "* ]] && bash plots/plot.sh "$tmp/$1" >/dev/null 2>&1
  bash plots/summary.sh "$tmp/$1" ${2:+"$tmp/$2"} >"$tmp/$1.out" 2>&1
}
for r in nightly scenarios colocated small phases model allna twotier; do make_report "$r"; done
make_report regressed nightly
make_report night base

# ---- the page as written ----
pages="nightly regressed scenarios colocated small phases model allna night twotier"
for r in $pages; do
  h=$tmp/$r/report.html
  [ -s "$h" ] && grep -q "^report.sh: wrote $tmp/$r/report.html$" "$tmp/$r.out" && ok || bad "$r: no report.html: $(cat "$tmp/$r.out")"
  for s in regressions best critical degraded straggler failed probes pictures overlap phases settings meta; do
    grep -q "<section id=\"$s\">" "$h" || { bad "$r: no section $s"; continue 2; }
  done
  ok
  nsvg=$(ls "$tmp/$r"/plots/*.svg 2>/dev/null | wc -l)
  [ "$(grep -c '<figure id="fig-' "$h")" = "$nsvg" ] && [ "$(grep -c '<svg' "$h")" = "$nsvg" ] && ok ||
    bad "$r: $(grep -c '<figure id="fig-' "$h") figures, $nsvg SVGs in plots/"
  ! grep -qiE '<img|<script|<link|<iframe|(src|href)=.https?:' "$h" && ok || bad "$r: fetches something: $(grep -oiE '<img[^>]*|<script[^>]*|(src|href)=.https?:[^"]*' "$h" | sort -u | head -3)"
  # relative links name files of the run folder
  miss=$(grep -o 'href="[^#"][^"]*"' "$h" | sed 's/^href="//; s/"$//' | while read -r l; do [ -e "$tmp/$r/$l" ] || echo "$l"; done)
  [ -z "$miss" ] && ok || bad "$r: links to missing files: $miss"
  ! grep -q '<?xml\|<!DOCTYPE svg' "$h" && ok || bad "$r: an SVG's XML prolog is inlined"
done
R=$tmp/regressed/report.html N=$tmp/nightly/report.html
grep -q '<strong>2 regressions</strong>' "$R" && [ "$(grep -c '<tr class="regressed"><td>' "$R")" -ge 2 ] && ok ||
  bad "regressed: the regressions are not in the page"
awk '/<section id="regressions">/,/<\/section>/' "$R" | grep -q '<td>ring/ce</td><td class="num">1 GiB</td>' && ok ||
  bad "regressed: ring/ce 1 GiB is not in the regressions section"
grep -q 'No baseline: this run was compared with nothing' "$N" && ok || bad "nightly: no line saying there is no baseline"
awk '/<section id="best">/,/<\/section>/' "$N" | grep -q '<td>1 KiB to 4 MiB</td><td>direct/sm</td><td class="num">1.22x to 1.60x</td><td>none</td><td>direct/sm</td>' && ok ||
  bad "nightly: size ranges: $(awk '/<section id="best">/,/<\/section>/' "$N" | grep '<td>' | head -3)"
awk '/<section id="critical">/,/<\/section>/' "$N" | grep -q '<td class="num">1 GiB</td><td>stragglar</td><td>ring/ce</td><td class="num">4.94</td><td class="num">4.54</td>' && ok ||
  bad "nightly: critical delay 1 GiB with its model"
awk '/<section id="degraded">/,/<\/section>/' "$N" | grep -q 'lower bound (us)' && ok || bad "nightly: degraded table without OPTCC's bound"
grep -q 'Co-located ranks' "$tmp/colocated/report.html" && ok || bad "colocated: no co-located note"
! grep -q 'Co-located' "$tmp/twotier/report.html" && grep -q '<strong>Hosts rehearsed</strong> (1 rank/GPU on 2 hosts (rehearsed on one))' "$tmp/twotier/report.html" && ok ||
  bad "twotier: rehearsed hosts called co-located, or not said"
# the probes after every other table, a section of their own (tests/fixtures/truth/gpu's are
# checked cell by cell by test_summary_truth.sh); here none, said so
awk '/<section id="failed">/ { f = NR } /<section id="probes">/ { p = NR } /<section id="pictures">/ { q = NR } END { exit !(f < p && p < q) }' "$N" &&
  awk '/<section id="probes">/,/<\/section>/' "$N" | grep -q 'No critical-delay search in this run' && ok || bad "nightly: the probes are not last among the tables"
# the model-mode page says what it is; its settings keep the keys with a '-' in them
grep -q 'Model mode: nothing was measured' "$tmp/model/report.html" && ! grep -q 'median (us)' "$tmp/model/report.html" && ok ||
  bad "model: the page does not say model mode, or calls modelled times medians"
grep -q '<td>model_command degraded-2x</td>' "$tmp/model/report.html" && ok || bad "model: settings drop 'model_command degraded-2x'"
grep -q 'Nothing could run' "$tmp/allna/report.html" && ! grep -qi 'model mode' "$tmp/allna/report.html" && ok ||
  bad "allna: the page does not say nothing could run, or says model mode"
if [ "$have_gp" = 1 ]; then
  awk '/<section id="phases">/,/<\/section>/' "$tmp/phases/report.html" | grep -q '<figure id="fig-phases_' && ok || bad "phases: no phase picture in its section"
fi
grep -q '<td>command</td><td>synthetic fixture' "$N" && grep -q '<pre>command: synthetic' "$N" && ok || bad "nightly: settings or meta.txt missing"

# ---- rendered in headless Chromium ----
chrome=
for c in chromium chromium-browser google-chrome; do command -v "$c" >/dev/null 2>&1 && { chrome=$c; break; }; done
if [ -z "$chrome" ]; then
  echo "skipped: the Chromium checks (no chromium on PATH: apt-get install -y chromium)"
  finish
fi
# browse ARGS...: headless Chromium, quiet, one minute at most
browse() { timeout 60 "$chrome" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run "$@" 2>/dev/null; }
# png_size FILE: "WIDTHxHEIGHT" from the PNG header
png_size() { printf '%dx%d' "0x$(od -An -j16 -N4 -tx1 "$1" | tr -d ' \n')" "0x$(od -An -j20 -N4 -tx1 "$1" | tr -d ' \n')"; }
printf '<!DOCTYPE html><html><body></body></html>\n' >"$tmp/blank.html"
browse --window-size=1280,2000 --screenshot="$tmp/blank.png" "file://$tmp/blank.html" >/dev/null
for r in $rendered; do
  rm -f "$tmp/shot.png"
  browse --window-size=1280,2000 --screenshot="$tmp/shot.png" "file://$tmp/$r/report.html" >/dev/null
  if [ ! -s "$tmp/shot.png" ]; then bad "$r: Chromium made no screenshot"; continue; fi
  [ "$(png_size "$tmp/shot.png")" = 1280x2000 ] && ok || bad "$r: screenshot $(png_size "$tmp/shot.png"), want 1280x2000"
  # a blank page compresses to almost nothing; text, tables and pictures do not
  [ "$(wc -c <"$tmp/shot.png")" -gt $((5 * $(wc -c <"$tmp/blank.png"))) ] && ok ||
    bad "$r: screenshot looks blank ($(wc -c <"$tmp/shot.png") bytes, a blank page $(wc -c <"$tmp/blank.png"))"
  [ "$r" = regressed ] && cp "$tmp/shot.png" "$tmp/regressed.png"
  # the DOM after layout, checked by report_check.js in a copy of the page
  { sed '/<\/body>/,$d' "$tmp/$r/report.html"; printf '<script>\n'; cat tests/report_check.js; printf '</script>\n</body>\n</html>\n'; } \
    >"$tmp/$r/check.html"
  browse --dump-dom "file://$tmp/$r/check.html" | sed -n '/<pre id="verdict">/,/<\/pre>/p' | sed 's/<[^>]*>//g' >"$tmp/v"
  v() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "$tmp/v"; }
  nsvg=$(ls "$tmp/$r"/plots/*.svg 2>/dev/null | wc -l)
  [ "$(grep -c '^section .* ok$' "$tmp/v")" = 12 ] && ok || bad "$r: sections in the DOM: $(grep '^section' "$tmp/v" | tr '\n' ';')"
  v order | grep -q '^regressions best .*critical degraded straggler failed probes pictures ' && ok || bad "$r: sections in the order $(v order)"
  # no_data.svg (a run with nothing to draw) is a sentence, not a plot: every other SVG is drawn
  nnodata=$(ls "$tmp/$r"/plots/no_data.svg 2>/dev/null | wc -l)
  [ "$(v figures)" = "$nsvg" ] && [ "$(v drawn)" = "$((nsvg - nnodata))" ] && ok ||
    bad "$r: $(v figures) figures, $(v drawn) drawn, $nsvg SVGs ($nnodata no_data)"
  [ "$r" != allna ] || [ "$have_gp" = 0 ] || { [ "$nnodata" = 1 ] && [ "$nsvg" = 1 ] && ok || bad "allna: $nsvg SVGs, $nnodata no_data"; }
  [ "$(v broken)" = 0 ] && [ "$(v external)" = 0 ] && ok || bad "$r: $(v broken) broken of $(v refs) references, $(v external) external"
  [ "$have_gp" = 0 ] || [ "$(v refs)" -gt 0 ] && ok || bad "$r: no in-page reference checked"
  # green "None" under Rows that failed only where rows ran and none failed (nightly has failed rows)
  case $r in
  model | allna) [ "$(v failed_ok)" = 0 ] && v failed_text | grep -q '^Nothing ran' && ok || bad "$r: rows that failed: $(v failed_ok) green, '$(v failed_text)'" ;;
  scenarios) [ "$(v failed_ok)" = 1 ] && v failed_text | grep -q '^None: all [0-9]* rows that ran were checked' && ok || bad "$r: rows that failed: $(v failed_ok) green, '$(v failed_text)'" ;;
  esac
  if [ "$r" = night ]; then
    # the size ranges as a reader sees them: nccl symmetric wins or ties at 1-4 KiB, the 1 KiB
    # host ratio on one nccl batch left out of the headline, groups named
    grep -qx 'range clean | 1 KiB to 4 KiB | nccl symmetric | 0.98x to 0.99x (tie at 2 sizes) | symmetric | oneshot/sm' "$tmp/v" &&
      grep -qx 'range clean | 1 MiB to 64 MiB | async-ring/ll | 1.05x to 1.43x | none, registered | direct/ll, ring/ll' "$tmp/v" &&
      grep -qx 'range host | 1 KiB to 2 KiB | oneshot/sm | 1.99x (1 size on few samples left out) | none | oneshot/sm' "$tmp/v" && ok ||
      bad "night: size ranges $(grep '^range' "$tmp/v" | tr '\n' ';')"
    [ "$(v regressed_rows)" = 1 ] && v regressions_text | grep -q '1 regression' && ok || bad "night: $(v regressed_rows) regression rows: $(v regressions_text)"
  elif [ "$r" = twotier ]; then
    v note | grep -q '^Hosts rehearsed (1 rank/GPU on 2 hosts (rehearsed on one))' && ok || bad "twotier: the note on the page: $(v note)"
  elif [ "$r" = regressed ]; then
    [ "$(v regressed_rows)" = 2 ] && [ "$(v regressed_visible)" = 2 ] && v regressions_text | grep -q '2 regressions' && ok ||
      bad "regressed: $(v regressed_rows) regression rows, $(v regressed_visible) visible: $(v regressions_text)"
  elif [ "$(v regressed_rows)" != 0 ]; then bad "$r: regression rows without a baseline"; else ok; fi
done
finish
