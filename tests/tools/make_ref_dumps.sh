#!/bin/sh
# make_ref_dumps.sh DIR : writes the heap dumps retained sizes are checked on
# (tests/tools/retainedref.sh is the reference) into DIR:
#   DIR/shapes-all.hprof  tests/programs/RetainedShapes, `jcmd PID GC.heap_dump -all`:
#                         no GC first, so its garbage (the island, the weak-only
#                         referent) is in the dump; taken first, before any GC
#   DIR/shapes.hprof      the same process, `jcmd PID GC.heap_dump` (live objects,
#                         after a full GC)
#   DIR/javac.hprof       javac's live heap at the end of compiling the JDK's
#                         java.time, java.text and java.math sources (as t3103
#                         does), in-process through tests/programs/JavacHeap
# The sources: tests/tools/javac_sources.sh (the JDK's src.zip, or Debian's
# openjdk-17-source: `tools/deps.sh jdk-source`). Prints each file's size.
# Exit 1 with a one-line message if a step fails.
set -eu
[ $# = 1 ] || { echo "usage: make_ref_dumps.sh DIR" >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
JH=$("$ROOT/tools/java-home.sh")
mkdir -p "$1"
OUT=$(cd "$1" && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/refdumps.XXXXXX")
PID=
trap 'touch "$W/stop"; [ -n "$PID" ] && kill $PID 2>/dev/null; rm -rf "$W"' EXIT
fail() { echo "make_ref_dumps: $*" >&2; exit 1; }

"$JH/bin/javac" -d "$W/classes" "$ROOT/tests/programs/RetainedShapes.java" "$ROOT/tests/programs/JavacHeap.java" ||
    fail "cannot compile RetainedShapes and JavacHeap"

# RetainedShapes: -all first (nothing has run a GC since its garbage was made), then live
rm -f "$OUT/shapes-all.hprof" "$OUT/shapes.hprof"
"$JH/bin/java" -Xmx1g -cp "$W/classes" RetainedShapes "$W/stop" >"$W/shapes.out" 2>&1 &
PID=$!
i=0
while ! grep -q '^ready' "$W/shapes.out" 2>/dev/null; do
    i=$((i + 1)); [ $i -lt 600 ] || fail "RetainedShapes did not get ready: $(head -3 "$W/shapes.out")"
    sleep 0.1
done
"$JH/bin/jcmd" $PID GC.heap_dump -all "$OUT/shapes-all.hprof" >"$W/jcmd1.out" 2>&1 || fail "jcmd GC.heap_dump -all: $(tail -1 "$W/jcmd1.out")"
"$JH/bin/jcmd" $PID GC.heap_dump "$OUT/shapes.hprof" >"$W/jcmd2.out" 2>&1 || fail "jcmd GC.heap_dump: $(tail -1 "$W/jcmd2.out")"
touch "$W/stop"
wait $PID || fail "RetainedShapes failed: $(tail -3 "$W/shapes.out")"
PID=

# javac
JAVA_HOME=$JH "$ROOT/tests/tools/javac_sources.sh" "$W" || fail "no JDK sources for javac to compile"
rm -f "$OUT/javac.hprof"
"$JH/bin/java" -Xmx1g -cp "$W/classes" JavacHeap "$OUT/javac.hprof" "$W/files" \
    -nowarn -XDsuppressNotes --patch-module "java.base=$W/java.base" -d "$W/javac-out" >"$W/javac.out" 2>&1 ||
    fail "JavacHeap failed: $(tail -3 "$W/javac.out")"
grep -q '^classes .* dumped' "$W/javac.out" || fail "JavacHeap wrote no dump: $(tail -3 "$W/javac.out")"
for f in shapes-all shapes javac; do
    echo "$OUT/$f.hprof $(stat -c %s "$OUT/$f.hprof") bytes"
done
