#!/usr/bin/env bash
# The prerequisites README names, checked where they are needed:
# - the Makefile: a missing nvcc, NCCL header, python3 (make test) or gnuplot (make plots) stops
#   make with one `missing:` line naming it and how to install it; `make prerequisites` checks
#   all four; make runs a job per CPU unless told otherwise;
# - .ci/run, beside stub programs (apt-get, sudo, id, make): installs Debian's packages only as
#   root or through sudo, takes Debian's chromium or Ubuntu's chromium-browser, stops with one
#   line where make's check finds the CUDA toolkit or NCCL missing, keeps its logs in a private
#   temporary folder, runs make -j2 test, make test-long and make -j2 test-asan and sums them in
#   its last line, exit 1 on any failure.
. "$(dirname "$0")/lib.sh"

# mk ARGS...: make -n (nothing built) with ARGS; sets out (stdout and stderr) and rc
mk() { out=$(make --no-print-directory -n "$@" 2>&1); rc=$?; }
# one_missing WHAT PATTERN: the last make stopped, exit 2, one line "missing: ..." naming WHAT
one_missing() {
  if [ "$rc" -ne 2 ]; then bad "$1: make exit $rc, want 2: $out"
  elif [ "$(printf '%s\n' "$out" | wc -l)" -ne 1 ]; then bad "$1: want one line: $out"
  elif ! printf '%s' "$out" | grep -qE -- "\*\*\* missing: $2"; then bad "$1: '$out' lacks /missing: $2/"
  else ok; fi
}
mk NVCC=/nope
one_missing "no nvcc" "nvcc \(the CUDA toolkit 12 or 13: apt-get install cuda-toolkit-13-0 .*CUDA_HOME=DIR\)\.  Stop\.$"
mk NCCL_HOME="$tmp/nowhere" test
one_missing "no nccl.h" "NCCL's nccl.h \(apt-get install libnccl-dev .*NCCL_HOME=DIR\)\.  Stop\.$"
mk NVCC=/nope NCCL_HOME="$tmp/nowhere" run
one_missing "neither" "nvcc .*; NCCL's nccl.h "
mk NVCC=/nope clean
[ "$rc" -eq 0 ] && ok || bad "make clean needs no nvcc: exit $rc: $out"
# python3 and gnuplot: a PATH of the tools the Makefile's own lines use, without them
mkdir -p "$tmp/bin"
for t in sh bash make nproc git cat sed grep awk sort sha256sum find dirname basename tr uname xargs; do
  p=$(command -v "$t") && ln -s "$p" "$tmp/bin/$t"
done
out=$(PATH=$tmp/bin make --no-print-directory -n plots RUN=x 2>&1); rc=$?
one_missing "make plots without gnuplot" "gnuplot \(apt-get install gnuplot-nox\)\.  Stop\.$"
out=$(PATH=$tmp/bin make --no-print-directory -n test 2>&1); rc=$?
one_missing "make test without python3" "python3 \(apt-get install python3\)"
out=$(PATH=$tmp/bin make --no-print-directory -n all 2>&1); rc=$?
[ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -q '^Makefile:[0-9]*: not found: gnuplot (apt-get install gnuplot-nox): runs draw no pictures; python3 (apt-get install python3): make test needs it$' &&
  ok || bad "the build warns (and goes on) without gnuplot and python3: exit $rc: $out"
expect 0 '^prerequisites: nvcc \(.*\), NCCL \(.*/include/nccl\.h\), python3, gnuplot: all there$' make --no-print-directory prerequisites
# a job per CPU by default; the command line's -j wins
n=$(nproc 2>/dev/null || echo 2)
make -pn clean 2>/dev/null | grep -qE "^MAKEFLAGS = .* -j$n( |$)" && ok || bad "make is not parallel by default: $(make -pn clean 2>/dev/null | grep '^MAKEFLAGS')"
make -j1 -pn clean 2>/dev/null | grep -qE "^MAKEFLAGS = .* -j1( |$)" && ok || bad "make -j1 is not one job: $(make -j1 -pn clean 2>/dev/null | grep '^MAKEFLAGS')"

# ---- .ci/run beside stubs ----
# a copy of .ci/run in a scratch tree; PATH holds the basic tools and the stubs only: apt-get
# (its calls in $tmp/calls; `install PKG` puts PKG's command on PATH unless PKG is in $NOPKG),
# sudo (runs the rest, recorded) when $SUDO is 1, id (uid $UID_IS), make (its goals recorded;
# `prerequisites` fails with $MISSING, each test target prints its line from $LINE_<target>)
mkdir -p "$tmp/ci/.ci" "$tmp/cibin" "$tmp/citmp"
cp .ci/run "$tmp/ci/.ci/run"
for t in bash sh env mktemp rm grep awk tail head tee cat dirname sed tr mkdir ln chmod sleep; do
  p=$(command -v "$t") && ln -s "$p" "$tmp/cibin/$t"
done
cat >"$tmp/cibin/apt-get" <<'EOF'
#!/bin/bash
echo "apt-get $*" >>"$CALLS"
[ "$1" = install ] || exit 0
for p in "$@"; do
  case $p in -*|install) continue ;; esac
  case " $NOPKG " in *" $p "*) echo "E: Unable to locate package $p"; exit 100 ;; esac
  case $p in gnuplot-nox) c=gnuplot ;; openmpi-bin) c=mpicc ;; libopenmpi-dev) continue ;; *) c=$p ;; esac
  printf '#!/bin/sh\n' >"$STUBS/$c"; chmod +x "$STUBS/$c"
done
EOF
cat >"$tmp/cibin/sudo" <<'EOF'
#!/bin/bash
[ "$SUDO" = 1 ] || { echo "sudo: a password is required" >&2; exit 1; }
[ "$1" = -n ] && shift
echo "sudo $*" >>"$CALLS"
"$@"
EOF
cat >"$tmp/cibin/id" <<'EOF'
#!/bin/sh
echo "$UID_IS"
EOF
cat >"$tmp/cibin/make" <<'EOF'
#!/bin/bash
echo "make $*" >>"$CALLS"
case " $* " in
  *" prerequisites "*) [ -z "$MISSING" ] || { echo "Makefile:31: *** missing: $MISSING.  Stop." >&2; exit 2; }
                       echo "prerequisites: all there" ;;
  *" test "*) echo "$LINE_test"; [ "${LINE_test#*, 0 failed}" != "$LINE_test" ] || exit 2 ;;
  *" test-long "*) echo "$LINE_long" ;;
  *" test-asan "*) echo "$LINE_asan" ;;
esac
EOF
chmod +x "$tmp/cibin"/*
# ci NAME: runs the copy with the stubs; sets out, rc, calls (one line each) and last (out's last line)
ci() {
  rm -rf "$tmp/stubs" "$tmp/calls"; mkdir -p "$tmp/stubs"; : >"$tmp/calls"
  out=$(cd "$tmp/ci" && PATH="$tmp/stubs:$tmp/cibin" TMPDIR="$tmp/citmp" CALLS="$tmp/calls" STUBS="$tmp/stubs" \
        bash .ci/run 2>&1); rc=$?
  calls=$(cat "$tmp/calls"); last=$(printf '%s\n' "$out" | tail -n 1)
}
export UID_IS=0 SUDO=0 NOPKG= MISSING= LINE_test="10 passed, 0 failed, 2 skipped" LINE_long="3 passed, 0 failed" \
       LINE_asan="5 passed, 0 failed, 1 skipped"
# root on Ubuntu (no package named chromium): everything installed, chromium-browser taken
NOPKG=chromium ci
[ "$rc" -eq 0 ] && [ "$last" = "18 passed, 0 failed, 3 skipped" ] && ok || bad "ci as root: exit $rc, last '$last': $out"
for p in gnuplot-nox python3 "openmpi-bin libopenmpi-dev" chromium-browser; do
  printf '%s\n' "$calls" | grep -qxF "apt-get install -y -qq $p" && ok || bad "ci as root did not install $p: $calls"
done
[ "$(printf '%s\n' "$calls" | grep -c '^apt-get update')" = 1 ] && ok || bad "ci: apt-get update once: $calls"
[ "$(printf '%s\n' "$calls" | grep '^make' | tr '\n' '|')" = "make --no-print-directory prerequisites|make -j2 test|make test-long|make -j2 test-asan|" ] &&
  ok || bad "ci: the make calls: $calls"
# its logs lie in a private folder of TMPDIR, gone at the end
[ -z "$(ls -A "$tmp/citmp")" ] && ok || bad "ci left files in TMPDIR: $(ls -A "$tmp/citmp")"
# Debian: chromium itself
ci
printf '%s\n' "$calls" | grep -qxF "apt-get install -y -qq chromium" && ! printf '%s\n' "$calls" | grep -q chromium-browser && ok ||
  bad "ci on Debian: chromium: $calls"
# not root, no sudo: apt-get never runs; what is missing is said, and make's check stops it
UID_IS=1000 MISSING="gnuplot (apt-get install gnuplot-nox)" ci
[ "$rc" -eq 1 ] && [ "$last" = "0 passed, 1 failed, 0 skipped" ] && ok || bad "ci without root: exit $rc, last '$last'"
! printf '%s\n' "$calls" | grep -q '^apt-get' && ok || bad "ci without root or sudo ran apt-get: $calls"
printf '%s\n' "$out" | grep -qxF "ci: no gnuplot (gnuplot-nox): the picture suites fail with CI=true; ci: not root and no sudo: cannot install gnuplot-nox" &&
  printf '%s\n' "$out" | grep -qxF "ci: missing: gnuplot (apt-get install gnuplot-nox)" && ok || bad "ci without root: what it says: $out"
! printf '%s\n' "$calls" | grep -q 'make.* test' && ok || bad "ci ran the tests without prerequisites: $calls"
# not root, sudo without a password: apt-get through sudo
UID_IS=1000 SUDO=1 ci
[ "$rc" -eq 0 ] && printf '%s\n' "$calls" | grep -qxF "sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gnuplot-nox" && ok ||
  bad "ci with sudo: exit $rc: $calls"
# no CUDA toolkit: one line naming it, the closing line, exit 1
MISSING="nvcc (the CUDA toolkit 12 or 13: apt-get install cuda-toolkit-13-0 from NVIDIA's CUDA repository, or make CUDA_HOME=DIR)" ci
[ "$rc" -eq 1 ] && [ "$last" = "0 passed, 1 failed, 0 skipped" ] &&
  printf '%s\n' "$out" | grep -qxF "ci: missing: nvcc (the CUDA toolkit 12 or 13: apt-get install cuda-toolkit-13-0 from NVIDIA's CUDA repository, or make CUDA_HOME=DIR)" &&
  ok || bad "ci without nvcc: exit $rc: $out"
# a failed suite: counted, exit 1
LINE_test="9 passed, 1 failed, 2 skipped" ci
[ "$rc" -eq 1 ] && [ "$last" = "17 passed, 1 failed, 3 skipped" ] && ok || bad "ci with a failure: exit $rc, last '$last'"
finish
