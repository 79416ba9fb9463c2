# Heap dumps with virtual threads (JDK 21+; skipped in one line on an older
# JDK): VThreadHeld's 200 parked virtual threads each hold one Held object
# only from a local of their stack. In the dumps of both dumpers, taken on
# SIGQUIT, VisualVM's heap library resolves every reference and counts the
# 200 Held, and each Held is a ROOT JAVA FRAME of its own virtual thread, which
# a ROOT THREAD OBJECT names (tests/tools/hprof_frame_roots.py). HotSpot's
# dumper does so itself; JVMTI's heap walk reports those frames by the
# virtual thread, which GetAllStackTraces leaves out, so dumper=jvmti finds
# the virtual threads in the heap (before, its 200 roots were all given to
# thread serial 0, no thread).
. "$(dirname "$0")/lib.sh"
[ "$JDK_FEATURE" -ge 21 ] || { echo "skipped: t5006 needs virtual threads, JDK 21+ (JDK $JDK_FEATURE here; tests/run.sh runs it as it25/t5006)"; exit 0; }
"$ROOT/tools/deps.sh" visualvm || fail "tools/deps.sh visualvm failed"
VERIFY="$ROOT/tests/tools/heapverify.sh"
N=200
for dumper in hotspot jvmti; do
    rm -f "$T/stop" "$T/$dumper.hprof"
    "$JAVA" "-agentpath:$AGENT=heap=dump,dumper=$dumper,doe=n,file=$T/$dumper.hprof" -cp "$CLASSES" VThreadHeld $N "$T/stop" \
        >"$T/out" 2>"$T/err" &
    PID=$!
    trap 'touch "$T/stop"; kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf "$T"' EXIT
    for _ in $(seq 300); do grep -q '^ready$' "$T/out" 2>/dev/null && break; sleep 0.1; done
    grep -q '^ready$' "$T/out" || { cat "$T/err" >&2; fail "VThreadHeld did not get ready"; }
    kill -QUIT $PID
    for _ in $(seq 300); do grep -q 'heap dump: wrote\|heap dump failed' "$T/err" && break; sleep 0.1; done
    touch "$T/stop"
    wait $PID || { cat "$T/err" >&2; fail "$dumper: VThreadHeld failed"; }
    grep -q '^done$' "$T/out" || fail "$dumper: VThreadHeld did not end"
    [ -s "$T/$dumper.hprof" ] || { cat "$T/err" >&2; fail "$dumper: no dump"; }
    "$VERIFY" "$T/$dumper.hprof" --count 'VThreadHeld$Held' >"$T/v.out" 2>"$T/v.err" ||
        { cat "$T/v.out" "$T/v.err" >&2; fail "$dumper: HeapVerify failed"; }
    grep -q ' unresolved=0 ' "$T/v.out" || fail "$dumper: unresolved references: $(cat "$T/v.out")"
    grep -qx "count VThreadHeld\$Held $N" "$T/v.out" || fail "$dumper: not $N Held: $(cat "$T/v.out")"
    roots=$(python3 "$ROOT/tests/tools/hprof_frame_roots.py" "$T/$dumper.hprof" 'VThreadHeld$Held') ||
        fail "$dumper: hprof_frame_roots.py failed"
    note "$dumper: $roots"
    [ "$roots" = "frame_roots $N threads $N named $N" ] ||
        fail "$dumper: Held's frame roots: '$roots', not one each in $N virtual threads named by their thread object"
done
echo "t5006 ok"
