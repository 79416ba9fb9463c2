# com.sun.tracing probes (ProbeFire): bad provider interfaces refused with
# their messages, with and without an agent; without an agent probes do
# nothing; bpftrace attached to a running JVM counts exactly the firings
# made, with their int, long, boolean, double (bits) and String arguments,
# and isEnabled follows it; the annotations' names are what bpftrace lists
# and sees; two providers of one interface are both there; firings reach
# the trace and a plugin in order among method calls; 100 providers made
# and disposed leave no file, mapping or descriptor behind;
# com.sun.tracing.dtrace=disable makes no USDT probes.
. "$(dirname "$0")/lib.sh"
"$ROOT/tools/deps.sh" bpftrace || fail "bpftrace cannot be installed"
[ "$(id -u)" -eq 0 ] || fail "the probe tests attach bpftrace to a JVM: they run as root"

# bad interfaces: the same messages with and without an agent
cat >"$T/want-bad.txt" <<'TXT'
NotVoid: provider ProbeFire$NotVoid: probe value returns int: a probe method must return void
WithArray: provider ProbeFire$WithArray: probe bytes: parameter 1 has type byte[], which a probe cannot carry (accepted: primitives, their boxes, String, and other objects, passed as 0)
BadProviderName: provider ProbeFire$BadProviderName: provider name "bad-name" is not a valid USDT name (letters, digits and '_', not starting with a digit, at most 64 characters)
BadProbeName: provider ProbeFire$BadProbeName: probe p: probe name "9lives" is not a valid USDT name (letters, digits and '_', not starting with a digit, at most 64 characters)
BadModule: provider ProbeFire$BadModule: module name "../up" is not a valid file name (letters, digits, '_', '-' and '.', not starting with '.', at most 64 characters)
Twice: provider ProbeFire$Twice: two methods are probe "p": (I)V and (J)V; give one a @ProbeName
TooMany: provider ProbeFire$TooMany: probe p has 13 parameters: a probe takes at most 12
NotAProvider: provider ProbeFire$NotAProvider: a provider must be an interface extending com.sun.tracing.Provider
null: NullPointerException
TXT
run_java "trace=probe,tracefile=/dev/null" ProbeFire bad
expect_rc 0
diff -u "$T/want-bad.txt" "$T/out" >&2 || fail "bad providers (agent): messages differ"
RC=0
timeout -k 10 60 "$JAVA" -cp "$CLASSES:$ROOT/build/jvmprof.jar" ProbeFire bad >"$T/out" 2>"$T/err" || RC=$?
expect_rc 0
diff -u "$T/want-bad.txt" "$T/out" >&2 || fail "bad providers (no agent): messages differ"

# without an agent: probes fire into nothing, isEnabled is false
RC=0
timeout -k 10 60 "$JAVA" -cp "$CLASSES:$ROOT/build/jvmprof.jar" ProbeFire noagent >"$T/out" 2>"$T/err" || RC=$?
expect_rc 0
expect_grep "^noagent enabled false provider Fire$" "$T/out"
expect_grep "^getProbe(other) null$" "$T/out"

# wait_line FILE PATTERN: until a line of FILE matches (60 s at most)
wait_line() {
    for _ in $(seq 600); do
        grep -q "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    fail "no line '$2' in $1: $(cat "$1")"
}

# bpftrace counts 1000 firings of Fire:values, with their arguments
JPID=""
"$JAVA" "-agentpath:$AGENT=trace=user,tracefile=/dev/null" -cp "$CLASSES" ProbeFire bpf 1000 >"$T/j.out" 2>"$T/j.err" &
JPID=$!
trap 'kill -9 $JPID 2>/dev/null; rm -rf "$T"' EXIT
wait_line "$T/j.out" '^ready$'
expect_grep "^enabled before false$" "$T/j.out"
SO=$(sed -n 's/^provider Fire (USDT probes in \(.*\))$/\1/p' "$T/j.out")
[ -f "$SO" ] || fail "no USDT shared object: $(cat "$T/j.out")"
case "$SO" in */jvmprof-$JPID/*/Fire.so) ;; *) fail "the shared object's path: $SO" ;; esac
bpftrace -l 'usdt:*' -p "$JPID" >"$T/list.txt" 2>/dev/null
expect_grep "^usdt:.*/jvmprof-$JPID/[0-9]*/Fire.so:Fire:values$" "$T/list.txt"
expect_grep "^usdt:.*/jvmprof-$JPID/[0-9]*/Fire.so:Fire:count$" "$T/list.txt"
expect_grep "^usdt:.*/libjvmprof.so:jvmprof:probe$" "$T/list.txt"
bpftrace -p "$JPID" -e "usdt:$SO:Fire:values { @n = count(); @i = sum(arg0); @l = max(arg1); @b = sum(arg2);
    @d[arg3] = count(); @s[str(arg4)] = count(); }" >"$T/bpf.out" 2>"$T/bpf.err" &
BPID=$!
wait_line "$T/j.out" '^fired 1000$'
kill -INT "$BPID"
wait "$BPID" || true
wait_line "$T/j.out" '^detached '
expect_grep "^enabled while traced true$" "$T/j.out"
expect_grep "^detached true$" "$T/j.out"
# the same firings through the fixed probe jvmprof:probe: provider, probe, count, the arguments' array
bpftrace -p "$JPID" -e 'usdt:*:jvmprof:probe { @n[str(arg0), str(arg1), arg2] = count();
    @i = sum(*(int64 *)arg3); @l = max(*(int64 *)(arg3 + 8)); @s[str(*(uint64 *)(arg3 + 32))] = count(); }' \
    >"$T/fixed.out" 2>"$T/fixed.err" &
BPID=$!
wait_line "$T/j.out" '^fired 1000 (jvmprof:probe)$'
kill -INT "$BPID"
wait "$BPID" || true
wait_line "$T/j.out" '^detached .* (jvmprof:probe)$'
wait "$JPID" || fail "ProbeFire bpf ended with $?: $(cat "$T/j.err")"
expect_grep "^enabled while traced true (jvmprof:probe)$" "$T/j.out"
expect_grep "^detached true (jvmprof:probe)$" "$T/j.out"
expect_grep "^@n\[Fire, values, 5\]: 1000$" "$T/fixed.out"
expect_grep "^@i: 499500$" "$T/fixed.out"
expect_grep "^@l: 1099511628775$" "$T/fixed.out"
expect_grep "^@s\[hello-1\]: 333$" "$T/fixed.out"
expect_grep "^@n: 1000$" "$T/bpf.out"
expect_grep "^@i: 499500$" "$T/bpf.out"                         # 0 + 1 + ... + 999
expect_grep "^@l: 1099511628775$" "$T/bpf.out"                  # 2^40 + 999
expect_grep "^@b: 500$" "$T/bpf.out"                            # true for even k
expect_grep "^@d\[4609434218613702656\]: 1000$" "$T/bpf.out"    # 1.5's bits, 0x3ff8000000000000
expect_grep "^@s\[hello-0\]: 334$" "$T/bpf.out"
expect_grep "^@s\[hello-1\]: 333$" "$T/bpf.out"
expect_grep "^@s\[hello-2\]: 333$" "$T/bpf.out"
[ ! -e "$SO" ] || fail "$SO is still there after dispose"
note "bpftrace: $(grep -c '^@' "$T/bpf.out") maps, 1000 firings counted"

# names: @ProviderName, @ProbeName, @ModuleName, @FunctionName; two providers of Fire
mkfifo "$T/in"
"$JAVA" "-agentpath:$AGENT=trace=user,tracefile=/dev/null" -cp "$CLASSES" ProbeFire names <"$T/in" >"$T/j.out" 2>"$T/j.err" &
JPID=$!
exec 7>"$T/in"
wait_line "$T/j.out" '^ready$'
bpftrace -l 'usdt:*' -p "$JPID" >"$T/list.txt" 2>/dev/null
expect_grep "^usdt:.*/jvmprof-$JPID/[0-9]*/mymodule.so:jvmprof_named:renamed$" "$T/list.txt"
# bpftrace 0.17 lists one module per provider:probe with -p; by path, each
bpftrace -l "usdt:/tmp/jvmprof-$JPID/*/*.so:*" >"$T/list2.txt" 2>/dev/null
[ "$(grep -c ':Fire:values$' "$T/list2.txt")" = 2 ] || fail "two providers of Fire are not both listed: $(cat "$T/list2.txt")"
timeout 20 bpftrace -p "$JPID" -e 'usdt:*:jvmprof_named:renamed { printf("seen %s %d\n", usym(reg("ip")), arg0); exit(); }' \
    >"$T/bpf.out" 2>"$T/bpf.err" &
BPID=$!
for _ in $(seq 100); do
    grep -q '^seen' "$T/bpf.out" && break
    echo x >&7
    sleep 0.2
done
wait "$BPID" || true
expect_grep "^seen myfunction 7$" "$T/bpf.out"
timeout 20 bpftrace -p "$JPID" -e 'usdt:*:Fire:count { exit(); } interval:ms:500 { exit(); }' >"$T/bpf.out" 2>"$T/bpf.err" || true
expect_grep "^Attaching 3 probes" "$T/bpf.out"                  # both Fire:count, and the interval
exec 7>&-
wait "$JPID" || fail "ProbeFire names ended with $?"

# the trace and a plugin: the firings among the calls, in order
cc -shared -fPIC -I"$ROOT/include" -o "$T/libprobes.so" "$ROOT/tests/plugins/probes.c" || fail "cc probes.c"
run_java "trace=exec+probe,include=ProbeFire,exclude=ProbeFire\$,tracefile=$T/o.trace,plugin=$T/libprobes.so" \
    ProbeFire order
expect_rc 0
expect_grep "^order done$" "$T/out"
expect_grep "^trigger: probe count: argument 1 is java.lang.String, not int$" "$T/out"
cat >"$T/want-order.txt" <<'TXT'
enter ProbeFire.outer
probe Fire:::values(0, 0, true, -0.25, "s0")
enter ProbeFire.inner
probe Fire:::count(0)
exit ProbeFire.inner
exit ProbeFire.outer
enter ProbeFire.outer
probe Fire:::values(1, -1, true, -0.25, null)
enter ProbeFire.inner
probe Fire:::count(1)
exit ProbeFire.inner
exit ProbeFire.outer
enter ProbeFire.outer
probe Fire:::values(2, -2, true, -0.25, "s2")
enter ProbeFire.inner
probe Fire:::count(2)
exit ProbeFire.inner
exit ProbeFire.outer
probe jvmprof_named:mymodule:myfunction:renamed(42)
probe Fire:::count(99)
TXT
"$ROOT/build/jvmprof" trace "$T/o.trace" >"$T/o.txt" 2>"$T/o.err" || fail "jvmprof trace: $(cat "$T/o.err")"
awk '$3 == "probe" || (($3 == "enter" || $3 == "exit") && $4 ~ /^ProbeFire\.(outer|inner)\(/) {
        line = $3 " " $4; for (i = 5; i <= NF && $3 == "probe"; i++) line = line " " $i
        sub(/\(LProbeFire.*$/, "", line); print line }' "$T/o.txt" >"$T/got-trace.txt"
diff -u "$T/want-order.txt" "$T/got-trace.txt" >&2 || fail "the trace's firings and calls differ"
sed -n 's/^plugin: //p' "$T/err" | sed 's/ attributes=.*//' >"$T/got-plugin.txt"
diff -u "$T/want-order.txt" "$T/got-plugin.txt" >&2 || fail "the plugin's firings and calls differ"
expect_grep "^plugin: probe jvmprof_named:.* attributes=provider=Evolving/Stable/Common module=Private/Private/Unknown " "$T/err"
"$ROOT/build/jvmprof" trace --chrome "$T/o.trace" >"$T/o.json" 2>/dev/null || fail "jvmprof trace --chrome"
python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["traceEvents"]; n=[x for x in e if x.get("cat")=="probe"]; sys.exit(0 if len(n)==8 else 1)' "$T/o.json" ||
    fail "--chrome: not 8 probe events"

# 100 providers made, fired and disposed: nothing left
run_java "trace=probe,tracefile=/dev/null" ProbeFire leak 100
expect_rc 0
before=$(sed -n 's/^before //p' "$T/out")
after=$(sed -n 's/^after //p' "$T/out")
[ -n "$before" ] && [ "$before" = "$after" ] || fail "left behind: before [$before] after [$after]"
expect_grep "^during fds [0-9]* mappings [1-9]" "$T/out"
expect_grep "^after fds [0-9]* mappings 0 files [02]$" "$T/out"   # the directory and its owner file
note "100 providers: $after"

# com.sun.tracing.dtrace=disable: no USDT probes; the trace still has the firings
RC=0
timeout -k 10 60 "$JAVA" "-agentpath:$AGENT=trace=probe,tracefile=$T/d.trace" -Dcom.sun.tracing.dtrace=disable \
    -cp "$CLASSES" ProbeFire order >"$T/out" 2>"$T/err" || RC=$?
expect_rc 0
"$ROOT/build/jvmprof" trace "$T/d.trace" >"$T/d.txt" 2>/dev/null
[ "$(grep -c ' probe ' "$T/d.txt")" = 8 ] || fail "dtrace=disable: not 8 firings in the trace"
[ ! -d "/tmp/jvmprof-$JPID" ] || fail "/tmp/jvmprof-$JPID left after exit"

# docs/probes.md's example (examples/probes/MyApplication.java) runs as it says
mkdir -p "$T/ex"
"$JAVA_HOME/bin/javac" -cp "$ROOT/build/jvmprof.jar" -d "$T/ex" "$ROOT/examples/probes/MyApplication.java" ||
    fail "javac MyApplication.java"
RC=0
timeout -k 10 60 "$JAVA" "-agentpath:$AGENT=trace=probe,tracefile=$T/ex.trace" -cp "$T/ex" MyApplication 2 \
    >"$T/out" 2>"$T/err" || RC=$?
expect_rc 0
"$ROOT/build/jvmprof" trace "$T/ex.trace" >"$T/ex.txt" 2>/dev/null
expect_grep " main probe MyProvider:::startProbe()$" "$T/ex.txt"
expect_grep " main probe MyProvider:::finishProbe(20)$" "$T/ex.txt"
