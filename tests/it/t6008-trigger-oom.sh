# trigger=oom: an OutOfMemoryError dumps record=y's recording by itself, once
# per trigger_interval=. OomHog runs out of a 16 MiB heap three times in
# hog() (64 KiB arrays kept in a list), each caught in main, within a
# second: one dump (trigger_file='s default: file='s name with -trigger-1),
# one line on stderr naming the trigger and the file, one saying the next
# OutOfMemoryError was not dumped (the interval); the dump's allocation
# profile has byte[] allocated in hog() on top, and its header says what
# fired it. The program's stdout is unchanged (HotSpot's "[error][jvmti]
# Posting Resource Exhausted event" line is turned off on stdout). An
# OutOfMemoryError that ends the program (uncaught) is dumped too; with
# trigger_interval=1s two rounds apart are dumped twice, numbered 1 and 2.
# Bad options: one line each.
. "$(dirname "$0")/lib.sh"
EXPECTED=$'oom 1\noom 2\noom 3\ndone'
run_java "heap=sites,alloc_interval=64k,depth=6,record=y,trigger=oom,file=$T/full.txt" -Xmx16m OomHog 3 1500
expect_rc 0
[ "$(cat "$T/out")" = "$EXPECTED" ] || fail "the program's stdout changed: $(cat "$T/out")"
ls "$T" | grep -- '-trigger-' >"$T/dumps"
[ "$(cat "$T/dumps")" = "full-trigger-1.txt" ] || fail "not one dump, full-trigger-1.txt: $(cat "$T/dumps")"
D=$T/full-trigger-1.txt
[ "$(grep -c "^jvmprof: trigger oom (OutOfMemoryError: Java heap space): wrote $D (" "$T/err")" = 1 ] ||
    fail "not one line for the dump: $(cat "$T/err")"
[ "$(grep -c "^jvmprof: trigger oom (.*): no dump, the last was .* ago (trigger_interval=60 s)$" "$T/err")" = 1 ] ||
    fail "not one line for the OutOfMemoryErrors not dumped: $(cat "$T/err")"
expect_grep "^jvmprof: triggers: oom 1 dumped, 2 skipped (trigger_interval=60 s; files $T/full-trigger-%n.txt)" "$T/err"
expect_grep "^RECORDING WINDOW: " "$D"
expect_grep "^TRIGGER: oom: OutOfMemoryError: Java heap space" "$D"
# the allocation profile: rank 1 is byte[], allocated in hog()
top=$(sed -n '/^SITES BEGIN/,/^SITES END/p' "$D" | awk '$1 == "1" {print $8, $9}')
[ "${top#* }" = "byte[]" ] || fail "the dump's top site is not byte[]: $(sed -n '/^SITES BEGIN/,/^SITES END/p' "$D")"
trace_of "$D" "${top% *}" | head -1 | grep -q "OomHog\.hog(OomHog\.java:" ||
    fail "the top site's trace is not hog()'s: $(trace_of "$D" "${top% *}")"
note "dump: $(sed -n '/^SITES BEGIN/,/^SITES END/p' "$D" | awk '$1 == "1"')"

# an OutOfMemoryError that ends the program: dumped before the program ends
run_java "heap=sites,alloc_interval=64k,record=y,trigger=oom,file=$T/u.txt" -Xmx16m OomHog 0
expect_rc 1
grep -q "java.lang.OutOfMemoryError: Java heap space" "$T/err" || fail "OomHog 0 did not end by OutOfMemoryError: $(cat "$T/err")"
[ -s "$T/u-trigger-1.txt" ] || fail "no dump of the OutOfMemoryError that ended the program: $(cat "$T/err")"
expect_grep "^TRIGGER: oom: " "$T/u-trigger-1.txt"

# trigger_interval=1s, rounds 1.5 s apart, trigger_file= named: two dumps
run_java "heap=sites,record=y,trigger=oom,trigger_interval=1s,trigger_file=$T/oom-%p-%n.txt,file=$T/i.txt" -Xmx16m \
    OomHog 2 500 1500
expect_rc 0
n=$(ls "$T" | grep -c '^oom-[0-9]*-[12]\.txt$')
[ "$n" = 2 ] || fail "trigger_interval=1s: $n dumps, not 2: $(ls "$T"; cat "$T/err")"

# bad options: one line each, naming what is wrong
bad() {
    run_java "$1" Hello
    [ "$RC" != 0 ] || fail "$1: accepted"
    [ "$(wc -l <"$T/err")" = 1 ] || fail "$1: not one line: $(cat "$T/err")"
    grep -q -- "$2" "$T/err" || fail "$1: no '$2' in: $(cat "$T/err")"
}
bad "heap=sites,trigger=oom" "trigger= dumps the recording of record=y; add record=y"
bad "heap=sites,record=y,trigger=boom" "'boom' is no trigger"
bad "heap=sites,record=y,trigger=oom,trigger_interval=0s" "trigger_interval=0s: bad value"
bad "heap=sites,record=y,trigger=oom,trigger_file=$T/x.txt" "put %n in it"
bad "heap=sites,record=y,trigger_interval=5m" "trigger_interval= applies to the dumps of trigger="
bad "heap=sites,record=y,trigger=oom,force=n,trigger_file=$T/no/such/dir-%n.txt" "trigger_file=$T/no/such/dir-1.txt: "
exit 0
