# The object-reference report names every object's class, and lists every
# Class object as one, when classes appear while it is being made:
# TraceLateClasses makes new array classes on another thread (array classes
# have no class-load event) through five reports, and the JDK's archive holds
# Class objects of classes not loaded yet. Once with trace=user, where the
# report alone names classes, once with trace=all, where allocation events
# meet those Class objects first. Before the fix a report held thousands of
# "<class 0>" objects and Class objects listed as plain objects; now only a
# class still being made by the VM at each of the report's walks may stay
# unnamed (bounded below).
. "$(dirname "$0")/lib.sh"

for ev in user all; do
    run_java "trace=$ev,include=TraceLateClasses,tracefile=$T/$ev.trace" TraceLateClasses 5
    expect_rc 0
    expect_grep "^references true made true$" "$T/out"
    "$JVMPROF" trace "$T/$ev.trace" >"$T/$ev.txt" || fail "jvmprof trace $ev.trace failed"
    python3 - "$T/$ev.txt" <<'PY' || fail "trace=$ev: the reports name objects' classes wrongly (above)"
import re, sys
reports, kinds, class_of, bad, base = 0, {}, {}, [], 0
unnamed = []  # per report: the Class objects listed as objects, and the objects with no class
cur = None
for l in open(sys.argv[1]):
    f = l.split()
    if len(f) < 3:
        continue
    if f[2] == "references":
        reports += 1
        unnamed.append(([], []))
    elif f[2] == "object":
        m = re.match(r"object=(\d+) (<class \d+>|\S+) (object|array|class) bytes=\d+", " ".join(f[3:]))
        cur = m.group(1)
        kinds[cur] = (m.group(2), m.group(3))
        if m.group(2).startswith("<class"):
            unnamed[-1][1].append((cur, l.strip()))
        if m.group(2) == "java.lang.Class" and m.group(3) != "class":
            unnamed[-1][0].append(cur)
        if m.group(2).startswith("[[[") and m.group(2).endswith("TraceLateClasses$Base;"):
            base += 1
    elif f[2] == "reference" and f[4] == "class":
        class_of[cur] = f[3].split("=")[1]
    elif f[2] == "object-end":
        cur = None
# What may stay unnamed: a Class object the VM held only while making its class (the maker is making one
# at almost any moment), gone when the walk ends, in each of the report's three walks. One thread makes
# classes: at most one such Class object a report, and one more for a class the JDK makes meanwhile. An
# object with no class is one of such a Class object's; any other is a failure.
for k, (classes, objects) in enumerate(unnamed):
    if len(classes) > 2:
        bad.append("report %d: %d Class objects listed as objects (at most 2 being made): %s"
                   % (k + 1, len(classes), classes[:5]))
    for o, line in objects:
        if class_of.get(o) not in classes:
            bad.append("no class named: " + line)
being_made = {c for classes, _ in unnamed for c in classes}
for o, c in class_of.items():
    if c in kinds and kinds[c][1] != "class" and c not in being_made:
        bad.append("object %s's class %s is listed as %s" % (o, c, kinds[c][1]))
print("%d reports, %d objects, %d arrays of 3 or more dimensions of TraceLateClasses$Base" % (reports, len(kinds), base),
      file=sys.stderr)
if reports != 5:
    bad.append("%d reports, 5 asked" % reports)
if base < 100:
    bad.append("only %d arrays of the classes made listed" % base)
if bad:
    print("\n".join(bad[:20]), file=sys.stderr)
    sys.exit(1)
PY
done
