#!/usr/bin/env bash
# Co-located ranks (issue #21) in summary.md and the pictures: tests/fixtures/colocated (4 ranks
# on one GPU, the placement column last), those rows beside the same rows at 1 rank/GPU in one
# CSV, and CSVs from before the column (1 rank/GPU); rehearsed hosts as make run's baseline search
# reads them. Picture checks need gnuplot (else skipped).
. "$(dirname "$0")/lib.sh"
skip=0
check() { local name=$1; shift; if "$@"; then ok; else bad "$name"; fi; }
have_gp=0
command -v gnuplot >/dev/null 2>&1 && have_gp=1
pcheck() { if [ "$have_gp" = 1 ]; then check "$@"; else skip=$((skip + 1)); fi; }
has() { grep -qE -- "$2" "$1"; }
not() { ! "$@"; }
# top FILE REGEX: one of FILE's first 12 lines (above the tables) matches REGEX
top() { head -n 12 "$1" | grep -qE -- "$2"; }
# png FILE: a PNG image of more than 10 kB
png() { [ -f "$1" ] && [ "$(head -c 4 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e47 ] && [ "$(wc -c <"$1")" -gt 10000 ]; }
# title DRIVER: the picture's title line in its gnuplot driver (AR_PLOT_KEEP=1)
title() { grep -h '^ptitle = ' "$1" 2>/dev/null; }
cp -r tests/fixtures/colocated tests/fixtures/nightly "$tmp/"

# ---- 4 ranks on one GPU ----
C=$tmp/colocated
out=$(bash plots/summary.sh "$C" 2>&1); rc=$?
check "summary.sh colocated exits 0 (got $rc: $out)" [ "$rc" -eq 0 ]
check "co-located: the note at the top" top "$C/summary.md" \
  "^> \*\*Co-located ranks\*\* \(4 ranks/GPU\): these timings measure one GPU's memory system, not NVLink\.$"
check "co-located: what they are for" top "$C/summary.md" '^> They are for correctness, smoke runs and CI, not for comparing with NVLink numbers\.$'
check "co-located: the GPUs line says 4 ranks on 1 GPU" has "$C/summary.md" '^- GPUs: NVIDIA H100 80GB HBM3, 4 ranks on 1 GPU on gpu-h100-1;'
check "co-located: one placement, no placement column" not has "$C/summary.md" '^\| placement \|'
check "co-located: best at 64 MiB is ring/sm" has "$C/summary.md" '^\| clean \| 64 MiB \| ring/sm \| 568\.4 \|'
out=$(AR_PLOT_KEEP=1 bash plots/plot.sh "$C" 2>&1); rc=$?
pcheck "plot.sh colocated exits 0 (got $rc: $out)" [ "$rc" -eq 0 ]
pcheck "co-located: algbw_clean.png drawn" png "$C/plots/algbw_clean.png"
pcheck "co-located: the title says co-located, the header 4 ranks on 1 GPU" \
  test "$(title "$C/plots/data/algbw_clean.gp")" = "ptitle = 'algbw vs size, clean, co-located (not NVLink)  |  NVIDIA H100 80GB HBM3, 4 ranks on 1 GPU, gpu-h100-1, 2026-11-25'"
pcheck "co-located: the straggler scenario's title too" grep -q "^ptitle = 'algbw vs size, scenario straggler-2ms: straggler rank 1 delayed 2 ms, co-located (not NVLink)  |  NVIDIA H100 80GB HBM3, 4 ranks on 1 GPU" "$C/plots/data/algbw_straggler-2ms.gp"
pcheck "co-located: the title is in the SVG" grep -q 'co-located (not NVLink)' "$C/plots/algbw_clean.svg"

# ---- a CSV from before the column: one rank per GPU, no note, titles as before ----
N=$tmp/nightly
bash plots/summary.sh "$N" >/dev/null 2>&1
check "no placement column: no co-located note" not has "$N/summary.md" 'Co-located|NVLink'
check "no placement column: GPUs line as before" has "$N/summary.md" '^- GPUs: NVIDIA H200 x4 on dgx-h200-07;'
AR_PLOT_KEEP=1 bash plots/plot.sh "$N" >/dev/null 2>&1
pcheck "no placement column: one rank per GPU in the header" test "$(title "$N/plots/data/algbw_clean.gp")" = "ptitle = 'algbw vs size, clean  |  NVIDIA H200 x4, 1 rank/GPU, dgx-h200-07, 2026-11-21'"

# ---- both placements in one CSV: never one series, one table row each ----
X=$tmp/mixed
mkdir -p "$X"
pc=$(col "$C/results.csv" placement) mc=$(col "$C/results.csv" time_us_median) bc=$(col "$C/results.csv" algbw_gbps)
awk -F, -v OFS=, -v pc="$pc" -v mc="$mc" -v bc="$bc" '
  NR == 1 { print; next }
  { print; row[NR] = $0 }
  END { for (i = 2; i <= NR; i++) { $0 = row[i]; $pc = "1 rank/GPU"
        if ($mc != "") { $mc = sprintf("%.2f", $mc / 2); $bc = sprintf("%.2f", $bc * 2) }; print } }' \
  "$C/results.csv" >"$X/results.csv"
bash plots/summary.sh "$X" >/dev/null 2>&1
check "mixed: the note names the co-located rows and the others" top "$X/summary.md" \
  '^> \*\*Co-located ranks\*\* \(4 ranks/GPU; the other rows 1 rank/GPU, in rows of their own\)'
check "mixed: a placement column" has "$X/summary.md" '^\| placement \| scenario \| size \| best \|'
check "mixed: 1 KiB at 1 rank/GPU" has "$X/summary.md" '^\| 1 rank/GPU \| clean \| 1 KiB \| direct/sm \| 3\.00 \|'
check "mixed: 1 KiB at 4 ranks/GPU, a row of its own" has "$X/summary.md" '^\| 4 ranks/GPU \| clean \| 1 KiB \| direct/sm \| 6\.01 \|'
bash plots/summary.sh "$X" "$C" >/dev/null 2>&1
check "mixed against the co-located run: only rows of the same placement compared" \
  has "$X/summary.md" '^None: 63 rows compared, 0 faster beyond noise\.$'
out=$(AR_PLOT_KEEP=1 bash plots/plot.sh "$X" 2>&1); rc=$?
pcheck "plot.sh mixed exits 0 (got $rc: $out)" [ "$rc" -eq 0 ]
pcheck "mixed: one picture per placement" png "$X/plots/algbw_4ranks-per-GPU_clean.png"
pcheck "mixed: the 1 rank/GPU picture" png "$X/plots/algbw_1rank-per-GPU_clean.png"
pcheck "mixed: no joined picture" test ! -e "$X/plots/algbw_clean.png"
pcheck "mixed: the co-located picture's points are the co-located rows" \
  grep -qE '^1024 0\.17 [0-9]+$' "$X/plots/data/algbw_4ranks-per-GPU_clean.dat"
pcheck "mixed: and only those" not grep -q '^1024 0.34 ' "$X/plots/data/algbw_4ranks-per-GPU_clean.dat"
pcheck "mixed: the co-located title names the placement" \
  grep -q "^ptitle = 'algbw vs size, clean, 4 ranks on 1 GPU (co-located, not NVLink)  |  NVIDIA H100 80GB HBM3 x4," "$X/plots/data/algbw_4ranks-per-GPU_clean.gp"
pcheck "mixed: the 1 rank/GPU title is unmarked" \
  grep -q "^ptitle = 'algbw vs size, clean  |" "$X/plots/data/algbw_1rank-per-GPU_clean.gp"

# ---- hosts rehearsed on one machine (runs/reference/h200x4-two-tier): what make run's baseline
# search reads of a folder (plots/runinfo.awk): the placement whole, four GPUs ----
T=runs/reference/h200x4-two-tier
check "runinfo: rehearsed hosts, 4 GPUs" test "$(awk -f plots/csv.awk -f plots/runinfo.awk $T/meta.txt $T/results.csv)" = \
  "$(printf '90\t1 rank/GPU on 2 hosts (rehearsed on one)\t4')"
check "runinfo: the same from results.csv alone" test "$(awk -f plots/csv.awk -f plots/runinfo.awk /dev/null $T/results.csv)" = \
  "$(printf '90\t1 rank/GPU on 2 hosts (rehearsed on one)\t4')"

[ "$skip" -gt 0 ] && echo "skipped: $skip picture checks (gnuplot is not installed: apt-get install -y gnuplot-nox)"
finish
