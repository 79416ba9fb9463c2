#!/bin/sh
# heapverify.sh FILE.hprof [--count CLASSNAME]... : checks a heap dump with
# tests/tools/HeapVerify.java, which reads it with VisualVM's heap library
# (Debian package visualvm: `tools/deps.sh visualvm`). Prints
# "classes=N instances=N references=N unresolved=N roots=N" and a line
# "count CLASSNAME N" per --count; exits 0 if every reference in the dump
# resolves, 1 if not, 2 if the dump cannot be read (or the tool cannot run).
# HeapVerify is compiled once into $HEAPVERIFY_DIR (default build/heapverify),
# and again when HeapVerify.java or the jar is newer than the compiled class
# (tests/tools/visualvm_tool.sh finds the jar and compiles the tool).
TOOL_DIR=${HEAPVERIFY_DIR:-} TOOL_JAVA_OPTS='' exec "$(dirname "$0")/visualvm_tool.sh" HeapVerify "$@"
