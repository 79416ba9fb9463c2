# plugin=: every field of every event a plugin gets (tests/plugins/fields.c
# writes them in the words of `jvmprof trace`) equals the trace file's text
# of the same run, line for line, on TraceFields (trace=all: static,
# instance and synchronized methods, an exception, a daemon thread of
# priority 7 in its own group, allocations, collections with what they
# were, a wait, class loads, an object-reference report) and on TraceSlow
# (mintime=: whole calls). What the text does not show agrees with itself:
# a method id names one method; a static method's entry names no receiver,
# an instance method's does.
. "$(dirname "$0")/lib.sh"
cc -shared -fPIC -I"$ROOT/include" -o "$T/libfields.so" "$ROOT/tests/plugins/fields.c" -lpthread || fail "cc fields.c"

compare() { # trace file, plugin's file
    "$JVMPROF" trace "$1" >"$1.txt" || fail "jvmprof trace $1 failed"
    python3 - "$1.txt" "$2" <<'PY' || fail "the plugin's events differ from the trace's text (above)"
import collections, re, sys
text = [l.strip() for l in open(sys.argv[1]) if l.strip()]
info, mine, ids = {}, [], {}
bad = []
for l in open(sys.argv[2]):
    l = l.rstrip("\n")
    if l.startswith("info #"):
        m = re.match(r'info #(\d+) (\S+) "(.*)" cause="(.*)" used-before=(\S+) used-after=(\S+)$', l)
        info[m.group(1)] = m.groups()[1:]
        continue
    main, _, extra = l.partition(" |")
    main = main.strip()
    mine.append(main)
    f = main.split()
    if f[2] in ("enter", "exit", "exit-throw", "call"):
        mid = re.search(r"id=(\d+) flags=(\d+)", extra)
        name = f[3]
        if ids.setdefault(mid.group(1), name) != name:
            bad.append("method id %s names %s and %s" % (mid.group(1), ids[mid.group(1)], name))
        if f[2] == "enter":
            static, this = int(mid.group(2)) & 1, " this=" in main
            if static and this:
                bad.append("a static method's entry names a receiver: " + l)
            if not static and not this and ".<init>(" not in name:
                bad.append("an instance method's entry names no receiver: " + l)
def gc_line(f):
    n = f[3][1:]
    if n not in info:
        return " ".join(f[:4] + ["pause"])
    kind, coll, cause, before, after = info[n]
    if f[2] == "gc-end":
        return " ".join(f[:4] + [kind, "used-after=" + after])
    return " ".join(f[:4] + [kind, '"%s"' % coll if coll else "unknown",
                             'cause="%s"' % cause if cause else "cause=unknown", "used-before=" + before])
mine = [gc_line(l.split()) if l.split()[2] in ("gc-start", "gc-end") else l for l in mine]
a, b = collections.Counter(text), collections.Counter(mine)
for l in sorted((a - b).elements())[:10]:
    bad.append("only in the text:   " + l)
for l in sorted((b - a).elements())[:10]:
    bad.append("only in the plugin: " + l)
print("%d lines, %d collections told" % (len(text), len(info)), file=sys.stderr)
if bad:
    print("\n".join(bad[:30]), file=sys.stderr)
    sys.exit(1)
PY
}

run_java "trace=all,include=TraceFields,tracefile=$T/f.trace,plugin=$T/libfields.so:$T/f.plugin" TraceFields
expect_rc 0
expect_grep "^references true$" "$T/out"
compare "$T/f.trace" "$T/f.plugin"
# what the program made is there: a daemon of priority 7 in group workers, a static and an instance entry
expect_grep " fields-daemon thread-start fields-daemon group=workers priority=7 daemon$" "$T/f.trace.txt"
expect_grep " fields-plain thread-start fields-plain group=main priority=5$" "$T/f.trace.txt"
expect_grep " main enter TraceFields.twice(I)I depth=2$" "$T/f.trace.txt"
expect_grep " main enter TraceFields.sum()I depth=2 this=[0-9]*$" "$T/f.trace.txt"
expect_grep " main exit-throw TraceFields.fails()V depth=2$" "$T/f.trace.txt"
expect_grep " gc-start #[0-9]* full \"G1 Old Generation\" cause=\"System.gc()\" used-before=[0-9]*$" "$T/f.trace.txt"

run_java "trace=exec,mintime=10ms,tiny=0,include=TraceSlow,tracefile=$T/s.trace,plugin=$T/libfields.so:$T/s.plugin" TraceSlow
expect_rc 0
compare "$T/s.trace" "$T/s.plugin"
expect_grep " main call TraceSlow.failing()V depth=2 duration=[0-9.]*ms thrown$" "$T/s.trace.txt"
