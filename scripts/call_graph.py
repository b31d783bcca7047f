#!/usr/bin/env python3
"""The call graph between idgen-gateway's modules, and the check that it
has no circle.

include_graph.py sees includes only; two modules can call each other
through gateway.h without including each other.  This reads the built
objects (make -C gateway first): an edge runs from a module to every module
defining a symbol it leaves undefined (nm).  The check fails on a circle.

  call_graph.py [DIR]     DIR: where the gateway's .o files are (gateway/)
"""
import os
import subprocess
import sys

root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
objdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, 'gateway')
mods = sorted(f[:-2] for f in os.listdir(os.path.join(root, 'gateway'))
              if f.startswith('gw') and f.endswith('.c'))
missing = [m for m in mods if not os.path.exists(os.path.join(objdir, m + '.o'))]
if missing:
    sys.exit('call_graph.py: build the gateway first (make -C gateway); missing: '
             + ', '.join(m + '.o' for m in missing))

defined = {}
undefined = {}
for m in mods:
    out = subprocess.run(['nm', os.path.join(objdir, m + '.o')], check=True,
                         capture_output=True, text=True).stdout
    undefined[m] = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in 'TDBRC':
            defined[parts[2]] = m
        elif len(parts) == 2 and parts[0] == 'U':
            undefined[m].add(parts[1])

calls = {m: sorted({defined[s] for s in undefined[m]
                    if s in defined and defined[s] != m}) for m in mods}
for m in mods:
    print('%-12s -> %s' % (m, ', '.join(calls[m]) or '-'))

# a circle is a path that comes back to a module on it
circles = []
state = {}


def visit(m, path):
    state[m] = 'open'
    for n in calls[m]:
        if state.get(n) == 'open':
            circles.append(path[path.index(n):] + [n])
        elif n not in state:
            visit(n, path + [n])
    state[m] = 'done'


for m in mods:
    if m not in state:
        visit(m, [m])
for c in circles:
    print('call circle: ' + ' -> '.join(c))
if circles:
    sys.exit(1)
print('modules: %d, no call circle' % len(mods))
