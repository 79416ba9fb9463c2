# The programs and JNI libraries the native-frame tests profile, run without the agent, so that
# they are known to do what those tests count on: NativeHot burns its CPU in user mode in the JNI
# library (build/it/native/, tests/native/jpnative.c), both builds of which load and run, and the
# one without frame pointers has none (no function of it sets up %rbp); FileWrites spends most of
# its CPU in the kernel (write(2)); GcChurn's G1 threads ("GC Thread#N", "G1 Conc#N") use at least
# 20% of its CPU time.
. "$(dirname "$0")/lib.sh"
NATIVE="$ROOT/build/it/native"
for v in fp nofp; do
    [ -f "$NATIVE/libjpnative_$v.so" ] || fail "$NATIVE/libjpnative_$v.so missing (make native-libs)"
done

# frame_setups LIB: the functions of tests/native/jpnative.c in LIB that set up a frame pointer
frame_setups() {
    objdump -d --no-show-raw-insn "$1" | awk '/^[0-9a-f]+ <(jp_|Java_)[^@]*>:/ {fn = $2} /^$/ {fn = ""}
        fn && /mov +%rsp,%rbp/ {print fn}' | tr -d '<>:' | sort -u | tr '\n' ' '
}
if command -v objdump >/dev/null; then
    fp=$(frame_setups "$NATIVE/libjpnative_fp.so")
    nofp=$(frame_setups "$NATIVE/libjpnative_nofp.so")
    note "set up %rbp: _fp: $fp; _nofp: ${nofp:-none}"
    [ "$fp" = "Java_HeapPaths_keepGlobal Java_NativeHot_callback Java_NativeHot_deep Java_NativeHot_mallocs Java_NativeHot_spin jp_call_java jp_deep_a jp_deep_b jp_deep_c jp_hot_loop jp_mallocs " ] ||
        fail "libjpnative_fp.so: not every function sets up %rbp: $fp"
    [ -z "$nofp" ] || fail "libjpnative_nofp.so: functions set up %rbp: $nofp"
    readelf -S "$NATIVE/libjpnative_nofp.so" | grep -q ' \.eh_frame ' || fail "libjpnative_nofp.so has no .eh_frame"
else
    note "no objdump: the frame-pointer setups of the libraries are not checked"
fi

# cpu_run NAME CMD...: runs CMD (stdout in $T/NAME.out, stderr in $T/NAME.err); UTIME and STIME
# are its CPU seconds in user and kernel mode (bash's times, in milliseconds)
cpu_run() {
    local name=$1 t; shift
    # times (in this subshell, not in a pipe): its second line is what the subshell's children used
    t=$( { timeout -k 10 120 "$@" >"$T/$name.out" 2>"$T/$name.err" || echo "rc $?" >"$T/$name.rc"; }; times)
    t=${t##*$'\n'}
    [ ! -f "$T/$name.rc" ] || { cat "$T/$name.err" >&2; fail "$name: exit $(cut -d' ' -f2 "$T/$name.rc")"; }
    ms() { awk -v t="$1" 'BEGIN { split(t, a, "m"); sub(/s$/, "", a[2]); printf "%d", (a[1] * 60 + a[2]) * 1000 }'; }
    UTIME=$(ms "${t% *}") STIME=$(ms "${t#* }")
}

for v in fp nofp; do
    for mode in spin deep; do
        cpu_run "nh-$v-$mode" "$JAVA" -cp "$CLASSES" NativeHot "$NATIVE/libjpnative_$v.so" "$mode" 1.5
        out=$(cat "$T/nh-$v-$mode.out")
        note "NativeHot $v $mode: '$out', ${UTIME} ms user, ${STIME} ms kernel"
        [[ $out =~ ^NativeHot\ $mode:\ ([0-9]+)\ calls$ ]] || fail "NativeHot $v $mode printed '$out'"
        [ "${BASH_REMATCH[1]}" -ge 10 ] || fail "NativeHot $v $mode: only ${BASH_REMATCH[1]} calls of 10 ms in 1.5 s"
        [ "$UTIME" -ge 200 ] && [ "$UTIME" -ge $((4 * STIME)) ] ||
            fail "NativeHot $v $mode: ${UTIME} ms user, ${STIME} ms kernel: not burning in user mode"
    done
done

cpu_run fw "$JAVA" -cp "$CLASSES" FileWrites "$T/blocks.dat" 2
note "FileWrites: '$(cat "$T/fw.out")', ${UTIME} ms user, ${STIME} ms kernel"
grep -Eqx 'FileWrites: [1-9][0-9]* writes' "$T/fw.out" || fail "FileWrites printed '$(cat "$T/fw.out")'"
[ ! -e "$T/blocks.dat" ] || fail "FileWrites left $T/blocks.dat"
[ "$STIME" -gt "$UTIME" ] || fail "FileWrites: ${STIME} ms in the kernel, not more than ${UTIME} ms in user mode"

# gc_ticks PID: "<ticks of the GC threads> <ticks of the process>" (user + system)
gc_ticks() {
    local f line name gc=0
    for f in /proc/"$1"/task/*/stat; do
        line=$(cat "$f" 2>/dev/null) || continue
        name=${line#*(} name=${name%)*}
        case $name in
            "GC Thread#"* | "G1 Conc"*) gc=$((gc + $(sed 's/.*) //' <<<"$line" | awk '{print $12 + $13}'))) ;;
        esac
    done
    echo "$gc $(proc_cpu_ticks "$1")"
}
"$JAVA" -Xmx512m -cp "$CLASSES" GcChurn 60 >"$T/gc.out" 2>"$T/gc.err" &
pid=$!
trap 'kill "$pid" 2>/dev/null; [ -n "${KEEP_T:-}" ] || rm -rf "$T"' EXIT # lib.sh's, and GcChurn ended
wait_cpu "$pid" 2 # start-up, and the ring filled once
read -r g0 p0 < <(gc_ticks "$pid")
wait_cpu "$pid" 6
read -r g1 p1 < <(gc_ticks "$pid")
names=$(cat /proc/"$pid"/task/*/comm | grep -E '^(GC Thread#|G1 Conc)' | sort | tr '\n' ',')
kill "$pid"
wait "$pid" 2>/dev/null
[ ! -s "$T/gc.out" ] || fail "GcChurn printed '$(head -3 "$T/gc.out")'"
[ ! -s "$T/gc.err" ] || fail "GcChurn: $(head -5 "$T/gc.err")"
share=$(awk -v g=$((g1 - g0)) -v p=$((p1 - p0)) 'BEGIN { printf "%.0f", (p > 0 ? 100 * g / p : 0) }')
note "GcChurn: GC threads (${names%,}) used $((g1 - g0)) of the process's $((p1 - p0)) ticks: $share%"
[ "$share" -ge 20 ] || fail "GcChurn: GC threads used only $share% of the CPU"
echo "t2113 ok"
