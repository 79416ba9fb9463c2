#!/bin/sh
# visualvm_tool.sh TOOL [ARG]... : what tests/tools/heapverify.sh and
# retainedref.sh share: runs tests/tools/TOOL.java (HeapVerify or RetainedRef)
# on the class path of VisualVM's heap library, the jar
# org-graalvm-visualvm-lib-jfluid-heap.jar of Debian's package visualvm
# (`tools/deps.sh visualvm`; HEAPVERIFY_JAR=path picks another copy).
# TOOL is compiled once into build/<tool in lower case> (TOOL_DIR overrides
# it), and again when TOOL.java or the jar is newer than the compiled class;
# TOOL_JAVA_OPTS (word-split) goes to the JVM. `visualvm_tool.sh --build TOOL`
# only compiles it (so a timed run does not include javac). Exit 2 with a
# one-line message if the jar is missing or TOOL does not compile; otherwise
# TOOL's own exit code.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD_ONLY=
if [ "${1:-}" = --build ]; then BUILD_ONLY=1; shift; fi
TOOL=${1:-}
case $TOOL in
    HeapVerify | RetainedRef) shift ;;
    *) echo "visualvm_tool: usage: visualvm_tool.sh [--build] HeapVerify|RetainedRef [ARG]..." >&2; exit 2 ;;
esac
low=$(echo "$TOOL" | tr 'A-Z' 'a-z')
SRC="$ROOT/tests/tools/$TOOL.java"
DIR=${TOOL_DIR:-$ROOT/build/$low}
JH=$("$ROOT/tools/java-home.sh")

JAR=${HEAPVERIFY_JAR:-}
if [ -z "$JAR" ]; then
    for j in /usr/share/visualvm/*/modules/org-graalvm-visualvm-lib-jfluid-heap.jar; do
        [ -f "$j" ] && JAR=$j && break
    done
fi
if [ -z "$JAR" ] || [ ! -f "$JAR" ]; then
    echo "$low: VisualVM's heap library (org-graalvm-visualvm-lib-jfluid-heap.jar) is not installed: run tools/deps.sh visualvm (as root)" >&2
    exit 2
fi

if [ ! -f "$DIR/$TOOL.class" ] || [ "$SRC" -nt "$DIR/$TOOL.class" ] || [ "$JAR" -nt "$DIR/$TOOL.class" ]; then
    mkdir -p "$DIR" || exit 2
    tmp=$(mktemp -d "$DIR/.build.XXXXXX") || exit 2
    if ! "$JH/bin/javac" --release 11 -nowarn -cp "$JAR" -d "$tmp" "$SRC" >&2; then
        rm -rf "$tmp"
        echo "$low: cannot compile $SRC against $JAR" >&2
        exit 2
    fi
    # TOOL.class last, so a half-copied build is never taken as done
    for f in "$tmp"/*.class; do [ "$f" = "$tmp/$TOOL.class" ] || mv -f "$f" "$DIR/"; done
    mv -f "$tmp/$TOOL.class" "$DIR/"
    rm -rf "$tmp"
fi
[ -z "$BUILD_ONLY" ] || exit 0

# the library's package-private members are read by reflection (class path, no modules: no --add-opens needed)
# shellcheck disable=SC2086
exec "$JH/bin/java" ${TOOL_JAVA_OPTS:-} -cp "$JAR:$DIR" "$TOOL" "$@"
