# heap=sites,alloc_count=site: every allocation counted exactly per site by
# the counts injected after each allocating instruction, callers sampled.
# AllocSites: exactly 100000 Foo (32 bytes each) at makeFoos' line and 50000
# Bar (16 bytes) at makeBars', in ASCII and through the binary file, with
# sampled callers listed under the rows (their top frame is the row's).
# AllocKinds: each kind of allocation exactly as often as the program made it
# (arrays of every type, int[2][3] and its rows, reflection, clone(), 8
# threads at one site), and the objects JNI code makes as many as the
# per-stack exact mode (alloc_interval=0, JVMTI's own count) finds. AllocHot:
# a site in a method the JIT compiles and inlines, exact. The flame graph's
# leaves carry the exact bytes; lifetimes=y follows the sampled objects; bad
# option pairs are refused in one line.
. "$(dirname "$0")/lib.sh"
row() { awk -v c="$2" '$1 ~ /^[0-9]+$/ && $9 == c' "$1"; }
run_java "" AllocSites
expect_rc 0
cp "$T/out" "$T/plain.out"
run_java "heap=sites,alloc_count=site,alloc_interval=4k,depth=3,file=$T/s.txt,verbose=y" AllocSites
expect_rc 0
cmp -s "$T/out" "$T/plain.out" || fail "the program's output changed"
expect_grep "^SITES BEGIN (ordered by live bytes; alloc'ed: exact counts per site; live and callers: estimates from allocations sampled every 4096 bytes) " "$T/s.txt"
expect_grep "alloc_count=site: [0-9]* sites in [0-9]* classes rewritten" "$T/err"
check_sites() {
    local f=$1
    [ "$(row "$f" 'AllocSites$Foo' | wc -l)" = 1 ] || { grep SITES -A20 "$f" >&2; fail "$f: not one AllocSites\$Foo site"; }
    [ "$(row "$f" 'AllocSites$Bar' | wc -l)" = 1 ] || fail "$f: not one AllocSites\$Bar site"
    local fa ba fb bb
    read -r fb fa <<<"$(row "$f" 'AllocSites$Foo' | awk '{print $6, $7}')"
    read -r bb ba <<<"$(row "$f" 'AllocSites$Bar' | awk '{print $6, $7}')"
    note "$(basename "$f"): Foo $fa objects $fb bytes; Bar $ba objects $bb bytes"
    [ "$fa $fb" = "100000 3200000" ] || fail "$f: Foo allocated $fa ($fb bytes), not exactly 100000 x 32"
    [ "$ba $bb" = "50000 800000" ] || fail "$f: Bar allocated $ba ($bb bytes), not exactly 50000 x 16"
    local line
    line=$(grep -n "new Foo(i)" "$ROOT/tests/programs/AllocSites.java" | cut -d: -f1)
    trace_of "$f" "$(row "$f" 'AllocSites$Foo' | awk '{print $8}')" >"$T/ft"
    [ "$(wc -l <"$T/ft")" = 1 ] && grep -q "AllocSites.makeFoos(AllocSites.java:$line)" "$T/ft" ||
        fail "$f: Foo's site is not the one frame makeFoos:$line: $(cat "$T/ft")"
}
check_sites "$T/s.txt"
# the sampled callers under the Foo row: their traces begin at the row's frame and go on to main
callers=$(sed -n '/^SITES BEGIN/,/^SITES END/p' "$T/s.txt" | awk '$1 ~ /^[0-9]+$/ {c = $9} $1 == "sampled" && c == "AllocSites$Foo" {print $5}')
[ -n "$callers" ] || fail "no sampled caller under the Foo row"
for t in $callers; do
    trace_of "$T/s.txt" "$t" | head -2 | tr -d '\t' | tr '\n' ' ' | grep -q "^AllocSites.makeFoos(AllocSites.java:[0-9]*) AllocSites.main(" ||
        fail "caller trace $t of Foo is not makeFoos <- main: $(trace_of "$T/s.txt" "$t")"
done
note "Foo's sampled callers: traces $(echo $callers)"
# the binary file carries the counted sites and their callers; jvmprof report reads them back
run_java "heap=sites,alloc_count=site,alloc_interval=4k,depth=3,format=b,file=$T/s.hprof" AllocSites
expect_rc 0
"$JVMPROF" report "$T/s.hprof" -o "$T/s-report.txt" || fail "jvmprof report failed"
expect_grep "^SITES BEGIN (ordered by live bytes; alloc'ed: exact counts per site; live and callers: estimates from allocations sampled) " "$T/s-report.txt"
check_sites "$T/s-report.txt"
grep -q "^ *sampled caller " "$T/s-report.txt" || fail "the report read back lists no sampled callers"

# every kind of allocation, exactly; 8 threads at one site
mkdir -p "$T/dir" && for i in 1 2 3 4 5 6 7 8 9 10; do : >"$T/dir/file$i"; done
run_java "heap=sites,alloc_count=site,depth=1,cutoff=0,file=$T/k.txt,verbose=y" AllocKinds "$T/dir"
expect_rc 0
expect_grep "^kept 227000 shared 400000$" "$T/out"
allocated() { site_objs "$1" "$2"; }
SRC="$ROOT/tests/programs/AllocKinds.java"
at_line() { site_objs "$T/k.txt" "$1" "^\s*AllocKinds\.main\(AllocKinds\.java:$(src_line "$SRC" "$2")\)"; }
allockinds_arrays "$T/k.txt"
[ "$(at_line 'AllocKinds$Item[]' 'new Item[2]')" = 20000 ] || fail "Item[]: $(at_line 'AllocKinds$Item[]' 'new Item[2]'), not 20000"
# the bytes of arrays from their lengths: int[4] is 16 + 16, long[2] 16 + 16, boolean[4] 16 + 4 -> 24
[ "$(awk '$1 ~ /^[0-9]+$/ && $9 == "int[]" && $7 == 20000 {print $6}' "$T/k.txt" | head -1)" = 640000 ] || fail "int[4] x 20000 is not 640000 bytes"
[ "$(awk '$1 ~ /^[0-9]+$/ && $9 == "boolean[]" && $7 == 20000 {print $6}' "$T/k.txt" | head -1)" = 480000 ] || fail "boolean[4] x 20000 is not 480000 bytes"
for want in 'AllocKinds$Refl 20000' 'AllocKinds$Cl 20001' 'AllocKinds$Shared 400000'; do
    c=${want% *} n=${want##* }
    [ "$(allocated "$T/k.txt" "$c")" = "$n" ] || fail "$c allocated $(allocated "$T/k.txt" "$c"), not exactly $n"
done
[ "$(row "$T/k.txt" 'AllocKinds$Shared' | wc -l)" = 1 ] || fail "Shared: not one site for the 8 threads' allocations"
site_trace() { awk -v c="$1" '$1 ~ /^[0-9]+$/ && $9 == c {print $8}' "$T/k.txt"; }
cl_ok=0; for t in $(site_trace 'AllocKinds$Cl'); do trace_of "$T/k.txt" "$t" | grep -q "AllocKinds\$Cl.copy" && cl_ok=1; done
[ $cl_ok = 1 ] || fail "no clone() site in Cl.copy for AllocKinds\$Cl"
note "exact per site: 8 primitive array kinds x 20000, int[][] 5000 with 10000 rows, Item[] 20000, Refl 20000, Cl 20001, Shared (8 threads, one site) 400000"
# JNI's objects (File.list's String[] and its 10 Strings, 2000 times), counted per class and caller
# (UnixFileSystem.list, a native method), against JVMTI's sampler at interval 0 (alloc_interval=0:
# every allocation with its stack) at the same frame: the String[] exactly (the native code grows
# its array, so more than 2000), the Strings at least the program's 20000 and within 0.1%
run_java "heap=sites,alloc_interval=0,depth=1,cutoff=0,file=$T/e.txt" AllocKinds "$T/dir"
expect_rc 0
listed() { site_objs "$1" "$2" 'UnixFileSystem\.list'; }
want=$(listed "$T/e.txt" 'java.lang.String[]') got=$(listed "$T/k.txt" 'java.lang.String[]')
note "JNI: String[] at UnixFileSystem.list: $got counted, $want seen by the sampler at interval 0"
[ "$want" -ge 2000 ] && [ "$got" = "$want" ] || fail "JNI: String[] counted $got, the sampler saw $want"
want=$(listed "$T/e.txt" 'java.lang.String') got=$(listed "$T/k.txt" 'java.lang.String')
note "JNI: String at UnixFileSystem.list: $got counted, $want seen by the sampler at interval 0"
[ "$got" -ge 20000 ] && [ $(( (got - want) * (got - want) * 1000000 )) -le $(( want * want )) ] ||
    fail "JNI: String counted $got (at least 20000), the sampler saw $want"

# a site in a method the JIT compiles and inlines into a hot loop
run_java "heap=sites,alloc_count=site,depth=1,file=$T/h.txt" -XX:+UnlockDiagnosticVMOptions -XX:+PrintInlining \
    -XX:+DisplayVMOutputToStderr AllocHot
expect_rc 0
expect_grep "^made 3000000 kept 3000 " "$T/out"
grep -q "AllocHot::make .*inline" "$T/err" || fail "AllocHot.make was never inlined (PrintInlining)"
[ "$(allocated "$T/h.txt" 'AllocHot$Point')" = 3000000 ] || fail "AllocHot\$Point: $(allocated "$T/h.txt" 'AllocHot$Point'), not exactly 3000000"
note "AllocHot: make() inlined by the JIT, its Point counted 3000000 times"

# the flame graph's leaves (collapsed stacks): the exact bytes per class
run_java "heap=sites,alloc_count=site,alloc_interval=4k,file=$T/f.txt,collapsed=$T/f.collapsed" AllocSites
expect_rc 0
foo=$(awk '{n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); if (f[k] == "AllocSites$Foo") s += n} END {print s + 0}' "$T/f.collapsed")
[ "$foo" = 3200000 ] || fail "collapsed stacks: AllocSites\$Foo leaves hold $foo bytes, not 3200000"
grep -q "AllocSites.main;AllocSites.makeFoos;AllocSites\$Foo " "$T/f.collapsed" || fail "collapsed: no sampled caller stack main;makeFoos for Foo"
# ... and drawn again from the binary file by jvmprof convert (a report without samples: its sites, in bytes)
"$JVMPROF" convert "$T/s.hprof" --collapsed "$T/b.collapsed" 2>"$T/conv.err" || fail "convert --collapsed: $(cat "$T/conv.err")"
foo=$(awk '{n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); if (f[k] == "AllocSites$Foo") s += n} END {print s + 0}' "$T/b.collapsed")
[ "$foo" = 3200000 ] || fail "convert --collapsed of the binary report: Foo leaves hold $foo bytes, not 3200000"
expect_grep "does not carry the sites' object counts" "$T/conv.err"

# lifetimes=y: the sampled objects, followed to their deaths
run_java "heap=sites,alloc_count=site,alloc_interval=1k,lifetimes=y,depth=3,file=$T/l.txt" AllocSites
expect_rc 0
expect_grep "^LIFETIMES BEGIN (estimates from the sampled objects; " "$T/l.txt"
life() { sed -n '/^LIFETIMES BEGIN/,/^LIFETIMES END/p' "$1" | awk -v c="$2" '$1 ~ /^[0-9]+$/ && $NF == c'; }
read -r bd bl <<<"$(life "$T/l.txt" 'AllocSites$Bar' | awk '{print $4, $5}')"
[ -n "$bd" ] && [ "$bl" = 0 ] && [ "$bd" -gt 0 ] || fail "lifetimes: sampled Bar died $bd, live $bl"

# javac with every class it loads (the JDK's, retransformed at VM init, and its own) given the counts,
# and verified by the JVM (-XX:+BytecodeVerificationLocal: the boot loader's classes too): it
# compiles RewriteSubjects.java into the same class files as without the agent
src="$ROOT/tests/programs/RewriteSubjects.java"
"$JAVA_HOME/bin/javac" -d "$T/c-orig" "$src" || fail "javac failed"
RC=0
timeout -k 10 300 "$JAVA" -XX:+UnlockDiagnosticVMOptions -XX:+BytecodeVerificationLocal -XX:+BytecodeVerificationRemote \
    "-agentpath:$AGENT=heap=sites,alloc_count=site,depth=1,file=$T/javac.txt,verbose=y" \
    -m jdk.compiler/com.sun.tools.javac.Main -d "$T/c-new" "$src" >"$T/javac.out" 2>&1 || RC=$?
[ "$RC" = 0 ] || { head -30 "$T/javac.out" >&2; fail "javac with alloc_count=site: exit code $RC"; }
diff -r "$T/c-orig" "$T/c-new" >&2 || fail "javac with alloc_count=site wrote different class files"
line=$(grep "alloc_count=site: [0-9]* sites in" "$T/javac.out") || fail "no verbose line from javac's run"
note "javac, verified: $line"
sed 's/.* sites in \([0-9]*\) classes rewritten (\([0-9]*\) failed, \([0-9]*\) methods.* \([0-9]*\) classes loaded before VM init retransformed.*/\1 \2 \3 \4/' <<<"$line" >"$T/n"
read -r nrw nfail nleft nret <"$T/n"
[ "$nrw" -ge 1000 ] && [ "$nfail" = 0 ] && [ "$nret" -ge 400 ] || fail "javac: $nrw classes rewritten, $nfail failed, $nret retransformed"

# classes that are defined, instantiated (by reflection: a site whose class is known when it runs)
# and dropped still unload: counting holds them weakly; threads that start and end
RC=0
timeout -k 10 120 "$JAVA" "-agentpath:$AGENT=heap=sites,alloc_count=site,lifetimes=y,file=$T/cu.txt" \
    -Xlog:class+unload=info:file="$T/unload.log" -cp "$CLASSES" ClassUnload 100 >"$T/out" 2>"$T/err" || RC=$?
expect_rc 0
expect_grep "rounds 100 ok true" "$T/out"
n=$(grep -c 'ClassUnload\$Victim' "$T/unload.log" || true)
v=$(site_objs "$T/cu.txt" 'ClassUnload$Victim')
note "ClassUnload: $v Victim objects counted, $n Victim classes unloaded"
[ "$v" = 100 ] || fail "ClassUnload: $v Victim objects counted, not 100"
[ "$n" -ge 50 ] || fail "ClassUnload: only $n of 100 Victim classes unloaded while counted"
run_java "heap=sites,alloc_count=site,thread=y,lifetimes=y,file=$T/mt.txt" ManyThreads 200
expect_rc 0
expect_grep "threads 200 checksum" "$T/out"
expect_grep "^SITES END" "$T/mt.txt"

# refused, one line each
run_java "alloc_count=site" Hello
[ "$RC" != 0 ] || fail "alloc_count=site without heap=sites accepted"
expect_grep "alloc_count=site counts allocation sites; add heap=sites" "$T/err"
run_java "heap=sites,alloc_count=site,alloc_interval=0" Hello
[ "$RC" != 0 ] || fail "alloc_count=site with alloc_interval=0 accepted"
expect_grep "choose one" "$T/err"
