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
# the compiled class (tests/tools/visualvm_tool.sh finds the jar and compiles
# the tool). RETAINEDREF_JAVA_OPTS (default -Xmx2g) goes to the JVM.
TOOL_DIR=${RETAINEDREF_DIR:-} TOOL_JAVA_OPTS=${RETAINEDREF_JAVA_OPTS:--Xmx2g} exec "$(dirname "$0")/visualvm_tool.sh" RetainedRef "$@"
