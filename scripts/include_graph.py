#!/usr/bin/env python3
"""The include graph of idgen's C code, and the rules of its layers.

src/ holds the node runtime; src/core/ the pure C shared with idgen-gateway
(no PostgreSQL server header, so it can be unit-tested, fuzzed and compiled
into the gateway); src/adt/ the SQL-callable types and functions;
src/worker/ the background worker and its lease client; gateway/ the HTTP
daemon and the idgen tool.  A module is a .c file and the .h of the same
name; an edge runs from a module to every module whose header one of its
files includes.  A quoted include is looked up the way the compiler does:
beside the including file first, then in src/ (-Isrc), then in src/core/
(the gateway's -I).

The check fails when
  - the modules' includes form a cycle (in src/ or in gateway/);
  - a file in src/core/ includes a PostgreSQL server header or anything
    outside src/core/ (it may include system headers and libpq-fe.h, the
    client library the gateway links as well);
  - a file outside src/worker/ includes a header of src/worker/ (the node
    runtime and the SQL functions talk to the worker through shared memory,
    never through its code);
  - a gateway file includes anything of src/ other than src/core/.

  include_graph.py              print the graph, check the rules
  include_graph.py --folders    print the graph by folder (edge counts)
  include_graph.py --dot        the folder graph for Graphviz (dot -Tsvg)
"""
import os
import re
import sys

root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
SRC = os.path.join(root, 'src')
FOLDERS = ['src/core', 'src', 'src/adt', 'src/worker', 'gateway']
# headers a core file may include besides its siblings
CORE_ALLOWED = {'libpq-fe.h'}

files = []
for folder in FOLDERS:
    d = os.path.join(root, folder)
    for f in sorted(os.listdir(d)):
        if f.endswith(('.c', '.h')):
            files.append(folder + '/' + f)
known = set(files)


def resolve(includer, name):
    """The tree file a quoted include names, or None for an outside header."""
    here = os.path.dirname(includer)
    for base in (here, 'src', 'src/core'):
        p = os.path.normpath(base + '/' + name)
        if p in known:
            return p
    return None


def folder_of(path):
    return os.path.dirname(path)


def module(path):
    return path[:-2]


problems = []
includes = {}
outside = {}
for f in files:
    with open(os.path.join(root, f)) as fh:
        text = fh.read()
    names = re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M)
    includes[f] = []
    outside[f] = []
    for n in names:
        p = resolve(f, n)
        if p is None:
            outside[f].append(n)
        else:
            includes[f].append(p)

for f in files:
    fo = folder_of(f)
    if fo == 'src/core':
        for n in outside[f]:
            if n not in CORE_ALLOWED:
                problems.append('%s includes "%s": src/core/ includes no PostgreSQL header' % (f, n))
        for p in includes[f]:
            if folder_of(p) != 'src/core':
                problems.append('%s includes %s: src/core/ includes only src/core/' % (f, p))
    for p in includes[f]:
        if folder_of(p) == 'src/worker' and fo != 'src/worker':
            problems.append('%s includes %s: only src/worker/ includes a worker header' % (f, p))
        if fo == 'gateway' and folder_of(p) not in ('gateway', 'src/core'):
            problems.append('%s includes %s: the gateway uses only src/core/ of src/' % (f, p))

edges = {}
for f, ps in includes.items():
    m = module(f)
    edges.setdefault(m, set())
    for p in ps:
        if module(p) != m:
            edges[m].add(module(p))

state = {}
cycle = []


def visit(m, path):
    state[m] = 1
    for n in sorted(edges.get(m, ())):
        if state.get(n) == 1:
            cycle.extend(path[path.index(n):] + [n])
            return True
        if state.get(n) is None and visit(n, path + [n]):
            return True
    state[m] = 2
    return False


for m in sorted(edges):
    if state.get(m) is None and visit(m, [m]):
        break
if cycle:
    problems.append('include cycle between modules: ' + ' -> '.join(cycle))

folder_edges = {}
for m, ns in edges.items():
    for n in ns:
        a, b = folder_of(m), folder_of(n)
        if a != b:
            folder_edges[(a, b)] = folder_edges.get((a, b), 0) + 1

LABEL = {'src/core': 'src/core/ (pure C)', 'src': 'src/ (node runtime)',
         'src/adt': 'src/adt/ (SQL types, functions)',
         'src/worker': 'src/worker/ (background worker)',
         'gateway': 'gateway/ (idgen-gateway, idgen)'}

if '--dot' in sys.argv:
    print('digraph layers {')
    print('  rankdir=BT; node [shape=box, fontname="Helvetica"];')
    for fo in FOLDERS:
        print('  "%s" [label="%s\\n%d files"];' % (fo, LABEL[fo], sum(1 for f in files if folder_of(f) == fo)))
    for (a, b), k in sorted(folder_edges.items()):
        print('  "%s" -> "%s" [label="%d"];' % (a, b, k))
    print('}')
elif '--folders' in sys.argv:
    for (a, b), k in sorted(folder_edges.items()):
        print('%-12s -> %-12s %3d module edges' % (a, b, k))
else:
    width = max(len(f) for f in files)
    for f in files:
        if includes[f]:
            print('%-*s -> %s' % (width, f, ', '.join(includes[f])))

for p in problems:
    print(p, file=sys.stderr)
if problems:
    sys.exit(1)
if '--dot' not in sys.argv:
    print('modules: %d in %d folders, no include cycle, layer rules kept'
          % (len(edges), len(FOLDERS)))
