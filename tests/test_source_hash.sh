#!/usr/bin/env bash
# meta.txt's build_sources: the hash of the sources the binary was built from (the Makefile's
# BUILD_SRC), which tools/source_hash.sh gives again from the working tree and, where the tree's
# sources are HEAD's, from HEAD; a bad revision is refused.
. "$(dirname "$0")/lib.sh"
B=${B:-build}
. tests/sim/build.sh
sim_build source
"$S" run --gpus 0,1 --algo ring --transport ce --sizes 1K -n 2 -w 1 --out "$tmp/run" >"$tmp/out" 2>&1 ||
  bad "simulated run: $(tail -n 2 "$tmp/out")"
got=$(sed -n 's/^build_sources: \([0-9a-f]\{16\}\) (tools\/source_hash.sh REV gives a commit.s)$/\1/p' "$tmp/run/meta.txt")
tree=$(bash tools/source_hash.sh)
[ -n "$got" ] && [ "$got" = "$tree" ] && ok ||
  bad "meta.txt's build_sources '$got', the working tree's hash '$tree'"
# a source changed: another hash (a copy of the tree with one byte more in one file)
mkdir -p "$tmp/copy/tools" && cp -r src harness algorithms Makefile "$tmp/copy/" &&
  cp tools/source_hash.sh "$tmp/copy/tools/" && echo >>"$tmp/copy/harness/record/meta.c"
[ "$(bash "$tmp/copy/tools/source_hash.sh")" != "$tree" ] && ok || bad "an edited source kept the hash"
if git rev-parse --verify -q HEAD >/dev/null &&
   [ -z "$(git status --porcelain --untracked-files=all -- src harness algorithms Makefile)" ]; then
  [ "$(bash tools/source_hash.sh HEAD)" = "$tree" ] && ok ||
    bad "HEAD's hash $(bash tools/source_hash.sh HEAD) differs from its clean tree's $tree"
else
  echo "skipped: the sources differ from HEAD's (or no checkout): HEAD's hash not compared"
fi
out=$(bash tools/source_hash.sh no-such-revision 2>&1); rc=$?
[ "$rc" -ne 0 ] && [ -z "$(printf '%s\n' "$out" | grep -E '^[0-9a-f]{16}$')" ] && ok ||
  bad "a bad revision: exit $rc: $out"
finish
