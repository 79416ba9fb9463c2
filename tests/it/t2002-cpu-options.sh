# depth=, lineno=, thread=, cutoff= and interval= change the report as HPROF's did.
. "$(dirname "$0")/lib.sh"
run_java "cpu=samples,depth=1,file=$T/d1.txt" HotLoop 1.5
expect_rc 0
tr=$(cpu_rows "$T/d1.txt" | sed -n 1p | awk '{print $5}')
[ "$(trace_of "$T/d1.txt" "$tr" | wc -l)" = 1 ] || fail "depth=1 trace has more than one frame"
run_java "cpu=samples,depth=3,file=$T/d3.txt" HotLoop 1.5
tr=$(cpu_rows "$T/d3.txt" | awk '$6 == "HotLoop.heavy" {print $5; exit}')
trace_of "$T/d3.txt" "$tr" >&2
[ "$(trace_of "$T/d3.txt" "$tr" | wc -l)" = 2 ] || fail "depth=3 trace of heavy should have 2 frames (heavy, main)"
trace_of "$T/d3.txt" "$tr" | grep -Eq 'HotLoop.heavy\(HotLoop.java:[0-9]+\)' || fail "lineno=y: no line number"

run_java "cpu=samples,lineno=n,file=$T/nl.txt" HotLoop 1.5
tr=$(cpu_rows "$T/nl.txt" | awk '$6 == "HotLoop.heavy" {print $5; exit}')
trace_of "$T/nl.txt" "$tr" | grep -q 'HotLoop.heavy(HotLoop.java:Unknown line)' || fail "lineno=n still has lines"

run_java "cpu=samples,thread=y,file=$T/th.txt" HotLoop 1.5
main_id=$(grep 'name="main"' "$T/th.txt" | grep -o 'id = [0-9]*' | grep -o '[0-9]*')
tr=$(cpu_rows "$T/th.txt" | sed -n 1p | awk '{print $5}')
expect_grep "TRACE $tr: (thread=$main_id)" "$T/th.txt"
run_java "cpu=samples,thread=n,file=$T/nth.txt" HotLoop 1
expect_no_grep "(thread=" "$T/nth.txt"

# lineno=n: with line numbers heavy()'s ~75% splits between the lines of its loop (e.g. 65% at line 14,
# 10% at line 15), and one of them can fall under 50% by itself; without them heavy is one row
run_java "cpu=samples,lineno=n,cutoff=0.5,file=$T/cut.txt" HotLoop 1.5
[ "$(cpu_rows "$T/cut.txt" | wc -l)" = 1 ] || fail "cutoff=0.5 should leave one row"
# only traces of printed rows are written
[ "$(grep -c '^TRACE ' "$T/cut.txt")" = 1 ] || fail "cutoff=0.5: TRACE records of unprinted rows"

run_java "cpu=samples,interval=2,file=$T/i2.txt" HotLoop 2
run_java "cpu=samples,interval=20,file=$T/i20.txt" HotLoop 2
n2=$(grep -o 'CPU SAMPLES BEGIN (total = [0-9]*' "$T/i2.txt" | grep -o '[0-9]*$')
n20=$(grep -o 'CPU SAMPLES BEGIN (total = [0-9]*' "$T/i20.txt" | grep -o '[0-9]*$')
note "interval=2: $n2 samples, interval=20: $n20 samples"
[ "$n2" -gt $((n20 * 4)) ] || fail "interval=2 gave $n2 samples, not > 4x interval=20 ($n20)"
