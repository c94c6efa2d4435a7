#!/usr/bin/env bash
# arbench import nccl-tests on logs others published (tests/fixtures/nccl-tests/real, SOURCES.md
# there says where each came from) and on hand-made logs in nccl-tests' own formats
# (fixtures/nccl-tests/made, README.md there): every complete all_reduce log imports, and every
# row of results.csv and samples.csv equals the log's as tests/import_check.py reads it on its
# own; the ranks, host, GPU, NCCL version, dtype and scenario are the log's; other programs' lines
# are counted in one line; logs with no all_reduce results, or that contradict themselves, are
# refused in one line that says why, and no folder is made.
. "$(dirname "$0")/lib.sh"
R=tests/fixtures/nccl-tests/real
M=tests/fixtures/nccl-tests/made

# values DIR COLUMN...: the distinct values of each column, "|"-joined in order of appearance,
# the columns' lists joined by " "
values() {
  python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/results.csv", newline="")))
print(" ".join("|".join(dict.fromkeys(r[c] for r in rows)) + "|" for c in sys.argv[2:]))' "$@"
}

# imports LOG EXIT N HOST GPU NCCL DTYPE SCENARIO: LOG imports with exit EXIT, its rows equal the
# log's, and its columns say N ranks, HOST, GPU, NCCL, DTYPE and SCENARIO ("|"-joined values)
imports() {
  local log=$1 code=$2 d=$tmp/$(basename "$1") rc out chk got want
  out=$("$A" import nccl-tests "$log" --out "$d" 2>&1); rc=$?
  chk=$(python3 tests/import_check.py "$d" "$log" 2>&1)
  got=$(values "$d" n_gpus host gpu nccl dtype scenario)
  want="$3| $4| $5| $6| $7| $8|"
  [ "$rc" -eq "$code" ] && grep -qE '^[0-9]+ rows equal$' <<<"$chk" && [ "$got" = "$want" ] && ok ||
    bad "$(basename "$log"): exit $rc (want $code): $(tail -n 2 <<<"$out") / $(tail -n 3 <<<"$chk") / columns '$got', want '$want'"
}

# ---- 1. real logs: each imports whole, every row equal to the log's ----
# nccl-tests -N 3 on one H200 (tools/device/conclusions_h200x1.sh): three cycles, three samples a size
imports tests/fixtures/nccl-tests/h200x1-t1-N3R0.log 0 1 vm "NVIDIA H200" 2.28.3 float32 "NCCL_NVLS_ENABLE=0 -t 1 -g 1 -R 0"
imports tests/fixtures/nccl-tests/h200x1-t1-N3G1R2.log 0 1 vm "NVIDIA H200" 2.28.3 float32 "NCCL_NVLS_ENABLE=0 -t 1 -g 1 -G 1 -R 2"
imports tests/fixtures/nccl-tests/h200x1-t1-N3R1.log 0 1 vm "NVIDIA H200" 2.28.3 float32 "NCCL_NVLS_ENABLE=0 -t 1 -g 1 -R 1"
imports $R/h100x16-a3mega-2nodes.txt 0 16 ztan-mig-235z "NVIDIA H100 80GB HBM3" "" float32 "-g 1"
imports $R/a100x8-superbench.log 0 8 localhost A100-SXM4-40GB "" float32 "-t 1 -g 8"
imports $R/h100x16-p5-nccl2.20.log 0 16 test-nccl-worker-0 "NVIDIA H100 80GB HBM3" 2.22.3 float32 "-t 1 -g 1"
imports $R/a100x8-polaris-2nodes.log 0 8 x3006c0s1b1n0 "NVIDIA A100-SXM4-40GB" "" float32 "-t 1 -g 1"
imports $R/a100x8-sirius-2nodes.log 0 8 x3200c0s31b1n0 "NVIDIA A100-SXM4-40GB" "" float32 "-t 1 -g 1"
imports $R/h100x4-snellius.log 0 4 gcn155 "NVIDIA H100" 2.22.3 float32 "-t 1 -g 4"
imports $R/h100x8-snellius-mpi.log 0 8 gcn151 "NVIDIA H100" 2.22.3 float32 "-t 1 -g 1"
imports $R/a100x1-perlmutter-podman.log 0 1 nid001597 "NVIDIA A100-SXM4-40GB" 2.21.5 float32 "-t 1 -g 1"
imports $R/a100pcie-x2-gdr.txt 0 2 n013 "NVIDIA A100-PCIE-40GB" 2.16.5 float32 "-t 1 -g 1"
imports $R/h100x10-mixed-collectives.log 0 10 cnode3-002 "NVIDIA H100 80GB HBM3" 2.29.2 float64 "-t 1 -g 1"
imports $R/gb200x72-coreweave-readme.txt 0 72 slurm-gb200-207-171 "NVIDIA Graphics Device" "" float32 nccl-tests
# the logs this suite had before, read by the same independent reader
for f in h200x2-modes.log h200x4-mixed.txt h200x2-g2R0.log h200x2-t2g1R2.log h200x2-g2-nocheck.log h200x2-g2.json; do
  "$A" import nccl-tests tests/fixtures/nccl-tests/$f --out "$tmp/old-$f" >/dev/null 2>&1
  chk=$(python3 tests/import_check.py "$tmp/old-$f" tests/fixtures/nccl-tests/$f 2>&1)
  grep -qE '^[0-9]+ rows equal$' <<<"$chk" && ok || bad "$f: $chk"
done
# what each real log holds besides nccl-tests' own lines, counted in one line
skipped() {
  "$A" import nccl-tests "$1" --out "$tmp/skip" 2>&1 >/dev/null | grep -qxF "arbench import: $1: $2" && ok ||
    bad "$1: no line 'arbench import: $1: $2': $("$A" import nccl-tests "$1" --out "$tmp/skip2" 2>&1 | head -n 3)"
  rm -rf "$tmp/skip" "$tmp/skip2"
}
skipped $R/h100x16-p5-nccl2.20.log "skipped 2897 lines that are not nccl-tests output: NCCL INFO 2881, ssh 16"
skipped $R/a100x1-perlmutter-podman.log "skipped 318 lines that are not nccl-tests output: NCCL INFO 56, libfabric 258, shell trace 2, other 2"
skipped $R/h100x8-snellius-mpi.log "skipped 369 lines that are not nccl-tests output: NCCL INFO 369"
skipped $R/a100x8-superbench.log "skipped 1 line that is not nccl-tests output: NCCL INFO 1"
"$A" import nccl-tests $R/a100x8-superbench.log --out "$tmp/zero" 2>&1 >/dev/null |
  grep -qxF "arbench import: $R/a100x8-superbench.log:1: 2 results of 0 bytes left out (nothing is reduced)" &&
  grep -qxF "left out: 2 results of 0 bytes (nothing reduced)" "$tmp/zero/meta.txt" && ok || bad "superbench: the 0-byte results not said"
# the 2 MiB result line that NCCL's log cut in two (lines 334 and 396) is one row, at its first line
[ "$(awk -F, 'NR > 1 && $14 == 2097152 { n++ } END { print n }' "$tmp/h100x8-snellius-mpi.log/results.csv")" = 2 ] && ok ||
  bad "h100x8-snellius-mpi: the cut 2 MiB line is not one row per side"
# the other collectives of a file are left out, each said
out=$("$A" import nccl-tests $R/h100x10-mixed-collectives.log --out "$tmp/mixed" 2>&1)
[ "$(grep -c "results left out (not all_reduce_perf)" <<<"$out")" = 4 ] &&
  grep -qx "arbench import: $R/h100x10-mixed-collectives.log:38: all_gather_perf's results left out (not all_reduce_perf)" <<<"$out" && ok ||
  bad "mixed collectives: $out"

# ---- 2. real logs refused in one line naming why, nothing written ----
refused() {
  local log=$1 pat=$2 rc
  "$A" import nccl-tests "$log" --out "$tmp/refused" >"$tmp/o" 2>"$tmp/e"; rc=$?
  [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] && grep -qE -- "$pat" "$tmp/e" && [ ! -s "$tmp/o" ] &&
    [ ! -e "$tmp/refused" ] && ok || bad "$(basename "$log"): exit $rc, '$(cat "$tmp/e")' (want /$pat/)"
  rm -rf "$tmp/refused"
}
refused $R/sophia-failed.log "^arbench import: $R/sophia-failed.log:1: no results: nccl-tests failed \(line 20: 'sophia-gpu-04: Test NCCL failure common.cu:1012 'unhandled system error"
refused $R/h100x2-no-allreduce.log "^arbench import: $R/h100x2-no-allreduce.log: no all_reduce_perf results: its tests are alltoall_perf \(line 1\), sendrecv_perf \(line 27\)$"
refused $R/gb200x144-coreweave-readme.txt "^arbench import: $R/gb200x144-coreweave-readme.txt:6: busbw 493.94 is not algbw 248.92 x 2\(n-1\)/n for the 144 ranks the log lists \(536870912 bytes\)$"

# ---- 3. every format and habit of a log, made in nccl-tests' own formats ----
imports $M/v2.0-two-tests.log 0 2 node01 "Tesla V100-SXM2-16GB" "" "float32|fp16" "-t 1 -g 2|-g 2 -d half -o max"
[ "$(values "$tmp/v2.0-two-tests.log" wrong status settings)" = "| ok| |redop=max|" ] &&
  [ "$(grep -c '^--- test ' "$tmp/v2.0-two-tests.log/meta.txt")" = 2 ] && ok ||
  bad "v2.0 tables: wrong $(values "$tmp/v2.0-two-tests.log" wrong), status $(values "$tmp/v2.0-two-tests.log" status), $(grep -c '^--- test ' "$tmp/v2.0-two-tests.log/meta.txt") tests"
# an error beyond nccl-tests' own tolerance (1e-2 x (n-1) for half): that row error, FAILED, exit 1
imports $M/v2.0-error-over.log 1 2 node01 "Tesla V100-SXM2-16GB" "" "float32|fp16" "-t 1 -g 2|-g 2 -d half -o max"
[ "$(awk -F, 'NR > 1 && $31 == "error" { print $13, $14, $11 }' "$tmp/v2.0-error-over.log/results.csv")" = "fp16 65536 out-of-place" ] &&
  grep -q "nccl-tests found wrong results: 1 row with status error" "$tmp/v2.0-error-over.log/FAILED" && ok ||
  bad "v2.0 error over tolerance: $(cat "$tmp/v2.0-error-over.log/FAILED" 2>&1)"
# a table without a redop column (all_gather_perf before 2.13, not named) is not AllReduce's
imports $M/v2.0-all-gather-first.log 0 2 node01 "Tesla V100-SXM2-16GB" "" float32 "-t 1 -g 2"
"$A" import nccl-tests $M/v2.0-all-gather-first.log --out "$tmp/ag" 2>&1 >/dev/null |
  grep -qxF "arbench import: $M/v2.0-all-gather-first.log:1: a table without a redop column left out (not all_reduce_perf's)" &&
  ok || bad "a table without redop: not said"
imports $M/cycles-N3.log 0 2 vm "NVIDIA H200" 2.28.3 float32 "-g 2"
[ "$(values "$tmp/cycles-N3.log" n_samples)$(wc -l <"$tmp/cycles-N3.log/samples.csv")" = "3|37" ] && ok ||
  bad "-N 3: n_samples $(values "$tmp/cycles-N3.log" n_samples), $(wc -l <"$tmp/cycles-N3.log/samples.csv") samples.csv lines"
imports $M/dtypes-all.log 0 2 vm "NVIDIA H200" 2.28.3 "int8|uint8|int32|uint32|int64|uint64|fp16|float32|float64|bf16" "-g 2 -d all"
imports $M/per-iter-stamp.log 0 2 vm "NVIDIA H200" 2.28.3 float32 "-g 2 -I 1"
imports $M/noise-37.log 0 2 8c7a9f0d1e2b "NVIDIA H200" 2.28.3 float32 "-t 1 -g 2"
skipped $M/noise-37.log "skipped 37 lines that are not nccl-tests output: NCCL INFO 31, ssh 1, UCX 4, mpirun 1"
imports $M/srun-label.log 0 2 vm "NVIDIA H200" 2.28.3 float32 "-t 1 -g 2"
skipped $M/srun-label.log "skipped 2 lines that are not nccl-tests output: X11 2"
long="$(for i in 00 01 02 03 04 05 06 07 08 09 10 11; do printf 'NCCL_SETTING_NUMBER_%s=value%s ' $i $i; done)-g 2 -R 1"
imports $M/long-command.log 0 2 vm "NVIDIA H200" 2.28.3 float32 "$long|-t 1 -g 2"
imports $M/wrong.log 1 2 vm "NVIDIA H200" 2.28.3 float32 "-t 1 -g 2"
imports $M/mpi-cycles.json 0 2 node01 "NVIDIA H100 80GB HBM3" 2.23.4 float32 "-t 1 -g 1"
[ "$(values "$tmp/mpi-cycles.json" n_samples)" = "2|" ] && grep -qx "host: node01, node02, GPU NVIDIA H100 80GB HBM3" "$tmp/mpi-cycles.json/meta.txt" && ok ||
  bad "JSON under MPI: n_samples $(values "$tmp/mpi-cycles.json" n_samples), $(grep '^host' "$tmp/mpi-cycles.json/meta.txt")"

# ---- 4. the independent reader catches a row that is not the log's ----
cp -r "$tmp/cycles-N3.log" "$tmp/tampered"
awk -F, -v OFS=, -v c="$(col "$tmp/tampered/results.csv" time_us_median)" 'NR == 3 { $c += 0.5 } 1' \
  "$tmp/cycles-N3.log/results.csv" >"$tmp/tampered/results.csv"
python3 tests/import_check.py "$tmp/tampered" $M/cycles-N3.log >/dev/null 2>&1 && bad "import_check.py passed a tampered row" || ok

finish
