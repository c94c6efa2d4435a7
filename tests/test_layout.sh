#!/usr/bin/env bash
# The tree's shape (tests/layout.py): no include cycle between modules outside src/lower/, no
# source file over 650 lines, every harness room with its README.md, no file left loose in
# harness/; and the checker catches each of those on a small tree made to break them.
. "$(dirname "$0")/lib.sh"
out=$(python3 tests/layout.py . 2>&1) && ok || bad "the tree: $out"
# a tree with one of each problem
t=$tmp/tree
mkdir -p "$t/src/lower" "$t/algorithms" "$t/harness/good" "$t/harness/bare"
printf '#include "b.h"\n' >"$t/src/a.c"; printf '\n' >"$t/src/a.h"
printf '#include "a.h"\n' >"$t/src/b.c"; printf '\n' >"$t/src/b.h"
printf '#include "y.h"\n' >"$t/src/lower/x.c"; printf '#include "x.h"\n' >"$t/src/lower/y.c"
: >"$t/src/lower/x.h"; : >"$t/src/lower/y.h"
printf '#include "good/p_int.h"\n' >"$t/harness/good/p.c"; printf '#include "good/p.h"\n' >"$t/harness/good/p_int.h"
: >"$t/harness/good/p.h"; echo "good/: a room" >"$t/harness/good/README.md"
: >"$t/harness/bare/q.c"; : >"$t/harness/loose.c"
seq 700 | sed 's/^/int v/; s/$/;/' >"$t/algorithms/long.c"
got=$(python3 tests/layout.py "$t" 2>&1); rc=$?
[ "$rc" -eq 1 ] && ok || bad "the broken tree: exit $rc"
for want in 'include cycle: src/a <-> src/b' 'algorithms/long.c: 700 lines' \
            'harness/bare/ has no README.md' 'harness/loose.c: outside every room'; do
  printf '%s\n' "$got" | grep -qF "$want" && ok || bad "not caught: $want (got: $got)"
done
printf '%s\n' "$got" | grep -q 'src/lower\|good' && bad "src/lower/'s cycle or a private header reported: $got" || ok
[ "$(printf '%s\n' "$got" | wc -l)" -eq 4 ] && ok || bad "the broken tree: $(printf '%s\n' "$got" | wc -l) lines, want 4: $got"
finish
