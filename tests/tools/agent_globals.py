#!/usr/bin/env python3
"""agent_globals.py — the agent's mutable file-scope variables, and who reads
the options outside the session.

Usage: agent_globals.py [--list] [--max N] [DIR]   (DIR default src/agent)

Counts, in every .c file under DIR, the variables declared at file scope
(static or not, thread-local too) whose object can change: a `const` object
is not counted, a pointer to const is (it can be pointed elsewhere). Each
declarator counts once (`static bool a, b;` is two). Fails when:
  - one is not commented (a comment on its line, or ending on the line
    above it or above the run of declarations it belongs to) saying why it
    must be global;
  - there are more than N (--max);
  - a file other than the session's own (core/session.c, core/agent.c)
    names agent_opts, or one outside tracing/trace_session.c names a
    trace_session_ global variable (the collectors take them from the
    session they are given).
--list prints each one: FILE:LINE name."""
import os
import re
import sys


def strip(src):
    """The source with comments and string/char literals blanked (newlines kept), and for
    each line whether a comment ends on it or appears on it."""
    out = []
    commented = set()
    i, n, line = 0, len(src), 1
    while i < n:
        c = src[i]
        if src.startswith('/*', i):
            j = src.find('*/', i + 2)
            j = n if j < 0 else j + 2
            seg = src[i:j]
            commented.add(line)
            line += seg.count('\n')
            commented.add(line)
            out.append(''.join('\n' if ch == '\n' else ' ' for ch in seg))
            i = j
        elif src.startswith('//', i):
            j = src.find('\n', i)
            j = n if j < 0 else j
            commented.add(line)
            out.append(' ' * (j - i))
            i = j
        elif c in '"\'':
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == '\\' else 1
            seg = src[i:j + 1]
            out.append(c + ''.join('\n' if ch == '\n' else ' ' for ch in seg[1:-1]) + c)
            line += seg.count('\n')
            i = j + 1
        else:
            if c == '\n':
                line += 1
            out.append(c)
            i += 1
    return ''.join(out), commented


def split_top(s, sep=','):
    parts, depth, cur = [], 0, []
    for ch in s:
        if ch in '([{':
            depth += 1
        elif ch in ')]}':
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(''.join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append(''.join(cur))
    return parts


def declarations(path):
    src = open(path).read()
    code, commented = strip(src)
    # preprocessor lines out
    code = re.sub(r'(?m)^[ \t]*#(?:[^\n]*\\\n)*[^\n]*', lambda m: re.sub(r'[^\n]', ' ', m.group(0)), code)
    found = []
    depth, start, line = 0, 0, 1
    stmt_line = None
    prev_decl_end = None  # line of the last declaration ended (for runs)
    i = 0
    while i < len(code):
        ch = code[i]
        if ch == '\n':
            line += 1
        if depth == 0 and stmt_line is None and not ch.isspace():
            stmt_line = line
            start = i
        if ch == '{':
            depth += 1
        elif ch == '}':
            depth -= 1
            if depth == 0:
                # end of a function body or of an initializer/struct: a statement ends at ';' only
                head = code[start:i + 1].split('{', 1)[0]
                if re.search(r'\)\s*$', head) and '=' not in head:
                    stmt_line = None  # a function definition
        elif ch == ';' and depth == 0 and stmt_line is not None:
            stmt = code[start:i]
            end_line = line
            d = classify(stmt)
            for name in d:
                found.append((stmt_line, name, end_line))
            stmt_line = None
        i += 1
    result = []
    runs_start = {}
    # a run: declarations on consecutive lines share the comment above the first
    last_end, run_first = None, None
    for stmt_line, name, end_line in found:
        if last_end is not None and stmt_line <= last_end + 1:
            first = run_first
        else:
            first = stmt_line
        run_first, last_end = first, end_line
        ok = any(l in commented for l in range(stmt_line, end_line + 1)) or (stmt_line - 1) in commented or \
            (first - 1) in commented
        result.append((stmt_line, name, ok))
    return result


def classify(stmt):
    """The names of the mutable variables a file-scope statement declares, if any."""
    s = ' '.join(stmt.split())
    if not s or s.startswith(('typedef', 'extern ')) or s.startswith('_Static_assert') or s.startswith('static_assert'):
        return []
    if re.match(r'^(static\s+|_Thread_local\s+|__thread\s+|_Atomic\s+|volatile\s+|const\s+)*(struct|union|enum)\s+\w*\s*\{', s):
        # a struct/union/enum body: what follows its closing brace declares the variables, if any
        depth, k = 0, s.index('{')
        for k in range(s.index('{'), len(s)):
            depth += s[k] == '{'
            depth -= s[k] == '}'
            if depth == 0:
                break
        rest = s[k + 1:].strip()
        if not rest:
            return []  # a type only
        head = s[:s.index('{')]
        s = head + ' BODY ' + rest
        stmt = s
    # a table declared by its macro (common/pub_table.h): one variable
    m = re.match(r'^PUB_TABLE\(\s*(\w+)', s)
    if m:
        return [m.group(1)]
    # drop initializers at top level
    decl_parts = split_top(s)
    first = decl_parts[0]
    first_noinit = split_top(first, '=')[0]
    # a prototype: name( params ) with no '=' and the first '(' not a '(*'
    m = re.match(r'^(.*?)\b(\w+)\s*\(([^*].*)?\)\s*(__attribute__.*)?$', first_noinit)
    if m and not re.search(r'\(\s*\*', first_noinit):
        return []
    # the type words before the first declarator
    names = []
    base_const = bool(re.match(r'^(static\s+|_Thread_local\s+|__thread\s+|_Atomic\s+|volatile\s+)*const\b', first_noinit)) or \
        bool(re.match(r'^(static\s+)?(\w+\s+)*\w+\s+const\b', first_noinit))
    for k, part in enumerate(decl_parts):
        lhs = split_top(part, '=')[0].strip()
        fp = re.search(r'\(\s*\*\s*(const\s+)?(\w+)\s*\)', lhs)
        if fp:
            name = fp.group(2)
            is_const = bool(fp.group(1))
        else:
            mm = re.search(r'(\w+)\s*(\[[^\]]*\]\s*)*$', lhs)
            if not mm:
                continue
            name = mm.group(1)
            before = lhs[:mm.start(1)]
            if '*' in before:
                # a pointer: const only if '* const' right before the name
                is_const = bool(re.search(r'\*\s*const\s*$', before))
            else:
                is_const = base_const
        if name in ('void', 'int', 'char') or not name:
            continue
        if not is_const:
            names.append(name)
    return names


def main():
    args = sys.argv[1:]
    listing = '--list' in args
    args = [a for a in args if a != '--list']
    limit = None
    if '--max' in args:
        k = args.index('--max')
        limit = int(args[k + 1])
        del args[k:k + 2]
    root = args[0] if args else 'src/agent'
    total, bad, fails = 0, [], []
    per_file = []
    for dirpath, _, files in sorted(os.walk(root)):
        for f in sorted(files):
            if not f.endswith('.c'):
                continue
            p = os.path.join(dirpath, f)
            decls = declarations(p)
            per_file.append((len(decls), p))
            total += len(decls)
            for line, name, ok in decls:
                if listing:
                    print('%s:%d %s%s' % (p, line, name, '' if ok else '   (no comment)'))
                if not ok:
                    bad.append('%s:%d %s' % (p, line, name))
            src = open(p).read()
            rel = os.path.relpath(p, root)
            code, _ = strip(src)
            if rel not in ('core/session.c', 'core/agent.c') and re.search(r'\bagent_opts\b', code):
                fails.append('%s reads agent_opts: a collector takes the options from its session' % p)
            if rel != 'tracing/trace_session.c':
                for m in re.finditer(r'\btrace_session_\w+\b', code):
                    w = m.group(0)
                    after = code[m.end():m.end() + 3].lstrip()
                    if not after.startswith('('):  # a variable, not a function
                        fails.append('%s reads %s: the trace session is reached through the session' % (p, w))
                        break
    for b in bad:
        fails.append('%s: a mutable file-scope variable with no comment saying why it must be global' % b)
    if limit is not None and total > limit:
        fails.append('%d mutable file-scope variables in %s (at most %d)' % (total, root, limit))
    if listing:
        for n, p in sorted(per_file, reverse=True):
            if n:
                print('%4d %s' % (n, p))
    print('%d mutable file-scope variables in %s%s' % (total, root, '' if limit is None else ' (at most %d)' % limit))
    for f in fails:
        print('FAIL: ' + f)
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
