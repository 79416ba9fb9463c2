# format=b holds wall=, cpu=times and monitor=y reports (jvmprof's own WALL STATES, CPU TIMES and
# MONITORS records; they were refused): for each, a real program's binary report is read back by
# jvmprof report (the same text as convert --txt) with the sections the ASCII report has, and
# converted with convert --pprof to what the agent's pprof= wrote of the same run (go tool pprof -top
# and the sample types, byte for byte), whose default view has the report's top methods with the
# report's shares; convert --jfr gives a file the JDK's jfr reads without an error; the independent
# HPROF parser (tests/golden/hprof_dump.py) skips the new records by their length.
. "$(dirname "$0")/lib.sh"
"$ROOT/tools/deps.sh" go || fail "Go cannot be installed"
GO=$(command -v go)
export HOME="${HOME:-$T}" GOCACHE="$T/gocache" GOFLAGS=-mod=mod
pp() { "$GO" tool pprof "$@" 2>"$T/pprof.err" || fail "go tool pprof $*: $(cat "$T/pprof.err")"; }
# methods SECTION < report: "METHOD SELF%" of the METHODS (SECTION) table, by name (pprof's functions
# are names: overloads are one), ranked by self
methods() { awk -v s="METHODS ($1) BEGIN" 'index($0, s) == 1 { on = 1; getline; next } /^METHODS .* END/ { on = 0 }
                                           on { v = $2; sub(/%/, "", v); self[$NF] += v }
                                           END { for (m in self) printf "%s %.2f\n", m, self[m] }' | sort -k2,2nr; }
# monitors REPORT: "METHOD SHARE%" of MONITOR TIME and MONITOR WAIT TIME together (pprof's delay), by
# the top frame of each row's trace: a row's time is its self share of its table's total (in ms)
monitors() {
    local f=$1 t
    awk '/^MONITOR (WAIT )?TIME BEGIN/ { tot = $0; sub(/.*total = /, "", tot); tot += 0; all += tot; on = 1; next }
         /^MONITOR (WAIT )?TIME END/ { on = 0 }
         on && $1 ~ /^[0-9]+$/ { v = $2; sub(/%/, "", v); print $5, v * tot / 100 }
         END { print "total", all }' "$f" >"$T/mon.rows"
    while read -r t ms; do
        [ "$t" = total ] && continue
        echo "$(trace_of "$f" "$t" | head -1 | sed 's/^[[:space:]]*//; s/(.*//') $ms"
    done <"$T/mon.rows" | awk -v all="$(awk '$1 == "total" { print $2 }' "$T/mon.rows")" \
        '{ s[$1] += $2 } END { for (m in s) printf "%s %.4f\n", m, 100 * s[m] / all }' | sort -k2,2nr
}
# flat < go tool pprof -top: "FUNCTION FLAT%" of each row
flat() { awk 'f && NF >= 6 { v = $2; sub(/%/, "", v); print $NF, v } /^ *flat +flat%/ { f = 1 }'; }
# near A B TOL: |A - B| <= TOL
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; exit !(d <= t && d >= -t) }'; }
jfr_reads() {
    local cmd
    for cmd in summary print "print --json"; do
        # shellcheck disable=SC2086
        "$JAVA_HOME/bin/jfr" $cmd "$1" >"$T/jfr.out" 2>"$T/jfr.err" || fail "$2: jfr $cmd failed: $(head -3 "$T/jfr.err")"
        [ ! -s "$T/jfr.err" ] || fail "$2: jfr $cmd said: $(head -3 "$T/jfr.err")"
    done
}

# check NAME OPTIONS TYPE TOLERANCE SECTIONS... -- PROGRAM ARGS...: the report's shares come from
# methods (METHODS table) or from monitors, pprof's default view must be TYPE
check() {
    local n=$1 opts=$2 type=$3 tol=$4
    shift 4
    local sections=()
    while [ "$1" != -- ]; do sections+=("$1"); shift; done
    shift
    run_java "$opts,format=b,file=$T/$n.hprof,pprof=$T/$n.direct.pb.gz" "$@"
    expect_rc 0
    python3 "$ROOT/tests/golden/hprof_dump.py" "$T/$n.hprof" >"$T/$n.dump" ||
        fail "$n: the independent parser rejected it: $(tail -2 "$T/$n.dump")"
    "$JVMPROF" report "$T/$n.hprof" >"$T/$n.txt" 2>"$T/e" || fail "$n: report: $(cat "$T/e")"
    "$JVMPROF" convert "$T/$n.hprof" --txt "$T/$n.conv.txt" 2>"$T/e" || fail "$n: convert --txt: $(cat "$T/e")"
    cmp -s "$T/$n.txt" "$T/$n.conv.txt" || fail "$n: convert --txt differs from report"
    local s
    for s in "${sections[@]}"; do
        grep -q "^$s" "$T/$n.txt" || fail "$n ($opts): no '$s' in the binary report's text"
    done
    "$JVMPROF" convert "$T/$n.hprof" --pprof "$T/$n.pb.gz" 2>"$T/e" || fail "$n: convert --pprof: $(cat "$T/e")"
    [ ! -s "$T/e" ] || fail "$n: convert --pprof left something out: $(cat "$T/e")"
    pp -top "$T/$n.pb.gz" >"$T/$n.top"          # the default view, no -sample_index
    pp -top "$T/$n.direct.pb.gz" >"$T/$n.direct.top"
    grep -q "^Type: $type$" "$T/$n.top" || fail "$n: default view is not $type: $(head -5 "$T/$n.top")"
    ! grep -q "Total samples = 0" "$T/$n.top" || fail "$n: an empty profile: $(head -5 "$T/$n.top")"
    cmp -s "$T/$n.top" "$T/$n.direct.top" ||
        fail "$n: pprof -top differs from pprof='s: $(diff "$T/$n.direct.top" "$T/$n.top" | head -6)"
    pp -raw "$T/$n.pb.gz" | sed -n '1,/^Samples:/p; /^Samples:/{n;p}' >"$T/$n.types"
    pp -raw "$T/$n.direct.pb.gz" | sed -n '1,/^Samples:/p; /^Samples:/{n;p}' >"$T/$n.direct.types"
    cmp -s "$T/$n.types" "$T/$n.direct.types" ||
        fail "$n: sample types differ from pprof='s: $(diff "$T/$n.direct.types" "$T/$n.types" | head -6)"
    case $type in
    delay) monitors "$T/$n.txt" ;;
    wall) methods "wall samples" <"$T/$n.txt" ;;
    *) methods "CPU time" <"$T/$n.txt" ;;
    esac >"$T/$n.shares"
    flat <"$T/$n.top" >"$T/$n.flat"
    [ -s "$T/$n.shares" ] && [ -s "$T/$n.flat" ] || fail "$n: no rows (report: $(wc -l <"$T/$n.shares"), pprof: $(wc -l <"$T/$n.flat"))"
    # the report's top three methods have the same shares in pprof's default view, and pprof's top row
    # is a method the report ranks as high
    local m want got
    while read -r m want; do
        got=$(awk -v m="$m" '$1 == m { print $2 }' "$T/$n.flat")
        near "${got:-0}" "$want" "$tol" || fail "$n: $m: ${got:-no}% in pprof's default view, $want% in the report"
        note "$n: $m: $got% in pprof's default view, $want% in the report"
    done < <(head -3 "$T/$n.shares")
    read -r m got < <(head -1 "$T/$n.flat")
    want=$(head -1 "$T/$n.shares" | awk '{ print $2 }')
    near "$got" "$want" "$tol" || fail "$n: pprof's top row $m has $got%, the report's top $want%"
    "$JVMPROF" convert "$T/$n.hprof" --jfr "$T/$n.jfr" 2>"$T/e" || fail "$n: convert --jfr: $(cat "$T/e")"
    jfr_reads "$T/$n.jfr" "$n ($opts) converted"
}

# wall=: two decimals on both sides (and a method's overloads added up); the samples' states stay apart
# (cstack=java: the rows' top frames are Java methods, compute() and Thread.sleep, not the libc functions
# the sleep waits in: t6110 checks native frames through these conversions)
check wall "wall=10,cstack=java" wall 0.02 "WALL SAMPLES BEGIN" "METHODS (wall samples) BEGIN" "COUNTS BEGIN" -- SleepCompute 1
grep -Eq '^ *[0-9]+ .* running +SleepCompute\.compute$' "$T/wall.txt" || fail "wall: no running compute() row"
grep -Eq '^ *[0-9]+ .* sleeping +java\.lang\.Thread\.sleep$' "$T/wall.txt" || fail "wall: no sleeping Thread.sleep row"
"$JVMPROF" convert "$T/wall.hprof" --collapsed "$T/wall.collapsed" 2>/dev/null || fail "wall: convert --collapsed"
grep -q 'java\.lang\.Thread\.sleep_\[n\];\[sleeping\] [0-9]*$' "$T/wall.collapsed" ||
    fail "wall: the collapsed stacks lost the states: $(head -3 "$T/wall.collapsed")"

# cpu=times: fib's calls are exact, and the methods counted, not timed, come back by name
check times "cpu=times" cpu 0.02 "CPU TIME (ms) BEGIN" "METHODS (CPU time) BEGIN" "CALLS COUNTED BEGIN" -- CallCounts
awk '/^METHODS \(CPU time\) BEGIN/ { on = 1 } on && $NF == "CallCounts.fib" { print $7 }' "$T/times.txt" | grep -qx 242785 ||
    fail "times: fib's calls are not 242785: $(grep 'CallCounts.fib$' "$T/times.txt" | head -3)"
# report --methods views cpu=times' time too: the first rows of the report's METHODS (CPU time)
"$JVMPROF" report "$T/times.hprof" --methods --top 3 >"$T/times.methods" 2>"$T/e" || fail "times: report --methods: $(cat "$T/e")"
sed -n '/^METHODS (CPU time) BEGIN/,/^METHODS (CPU time) END/p' "$T/times.txt" | sed -n 2,5p >"$T/times.want"
sed -n 2,5p "$T/times.methods" | cmp -s - "$T/times.want" ||
    fail "times: report --methods: $(head -5 "$T/times.methods"), not $(cat "$T/times.want")"

# monitor=y: pprof's delay is both tables together; a table's total is in whole ms, hence the tolerance
check monitor "monitor=y" delay 0.2 "MONITOR TIME BEGIN" "MONITOR WAIT TIME BEGIN" -- Contended 1
grep -Eq '^ *[0-9]+ .* Contended\$SharedLock \(Java\)$' "$T/monitor.txt" || fail "monitor: no SharedLock row"
all=$(awk '$1 == "total" { print $2 }' "$T/mon.rows")
[ "${all%.*}" -ge 200 ] || fail "monitor: only $all ms of monitor time: too little for shares to 0.2 points"
