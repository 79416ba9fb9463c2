# cstack=mixed (the default only with an event= other than cpu, whose perf
# events give callchains anyway; with event=cpu kernel frames cost the
# perf_event clock, and the default cstack=native has none, and no line about
# them, on POSIX CPU timers): where the kernel gives the callchain of a
# sample (root, kernel.perf_event_paranoid <= 1 or CAP_PERFMON), its kernel
# frames are on top. FileWrites writes 64-byte blocks to a file unbuffered,
# so most of its CPU time is in write(2): most samples hold vfs_write (or the
# system call's entry) as kernel frames, suffixed _[k] in collapsed stacks,
# above libc's write and the Java frames. Without the permission (here: root
# without any capability, as in a container, with perf_event_paranoid 2) one
# line says why there are no kernel frames, and the Java frames are intact.
. "$(dirname "$0")/lib.sh"
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 3)
if [ "$(id -u)" = 0 ] || [ "$paranoid" -le 1 ]; then
    run_java "cpu=samples,cstack=mixed,collapsed=$T/c.txt,file=$T/r.txt" FileWrites "$T/blocks" 3
    expect_rc 0
    total=$(awk '{t += $NF} END {print t + 0}' "$T/c.txt")
    syscall=$(grep -E '(vfs_write|ksys_write|entry_SYSCALL_64[a-z_]*)_\[k\]' "$T/c.txt" | awk '{t += $NF} END {print t + 0}')
    pct=$((total ? syscall * 100 / total : 0))
    note "$pct% of $total samples have the write system call's kernel frames"
    [ "$total" -ge 100 ] || fail "only $total samples"
    # FileWrites spends most of its CPU in write(2); bound well below (the JIT, GC and the loop take some)
    [ "$pct" -ge 40 ] || { sort -t' ' -k2 -nr "$T/c.txt" | head -5 >&2; fail "only $pct% of samples have kernel frames of write"; }
    # kernel frames on top of libc's write, above the Java frames
    grep -qE 'FileWrites\.[a-zA-Z]+(_\[.\])?;.*;(__)?(libc_)?write;.*_\[k\]' "$T/c.txt" ||
        { grep '_\[k\]' "$T/c.txt" | head -3 >&2; fail "no stack with libc's write under kernel frames under FileWrites"; }
    expect_grep 'vfs_write(vmlinux' "$T/r.txt"
    # the kernel's symbols kept for the boot in the user's cache (here a directory of the test's): the first
    # JVM reads /proc/kallsyms and writes the cache (0600 in a 0700 directory), the next reads the cache and
    # names the same kernel frames
    mkdir -p "$T/xdg"
    XDG_CACHE_HOME="$T/xdg" JVMPROF_DEBUG=1 run_java "cpu=samples,cstack=mixed,collapsed=$T/c1.txt" FileWrites "$T/blocks" 2
    expect_rc 0
    expect_grep 'kernel symbols: [0-9]*, read from /proc/kallsyms' "$T/err"
    cache=$(ls "$T/xdg/jvmprof/")
    [ "$cache" = "kallsyms-$(cat /proc/sys/kernel/random/boot_id)" ] || fail "cache directory holds '$cache'"
    [ "$(stat -c %a "$T/xdg/jvmprof")" = 700 ] && [ "$(stat -c %a "$T/xdg/jvmprof/$cache")" = 600 ] ||
        fail "cache modes $(stat -c %a "$T/xdg/jvmprof") $(stat -c %a "$T/xdg/jvmprof/$cache")"
    XDG_CACHE_HOME="$T/xdg" JVMPROF_DEBUG=1 run_java "cpu=samples,cstack=mixed,collapsed=$T/c2.txt" FileWrites "$T/blocks" 2
    expect_rc 0
    expect_grep 'kernel symbols: [0-9]*, from the per-boot cache' "$T/err"
    grep -qE '(vfs_write|ksys_write)_\[k\]' "$T/c2.txt" || fail "no write(2) kernel frames named from the cache"
    n1=$(grep -c 'kernel symbols' "$T/err")
    [ "$n1" = 1 ] || fail "kernel symbols read $n1 times"
else
    note "not root and perf_event_paranoid=$paranoid: kernel frames not checked here"
fi
# the default on event=cpu: native frames on top (libc's write above the Java frames), no kernel frames, no
# line about them, POSIX CPU timers
run_java "cpu=samples,verbose=y,collapsed=$T/d.txt" FileWrites "$T/blocks3" 2
expect_rc 0
expect_no_grep '_\[k\]' "$T/d.txt"
expect_no_grep 'no kernel frames' "$T/err"
expect_grep 'POSIX CPU timers), chosen' "$T/err"
grep -qE 'FileWrites\.[a-zA-Z]+(_\[.\])?;.*;(__)?(libc_)?write [0-9]+$' "$T/d.txt" ||
    { sort -t' ' -k2 -nr "$T/d.txt" | head -3 >&2; fail "default cstack: no stack ending in libc's write under FileWrites"; }
# without permission
command -v setpriv >/dev/null || fail "setpriv (util-linux) is missing"
if [ "$paranoid" -ge 2 ]; then
    RC=0
    timeout -k 10 120 setpriv --inh-caps=-all --bounding-set=-all "$JAVA" "-agentpath:$AGENT=cpu=samples,cstack=mixed,collapsed=$T/n.txt" \
        -cp "$CLASSES" FileWrites "$T/blocks2" 2 >"$T/out" 2>"$T/err" || RC=$?
    expect_rc 0
    [ "$(grep -c 'no kernel frames' "$T/err")" = 1 ] || { cat "$T/err" >&2; fail "not one line saying why there are no kernel frames"; }
    expect_no_grep '_\[k\]' "$T/n.txt"
    expect_grep 'FileWrites\.' "$T/n.txt"
    note "$(grep 'no kernel frames' "$T/err")"
else
    note "perf_event_paranoid=$paranoid lets anyone have kernel frames: the refusal is not checked here"
fi
echo "t2115 ok"
