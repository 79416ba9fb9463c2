# jdk25.sh — sourced after lib.sh by the tests that need JDK 21 or later
# (virtual threads): JDK25_HOME (default Temurin 25's usual place), its java
# as JAVA25, and the programs of tests/programs21 compiled with it into
# $T/classes21 (so JDK 17's javac never sees them). Without that JDK the
# test says so in one line and passes.
JDK25_HOME=${JDK25_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
if [ ! -x "$JDK25_HOME/bin/java" ] || [ ! -x "$JDK25_HOME/bin/javac" ]; then
    echo "skipped: no JDK 25 at JDK25_HOME=$JDK25_HOME"
    exit 0
fi
JAVA25="$JDK25_HOME/bin/java"
"$JDK25_HOME/bin/javac" -d "$T/classes21" "$ROOT"/tests/programs21/*.java || fail "tests/programs21 did not compile with $JDK25_HOME"

# run_java25 OPTIONS CLASS ARGS...: run_java on JDK 25 with the tests/programs21 classes
run_java25() {
    local opts=$1; shift
    local agent=()
    if [ -n "$opts" ]; then agent=("-agentpath:$AGENT=$opts"); fi
    RC=0
    timeout -k 10 180 "$JAVA25" "${agent[@]}" -cp "$T/classes21" "$@" >"$T/out" 2>"$T/err" || RC=$?
}
