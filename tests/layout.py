#!/usr/bin/env python3
"""The source tree's shape (tests/test_layout.sh). Prints one line per problem; exit 1 when
there is any.
- Modules: a file's name without its extension (foo.c, foo.h and foo.cu are one module, and a
  private header foo_int.h is foo's); their include graph has no cycle, src/lower/ and tests/
  included.
- Rooms: each folder of harness/ is a room, and so are src/cuda/, src/lower/, the rest of src/,
  algorithms/, plots/ and tests/. The include graph between rooms has no cycle (a room that
  reaches back up is one): harness/cmd/ is the top, harness/cli/ the bottom of harness/.
  plots/ reads no file of tests/ (tests read plots/, never the other way).
- No code file (C, CUDA, awk, shell, Python, gnuplot) is longer than the limit, in every room.
- Every harness room, and plots/, opens with a README.md; no file is loose in harness/."""
import os, re, sys

root = sys.argv[1] if len(sys.argv) > 1 else '.'
limit = int(sys.argv[2]) if len(sys.argv) > 2 else 650
c_exts = ('.c', '.h', '.cu', '.cuh')
code_exts = c_exts + ('.awk', '.sh', '.py', '.gp')
inc_dirs = ['src', 'harness', 'tests']  # the build's -I folders (tests: -Itests)


def walk(top, exts):
    out = []
    for dp, dns, fs in os.walk(os.path.join(root, top)):
        dns[:] = [d for d in dns if d not in ('fixtures', 'golden')]  # data, not code
        out += [os.path.relpath(os.path.join(dp, f), root) for f in fs if f.endswith(exts)]
    return sorted(out)


c_files = [f for d in ('src', 'algorithms', 'harness', 'tests') for f in walk(d, c_exts)]
code_files = [f for d in ('src', 'algorithms', 'harness', 'tests', 'plots') for f in walk(d, code_exts)]
fileset = set(c_files)


def module(path):
    m = os.path.splitext(path)[0]
    return m[:-4] if m.endswith('_int') else m


def room(path):
    parts = path.split(os.sep)
    if parts[0] == 'harness' and len(parts) > 2:
        return 'harness/' + parts[1]
    if parts[0] == 'src' and len(parts) > 2:
        return 'src/' + parts[1]
    return parts[0]


def resolve(src, name):
    for base in [os.path.dirname(src)] + inc_dirs:
        p = os.path.normpath(os.path.join(base, name))
        if p in fileset:
            return p
    return None


def read(f):
    with open(os.path.join(root, f), errors='replace') as fh:
        return fh.read()


mod_edges, room_edges = {}, {}
for f in c_files:
    for name in re.findall(r'^\s*#\s*include\s+"([^"]+)"', read(f), re.M):
        target = resolve(f, name)
        if target is None:
            continue
        a, b = module(f), module(target)
        if a != b:
            mod_edges.setdefault(a, set()).add(b)
        ra, rb = room(f), room(target)
        if ra != rb:
            room_edges.setdefault(ra, {}).setdefault(rb, '%s -> %s' % (f, target))

problems = []


def cycles(nodes, edges):
    """The strongly connected components of more than one node (Tarjan's), each sorted."""
    index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            strong(v)
    return comps


for c in cycles({module(f) for f in c_files}, mod_edges):
    problems.append('include cycle: ' + ' <-> '.join(c))
for c in cycles({room(f) for f in c_files}, room_edges):
    inside = set(c)
    why = ['%s (%s)' % (b, room_edges[a][b]) for a in c for b in sorted(room_edges.get(a, {}))
           if b in inside]
    problems.append('room cycle: %s; arrows: %s' % (' <-> '.join(c), '; '.join(why)))
for f in (f for f in code_files if room(f) == 'plots'):
    code = '\n'.join(re.sub(r'(^|\s)#.*', '', line) for line in read(f).split('\n'))  # not comments
    for ref in sorted(set(re.findall(r'\btests/[\w./-]+', code))):
        problems.append('%s reads %s: plots/ is below tests/' % (f, ref))
for f in code_files:
    n = read(f).count('\n')
    if n > limit:
        problems.append('%s: %d lines (at most %d)' % (f, n, limit))
rooms = [os.path.join('harness', r) for r in sorted(os.listdir(os.path.join(root, 'harness')))]
for p in rooms + ['plots']:
    if os.path.isdir(os.path.join(root, p)) and not os.path.isfile(os.path.join(root, p, 'README.md')):
        problems.append('%s/ has no README.md saying what lives there' % p)
loose = [f for f in os.listdir(os.path.join(root, 'harness')) if f.endswith(c_exts)]
for f in sorted(loose):
    problems.append('harness/%s: outside every room' % f)
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
