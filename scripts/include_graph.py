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
  include_graph.py --self-test  break each rule in a small tree: reported?
"""
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
FOLDERS = ['src/core', 'src', 'src/adt', 'src/worker', 'gateway']
# headers a core file may include besides its siblings
CORE_ALLOWED = {'libpq-fe.h'}


def folder_of(path):
    return os.path.dirname(path)


def module(path):
    return path[:-2]


class Graph:
    """The include graph of the tree at root, and the rules it breaks."""

    def __init__(self, root):
        self.files = []
        for folder in FOLDERS:
            d = os.path.join(root, folder)
            if not os.path.isdir(d):
                continue
            for f in sorted(os.listdir(d)):
                if f.endswith(('.c', '.h')):
                    self.files.append(folder + '/' + f)
        self.known = set(self.files)
        self.includes = {}
        self.outside = {}
        for f in self.files:
            with open(os.path.join(root, f)) as fh:
                text = fh.read()
            names = re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M)
            self.includes[f] = []
            self.outside[f] = []
            for n in names:
                p = self.resolve(f, n)
                if p is None:
                    self.outside[f].append(n)
                else:
                    self.includes[f].append(p)
        self.problems = self.layer_problems()
        self.edges = {}
        for f, ps in self.includes.items():
            m = module(f)
            self.edges.setdefault(m, set())
            for p in ps:
                if module(p) != m:
                    self.edges[m].add(module(p))
        self.cycle = self.find_cycle()
        if self.cycle:
            self.problems.append('include cycle between modules: ' + ' -> '.join(self.cycle))
        self.folder_edges = {}
        for m, ns in self.edges.items():
            for n in ns:
                a, b = folder_of(m), folder_of(n)
                if a != b:
                    self.folder_edges[(a, b)] = self.folder_edges.get((a, b), 0) + 1

    def resolve(self, includer, name):
        """The tree file a quoted include names, or None for an outside header."""
        here = os.path.dirname(includer)
        for base in (here, 'src', 'src/core'):
            p = os.path.normpath(base + '/' + name)
            if p in self.known:
                return p
        return None

    def layer_problems(self):
        problems = []
        for f in self.files:
            fo = folder_of(f)
            if fo == 'src/core':
                for n in self.outside[f]:
                    if n not in CORE_ALLOWED:
                        problems.append('%s includes "%s": src/core/ includes no PostgreSQL header' % (f, n))
                for p in self.includes[f]:
                    if folder_of(p) != 'src/core':
                        problems.append('%s includes %s: src/core/ includes only src/core/' % (f, p))
            for p in self.includes[f]:
                if folder_of(p) == 'src/worker' and fo != 'src/worker':
                    problems.append('%s includes %s: only src/worker/ includes a worker header' % (f, p))
                if fo == 'gateway' and folder_of(p) not in ('gateway', 'src/core'):
                    problems.append('%s includes %s: the gateway uses only src/core/ of src/' % (f, p))
        return problems

    def find_cycle(self):
        """One cycle of the module graph as a list of modules, or []."""
        state = {}
        cycle = []

        def visit(m, path):
            state[m] = 1
            for n in sorted(self.edges.get(m, ())):
                if state.get(n) == 1:
                    cycle.extend(path[path.index(n):] + [n])
                    return True
                if state.get(n) is None and visit(n, path + [n]):
                    return True
            state[m] = 2
            return False

        for m in sorted(self.edges):
            if state.get(m) is None and visit(m, [m]):
                break
        return cycle


def self_test():
    """Break each rule once in a small tree and make sure each is reported."""
    import tempfile
    tree = {
        # clean: a core file with its sibling and libpq, a node file with
        # core and worker files with each other
        'src/core/good.h': '#include "libpq-fe.h"\n',
        'src/core/good.c': '#include "good.h"\n#include <stdint.h>\n',
        'src/node.c': '#include "postgres.h"\n#include "core/good.h"\n',
        'src/worker/w.h': '#include "postgres.h"\n',
        'src/worker/w.c': '#include "w.h"\n#include "node.h"\n',
        'src/node.h': '',
        'gateway/gw.c': '#include "good.h"\n',
    }
    broken = {
        'src/core/bad.c': '#include "postgres.h"\n',
        'src/core/up.c': '#include "node.h"\n',
        'src/adt/sql_x.c': '#include "postgres.h"\n#include "worker/w.h"\n',
        'src/cyc_a.h': '#include "cyc_b.h"\n',
        'src/cyc_b.c': '#include "cyc_a.h"\n',
        'src/cyc_b.h': '',
        'gateway/gwbad.c': '#include "node.h"\n',
    }
    expect = [
        'src/core/bad.c includes "postgres.h": src/core/ includes no PostgreSQL header',
        'src/core/up.c includes src/node.h: src/core/ includes only src/core/',
        'src/adt/sql_x.c includes src/worker/w.h: only src/worker/ includes a worker header',
        'include cycle between modules: src/cyc_a -> src/cyc_b -> src/cyc_a',
        'gateway/gwbad.c includes src/node.h: the gateway uses only src/core/ of src/',
    ]
    failures = []

    def build(files):
        d = tempfile.mkdtemp(prefix='include_graph.')
        for path, text in files.items():
            os.makedirs(os.path.join(d, folder_of(path)), exist_ok=True)
            with open(os.path.join(d, path), 'w') as fh:
                fh.write(text)
        return d

    import shutil
    d = build(tree)
    try:
        g = Graph(d)
        if g.problems:
            failures.append('the clean tree is reported: %s' % g.problems)
        if ('src/worker', 'src') not in g.folder_edges or ('src', 'src/core') not in g.folder_edges:
            failures.append('the clean tree misses an edge: %s' % g.folder_edges)
    finally:
        shutil.rmtree(d)
    d = build(dict(tree, **broken))
    try:
        g = Graph(d)
        for e in expect:
            if e not in g.problems:
                failures.append('not reported: ' + e)
        for p in g.problems:
            if p not in expect:
                failures.append('reported, but not broken: ' + p)
    finally:
        shutil.rmtree(d)
    for f in failures:
        print('self-test: ' + f, file=sys.stderr)
    if failures:
        sys.exit(1)
    print('self-test: %d broken rules reported, the clean tree passes' % len(expect))


if '--self-test' in sys.argv:
    self_test()
    sys.exit(0)

graph = Graph(ROOT)
files = graph.files
includes = graph.includes
folder_edges = graph.folder_edges
edges = graph.edges
problems = graph.problems

LABEL = {'src/core': 'src/core/ (pure C)', 'src': 'src/ (node runtime)',
         'src/adt': 'src/adt/ (SQL types, functions)',
         'src/worker': 'src/worker/ (background worker)',
         'gateway': 'gateway/ (idgen-gateway, idgen)'}



def folder_modules(fo):
    return sorted(os.path.basename(m) for m in edges if folder_of(m) == fo)


if '--dot' in sys.argv:
    # one box per folder with its modules, one arrow per pair of folders
    # labelled with the number of module edges it stands for
    print('digraph layers {')
    print('  rankdir=BT; nodesep=0.5; ranksep=0.7;')
    print('  node [shape=box, fontname="Helvetica", fontsize=11];')
    print('  edge [fontname="Helvetica", fontsize=10];')
    for fo in FOLDERS:
        ms = folder_modules(fo)
        rows = [' '.join(ms[i:i + 5]) for i in range(0, len(ms), 5)]
        print('  "%s" [label="%s, %d modules\\n\\n%s"];'
              % (fo, LABEL[fo], len(ms), '\\n'.join(rows)))
    for (a, b), k in sorted(folder_edges.items()):
        # the fewer of two opposite arrows is dashed and does not rank
        against = folder_edges.get((b, a), 0) > k
        print('  "%s" -> "%s" [label="%d"%s];'
              % (a, b, k, ', style=dashed, constraint=false' if against else ''))
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
    print('modules: %d in %d folders (%s), no include cycle, layer rules kept'
          % (len(edges), len(FOLDERS),
             ', '.join('%s/ %d' % (fo, len(folder_modules(fo))) for fo in FOLDERS)))
