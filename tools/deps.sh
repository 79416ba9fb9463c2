#!/bin/sh
# Installs the Debian packages the build and tests need, only if missing:
# a C compiler with ASan/UBSan, make, and a JDK (javac, jar, jvmti.h).
# `tools/deps.sh jdk-source` also installs the JDK's sources (src.zip), which
# the javac integration test compiles. `tools/deps.sh chromium` also installs
# Chromium, which the flame graph browser test runs headless. `tools/deps.sh
# visualvm` also installs VisualVM, whose heap dump library the heap dump
# tests use to check dumps independently (tests/tools/heapverify.sh).
# `tools/deps.sh clang` also installs clang and its libFuzzer runtime, which
# the fuzz targets (make fuzz, and the short run in make test) are built with.
# `tools/deps.sh go` also installs Go, whose go tool pprof reads the pprof files.
# `tools/deps.sh node` also installs Node.js and npm, with which a test reads
# them again through npm's pprof-format.
# `tools/deps.sh bpftrace` also installs bpftrace, which the probe tests attach
# to a running JVM's USDT probes.
# `tools/deps.sh perf` also installs perf, which a sampling test runs beside
# the agent as the reference for where the CPU went.
missing=""
if [ "${1:-}" = jdk-source ]; then
    [ -f /usr/lib/jvm/openjdk-17/src.zip ] || missing="$missing openjdk-17-source"
    command -v unzip >/dev/null 2>&1 || missing="$missing unzip"
fi
if [ "${1:-}" = chromium ]; then
    command -v chromium >/dev/null 2>&1 || missing="$missing chromium"
fi
if [ "${1:-}" = clang ]; then
    command -v clang >/dev/null 2>&1 || missing="$missing clang"
    # libFuzzer is only recommended by clang's packages: check for it as well
    command -v clang >/dev/null 2>&1 && [ -f "$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a)" ] ||
        missing="$missing libclang-rt-dev"
fi
if [ "${1:-}" = visualvm ]; then
    ls /usr/share/visualvm/*/modules/org-graalvm-visualvm-lib-jfluid-heap.jar >/dev/null 2>&1 || missing="$missing visualvm"
fi
if [ "${1:-}" = node ]; then
    command -v node >/dev/null 2>&1 || missing="$missing nodejs"
    command -v npm >/dev/null 2>&1 || missing="$missing npm"
fi
if [ "${1:-}" = go ]; then
    command -v go >/dev/null 2>&1 || missing="$missing golang-go"
fi
if [ "${1:-}" = perf ]; then
    command -v perf >/dev/null 2>&1 || missing="$missing linux-perf"
fi
if [ "${1:-}" = bpftrace ]; then
    command -v bpftrace >/dev/null 2>&1 || missing="$missing bpftrace"
fi
command -v gcc >/dev/null 2>&1 || missing="$missing gcc libc6-dev"
# <sys/sdt.h>: the agent's fixed USDT probe jvmprof:probe
echo '#include <sys/sdt.h>' | ${CC:-gcc} -E -x c - >/dev/null 2>&1 || missing="$missing systemtap-sdt-dev"
# <zlib.h>: the pprof format is gzipped
echo '#include <zlib.h>' | ${CC:-gcc} -E -x c - >/dev/null 2>&1 || missing="$missing zlib1g-dev"
command -v make >/dev/null 2>&1 || missing="$missing make"
jh=$(dirname "$0")/java-home.sh
jh=$($jh)
[ -x "$jh/bin/javac" ] && [ -f "$jh/include/jvmti.h" ] || missing="$missing openjdk-17-jdk-headless"
command -v python3 >/dev/null 2>&1 || missing="$missing python3"
if [ -n "$missing" ]; then
    echo "jvmprof: installing missing Debian packages:$missing" >&2
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get install -y $missing >/dev/null 2>&1 || { $SUDO apt-get update >/dev/null && $SUDO apt-get install -y $missing; } || {
        echo "jvmprof: could not install:$missing" >&2; exit 1; }
fi
exit 0
