# The providers' directories, TMPDIR/jvmprof-PID: a JVM's first provider
# removes a directory a killed JVM left, and nothing else: not a user's own
# jvmprof-N (with a file of theirs, or empty), not one with a file jvmprof
# does not write, not one whose owner file names another boot or a process
# that runs, not a link; not the live directory of a JVM in another PID
# namespace whose pid is free here (whose probes bpftrace still reaches);
# but one whose owner's pid now belongs to a process started at another
# time. A noexec TMPDIR, or every directory noexec, leaves no jvmprof-PID.
. "$(dirname "$0")/lib.sh"
"$ROOT/tools/deps.sh" bpftrace || fail "bpftrace cannot be installed"
[ "$(id -u)" -eq 0 ] || fail "the probe directory tests use PID and mount namespaces: they run as root"

B="$T/tmp"               # the JVMs' TMPDIR
mkdir "$B"
PIDS=""                  # processes to end on exit
trap 'for p in $PIDS; do kill -9 "$p" 2>/dev/null; done; rm -rf "$T"' EXIT

# dead_pid: a pid that no process has (pids are handed out in order: not again soon)
dead_pid() { sh -c 'exit 0' & local p=$!; wait "$p"; echo "$p"; }
# wait_line FILE PATTERN: until a line of FILE matches (60 s at most)
wait_line() {
    for _ in $(seq 600); do
        grep -q "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    fail "no line '$2' in $1: $(cat "$1")"
}
start_of() { awk '{ print $22 }' "/proc/$1/stat"; }   # a process's start time (its name has no space)

# a user's own directories named like jvmprof's
U1=$(dead_pid)
U2=$(dead_pid)
mkdir "$B/jvmprof-$U1" "$B/jvmprof-$U2"
echo "my notes" >"$B/jvmprof-$U1/notes.txt"

# (c) a JVM killed with -9 leaves its directory
mkfifo "$T/kin"
TMPDIR=$B "$JAVA" "-agentpath:$AGENT=trace=user,tracefile=/dev/null" -cp "$CLASSES" ProbeFire names \
    <"$T/kin" >"$T/k.out" 2>"$T/k.err" &
K=$!
exec 8>"$T/kin"
PIDS="$PIDS $K"
wait_line "$T/k.out" '^ready$'
expect_grep "^provider Fire (USDT probes in $B/jvmprof-$K/[0-9]*/Fire.so)$" "$T/k.out"
[ -f "$B/jvmprof-$K/jvmprof-owner" ] || fail "no owner file in $B/jvmprof-$K: $(ls -la "$B/jvmprof-$K")"
kill -9 "$K"
wait "$K" 2>/dev/null
exec 8>&-
[ -d "$B/jvmprof-$K" ] || fail "the killed JVM's directory is not there to clean"
BOOT=$(sed -n 's/^boot //p' "$B/jvmprof-$K/jvmprof-owner")

# copies of it that are not to be removed, or are: fake_dir NAME PID START BOOT
fake_dir() {
    cp -a "$B/jvmprof-$K" "$B/$1"
    sed -i -e "s/^pid .*/pid $2/" -e "s/^start .*/start $3/" -e "s/^boot .*/boot $4/" "$B/$1/jvmprof-owner"
}
START=$(sed -n 's/^start //p' "$B/jvmprof-$K/jvmprof-owner")
X1=$(dead_pid); fake_dir "jvmprof-$X1" "$X1" "$START" "$BOOT"; echo x >"$B/jvmprof-$X1/notes.txt"
X2=$(dead_pid); fake_dir "jvmprof-$X2" "$X2" "$START" "$BOOT"; echo x >"$B/jvmprof-$X2/1/notes.txt"
X3=$(dead_pid); fake_dir "jvmprof-$X3" "$X3" "$START" "00000000-0000-0000-0000-000000000000"
X4=$(dead_pid); fake_dir "../elsewhere" "$X4" "$START" "$BOOT"; ln -s ../elsewhere "$B/jvmprof-$X4"
sleep 600 & S1=$!
sleep 600 & S2=$!
PIDS="$PIDS $S1 $S2"
fake_dir "jvmprof-$S1" "$S1" "$(start_of "$S1")" "$BOOT"                # runs
fake_dir "jvmprof-$S2" "$S2" "$(($(start_of "$S2") + 1))" "$BOOT"       # its pid is another's now

# (b) a JVM in another PID namespace, sharing the directory, whose pid there is free here
N=$(dead_pid)
mkfifo "$T/in"
unshare --pid --fork --mount-proc env TMPDIR="$B" sh -c 'echo $(($1 - 1)) >/proc/sys/kernel/ns_last_pid &&
    { "$2" "-agentpath:$3=trace=user,tracefile=/dev/null" -cp "$4" ProbeFire names <&3 & wait $!; }' \
    ns "$N" "$JAVA" "$AGENT" "$CLASSES" 3<"$T/in" >"$T/ns.out" 2>"$T/ns.err" &
UPID=$!
PIDS="$PIDS $UPID"
exec 7>"$T/in"
wait_line "$T/ns.out" '^ready$'
NSDIR="$B/jvmprof-$N"
expect_grep "^provider jvmprof_named (USDT probes in $NSDIR/1/mymodule.so)$" "$T/ns.out"
for c in $(pgrep -P "$(pgrep -P "$UPID")"); do
    grep -q "^NSpid:.*[[:space:]]$N\$" "/proc/$c/status" && NSJ=$c
done
[ -n "${NSJ:-}" ] || fail "the namespace's JVM (pid $N there) is not found here"
(cd "$NSDIR" && find . | sort) >"$T/ns-before.txt"

# a JVM here makes providers: it cleans $B
TMPDIR=$B run_java "trace=user,tracefile=/dev/null" ProbeFire names </dev/null
expect_rc 0
expect_grep "^provider Fire (USDT probes in $B/jvmprof-[0-9]*/[0-9]*/Fire.so)$" "$T/out"
[ ! -e "$B/jvmprof-$K" ] || fail "(c) the killed JVM's directory was not removed: $(ls -la "$B/jvmprof-$K")"
[ ! -e "$B/jvmprof-$S2" ] || fail "a directory whose pid is now another process's was not removed"
[ -f "$B/jvmprof-$U1/notes.txt" ] || fail "(a) a user's own jvmprof-$U1 (with a file) was removed"
[ -d "$B/jvmprof-$U2" ] || fail "(a) a user's own empty jvmprof-$U2 was removed"
[ -f "$B/jvmprof-$X1/notes.txt" ] || fail "a directory with a file jvmprof does not write was removed"
[ -f "$B/jvmprof-$X2/1/notes.txt" ] || fail "a directory with a file jvmprof does not write in 1/ was removed"
[ -f "$B/jvmprof-$X3/jvmprof-owner" ] || fail "a directory of another boot was removed"
[ -L "$B/jvmprof-$X4" ] && [ -f "$T/elsewhere/jvmprof-owner" ] || fail "a link, or what it points to, was removed"
[ -f "$B/jvmprof-$S1/jvmprof-owner" ] || fail "a directory whose owner runs was removed"
(cd "$NSDIR" 2>/dev/null && find . | sort) >"$T/ns-after.txt"
diff -u "$T/ns-before.txt" "$T/ns-after.txt" >&2 || fail "(b) the live directory of a JVM in another PID namespace changed"
[ "$(ls "$B" | grep -c '^jvmprof-')" = 8 ] || fail "not the 8 directories expected left: $(ls "$B")"

# (b) the namespace's JVM's probes still work
timeout 30 bpftrace -p "$NSJ" -e "usdt:$NSDIR/1/mymodule.so:jvmprof_named:renamed { printf(\"seen %d\n\", arg0); exit(); }" \
    >"$T/bpf.out" 2>"$T/bpf.err" &
BPID=$!
for _ in $(seq 100); do
    grep -q '^seen' "$T/bpf.out" && break
    echo x >&7
    sleep 0.2
done
wait "$BPID" || true
expect_grep "^seen 7$" "$T/bpf.out"
exec 7>&-
wait "$UPID" || fail "the namespace's JVM ended with $?: $(cat "$T/ns.err")"
[ ! -e "$NSDIR" ] || fail "the namespace's JVM left $NSDIR"
note "kept 8 directories not to be removed, removed 2; a JVM in another PID namespace kept its probes"

# (d) a noexec TMPDIR: the shared objects go to /tmp, and nothing is left in it (a mount namespace of its own)
mkdir "$T/nx"
unshare --mount sh -c 'mount -t tmpfs -o noexec,mode=755 tmpfs "$1" || exit 90
    TMPDIR="$1" "$2" -XX:-UsePerfData "-agentpath:$3=trace=user,tracefile=/dev/null" -cp "$4" ProbeFire names </dev/null
    rc=$?; ls -A "$1" >"$5"; exit $rc' nx "$T/nx" "$JAVA" "$AGENT" "$CLASSES" "$T/nx.ls" >"$T/out" 2>"$T/err" ||
    fail "noexec TMPDIR: exit code $?: $(cat "$T/err")"
expect_grep "^provider Fire (USDT probes in /tmp/jvmprof-[0-9]*/[0-9]*/Fire.so)$" "$T/out"
[ ! -s "$T/nx.ls" ] || fail "(d) left in the noexec TMPDIR: $(cat "$T/nx.ls")"

# (d) every directory noexec: no USDT probes, and nothing left anywhere (the mounts hide /tmp, /var/tmp and
# /dev/shm: not from a checkout inside one of them, whose agent and classes they would hide too)
case "$ROOT/" in /tmp/*|/var/tmp/*|/dev/shm/*)
    note "(d) all noexec: not run from a checkout in $ROOT (the mounts would hide the agent)"; exit 0 ;; esac
unshare --mount sh -c 'mount -t tmpfs -o noexec,mode=1777 tmpfs "$1" || exit 90
    for d in /var/tmp /dev/shm /tmp; do mount --bind "$1" "$d" || exit 91; done
    unset TMPDIR
    "$2" -XX:-UsePerfData "-agentpath:$3=trace=user,tracefile=/dev/null" -cp "$4" ProbeFire names </dev/null
    rc=$?; ls -A /tmp; exit $rc' nx "$T/nx" "$JAVA" "$AGENT" "$CLASSES" >"$T/out" 2>"$T/err" ||
    fail "all noexec: exit code $?: $(cat "$T/err")"
expect_grep "^jvmprof: provider Fire: no USDT probes of its own (.*/tmp/jvmprof-[0-9]*/[0-9]*/Fire.so: .*)" "$T/err"
expect_grep "^ready$" "$T/out"
expect_no_grep "^jvmprof-" "$T/out"
note "noexec: nothing left"
