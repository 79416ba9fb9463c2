# A real JVM runs rewritten code with -Xverify:all: javac compiling the
# java.time, java.text and java.math sources of the JDK (about 140 files)
# under cpu=times finishes with no VerifyError and writes the same class files
# as without the agent; the report names javac's own methods.
. "$(dirname "$0")/lib.sh"
# the sources of the JDK that compiles them (they patch its java.base): Debian's package for its
# OpenJDK 17, the lib/src.zip a JDK such as Temurin 25 comes with
JAVA_HOME=$JAVA_HOME "$ROOT/tests/tools/javac_sources.sh" "$T" || fail "no JDK sources for javac to compile"
note "$(wc -l <"$T/files") source files"
JAVAC="$JAVA_HOME/bin/javac"
compile() {
    local out=$1; shift
    mkdir -p "$out"
    timeout -k 10 600 "$JAVAC" -J-Xverify:all "$@" -nowarn -XDsuppressNotes --patch-module "java.base=$T/java.base" \
        -d "$out" @"$T/files" >"$out.log" 2>&1
}
compile "$T/plain" || { tail "$T/plain.log" >&2; fail "javac without the agent failed"; }
compile "$T/timed" "-J-agentpath:$AGENT=cpu=times,file=$T/t.txt" ||
    { tail "$T/timed.log" >&2; fail "javac under cpu=times failed"; }
! grep -q "VerifyError\|ClassFormatError\|IllegalAccessError" "$T/timed.log" || fail "$(grep -m1 Error "$T/timed.log")"
n=$(find "$T/plain" -name '*.class' | wc -l)
[ "$n" -gt 200 ] || fail "only $n class files"
diff -r "$T/plain" "$T/timed" >/dev/null || fail "class files differ under cpu=times"
grep -m1 "cpu=times:" "$T/timed.log" >&2
grep -q "classes failed" "$T/timed.log" || fail "no cpu=times summary"
sed -n '/^CPU TIME (ms) BEGIN/,/END/p' "$T/t.txt" | grep -q ' com\.sun\.tools\.javac\.' ||
    fail "no javac method in the CPU TIME table"
note "$n identical class files"
