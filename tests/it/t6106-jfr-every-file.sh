# Every JFR file jvmprof writes is read by the JDK's jfr tool (summary, print,
# print --json) without an error: a trace of each event class alone and of all
# of them (a trace of collections, threads or classes only had an empty symbol
# pool, which jfr print refuses), a report of each kind written with jfr=, and
# reports converted from format=b. Also with Temurin 25's jfr when present.
. "$(dirname "$0")/lib.sh"
JFRS=("$JAVA_HOME/bin/jfr")
T25=/usr/lib/jvm/temurin-25-jdk-amd64/bin/jfr
if [ -x "$T25" ]; then JFRS+=("$T25"); else note "no Temurin 25 at $T25: checked with $JAVA_HOME's jfr only"; fi
check_all() { # FILE WHAT
    [ -s "$1" ] || fail "$2: no JFR file"
    local jfr
    for jfr in "${JFRS[@]}"; do
        for cmd in summary print "print --json"; do
            # shellcheck disable=SC2086
            "$jfr" $cmd "$1" >"$T/jfr.out" 2>"$T/jfr.err" || fail "$2: $jfr $cmd failed: $(head -3 "$T/jfr.err")"
            [ ! -s "$T/jfr.err" ] || fail "$2: $jfr $cmd said: $(head -3 "$T/jfr.err")"
        done
    done
}
for tc in exec exec:light mem mem:light alloc thread class monitor user probe all; do
    rm -f "$T/t.trace" "$T/t.jfr"
    run_java "trace=$tc,tracefile=$T/t.trace" TraceEvents
    expect_rc 0
    "$ROOT/build/jvmprof" convert "$T/t.trace" --jfr "$T/t.jfr" 2>"$T/e" || fail "convert trace=$tc --jfr: $(cat "$T/e")"
    check_all "$T/t.jfr" "trace=$tc"
done
note "trace classes alone and together: jfr summary, print and print --json read them"
for opts in "wall=10" "cpu=samples,heap=sites,alloc_interval=256,monitor=y,thread=y"; do
    rm -f "$T/r.jfr"
    run_java "$opts,file=$T/r.txt,jfr=$T/r.jfr" Contended
    expect_rc 0
    check_all "$T/r.jfr" "$opts,jfr="
done
for opts in "cpu=samples,heap=sites,alloc_interval=256"; do
    run_java "$opts,format=b,file=$T/b.hprof" Contended
    expect_rc 0
    "$ROOT/build/jvmprof" convert "$T/b.hprof" --jfr "$T/b.jfr" 2>"$T/e" || fail "convert $opts --jfr: $(cat "$T/e")"
    check_all "$T/b.jfr" "$opts,format=b converted"
done
note "reports of every kind, with jfr= and converted from format=b: read without an error"
