# Threads that started before jvmprof could see them begin are sampled: the
# JDK's Reference Handler in a wall-clock run, and a thread that a Java agent
# listed before -agentpath starts from its premain (and waits for, so its
# ThreadStart comes before jvmprof's VM init) in a CPU run. Their OS thread
# ids and JNIEnvs come from HotSpot's own structure tables.
. "$(dirname "$0")/lib.sh"
# wall=: the Reference Handler, which starts long before VM init, is signalled
run_java "wall=10,thread=y,file=$T/w.txt" EarlyThreads
expect_rc 0
expect_grep "EarlyThreads done" "$T/out"
sed -n '/^WALL SAMPLES BEGIN/,/^WALL SAMPLES END/p' "$T/w.txt" >&2
rh=$(grep 'name="Reference Handler"' "$T/w.txt" | grep -o 'id = [0-9]*' | grep -o '[0-9]*')
[ -n "$rh" ] || fail "no THREAD START for the Reference Handler"
n=$(sed -n '/^WALL SAMPLES BEGIN/,/^WALL SAMPLES END/p' "$T/w.txt" | grep -E '^ *[0-9]+ ' |
    while read -r _ _ _ count tr _; do grep -q "^TRACE $tr: (thread=$rh)" "$T/w.txt" && echo "$count"; done |
    awk '{s += $1} END {print s + 0}')
[ "$n" -ge 50 ] || fail "the Reference Handler (thread $rh) got $n wall samples in 1.6 s at 10 ms"
note "Reference Handler: $n wall samples"

# cpu=samples: the early thread's CPU is sampled
mkdir -p "$T/jar"
printf 'Premain-Class: EarlyThreads\n' >"$T/jar/manifest.txt"
(cd "$CLASSES" && "$JAVA_HOME/bin/jar" cfm "$T/early.jar" "$T/jar/manifest.txt" EarlyThreads*.class) ||
    fail "cannot build the agent jar"
RC=0
timeout -k 10 120 "$JAVA" -javaagent:"$T/early.jar" "-agentpath:$AGENT=cpu=samples,thread=y,file=$T/c.txt" \
    -cp "$CLASSES" EarlyThreads >"$T/out" 2>"$T/err" || RC=$?
expect_rc 0
cpu_rows "$T/c.txt" | head -3 >&2
read -r _ share _ count _ method <<<"$(cpu_rows "$T/c.txt" | sed -n 1p)"
case "$method" in EarlyThreads.spin|EarlyThreads.lambda\$premain\$0) ;;
    *) fail "the top CPU row is '$method', not the early thread's spin" ;; esac
[ "$count" -ge 50 ] || fail "the early thread got only $count CPU samples in 1.5 s of CPU at 10 ms"
exit 0
