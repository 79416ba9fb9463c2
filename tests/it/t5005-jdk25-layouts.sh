# JDK 25's object layouts and collector (issue 36), on JDK 25 only (tests/run.sh's
# it25 family; skipped in one line on an older JDK):
# 1. -XX:+UseCompactObjectHeaders (8-byte headers): alloc_count=site gives
#    AllocSites' 100000 Foo the size the JVM gives them (JVMTI's GetObjectSize,
#    which alloc_interval=0 counts), 24 bytes, where without the flag they are
#    32: the size is read from the running JVM's class layout, not assumed.
# 2. Heap dumps of HeapGraph under compact headers and under generational ZGC
#    (-XX:+UseZGC, generational only from JDK 23): both dumpers' dumps, taken
#    on SIGQUIT, are read by VisualVM's heap library with every reference
#    resolved and HeapGraph's known counts and values, and `jvmprof heap`
#    counts the same instances of each class as in jcmd's dump of the same JVM.
. "$(dirname "$0")/lib.sh"
[ "$JDK_FEATURE" -ge 25 ] || { echo "skipped: t5005 needs JDK 25 (JDK $JDK_FEATURE here; tests/run.sh runs it as it25/t5005)"; exit 0; }
cd "$T"

# 1. instance sizes
foo() { # FILE: "objects bytes" of the AllocSites$Foo row
    awk '$1 ~ /^[0-9]+$/ && $9 == "AllocSites$Foo" {print $7, $6}' "$1"
}
sizes() { # JVM_FLAG NAME
    run_java "heap=sites,alloc_count=site,alloc_interval=4k,depth=3,file=$T/$2-site.txt" $1 AllocSites
    expect_rc 0
    run_java "heap=sites,alloc_interval=0,depth=3,file=$T/$2-exact.txt" $1 AllocSites
    expect_rc 0
    read -r n_site b_site <<<"$(foo "$T/$2-site.txt")"
    read -r n_exact b_exact <<<"$(foo "$T/$2-exact.txt")"
    [ "${n_site:-0}" = 100000 ] && [ "${n_exact:-0}" = 100000 ] ||
        fail "$2: AllocSites\$Foo counted $n_site times by alloc_count=site, $n_exact at alloc_interval=0, not 100000"
    [ "$b_site" = "$b_exact" ] || fail "$2: alloc_count=site gives Foo $b_site bytes, the JVM $b_exact"
    note "$2: 100000 Foo, $b_site bytes by alloc_count=site and by JVMTI"
    echo $((b_site / 100000))
}
plain=$(sizes "-XX:-UseCompactObjectHeaders" plain) || exit 1
compact=$(sizes "-XX:+UseCompactObjectHeaders" compact) || exit 1
[ "$plain" = 32 ] && [ "$compact" = 24 ] || fail "Foo is $plain bytes, $compact with compact headers: expected 32 and 24"

# 2. heap dumps under compact headers and generational ZGC
. "$ROOT/tests/it/heapgraph.sh"
for flags in "-XX:+UseCompactObjectHeaders" "-XX:+UseZGC" "-XX:+UseZGC -XX:+UseCompactObjectHeaders"; do
    read -r -a HEAPGRAPH_JVM <<<"$flags"
    for dumper in hotspot jvmti; do
        note "$flags, dumper=$dumper:"
        rm -f "$T/q.hprof" "$T/q.hprof.1"
        sigquit_like_jcmd "heap=dump,dumper=$dumper,doe=n,file=$T/q.hprof"
    done
done
echo "t5005 ok"
