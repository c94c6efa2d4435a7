#!/usr/bin/env python3
"""The source tree's shape (tests/test_layout.sh): the include graph between modules (a file's
name without its extension: foo.c, foo.h and foo.cu are one module, and a private header
foo_int.h is foo's) has no cycle outside
src/lower/, no source file is longer than the limit, and every harness room opens with a
README.md. Prints one line per problem; exit 1 when there is any."""
import os, re, sys

root = sys.argv[1] if len(sys.argv) > 1 else '.'
limit = int(sys.argv[2]) if len(sys.argv) > 2 else 650
dirs = ['src', 'algorithms', 'harness']
exts = ('.c', '.h', '.cu', '.cuh')
inc_dirs = ['src', 'harness']  # the build's -I folders
files = []
for d in dirs:
    for dp, _, fs in os.walk(os.path.join(root, d)):
        files += [os.path.relpath(os.path.join(dp, f), root) for f in fs if f.endswith(exts)]
fileset = set(files)

def module(path):
    m = os.path.splitext(path)[0]
    return m[:-4] if m.endswith('_int') else m

def resolve(src, name):
    for base in [os.path.dirname(src)] + inc_dirs:
        p = os.path.normpath(os.path.join(base, name))
        if p in fileset:
            return p
    return None

edges = {}
for f in files:
    with open(os.path.join(root, f), errors='replace') as fh:
        text = fh.read()
    for name in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
        target = resolve(f, name)
        if target is None:
            continue
        a, b = module(f), module(target)
        if a != b:
            edges.setdefault(a, set()).add(b)

problems = []
inside = lambda m: m.startswith('src/lower/')
# cycles: strongly connected components of more than one module, src/lower/ left out
index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]
def strong(v):
    index[v] = low[v] = counter[0]; counter[0] += 1
    stack.append(v); on.add(v)
    for w in edges.get(v, ()):
        if inside(w):
            continue
        if w not in index:
            strong(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            comps.append(sorted(comp))
sys.setrecursionlimit(10000)
for v in sorted({module(f) for f in files}):
    if not inside(v) and v not in index:
        strong(v)
for c in comps:
    problems.append('include cycle: ' + ' <-> '.join(c))
for f in sorted(files):
    with open(os.path.join(root, f), errors='replace') as fh:
        n = sum(1 for _ in fh)
    if n > limit:
        problems.append('%s: %d lines (at most %d)' % (f, n, limit))
for room in sorted(os.listdir(os.path.join(root, 'harness'))):
    p = os.path.join(root, 'harness', room)
    if os.path.isdir(p) and not os.path.isfile(os.path.join(p, 'README.md')):
        problems.append('harness/%s/ has no README.md saying what lives there' % room)
loose = [f for f in os.listdir(os.path.join(root, 'harness')) if f.endswith(exts)]
for f in sorted(loose):
    problems.append('harness/%s: outside every room' % f)
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
