#!/usr/bin/env bash
# summary.md and report.html say only what is true: plots/summary.sh (which writes report.html)
# on the run folders of tests/fixtures/truth (cut down from a real 4 x H200 nightly and a
# model-mode `make run`; gen.sh there) and the synthetic ones of the other suites, then
# tests/check_summary.py recomputes every number they print from results.csv, critical.csv and
# the baseline's results.csv, on its own, and reads the words that say what kind of run it was. Also: the checker catches a number changed by hand;
# summary.md and report.html get a new file's mode; `make run` with no GPU lists report.html and
# its folder passes the same checker.
. "$(dirname "$0")/lib.sh"
if ! command -v python3 >/dev/null 2>&1; then
  # CI installs it (.ci/run): there a missing python3 fails the suite
  [ "${CI:-}" = true ] && bad "python3 is not installed (apt-get install -y python3)" ||
    echo "skipped: the summary checks (python3 is not installed: apt-get install -y python3)"
  finish
fi
cp -r tests/fixtures/truth/. "$tmp/"
# truth RUN [BASE]: summary.sh, then the checker; its wrong lines shown when it finds any
truth() {
  local out
  out=$(bash plots/summary.sh "$tmp/$1" ${2:+"$tmp/$2"} 2>&1) || { bad "$1: summary.sh failed: $out"; return; }
  out=$(python3 tests/check_summary.py "$tmp/$1" ${2:+"$tmp/$2"} 2>&1) && ok || bad "$1${2:+ against $2}: $out"
}
truth gpu base
truth gpu
truth model
truth allna
# and the synthetic run folders of the other suites (tests/fixtures/gen.sh)
for f in nightly regressed scenarios colocated small wide calibrated scenbase phases; do cp -r "tests/fixtures/$f" "$tmp/"; done
for f in nightly scenarios colocated small wide calibrated scenbase phases; do truth "$f"; done
truth regressed nightly
# and the real nightly whole (4890 rows, critical search, overlap, n/a rows)
cp -r runs/reference/h200x4-nightly-forward "$tmp/forward"
truth forward

# ---- conclusions that hold (docs/statistics.md): runs with samples.csv (tests/fixtures/intervals)
# and reference folders without; the checker recomputes intervals from the samples ----
cp -r tests/fixtures/intervals/night tests/fixtures/intervals/base "$tmp/"
truth night base
truth night
# the same baseline without its intervals (a folder from before samples): the older rule decides
mkdir -p "$tmp/oldbase"
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "row_key") nf = i - 1 } { NF = nf; print }' \
  "$tmp/base/results.csv" >"$tmp/oldbase/results.csv"
truth night oldbase
# rehearsed hosts (h200x4-two-tier), host and graph timing of one batch (h200x4-nccl-tests-compare)
for d in two-tier nccl-tests-compare; do mkdir -p "$tmp/$d" && cp runs/reference/h200x4-$d/{results.csv,meta.txt} "$tmp/$d/"; done
truth two-tier
truth nccl-tests-compare
# nccl's three registration modes measured apart (h200x4-issue27-final2), as scenarios of one run
F=runs/reference/h200x4-issue27-final2
mkdir -p "$tmp/modes" && cp $F/best/meta.txt "$tmp/modes/"
awk -F, -v OFS=, 'FNR == 1 { for (i = 1; i <= NF; i++) if ($i == "scenario") sc = i; if (NR > 1) next; print; next }
  { $sc = FILENAME ~ /best/ ? "clean" : FILENAME ~ /symmetric/ ? "nccl-symmetric" : "nccl-registered"; print }' \
  $F/best/results.csv $F/nccl_registered/results.csv $F/nccl_symmetric/results.csv >"$tmp/modes/results.csv"
truth modes

# the cases of issue #44, as a reader reads them
has() { grep -qF -- "$2" "$1"; }
N=$tmp/night/summary.md
has "$N" '| clean | 64 MiB | ring/ll ~ ring-rails/ll ~ async-ring/ll | 314.3 | 313.7-314.9 |' && ok ||
  bad "night: the 64 MiB near-tie is not one group: $(grep '| 64 MiB |' "$N")"
grep -qE '^\| clean \| 1 KiB \| oneshot/sm \|.*\| symmetric \| 7\.52 \|.*\| 0\.98x \(0\.9[0-9]-0\.99\) \|$' "$N" && ok ||
  bad "night: 1 KiB not against nccl symmetric: $(grep '| clean | 1 KiB |' "$N")"
grep -qE '^\| clean \| 4 KiB \|.*\| symmetric \|.*\| tie 0\.99x ' "$N" && ok || bad "night: 4 KiB is no tie: $(grep '| clean | 4 KiB |' "$N")"
grep -qE '^\| host \| 1 KiB \|.*\| 3\.00x \(few samples: nccl 1\) \|$' "$N" && ok || bad "night: the one-batch nccl row carries a headline"
has "$N" '- vs nccl: against NCCL 2.28.3 at its strongest: at each size the fastest of the registration modes measured (none, registered, symmetric), named in the tables; NVLS off (meta.txt: NCCL_NVLS_ENABLE=0)' && ok ||
  bad "night: no line naming nccl's modes, version and NVLS"
bash plots/summary.sh "$tmp/night" "$tmp/base" >/dev/null 2>&1
grep -qE '^\| clean \| direct/ce \| 1 GiB \| 4076\.0 \|.*\| \+4\.0% \| intervals \|$' "$N" && ! grep -qE '^\| clean \| oneshot/sm \| 2 KiB ' "$N" &&
  has "$N" '**1 regression** (43 rows compared, 1 faster beyond noise)' && ok || bad "night against base: $(grep -A8 '^\*\*' "$N")"
has "$tmp/forward/summary.md" '- vs nccl: against nccl none only (NCCL 2.28.3;' && has "$tmp/forward/summary.md" '- intervals: none in this results.csv' && ok ||
  bad "forward: does not say it is against nccl none only, without intervals"
! has "$tmp/two-tier/summary.md" 'Co-located' && has "$tmp/two-tier/summary.md" '> **Hosts rehearsed** (1 rank/GPU on 2 hosts (rehearsed on one))' && ok ||
  bad "two-tier: rehearsed hosts called co-located, or not said: $(sed -n 1,12p "$tmp/two-tier/summary.md")"
grep -qE '^\| clean \| 1 KiB \| oneshot/sm \|.*\| symmetric \| 7\.52 \|.*\| 0\.98x \|$' "$tmp/modes/summary.md" && ok || bad "modes: 1 KiB not against nccl symmetric"

# a FAILED marker (arbench run: wrong or failed rows) is said under the title, as INCOMPLETE is
cp -r tests/fixtures/truth/gpu "$tmp/failed"
echo "some rows were wrong or failed (status error or timeout in results.csv)" >"$tmp/failed/FAILED"
bash plots/summary.sh "$tmp/failed" >/dev/null 2>&1
sed -n 3,5p "$tmp/failed/summary.md" | grep -qF '**Failed run: some rows were wrong or failed (status error or timeout in results.csv); see "Rows that failed".**' &&
  grep -q '<strong>Failed run: some rows' "$tmp/failed/report.html" && ok || bad "FAILED: not said under the title: $(head -n 6 "$tmp/failed/summary.md")"

# the words each kind of run must say (the checker reads them too; here as a reader greps them)
has() { grep -qF -- "$2" "$1"; }
has "$tmp/model/summary.md" '- rows: 83, every one modelled (source=model): nothing ran on a GPU and nothing was checked' && ok ||
  bad "model: summary.md does not say nothing ran"
has "$tmp/model/summary.md" '| model time (us) |' && ! has "$tmp/model/report.html" 'median (us)' && ok ||
  bad "model: tables say median (us) of modelled times"
! grep -q '<p class="ok">' "$tmp/model/report.html" && ok || bad "model: report.html has a green line"
has "$tmp/allna/summary.md" '**Nothing could run: not one of the 32 rows to be measured was timed or checked** (32 n/a)' && ok ||
  bad "all n/a: summary.md does not say nothing could run"
! grep -qi 'model mode' "$tmp/allna/summary.md" "$tmp/allna/report.html" && ok || bad "all n/a: labelled model mode"
! grep -q '<p class="ok">' "$tmp/allna/report.html" && ok || bad "all n/a: report.html has a green line"
has "$tmp/allna/report.html" '<td>degraded-2x (degraded 1 x2)</td><td>nccl</td><td>nccl</td><td>n/a</td><td class="num">4</td>' && ok ||
  bad "all n/a: report.html does not count the rows that could not run"

# the checker can fail: a number changed by hand in summary.md and in report.html
sed -i 's/^| clean | 1 GiB | optcc\/ce | 4273.9 |/| clean | 1 GiB | optcc\/ce | 4237.9 |/' "$tmp/gpu/summary.md"
out=$(python3 tests/check_summary.py "$tmp/gpu")
printf '%s' "$out" | grep -q 'Clean clean 1 GiB time: prints 4237.9' && ok || bad "checker missed a changed median: $out"
bash plots/summary.sh "$tmp/gpu" >/dev/null 2>&1
sed -i 's#<td class="num">1.07x</td>#<td class="num">1.70x</td>#' "$tmp/gpu/report.html"
out=$(python3 tests/check_summary.py "$tmp/gpu")
printf '%s' "$out" | grep -q 'report.html: section best lacks the table Clean' && ok || bad "checker missed a changed ratio in report.html: $out"

# and a tie dropped, a group cut short, nccl's mode swapped, in summary.md
bash plots/summary.sh "$tmp/night" >/dev/null 2>&1
sed -i -e 's/| tie 0\.99x (0\.97-1\.00) |$/| 0.99x (0.97-1.00) |/' -e 's/| ring\/ll ~ ring-rails\/ll ~ async-ring\/ll |/| ring\/ll ~ ring-rails\/ll |/' \
  -e '/| clean | 2 KiB |/s/| symmetric |/| none |/' "$tmp/night/summary.md"
out=$(python3 tests/check_summary.py "$tmp/night")
printf '%s' "$out" | grep -q "Clean clean 4 KiB: vs nccl '0.99x (0.97-1.00)': the interval .* holds 1" &&
  printf '%s' "$out" | grep -q 'Clean clean 64 MiB: best ring/ll ~ ring-rails/ll, results say ring/ll ~ ring-rails/ll ~ async-ring/ll' &&
  printf '%s' "$out" | grep -q 'Clean clean 2 KiB: nccl mode none, its fastest is symmetric' && ok || bad "checker missed a tie, a group or a mode: $out"

# an import of nccl-tests -d all: each dtype its own line, and the side (in-place or out-of-place)
# named in the nccl mode, never the faster of everything unsaid
"$A" import nccl-tests tests/fixtures/nccl-tests/made/dtypes-all.log --out "$tmp/dtypes" >/dev/null 2>&1 &&
  truth dtypes || bad "import of made/dtypes-all.log failed"
grep -q '^| -g 2 -d all | bf16 | 1 KiB | - |.*| none out-of-place |' "$tmp/dtypes/summary.md" && ok ||
  bad "dtypes-all: no bf16 line naming its side: $(grep -m3 '1 KiB' "$tmp/dtypes/summary.md")"

# summary.md and report.html: the mode a new file gets (mktemp's 0600 is no file of a run)
bash plots/summary.sh "$tmp/gpu" >/dev/null 2>&1
(umask 022 && : >"$tmp/new")
want=$(stat -c %a "$tmp/new")
for f in summary.md report.html; do
  [ "$(stat -c %a "$tmp/gpu/$f")" = "$want" ] && ok || bad "$f is mode $(stat -c %a "$tmp/gpu/$f"), a new file $want"
done

# make run with no GPU: its closing list names report.html, and each file it names is there
repo=$tmp/repo
mkdir -p "$repo" "$tmp/bin0"
cp -r configs plots "$repo/"
printf '#!/bin/sh\nexit 9\n' >"$tmp/bin0/nvidia-smi" && chmod +x "$tmp/bin0/nvidia-smi"
bdir=$(cd "$(dirname "$A")" && pwd)
out=$(cd "$repo" && PATH="$tmp/bin0:$PATH" B=$bdir bash configs/run-main.sh 2>/dev/null)
D=$repo/$(printf '%s\n' "$out" | sed -n 's#^make run: wrote \(runs/[^ ]*\)/$#\1#p')
printf '%s\n' "$out" | grep -qE '^  report\.html ' && ok || bad "make run (model mode): the closing list leaves out report.html: $out"
for f in $(printf '%s\n' "$out" | sed -n 's/^  \([a-z]*\.[a-z]*\) .*/\1/p'); do
  [ -s "$D/$f" ] && ok || bad "make run (model mode): lists $f, not in $D"
done
out=$(python3 tests/check_summary.py "$D" 2>&1) && ok || bad "make run (model mode): $out"
for f in summary.md report.html; do
  [ "$(stat -c %a "$D/$f")" = "$(stat -c %a "$D/results.csv")" ] && ok || bad "make run: $f mode $(stat -c %a "$D/$f"), results.csv $(stat -c %a "$D/results.csv")"
done
finish
