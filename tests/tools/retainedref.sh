#!/bin/sh
# retainedref.sh FILE.hprof --top N | --ids FILE_OF_HEX_IDS | --classes N | --instances CLASSNAME :
# retained sizes of a heap dump's objects (or classes) as VisualVM's heap
# library computes them, through tests/tools/RetainedRef.java (Debian package
# visualvm: `tools/deps.sh visualvm`); the reference `jvmprof heap --retained`
# is checked against. Prints a "# instances=N ..." header line, then rows
# "0x<id>\t<class>\t<shallow>\t<retained>" (or "class\t<name>\t<instances>\t
# <shallow>\t<retained>"); RetainedRef.java's header comment gives the
# library's rules. Exit 0, or 2 if the dump cannot be read (or the tool cannot
# run). RetainedRef is compiled once into $RETAINEDREF_DIR (default
# build/retainedref), and again when RetainedRef.java or the jar is newer than
# the compiled class. RETAINEDREF_JAVA_OPTS (default -Xmx2g) goes to the JVM.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SRC="$ROOT/tests/tools/RetainedRef.java"
DIR=${RETAINEDREF_DIR:-$ROOT/build/retainedref}
JH=$("$ROOT/tools/java-home.sh")

JAR=${HEAPVERIFY_JAR:-}
if [ -z "$JAR" ]; then
    for j in /usr/share/visualvm/*/modules/org-graalvm-visualvm-lib-jfluid-heap.jar; do
        [ -f "$j" ] && JAR=$j && break
    done
fi
if [ -z "$JAR" ] || [ ! -f "$JAR" ]; then
    echo "retainedref: VisualVM's heap library (org-graalvm-visualvm-lib-jfluid-heap.jar) is not installed: run tools/deps.sh visualvm (as root)" >&2
    exit 2
fi

if [ ! -f "$DIR/RetainedRef.class" ] || [ "$SRC" -nt "$DIR/RetainedRef.class" ] || [ "$JAR" -nt "$DIR/RetainedRef.class" ]; then
    mkdir -p "$DIR" || exit 2
    tmp=$(mktemp -d "$DIR/.build.XXXXXX") || exit 2
    if ! "$JH/bin/javac" --release 11 -nowarn -cp "$JAR" -d "$tmp" "$SRC" >&2; then
        rm -rf "$tmp"
        echo "retainedref: cannot compile $SRC against $JAR" >&2
        exit 2
    fi
    # RetainedRef.class last, so a half-copied build is never taken as done
    for f in "$tmp"/*.class; do [ "$f" = "$tmp/RetainedRef.class" ] || mv -f "$f" "$DIR/"; done
    mv -f "$tmp/RetainedRef.class" "$DIR/"
    rm -rf "$tmp"
fi

# the library's package-private members are read by reflection (class path, no modules: no --add-opens needed)
# shellcheck disable=SC2086
exec "$JH/bin/java" ${RETAINEDREF_JAVA_OPTS:--Xmx2g} -cp "$JAR:$DIR" RetainedRef "$@"
