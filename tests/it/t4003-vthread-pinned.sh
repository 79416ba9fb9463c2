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
#   was pinned to (a ForkJoinPool worker);
# - jfr=, read by JDK 25's own jfr tool: each pinned wait one
#   jdk.VirtualThreadPinned (20), its eventThread the virtual thread (virtual,
#   pinner-N), its carrierThread the ForkJoinPool worker, pinnedWait() in its
#   stack, the durations adding up to the report's pinned time; the ordinary
#   contention of the run ("contend": platform thread "blocked" on a Gate)
#   still a jdk.JavaMonitorEnter, and no "<pinned>" monitor class left;
#   the same from format=b through jvmprof convert --jfr.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/jdk25.sh"
run_java25 "monitor=y,thread=y,depth=8,file=$T/m.txt,jfr=$T/m.jfr" --enable-native-access=ALL-UNNAMED VThreadPinned 4 5 contend
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

# the same as JFR events, read back by the JDK's own jfr tool
JFR="$JDK25_HOME/bin/jfr"
# jfr_pinned FILE: "pinned-events ms on-a-virtual-pinner-N in-pinnedWait with-a-carrier monitor-enters..."
jfr_pinned() {
    "$JFR" print --json --events jdk.VirtualThreadPinned,jdk.JavaMonitorEnter "$1" >"$T/ev.json" 2>"$T/jfr.err" ||
        fail "jfr print $1: $(cat "$T/jfr.err")"
    python3 - "$T/ev.json" <<'PY'
import json, re, sys
def secs(d):  # an ISO-8601 duration as jfr --json writes it (PT0.030052751S, PT1M2.5S)
    m = re.fullmatch(r"PT(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?", d or "PT0S")
    return int(m[1] or 0) * 3600 + int(m[2] or 0) * 60 + float(m[3] or 0)
pinned = virt = stacked = carried = 0
ms = 0.0
enters = []
for e in json.load(open(sys.argv[1]))["recording"]["events"]:
    v = e["values"]
    frames = [f["method"]["type"]["name"] + "." + f["method"]["name"] for f in (v.get("stackTrace") or {}).get("frames") or []]
    if e["type"] == "jdk.VirtualThreadPinned":
        pinned += 1
        ms += secs(v.get("duration")) * 1000
        t = v.get("eventThread") or {}
        virt += bool(t.get("virtual")) and re.fullmatch(r"pinner-\d+", t.get("javaName") or "") is not None
        stacked += "VThreadPinned.pinnedWait" in frames
        carried += re.fullmatch(r"ForkJoinPool-\d+-worker-\d+", (v.get("carrierThread") or {}).get("javaName") or "") is not None
    else:
        enters.append(((v.get("monitorClass") or {}).get("name") or "-") + "@" + ((v.get("eventThread") or {}).get("javaName") or "-"))
print(pinned, int(ms), virt, stacked, carried, " ".join(sorted(enters)) or "-")
PY
}
jfr_pinned "$T/m.jfr" >"$T/jfr-pinned"
read -r jpinned jms jvirt jstacked jcarried jenters <"$T/jfr-pinned"
note "jfr: $jpinned jdk.VirtualThreadPinned ($jms ms; on a virtual pinner-N $jvirt, in pinnedWait $jstacked, with a carrier $jcarried); jdk.JavaMonitorEnter: $jenters"
[ "$jpinned" = "$pinned" ] || fail "$jpinned jdk.VirtualThreadPinned events, the report has $pinned pinned waits"
[ "$jstacked" = 20 ] || fail "$jstacked jdk.VirtualThreadPinned events with pinnedWait() in their stack, expected 20"
[ "$jvirt" = "$jpinned" ] || fail "only $jvirt of $jpinned jdk.VirtualThreadPinned events on a virtual thread pinner-N"
[ "$jcarried" = "$jpinned" ] || fail "only $jcarried of $jpinned jdk.VirtualThreadPinned events name their carrier"
tol=$((5 + pinnedms / 100)) # the report's ms come from its percentages
[ $((jms - pinnedms)) -le $tol ] && [ $((pinnedms - jms)) -le $tol ] || fail "jdk.VirtualThreadPinned last $jms ms, the report $pinnedms ms"
case " $jenters " in *" VThreadPinned\$Gate@blocked "*) ;; *) fail "the contention on the Gate is no jdk.JavaMonitorEnter: $jenters" ;; esac
case "$jenters" in *"<pinned>"*) fail "pinned time still as jdk.JavaMonitorEnter: $jenters" ;; esac

# a binary report converted (jvmprof convert --jfr): the same events, the virtual threads and their carriers kept
run_java25 "monitor=y,thread=y,depth=8,format=b,file=$T/m.hprof" --enable-native-access=ALL-UNNAMED VThreadPinned 4 5
expect_rc 0
"$JVMPROF" convert "$T/m.hprof" --jfr "$T/b.jfr" 2>"$T/e" || fail "convert --jfr: $(cat "$T/e")"
jfr_pinned "$T/b.jfr" >"$T/jfr-pinned"
read -r bpinned bms bvirt bstacked bcarried benters <"$T/jfr-pinned"
note "format=b converted: $bpinned jdk.VirtualThreadPinned ($bms ms; virtual $bvirt, in pinnedWait $bstacked, with a carrier $bcarried)"
[ "$bstacked" = 20 ] && [ "$bvirt" = "$bpinned" ] && [ "$bcarried" = "$bpinned" ] ||
    fail "convert --jfr of format=b: $bpinned jdk.VirtualThreadPinned, $bstacked in pinnedWait (20), $bvirt on a virtual pinner-N, $bcarried with a carrier"
exit 0
