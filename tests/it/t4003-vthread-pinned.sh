# monitor=y and virtual threads pinned to their carrier (JDK 25): on JDK 24
# and later synchronized no longer pins; a native frame on the stack still
# does. VThreadPinned's 4 virtual threads each sort two ints 5 times with
# the C library's qsort, whose comparator (an upcall into Java under
# qsort's native frame) sleeps 30 ms in pinnedWait(): pinned. Each then
# sleeps 30 ms in freeWait(), unmounted: not pinned.
# - 20 waits under "<pinned>" (blocked), each with pinnedWait() in its stack
#   (the frames of VirtualThread's park on the carrier left out), together
#   about 20 x 30 ms (at least 500: the park is the rest of the sleep after
#   the failed unmount); freeWait() never pinned;
# - thread=y: named by the virtual thread (pinner-N), with the carrier it
#   was pinned to (a ForkJoinPool worker).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/jdk25.sh"
run_java25 "monitor=y,thread=y,depth=8,file=$T/m.txt" --enable-native-access=ALL-UNNAMED VThreadPinned 4 5
expect_rc 0
[ "$(cat "$T/out")" = done ] || fail "program output changed under monitor=y"
expect_grep "^MONITOR TIME BEGIN" "$T/m.txt"
awk '
    /^THREAD START/ {
        id = $0; sub(/.*id = /, "", id); sub(/,.*/, "", id)
        nm = $0; sub(/.*name="/, "", nm); sub(/".*/, "", nm)
        ca = ""; if ($0 ~ /carrier=/) { ca = $0; sub(/.*carrier=/, "", ca); sub(/\).*/, "", ca) }
        name[id] = nm; carrier[id] = ca
    }
    /^TRACE [0-9]+: \(thread=/ { t = $2; sub(":", "", t); th = $3; gsub(/[^0-9]/, "", th); owner[t] = th; next }
    /^\t/ && t != "" { if ($0 ~ /VThreadPinned.pinnedWait/) pw[t] = 1; if ($0 ~ /VThreadPinned.freeWait/) fw[t] = 1;
                       if ($0 ~ /java.lang.VirtualThread\./) vt[t] = 1 }
    /^[A-Z]/ && !/^TRACE/ { t = "" }
    /^MONITOR TIME BEGIN/ { on = 1; ms = $0; sub(/.*total = /, "", ms); sub(/ ms.*/, "", ms); total = ms; next }
    /^MONITOR TIME END/ { on = 0 }
    on && $1 ~ /^[0-9]+$/ && $6 == "<pinned>" {
        share = $2; sub("%", "", share)
        pinned += $4; pinnedms += share * total / 100
        if (pw[$5]) inwait += $4
        if (fw[$5]) free += $4
        if (vt[$5]) vtframes += $4
        th = owner[$5]
        if (name[th] ~ /^pinner-[0-9]+$/ && name[carrier[th]] ~ /^ForkJoinPool-[0-9]+-worker-/) named += $4
    }
    END { printf "%d %d %d %d %d %d\n", pinned, pinnedms, inwait, free, vtframes, named }' "$T/m.txt" >"$T/pinned"
read -r pinned pinnedms inwait free vtframes named <"$T/pinned"
note "pinned: $pinned waits, $pinnedms ms; in pinnedWait $inwait, in freeWait $free; named by pinner-N with a carrier $named"
[ "$inwait" = 20 ] || fail "$inwait pinned waits in pinnedWait(), expected 20"
[ "$pinnedms" -ge 500 ] || fail "pinned for $pinnedms ms in all, expected about 20 x 30 ms (at least 500)"
[ "$free" = 0 ] || fail "$free waits in freeWait() (unmounted) reported as pinned"
[ "$vtframes" = 0 ] || fail "pinned stacks keep java.lang.VirtualThread's frames"
[ "$named" = "$pinned" ] || fail "only $named of $pinned pinned waits named by a pinner-N virtual thread with its carrier"
exit 0
