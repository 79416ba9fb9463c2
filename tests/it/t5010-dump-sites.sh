# Allocation sites in the heap dump: with heap=sites and a heap dump in the same run, each sampled
# object still alive carries, as its stack-trace serial, the TRACE number the report prints for its
# site, and the dump holds that TRACE and its FRAMEs. LeakSites keeps exactly 20000 LeakSites$Kept
# (keep()) and drops 50000 GarbA (churnA()) and 30000 GarbB (churnB()); with alloc_interval=256 the
# sampler picks a Kept (24 bytes) with p = 1 - exp(-24/256), about 9%.
#  1. heap=sites + Control.dumpHeap: the Kept objects carry either the Kept row's trace (the sampled
#     ones: as many as the report's live estimate times p) or 1; that trace's top frame is keep()
#     at the line of `new Kept()`; every other object with a trace belongs to a live SITES row of
#     its class and trace; nothing of GarbA/GarbB is in the dump (their sampled objects died);
#     every trace named has its TRACE, FRAME and LOAD CLASS records (tests/tools/hprof_traces.py,
#     a reader of its own). VisualVM's library and `jvmprof heap --retained` read the dump.
#  2. heap=all at exit (ASCII, the dump written at VM death): the Kept OBJs carry the same trace.
#  3. heap=all,dumper=hotspot: HotSpot's dumper, a line saying its objects carry no trace.
#  4. alloc_count=site: the Kept objects carry the trace of the Kept row's sampled caller.
#  5. lifetimes=y: LeakGrow keeps 1000 LeakGrow$Obj (32 bytes) a round for 20 rounds; the LEAK SUSPECT
#     line's trace is on the sampled ones in heap=all's dump (p = 1 - exp(-32/1024): about 615).
. "$(dirname "$0")/lib.sh"
SRC="$ROOT/tests/programs/LeakSites.java"
KEEP_LINE=$(src_line "$SRC" "KEPT.add(new Kept())")
VERIFY="$ROOT/tests/tools/heapverify.sh"
sites_rows() { awk '/^SITES BEGIN/ {on=1; next} /^SITES END/ {on=0} on && $1 ~ /^[0-9]+$/' "$1"; }

# ---- 1. heap=sites and a dump from Control.dumpHeap ----
run_java "heap=sites,alloc_interval=256,depth=4,verbose=y,file=$T/s.txt" LeakSites dump "$T/d.hprof"
expect_rc 0
expect_grep "^dump $T/d.hprof true$" "$T/out"
expect_grep "heap dump: taken by jvmprof's own heap walk (dumper=jvmti)" "$T/err"
expect_grep "heap dump: [0-9]* of heap=sites' [0-9]* live sampled objects carry their allocation trace" "$T/err"
python3 "$ROOT/tests/tools/hprof_traces.py" "$T/d.hprof" >"$T/tr" || fail "hprof_traces.py could not read the dump"
! grep "^bad " "$T/tr" || fail "trace, frame or class records missing"
sites_rows "$T/s.txt" >"$T/rows"
[ "$(awk '$9 == "LeakSites$Kept"' "$T/rows" | wc -l)" = 1 ] || fail "not one LeakSites\$Kept row"
read -r kbytes kobjs ktrace <<<"$(awk '$9 == "LeakSites$Kept" {print $4, $5, $8}' "$T/rows")"
trace_of "$T/s.txt" "$ktrace" | head -1 | grep -q "LeakSites.keep(LeakSites.java:$KEEP_LINE)" ||
    fail "the Kept row's trace $ktrace is not keep() at line $KEEP_LINE"
for g in GarbA GarbB; do
    read -r live alloc <<<"$(awk -v c="LeakSites\$$g" '$9 == c {print $5, $7}' "$T/rows")"
    [ "${live:-x}" = 0 ] && [ "${alloc:-0}" -gt 10000 ] || fail "LeakSites\$$g row: live ${live:-?}, allocated ${alloc:-?} (want 0 and most of them)"
done
ksampled=$(awk -v t="$ktrace" '$1 == "obj" && $2 == "LeakSites$Kept" && $3 == t {print $4}' "$T/tr")
kplain=$(awk '$1 == "obj" && $2 == "LeakSites$Kept" && $3 == 1 {print $4}' "$T/tr")
kother=$(awk -v t="$ktrace" '$1 == "obj" && $2 == "LeakSites$Kept" && $3 != t && $3 != 1' "$T/tr" | wc -l)
note "Kept: ${ksampled:-0} with trace $ktrace, ${kplain:-0} with trace 1; report: $kobjs live ($kbytes bytes)"
[ "$kother" = 0 ] || fail "Kept objects with another trace: $(grep 'LeakSites\$Kept' "$T/tr")"
[ $((${ksampled:-0} + ${kplain:-0})) = 20000 ] || fail "the dump holds ${ksampled:-0} + ${kplain:-0} Kept, not 20000"
# the report's live estimate is the live samples over p: the dump must hold those samples (1% for rounding)
awk -v n="$ksampled" -v objs="$kobjs" -v bytes="$kbytes" 'BEGIN {
    size = bytes / objs; p = 1 - exp(-size / 256); est = n / p
    exit !(n >= 1000 && n <= 3000 && est >= objs * 0.99 && est <= objs * 1.01) }' ||
    fail "$ksampled sampled Kept in the dump do not make the report's $kobjs live (p from $kbytes bytes)"
grep -q "^frame $ktrace 0 LeakSites keep ()V LeakSites.java $KEEP_LINE$" "$T/tr" ||
    fail "TRACE $ktrace's top FRAME is not keep()V at LeakSites.java:$KEEP_LINE: $(grep "^frame $ktrace " "$T/tr")"
grep -q "^frame $ktrace 1 LeakSites main (\[Ljava/lang/String;)V LeakSites.java [0-9]*$" "$T/tr" ||
    fail "TRACE $ktrace's second FRAME is not main"
! grep -q '^obj LeakSites\$Garb' "$T/tr" || fail "garbage in the dump: $(grep 'LeakSites\$Garb' "$T/tr")"
# every object with a trace: a live SITES row of its class and that trace
awk '$1 == "obj" && $3 != 1 {print $2, $3}' "$T/tr" | sort -u | while read -r cls tr; do
    awk -v c="$cls" -v t="$tr" '$9 == c && $8 == t && $5 > 0 {f=1} END {exit !f}' "$T/rows" ||
        fail "objects of $cls carry trace $tr, which no live SITES row of $cls shows"
done || exit 1
ntraced=$(awk '$1 == "obj" && $3 != 1 {s += $4} END {print s + 0}' "$T/tr")
note "objects with a trace: $ntraced in $(awk '$1 == "obj" && $3 != 1' "$T/tr" | wc -l) (class, trace) pairs"
"$JVMPROF" heap "$T/d.hprof" --retained --top 3 >"$T/ret.txt" 2>"$T/e" || { cat "$T/e" >&2; fail "jvmprof heap --retained failed"; }
"$VERIFY" "$T/d.hprof" --count 'LeakSites$Kept' >"$T/v" 2>"$T/ve"
case $? in
0) grep -q '^count LeakSites\$Kept 20000$' "$T/v" || fail "VisualVM's library: $(cat "$T/v")" ;;
2) note "VisualVM's heap library not installed: $(head -1 "$T/ve")" ;;
*) cat "$T/v" "$T/ve" >&2; fail "VisualVM's library: unresolved references" ;;
esac

# ---- 2. heap=all: the dump at exit, ASCII after the report ----
run_java "heap=all,alloc_interval=256,depth=4,file=$T/all.txt" LeakSites
expect_rc 0
sites_rows "$T/all.txt" >"$T/rows2"
kt2=$(awk '$9 == "LeakSites$Kept" {print $8}' "$T/rows2")
[ -n "$kt2" ] || fail "heap=all: no LeakSites\$Kept row"
n2=$(grep -c "^OBJ [0-9a-f]* (sz=[0-9]*, trace=$kt2, class=LeakSites\$Kept@" "$T/all.txt")
n1=$(grep -c "^OBJ [0-9a-f]* (sz=[0-9]*, trace=1, class=LeakSites\$Kept@" "$T/all.txt")
note "heap=all: $n2 Kept with trace $kt2, $n1 with trace 1"
[ $((n1 + n2)) = 20000 ] && [ "$n2" -ge 1000 ] && [ "$n2" -le 3000 ] || fail "heap=all: $n2 + $n1 Kept OBJs"

# ---- 3. dumper=hotspot named: no traces, and a line saying so ----
run_java "heap=all,alloc_interval=256,depth=4,dumper=hotspot,file=$T/hs.txt" LeakSites
expect_rc 0
expect_grep "heap dump: dumper=hotspot gives every object the empty trace" "$T/err"
! grep -q "^OBJ [0-9a-f]* (sz=[0-9]*, trace=3[0-9]*, " "$T/hs.txt" || fail "dumper=hotspot: an object with a trace"

# ---- 4. alloc_count=site: the sampled objects carry their sampled caller's trace ----
run_java "heap=sites,alloc_count=site,alloc_interval=256,depth=4,file=$T/c.txt" LeakSites dump "$T/c.hprof"
expect_rc 0
expect_grep "^dump $T/c.hprof true$" "$T/out"
python3 "$ROOT/tests/tools/hprof_traces.py" "$T/c.hprof" >"$T/ctr" || fail "alloc_count=site: unreadable dump"
! grep "^bad " "$T/ctr" || { grep "^bad" "$T/ctr" | head -3 >&2; b=$(grep "^bad" "$T/ctr" | head -1 | awk "{print \$7}"); grep "^frame $b " "$T/ctr" >&2; fail "alloc_count=site: trace records missing"; }
callers=$(awk '$9 == "LeakSites$Kept" {on=1; next} on && /sampled caller/ {print $NF; next} {on=0}' "$T/c.txt")
[ -n "$callers" ] || fail "alloc_count=site: no sampled caller under the Kept row"
ct=$(awk '$1 == "obj" && $2 == "LeakSites$Kept" && $3 != 1 {print $3}' "$T/ctr")
[ "$(echo "$ct" | wc -w)" = 1 ] && grep -qx "$ct" <<<"$callers" ||
    fail "alloc_count=site: Kept objects carry trace(s) '$ct', not the Kept row's sampled caller ($callers)"
grep -q "^frame $ct 0 LeakSites keep ()V LeakSites.java $KEEP_LINE$" "$T/ctr" || fail "alloc_count=site: trace $ct is not keep()"

# ---- 5. the LEAK SUSPECT's trace, on its objects in the dump ----
run_java "heap=all,lifetimes=y,alloc_interval=1k,depth=3,file=$T/leak.txt" LeakGrow
expect_rc 0
lt=$(sed -n 's/^LEAK SUSPECT: site [0-9]* (trace \([0-9]*\), LeakGrow\$Obj).*/\1/p' "$T/leak.txt")
[ -n "$lt" ] || fail "no LEAK SUSPECT line for LeakGrow\$Obj"
nl=$(grep -c "^OBJ [0-9a-f]* (sz=[0-9]*, trace=$lt, class=LeakGrow\$Obj@" "$T/leak.txt")
nall=$(grep -c "^OBJ [0-9a-f]* (sz=[0-9]*, trace=[0-9]*, class=LeakGrow\$Obj@" "$T/leak.txt")
n1=$(grep -c "^OBJ [0-9a-f]* (sz=[0-9]*, trace=1, class=LeakGrow\$Obj@" "$T/leak.txt")
note "LEAK SUSPECT trace $lt: $nl LeakGrow\$Obj carry it, $n1 trace 1, of $nall"
[ "$nall" -ge 20000 ] && [ $((nl + n1)) = "$nall" ] && [ "$nl" -ge 400 ] && [ "$nl" -le 850 ] ||
    fail "LeakGrow\$Obj in the dump: $nl with the suspect's trace $lt, $n1 with 1, $nall in all"
echo "t5010 ok"
