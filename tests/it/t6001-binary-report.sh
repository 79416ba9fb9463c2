# format=b writes java.hprof (JAVA PROFILE 1.0.2, 8-byte ids); `jvmprof report`
# reads it back and prints the HPROF ASCII report with the hot methods on top.
. "$(dirname "$0")/lib.sh"
cd "$T"
run_java "cpu=samples,format=b" HotLoop 2
expect_rc 0
[ -f "$T/java.hprof" ] || fail "format=b did not write java.hprof in the working directory"
head -c 19 "$T/java.hprof" | tr '\0' '\n' | grep -qx "JAVA PROFILE 1.0.2" || fail "bad header"
[ "$(od -An -tu1 -j19 -N4 "$T/java.hprof" | tr -s ' ')" = " 0 0 0 8" ] || fail "identifier size is not 8"
"$JVMPROF" report "$T/java.hprof" >"$T/r.txt" || fail "jvmprof report failed"
expect_grep "CPU SAMPLES BEGIN" "$T/r.txt"
[ "$(cpu_rows "$T/r.txt" | sed -n 1p | awk '{print $6}')" = HotLoop.heavy ] || fail "report: heavy not on top"
tr=$(cpu_rows "$T/r.txt" | sed -n 1p | awk '{print $5}')
trace_of "$T/r.txt" "$tr" | grep -q 'HotLoop.main(HotLoop.java:' || fail "report: trace lacks main"
expect_grep 'name="main"' "$T/r.txt"
# -o writes a file; a damaged file gives one clear line and exit 1
"$JVMPROF" report "$T/java.hprof" -o "$T/r2.txt" && cmp -s "$T/r.txt" "$T/r2.txt" || fail "report -o differs from stdout"
head -c 100 "$T/java.hprof" >"$T/cut.hprof"
if "$JVMPROF" report "$T/cut.hprof" >"$T/o" 2>"$T/e"; then fail "truncated file accepted"; fi
[ "$(wc -l <"$T/e")" = 1 ] && grep -q "^jvmprof: .*truncated" "$T/e" || { cat "$T/e" >&2; fail "no one-line error for a truncated file"; }
echo hello >"$T/not.hprof"
if "$JVMPROF" report "$T/not.hprof" 2>"$T/e"; then fail "text file accepted"; fi
grep -q "not an HPROF binary file" "$T/e" || fail "no clear error for a non-HPROF file"
# an independent parser (tests/golden/hprof_dump.py, written from the format
# description, not from our reader) accepts the agent's file and finds every
# reference resolvable
python3 "$ROOT/tests/golden/hprof_dump.py" "$T/java.hprof" >"$T/dump.txt" || { tail -5 "$T/dump.txt" >&2; fail "independent parser rejected java.hprof"; }
grep -q "CPU SAMPLES" "$T/dump.txt" || fail "independent parser found no CPU SAMPLES record"
grep -q "'heavy'" "$T/dump.txt" || fail "independent parser found no heavy method name"
