# Sourced by the simulator suites: sim_build NAME builds $B/tests/arbench-sim-NAME from the
# harness objects `make` made, linked with tests/sim/fake_gpu.c (stream clocks instead of GPUs),
# compiled against the headers the harness was built with (found in its dependency files), and
# sets S to it; without a build it prints the failure line and ends the suite.
sim_build() {
  local dep=$B/obj/harness/bench.d cu nc
  S=$B/tests/arbench-sim-$1
  cu=$(grep -o '[^ ]*/cuda_runtime\.h' "$dep" 2>/dev/null | head -n 1)
  nc=$(grep -o '[^ ]*/nccl\.h' "$dep" 2>/dev/null | head -n 1)
  mkdir -p "$B/tests"
  if [ -z "$cu" ] || [ -z "$nc" ] ||
     ! ${CC:-cc} -O1 -g -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -Isrc -Iharness \
         -I"$(dirname "$cu")" -I"$(dirname "$nc")" -c tests/sim/fake_gpu.c -o "$B/tests/fake_gpu_$1.o" ||
     ! ${CC:-cc} -o "$S" "$B"/obj/harness/*.o "$B/tests/fake_gpu_$1.o" "$B/libarcore.a" \
         -lpthread -lm -ldl; then
    echo "FAIL: cannot build the simulator (run make first)"
    echo "0 passed, 1 failed"
    exit 1
  fi
}
