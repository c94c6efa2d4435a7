#!/usr/bin/env bash
# The sources a binary is built from and their hash, which the Makefile bakes into meta.txt's
# build_sources: of commit REV, or of the working tree without REV (--files: the tree's list,
# the Makefile's BUILD_SRC). A run's meta.txt then names its sources even where the checkout it
# ran in was stale or absent:
#   bash tools/source_hash.sh 4c8a922        # compare with a meta.txt's build_sources
set -eu
cd "$(dirname "$0")/.."
# these patterns and the Makefile, in C order
pattern='^(src/[^/]*\.[ch]|src/lower/[^/]*\.[ch]|src/cuda/[^/]*\.(cu|cuh|h)|harness/[^/]*/[^/]*\.[ch]|algorithms/[^/]*\.[ch]|Makefile)$'
files() { find src harness algorithms Makefile -type f | grep -E "$pattern" | LC_ALL=C sort; }
if [ "${1:-}" = --files ]; then
  files
elif [ $# -ge 1 ]; then
  rev=$(git rev-parse --verify "$1^{commit}")
  git ls-tree -r --name-only "$rev" | grep -E "$pattern" | LC_ALL=C sort |
    while read -r f; do git show "$rev:$f"; done | sha256sum | cut -c1-16
else
  files | xargs cat | sha256sum | cut -c1-16
fi
