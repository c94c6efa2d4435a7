# sim_linker: what links the harness objects: ${MPICC:-mpicc} for a build of `make MPI=1` (it
# has procs_mpi.o), else ${CC:-cc}
sim_linker() {
  if [ -e "$B/obj/harness/procs_mpi.o" ]; then echo "${MPICC:-mpicc}"; else echo "${CC:-cc}"; fi
}

# Sourced by the simulator suites: sim_build NAME builds $B/tests/arbench-sim-NAME from the
# harness objects `make` made, linked with tests/sim/fake_gpu.c (stream clocks instead of GPUs)
# and tests/sim/fake_nccl.c (NCCL's memory and registration calls),
# compiled against the headers the harness was built with (found in its dependency files), and
# sets S to it and SIM_INC to those headers' -I flags (an array); without a build it prints the
# failure line and ends the suite.
sim_build() {
  local dep=$B/obj/harness/bench.d cu nc link
  link=$(sim_linker)
  S=$B/tests/arbench-sim-$1
  cu=$(grep -o '[^ ]*/cuda_runtime\.h' "$dep" 2>/dev/null | head -n 1)
  nc=$(grep -o '[^ ]*/nccl\.h' "$dep" 2>/dev/null | head -n 1)
  SIM_INC=(-I"$(dirname "$cu")" -I"$(dirname "$nc")")
  mkdir -p "$B/tests"
  if [ -z "$cu" ] || [ -z "$nc" ] ||
     ! ${CC:-cc} -O1 -g -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -Isrc -Iharness ${SAN_FLAGS:-} \
         "${SIM_INC[@]}" -c tests/sim/fake_gpu.c -o "$B/tests/fake_gpu_$1.o" ||
     ! ${CC:-cc} -O1 -g -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE ${SAN_FLAGS:-} \
         "${SIM_INC[@]}" -c tests/sim/fake_nccl.c -o "$B/tests/fake_nccl_$1.o" ||
     ! $link -o "$S" "$B"/obj/harness/*.o "$B/tests/fake_gpu_$1.o" "$B/tests/fake_nccl_$1.o" \
         "$B/libarcore.a" \
         -lpthread -lm -ldl ${SAN_FLAGS:-}; then
    echo "FAIL: cannot build the simulator (run make first)"
    echo "0 passed, 1 failed"
    exit 1
  fi
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
