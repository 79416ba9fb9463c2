#!/usr/bin/env bash
# demo.sh — `make demo`: profiles the bundled sample program (examples/Demo.java)
# with cpu=samples, monitor=y and heap=sites, then shows the top of the report
# and where it and the flame graph of the same samples are; then takes a heap
# dump of it and prints the dump's class histogram.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
JAVA_HOME=${JAVA_HOME:-$("$ROOT/tools/java-home.sh")}
OUT="$ROOT/build/demo"
mkdir -p "$OUT/classes"
"$JAVA_HOME/bin/javac" -d "$OUT/classes" "$ROOT/examples/Demo.java"
REPORT="$OUT/java.hprof.txt"
FLAME="$OUT/flame.html"
OPTS="cpu=samples,monitor=y,heap=sites,interval=10,depth=6,file=$REPORT,flame=$FLAME"
echo "\$ java -agentpath:build/libjvmprof.so=$OPTS -cp build/demo/classes Demo"
"$JAVA_HOME/bin/java" "-agentpath:$ROOT/build/libjvmprof.so=$OPTS" -cp "$OUT/classes" Demo
echo
echo "--- top of the CPU SAMPLES table:"
awk '/^CPU SAMPLES BEGIN/ {on=1} on && n++ < 12' "$REPORT"
echo
echo "--- top of the MONITOR TIME table:"
awk '/^MONITOR TIME BEGIN/ {on=1} on && n++ < 7' "$REPORT"
echo
echo "--- top of the SITES table (allocation sites, estimated from samples):"
awk '/^SITES BEGIN/ {on=1} on && n++ < 9' "$REPORT"
echo
DUMP="$OUT/demo.hprof"
rm -f "$DUMP"
echo "\$ java -agentpath:build/libjvmprof.so=heap=dump,file=build/demo/demo.hprof -cp build/demo/classes Demo"
"$JAVA_HOME/bin/java" "-agentpath:$ROOT/build/libjvmprof.so=heap=dump,file=$DUMP" -cp "$OUT/classes" Demo >/dev/null
echo "\$ jvmprof heap build/demo/demo.hprof --top 5"
"$ROOT/build/jvmprof" heap "$DUMP" --top 5
echo
echo "The whole report, with the TRACE records the tables refer to: $REPORT"
echo "The same CPU samples as a flame graph (open it in a browser):    $FLAME"
echo "A heap dump at the program's exit (Eclipse MAT, VisualVM):       $DUMP"
