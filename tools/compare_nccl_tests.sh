#!/usr/bin/env bash
# make compare-nccl-tests [NCCL_TESTS=DIR | NCCL_TESTS_LOGS=DIR] [RUN=DIR] [GPUS=N] [OUT=DIR]:
# arbench beside NVIDIA's nccl-tests on the same GPUs, each in its own methods, with the
# medians' 95% intervals on both sides (docs/statistics.md):
#   1. all_reduce_perf built from the nccl-tests source tree NCCL_TESTS (only that binary), or
#      the one on PATH; with NCCL_TESTS_LOGS=DIR none runs: DIR's logs are read instead (any
#      file holding all_reduce_perf's text output; a comment line before a test naming its
#      command, as this script writes, gives its -R);
#   2. all_reduce_perf with a thread per GPU (-t N -g 1, as arbench's ranks) in each
#      registration (-R 0, 1, 2), without and with CUDA graphs (-G 1): six runs, float sum,
#      SIZES and ITERS as arbench's, -N SAMPLES cycles (each cycle one sample of each size and
#      side); every log in OUT/nccl-tests/, its command on its first line;
#   3. arbench on the same GPUs, sizes and iterations: every algorithm (ARB_ALGOS, nccl always
#      among them) on every transport with its mini-batches chosen per size (--pipeline 0), in
#      host, events and graph timing (SAMPLES batches per row in host and graph), and nccl
#      as nccl-tests runs it (nccl.rotate=on: each AllReduce of a batch on the next slice of
#      the buffer; in graph timing timing.graph_upload=off: the launch carries the graph's
#      upload) in every registration under host and graph timing; OUT is its run folder.
#      With RUN=DIR none runs: DIR's results.csv is read instead (clean rows, a rank per GPU;
#      each row's timing method and registration from its settings);
#   4. OUT/compare.md (tools/compare_nccl_tests.awk): per size, arbench's nccl beside nccl-tests'
#      same mode and side, and arbench's best beside nccl-tests' best per timing method, with
#      intervals; also a section of OUT/report.html when OUT is a run folder.
# Every variable is checked before anything runs (one line naming it and its value, exit 2),
# and two sides whose GPU count, GPU model or dtype differ are refused (exit 2). Exit 1 when
# either side failed: arbench's run did not end well (a wrong result, an error, the deadline)
# or all_reduce_perf failed in every mode; compare.md is then still written if anything could
# be set side by side, and says so.
# Variables: A (the arbench binary, default build/arbench), GPUS (default: the logs' or RUN's
# count, else 2), OUT (an empty or new folder, default runs/compare-nccl-tests-TIME), SIZES
# (-b 1K -e 8G -f 2: -b, -e, -f or -i with whole numbers and K, M or G), ARB_ITERS (-n 20 -w 1,
# for both tools), SAMPLES (10: nccl-tests' -N and arbench's timing.host_batches), ARB_ALGOS
# (all: arbench's --algo), DEADLINE (seconds for the whole command, 3600: nccl-tests' runs get
# at most half, arbench's run what is left, its rows so far kept if it runs out), NCCL_HOME
# (default /usr where /usr/include/nccl.h is, else CUDA's), CUDA_HOME (/usr/local/cuda),
# NVCC_GENCODE (sm_90).
set -u -f # -f: no file name globbing (SIZES and ARB_ITERS are split into words)
cd "$(dirname "$0")/.." || exit 1
me=compare-nccl-tests
refuse() { echo "$me: $1: bad value '$2': $3" >&2; exit 2; }
A=${A:-build/arbench}
gpus=${GPUS:-}
out=${OUT:-runs/compare-nccl-tests-$(date -u +%Y%m%d-%H%M%S)}
sizes=${SIZES:--b 1K -e 8G -f 2}
iters=${ARB_ITERS:--n 20 -w 1}
samples=${SAMPLES:-10}
algos=${ARB_ALGOS:-all}
deadline=${DEADLINE:-3600}
logs=${NCCL_TESTS_LOGS:-}
run=${RUN:-}
t0=$SECONDS
export NCCL_NVLS_ENABLE=0 # NVLink multicast can take a shared host's GPUs down
AWK=(awk -f plots/csv.awk -f plots/stats.awk -f tools/nccl_tests_log.awk -f tools/compare_nccl_tests.awk)

# ---- every variable, before anything runs ----
case "$deadline" in '' | *[!0-9]* | 0*) refuse DEADLINE "$deadline" "whole seconds, more than 0" ;; esac
case "$samples" in '' | *[!0-9]* | 0*) refuse SAMPLES "$samples" "a whole number from 1 to 1000" ;; esac
[ "$samples" -le 1000 ] || refuse SAMPLES "$samples" "a whole number from 1 to 1000"
case "$gpus" in '') ;; *[!0-9]* | 0* | 1) refuse GPUS "$gpus" "a whole number of GPUs, 2 or more" ;; esac
case "$algos" in *[[:space:]]*) refuse ARB_ALGOS "$algos" "a comma-separated list without blanks (ring,rhd)" ;; esac
# words FLAGS VAR VALUE: VALUE is pairs of a flag among FLAGS and a whole number (K, M or G):
# what both tools read alike
words() {
  local flags=$1 var=$2 v=$3 w expect=flag
  for w in $v; do
    if [ $expect = flag ]; then
      case " $flags " in *" $w "*) expect=value ;; *) refuse "$var" "$v" "'$w' is not one of $flags (each with a value)" ;; esac
    else
      case "$w" in '' | *[!0-9KMG]* | [KMG]* | *[KMG]?*) refuse "$var" "$v" "'$w' is not a whole number (K, M or G: binary)" ;; esac
      expect=flag
    fi
  done
  [ $expect = flag ] || refuse "$var" "$v" "its last flag has no value"
  [ -n "$v" ] || refuse "$var" "$v" "empty"
}
words "-b -e -f -i" SIZES "$sizes"
words "-n -w" ARB_ITERS "$iters"
[ -n "${NCCL_TESTS:-}" ] && [ -n "$logs" ] &&
  refuse NCCL_TESTS "$NCCL_TESTS" "NCCL_TESTS_LOGS is given too: its logs are read, nothing is built"
if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then refuse OUT "$out" "the folder is not empty"; fi
[ -e "$out" ] && [ ! -d "$out" ] && refuse OUT "$out" "not a folder"
if [ -n "$run" ]; then
  [ -s "$run/results.csv" ] || refuse RUN "$run" "no results.csv in it"
  # its GPU count sets GPUS; its model and dtype are checked beside the logs' by compare.awk
  rd=$("${AWK[@]}" -v describe=run "$run/results.csv") || exit 2
  rg=${rd%%|*}
  case "$rg" in *,*) refuse RUN "$run" "rows of different GPU counts ($rg)" ;; esac
fi
lfiles=()
if [ -n "$logs" ]; then
  [ -d "$logs" ] || refuse NCCL_TESTS_LOGS "$logs" "not a folder"
  while IFS= read -r f; do lfiles+=("$f"); done < <(find "$logs" -maxdepth 1 -type f -size +0 | LC_ALL=C sort)
  [ ${#lfiles[@]} -gt 0 ] || refuse NCCL_TESTS_LOGS "$logs" "no file in it"
  lg=$("${AWK[@]}" -v describe=logs -v logs="$logs" "${lfiles[@]}") || exit 2
  lgpus=${lg%%|*}
  [ -z "$gpus" ] || [ "$gpus" = "$lgpus" ] || refuse GPUS "$gpus" "the logs in '$logs' ran on $lgpus GPUs"
  gpus=$lgpus
fi
if [ -n "$run" ] && [ -n "${rg:-}" ]; then
  [ -z "$logs" ] || [ "$lgpus" = "$rg" ] || refuse NCCL_TESTS_LOGS "$logs" "nccl-tests ran on $lgpus GPUs, arbench ($run) on $rg"
  [ -z "$gpus" ] || [ "$gpus" = "$rg" ] || refuse GPUS "$gpus" "RUN '$run' ran on $rg GPUs"
  gpus=$rg
fi
gpus=${gpus:-2}
if [ -z "$run" ]; then # arbench runs: its own checks, on no GPU (--dry-run), one variable at a time
  [ -x "$A" ] || refuse A "$A" "no such program (make first)"
  # dry VAR VALUE ARGS...: arbench's dry run of ARGS refuses VALUE with its own reason
  dry() {
    local var=$1 v=$2 e; shift 2
    e=$("$A" run "$@" --dry-run 2>&1 >/dev/null) || refuse "$var" "$v" "arbench: ${e#arbench: }"
  }
  dry ARB_ALGOS "$algos" --algo "$algos" --sizes 1K
  # shellcheck disable=SC2086 # words on purpose
  dry SIZES "$sizes" --algo nccl $sizes
  # shellcheck disable=SC2086
  dry ARB_ITERS "$iters" --algo nccl --sizes 1K $iters
  case ",$algos," in *,all,* | *,nccl,*) ;; *) algos=$algos,nccl ;; esac
fi
if [ -z "$logs" ]; then # nccl-tests runs
  if [ -n "${NCCL_TESTS:-}" ]; then
    [ -f "$NCCL_TESTS/src/all_reduce.cu" ] || refuse NCCL_TESTS "$NCCL_TESTS" "no nccl-tests source tree (src/all_reduce.cu)"
  else
    P=$(command -v all_reduce_perf) ||
      { echo "$me: no all_reduce_perf on PATH (NCCL_TESTS=DIR builds it from its source, NCCL_TESTS_LOGS=DIR reads its logs)" >&2; exit 2; }
  fi
fi
list=$(seq -s, 0 $((gpus - 1)))
if [ -z "$run" ]; then # the GPUs, as arbench sees them: one small row
  probe=$(mktemp -d)
  e=$("$A" run --gpus "$list" --algo nccl --sizes 1K -n 1 -w 1 -T 30 --out "$probe/run" 2>&1 >/dev/null)
  rc=$?
  pd=$("${AWK[@]}" -v describe=run "$probe/run/results.csv" 2>/dev/null)
  rm -rf "$probe"
  [ $rc -eq 2 ] && refuse GPUS "$gpus" "arbench --gpus $list: $(printf '%s\n' "$e" | grep -m1 'bad value' | sed 's/^arbench: //')"
  [ $rc -eq 0 ] || { echo "$me: arbench cannot run on GPUs $list (exit $rc): $(printf '%s\n' "$e" | tail -n 1)" >&2; exit 1; }
  if [ -n "$logs" ]; then # the logs' GPU model and dtype beside arbench's here (float32)
    lm=${lg#*|}; lm=${lm%|*} pm=${pd#*|}; pm=${pm%|*}
    [ -z "$lm" ] || [ "$lm" = "$pm" ] || refuse NCCL_TESTS_LOGS "$logs" "nccl-tests ran on $lm, arbench here on $pm"
    [ "${lg##*|}" = float32 ] || refuse NCCL_TESTS_LOGS "$logs" "nccl-tests' dtype is ${lg##*|}, arbench's here float32"
  fi
fi
tmpmd=$(mktemp)
trap 'rm -f "$tmpmd"' EXIT
# compare: compare.md into $tmpmd from RUN's results.csv and the logs; its status
compare() {
  "${AWK[@]}" -v gpus="$gpus" -v run="$run" -v logs="$logs" -v logs_var="${logs_var:-NCCL_TESTS_LOGS}" \
    "$run/results.csv" "${lfiles[@]}" >"$tmpmd"
}
if [ -n "$run" ] && [ -n "$logs" ]; then # nothing runs: every check of compare.awk before OUT is made
  compare || exit
fi
mkdir -p "$out" || exit 1
echo "$me: $gpus GPUs, into $out ($((SECONDS - t0)) s)"

# ---- 1, 2. nccl-tests ----
if [ -z "$logs" ]; then
  mkdir -p "$out/nccl-tests" || exit 1
  logs=$out/nccl-tests
  if [ -n "${NCCL_TESTS:-}" ]; then
    nh=${NCCL_HOME:-$([ -e /usr/include/nccl.h ] && echo /usr || echo "${CUDA_HOME:-/usr/local/cuda}")}
    bd=$(cd "$NCCL_TESTS" && pwd)/build
    make -C "$NCCL_TESTS/src" MPI=0 BUILDDIR="$bd" CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}" NCCL_HOME="$nh" \
      NVCC_GENCODE="${NVCC_GENCODE:--gencode=arch=compute_90,code=sm_90}" -j"$(nproc)" os.build "$bd/all_reduce_perf" \
      >"$logs/build.log" 2>&1 || { tail -n 20 "$logs/build.log"; echo "$me: nccl-tests did not build ($logs/build.log)" >&2; exit 1; }
    P=$bd/all_reduce_perf
  fi
  nt_end=$((t0 + deadline / 2)) nok=0 nrun=0
  for G in "" "-G 1"; do
    for R in 0 1 2; do
      args="-t $gpus -g 1 $sizes $iters -N $samples -d float -o sum -R $R${G:+ $G}"
      name=all_reduce_perf_t${gpus}g1R$R$(echo "$G" | tr -d ' -')
      left=$((nt_end - SECONDS)); [ $left -gt 600 ] && left=600
      nrun=$((nrun + 1))
      if [ $left -lt 10 ]; then echo "  all_reduce_perf $args: no time left (DEADLINE $deadline: half for nccl-tests)"; continue; fi
      # shellcheck disable=SC2086 # words on purpose
      { echo "# command: NCCL_NVLS_ENABLE=0 all_reduce_perf $args"; timeout -k 5 $left "$P" $args; } >"$logs/$name.log" 2>&1
      rc=$?
      [ $rc -eq 0 ] && nok=$((nok + 1))
      echo "  all_reduce_perf $args: exit $rc ($((SECONDS - t0)) s)"
    done
  done
  [ $nok -gt 0 ] || { echo "$me: all_reduce_perf failed in all $nrun modes: nothing to compare with (logs in $logs)" >&2; exit 1; }
  lfiles=()
  while IFS= read -r f; do lfiles+=("$f"); done < <(find "$logs" -maxdepth 1 -type f -name 'all_reduce_perf_*.log' | LC_ALL=C sort)
  logs_var="nccl-tests' logs"
  if [ -n "${pd:-}" ]; then # before arbench runs: the GPU model and dtype of both sides
    lg=$("${AWK[@]}" -v describe=logs -v logs="$logs" -v logs_var="$logs_var" "${lfiles[@]}") || exit 1
    lm=${lg#*|}; lm=${lm%|*} pm=${pd#*|}; pm=${pm%|*}
    [ -z "$lm" ] || [ "$lm" = "$pm" ] || refuse "$logs_var" "$logs" "nccl-tests ran on $lm, arbench here on $pm"
  fi
fi

# ---- 3. arbench ----
arb_rc=0
if [ -z "$run" ]; then
  run=$out
  conf=$(mktemp)
  hb="--set timing.host_batches=$samples"
  {
    echo "# written by tools/compare_nccl_tests.sh: every algorithm on every transport, nccl-tests' sizes,"
    echo "# nccl in each registration under host and graph timing (nccl-tests -R 0/1/2, without and with -G)"
    echo "--gpus $list --algo $algos --transport all --pipeline 0 $sizes $iters -T 30"
    echo "[scenario host]"; echo "--set timing.mode=host $hb"
    echo "[scenario events]"
    echo "[scenario graph]"; echo "--set timing.mode=graph $hb"
    # nccl as nccl-tests runs it: each AllReduce of a batch on the next slice of the buffer,
    # and in graph timing each graph launched without an upload first (the scenarios above run
    # it on one buffer, uploaded, as the schedules run)
    for m in host graph; do
      as="--set timing.mode=$m $hb --set nccl.rotate=on"
      [ $m = graph ] && as="$as --set timing.graph_upload=off"
      echo "[scenario $m-rotate]"; echo "--algo nccl $as"
      for r in registered symmetric; do
        echo "[scenario $m-$r]"; echo "--algo nccl $as --set nccl.registration=$r"
      done
    done
  } >"$conf"
  est=$("$A" run --config "$conf" --dry-run 2>&1 | sed -n 's/^plan: \([^;]*\);.*/\1/p')
  left=$((deadline - (SECONDS - t0) - 15))
  [ "$left" -gt 30 ] || left=30
  echo "  arbench run: $est, at most $left s"
  mkdir -p "$out/nccl-tests"
  timeout -k 10 "$left" "$A" run --config "$conf" --out "$out" --force >"$out/nccl-tests/arbench.log" 2>&1
  arb_rc=$?
  rm -f "$conf"
  echo "  arbench run: exit $arb_rc ($((SECONDS - t0)) s)"
  [ -s "$out/results.csv" ] ||
    { echo "$me: arbench's run wrote no rows (exit $arb_rc): $(tail -n 1 "$out/nccl-tests/arbench.log")" >&2; exit 1; }
fi

# ---- 4. compare.md ----
[ -s "$tmpmd" ] || compare || exit
if [ $arb_rc -ne 0 ]; then # said first, where a reader looks
  why="exit $arb_rc"
  [ $arb_rc -eq 124 ] || [ $arb_rc -eq 143 ] && why="stopped at the deadline (DEADLINE $deadline s, exit $arb_rc): its rows so far"
  [ $arb_rc -eq 1 ] && why="exit 1: a wrong result or a failed call (nccl-tests/arbench.log)"
  awk -v w="**arbench's run did not end well ($why): compare.md sets what it wrote beside nccl-tests.**" \
    'NR == 2 { print ""; print w } 1' "$tmpmd" >"$tmpmd.2" && mv "$tmpmd.2" "$tmpmd"
fi
mv "$tmpmd" "$out/compare.md"
echo "$me: $out/compare.md ($((SECONDS - t0)) s)"
# the run's report.html, written when arbench's run ended, now with compare.md in it
[ "$run" = "$out" ] && [ -s "$out/summary.md" ] && bash plots/report.sh "$out" >/dev/null
grep '^- [a-z]* timing' "$out/compare.md"
if [ $arb_rc -ne 0 ]; then echo "$me: arbench's run: exit $arb_rc" >&2; exit 1; fi
exit 0
