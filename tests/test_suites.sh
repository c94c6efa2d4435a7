#!/usr/bin/env bash
# The suites' own bookkeeping: every suite with a part for `make test-long` (tests/lib.sh `long`,
# tests/test.h test_long(), TEST_LONG) is in the Makefile's LONG_SUITES, else that part never
# runs, and every name there is a suite; the checker catches both on a small tree made to.
. "$(dirname "$0")/lib.sh"
# unlisted ROOT: "not in LONG_SUITES: NAME" for each suite of ROOT/tests that asks for test-long
# and is not listed (this one names the words only), "no such suite: NAME" for each listed name that is none
unlisted() {
  local users listed n
  users=$(grep -lE '(^|[^[:alnum:]_])(long (&&|\|\|)|if long;|! long|test_long\(\)|TEST_LONG)' \
    "$1"/tests/test_*.sh "$1"/tests/test_*.c 2>/dev/null | sed 's|.*/test_||; s|\.[a-z]*$||' | grep -vx suites | sort -u)
  listed=$(sed -n '/^LONG_SUITES *=/,/[^\\]$/p' "$1/Makefile" | sed 's/^LONG_SUITES *=//; s/\\$//' |
    tr -s ' \t' '\n' | grep . | sort -u)
  for n in $users; do printf '%s\n' "$listed" | grep -qx "$n" || echo "not in LONG_SUITES: $n"; done
  for n in $listed; do [ -e "$1/tests/test_$n.sh" ] || [ -e "$1/tests/test_$n.c" ] || echo "no such suite: $n"; done
}
out=$(unlisted .)
[ -z "$out" ] && ok || bad "$out"
# a tree with one of each: a shell and a C suite with a long part, one listed, and a listed
# name that is no suite
t=$tmp/tree
mkdir -p "$t/tests"
printf 'LONG_SUITES = a \\\n  gone\ntest-long:\n' >"$t/Makefile"
printf 'long && x=1\n' >"$t/tests/test_a.sh"
printf 'if (test_long()) f();\n' >"$t/tests/test_b.c"
printf '# a long comment and a belong() call\nbelong\n' >"$t/tests/test_c.sh"
[ "$(unlisted "$t" | tr '\n' ';')" = "not in LONG_SUITES: b;no such suite: gone;" ] && ok ||
  bad "the made tree: $(unlisted "$t" | tr '\n' ';')"
finish
