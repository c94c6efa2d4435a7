# sim_linker: what links the harness objects: ${MPICC:-mpicc} for a build of `make MPI=1` (it
# has procs_mpi.o), else ${CC:-cc}
sim_linker() {
  if [ -e "$B/obj/harness/procs_mpi.o" ]; then echo "${MPICC:-mpicc}"; else echo "${CC:-cc}"; fi
}

# The fake GPU's files, one concern each (fake_gpu.c's opening comment says which), made into
# one object by sim_gpu_object
SIM_GPU_SRC=(tests/sim/fake_gpu.c tests/sim/fake_streams.c tests/sim/fake_mem.c
  tests/sim/fake_kernels.c tests/sim/fake_hooks.c tests/sim/fake_load.c tests/sim/fake_nccl_comm.c
  tests/sim/fake_transports.c)

# sim_gpu_object OBJ DEPS FLAGS...: compiles each of SIM_GPU_SRC with FLAGS (beside OBJ, under
# names of their own) and links them into the one object OBJ (cc -r), which the suites link as
# they would one file's; with DEPS not empty, the files' dependency lists, all in the one file
# DEPS. Status 1 when any step fails.
sim_gpu_object() {
  local obj=$1 deps=$2 f n st=0 o=() md=()
  shift 2
  for f in "${SIM_GPU_SRC[@]}"; do
    n=${f##*/} n=${n%.c}
    [ -n "$deps" ] && md=(-MMD -MF "$obj.$n.d")
    ${CC:-cc} "$@" ${md[@]+"${md[@]}"} -c "$f" -o "$obj.$n.o" || { st=1; break; }
    o+=("$obj.$n.o")
  done
  [ "$st" = 0 ] && ${CC:-cc} -r -nostdlib -o "$obj" "${o[@]}" || st=1
  [ "$st" = 0 ] && [ -n "$deps" ] && { cat "$obj".*.d >"$deps" || st=1; }
  rm -f "$obj".*.o "$obj".*.d
  return "$st"
}

# Sourced by the simulator suites: sim_build NAME sets S to $B/tests/arbench-sim-NAME, the
# harness objects `make` made linked with the fake GPU (sim_gpu_object's fake_gpu.o: stream
# clocks instead of GPUs) and tests/sim/fake_nccl.c (NCCL's memory and registration calls),
# compiled against the headers the harness was built with (found in its dependency files), and
# SIM_INC to those headers' -I flags (an array); without a build it prints the failure line and
# ends the suite.
# The suites share one build, $B/tests/arbench-sim: made under a lock (suites start at once)
# when a file it was built from (or this one) is newer than it or the compiler, flags or
# objects differ, and put in place by a rename (a suite's runs keep the file they opened);
# arbench-sim-NAME is a link to it, as fake_gpu_NAME.o is to its object.
sim_build() {
  local dep=$B/obj/harness/bench.d cu nc
  S=$B/tests/arbench-sim-$1
  cu=$(grep -o '[^ ]*/cuda_runtime\.h' "$dep" 2>/dev/null | head -n 1)
  nc=$(grep -o '[^ ]*/nccl\.h' "$dep" 2>/dev/null | head -n 1)
  SIM_INC=(-I"$(dirname "$cu")" -I"$(dirname "$nc")")
  mkdir -p "$B/tests"
  if [ -z "$cu" ] || [ -z "$nc" ] ||
     ! { sim_shared && ln -f "$B/tests/arbench-sim" "$S" && ln -f "$B/tests/fake_gpu.o" "$B/tests/fake_gpu_$1.o"; } \
       9>"$B/tests/arbench-sim.lock"; then
    echo "FAIL: cannot build the simulator (run make first)"
    echo "0 passed, 1 failed"
    exit 1
  fi
}

# sim_shared: $B/tests/arbench-sim up to date, holding the lock on descriptor 9 (where flock
# is missing, suites that build at once may each build it: the renames keep every copy whole)
sim_shared() {
  local base=$B/tests/arbench-sim link how f fresh=1 cf
  link=$(sim_linker)
  command -v flock >/dev/null 2>&1 && { flock 9 || return 1; }
  cf=(-O1 -g -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE ${SAN_FLAGS:-} "${SIM_INC[@]}")
  how="${CC:-cc} $link ${cf[*]} / $(cd "$B/obj/harness" && echo *.o)"
  if [ -x "$base" ] && [ -f "$base.deps" ] && [ "$(cat "$base.how" 2>/dev/null)" = "$how" ]; then
    for f in $(cat "$base.deps") "$B"/obj/harness/*.o "$B/libarcore.a" tests/sim/build.sh; do
      [ -e "$f" ] && [ ! "$f" -nt "$base" ] || { fresh=0; break; }
    done
    [ "$fresh" = 1 ] && return 0
  fi
  # each file under a name of its own, renamed into place when whole
  sim_gpu_object "$B/tests/fake_gpu.o.$$" "$base.gpu.d.$$" "${cf[@]}" -Isrc -Iharness &&
    ${CC:-cc} "${cf[@]}" -MMD -MF "$base.nccl.d.$$" -c tests/sim/fake_nccl.c -o "$B/tests/fake_nccl.o.$$" &&
    $link -o "$base.$$" "$B"/obj/harness/*.o "$B/tests/fake_gpu.o.$$" "$B/tests/fake_nccl.o.$$" "$B/libarcore.a" \
      -lpthread -lm -ldl ${SAN_FLAGS:-} || { rm -f "$base.$$" "$base".*.$$ "$B"/tests/fake_*.o.$$; return 1; }
  # the sources and headers it was built from (the compiler's dependency lists)
  sed 's/^[^:]*://; s/\\$//' "$base.gpu.d.$$" "$base.nccl.d.$$" | tr ' ' '\n' | grep . | sort -u >"$base.deps.$$"
  echo "$how" >"$base.how.$$"
  rm -f "$base".*.d.$$
  mv -f "$B/tests/fake_gpu.o.$$" "$B/tests/fake_gpu.o" && mv -f "$B/tests/fake_nccl.o.$$" "$B/tests/fake_nccl.o" &&
    mv -f "$base.deps.$$" "$base.deps" && mv -f "$base.how.$$" "$base.how" && mv -f "$base.$$" "$base"
}

# cupti_build NAME: builds the stand-in CUPTI (tests/sim/fake_cupti.c) against the cupti.h the
# harness was built with as $B/tests/libfakecupti-NAME.so (one per suite: suites run at once,
# and one rewriting a library that another's runs are opening made those runs' CUPTI fail to
# load) and sets F to it; without one it prints the failure line and ends the suite.
cupti_build() {
  F=$PWD/$B/tests/libfakecupti-$1.so
  local inc
  inc=$(grep -o '[^ ]*/cupti\.h' "$B/obj/harness/profile_cupti.d" 2>/dev/null | head -n 1)
  if [ -z "$inc" ] || ! ${CC:-cc} -shared -fPIC -O1 -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE \
       -I"$(dirname "$inc")" tests/sim/fake_cupti.c -o "$F"; then
    echo "FAIL: cannot build tests/sim/fake_cupti.c (run make first)"
    echo "0 passed, 1 failed"
    exit 1
  fi
}
