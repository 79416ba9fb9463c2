# rewriter: rewritten classes load, pass the JVM's verifier (-Xverify:all)
# and behave as before. (1) tests/programs/RewriteSubjects (javac output:
# switches, try/finally, uninitialized objects, lambdas ...; it prints stack
# trace line numbers) and the classes tests/programs/BigMethodGen writes
# (version 49 and 52 methods so long that branches must become goto_w/jsr_w
# or `if!cond +8; goto_w`, three of them needing a stack map frame the
# rewriter must infer) print the same thing rewritten as not. (2) javac
# itself, every class of jdk.compiler rewritten and put in front with
# --patch-module, compiles RewriteSubjects.java into byte-identical class
# files; over a thousand rewritten classes are loaded and verified doing so.
# jvmprof.Tracker (build/jvmprof.jar) is on the class path, its methods idle.
. "$(dirname "$0")/lib.sh"
RT="$ROOT/build/tools/cf_roundtrip"
[ -x "$RT" ] || make -C "$ROOT" -s build/tools/cf_roundtrip >&2 || fail "cannot build $RT"
JAR="$ROOT/build/jvmprof.jar"
[ -f "$JAR" ] || fail "no $JAR (run make)"

# summary_field NAME FILE: a number from cf_roundtrip's summary line
summary_field() { sed -n "s/^cf_roundtrip: .* $1 \([0-9]*\).*/\1/p" "$2"; }

# (1) the test programs
mkdir -p "$T/orig"
"$JAVA" -cp "$CLASSES" BigMethodGen "$T/orig" || fail "BigMethodGen failed"
cp "$CLASSES"/RewriteSubjects*.class "$CLASSES"/Hello.class "$T/orig/" || fail "test programs not compiled"
RC=0
"$RT" -v --out "$T/new" "$T/orig" >"$T/rt.out" 2>"$T/rt.err" || RC=$?
cat "$T/rt.out" "$T/rt.err" >&2
[ "$RC" = 0 ] || fail "cf_roundtrip found mismatches"
# GenWide49: if_icmpge, goto, jsr; GenWide52: ifle (a frame follows it), goto, and three ifle/ifeq
# after which the rewriter infers a frame (inferred, mix, the constructor)
widened=$(summary_field widened "$T/rt.out") inferred=$(summary_field frames_added "$T/rt.out")
[ "$widened" -ge 8 ] || fail "$widened branches widened, expected at least 8"
[ "$inferred" -ge 3 ] || fail "$inferred stack map frames inferred, expected at least 3"
[ "$(summary_field unchanged "$T/rt.out")" = 0 ] || fail "methods left unchanged"
for main in RewriteSubjects Hello GenWide49 GenWide52; do
    timeout -k 10 120 "$JAVA" -Xverify:all -cp "$T/orig" "$main" >"$T/want" 2>"$T/want.err" ||
        { cat "$T/want.err" >&2; fail "$main fails before rewriting"; }
    RC=0
    timeout -k 10 120 "$JAVA" -Xverify:all -Xlog:class+load=info:file="$T/load.txt" -cp "$T/new:$JAR" "$main" \
        >"$T/got" 2>"$T/got.err" || RC=$?
    [ "$RC" = 0 ] || { cat "$T/got.err" >&2; fail "$main rewritten: exit code $RC"; }
    cmp -s "$T/want" "$T/got" || { diff "$T/want" "$T/got" | head -20 >&2; fail "$main: output changed"; }
    grep -q 'jvmprof.Tracker source:' "$T/load.txt" || fail "$main rewritten never called jvmprof.Tracker"
    note "$main: same output ($(wc -l <"$T/got") lines) rewritten, verified"
done

# (2) javac, rewritten
dir="$ROOT/build/jdk-classes-$JDK_FEATURE"
id="$JAVA_HOME/lib/modules $(stat -c '%s %Y' "$JAVA_HOME/lib/modules")"
if [ "$(cat "$dir/.stamp" 2>/dev/null)" = "$id" ]; then
    compiler="$dir/jdk.compiler" # extracted by t3001
else
    "$JAVA_HOME/bin/jimage" extract --include 'regex:/jdk\.compiler/.*' --dir "$T/jdk" "$JAVA_HOME/lib/modules" ||
        fail "jimage extract failed"
    compiler="$T/jdk/jdk.compiler"
fi
RC=0
"$RT" --out "$T/javac" "$compiler" >"$T/rt.out" 2>"$T/rt.err" || RC=$?
cat "$T/rt.out" >&2
[ "$RC" = 0 ] || { head -20 "$T/rt.err" >&2; fail "cf_roundtrip found mismatches in jdk.compiler"; }
src="$ROOT/tests/programs/RewriteSubjects.java"
"$JAVA_HOME/bin/javac" -d "$T/c-orig" "$src" || fail "javac failed"
RC=0
timeout -k 10 120 "$JAVA" -Xverify:all --patch-module jdk.compiler="$T/javac" --add-reads jdk.compiler=ALL-UNNAMED \
    -Xbootclasspath/a:"$JAR" -Xlog:class+load=info:file="$T/load.txt" \
    -m jdk.compiler/com.sun.tools.javac.Main -d "$T/c-new" "$src" >"$T/javac.out" 2>&1 || RC=$?
[ "$RC" = 0 ] || { head -30 "$T/javac.out" >&2; fail "rewritten javac: exit code $RC"; }
diff -r "$T/c-orig" "$T/c-new" >&2 || fail "rewritten javac wrote different class files"
loaded=$(grep -c "source: file:$T/javac/" "$T/load.txt")
[ "$loaded" -ge 500 ] || fail "only $loaded rewritten javac classes loaded"
grep -q 'jvmprof.Tracker source:' "$T/load.txt" || fail "rewritten javac never called jvmprof.Tracker"
"$JAVA" -cp "$T/c-new" RewriteSubjects >"$T/got" || fail "program compiled by rewritten javac fails"
"$JAVA" -cp "$T/c-orig" RewriteSubjects >"$T/want"
cmp -s "$T/want" "$T/got" || fail "program compiled by rewritten javac prints something else"
note "javac: $loaded rewritten classes loaded and verified, identical class files"
