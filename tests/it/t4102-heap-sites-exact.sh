# heap=sites,alloc_interval=0: every allocation counted. AllocSites: exactly
# 100000 Foo allocated and live at makeFoos' trace, 50000 Bar allocated and
# 0 live at makeBars', in ASCII and through the binary file; the lifetimes
# say every Bar died before surviving a collection and no Foo died.
# AllocAges: objects that die before or after their first collection, on a
# running, a blocked and an ended thread, each at the age it died.
# AllocKinds: each kind of allocation exactly as often as the program made
# it (arrays, reflection, clone(), 8 threads at once), and the Strings JNI
# code makes. LeakGrow: the one leak suspect, at makeRound. The records the
# agent keeps per live object: at most 64 bytes. jvmprof's own Java code is
# never counted.
. "$(dirname "$0")/lib.sh"
run_java "" AllocSites
expect_rc 0
cp "$T/out" "$T/plain.out"
run_java "heap=sites,alloc_interval=0,depth=3,file=$T/s.txt,verbose=y" AllocSites
expect_rc 0
cmp -s "$T/out" "$T/plain.out" || fail "the program's output changed"
expect_grep "^SITES BEGIN (ordered by live bytes; exact counts) " "$T/s.txt"
grep "^SITES BEGIN" "$T/s.txt" | grep -q estimate && fail "exact mode: the SITES header says estimates"
# the collections seen, as in the sampled mode (issue 16, item 6)
gc=$(sed -n 's/^GC (total = \([0-9]*\) collections, .*/\1/p' "$T/s.txt")
[ -n "$gc" ] || fail "exact mode: no GC line"
expect_grep "heap=sites: [0-9]* allocations counted (exact)" "$T/err"
row() { awk -v c="$2" '$9 == c' "$1"; }
check_sites() {
    local f=$1 fl fa bl ba
    [ "$(row "$f" 'AllocSites$Foo' | wc -l)" = 1 ] || { grep SITES -A20 "$f" >&2; fail "$f: not one AllocSites\$Foo site"; }
    [ "$(row "$f" 'AllocSites$Bar' | wc -l)" = 1 ] || fail "$f: not one AllocSites\$Bar site"
    read -r fl fa <<<"$(row "$f" 'AllocSites$Foo' | awk '{print $5, $7}')"
    read -r bl ba <<<"$(row "$f" 'AllocSites$Bar' | awk '{print $5, $7}')"
    note "$(basename "$f"): Foo live $fl, allocated $fa; Bar live $bl, allocated $ba"
    [ "$fa" = 100000 ] && [ "$fl" = 100000 ] || fail "$f: Foo allocated $fa, live $fl (exactly 100000 each)"
    [ "$ba" = 50000 ] && [ "$bl" = 0 ] || fail "$f: Bar allocated $ba, live $bl (exactly 50000, 0)"
    # a Foo is 32 bytes (12-byte header, its two longs from offset 16), a Bar 16 (header and an int)
    [ "$(row "$f" 'AllocSites$Foo' | awk '{print $4, $6}')" = "3200000 3200000" ] || fail "$f: Foo bytes not 100000 x 32"
    [ "$(row "$f" 'AllocSites$Bar' | awk '{print $4, $6}')" = "0 800000" ] || fail "$f: Bar bytes not 0 live, 50000 x 16"
    trace_of "$f" "$(row "$f" 'AllocSites$Foo' | awk '{print $8}')" | head -1 |
        grep -q "AllocSites.makeFoos(AllocSites.java:" || fail "$f: Foo's trace is not makeFoos"
    trace_of "$f" "$(row "$f" 'AllocSites$Bar' | awk '{print $8}')" | head -1 |
        grep -q "AllocSites.makeBars(AllocSites.java:" || fail "$f: Bar's trace is not makeBars"
}
check_sites "$T/s.txt"
run_java "heap=sites,alloc_interval=0,depth=3,format=b,file=$T/s.hprof" AllocSites
expect_rc 0
"$JVMPROF" report "$T/s.hprof" -o "$T/s-report.txt" || fail "jvmprof report failed"
check_sites "$T/s-report.txt"
# heap=all: the SITES table and the HEAP DUMP in one ASCII file; the dump holds
# as many Foo as SITES says are live, and no Bar
run_java "heap=all,alloc_interval=0,depth=3,file=$T/all.txt" AllocSites
expect_rc 0
cmp -s "$T/out" "$T/plain.out" || fail "heap=all: the program's output changed"
[ "$(grep -c '^SITES BEGIN\|^SITES END\|^HEAP DUMP BEGIN\|^HEAP DUMP END' "$T/all.txt")" = 4 ] ||
    fail "heap=all: not one SITES and one HEAP DUMP section"
awk '/^SITES END/ {s=NR} /^HEAP DUMP BEGIN/ {h=NR} END {exit !(s && h > s)}' "$T/all.txt" || fail "heap=all: the dump does not follow SITES"
fl=$(row "$T/all.txt" 'AllocSites$Foo' | awk '{print $5}')
fo=$(grep -c '^OBJ [0-9a-f]* (sz=[0-9]*, trace=[0-9]*, class=AllocSites\$Foo@' "$T/all.txt")
bo=$(grep -c '^OBJ [0-9a-f]* (sz=[0-9]*, trace=[0-9]*, class=AllocSites\$Bar@' "$T/all.txt")
note "heap=all: SITES Foo live $fl, HEAP DUMP Foo objects $fo, Bar objects $bo"
[ "$fl" = 100000 ] && [ "$fo" = 100000 ] && [ "$bo" = 0 ] || fail "heap=all: Foo live $fl, in the dump $fo, Bar $bo"
# heap=all on SIGQUIT: the first report to file=, the one at exit to file=.1, each with both sections
rm -f "$T/qstop"
"$JAVA" "-agentpath:$AGENT=heap=all,alloc_interval=0,file=$T/q.txt" -cp "$CLASSES" HeapGraph "$T/qstop" \
    >"$T/qout" 2>"$T/qerr" &
QPID=$!
for _ in $(seq 1 300); do grep -q '^ready$' "$T/qout" 2>/dev/null && break; sleep 0.1; done
grep -q '^ready$' "$T/qout" || { touch "$T/qstop"; cat "$T/qerr" >&2; fail "HeapGraph did not get ready"; }
kill -QUIT $QPID
for _ in $(seq 1 100); do [ -f "$T/q.txt" ] && break; sleep 0.1; done
touch "$T/qstop"
wait $QPID || fail "heap=all: HeapGraph failed after SIGQUIT"
for f in q.txt q.txt.1; do
    [ "$(grep -c '^SITES END\|^HEAP DUMP END' "$T/$f" 2>/dev/null)" = 2 ] || fail "heap=all on SIGQUIT: $f lacks SITES or HEAP DUMP"
    [ "$(grep -c 'class=HeapGraph\$Derived@' "$T/$f")" = 3000 ] || fail "heap=all: $f does not hold the 3000 HeapGraph\$Derived"
done
# lifetimes
run_java "heap=sites,alloc_interval=0,lifetimes=y,depth=3,file=$T/l.txt" AllocSites
expect_rc 0
expect_grep "^LIFETIMES BEGIN (every object; " "$T/l.txt"
life() { sed -n '/^LIFETIMES BEGIN/,/^LIFETIMES END/p' "$1" | awk -v c="$2" '$1 ~ /^[0-9]+$/ && $NF == c'; }
read -r fa fd fl <<<"$(life "$T/l.txt" 'AllocSites$Foo' | awk '{print $3, $4, $5}')"
read -r ba bd bl bg <<<"$(life "$T/l.txt" 'AllocSites$Bar' | awk '{print $3, $4, $5, $6}')"
note "lifetimes: Foo allocated $fa died $fd live $fl; Bar allocated $ba died $bd live $bl, by collections survived $bg"
[ "$fa $fd $fl" = "100000 0 100000" ] || fail "Foo: allocated $fa died $fd live $fl (100000 0 100000)"
[ "$ba $bd $bl $bg" = "50000 50000 0 50000/0/0/0/0" ] || fail "Bar: allocated $ba died $bd live $bl ($bg)"
expect_grep "^CHURN: site [0-9]* (trace [0-9]*, AllocSites\$Bar): 50000 of 50000 allocated died" "$T/l.txt"
expect_no_grep "^LEAK SUSPECT" "$T/l.txt"
# ages, by thread state: a new object is followed by weak reference until a
# collection is swept (by its thread at its next allocation, or by the agent
# thread for one that is blocked or ended) and tagged if it survived
run_java "" AllocAges
expect_rc 0
cp "$T/out" "$T/ages-plain.out"
run_java "heap=sites,alloc_interval=0,lifetimes=y,depth=3,file=$T/a.txt,verbose=y" AllocAges
expect_rc 0
cmp -s "$T/out" "$T/ages-plain.out" || fail "AllocAges: the program's output changed"
for want in 'AllocAges$Baz 30000 30000 0 0/30000/0/0/0' 'AllocAges$Qux 20000 20000 0 20000/0/0/0/0' \
            'AllocAges$Quux 10000 10000 0 10000/0/0/0/0'; do
    c=${want%% *}
    got="$c $(life "$T/a.txt" "$c" | head -1 | awk '{print $3, $4, $5, $6}')"
    note "lifetimes: $got"
    [ "$got" = "$want" ] || fail "AllocAges: '$got', not '$want' (class allocated died live by-collections)"
done
line=$(grep "heap=sites: .* allocations counted" "$T/err")
young=$(sed 's/.* seen freed (\([0-9]*\) of them before their first collection was swept, \([0-9]*\) tagged).*/\1 \2/' <<<"$line")
read -r yd yt <<<"$young"
note "AllocAges: $yd died before their first collection was swept, $yt tagged at a sweep"
[ "$yd" -ge 30000 ] && [ "$yt" -ge 30000 ] || fail "AllocAges: nursery counts: $line"
# every kind of allocation, exactly; 8 threads at once
mkdir -p "$T/dir" && for i in 1 2 3 4 5 6 7 8 9 10; do : >"$T/dir/file$i"; done
run_java "heap=sites,alloc_interval=0,depth=4,cutoff=0,file=$T/k.txt,verbose=y" AllocKinds "$T/dir"
expect_rc 0
expect_grep "^kept 227000 shared 400000$" "$T/out"
allocated() { site_objs "$T/k.txt" "$1"; }
SRC="$ROOT/tests/programs/AllocKinds.java"
at_line() { site_objs "$T/k.txt" "$1" "^\s*AllocKinds\.main\(AllocKinds\.java:$(src_line "$SRC" "$2")\)"; }
allockinds_arrays "$T/k.txt"
for want in 'AllocKinds$Item[] 20000' 'AllocKinds$Refl 20000' 'AllocKinds$Cl 20001' 'AllocKinds$Shared 400000'; do
    c=${want% *} n=${want##* }
    [ "$(allocated "$c")" = "$n" ] || fail "$c allocated $(allocated "$c"), not exactly $n"
done
note "exact: 8 primitive array kinds x 20000, int[][] 5000 with 10000 rows, Item[] 20000, Refl 20000, Cl 20001, Shared (8 threads) 400000"
site_trace() { awk -v c="$1" '$9 == c {print $8}' "$T/k.txt"; }
# Constructor.newInstance: through method handles from JDK 18 (DirectMethodHandle.allocateInstance)
refl_ok=0; for t in $(site_trace 'AllocKinds$Refl'); do
    trace_of "$T/k.txt" "$t" | grep -q "newInstance\|DirectMethodHandle.allocateInstance" && refl_ok=1
done
[ $refl_ok = 1 ] || fail "no reflection site for AllocKinds\$Refl"
cl_ok=0; for t in $(site_trace 'AllocKinds$Cl'); do trace_of "$T/k.txt" "$t" | grep -q "clone" && cl_ok=1; done
[ $cl_ok = 1 ] || fail "no clone site for AllocKinds\$Cl"
jni_ok=0; for t in $(site_trace 'java.lang.String'); do trace_of "$T/k.txt" "$t" | head -1 | grep -q "UnixFileSystem.list" && jni_ok=1; done
[ $jni_ok = 1 ] || fail "no String site from UnixFileSystem.list (JNI)"
# memory: the records for ~270000 live objects, at most 64 bytes each (at the most live)
line=$(grep "objects tracked live (" "$T/err")
live=$(sed 's/.* (\([0-9]*\) at most).*/\1/' <<<"$line")
each=$(sed 's/.*records (\([0-9]*\) bytes each at the most).*/\1/' <<<"$line")
note "memory: $live objects tracked live, $each bytes each"
[ "$live" -ge 200000 ] && [ "$each" -le 64 ] || fail "tracking memory: $line"
# alloc_hook=bci (the Tracker calls at Object.<init> and after array allocations,
# and VMObjectAlloc): the same exact counts for what it sees. It does not see
# the rows of a multi-dimensional array (the JVM allocates them inside the
# multianewarray instruction) nor clone() once the JIT has made it an intrinsic
# (docs/allocations.md); neither is checked here.
run_java "heap=sites,alloc_interval=0,alloc_hook=bci,depth=3,file=$T/b.txt" AllocSites
expect_rc 0
cmp -s "$T/out" "$T/plain.out" || fail "alloc_hook=bci: the program's output changed"
check_sites "$T/b.txt"
run_java "heap=sites,alloc_interval=0,alloc_hook=bci,depth=4,cutoff=0,file=$T/k.txt,verbose=y" AllocKinds "$T/dir"
expect_rc 0
expect_grep "^kept 227000 shared 400000$" "$T/out"
for c in boolean byte char short int float; do
    n=$(at_line "$c[]" "new $c[4]")
    [ "$n" = 20000 ] || fail "alloc_hook=bci: $c[] at 'new $c[4]': $n, not 20000"
done
for want in 'AllocKinds$Item[] 20000' 'AllocKinds$Refl 20000' 'AllocKinds$Shared 400000'; do
    c=${want% *} n=${want##* }
    [ "$(allocated "$c")" = "$n" ] || fail "alloc_hook=bci: $c allocated $(allocated "$c"), not exactly $n"
done
[ "$(at_line 'int[][]' 'new int[2][3]')" = 5000 ] || fail "alloc_hook=bci: int[][]: $(at_line 'int[][]' 'new int[2][3]'), not 5000"
note "alloc_hook=bci: Foo, Bar, 6 primitive array kinds x 20000, int[][] 5000, Item[] 20000, Refl 20000, Shared 400000"
# LeakGrow: the one leak suspect
run_java "heap=sites,lifetimes=y,alloc_interval=0,depth=3,file=$T/leak.txt" LeakGrow
expect_rc 0
expect_grep "^kept 20000$" "$T/out"
lt=$(sed -n 's/^LEAK SUSPECT: site [0-9]* (trace \([0-9]*\), LeakGrow\$Obj).*/\1/p' "$T/leak.txt")
[ -n "$lt" ] || { grep -A3 "^LEAK\|^CHURN" "$T/leak.txt" >&2; fail "LeakGrow\$Obj is not a leak suspect"; }
trace_of "$T/leak.txt" "$lt" | head -1 | grep -q "LeakGrow.makeRound(LeakGrow.java:" || fail "the leak suspect's trace is not makeRound"
[ "$(grep -c '^LEAK SUSPECT' "$T/leak.txt")" = 1 ] || { grep '^LEAK SUSPECT' "$T/leak.txt" >&2; fail "more than one leak suspect"; }
# threads that start and end (each thread's table is taken over by a later
# one), with thread=y and lifetimes; classes that are defined and unloaded
for hook in sampler bci; do
    run_java "heap=sites,alloc_interval=0,alloc_hook=$hook,thread=y,lifetimes=y,file=$T/mt-$hook.txt" ManyThreads 200
    expect_rc 0
    expect_grep "threads 200 checksum" "$T/out"
    expect_grep "^SITES END" "$T/mt-$hook.txt"
    run_java "heap=sites,alloc_interval=0,alloc_hook=$hook,lifetimes=y,file=$T/cu-$hook.txt" ClassUnload 100
    expect_rc 0
    expect_grep "^SITES END" "$T/cu-$hook.txt"
done
# jvmprof's own Java code is never counted
touch "$T/stop"
run_java "heap=sites,alloc_interval=0,depth=16,cutoff=0,file=$T/own.txt" -cp "$CLASSES:$ROOT/build/jvmprof.jar" \
    HeapGraph "$T/stop" dump "$T/own.hprof" /nonexistent/dir/own.hprof
expect_rc 0
expect_grep "^dump $T/own.hprof true$" "$T/out"
expect_grep "^SITES BEGIN" "$T/own.txt"
expect_no_grep "jvmprof\.Control" "$T/own.txt"

# a slow leak that only System.gc() collects, in the same site as 999 in 1000
# objects that die young: exact mode flags it as the sampled mode does (its
# floors are of the objects a collection has seen, not of the nursery), and
# the churn-only site in neither. Sampled, 1 kept in 50: one in ~40 of the
# 24-byte objects is sampled at alloc_interval=1k, so about 10 of each
# round's 400 kept objects are, and a round with none of them (which leaves
# the floors flat) comes about once in 20,000 rounds (e^-10). With 1 kept in
# 200, about 2.5 a round, such rounds came often enough that the site went
# unflagged in 1 run of 12, and under load in CI. Each round sleeps 100 ms after its
# System.gc(), for the frees to reach the model before the next round allocates
# (with 20 ms, the site went unflagged once in a CI run beside other tests).
for mode in alloc_interval=0:1000:800 alloc_interval=1k:50:16000; do
    IFS=: read -r mode every kept <<<"$mode"
    run_java "heap=sites,lifetimes=y,$mode,depth=3,file=$T/slow.txt" -Xms1g -Xmx1g LeakSlow "$every"
    expect_rc 0
    expect_grep "^kept $kept$" "$T/out"
    grep '^LEAK SUSPECT' "$T/slow.txt" >&2
    grep -q '^LEAK SUSPECT: .*LeakSlow\$Obj' "$T/slow.txt" ||
        sed -n '/^LIFETIMES BEGIN/,/^by class/p' "$T/slow.txt" | grep -E 'LeakSlow|rank' >&2 # what the floors were
    expect_grep '^LEAK SUSPECT: site [0-9]* (trace [0-9]*, LeakSlow\$Obj): live objects kept growing' "$T/slow.txt"
    expect_no_grep '^LEAK SUSPECT: .*LeakSlow\$Temp' "$T/slow.txt"
done
exit 0
