#!/bin/bash
# accuracy.sh NAME -- JAVA-ARGS...
#
# Loads jvmprof, async-profiler and JDK Flight Recorder into ONE JVM running
# JAVA-ARGS, each sampling CPU every millisecond, and compares the methods'
# self (leaf) shares (bench/accuracy.py): the largest amount by which a
# method's share in jvmprof exceeds the larger of the two others', and the
# share of jvmprof's samples that have no Java frame.
#
# async-profiler is a peer, not part of jvmprof: build it yourself and point
# AP_LIB at its libasyncProfiler.so (it runs on signal 40 so that both
# samplers can be installed). Output goes to ${OUT:-/tmp/accuracy}-NAME/.
#
# Example (from the repository root, after `make` and one `make bench`, which
# extracts the javac sources):
#   AP_LIB=/opt/async-profiler/lib/libasyncProfiler.so bench/accuracy.sh h2 -- \
#       -cp bench/out/classes:/usr/share/java/h2.jar H2Load 4 4000 20000
set -euo pipefail
name=${1:?usage: accuracy.sh NAME -- JAVA-ARGS...}; shift
[[ ${1:-} == -- ]] && shift
: "${AP_LIB:?set AP_LIB to async-profiler\'s libasyncProfiler.so}"
[[ -f $AP_LIB ]] || { echo "accuracy.sh: no file $AP_LIB (AP_LIB)" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
JDK=${JDK:-/usr/lib/jvm/java-17-openjdk-amd64}
out=${OUT:-/tmp/accuracy}-$name
rm -rf "$out"; mkdir -p "$out"
# JFR's profile settings with the Java sampler at 1 ms
sed '/name="jdk.ExecutionSample"/,/<\/event>/s|<setting name="period"\([^>]*\)>[^<]*<|<setting name="period"\1>1 ms<|' \
    "$JDK/lib/jfr/profile.jfc" >"$out/profile-1ms.jfc"
"$JDK/bin/java" -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints \
    "-agentpath:$AP_LIB=start,event=cpu,interval=1ms,signal=40,collapsed,file=$out/ap.collapsed" \
    "-agentpath:$root/build/libjvmprof.so=cpu=samples,interval=1,verbose=y,file=$out/jp.txt,collapsed=$out/jp.collapsed" \
    "-XX:StartFlightRecording=settings=$out/profile-1ms.jfc,filename=$out/rec.jfr" "$@" >"$out/stdout" 2>"$out/stderr"
"$JDK/bin/jfr" print --events jdk.ExecutionSample --stack-depth 1 "$out/rec.jfr" >"$out/jfr.txt"
python3 "$here/accuracy.py" "$out/jp.collapsed" "$out/ap.collapsed" "$out/jfr.txt"
