#!/usr/bin/env python3
"""Print which of idgen's own headers each file in src/ includes, and fail if
the includes between modules form a cycle.

A module is a .c file and the .h of the same name; an edge runs from a module
to every module whose header any of its two files includes.  Used by
scripts/test.sh as a layer, and to draw the graph in docs/development.md
(--markdown prints it as the block there)."""
import os
import re
import sys

src = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'src')
files = sorted(f for f in os.listdir(src) if f.endswith(('.c', '.h')))
own = {f for f in files if f.endswith('.h')}
includes = {}
for f in files:
    with open(os.path.join(src, f)) as fh:
        text = fh.read()
    includes[f] = [h for h in re.findall(r'^#include "([^"]+)"', text, re.M) if h in own]

def module(f):
    return f[:-2]

edges = {}
for f, hs in includes.items():
    m = module(f)
    edges.setdefault(m, set())
    for h in hs:
        if module(h) != m:
            edges[m].add(module(h))

# depth-first search for a cycle
state = {}
cycle = []

def visit(m, path):
    state[m] = 1
    for n in sorted(edges.get(m, ())):
        if state.get(n) == 1:
            cycle.extend(path[path.index(n):] + [n] if n in path else [m, n])
            return True
        if state.get(n) is None and visit(n, path + [n]):
            return True
    state[m] = 2
    return False

for m in sorted(edges):
    if state.get(m) is None and visit(m, [m]):
        break

width = max(len(f) for f in files)
for f in files:
    if includes[f]:
        print('%-*s -> %s' % (width, f, ', '.join(includes[f])))
if cycle:
    print('include cycle between modules: ' + ' -> '.join(cycle), file=sys.stderr)
    sys.exit(1)
print('modules: %d, no include cycle' % len(edges))
