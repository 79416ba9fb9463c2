#!/usr/bin/env python3
"""prefixes.py — one private prefix per file in src/.

Every file-scope `static` function and variable of a .c file (its private
names) carries a prefix, and no two files share one, so that grepping a
private name finds the one file that owns it (HPROF's `static get_info()`,
repeated in file after file, is what this prevents). A name's prefix is the
file's stem when the name starts with it (`alloc_common_events` in
alloc_common.c: the module's own name, which STYLE.md asks for), else the part
before its first underscore (`asy_ring` -> `asy`). A name without an
underscore (`static bool fits(...)`) has no prefix and fails. Names that a
header declares at file scope (a function, a variable, a static inline
helper shared by several files) are exempt; a struct member, a parameter or
a word of a header that merely spells the same identifier is no declaration
and exempts nothing.

usage: prefixes.py SRC_DIR   (exit 1, and on stdout the prefixes that files
                              share and the names without a prefix, if any)
"""
import os
import re
import sys

COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)
STRING = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
ATTRIBUTE = re.compile(r'__attribute__\s*\(\(')
IDENT = re.compile(r'[A-Za-z_]\w*')
STATIC = re.compile(r'^static\b', re.M)


def strip(text):
    text = COMMENT.sub(lambda m: ' ' if '\n' not in m.group() else '\n' * m.group().count('\n'), text)
    text = STRING.sub('""', text)
    # preprocessor lines (a macro's body may hold "static")
    return re.sub(r'^[ \t]*#.*?(?<!\\)$', '', text, flags=re.M | re.S)


def drop_attributes(decl):
    """decl without its __attribute__((...)) parts."""
    while True:
        m = ATTRIBUTE.search(decl)
        if not m:
            return decl
        depth, i = 2, m.end()
        while i < len(decl) and depth:
            depth += {'(': 1, ')': -1}.get(decl[i], 0)
            i += 1
        decl = decl[:m.start()] + ' ' + decl[i:]


def declarators(text, start):
    """The declarators of the declaration at text[start:], up to its ';' or the
    body of a function or the initializer of each one."""
    parts, cur, depth, i, skip = [], [], 0, start, False
    while i < len(text):
        c = text[i]
        if c in '([':
            depth += 1
        elif c in ')]':
            depth -= 1
        elif c == '{' and depth == 0 and not skip and re.search(r'\b(struct|union|enum)\s*\w*\s*$', ''.join(cur)):
            depth += 1  # a struct defined in the declaration: its members are no declarators
            skip_to = depth
            while i + 1 < len(text) and depth >= skip_to:
                i += 1
                depth += {'{': 1, '}': -1}.get(text[i], 0)
            i += 1
            continue
        elif c == '{' and depth == 0 and not skip:
            break  # a function body
        elif c == '{':
            depth += 1
        elif c == '}':
            depth -= 1
        elif depth == 0 and c == '=':
            skip = True  # an initializer, up to the next ',' or ';'
        elif depth == 0 and c in ',;':
            parts.append(''.join(cur))
            cur, skip = [], False
            if c == ';':
                break
            i += 1
            continue
        if not skip:
            cur.append(c)
        i += 1
    if cur:
        parts.append(''.join(cur))
    return parts


def name_of(decl):
    decl = drop_attributes(decl)
    decl = re.sub(r'\b_Atomic\s*\(([^()]*)\)', r' \1 ', decl)  # _Atomic(T *) x: the type's parentheses
    # a pointer to a function or an array, (*name)(...), when the first parenthesis
    # is its own (in `f(void (*cb)(void))` the name is f, not its parameter's)
    m = re.match(r'[^(]*\(\s*\*[\s*]*(?:(?:const|volatile|restrict)\b\s*)*([A-Za-z_]\w*)', decl)
    if m:
        return m.group(1)
    head = re.split(r'[(\[]', decl, maxsplit=1)[0]
    names = IDENT.findall(head)
    return names[-1] if names else None


def statics(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        text = strip(f.read())
    out = set()
    for m in STATIC.finditer(text):
        for d in declarators(text, m.start()):
            n = name_of(d)
            if n and n != 'static':
                out.add(n)
    return out


def file_scope(text):
    """The file-scope declarations of text (stripped), each up to its ';' or
    the end of its function body."""
    out, start, depth, body, i = [], 0, 0, False, 0
    while i < len(text):
        c = text[i]
        if c in '([{':
            if c == '{' and depth == 0:
                body = text[:i].rstrip().endswith(')')  # a function's body, not a struct's or an initializer
            depth += 1
        elif c in ')]}':
            depth -= 1
            if c == '}' and depth == 0 and body:
                out.append(text[start:i + 1])
                start, body = i + 1, False
        elif c == ';' and depth == 0:
            out.append(text[start:i + 1])
            start = i + 1
        i += 1
    return out


def declared(text):
    """The functions and variables that text (a header) declares at file
    scope: not its types, struct members, parameters or enumerators."""
    names = set()
    for decl in file_scope(strip(text)):
        if re.match(r'\s*typedef\b', decl):
            continue
        for d in declarators(decl, 0):
            if re.fullmatch(r'\s*(struct|union|enum)\b[\s\w]*', d):
                continue  # `struct tag { ... };`: a type
            n = name_of(d)
            if n:
                names.add(n)
    return names


def header_names(src):
    names = set()
    for root, _, files in os.walk(src):
        for n in files:
            if n.endswith('.h'):
                with open(os.path.join(root, n), encoding='utf-8', errors='replace') as f:
                    names.update(declared(f.read()))
    return names


def prefix_of(stem, name):
    if name.startswith(stem + '_'):
        return stem
    return name.split('_', 1)[0] if '_' in name.strip('_') else None


def collisions(src):
    """(owners, shared, unprefixed): prefix -> {file: [names]} for every
    prefix, for the prefixes that several files use, and file -> [names]
    for the names that have none."""
    exported = header_names(src)
    owners, unprefixed = {}, {}
    for root, _, files in os.walk(src):
        for n in sorted(files):
            if not n.endswith('.c'):
                continue
            path = os.path.join(root, n)
            rel = os.path.relpath(path, src)
            stem = n[:-2]
            for name in sorted(statics(path)):
                if name in exported:
                    continue
                p = prefix_of(stem, name)
                if p:
                    owners.setdefault(p, {}).setdefault(rel, []).append(name)
                else:
                    unprefixed.setdefault(rel, []).append(name)
    return owners, {p: f for p, f in owners.items() if len(f) > 1}, unprefixed


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else 'src'
    owners, shared, unprefixed = collisions(src)
    for p in sorted(shared):
        print('prefix %s_ is private to %d files:' % (p, len(shared[p])))
        for f in sorted(shared[p]):
            names = shared[p][f]
            print('  %s: %s%s' % (f, ' '.join(names[:6]), ' ...' if len(names) > 6 else ''))
    for f in sorted(unprefixed):
        print('no prefix: %s: %s' % (f, ' '.join(unprefixed[f])))
    files = {f for fs in owners.values() for f in fs}
    print('%d private prefixes in %d files, %d shared, %d names without a prefix'
          % (len(owners), len(files), len(shared), sum(len(n) for n in unprefixed.values())))
    return 1 if shared or unprefixed else 0


if __name__ == '__main__':
    sys.exit(main())
