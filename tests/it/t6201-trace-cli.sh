# jvmprof trace FILE reads a trace file written by an independent writer:
# tests/it/trace_gen.py, written from docs/trace-format.md alone (not from
# trace_file.c). Two threads' chunks come out merged in time order with
# their names; filters; a file cut short prints what it holds, names the
# offset on stderr and exits 1; bad arguments and files that are no trace
# get one line and exit 2 or 1.
. "$(dirname "$0")/lib.sh"
GEN="$(dirname "$0")/trace_gen.py"
python3 "$GEN" "$T/t.trace" || fail "trace_gen.py failed"
"$JVMPROF" trace "$T/t.trace" >"$T/all.txt" 2>"$T/err" || { cat "$T/err" >&2; fail "jvmprof trace failed"; }
cat >"$T/want.txt" <<'TXT'
     0.000001000 main thread-start main group=system priority=5 daemon
     0.000001500 main enter demo.Shapes.area(D)D depth=1
     0.000002000 worker-1 enter demo.Shapes.run()V depth=1
     0.000002500 main exit demo.Shapes.area(D)D depth=1
     0.000003000 worker-1 user halfway
     2.000000000 worker-1 exit-throw demo.Shapes.run()V depth=1
TXT
diff -u "$T/want.txt" "$T/all.txt" >&2 || fail "jvmprof trace printed something else"
"$JVMPROF" trace "$T/t.trace" --thread 2 --type enter,user >"$T/f.txt" || fail "filtered trace failed"
[ "$(wc -l <"$T/f.txt")" = 2 ] && grep -q "worker-1 user halfway" "$T/f.txt" || fail "--thread 2 --type enter,user: $(cat "$T/f.txt")"
"$JVMPROF" trace "$T/t.trace" --method Shapes.area --from 0.0000015 --to 0.0000025 -o "$T/m.txt" || fail "-o failed"
[ "$(wc -l <"$T/m.txt")" = 2 ] || fail "--method/--from/--to: $(cat "$T/m.txt")"

# cut short: the complete chunks, then a line naming the offset, exit 1
size=$(stat -c %s "$T/t.trace")
head -c $((size - 5)) "$T/t.trace" >"$T/cut.trace"
RC=0
"$JVMPROF" trace "$T/cut.trace" >"$T/cut.txt" 2>"$T/err" || RC=$?
[ "$RC" = 1 ] || fail "a cut trace: exit $RC, expected 1"
grep -q "^jvmprof: .*cut.trace: stopped at offset [0-9]*: a chunk.* cut short" "$T/err" || fail "no offset: $(cat "$T/err")"
[ "$(wc -l <"$T/cut.txt")" -ge 1 ] && [ "$(wc -l <"$T/cut.txt")" -lt 6 ] || fail "cut trace printed $(wc -l <"$T/cut.txt") lines"
note "cut: $(cat "$T/err")"

bad() { # EXPECTED-RC MESSAGE ARGS...
    local want=$1 msg=$2; shift 2
    RC=0
    "$JVMPROF" trace "$@" >/dev/null 2>"$T/err" || RC=$?
    [ "$RC" = "$want" ] || fail "jvmprof trace $*: exit $RC, expected $want"
    [ "$(wc -l <"$T/err")" = 1 ] && grep -q -- "$msg" "$T/err" || fail "jvmprof trace $*: $(cat "$T/err")"
}
bad 2 "no FILE" 
bad 2 "--type bogus: no such event" "$T/t.trace" --type bogus
bad 2 "--thread x: expected a thread number" "$T/t.trace" --thread x
bad 2 "--from -1: expected seconds" "$T/t.trace" --from -1
bad 2 "unknown option '--nope'" "$T/t.trace" --nope
bad 1 "not a jvmprof trace" "$(dirname "$0")/lib.sh"
exit 0
