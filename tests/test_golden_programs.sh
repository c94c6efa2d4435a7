#!/usr/bin/env bash
# The golden programs: what `arbench run` lowers for the configurations behind the checked-in
# results is unchanged (tests/golden/lower.sh), and a changed program is caught.
set -u
cd "$(dirname "$0")/.." || exit 1
B=${B:-build}
out=$(bash tests/golden/lower.sh check "$B" 2>&1); rc=$?
printf '%s\n' "$out" | grep -v -E '^[0-9]+ passed, [0-9]+ failed$'
line=$(printf '%s\n' "$out" | tail -n 1)
p=${line%% passed*}; f=${line#*, }; f=${f%% failed*}
# the check can fail: one changed op in one golden is one failure, named
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cp tests/golden/programs/*.txt.gz "$tmp/"
zcat tests/golden/programs/plain4.txt.gz | sed '0,/ slot /s// SLOT /' | gzip -n >"$tmp/plain4.txt.gz"
neg=$(bash tests/golden/lower.sh check "$B" "$tmp" 2>&1)
if printf '%s\n' "$neg" | grep -q '^FAIL plain4:' && [ "$(printf '%s\n' "$neg" | tail -n 1)" = "$((p + f - 1)) passed, 1 failed" ]; then
  p=$((p + 1))
else
  echo "FAIL: a changed golden was not caught: $(printf '%s\n' "$neg" | tail -n 1)"; f=$((f + 1))
fi
echo "$p passed, $f failed"
[ "$rc" -eq 0 ] && [ "$f" -eq 0 ]
