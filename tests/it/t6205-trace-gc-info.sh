# trace=mem:light on GcQuick, which collects 16 times with System.gc() and
# exits at once (and, the second time, makes young collections last): every
# gc-start and gc-end of the trace's text says young or full, its collector,
# cause and heap used before and after, as many young and full as the JVM's
# GarbageCollectorMXBeans counted; the plugin (tests/plugins/fields.c) got
# the same for each collection. The same with Parallel and Serial, but for
# the young collection each of their System.gc() pauses makes before the
# full one: the trace has one record a pause, and tells it full. On JDK 23+,
# generational ZGC: its pauses are collections of their own, a gc-end for
# each gc-start, those of its major collections (all of System.gc()'s, "ZGC
# Major Pauses") told full and those of its minor ones young, none the other
# way (before: every one young). (Its pauses are not counted against the
# beans: a concurrent cycle makes pauses after the program read them. They
# are joined to their pauses by time, which a loaded machine defeats for
# many: at load 10, 7 of 188 were joined.) ZGC's heap used (JDK 17's and
# generational): each pause has one, from ZGC's counters, and the right one
# (GcHold's 48 MiB in the first pause, gone by the last).
. "$(dirname "$0")/lib.sh"
cc -shared -fPIC -I"$ROOT/include" -o "$T/libfields.so" "$ROOT/tests/plugins/fields.c" -lpthread || fail "cc fields.c"

check() { # name, exact (young counted as the beans) or not, JVM options and program arguments
    local name=$1 exact=$2; shift 2
    run_java "trace=mem:light,tracefile=$T/$name.trace,plugin=$T/libfields.so:$T/$name.plugin" "$@"
    expect_rc 0
    "$JVMPROF" trace "$T/$name.trace" >"$T/$name.txt" || fail "$name: jvmprof trace failed"
    read -r _ young _ full <"$T/out"
    local starts ends t_young t_full
    starts=$(grep -c ' gc-start #' "$T/$name.txt"); ends=$(grep -c ' gc-end #' "$T/$name.txt")
    t_young=$(grep -c ' gc-start #[0-9]* young "[^"]*" cause="[^"]*" used-before=[0-9]*$' "$T/$name.txt")
    t_full=$(grep -c ' gc-start #[0-9]* full "[^"]*" cause="[^"]*" used-before=[0-9]*$' "$T/$name.txt")
    # Parallel and Serial scavenge first within a System.gc() pause: one pause (full), two collections
    [ "$exact" = y ] || { young=$t_young; [ "$t_young" -gt 0 ] || fail "$name: no young collection told"; }
    [ "$t_young" = "$young" ] && [ "$t_full" = "$full" ] && [ "$starts" = $((young + full)) ] && [ "$ends" = "$starts" ] ||
        fail "$name: the trace has $starts collections, $t_young young and $t_full full told in full; the JVM counted $young young, $full full: $(grep -v 'used-before=[0-9]\|used-after=[0-9]' "$T/$name.txt" | head -5)"
    [ "$(grep -c ' gc-end #[0-9]* \(young\|full\) used-after=[0-9]*$' "$T/$name.txt")" = "$ends" ] ||
        fail "$name: a gc-end without its kind or heap: $(grep ' gc-end' "$T/$name.txt" | grep -v 'used-after=[0-9]' | head -3)"
    [ "$full" -ge 16 ] || fail "$name: only $full full collections"
    # the plugin: one gc_info per collection, equal to the text's
    awk '$3 == "gc-start" { n = substr($4, 2); k = $5; sub(/.* used-before=/, ""); b[n] = k " " $0 }
         $3 == "gc-end" { sub(/^#/, "", $4); sub(/used-after=/, "", $6); print $4, b[$4], $6 }' "$T/$name.txt" | sort >"$T/$name.want"
    # (a pause of two collections is told twice; the trace keeps the last, as here)
    awk '$1 == "info" { sub(/^#/, "", $2); last[$2] = $2 " " $3 " " $(NF-1) " " $NF } END { for (n in last) print last[n] }' \
        "$T/$name.plugin" |
        sed 's/used-before=//; s/used-after=//' | sort >"$T/$name.got"
    diff "$T/$name.want" "$T/$name.got" >&2 || fail "$name: the plugin's collections differ from the trace's (number kind before after)"
    note "$name: $young young, $full full"
}
check g1 y GcQuick 16
check g1-young y -Xmx64m GcQuick 16 300000
grep -q ' young "G1 Young Generation" cause="G1 Evacuation Pause"' "$T/g1-young.txt" || fail "no young G1 collection told"
check parallel n -XX:+UseParallelGC -Xmx64m GcQuick 16 300000
check serial n -XX:+UseSerialGC -Xmx64m GcQuick 16 300000
if [ "$JDK_FEATURE" -ge 23 ]; then
    run_java "trace=mem:light,tracefile=$T/zgc.trace" -XX:+UseZGC -Xmx64m GcQuick 16 300000
    expect_rc 0
    "$JVMPROF" trace "$T/zgc.trace" >"$T/zgc.txt" || fail "zgc: jvmprof trace failed"
    starts=$(grep -c ' gc-start #' "$T/zgc.txt") ends=$(grep -c ' gc-end #' "$T/zgc.txt")
    major=$(grep -c ' gc-start #[0-9]* full "ZGC Major Pauses" ' "$T/zgc.txt")
    minor=$(grep -c ' gc-start #[0-9]* young "ZGC Minor Pauses" ' "$T/zgc.txt")
    [ "$starts" = "$ends" ] && [ "$major" -ge 1 ] || fail "zgc: $starts gc-start, $ends gc-end, $major major pauses told full"
    ! grep -q ' gc-start #[0-9]* young "ZGC Major\| gc-start #[0-9]* full "ZGC Minor' "$T/zgc.txt" ||
        fail "zgc: a pause told the wrong kind: $(grep -m1 ' young "ZGC Major\| full "ZGC Minor' "$T/zgc.txt")"
    note "zgc: $starts pauses, $major of major collections (full), $minor of minor ones (young)"
fi
# ZGC (JDK 17's and generational): its pauses' notifications carry no heap sizes (ZGC records none for
# its pauses' beans), so each pause tells the heap used as ZGC's counters have it at the pause's end,
# as both before and after (before: 0 and 0). GcHold holds 48 MiB over two System.gc() and drops it
# before two more: at least 48 MiB in the first pause, well under it in the last.
run_java "trace=mem:light,tracefile=$T/zhold.trace" -XX:+UseZGC -Xmx128m GcHold 48
expect_rc 0
"$JVMPROF" trace "$T/zhold.trace" >"$T/zhold.txt" || fail "zgc heap: jvmprof trace failed"
awk '$3 == "gc-start" { n++; b = $NF; if (b !~ /^used-before=[0-9]+$/) bad++; sub(/^used-before=/, "", b); before[$4] = b
                        if (n == 1) first = b }
     $3 == "gc-end" { a = $NF; if (a !~ /^used-after=[0-9]+$/) bad++; sub(/^used-after=/, "", a)
                      if (a + 0 == 0) zero++; if (before[$4] != a) differ++; last = a }
     END { printf "%d %d %d %d %d %d\n", n, bad, zero, differ, first / 1048576, last / 1048576 }' "$T/zhold.txt" >"$T/zhold"
read -r zpauses zbad zzero zdiffer zfirst zlast <"$T/zhold"
note "zgc heap: $zpauses pauses, the first with $zfirst MiB used, the last $zlast MiB"
[ "$zpauses" -ge 4 ] && [ "$zbad" = 0 ] && [ "$zzero" = 0 ] ||
    fail "zgc heap: of $zpauses pauses, $zbad without a heap size, $zzero with 0 used: $(grep -m2 ' gc-end' "$T/zhold.txt")"
[ "$zdiffer" = 0 ] || fail "zgc heap: $zdiffer pauses whose used-before is not their used-after"
[ "$zfirst" -ge 48 ] && [ "$zlast" -lt 24 ] ||
    fail "zgc heap: $zfirst MiB used in the first pause (48 held), $zlast MiB in the last (dropped)"
