# Sourced by the device scripts (tools/device/*.sh): the time budget, one command at a time
# with its log and exit status, OpenMPI carried from the CPU machine, nccl-tests built there.
# The caller sets out (the output folder) and deadline (seconds for the whole script) and
# calls device_start, or has device_script do all three.

left() { echo $((deadline - SECONDS)); }

# stamp MSG: MSG after the seconds since the script started
stamp() { echo "[$SECONDS s] $*"; }

# rows_said FILE: a results.csv's rows by status, its wrong elements and its loads found wrong
# (--compute), columns found by their names
rows_said() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { s[$c["status"]]++; w += $c["wrong"]; if ("compute_wrong" in c) cw += $c["compute_wrong"] }
    END { for (k in s) printf "%s %d, ", k, s[k]; printf "wrong %d, compute_wrong %d", w, cw }' "$1"
}

# gputest LOG RUNS: make gputest's suite (tests/gpu/run.sh) with its run folders in RUNS, its
# output in LOG; says its exit status and closing line
gputest() {
  GPUTEST_OUT=$2 B=build bash tests/gpu/run.sh >"$1" 2>&1
  stamp "gputest: exit $?, $(tail -n 1 "$1")"
}

# run NAME TIMEOUT CMD...: CMD's output in $out/NAME.log, under TIMEOUT s (at most what is
# left), its exit status and duration said; returns the status
run() {
  local name=$1 t=$2; shift 2
  [ "$t" -gt "$(left)" ] && t=$(left)
  [ "$t" -le 5 ] && { echo "   $name: no time left"; return 1; }
  local t1=$SECONDS
  timeout -k 5 "$t" "$@" >"$out/$name.log" 2>&1
  local rc=$?
  echo "   $name: exit $rc after $((SECONDS - t1)) s"
  return $rc
}

# ompi_env: OpenMPI 4.1 from .carry/ompi.tar.xz (the GPU image has no MPI: the files of
# Debian's openmpi-bin, libopenmpi-dev and their libraries), unpacked in /tmp/ompi and
# relocated there; sets mpirun (one host, shared memory, no network transports looked for)
# and MPICC
ompi_env() {
  local o=/tmp/ompi
  [ -x $o/usr/bin/orterun ] || { mkdir -p $o && tar xJf .carry/ompi.tar.xz -C $o; } || return 1
  export OPAL_PREFIX=$o/usr PATH=$o/usr/bin:$PATH
  export PMIX_MCA_pcompress_base_silence_warning=1 # the GPU image's own PMIx plugins do not load
  export LD_LIBRARY_PATH=$o/usr/lib/x86_64-linux-gnu:$o/usr/lib/x86_64-linux-gnu/openmpi/lib:$o/lib/x86_64-linux-gnu
  MPICC=$o/usr/bin/mpicc.openmpi
  mpirun="orterun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader \
    --mca btl_vader_single_copy_mechanism none --mca pml ob1 --mca mtl ^ofi,psm,psm2 --mca osc ^ucx"
}

# build_nccl_tests DIR LOG: nccl-tests' sources in DIR built for sm_90 without MPI
build_nccl_tests() {
  make -C "$1" MPI=0 CUDA_HOME=/usr/local/cuda NCCL_HOME=/usr -j16 \
    NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" >"$2" 2>&1
}

# chk NAME TIMEOUT CMD...: run, then the rows of $out/NAME/results.csv by status and the wrong
# elements they counted
chk() {
  run "$@"
  local f=$out/$1/results.csv
  echo "     $(awk -F, 'NR>1 {s[$31]++; w+=$30} END {for (k in s) printf "%s %d, ", k, s[k]; printf "wrong elements %d", w}' "$f" 2>/dev/null)"
}

# build_dev [MAKE ARGS...]: arbench in build-dev (its log in $out/build.log), or the log's
# tail and the script's end
build_dev() {
  make B=build-dev -j32 "$@" >"$out/build.log" 2>&1 || { tail "$out/build.log"; exit 1; }
}

# gnuplot_env: the GPU image has no gnuplot: the one carried from the CPU machine
# (.carry/gp.tar.xz: gnuplot-nox, its libraries but libc's, its share folder, two fonts),
# unpacked in /tmp/gp with its libraries kept to itself, first on PATH
gnuplot_env() {
  command -v gnuplot >/dev/null && return 0
  [ -s .carry/gp.tar.xz ] || { echo "gnuplot: none here and none carried"; return 1; }
  mkdir -p /tmp/gp && tar xJf .carry/gp.tar.xz -C /tmp/gp
  printf '#!/bin/sh\nLD_LIBRARY_PATH=/tmp/gp/lib FONTCONFIG_FILE=/tmp/gp/fonts.conf GNUPLOT_LIB=/tmp/gp/share/gnuplot/5.4 exec /tmp/gp/bin/gnuplot "$@"\n' >/tmp/gp/gnuplot
  chmod +x /tmp/gp/gnuplot
  export PATH=/tmp/gp:$PATH
  gnuplot -e 'set terminal pngcairo; set output "/tmp/gp/t.png"; plot sin(x)' && echo "gnuplot: carried, works" || echo "gnuplot: carried, FAILS"
}

# device_start [mpi]: what every measuring script does first: NCCL_NVLS_ENABLE=0, the GPUs and
# their links in $out/gpu.txt (the first lines said), with mpi OpenMPI (ompi_env, mpirun) and an
# arbench that runs under it, built in build-dev; A is that arbench
device_start() {
  export NCCL_NVLS_ENABLE=0
  { nvidia-smi -L; nvidia-smi topo -m; } >"$out/gpu.txt" 2>&1; head -4 "$out/gpu.txt"
  if [ "${1:-}" = mpi ]; then
    ompi_env || exit 1
    build_dev MPI=1 MPICC=$MPICC
  else
    build_dev
  fi
  A=build-dev/arbench
}

# device_script SECONDS NAME [mpi]: a measuring script's start: deadline $DEADLINE (default
# SECONDS), output folder $OUT (default /tmp/NAME), then device_start [mpi]
device_script() {
  deadline=${DEADLINE:-$1}
  out=${OUT:-/tmp/$2}
  mkdir -p "$out"
  device_start "${3:-}"
}
