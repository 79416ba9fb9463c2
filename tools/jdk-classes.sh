#!/usr/bin/env bash
# jdk-classes.sh — prints the directory holding the JDK's own classes,
# extracted from $JAVA_HOME/lib/modules with jimage into build/jdk-classes-N
# (N the JDK's feature version, 17, 25 ...) once (again when that JDK changes).
# Used by the rewriter's tests and bench.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
JAVA_HOME=${JAVA_HOME:-$("$ROOT/tools/java-home.sh")}
feature=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$JAVA_HOME/release" 2>/dev/null)
dir="$ROOT/build/jdk-classes-${feature:-0}"
id="$JAVA_HOME/lib/modules $(stat -c '%s %Y' "$JAVA_HOME/lib/modules")"
if [ "$(cat "$dir/.stamp" 2>/dev/null)" != "$id" ]; then
    tmp="$dir.tmp.$$"
    rm -rf "$tmp" && mkdir -p "$tmp" || exit 1
    "$JAVA_HOME/bin/jimage" extract --dir "$tmp" "$JAVA_HOME/lib/modules" >&2 || { rm -rf "$tmp"; exit 1; }
    echo "$id" >"$tmp/.stamp"
    rm -rf "$dir" && mv "$tmp" "$dir" || exit 1
fi
echo "$dir"
