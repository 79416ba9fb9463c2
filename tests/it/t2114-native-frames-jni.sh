# cstack= (default native): a sample taken in a JNI library's C code holds the
# C frames above the Java frames that called them. NativeHot calls a native
# method whose C function jp_hot_loop burns the CPU: at least 90% of the CPU
# samples end in jp_hot_loop, called from Java_NativeHot_spin, under
# NativeHot.callNative. The same library built without frame pointers
# (-fomit-frame-pointer) still unwinds through its three C frames
# (jp_deep_c < jp_deep_b < jp_deep_a) by its DWARF CFI. cstack=java keeps
# the Java frames only, as before.
. "$(dirname "$0")/lib.sh"
NATIVE="$ROOT/build/it/native"
[ -f "$NATIVE/libjpnative_fp.so" ] && [ -f "$NATIVE/libjpnative_nofp.so" ] || fail "the test's JNI libraries are not built (make)"

# share LEAF CALLER COLLAPSED: percent of the samples whose leaf is LEAF with CALLER somewhere below it
share() {
    awk -v leaf="$1" -v caller="$2" '{
        n = $NF; $NF = ""; sub(/ $/, ""); total += n
        k = split($0, f, ";")
        if (f[k] == leaf && index($0, caller) > 0) hit += n
    } END { printf "%d %d\n", total ? hit * 100 / total : 0, total }' "$3"
}

run_java "cpu=samples,collapsed=$T/fp.txt,file=$T/fp.hprof.txt" NativeHot "$NATIVE/libjpnative_fp.so" spin 3
expect_rc 0
read -r pct total < <(share jp_hot_loop NativeHot.callNative "$T/fp.txt")
note "frame pointers: $pct% of $total samples end in jp_hot_loop under NativeHot.callNative"
[ "$total" -ge 100 ] || fail "only $total samples in 3 s"
[ "$pct" -ge 90 ] || { sort -t' ' -k2 -nr "$T/fp.txt" | head -5 >&2; fail "only $pct% of the samples end in jp_hot_loop"; }
# the order: jp_hot_loop is called by Java_NativeHot_spin, called by the native method NativeHot.spin
grep -qE 'NativeHot\.callNative(_\[.\])?;NativeHot\.spin(_\[n\])?;Java_NativeHot_spin;jp_hot_loop [0-9]+$' "$T/fp.txt" ||
    { head -5 "$T/fp.txt" >&2; fail "no stack NativeHot.callNative;NativeHot.spin;Java_NativeHot_spin;jp_hot_loop"; }
# the report: the C function heads the CPU SAMPLES, its library as its source file
cpu_rows "$T/fp.hprof.txt" | head -1 | grep -q 'jp_hot_loop' ||
    { cpu_rows "$T/fp.hprof.txt" | head -3 >&2; fail "jp_hot_loop does not head CPU SAMPLES"; }
expect_grep 'jp_hot_loop(libjpnative_fp.so' "$T/fp.hprof.txt"

# without frame pointers: the three C frames by DWARF
run_java "cpu=samples,collapsed=$T/nofp.txt" NativeHot "$NATIVE/libjpnative_nofp.so" deep 3
expect_rc 0
chain='NativeHot\.callNative(_\[.\])?;NativeHot\.deep(_\[n\])?;Java_NativeHot_deep;jp_deep_a;jp_deep_b;jp_deep_c [0-9]+$'
read -r pct total < <(awk -v c="$chain" '{n=$NF; t+=n; if ($0 ~ c) h+=n} END {printf "%d %d\n", t ? h*100/t : 0, t}' "$T/nofp.txt")
note "no frame pointers: $pct% of $total samples hold the whole chain ...;$chain"
[ "$pct" -ge 90 ] || { sort -t' ' -k2 -nr "$T/nofp.txt" | head -5 >&2; fail "only $pct% of the samples unwound through jp_deep_c, jp_deep_b, jp_deep_a"; }

# cstack=java: the native method is the top frame, no C frame
run_java "cpu=samples,cstack=java,collapsed=$T/java.txt" NativeHot "$NATIVE/libjpnative_fp.so" spin 2
expect_rc 0
expect_no_grep 'jp_hot_loop' "$T/java.txt"
grep -qE 'NativeHot\.callNative(_\[.\])?;NativeHot\.spin(_\[n\])? [0-9]+$' "$T/java.txt" || { head -5 "$T/java.txt" >&2; fail "cstack=java: no stack ending in NativeHot.spin"; }
echo "t2114 ok"
