# The jvmprof command and awkward inputs and outputs:
#  1. -o naming the input (the same name, a hard link, a symbolic link) is
#     refused and the input is unchanged;
#  2. a FIFO as input gets one line at once, not a hang;
#  3. --cutoff '' and --top ' -5' are refused;
#  4. a message quoting input bytes that are not UTF-8 shows them as \xNN.
. "$(dirname "$0")/lib.sh"
run_java "cpu=samples,format=b,file=$T/p.hprof" HotLoop 1
expect_rc 0
sum=$(sha256sum <"$T/p.hprof")
ln "$T/p.hprof" "$T/hard.hprof"
ln -s p.hprof "$T/soft.hprof"

# 1. the output is the input
for cmd in report flame collapse; do
    for out in "$T/p.hprof" "$T/hard.hprof" "$T/soft.hprof" "$T/../$(basename "$T")/p.hprof"; do
        RC=0
        "$JVMPROF" $cmd "$T/p.hprof" -o "$out" 2>"$T/err" || RC=$?
        [ "$RC" = 2 ] || fail "$cmd -o $out (the input): exit $RC"
        expect_grep "^jvmprof: $cmd: -o .* is the input file .* itself; write the output to another file$" "$T/err"
        [ "$(sha256sum <"$T/p.hprof")" = "$sum" ] || fail "$cmd -o $out: the input was changed"
    done
done
"$JVMPROF" heap "$T/p.hprof" -o "$T/p.hprof" 2>"$T/err" && fail "heap -o the input: accepted"
expect_grep "is the input file" "$T/err"
[ "$(sha256sum <"$T/p.hprof")" = "$sum" ] || fail "heap -o the input: the input was changed"
"$JVMPROF" report "$T/p.hprof" -o "$T/r.txt" || fail "report to another file"
expect_grep "^CPU SAMPLES BEGIN" "$T/r.txt"

# 2. a FIFO as input
mkfifo "$T/fifo"
for cmd in report flame collapse heap "heap --fix"; do
    RC=0
    timeout -k 10 10 "$JVMPROF" $cmd "$T/fifo" 2>"$T/err" || RC=$?
    [ "$RC" = 1 ] || fail "$cmd FIFO: exit $RC (124 = it hung)"
    expect_grep "^jvmprof: cannot open $T/fifo\|^jvmprof: $T/fifo: is a FIFO; jvmprof reads regular files only" "$T/err"
done

# 3. empty and signed numbers
"$JVMPROF" report "$T/p.hprof" --cutoff '' 2>"$T/err" && fail "--cutoff '' accepted"
expect_grep "^jvmprof: --cutoff : expected a number 0..1$" "$T/err"
"$JVMPROF" heap "$T/p.hprof" --top ' -5' 2>"$T/err" && fail "--top ' -5' accepted"
expect_grep "^jvmprof: --top  -5: expected a count" "$T/err"
"$JVMPROF" heap "$T/p.hprof" --top ' 5' 2>"$T/err" && fail "--top ' 5' accepted"

# 4. raw bytes in a message
printf 'main;work c\377\376\n' >"$T/bad.txt"
"$JVMPROF" flame "$T/bad.txt" -o "$T/bad.html" 2>"$T/err" && fail "a bad collapsed file was accepted"
grep -q "'c\\\\xff\\\\xfe'" "$T/err" || fail "bytes not escaped: $(od -c "$T/err" | head -3)"
LC_ALL=C grep -q $'\xff' "$T/err" && fail "a raw 0xff byte reached stderr"
echo "t9007 ok"
