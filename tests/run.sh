#!/usr/bin/env bash
# Runs the CPU test suites (all, or those named: `make test SUITES="schedules cli"`) and sums
# their "N passed, N failed" lines into one closing line, with the checks they skipped (a
# "skipped: N ..." line counts N, a "skipped: why" line 1). Suites run TEST_JOBS at a time
# (default: one more than the CPUs), the longest first, their outputs printed in order with each
# one's seconds, wall and CPU. `make test-long` runs some of them again with TEST_LONG=1 (Makefile).
set -u
cd "$(dirname "$0")/.."
# suites that run make themselves get a make of their own, not the outer one's jobserver
unset MAKEFLAGS MFLAGS MAKELEVEL
B=${B:-build}
suites=("$@")
if [ ${#suites[@]} -eq 0 ]; then
  suites=()
  for f in $B/tests/test_* tests/test_*.sh; do
    case "$f" in *.d) continue ;; esac
    [ -e "$f" ] || continue
    n=$(basename "$f"); n=${n#test_}; n=${n%.sh}
    suites+=("$n")
  done
fi
out_dir=$(mktemp -d "${TMPDIR:-/tmp}/arbench-suites.XXXXXX")
trap 'rm -rf "$out_dir"' EXIT
# python3 straight to the interpreter it runs (a version manager's shim, pyenv's a bash script,
# costs a tenth of a CPU second a call, and the suites make hundreds), without the site module
# (-S): the suites' scripts use the standard library only, and site's start-up (a
# distribution's .pth files) can cost more than a short script's run
py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
if [ -x "$py" ]; then
  mkdir "$out_dir/bin" && printf '#!/bin/sh\nexec %q -S "$@"\n' "$py" >"$out_dir/bin/python3" &&
    chmod +x "$out_dir/bin/python3" && export PATH=$out_dir/bin:$PATH
fi
# one suite more than the CPUs: mpi_sim spends most of its two minutes waiting (mpirun's
# starts, watchdog timeouts), and a CPU would idle behind it
jobs=${TEST_JOBS:-$(($(nproc 2>/dev/null || echo 2) + 1))}
# run_suite NAME: its output and exit status into $out_dir
run_suite() {
  local s=$1 cmd
  if [ -x "$B/tests/test_$s" ]; then cmd=("$B/tests/test_$s")
  elif [ -f "tests/test_$s.sh" ]; then cmd=(bash "tests/test_$s.sh")
  else echo "no such suite: $s" >"$out_dir/$s.out"; echo 127 >"$out_dir/$s.rc"; return; fi
  local t0=$SECONDS
  "${cmd[@]}" >"$out_dir/$s.out" 2>&1
  echo $? >"$out_dir/$s.rc"
  # wall seconds, then the CPU seconds of the suite's processes (`times`' second line: this
  # subshell's children, user and system; times in a $(...) would count that one's)
  times >"$out_dir/$s.times"
  echo "$((SECONDS - t0)) s, $(awk 'NR == 2 { gsub(/[ms]/, " "); printf "%.0f", 60 * $1 + $2 + 60 * $3 + $4 }' \
    "$out_dir/$s.times") s CPU" >"$out_dir/$s.secs"
}
# the longest suites start first (seconds on 2 cores, each line's "(N s)"), so that none of them
# is the lone tail of the run; outputs still print in the suites' order
slow="mpi_sim tp_sim report papers papers_flows plots model_pinned plot_points runs_sim timing_sim model sim"
start=()
for s in $slow; do
  for t in "${suites[@]}"; do [ "$t" = "$s" ] && start+=("$s"); done
done
for s in "${suites[@]}"; do
  case " $slow " in *" $s "*) ;; *) start+=("$s") ;; esac
done
for s in "${start[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
  run_suite "$s" &
done
wait
passed=0 failed=0 skipped=0
for s in "${suites[@]}"; do
  out=$(cat "$out_dir/$s.out"); rc=$(cat "$out_dir/$s.rc")
  if [ "$rc" -eq 127 ] && [ "$out" = "no such suite: $s" ]; then echo "$out"; failed=$((failed + 1)); continue; fi
  line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -n 1)
  printf '%s\n' "$out" | grep -v -E '^[0-9]+ passed, [0-9]+ failed$' | sed "s/^/[$s] /"
  if [ -z "$line" ]; then
    echo "[$s] no result line (exit $rc)"; failed=$((failed + 1)); continue
  fi
  p=${line%% passed*}; f=${line#*, }; f=${f%% failed*}
  k=$(printf '%s\n' "$out" | awk '/^skipped: / { n += ($2 ~ /^[0-9]+$/) ? $2 : 1 } END { print n + 0 }')
  [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
  echo "[$s] $line$([ "$k" -gt 0 ] && echo ", $k skipped") ($(cat "$out_dir/$s.secs"))"
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + k))
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
