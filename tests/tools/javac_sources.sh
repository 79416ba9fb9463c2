#!/bin/sh
# javac_sources.sh DIR : the sources javac compiles in t3103, t5012 and
# make_ref_dumps.sh: the java.time, java.text and java.math sources (about
# 140 files) of the JDK at $JAVA_HOME (default: tools/java-home.sh's),
# unpacked into DIR/java.base and listed, sorted, one a line, in DIR/files.
# They patch that JDK's java.base: javac --patch-module java.base=DIR/java.base.
# From $JAVA_HOME/lib/src.zip (a JDK such as Temurin 25 comes with one), else
# Debian's openjdk-17-source (`tools/deps.sh jdk-source`, for its OpenJDK 17).
# Exit 1 with a one-line message if a step fails.
set -eu
[ $# = 1 ] || { echo "usage: javac_sources.sh DIR" >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
JH=${JAVA_HOME:-$("$ROOT/tools/java-home.sh")}
fail() { echo "javac_sources: $*" >&2; exit 1; }
if [ -f "$JH/lib/src.zip" ]; then
    SRC_ZIP=$JH/lib/src.zip
else
    "$ROOT/tools/deps.sh" jdk-source || fail "cannot install openjdk-17-source"
    SRC_ZIP=/usr/lib/jvm/openjdk-17/src.zip
fi
[ -f "$SRC_ZIP" ] || fail "$SRC_ZIP missing"
mkdir -p "$1"
(cd "$1" && unzip -q "$SRC_ZIP" 'java.base/java/time/*' 'java.base/java/text/*' 'java.base/java/math/*') ||
    fail "cannot unpack $SRC_ZIP"
find "$1/java.base" -name '*.java' | sort >"$1/files"
