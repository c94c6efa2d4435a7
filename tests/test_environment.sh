#!/usr/bin/env bash
# Nothing hides in an environment variable: every name the product's code reads with getenv
# (src/, harness/) is documented in docs/cli.md's "Environment" section, and the tuning variables
# that became settings are only warned about (src/settings.c's retired_env, read by
# ar_settings_retired alone); every name the simulated GPU reads is in its opening comment.
set -u
cd "$(dirname "$0")/.." || exit 1
pass=0 fail=0
section=$(awk '/^## Environment/ { on = 1; next } /^## / { on = 0 } on' docs/cli.md)
[ -n "$section" ] && pass=$((pass + 1)) || { echo "FAIL: docs/cli.md has no Environment section"; fail=$((fail + 1)); }
names=$(grep -rhoE 'getenv\("[A-Z_]+"\)' src harness --include=*.c --include=*.cu --include=*.h |
  sed -E 's/getenv\("([A-Z_]+)"\)/\1/' | sort -u)
for v in $names; do
  if printf '%s\n' "$section" | grep -q "\`$v\`"; then pass=$((pass + 1))
  else echo "FAIL: getenv(\"$v\") is read but not documented in docs/cli.md's Environment section"; fail=$((fail + 1)); fi
done
# the retired tuning variables: named in the settings table, read nowhere else
for v in $(grep -oE '"AR_[A-Z_]+", [0-9]' src/settings.c | grep -oE 'AR_[A-Z_]+'); do
  if grep -rn "\"$v\"" src harness --include=*.c --include=*.cu --include=*.h | grep -v '^src/settings.c:' | grep -q .; then
    echo "FAIL: $v is read outside the settings table"; fail=$((fail + 1))
  else pass=$((pass + 1)); fi
done
# getenv is called only where a documented name is read (no getenv of a computed name)
others=$(grep -rn 'getenv(' src harness --include=*.c --include=*.cu | grep -vE 'getenv\("[A-Z_]+"\)|getenv\(table\[i\]\.retired_env\)')
[ -z "$others" ] && pass=$((pass + 1)) || { echo "FAIL: getenv of an undeclared name: $others"; fail=$((fail + 1)); }
# the simulated GPU (tests/sim/fake_gpu.c and its files, SIM_GPU_SRC; fake_nccl.c): every
# variable it reads is named in fake_gpu.c's opening comment
. tests/sim/build.sh # SIM_GPU_SRC
fake=tests/sim/fake_gpu.c
opening=$(awk '{ print } /\*\// { exit }' "$fake")
for v in $(grep -ohE 'getenv\("[A-Z_]+"\)' "${SIM_GPU_SRC[@]}" tests/sim/fake_nccl.c | sed -E 's/getenv\("([A-Z_]+)"\)/\1/' | sort -u); do
  if printf '%s\n' "$opening" | grep -qw "$v"; then pass=$((pass + 1))
  else echo "FAIL: the fake GPU reads $v but $fake's opening comment does not name it"; fail=$((fail + 1)); fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
