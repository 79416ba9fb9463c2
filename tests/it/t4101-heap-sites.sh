# heap=sites (sampled): AllocSites allocates exactly 100000 Foo in makeFoos()
# and keeps them, 50000 Bar in makeBars() and drops them, then collects
# garbage. With alloc_interval=256 the estimates must be within 10%: Foo
# allocated ~100000 and live ~100000 at makeFoos' trace; Bar allocated ~50000
# and live 0 at makeBars'. The GC line counts the collections, the program's
# output is unchanged, and the cost line says how many allocations were sampled.
. "$(dirname "$0")/lib.sh"
run_java "" AllocSites
expect_rc 0
cp "$T/out" "$T/plain.out"
# (about 3,000 samples of Bar: 10% is 5 standard deviations; at 1k it was under 3,
# and CI saw Bar at +10.4% once in a while)
run_java "heap=sites,alloc_interval=256,depth=3,file=$T/s.txt" AllocSites
expect_rc 0
cmp -s "$T/out" "$T/plain.out" || fail "the program's output changed"
expect_grep "^SITES BEGIN (ordered by live bytes; estimates from allocations sampled every 256 bytes) " "$T/s.txt"
expect_grep "^SITES END" "$T/s.txt"
expect_grep "heap=sites: [0-9]* allocations sampled (every 256 bytes on average)" "$T/err"
gc=$(sed -n 's/^GC (total = \([0-9]*\) collections, .*/\1/p' "$T/s.txt")
[ -n "$gc" ] && [ "$gc" -ge 3 ] || fail "GC line missing or fewer than 3 collections ($gc)"
# row: rank self accum live-bytes live-objs alloc-bytes alloc-objs trace name
check_sites() {
    local f=$1
    row() { awk -v c="$1" '$9 == c' "$f"; }
    [ "$(row 'AllocSites$Foo' | wc -l)" = 1 ] || { grep SITES -A20 "$f" >&2; fail "$f: not one AllocSites\$Foo site"; }
    [ "$(row 'AllocSites$Bar' | wc -l)" = 1 ] || fail "$f: not one AllocSites\$Bar site"
    within() { awk -v v="$1" -v want="$2" 'BEGIN { exit !(v >= want * 0.9 && v <= want * 1.1) }'; }
    read -r fl fa <<<"$(row 'AllocSites$Foo' | awk '{print $5, $7}')"
    read -r bl ba <<<"$(row 'AllocSites$Bar' | awk '{print $5, $7}')"
    note "$(basename "$f"): Foo live $fl, allocated $fa (100000 each, +-10%); Bar live $bl, allocated $ba (50000 +-10%, 0 live)"
    within "$fa" 100000 || fail "$f: Foo allocated $fa, not 100000 +-10%"
    within "$fl" 100000 || fail "$f: Foo live $fl, not 100000 +-10%"
    within "$ba" 50000 || fail "$f: Bar allocated $ba, not 50000 +-10%"
    [ "$bl" = 0 ] || fail "$f: Bar live $bl, not 0"
    # the traces: Foo from makeFoos, Bar from makeBars
    ft=$(row 'AllocSites$Foo' | awk '{print $8}')
    bt=$(row 'AllocSites$Bar' | awk '{print $8}')
    trace_of "$f" "$ft" | head -1 | grep -q "AllocSites.makeFoos(AllocSites.java:" || fail "$f: Foo's trace is not makeFoos"
    trace_of "$f" "$bt" | head -1 | grep -q "AllocSites.makeBars(AllocSites.java:" || fail "$f: Bar's trace is not makeBars"
}
check_sites "$T/s.txt"
# the binary format's ALLOC SITES record, read back by jvmprof report
run_java "heap=sites,alloc_interval=256,depth=3,format=b,file=$T/s.hprof" AllocSites
expect_rc 0
"$JVMPROF" report "$T/s.hprof" -o "$T/s-report.txt" || fail "jvmprof report failed"
expect_grep "^SITES BEGIN (ordered by live bytes) " "$T/s-report.txt"
check_sites "$T/s-report.txt"
# every kind of allocation, with its class name; 8 threads at once
mkdir -p "$T/dir" && for i in 1 2 3 4 5 6 7 8 9 10; do : >"$T/dir/file$i"; done
run_java "heap=sites,alloc_interval=256,depth=4,cutoff=0,file=$T/k.txt" AllocKinds "$T/dir"
expect_rc 0
expect_grep "^kept 227000 shared 400000$" "$T/out"
names=$(awk '/^SITES BEGIN/ {on=1; next} /^SITES END/ {on=0} on && NF == 9 && $1 ~ /^[0-9]+$/ {print $9}' "$T/k.txt")
for c in 'boolean[]' 'byte[]' 'char[]' 'short[]' 'int[]' 'long[]' 'float[]' 'double[]' 'AllocKinds$Item[]' \
         'int[][]' 'AllocKinds$Refl' 'AllocKinds$Cl' 'AllocKinds$Shared' 'java.lang.String' 'java.lang.String[]'; do
    grep -qxF "$c" <<<"$names" || fail "no site of class $c"
done
# Refl comes from Constructor.newInstance (through method handles from JDK 18: the site is then
# DirectMethodHandle.allocateInstance's), Cl from clone(), the Strings from File.list()'s native code
site_trace() { awk -v c="$1" '$9 == c {print $8}' "$T/k.txt"; }
refl_ok=0; for t in $(site_trace 'AllocKinds$Refl'); do trace_of "$T/k.txt" "$t" | grep -q "newInstance\|DirectMethodHandle.allocateInstance\|AllocKinds.main" && refl_ok=1; done
[ $refl_ok = 1 ] || fail "no reflection site for AllocKinds\$Refl"
cl_ok=0; for t in $(site_trace 'AllocKinds$Cl'); do trace_of "$T/k.txt" "$t" | grep -q "clone\|AllocKinds\$Cl.copy" && cl_ok=1; done
[ $cl_ok = 1 ] || fail "no clone site for AllocKinds\$Cl"
jni_ok=0; for t in $(site_trace 'java.lang.String[]') $(site_trace 'java.lang.String'); do trace_of "$T/k.txt" "$t" | head -1 | grep -q "UnixFileSystem.list" && jni_ok=1; done
[ $jni_ok = 1 ] || fail "no String site from UnixFileSystem.list (JNI)"
shared=$(awk '$9 == "AllocKinds$Shared" {s += $7} END {print s + 0}' "$T/k.txt")
note "8 threads: AllocKinds\$Shared allocated $shared (exactly 400000)"
awk -v v="$shared" 'BEGIN { exit !(v >= 360000 && v <= 440000) }' || fail "8 threads: Shared allocated $shared, not 400000 +-10%"
# lifetimes=y: Bar died (before surviving a collection), Foo did not; LeakGrow's growing list is a leak suspect
run_java "heap=sites,lifetimes=y,alloc_interval=1k,depth=3,file=$T/l.txt" AllocSites
expect_rc 0
life() { sed -n '/^LIFETIMES BEGIN/,/^LIFETIMES END/p' "$1" | awk -v c="$2" '$1 ~ /^[0-9]+$/ && $NF == c'; }
read -r fa fd fl <<<"$(life "$T/l.txt" 'AllocSites$Foo' | awk '{print $3, $4, $5}')"
read -r ba bd bl bg <<<"$(life "$T/l.txt" 'AllocSites$Bar' | awk '{print $3, $4, $5, $6}')"
note "lifetimes: Foo allocated $fa died $fd live $fl; Bar allocated $ba died $bd live $bl, by collections survived $bg"
[ "$fd" = 0 ] && [ "$fl" = "$fa" ] || fail "Foo objects died ($fd of $fa)"
[ "$bl" = 0 ] && [ "$bd" = "$ba" ] || fail "not all Bar objects died ($bd of $ba, $bl live)"
[ "${bg%%/*}" = "$bd" ] || fail "Bar objects did not all die before surviving a collection ($bg)"
expect_grep "^CHURN: site [0-9]* (trace [0-9]*, AllocSites\$Bar)" "$T/l.txt"
expect_no_grep "^LEAK SUSPECT" "$T/l.txt"
run_java "heap=sites,lifetimes=y,alloc_interval=1k,depth=3,file=$T/leak.txt" LeakGrow
expect_rc 0
expect_grep "^kept 20000$" "$T/out"
expect_grep "^LEAK SUSPECT: site [0-9]* (trace [0-9]*, LeakGrow\$Obj): live objects kept growing over" "$T/leak.txt"
lt=$(sed -n 's/^LEAK SUSPECT: site [0-9]* (trace \([0-9]*\), LeakGrow\$Obj).*/\1/p' "$T/leak.txt")
trace_of "$T/leak.txt" "$lt" | head -1 | grep -q "LeakGrow.makeRound(LeakGrow.java:" || fail "the leak suspect's trace is not makeRound"
[ "$(grep -c '^LEAK SUSPECT' "$T/leak.txt")" = 1 ] || fail "more than one leak suspect"
note "$(grep '^LEAK SUSPECT' "$T/leak.txt")"
# the agent's memory for the objects it follows: at most 64 bytes each (about 40,000 live here)
run_java "heap=sites,lifetimes=y,alloc_interval=64,file=$T/m.txt" AllocSites
expect_rc 0
line=$(grep "sampled objects tracked live in" "$T/err")
live=$(sed 's/.*; \([0-9]*\) sampled objects tracked live.*/\1/' <<<"$line")
each=$(sed 's/.*KiB (\([0-9]*\) bytes each).*/\1/' <<<"$line")
note "memory: $live objects tracked live, $each bytes each"
[ "$live" -ge 20000 ] && [ "$each" -le 64 ] || fail "tracking memory: $line"
# what jvmprof's own Java code allocates (Control.dumpHeap, its error message) is never counted
touch "$T/stop"
run_java "heap=sites,alloc_interval=16,depth=16,cutoff=0,file=$T/own.txt" -cp "$CLASSES:$ROOT/build/jvmprof.jar" \
    HeapGraph "$T/stop" dump "$T/own.hprof" /nonexistent/dir/own.hprof
expect_rc 0
expect_grep "^dump $T/own.hprof true$" "$T/out"
expect_grep "^dump /nonexistent/dir/own.hprof failed: " "$T/out"
expect_grep "^SITES BEGIN" "$T/own.txt"
expect_no_grep "jvmprof\.Control" "$T/own.txt"
# bad values
run_java "lifetimes=y" AllocSites
expect_rc 1
expect_grep "lifetimes=y follows the objects heap=sites samples" "$T/err"
run_java "heap=sites,alloc_interval=2g" AllocSites
expect_rc 1
expect_grep "alloc_interval=2g: bad value" "$T/err"
run_java "cpu=samples,alloc_interval=1k" AllocSites
expect_rc 1
expect_grep "alloc_interval= applies to heap=sites" "$T/err"
exit 0
