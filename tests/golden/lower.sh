#!/usr/bin/env bash
# tests/golden/lower.sh check|write [BUILD_DIR [GOLDEN_DIR]]: lowers every configuration of
# tests/golden/programs.list with `arbench lower` and compares the programs with
# tests/golden/programs/NAME.txt.gz (check: one line per configuration, then "N passed, N
# failed"), or writes them anew (write: after a change to the lowering that is meant, with
# every difference explained in its commit). No GPU needed; the tuning variables of the
# environment are cleared, so that the programs are the defaults'.
set -u
cd "$(dirname "$0")/../.."
mode=${1:-check}
A=${2:-build}/arbench
list=tests/golden/programs.list
dir=${3:-tests/golden/programs}
for v in $(env | grep -oE '^AR_[A-Z_]+' | grep -vE '^AR_(DEBUG)$'); do unset "$v"; done
pass=0 fail=0
while read -r name args; do
  case $name in '' | '#'*) continue ;; esac
  out=$(mktemp)
  # shellcheck disable=SC2086 # the list's arguments are words
  if ! "$A" lower $args >"$out" 2>&1; then
    echo "FAIL $name: arbench lower $args exited $?: $(tail -n 1 "$out")"; fail=$((fail + 1))
  elif [ "$mode" = write ]; then
    gzip -9 -n -c "$out" >"$dir/$name.txt.gz"; echo "wrote $dir/$name.txt.gz"; pass=$((pass + 1))
  elif [ ! -s "$dir/$name.txt.gz" ]; then
    echo "FAIL $name: no golden $dir/$name.txt.gz (tests/golden/lower.sh write)"; fail=$((fail + 1))
  elif d=$(zcat "$dir/$name.txt.gz" | diff - "$out" | head -n 12) && [ -z "$d" ]; then
    pass=$((pass + 1))
  else
    echo "FAIL $name: the programs differ from $dir/$name.txt.gz (< golden, > now):"
    printf '%s\n' "$d" | sed 's/^/  /'
    fail=$((fail + 1))
  fi
  rm -f "$out"
done <"$list"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
