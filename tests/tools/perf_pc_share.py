#!/usr/bin/env python3
"""perf_pc_share.py: where a JVM's CPU really went, by the program counter,
from `perf record` taken beside jvmprof in the same run: the reference a
sampler's method shares are checked against (t2107).

  perf_pc_share.py compiled PERF_SCRIPT CALLER CALLEE
  perf_pc_share.py interpreted PERF_SCRIPT CALLER CALLEE JAVAP PRINT_INTERPRETER

PERF_SCRIPT: `perf script -F ip,sym` of the run. Compiled: the symbols come
from the JVM's perf map (-XX:+DumpPerfMapAtExit), "long Cls.m(long)"; a pc
counts for the method whose name it carries. Interpreted (-Xint): every pc
is in the interpreter, whose codelets -XX:+PrintInterpreter lists with their
address ranges; a pc in the template of a bytecode that only CALLEE's code
(from `javap -c`) has counts for CALLEE, one that only CALLER's has for
CALLER; the method entry (the frame of the callee being built) counts for
CALLEE, the return entries (the caller resuming) for CALLER. Other pcs
(kernel, VM, other codelets) count for neither.

Prints "CALLEE_PCS CALLER_PCS INTERPRETER_PCS_UNASSIGNED".
"""
import bisect
import re
import sys


def javap_opcodes(path, method):
    """The opcodes of METHOD (a bare name) in `javap -c` output."""
    ops, on = set(), False
    for line in open(path, errors="replace"):
        if re.match(r"^  \S.*\b%s\(" % re.escape(method), line):
            on = True
            continue
        if on and re.match(r"^  \S", line) and "Code:" not in line:
            break
        m = re.match(r"^\s+\d+: (\w+)", line)
        if on and m:
            ops.add(m.group(1))
    if not ops:
        sys.exit("perf_pc_share: no code for %s in %s" % (method, path))
    return ops


def codelets(path):
    """(start, end, name) of each interpreter codelet PrintInterpreter listed."""
    out = []
    for line in open(path, errors="replace"):
        m = re.match(r"^(.*?)\s+\[0x([0-9a-f]+), 0x([0-9a-f]+)\]\s+\d+ bytes", line)
        if m:
            out.append((int(m.group(2), 16), int(m.group(3), 16), m.group(1).strip()))
    if not out:
        sys.exit("perf_pc_share: no codelets in %s (run with -XX:+PrintInterpreter)" % path)
    return sorted(out)


def perf_rows(path):
    for line in open(path, errors="replace"):
        f = line.split(None, 1)
        if f:
            try:
                yield int(f[0], 16), f[1].strip() if len(f) > 1 else ""
            except ValueError:
                continue


def main():
    mode, script, caller, callee = sys.argv[1:5]
    cee = ler = other = 0
    if mode == "compiled":
        short_cee, short_ler = callee.split(".")[-1], caller.split(".")[-1]
        cls = callee.rsplit(".", 1)[0]
        for _, sym in perf_rows(script):
            if re.search(r"\b%s\.%s\(" % (re.escape(cls), re.escape(short_cee)), sym):
                cee += 1
            elif re.search(r"\b%s\.%s\(" % (re.escape(cls), re.escape(short_ler)), sym):
                ler += 1
    elif mode == "interpreted":
        javap, printed = sys.argv[5:7]
        ops_cee = javap_opcodes(javap, callee.split(".")[-1])
        ops_ler = javap_opcodes(javap, caller.split(".")[-1])
        only_cee, only_ler = ops_cee - ops_ler, ops_ler - ops_cee
        cl = codelets(printed)
        starts = [c[0] for c in cl]
        for ip, _ in perf_rows(script):
            i = bisect.bisect_right(starts, ip) - 1
            if i < 0 or ip >= cl[i][1]:
                continue
            name = cl[i][2]
            op = name.split()[0]
            if name.startswith("method entry point (kind = zerolocals)") or op in only_cee:
                cee += 1
            elif name in ("return entry points", "invoke return entry points") or op in only_ler:
                ler += 1
            else:
                other += 1
    else:
        sys.exit("perf_pc_share: mode compiled or interpreted, not %s" % mode)
    print(cee, ler, other)


main()
