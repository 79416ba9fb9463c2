# jvmprof start on a JVM in a container that plants links (issue 34, items 2
# and 12): the JVM runs chrooted in its own PID and mount namespaces, and its
# /tmp is an absolute link to a directory that exists both in the container
# and on the host. The agent's copy, the answer file and the attach socket are
# found inside the container's root, never on the host; a jvmprof-VERSION-UID
# directory planted as a link to a host directory, or made by another user,
# is refused in one line and nothing is written or replaced where it points.
# A command whose JVM dies before it answers leaves no .jvmprof-answer file.
. "$(dirname "$0")/lib.sh"
PIDS=()
V=$(mktemp -d /var/tmp/jvmprof-t7010.XXXXXX) # the host directory the container's /tmp names
trap 'exec 2>/dev/null; for p in "${PIDS[@]}"; do kill -9 "$p"; done; rm -rf "$T" "$V"' EXIT
[ "$(id -u)" -eq 0 ] || fail "needs root (unshare, chroot)"
case "$JAVA" in /usr/*) ;; *) fail "the JDK ($JAVA) must be under /usr, which the container binds" ;; esac
UID_=$(id -u)
DIRNAME="jvmprof-$("$JVMPROF" version | awk '{print $2}')-$UID_"

# the container's root: the host's /usr, /etc and /dev bound in, the test classes at /cls, and /tmp an
# absolute link to $V, which inside is $R$V (a real directory) and outside is $V (the host's)
R="$T/root"
mkdir -p "$R/usr" "$R/etc" "$R/dev" "$R/proc" "$R/cls" "$R$V"
for l in bin lib lib64 sbin; do [ -L "/$l" ] && ln -s "$(readlink "/$l")" "$R/$l"; done
ln -s "$V" "$R/tmp"
CTMP="$R$V" # the container's /tmp, seen from here
unshare --pid --mount --fork --kill-child sh -c "mount --rbind /usr '$R/usr' && mount --bind /etc '$R/etc' &&
    mount --rbind /dev '$R/dev' && mount -t proc proc '$R/proc' && mount --bind '$CLASSES' '$R/cls' &&
    exec chroot '$R' '$JAVA' -XX:-UsePerfData -cp /cls AttachTarget calls /none" >"$T/c.out" 2>"$T/c.err" &
PIDS+=($!)
JPID=
for _ in $(seq 200); do
    for d in /proc/[0-9]*; do
        [ "$(readlink "$d/root" 2>/dev/null)" = "$R" ] && grep -q '^NSpid:.*[[:space:]]1$' "$d/status" 2>/dev/null &&
            grep -q libjvm.so "$d/maps" 2>/dev/null && { JPID=${d#/proc/}; break; }
    done
    [ -n "$JPID" ] && break
    sleep 0.1
done
[ -n "$JPID" ] || fail "the chrooted JVM did not start: $(cat "$T/c.err")"
PIDS+=("$JPID")
# attached only once its main() runs (it then waits for /none/go, which never comes)
for _ in $(seq 600); do grep -q '^ready$' "$T/c.out" && break; sleep 0.1; done
grep -q '^ready$' "$T/c.out" || fail "the chrooted JVM did not get to main(): $(cat "$T/c.err")"
host_empty() { [ -z "$(ls -A "$V")" ] || fail "$1: the host's $V was written: $(ls -lA "$V")"; }

# a jvmprof-VERSION-UID planted in the container's /tmp as an absolute link to a host directory
mkdir "$T/host"
echo precious >"$T/host/libjvmprof.so"
ln -s "$T/host" "$CTMP/$DIRNAME"
"$JVMPROF" start "$JPID" "cpu=samples,file=/tmp/r.txt" >"$T/o" 2>"$T/e" && fail "a planted link was used: $(cat "$T/o")"
[ "$(cat "$T/host/libjvmprof.so")" = precious ] || fail "the file the link points to was replaced"
[ "$(ls -A "$T/host")" = libjvmprof.so ] || fail "files were made where the link points: $(ls -A "$T/host")"
host_empty "a planted link"
[ "$(wc -l <"$T/e")" = 1 ] || fail "more than one line: $(cat "$T/e")"
grep -q "^jvmprof: /tmp/$DIRNAME in the file system of process $JPID is not a directory (a symbolic link, or a file): not used" "$T/e" ||
    fail "a planted link: $(cat "$T/e")"
rm "$CTMP/$DIRNAME"

# one made by another user
mkdir "$CTMP/$DIRNAME"
chown nobody "$CTMP/$DIRNAME"
"$JVMPROF" start "$JPID" "cpu=samples,file=/tmp/r.txt" >"$T/o" 2>"$T/e" && fail "another user's directory was used"
grep -q "^jvmprof: /tmp/$DIRNAME in the file system of process $JPID belongs to user $(id -u nobody), not to you ($UID_): not used" "$T/e" ||
    fail "another user's directory: $(cat "$T/e")"
[ -z "$(ls -A "$CTMP/$DIRNAME")" ] || fail "files were put in another user's directory"
rmdir "$CTMP/$DIRNAME"

# and without them: the copy, the answer and the socket inside the container, the report in its /tmp
"$JVMPROF" start "$JPID" "cpu=samples,file=/tmp/r.txt" >"$T/o" 2>"$T/e" || fail "start: $(cat "$T/e")"
grep -q "^started: cpu=samples,file=/tmp/r.txt" "$T/o" || fail "start said: $(cat "$T/o")"
[ -f "$CTMP/$DIRNAME/libjvmprof.so" ] && [ -f "$CTMP/$DIRNAME/jvmprof.jar" ] ||
    fail "no copy of the agent in the container's /tmp: $(ls -lA "$CTMP")"
cmp -s "$CTMP/$DIRNAME/libjvmprof.so" "$AGENT" || fail "the copy is not the agent"
grep -q "/$DIRNAME/libjvmprof.so" "/proc/$JPID/maps" || fail "the JVM did not load the copy"
sleep 1
"$JVMPROF" stop "$JPID" >"$T/o" 2>"$T/e" || fail "stop: $(cat "$T/e")"
grep -q "^CPU SAMPLES END" "$CTMP/r.txt" || fail "no report in the container's /tmp"
host_empty "start, stop"
ls "$CTMP"/.jvmprof-answer-* >/dev/null 2>&1 && fail "answer files left: $(ls -A "$CTMP")"
note "container with /tmp -> $V: the agent copied into its root, the host's $V untouched"

# a command whose JVM dies before it answers: stopped, asked, killed; no answer file may stay
kill -STOP "$JPID"
for _ in $(seq 200); do # until all its threads stopped
    [ "$(awk '/^State:/ {print $2}' "/proc/$JPID/status")" = T ] && break
    sleep 0.05
done
"$JVMPROF" status "$JPID" >"$T/o" 2>"$T/e" &
CMD=$!
for _ in $(seq 200); do
    ls "$CTMP"/.jvmprof-answer-* >/dev/null 2>&1 && break
    sleep 0.05
done
ls "$CTMP"/.jvmprof-answer-* >/dev/null 2>&1 || fail "the status command made no answer file: $(cat "$T/o" "$T/e")"
sleep 0.3 # connected, its request sent: waiting for the answer
kill -9 "$JPID"
wait "$CMD" && fail "status of a JVM killed before it answered succeeded: $(cat "$T/o")"
[ "$(wc -l <"$T/e")" = 1 ] || fail "more than one line: $(cat "$T/e")"
note "JVM killed mid-command: $(cat "$T/e")"
left=$(ls -A "$CTMP" | grep '^\.jvmprof-answer-')
[ -z "$left" ] || fail "the answer file stayed after the JVM died: $left"
host_empty "a JVM killed mid-command"
