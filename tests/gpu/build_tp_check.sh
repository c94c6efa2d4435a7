#!/usr/bin/env bash
# Builds build-dir/tp_check from tests/gpu/tp_check.c and the transports' objects:
#   bash tests/gpu/build_tp_check.sh [BUILD_DIR]   (default build)
set -eu
cd "$(dirname "$0")/../.."
B=${1:-build}
objs=""
# every CUDA object but the harness's own (the data check, check.cu; the compute loads,
# load*.cu, which need cuBLASLt): a new transport's file comes along
for f in src/cuda/*.cu; do
  case $f in src/cuda/check.cu | src/cuda/load*.cu) ;; *) objs="$objs $B/obj/${f%.cu}.o" ;; esac
done
# only what tp_check links, so a half-edited harness elsewhere does not stop it
make -s B="$B" -j2 $objs "$B/libarcore.a" >/dev/null
CUDA_HOME=${CUDA_HOME:-$(ls -d /usr/local/cuda /usr/local/cuda-13.0 2>/dev/null | head -n1)}
NCCL_LIB=$(for d in "$CUDA_HOME/lib64" /usr/lib/x86_64-linux-gnu; do ls "$d"/libnccl.so* >/dev/null 2>&1 && echo "$d" && break; done)
NCCL_INC=$(for d in "$CUDA_HOME/include" /usr/include; do [ -f "$d/nccl.h" ] && echo "$d" && break; done)
# built already (make test runs this every time): nothing it is made from is newer than it
# (tests/gpu/ with this script, src/'s headers, the objects it links) and the compiler and paths
# are the same
how="${CC:-gcc} $CUDA_HOME $NCCL_INC $NCCL_LIB"
if [ -x "$B/tp_check" ] && [ "$(cat "$B/tp_check.how" 2>/dev/null)" = "$how" ] &&
   newer=$(find tests/gpu src $objs "$B/libarcore.a" -newer "$B/tp_check" \
             \( -name '*.[cho]' -o -name '*.sh' -o -name '*.a' \) -print -quit) && [ -z "$newer" ]; then
  echo "up to date: $B/tp_check"
  exit 0
fi
${CC:-gcc} -O2 -g -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -Isrc -Isrc/cuda \
  -I"$CUDA_HOME/include" -I"$NCCL_INC" -o "$B/tp_check" tests/gpu/tp_check*.c $objs "$B/libarcore.a" \
  -L"$CUDA_HOME/lib64" -L"$NCCL_LIB" -Wl,-rpath,"$NCCL_LIB" -lnccl -lcudart_static -lpthread -ldl -lrt -lm -lstdc++
echo "$how" >"$B/tp_check.how"
echo "built $B/tp_check"
