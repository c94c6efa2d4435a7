#!/usr/bin/env bash
# The tree's shape (tests/layout.py): no include cycle between modules (src/lower/ and tests/
# too), no cycle between rooms (a room reaching back up), plots/ not reading tests/, no code
# file over 650 lines in any room (plots/ and tests/ too), every harness room and plots/ with
# its README.md, no file loose in harness/; and the checker catches each of those on a small
# tree made to break them.
. "$(dirname "$0")/lib.sh"
out=$(python3 tests/layout.py . 2>&1) && ok || bad "the tree: $out"
# a tree with one of each problem
t=$tmp/tree
mkdir -p "$t/src/lower" "$t/algorithms" "$t/harness/good" "$t/harness/bare" "$t/harness/up" \
  "$t/harness/down" "$t/plots" "$t/tests/sim"
printf '#include "b.h"\n' >"$t/src/a.c"; printf '\n' >"$t/src/a.h"
printf '#include "a.h"\n' >"$t/src/b.c"; printf '\n' >"$t/src/b.h"
printf '#include "y.h"\n' >"$t/src/lower/x.c"; printf '#include "x.h"\n' >"$t/src/lower/y.c"
: >"$t/src/lower/x.h"; : >"$t/src/lower/y.h"
printf '#include "good/p_int.h"\n' >"$t/harness/good/p.c"; printf '#include "good/p.h"\n' >"$t/harness/good/p_int.h"
: >"$t/harness/good/p.h"; echo "good/: a room" >"$t/harness/good/README.md"
: >"$t/harness/bare/q.c"; : >"$t/harness/loose.c"
# two rooms that reach each other through different modules: no module cycle, a room cycle
printf '#include "down/d1.h"\n' >"$t/harness/up/u1.c"; : >"$t/harness/up/u2.h"
printf '#include "up/u2.h"\n' >"$t/harness/down/d2.c"; : >"$t/harness/down/d1.h"
echo "up/" >"$t/harness/up/README.md"; echo "down/" >"$t/harness/down/README.md"
seq 700 | sed 's/^/int v/; s/$/;/' >"$t/algorithms/long.c"
seq 660 | sed 's/^/{ x = /; s/$/ }/' >"$t/plots/long.awk"
printf '# tests/ named in a comment is fine\nawk -f tests/helper.awk "$1"\n' >"$t/plots/reads.sh"
seq 651 | sed 's/^/int w/; s/$/;/' >"$t/tests/sim/fake.c"
got=$(python3 tests/layout.py "$t" 2>&1); rc=$?
[ "$rc" -eq 1 ] && ok || bad "the broken tree: exit $rc"
for want in 'include cycle: src/a <-> src/b' 'include cycle: src/lower/x <-> src/lower/y' \
            'room cycle: harness/down <-> harness/up' 'algorithms/long.c: 700 lines' \
            'plots/long.awk: 660 lines' 'tests/sim/fake.c: 651 lines' \
            'plots/reads.sh reads tests/helper.awk' 'harness/bare/ has no README.md' \
            'plots/ has no README.md' 'harness/loose.c: outside every room'; do
  printf '%s\n' "$got" | grep -qF "$want" && ok || bad "not caught: $want (got: $got)"
done
printf '%s\n' "$got" | grep -q 'good' && bad "a private header reported: $got" || ok
[ "$(printf '%s\n' "$got" | wc -l)" -eq 10 ] && ok || bad "the broken tree: $(printf '%s\n' "$got" | wc -l) lines, want 10: $got"
finish
