# Shared by the shell test suites: run from the repository root with A = the binary under test,
# count checks, and close with "N passed, N failed". Source it: . "$(dirname "$0")/lib.sh"
set -u
cd "$(dirname "$0")/.."
A=${B:-build}/arbench
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); }
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

# col FILE NAME: the column number of NAME in FILE's CSV header
col() { head -n 1 "$1" | tr ',' '\n' | grep -nx "$2" | cut -d: -f1; }

# finish: the closing line, and the suite's exit status
finish() {
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ]
}
