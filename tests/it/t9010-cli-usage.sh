# The jvmprof command as a new user meets it:
#  1. `jvmprof SUBCOMMAND --help` (and -h, and `jvmprof help SUBCOMMAND`) prints that subcommand's
#     usage on stdout and exits 0, for every subcommand --help lists;
#  2. an unknown command is refused with every subcommand named;
#  3. flame, collapse and report given a trace file say to read it with `jvmprof trace FILE`;
#  4. a bad --type lists every event type the trace prints, and --type enter keeps the entries of
#     methods with a receiver (printed "enter" too; the filter dropped them);
#  5. -agentlib:hprof=... (an old HPROF command line) loads jvmprof when build/ is on
#     LD_LIBRARY_PATH, through the libhprof.so link make makes, jar and all (cpu=times needs it).
. "$(dirname "$0")/lib.sh"

# 1. every subcommand of the usage, its own usage
"$JVMPROF" --help >"$T/help.txt" || fail "jvmprof --help failed"
cmds=$(awk '/^The agent itself/ {exit} /^  [a-z]+( |$)/ {print $1}' "$T/help.txt")
[ "$(echo "$cmds" | wc -w)" -ge 18 ] || fail "jvmprof --help lists only: $cmds"
for c in $cmds; do
    for h in --help -h; do
        RC=0
        "$JVMPROF" "$c" $h >"$T/out" 2>"$T/err" || RC=$?
        [ "$RC" = 0 ] || fail "jvmprof $c $h: exit $RC: $(cat "$T/err")"
        head -1 "$T/out" | grep -q "^usage: jvmprof $c\( \|$\)" || fail "jvmprof $c $h: $(head -3 "$T/out")"
        [ "$(wc -l <"$T/out")" -ge 3 ] || fail "jvmprof $c $h: no description: $(cat "$T/out")"
        [ ! -s "$T/err" ] || fail "jvmprof $c $h wrote to stderr: $(cat "$T/err")"
    done
    "$JVMPROF" help "$c" | head -1 | grep -q "^usage: jvmprof $c" || fail "jvmprof help $c"
done
# a subcommand's --help after its arguments too, and it does nothing else (no attach, no file)
"$JVMPROF" trace /nonexistent --help | grep -q -- "--slowest N" || fail "trace FILE --help"
"$JVMPROF" start 1 cpu=samples -h | grep -q "^usage: jvmprof start PID OPTIONS" || fail "start PID OPTIONS -h"
note "$(echo "$cmds" | wc -w) subcommands, each with --help, -h and help SUBCOMMAND"

# 2. an unknown command names them all
RC=0; "$JVMPROF" bogus 2>"$T/err" || RC=$?
[ "$RC" = 2 ] || fail "unknown command: exit $RC"
[ "$(wc -l <"$T/err")" = 1 ] || fail "unknown command: not one line: $(cat "$T/err")"
for c in $cmds; do
    grep -q "[ ,]$c[ ,]" "$T/err" || fail "the unknown-command message does not name $c: $(cat "$T/err")"
done
RC=0; "$JVMPROF" help bogus 2>"$T/err" || RC=$?
[ "$RC" = 2 ] && grep -q "help: unknown command 'bogus'; expected report, " "$T/err" || fail "help bogus: $RC $(cat "$T/err")"

# 3. a trace file given to the commands of reports
run_java "trace=exec+user,include=TraceThis,tracefile=$T/r.trace" TraceThis
expect_rc 0
for c in flame collapse report; do
    RC=0; "$JVMPROF" $c "$T/r.trace" -o "$T/x.out" 2>"$T/err" || RC=$?
    [ "$RC" = 1 ] || fail "$c on a trace: exit $RC"
    expect_grep "^jvmprof: $T/r.trace is a trace file (trace=): jvmprof trace $T/r.trace reads it (--flame draws" "$T/err"
    [ ! -e "$T/x.out" ] || fail "$c on a trace wrote $T/x.out"
done

# 4. --type: the list of types, and entries with a receiver kept by --type enter
RC=0; "$JVMPROF" trace "$T/r.trace" --type bogus 2>"$T/err" || RC=$?
[ "$RC" = 2 ] || fail "--type bogus: exit $RC"
"$JVMPROF" trace "$T/r.trace" >"$T/all.txt" || fail "jvmprof trace failed"
for t in $(awk '{print $3}' "$T/all.txt" | sort -u); do
    grep -q "[ ,]$t[ ,]" "$T/err" || fail "--type's list lacks $t, which the trace prints: $(cat "$T/err")"
done
for t in enter exit user; do
    want=$(awk -v t="$t" '$3 == t' "$T/all.txt" | wc -l)
    got=$("$JVMPROF" trace "$T/r.trace" --type "$t" | wc -l)
    [ "$want" -gt 0 ] && [ "$got" = "$want" ] || fail "--type $t: $got lines, the whole trace has $want"
done
grep -q " enter .*TraceThis\$Counter.add.* this=" "$T/all.txt" || fail "no entry with a receiver: $(grep -m3 ' enter ' "$T/all.txt")"

# 5. -agentlib:hprof through the libhprof.so link (cutoff=0: twice()'s few microseconds can fall
# below the default cutoff's share when System.gc() takes long, as on a busy machine)
[ -L "$ROOT/build/libhprof.so" ] || fail "make made no build/libhprof.so link"
for opts in "cpu=samples,file=$T/h1.txt" "cpu=times,include=TraceThis,tiny=0,cutoff=0,file=$T/h2.txt"; do
    RC=0
    LD_LIBRARY_PATH="$ROOT/build" timeout -k 10 120 "$JAVA" "-agentlib:hprof=$opts" -cp "$CLASSES" TraceThis \
        >"$T/out" 2>"$T/err" || RC=$?
    expect_rc 0
done
expect_grep "^CPU SAMPLES BEGIN" "$T/h1.txt"
expect_grep "^CPU TIME (ms) BEGIN" "$T/h2.txt"
grep -q ' TraceThis.twice$' "$T/h2.txt" || fail "-agentlib:hprof=cpu=times: no TraceThis.twice row"
echo "t9010 ok"
