# trace=exec+mem+user on TraceThis: an instance method's entry names its
# receiver. Two Counters: every call on one names the same id, across a full
# collection that moves it, the two ids differ, a static method and a
# constructor name none, and the synchronized add says so. The dropped
# Counter's death follows the user event that drops it; the kept one never
# dies. Also under the serial collector, and with the receivers' cache off
# (JVMPROF_TRACE_NO_RECEIVER_CACHE: every receiver from JVMTI's tags).
. "$(dirname "$0")/lib.sh"
check_receivers() {
    "$JVMPROF" trace "$T/r.trace" >"$T/r.txt" || fail "jvmprof trace failed"
    awk '$2 == "main" && $3 == "enter" && $4 ~ /Counter\.(add|get)/ {
             id = ""; for (i = 5; i <= NF; i++) if ($i ~ /^this=/) id = substr($i, 6); print $4, id }' \
        "$T/r.txt" >"$T/this.txt"
    a=$(sed -n 1p "$T/this.txt" | awk '{ print $2 }')
    b=$(sed -n 4p "$T/this.txt" | awk '{ print $2 }')
    [ -n "$a" ] && [ -n "$b" ] && [ "$a" != "$b" ] || fail "$1: receivers: $(cat "$T/this.txt")"
    cat >"$T/want.txt" <<TXT
TraceThis\$Counter.add(I)V $a
TraceThis\$Counter.add(I)V $a
TraceThis\$Counter.get()I $a
TraceThis\$Counter.add(I)V $b
TraceThis\$Counter.add(I)V $b
TraceThis\$Counter.get()I $b
TraceThis\$Counter.add(I)V $a
TraceThis\$Counter.add(I)V $a
TraceThis\$Counter.get()I $a
TraceThis\$Counter.get()I $b
TXT
    diff -u "$T/want.txt" "$T/this.txt" >&2 || fail "$1: not the receivers of the calls"
    grep ' main enter TraceThis.twice' "$T/r.txt" | grep -q 'this=' && fail "$1: a static method names a receiver"
    grep ' main enter TraceThis$Counter.<init>' "$T/r.txt" | grep -q 'this=' && fail "$1: a constructor names a receiver"
    [ "$(grep -c ' main enter TraceThis$Counter.add(I)V depth=3 synchronized this=' "$T/r.txt")" = 6 ] ||
        fail "$1: add is not shown synchronized"
    awk -v a="$a" '/ main user a dropped$/ { d = NR } $3 == "free" && $4 == "object=" a { f = NR } END { exit !(d && f > d) }' \
        "$T/r.txt" || fail "$1: the dropped Counter ($a) does not die after 'a dropped'"
    ! grep -q " free object=$b\$" "$T/r.txt" || fail "$1: the kept Counter ($b) died"
}
run_java "trace=exec+mem+user,include=TraceThis,tracefile=$T/r.trace" TraceThis
expect_rc 0
expect_grep "^TraceThis 8 2$" "$T/out"
check_receivers G1
run_java "trace=exec+mem+user,include=TraceThis,tracefile=$T/r.trace" -XX:+UseSerialGC TraceThis
expect_rc 0
check_receivers Serial
JVMPROF_TRACE_NO_RECEIVER_CACHE=1 run_java "trace=exec+mem+user,include=TraceThis,tracefile=$T/r.trace" TraceThis
expect_rc 0
check_receivers "no cache"

# cpu=samples in the same run: the samples go into the trace, and --slowest shows those inside each call
run_java "trace=exec,include=TraceBusy,tracefile=$T/b.trace,cpu=samples,interval=1,file=$T/b.txt" TraceBusy
expect_rc 0
expect_grep "^TraceBusy true$" "$T/out"
"$JVMPROF" trace "$T/b.trace" --slowest 3 >"$T/slow.txt" || fail "--slowest with samples failed"
inside=$(awk '/^ *[0-9]+ +[0-9.]+ +[0-9.]+ main$/ { call++ } call == 2 && / CPU samples? inside/ { print $1; exit }' "$T/slow.txt")
[ -n "$inside" ] && [ "$inside" -ge 50 ] || fail "fewer than 50 samples inside work(): $(cat "$T/slow.txt")"
sed -n '/TraceBusy.work()J$/,/^ *[0-9]* *[0-9.]* *[0-9.]* main$/p' "$T/slow.txt" | grep -q 'TraceBusy.spin$' ||
    fail "work()'s most common sampled stack does not end in spin: $(cat "$T/slow.txt")"
"$JVMPROF" trace "$T/b.trace" --type sample >"$T/samples.txt" || fail "--type sample failed"
[ "$(grep -c ' main sample .*TraceBusy.work;TraceBusy.spin$' "$T/samples.txt")" -ge 50 ] || fail "the trace lacks main's samples in spin"

# receivers=n: no entry names a receiver
run_java "trace=exec,receivers=n,include=TraceThis,tracefile=$T/n.trace" TraceThis
expect_rc 0
"$JVMPROF" trace "$T/n.trace" >"$T/n.txt" || fail "jvmprof trace n.trace failed"
[ "$(grep -c ' enter ' "$T/n.txt")" -ge 12 ] && ! grep -q 'this=' "$T/n.txt" || fail "receivers=n: $(grep -m3 this= "$T/n.txt")"
