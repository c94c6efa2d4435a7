#!/usr/bin/env bash
# The hash of the sources a binary is built from, as the Makefile bakes it into meta.txt's
# build_sources: of commit REV, or of the working tree without REV. A run's meta.txt then names
# its sources even where the checkout it ran in was stale or absent:
#   bash tools/source_hash.sh 4c8a922        # compare with a meta.txt's build_sources
set -eu
cd "$(dirname "$0")/.."
# the Makefile's BUILD_SRC: these patterns and the Makefile, in C order
pattern='^(src/[^/]*\.[ch]|src/lower/[^/]*\.[ch]|src/cuda/[^/]*\.(cu|cuh|h)|harness/[^/]*\.[ch]|algorithms/[^/]*\.[ch]|Makefile)$'
if [ $# -ge 1 ]; then
  rev=$(git rev-parse --verify "$1^{commit}")
  git ls-tree -r --name-only "$rev" | grep -E "$pattern" | LC_ALL=C sort |
    while read -r f; do git show "$rev:$f"; done | sha256sum | cut -c1-16
else
  find src harness algorithms Makefile -type f | grep -E "$pattern" | LC_ALL=C sort |
    xargs cat | sha256sum | cut -c1-16
fi
