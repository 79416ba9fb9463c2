#!/bin/sh
# heapverify.sh FILE.hprof [--count CLASSNAME]... : checks a heap dump with
# tests/tools/HeapVerify.java, which reads it with VisualVM's heap library
# (Debian package visualvm: `tools/deps.sh visualvm`). Prints
# "classes=N instances=N references=N unresolved=N roots=N" and a line
# "count CLASSNAME N" per --count; exits 0 if every reference in the dump
# resolves, 1 if not, 2 if the dump cannot be read (or the tool cannot run).
# HeapVerify is compiled once into $HEAPVERIFY_DIR (default build/heapverify),
# and again when HeapVerify.java or the jar is newer than the compiled class.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SRC="$ROOT/tests/tools/HeapVerify.java"
DIR=${HEAPVERIFY_DIR:-$ROOT/build/heapverify}
JH=$("$ROOT/tools/java-home.sh")

JAR=${HEAPVERIFY_JAR:-}
if [ -z "$JAR" ]; then
    for j in /usr/share/visualvm/*/modules/org-graalvm-visualvm-lib-jfluid-heap.jar; do
        [ -f "$j" ] && JAR=$j && break
    done
fi
if [ -z "$JAR" ] || [ ! -f "$JAR" ]; then
    echo "heapverify: VisualVM's heap library (org-graalvm-visualvm-lib-jfluid-heap.jar) is not installed: run tools/deps.sh visualvm (as root)" >&2
    exit 2
fi

if [ ! -f "$DIR/HeapVerify.class" ] || [ "$SRC" -nt "$DIR/HeapVerify.class" ] || [ "$JAR" -nt "$DIR/HeapVerify.class" ]; then
    mkdir -p "$DIR" || exit 2
    tmp=$(mktemp -d "$DIR/.build.XXXXXX") || exit 2
    if ! "$JH/bin/javac" --release 11 -nowarn -cp "$JAR" -d "$tmp" "$SRC" >&2; then
        rm -rf "$tmp"
        echo "heapverify: cannot compile $SRC against $JAR" >&2
        exit 2
    fi
    # HeapVerify.class last, so a half-copied build is never taken as done
    for f in "$tmp"/*.class; do [ "$f" = "$tmp/HeapVerify.class" ] || mv -f "$f" "$DIR/"; done
    mv -f "$tmp/HeapVerify.class" "$DIR/"
    rm -rf "$tmp"
fi

exec "$JH/bin/java" -cp "$JAR:$DIR" HeapVerify "$@"
