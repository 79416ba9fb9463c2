# The program's stdout is byte-identical with and without the agent, whatever
# is profiled; the agent's own lines go to stderr only.
. "$(dirname "$0")/lib.sh"
run_java "" PrintData
expect_rc 0
cp "$T/out" "$T/plain.out"
for opts in "cpu=samples,interval=1,file=$T/a.txt" "monitor=y,file=$T/b.txt" \
            "cpu=samples,monitor=y,verbose=y,thread=y,file=$T/c.txt" "cpu=samples,format=b,file=$T/d.hprof"; do
    run_java "$opts" PrintData
    expect_rc 0
    cmp "$T/plain.out" "$T/out" || fail "stdout differs with $opts"
    grep -q "^jvmprof: wrote $T/" "$T/err" || fail "verbose=y (default) did not report the file on stderr"
done
run_java "cpu=samples,verbose=n,file=$T/e.txt" PrintData
[ ! -s "$T/err" ] || { cat "$T/err" >&2; fail "verbose=n still printed"; }
cmp "$T/plain.out" "$T/out" || fail "stdout differs with verbose=n"
