#!/usr/bin/env python3
"""accuracy.py JP.collapsed AP.collapsed JFR.txt — compares self (leaf) shares.

JP.collapsed: jvmprof's collapsed stacks (frames end in _[j], _[i], ...);
AP.collapsed: async-profiler's; JFR.txt: `jfr print --events
jdk.ExecutionSample --stack-depth 1`. Shares are over each tool's samples
with a Java frame. Prints, for the methods that jvmprof favours most, its
share against the larger of the two others'."""
import collections
import re
import sys

JAVA = re.compile(r'^[A-Za-z_$][\w$]*(\.[\w$<>]+)+$')


def frames_of(stack, strip_kind):
    out = []
    for f in stack.split(';'):
        if strip_kind:
            f = re.sub(r'_\[[a-z0-9]\]$', '', f)
        f = f.replace('/', '.')
        f = re.sub(r'\$\$Lambda\$\d+(\.0x[0-9a-f]+)?', '$$Lambda', f)
        out.append(f)
    return out


def load_collapsed(path, strip_kind):
    leaf, total, nojava = collections.Counter(), 0, 0
    for line in open(path):
        line = line.rstrip('\n')
        if not line:
            continue
        stack, n = line.rsplit(' ', 1)
        n = int(n)
        total += n
        java = [f for f in frames_of(stack, strip_kind) if JAVA.match(f) and not f.startswith('<unknown')]
        if java:
            leaf[java[-1]] += n
        else:
            nojava += n
    return leaf, total, nojava


def load_jfr(path):
    leaf, want = collections.Counter(), False
    for line in open(path):
        s = line.strip()
        if s.startswith('stackTrace = ['):
            want = True
            continue
        if want:
            want = False
            m = re.match(r'^([\w$.<>]+)\(', s)
            if m:
                leaf[m.group(1)] += 1
    n = sum(leaf.values())
    return leaf, n, 0


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    jp, jt, jn = load_collapsed(sys.argv[1], True)
    ap, at, an = load_collapsed(sys.argv[2], False)
    jf, ft, _ = load_jfr(sys.argv[3])
    if min(jt - jn, at - an, ft) <= 0:
        sys.exit('accuracy.py: a profile has no samples with a Java frame')
    print(f'jvmprof: {jt} samples, {100 * jn / jt:.2f}% with no Java frame; '
          f'async-profiler: {at} samples ({100 * an / at:.2f}% with no Java frame: it samples the JVM\'s own threads too); '
          f'JFR: {ft} samples')
    share = lambda c, t, m: 100 * c[m] / t
    rows = []
    for m in set(jp) | set(ap) | set(jf):
        a, b, c = share(jp, jt - jn, m), share(ap, at - an, m), share(jf, ft, m)
        rows.append((a - max(b, c), a - b, m, a, b, c))
    rows.sort(reverse=True)
    print('largest excess of jvmprof over both (over async-profiler alone in brackets):')
    for d, dab, m, a, b, c in rows[:5]:
        print(f'  {d:+.2f} ({dab:+.2f})  {m}  jvmprof {a:.2f}%  async-profiler {b:.2f}%  JFR {c:.2f}%')
    worst = max(rows, key=lambda r: r[1])
    print(f'largest excess over async-profiler alone: {worst[1]:+.2f} {worst[2]}')


if __name__ == '__main__':
    main()
