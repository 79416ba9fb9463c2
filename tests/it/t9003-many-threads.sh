# 200 threads starting and ending while sampling every 1 ms: no crash, no
# hang, every thread in the report.
. "$(dirname "$0")/lib.sh"
run_java "cpu=samples,interval=1,monitor=y,thread=y,file=$T/m.txt" ManyThreads 200
expect_rc 0
expect_grep "threads 200 checksum" "$T/out"
[ "$(grep -c 'THREAD START (.*name="many-' "$T/m.txt")" = 200 ] || fail "not all 200 threads started in the report"
[ "$(grep -c 'THREAD END' "$T/m.txt")" -ge 200 ] || fail "fewer than 200 THREAD END records"
expect_grep "ManyThreads.work" "$T/m.txt"
