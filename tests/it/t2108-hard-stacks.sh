# On HardStacks (megamorphic calls through eight classes, deep recursion,
# array copies, natives that go into the VM, reflection, allocation), the
# share of samples with no Java frame is printed and stays under 1%, with the
# JIT (tiered, the default), under -Xint, and with JFR recording in the same
# JVM. The build before left 77% of them unwalkable with the JIT (the array
# copy stub keeps a frame pointer, so the return address is not at sp),
# 4-18% under -Xint (the interpreter's calls into the VM leave the frame
# anchor without a pc) and 23% with JFR on.
. "$(dirname "$0")/lib.sh"
unwalkable() { # FILE: "N of TOTAL"
    local n t
    n=$(sed -n 's/^samples not walkable (counted under <unknown frame>) \([0-9]*\)$/\1/p' "$1")
    t=$(sed -n 's/^CPU SAMPLES BEGIN (total = \([0-9]*\)).*/\1/p' "$1")
    echo "${n:-0} ${t:-0}"
}
for mode in jit int jfr; do
    opt=()
    [ $mode = int ] && opt=(-Xint)
    [ $mode = jfr ] && opt=("-XX:StartFlightRecording=filename=$T/rec.jfr")
    run_java "cpu=samples,interval=2,file=$T/$mode.txt,verbose=y" "${opt[@]}" HardStacks 3000
    expect_rc 0
    expect_grep "^HardStacks done" "$T/out"
    read -r n t < <(unwalkable "$T/$mode.txt")
    [ "$t" -ge 300 ] || fail "$mode: only $t samples"
    note "$mode: $n of $t samples with no Java frame ($(awk -v n="$n" -v t="$t" 'BEGIN {printf "%.2f", 100 * n / t}')%)"
    awk -v n="$n" -v t="$t" 'BEGIN { exit !(n * 100 < t) }' || fail "$mode: $n of $t samples have no Java frame (>= 1%)"
done

# where process_vm_readv is refused (a container's seccomp profile may), the
# sampler says so and walks with AsyncGetCallTrace alone; the program and the
# report are as ever
timeout -k 10 120 "$ROOT/build/tools/deny" process_vm_readv "$JAVA" "-agentpath:$AGENT=cpu=samples,interval=2,file=$T/noreadv.txt,verbose=y" \
    -cp "$CLASSES" HardStacks 1500 >"$T/out" 2>"$T/err" || fail "HardStacks failed without process_vm_readv: $(tail -3 "$T/err")"
expect_grep "^HardStacks done" "$T/out"
expect_grep "process_vm_readv is not allowed here: the sampler walks stacks with AsyncGetCallTrace alone" "$T/err"
read -r n t < <(unwalkable "$T/noreadv.txt")
[ "$t" -ge 100 ] || fail "noreadv: only $t samples"
note "without process_vm_readv: $n of $t samples with no Java frame"
exit 0
