#!/usr/bin/env python3
"""include_cycles.py — the module graph of src/ and its cycles.

A module is a .c file and the .h file of the same name beside it (foo.c and
foo.h are one module, "agent/foo"); a header foo_internal.h, shared by the
files of module foo only, belongs to it too. Module A depends on module B when a file of
A includes B's header. The test fails, printing each cycle, when the graph has
one: a module may use another only if that other never uses it back, directly
or through others, so that every piece can be understood, tested and replaced
from the bottom up.

usage: include_cycles.py SRC_DIR   (exit 1 and the cycles on stdout if there are any)
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def module_of(src, path):
    mod = os.path.relpath(os.path.splitext(path)[0], src)
    return mod[:-len('_internal')] if mod.endswith('_internal') else mod


def modules(src):
    files = {}
    for root, _, names in os.walk(src):
        for n in names:
            if n.endswith(('.c', '.h')):
                path = os.path.join(root, n)
                files.setdefault(module_of(src, path), []).append(path)
    return files


def graph(src):
    files = modules(src)
    deps = {m: set() for m in files}
    for mod, paths in files.items():
        for path in paths:
            with open(path, encoding='utf-8', errors='replace') as f:
                text = f.read()
            for inc in INCLUDE.findall(text):
                target = os.path.normpath(os.path.join(os.path.dirname(path), inc))
                tmod = module_of(src, target)
                if tmod in deps and tmod != mod:
                    deps[mod].add(tmod)
    return deps


def cycles(deps):
    """The strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(deps[v]):
            if w not in index:
                visit(w)
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
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(deps):
        if v not in index:
            visit(v)
    return out


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else 'src'
    deps = graph(src)
    found = cycles(deps)
    for comp in found:
        print('cycle among %d modules: %s' % (len(comp), ' '.join(comp)))
        for m in comp:
            back = sorted(d for d in deps[m] if d in comp)
            print('  %s -> %s' % (m, ' '.join(back)))
    print('%d modules, %d dependencies, %d cycles' % (len(deps), sum(len(d) for d in deps.values()), len(found)))
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main())
