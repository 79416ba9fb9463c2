# event=: cpu=samples on other events than CPU time, counted per thread by
# the kernel's perf events. A native function's name samples its calls with
# a hardware breakpoint: at interval=1 every call of malloc from
# NativeHot's C code (200 per batch, 50 batches) is one sample with its mixed
# stack, malloc under jp_mallocs under the Java caller. page-faults samples
# where memory is first touched. An event this machine cannot count (a
# virtual machine has no cycles counter) is said in one line and the program
# runs on; a name that is neither an event nor a function is refused in one
# line naming what is accepted.
. "$(dirname "$0")/lib.sh"
NATIVE="$ROOT/build/it/native"
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 3)
if [ "$(id -u)" != 0 ] && [ "$paranoid" -gt 1 ]; then
    note "perf events need root or perf_event_paranoid <= 1 (here uid $(id -u), $paranoid): only the refusals are checked"
else
    run_java "cpu=samples,event=malloc,interval=1,collapsed=$T/m.txt,file=$T/m.hprof.txt" NativeHot "$NATIVE/libjpnative_fp.so" malloc 50
    if grep -q "event=malloc: .*\(not supported\|cannot\|no debug register\)" "$T/err"; then
        note "this machine has no execute breakpoints: $(grep 'event=malloc' "$T/err" | head -1)"
    else
        expect_rc 0
        expect_grep "NativeHot malloc: 10000 mallocs" "$T/out"
        # every call is a sample: malloc's leaf frames under NativeHot.mallocs, whatever is between
        calls=$(grep -E 'NativeHot\.mallocs(_\[n\])?;(.*;)?malloc [0-9]+$' "$T/m.txt" | grep -v 'findNative' | awk '{t += $NF} END {print t + 0}')
        full=$(grep -E ';Java_NativeHot_mallocs;jp_mallocs;malloc [0-9]+$' "$T/m.txt" | awk '{t += $NF} END {print t + 0}')
        dropped=$(grep -o 'ring_full[^ ]* [0-9]*' "$T/m.txt" | awk '{t += $NF} END {print t + 0}')
        note "event=malloc,interval=1: $calls samples of malloc under NativeHot.mallocs for 10000 calls ($dropped dropped, ring full), $full with the whole stack ...;Java_NativeHot_mallocs;jp_mallocs;malloc"
        [ $((calls + dropped)) -ge 10000 ] && [ "$calls" -le 10000 ] ||
            { sort -t' ' -k2 -nr "$T/m.txt" | head -5 >&2; fail "$calls samples of malloc under NativeHot.mallocs, expected one per call: 10000"; }
        # the program waits 200 ms after loading its library, and jvmprof reads a library loaded within a period
        [ $((full * 100)) -ge $((calls * 99)) ] || fail "only $full of $calls samples hold jp_mallocs and Java_NativeHot_mallocs"
        expect_grep "^CPU SAMPLES BEGIN (total = [0-9]*, event = malloc, one every 1)" "$T/m.hprof.txt"
    fi
    run_java "cpu=samples,event=page-faults,interval=10,file=$T/p.txt" -Xmx256m GcChurn 2
    expect_rc 0
    total=$(sed -n 's/^CPU SAMPLES BEGIN (total = \([0-9]*\), event = page-faults, one every 10).*/\1/p' "$T/p.txt")
    note "event=page-faults,interval=10: ${total:-no} samples"
    [ "${total:-0}" -ge 10 ] || { head -40 "$T/p.txt" >&2; fail "no page-fault samples"; }
fi
# cycles: counted where the machine has the counter, else one line and the program runs on
run_java "cpu=samples,event=cycles,file=$T/c.txt" NativeHot "$NATIVE/libjpnative_fp.so" spin 1
expect_rc 0
expect_grep "NativeHot spin: " "$T/out"
if grep -q "cycles" "$T/err"; then
    [ "$(grep -c 'cycles' "$T/err")" = 1 ] || { cat "$T/err" >&2; fail "more than one line about event=cycles"; }
    note "$(grep cycles "$T/err")"
else
    expect_grep "event = cycles" "$T/c.txt"
fi
# a name that is no event and no function
run_java "cpu=samples,event=no_such_function_xyz" Hello
[ "$RC" != 0 ] || fail "event=no_such_function_xyz was accepted"
expect_grep "event=no_such_function_xyz: .*accepted: cpu" "$T/err"
echo "t2117 ok"
