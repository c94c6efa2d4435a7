# Shared by the shell test suites: run from the repository root with A = the binary under test,
# count checks, and close with "N passed, N failed". Source it: . "$(dirname "$0")/lib.sh"
set -u
cd "$(dirname "$0")/.."
A=${B:-build}/arbench
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); }
# long: true under `make test-long` (TEST_LONG=1), which adds each suite's slow checks of parts
# that rarely change to what `make test` runs
long() { [ "${TEST_LONG:-0}" = 1 ]; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect CODE PATTERN CMD...: exit status CODE and (stdout+stderr) matching PATTERN
expect() {
  local code=$1 pat=$2; shift 2
  local out rc
  out=$("$@" 2>&1); rc=$?
  if [ "$rc" -ne "$code" ]; then bad "$* -> exit $rc, want $code: $out"; return; fi
  if ! printf '%s' "$out" | grep -qE -- "$pat"; then bad "$* -> output lacks /$pat/: $out"; return; fi
  ok
}

# bad_input PATTERN [run] ARGS...: `arbench [run] --out DIR ARGS` (ARGS' own --out, when they
# name one: a flag is given once) exits 2 with one stderr line matching PATTERN, nothing on
# stdout, no run folder
bad_input() {
  local pat=$1; shift
  local out err rc a own=(--out "$tmp/run")
  for a in "$@"; do case $a in --out | --out=* | -o | -o?*) own=() ;; esac; done
  if [ "$1" = run ]; then shift; set -- run ${own[@]+"${own[@]}"} "$@"
  else set -- ${own[@]+"${own[@]}"} "$@"; fi
  out=$("$A" "$@" 2>"$tmp/err"); rc=$?
  err=$(cat "$tmp/err")
  if [ "$rc" -ne 2 ]; then bad "$* -> exit $rc, want 2 ($err)"; return; fi
  if [ -n "$out" ]; then bad "$* -> printed on stdout: $out"; return; fi
  if [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ]; then bad "$* -> want one line: $err"; return; fi
  if ! printf '%s' "$err" | grep -qE -- "$pat"; then bad "$* -> '$err' lacks /$pat/"; return; fi
  if [ -e "$tmp/run" ]; then bad "$* -> wrote $tmp/run"; rm -rf "$tmp/run"; return; fi
  ok
}

# col FILE NAME: the column number of NAME in FILE's CSV header
col() { head -n 1 "$1" | tr ',' '\n' | grep -nx "$2" | cut -d: -f1; }
# field FILE ALGO TRANSPORT BYTES NAME: that row's field in results.csv FILE (first match)
field() {
  awk -F, -v a="$2" -v t="$3" -v b="$4" -v c="$(col "$1" algorithm)" -v tc="$(col "$1" transport)" \
      -v bc="$(col "$1" bytes)" -v fc="$(col "$1" "$5")" \
      'NR > 1 && $c == a && $tc == t && $bc == b { print $fc; exit }' "$1"
}

# finish: the closing line, and the suite's exit status
finish() {
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ]
}
