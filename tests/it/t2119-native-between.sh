# cstack= (default native): the native frames between Java frames and below
# them, in the order they were on the stack. NativeHot's callback mode calls
# a native method whose C code (jp_call_java) calls Java back
# (NativeHot.javaBurn, which burns the CPU): at least 90% of the samples
# hold javaBurn above the JVM's JNI entry (jni_CallStaticLongMethod), above
# jp_call_java and Java_NativeHot_callback, above the native method
# NativeHot.callback and its caller NativeHot.callNative; and below main()
# the launcher's thread start (JavaMain, start_thread). The same with the
# library built without frame pointers (its C frames by DWARF). A thread
# the JVM starts (TwoSpinners' two) has the JVM's thread start
# (thread_native_entry) below java.lang.Thread.run. The report's trace
# keeps them in that order. cstack=java: none of them.
. "$(dirname "$0")/lib.sh"
NATIVE="$ROOT/build/it/native"
[ -f "$NATIVE/libjpnative_fp.so" ] && [ -f "$NATIVE/libjpnative_nofp.so" ] || fail "the test's JNI libraries are not built (make)"

# share REGEX OF COLLAPSED: "percent total" of the samples whose stack matches REGEX among those whose
# stack matches OF (the part of the run that calls back, not the JVM's start, which on a busy machine
# is a bigger part of a run of a fixed wall time)
share() {
    RE="$1" OF="$2" awk '$0 ~ ENVIRON["OF"] { n = $NF; total += n; if ($0 ~ ENVIRON["RE"]) hit += n }
        END { printf "%d %d\n", total ? hit * 100 / total : 0, total }' "$3"
}
# a Java frame's collapsed name, with the kind the flame graph gives it
J='(_\[.\])?'
between="NativeHot\\.callNative$J;NativeHot\\.callback_\\[n\\];Java_NativeHot_callback;jp_call_java;jni_CallStaticLongMethod;.*;NativeHot\\.javaBurn$J [0-9]+\$"
below="(^|;)start_thread;([^;]*;)*JavaMain;([^;]*;)*NativeHot\\.main$J;"

for v in fp nofp; do
    run_java "cpu=samples,collapsed=$T/$v.txt,depth=8,file=$T/$v.hprof.txt" NativeHot "$NATIVE/libjpnative_$v.so" callback 3
    expect_rc 0
    read -r pct total < <(share "$between" 'NativeHot\.callback_\[n\]' "$T/$v.txt")
    note "$v: $pct% of $total samples in NativeHot.callback: ...NativeHot.callback;Java_NativeHot_callback;jp_call_java;jni_CallStaticLongMethod;...;NativeHot.javaBurn"
    [ "$total" -ge 50 ] || fail "$v: only $total samples in NativeHot.callback in 3 s"
    [ "$pct" -ge 90 ] || { sort -t' ' -k2 -nr "$T/$v.txt" | head -3 >&2; fail "$v: only $pct% of the samples hold the C frames between NativeHot.callback and NativeHot.javaBurn"; }
    read -r pct total < <(share "$below" 'NativeHot\.main' "$T/$v.txt")
    note "$v: $pct% of $total samples in NativeHot.main have start_thread ... JavaMain below NativeHot.main"
    [ "$pct" -ge 90 ] || { sort -t' ' -k2 -nr "$T/$v.txt" | head -3 >&2; fail "$v: only $pct% of the samples have the thread's start below main"; }
done

# the report: the top trace, depth=8 Java frames, holds the C frames in their place
top=$(cpu_rows "$T/fp.hprof.txt" | head -1 | awk '{print $5}')
trace_of "$T/fp.hprof.txt" "$top" > "$T/top.txt"
awk '{sub(/\(.*/, "", $1); print $1}' "$T/top.txt" | tr '\n' ' ' > "$T/top.line"
note "top trace: $(cat "$T/top.line")"
grep -qE '^NativeHot\.javaBurn .*jni_CallStaticLongMethod .*[.]jp_call_java [^ ]*[.]Java_NativeHot_callback NativeHot\.callback NativeHot\.callNative NativeHot\.main' "$T/top.line" ||
    { cat "$T/top.txt" >&2; fail "the top trace does not hold javaBurn, the JNI entry, jp_call_java, Java_NativeHot_callback, callback, callNative, main in that order"; }
expect_grep 'jp_call_java(libjpnative_fp.so' "$T/fp.hprof.txt"

# a thread the JVM starts: its start below java.lang.Thread.run
run_java "cpu=samples,collapsed=$T/two.txt" TwoSpinners 2
expect_rc 0
read -r pct total < <(share "(^|;)start_thread;([^;]*;)*thread_native_entry[^;]*;([^;]*;)*java\\.lang\\.Thread\\.run$J;([^;]*;)*TwoSpinners\\.spin[AB]$J " 'TwoSpinners\.spin[AB]' "$T/two.txt")
note "TwoSpinners: $pct% of $total samples in spinA or spinB have start_thread ... thread_native_entry below Thread.run"
[ "$pct" -ge 90 ] || { sort -t' ' -k2 -nr "$T/two.txt" | head -3 >&2; fail "only $pct% of the spinners' samples have the JVM's thread start below Thread.run"; }

# cstack=java: Java frames only
run_java "cpu=samples,cstack=java,collapsed=$T/java.txt" NativeHot "$NATIVE/libjpnative_fp.so" callback 2
expect_rc 0
expect_no_grep 'jp_call_java' "$T/java.txt"
expect_no_grep 'start_thread' "$T/java.txt"
grep -qE "NativeHot\\.callback_\\[n\\];NativeHot\\.javaBurn$J [0-9]+\$" "$T/java.txt" || { head -5 "$T/java.txt" >&2; fail "cstack=java: no stack NativeHot.callback;NativeHot.javaBurn"; }
echo "t2119 ok"
