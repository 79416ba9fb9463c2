# heap=dump with dumper=hotspot (the default) and `jvmprof heap FILE --fix`:
# HotSpot's own dumper writes the file, jvmprof nulls the references to the
# objects it left out.
# 1. `jvmprof heap --fix` on jcmd's dump of HeapGraph: VisualVM's parser finds
#    unresolved references before (class data sharing's archived objects,
#    ~800 on JDK 17) and none after, with every count and value unchanged; a
#    second --fix changes nothing; a malformed file is refused, unchanged.
# 2. dumper=hotspot at exit (CDS on and off), twice on SIGQUIT (numbered), from
#    jvmprof.Control.dumpHeap, and format=a: every dump verified, the same
#    class counts as jcmd's dump of the same state. Without java.management
#    (--limit-modules java.base) the default falls back to JVMTI's walk and
#    says so; dumper=hotspot named is an error saying what to use. A dump of
#    seconds (400 MiB) prints the objects written so far once a second.
# 3. An unwritable path and a full disk: one clear error, no file left under
#    either name, the program runs on.
. "$(dirname "$0")/lib.sh"
cd "$T"
. "$ROOT/tests/it/heapgraph.sh"

# 1. jcmd's dump, fixed by the command line tool
start_heapgraph ""
"$JAVA_HOME/bin/jcmd" $PID GC.heap_dump "$T/jcmd.hprof" >"$T/jcmd.out" 2>&1 || { cat "$T/jcmd.out" >&2; fail "jcmd failed"; }
touch "$T/stop"
wait $PID || fail "HeapGraph failed"
"$VERIFY" "$T/jcmd.hprof" "${CHECKS[@]}" >"$T/before.out" 2>&1
before=$(sed -n 's/.* unresolved=\([0-9]*\) .*/\1/p' "$T/before.out")
[ -n "$before" ] && [ "$before" -gt 0 ] || { cat "$T/before.out" >&2; fail "jcmd's dump has no unresolved references to fix (CDS off?)"; }
hist "$T/jcmd.hprof" >"$T/jcmd.hist"
cp "$T/jcmd.hprof" "$T/fixed.hprof"
"$JVMPROF" heap "$T/fixed.hprof" --fix >"$T/fix.out" 2>&1 || { cat "$T/fix.out" >&2; fail "jvmprof heap --fix failed"; }
grep -q "^$T/fixed.hprof: $before of [0-9]* references named objects the dump does not hold; set to null" "$T/fix.out" \
    || { cat "$T/fix.out" >&2; fail "--fix did not null the $before references VisualVM could not resolve"; }
verify "$T/fixed.hprof"
diff <(grep -E '^(count|sum|static) ' "$T/before.out") <(echo "$EXPECT") >&2 || fail "jcmd's dump: wrong counts or values"
[ "$(stat -c %s "$T/fixed.hprof")" = "$(stat -c %s "$T/jcmd.hprof")" ] || fail "--fix changed the file's size"
diff "$T/jcmd.hist" <(hist "$T/fixed.hprof") >&2 || fail "--fix changed instance counts"
"$JVMPROF" heap "$T/fixed.hprof" --fix >"$T/fix2.out" 2>&1 || fail "a second --fix failed"
grep -q ": 0 of [0-9]* references" "$T/fix2.out" || { cat "$T/fix2.out" >&2; fail "a second --fix changed something"; }
note "jcmd's dump: $before unresolved references; after --fix: $(sed 's/^[^:]*: //' "$T/fix.out")"
# refused: not a heap dump (unchanged), --fix with -o, a missing file
head -c 5000 "$T/jcmd.hprof" >"$T/cut.hprof"
cp "$T/cut.hprof" "$T/cut.orig"
RC=0; "$JVMPROF" heap "$T/cut.hprof" --fix >"$T/bad.out" 2>&1 || RC=$?
expect_rc 1
expect_grep "^jvmprof: $T/cut.hprof: truncated .* (the file is unchanged)$" "$T/bad.out"
cmp -s "$T/cut.hprof" "$T/cut.orig" || fail "a refused --fix changed the file"
RC=0; "$JVMPROF" heap "$T/fixed.hprof" --fix -o "$T/x" >"$T/bad.out" 2>&1 || RC=$?
expect_rc 2
expect_grep "^jvmprof: heap: --fix changes FILE in place and prints one line; it takes no -o$" "$T/bad.out"
RC=0; "$JVMPROF" heap "$T/missing.hprof" --fix >"$T/bad.out" 2>&1 || RC=$?
expect_rc 1
expect_grep "^jvmprof: cannot open $T/missing.hprof: No such file or directory$" "$T/bad.out"

# 2. dumper=hotspot: at exit, CDS on and off
touch "$T/stop"
for share in auto off; do
    run_java "heap=dump,file=$T/exit-$share.hprof" -Xshare:$share HeapGraph "$T/stop"
    expect_rc 0
    expect_grep "^sum 5622750 " "$T/out"
    expect_grep "heap dump: wrote $T/exit-$share.hprof ([0-9]* bytes, [0-9]* objects and classes) in .*HotSpot's dumper" "$T/err"
    verify "$T/exit-$share.hprof"
    cp "$T/err" "$T/err-$share"
done
expect_grep "heap dump: [0-9]* references named objects HotSpot's dumper left out (class data sharing's archived objects): written as null" "$T/err-auto"
expect_no_grep "written as null" "$T/err-off"
note "CDS on: $(grep -o '[0-9]* references named objects' "$T/err-auto") HotSpot left out, nulled"

# on SIGQUIT (twice: numbered), compared with jcmd's dump of the same state
sigquit_like_jcmd "heap=dump,doe=n,file=$T/q.hprof"
ls -a "$T" | grep -q '\.tmp' && fail "a temporary file was left behind"

# classes loading and unloading all the time
dumps_while_classes_unload "heap=dump"

# from jvmprof.Control.dumpHeap; format=a
run_java "heap=dump,dumper=hotspot,doe=n,file=$T/unused.hprof" HeapGraph "$T/stop" dump "$T/api.hprof"
expect_rc 0
expect_grep "^dump $T/api.hprof true$" "$T/out"
[ ! -e "$T/unused.hprof" ] || fail "doe=n wrote a dump at exit"
verify "$T/api.hprof"
run_java "heap=dump,dumper=hotspot,format=a,file=$T/exit.txt" HeapGraph "$T/stop"
expect_rc 0
expect_grep "^HEAP DUMP BEGIN ([0-9]* objects, [0-9]* bytes) " "$T/exit.txt"
[ "$(grep -c '^OBJ .*class=HeapGraph\$Derived@' "$T/exit.txt")" = 3000 ] || fail "format=a: not 3000 Derived OBJ entries"
[ "$(tail -1 "$T/exit.txt")" = "HEAP DUMP END" ] || fail "format=a: no HEAP DUMP END at the end"
ls -a "$T" | grep -qE '\.tmp|\.bin$' && fail "format=a left a temporary file behind"

# a dump that takes seconds (BigHeap, 1000 MiB of small objects) prints progress once a second,
# the objects read back from the file so far (HotSpot's dumper writes 400 MiB in under a second on
# a quiet machine of 2026: then there is nothing to report)
mkdir -p "$T/big"
"$JAVA_HOME/bin/javac" -d "$T/big" "$ROOT/bench/workloads/BigHeap.java" || fail "cannot compile BigHeap"
rm -f "$T/stop"
"$JAVA" -Xmx2500m "-agentpath:$AGENT=heap=dump,doe=n,file=$T/big.hprof" -cp "$T/big" BigHeap 1000 "$T/stop" \
    >"$T/big.out" 2>"$T/big.err" &
BIG=$!
trap 'touch "$T/stop"; kill $BIG 2>/dev/null; wait $BIG 2>/dev/null; rm -rf "$T"' EXIT
for _ in $(seq 1 600); do grep -q '^ready' "$T/big.out" 2>/dev/null && break; sleep 0.2; done
grep -q '^ready' "$T/big.out" || { cat "$T/big.err" >&2; fail "BigHeap did not get ready"; }
kill -QUIT $BIG
for _ in $(seq 1 600); do [ -f "$T/big.hprof" ] && break; sleep 0.1; done
touch "$T/stop"
wait $BIG || fail "BigHeap failed with a dump taken"
[ -f "$T/big.hprof" ] || { cat "$T/big.err" >&2; fail "no big.hprof"; }
grep -E "heap dump: [0-9]+ objects written in [0-9.]+ s \([0-9]+ MB of file; heap in use: [0-9]+ MB\)$" "$T/big.err" \
    | sed 's/.*dump: \([0-9]*\) objects.*/\1/' >"$T/progress"
[ -s "$T/progress" ] || { cat "$T/big.err" >&2; fail "no progress line during a dump of seconds (see its time above)"; }
sort -n -c "$T/progress" || fail "progress went backwards: $(tr '\n' ' ' <"$T/progress")"
total=$(sed -n 's/.*heap dump: wrote .*, \([0-9]*\) objects and classes) in .*/\1/p' "$T/big.err")
[ -n "$total" ] && [ "$(tail -1 "$T/progress")" -le "$total" ] || fail "progress beyond the $total objects written"
"$JVMPROF" heap "$T/big.hprof" --top 3 >"$T/big.hist" || fail "jvmprof heap cannot read the big dump"
grep -q 'BigHeap$Node' "$T/big.hist" || { cat "$T/big.hist" >&2; fail "no BigHeap\$Node in the big dump"; }
note "progress: $(tr '\n' ' ' <"$T/progress")of $total"
rm -f "$T/big.hprof"

# no java.management: the default falls back to the walk (and says so); named, an error
run_java "heap=dump,file=$T/lim.hprof" --limit-modules java.base HeapGraph "$T/stop"
expect_rc 0
expect_grep "^sum 5622750 " "$T/out"
expect_grep "heap dump: HotSpot's dumper (HotSpotDiagnosticMXBean, module jdk.management) is not available in this JVM (.*); taking the dump by JVMTI's heap walk (dumper=jvmti)$" "$T/err"
verify "$T/lim.hprof"
run_java "heap=dump,dumper=hotspot,file=$T/lim2.hprof" --limit-modules java.base HeapGraph "$T/stop"
expect_rc 0
expect_grep "^sum 5622750 " "$T/out"
expect_grep "heap dump failed: HotSpot's dumper (HotSpotDiagnosticMXBean, module jdk.management) is not available in this JVM (.*); use dumper=jvmti$" "$T/err"
[ ! -e "$T/lim2.hprof" ] || fail "a dump with dumper=hotspot and no HotSpot dumper"
note "without java.management: $(grep -o 'not available in this JVM ([^)]*)' "$T/err")"

# 3. an unwritable path, a full disk
run_java "heap=dump,dumper=hotspot,doe=n" HeapGraph "$T/stop" dump /nonexistent/dir/x.hprof "$T/after.hprof"
expect_rc 0
expect_grep "^dump /nonexistent/dir/x.hprof failed: jvmprof: heap dump to /nonexistent/dir/x.hprof: directory /nonexistent/dir does not exist$" "$T/out"
expect_grep "^dump $T/after.hprof true$" "$T/out"
verify "$T/after.hprof"
mkdir -p "$T/full"
if mount -t tmpfs -o size=1m tmpfs "$T/full" 2>/dev/null; then
    trap 'umount "$T/full" 2>/dev/null; rm -rf "$T"' EXIT
    run_java "heap=dump,dumper=hotspot,doe=n" HeapGraph "$T/stop" dump "$T/full/x.hprof" "$T/after2.hprof"
    [ -z "$(ls -A "$T/full")" ] || { ls -la "$T/full" >&2; fail "the failed dump left files on the full disk"; }
    expect_rc 0
    expect_grep "^dump $T/full/x.hprof failed: jvmprof: heap dump to $T/full/x.hprof: .*No space left on device" "$T/out"
    expect_grep "^dump $T/after2.hprof true$" "$T/out"
    expect_grep "^sum 5622750 " "$T/out"
    verify "$T/after2.hprof"
    note "full disk: $(grep "full/x.hprof failed" "$T/out")"
    umount "$T/full"
else
    note "SKIPPED the full-disk case: cannot mount a tmpfs here (not root?)"
fi
exit 0
