# What another process plants where jvmprof start looks (issue 34, items 3
# and 4): an attach socket /tmp/.java_pid<PID> made before the JVM's own, by
# another user, open to others, or listened on by a process that is not the
# JVM, is refused in one line and never sent the request; an .attach_pid<PID>
# trigger planted as a link makes nothing where it points (the trigger is made
# in the JVM's /tmp instead, or the command says it cannot); and with the
# plants gone the same JVM is profiled.
. "$(dirname "$0")/lib.sh"
PIDS=()
trap 'exec 2>/dev/null; for p in "${PIDS[@]}"; do kill -9 "$p"; done; rm -f "${PLANTED[@]}"; rm -rf "$T"' EXIT
PLANTED=()
[ "$(id -u)" -eq 0 ] || fail "needs root (a socket of another user's)"
PY=/usr/bin/python3
[ -x "$PY" ] || fail "needs $PY"

mkdir "$T/cwd"
# a JVM that waits (for $T/sync/go, which never comes); attached only once its main() runs
(cd "$T/cwd" && exec "$JAVA" -XX:-UsePerfData -cp "$CLASSES" AttachTarget calls "$T/sync" >"$T/j.out" 2>"$T/j.err") &
JPID=$!
PIDS+=("$JPID")
for _ in $(seq 600); do grep -q '^ready$' "$T/j.out" && break; sleep 0.1; done
grep -q '^ready$' "$T/j.out" || fail "the JVM did not start: $(cat "$T/j.err")"
SOCK=/tmp/.java_pid$JPID
PLANTED+=("$SOCK" "/tmp/.attach_pid$JPID")

# plant USER MODE: a listener at $SOCK, run as USER (its pid in LPID), its socket chmod MODE, that reports each connection and
# the bytes it got, and answers as a JVM would ("0", "return code: 0"); its output in $T/l.out
plant() {
    rm -f "$SOCK" "$T/l.out"
    setpriv --reuid="$1" --regid="$(id -g "$1")" --clear-groups -- "$PY" -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], int(sys.argv[2], 8))
s.listen(4)
print("listening", flush=True)
while True:
    c, _ = s.accept()
    c.settimeout(2)
    got = b""
    try:
        while got.count(b"\0") < 5:
            b = c.recv(4096)
            if not b:
                break
            got += b
    except OSError:
        pass
    print("connection: %d bytes" % len(got), flush=True)
    try:
        c.sendall(b"0\nreturn code: 0\n")
    except OSError:
        pass
    c.close()
' "$SOCK" "$2" >"$T/l.out" 2>"$T/l.err" &
    LPID=$!
    PIDS+=("$LPID")
    for _ in $(seq 100); do grep -q listening "$T/l.out" 2>/dev/null && return 0; sleep 0.05; done
    fail "the planted listener did not start: $(cat "$T/l.err")"
}
unplant() { kill "$LPID"; wait "$LPID" 2>/dev/null; rm -f "$SOCK"; }
# refused EXPECTED: jvmprof start fails with that one line, and the listener got no request
refused() {
    "$JVMPROF" start "$JPID" "cpu=samples,file=$T/r.txt" >"$T/o" 2>"$T/e" && fail "$2: start succeeded: $(cat "$T/o")"
    [ "$(wc -l <"$T/e")" = 1 ] || fail "$2: more than one line: $(cat "$T/e")"
    grep -q "^jvmprof: $1" "$T/e" || fail "$2: $(cat "$T/e")"
    sleep 0.2
    ! grep -q "connection: [1-9]" "$T/l.out" || fail "$2: the planted socket was sent the request: $(cat "$T/l.out")"
}

# another user's socket, made 0600 as a JVM makes its own
plant nobody 600
refused "the attach socket of process $JPID, /tmp/.java_pid$JPID in its file system, belongs to user $(id -u nobody), group $(id -g nobody), not to the JVM's (user 0, group 0): not used" \
    "another user's socket"
grep -q "connection" "$T/l.out" && fail "another user's socket was connected to"
unplant
# ours, but open to others
plant root 666
refused "the attach socket of process $JPID, /tmp/.java_pid$JPID in its file system, is open to other users (mode 0666; a JVM makes its socket 0600): not used" \
    "a socket open to others"
unplant
# ours and 0600, but another process listens on it
plant root 600
refused "the attach socket of process $JPID, /tmp/.java_pid$JPID in its file system, is served by process $LPID (user 0), not by the JVM: not used" \
    "a socket of another process"
unplant
note "planted sockets refused: another user's, one open to others, one of another process"

# the trigger planted as a link, in the JVM's working directory and in /tmp: nothing made where they point
ln -s "$T/made-in-cwd" "$T/cwd/.attach_pid$JPID"
ln -s "$T/made-in-tmp" "/tmp/.attach_pid$JPID"
"$JVMPROF" start "$JPID" "cpu=samples,file=$T/r.txt" >"$T/o" 2>"$T/e" && fail "start with both triggers planted succeeded"
[ ! -e "$T/made-in-cwd" ] && [ ! -e "$T/made-in-tmp" ] || fail "a planted trigger link made a file: $(ls "$T")"
[ "$(wc -l <"$T/e")" = 1 ] || fail "more than one line: $(cat "$T/e")"
grep -q "^jvmprof: cannot ask the JVM of process $JPID to attach: .attach_pid$JPID in its working directory: something else is there (a link, another user's file); /tmp/.attach_pid$JPID: something else is there" "$T/e" ||
    fail "both triggers planted: $(cat "$T/e")"
[ -L "$T/cwd/.attach_pid$JPID" ] && [ -L "/tmp/.attach_pid$JPID" ] || fail "a planted link was removed"
# one left in its working directory: the trigger is made in /tmp, and the JVM attaches
rm "/tmp/.attach_pid$JPID"
"$JVMPROF" start "$JPID" "cpu=samples,file=$T/r.txt" >"$T/o" 2>"$T/e" || fail "start: $(cat "$T/e")"
grep -q "^started: cpu=samples,file=$T/r.txt" "$T/o" || fail "start said: $(cat "$T/o")"
[ ! -e "$T/made-in-cwd" ] || fail "the trigger link in the working directory made a file"
[ ! -e "/tmp/.attach_pid$JPID" ] || fail "the trigger made in /tmp was left"
sleep 1
"$JVMPROF" stop "$JPID" >"$T/o" 2>"$T/e" || fail "stop: $(cat "$T/e")"
grep -q "^CPU SAMPLES END" "$T/r.txt" || fail "no report"
[ -S "$SOCK" ] && [ "$(stat -c '%u %a' "$SOCK")" = "0 600" ] || fail "the JVM's own socket: $(ls -l "$SOCK")"
note "planted trigger links made nothing; the JVM attached through /tmp"

# a socket left by an earlier JVM with the same pid, killed before it could remove it (ours, 0600, no one
# listening, older than the process): not "Connection refused", but waited past; the JVM replaces it
mkdir "$T/sync2"
"$JAVA" -XX:-UsePerfData -cp "$CLASSES" AttachTarget calls "$T/sync2" >"$T/j2.out" 2>"$T/j2.err" &
JPID=$!
PIDS+=("$JPID")
for _ in $(seq 600); do grep -q '^ready$' "$T/j2.out" && break; sleep 0.1; done
grep -q '^ready$' "$T/j2.out" || fail "the second JVM did not start: $(cat "$T/j2.err")"
SOCK=/tmp/.java_pid$JPID
PLANTED+=("$SOCK")
"$PY" -c 'import os, socket, sys; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o600)' "$SOCK" ||
    fail "could not leave a socket"
touch -d '1 hour ago' "$SOCK"
"$JVMPROF" start "$JPID" "cpu=samples,file=$T/s.txt" >"$T/o" 2>"$T/e" || fail "start past a stale socket: $(cat "$T/e")"
"$JVMPROF" stop "$JPID" >"$T/o" 2>"$T/e" || fail "stop: $(cat "$T/e")"
grep -q "^CPU SAMPLES END" "$T/s.txt" || fail "no report after the stale socket"
[ "$(stat -c %Y "$SOCK")" -gt $(($(date +%s) - 600)) ] || fail "the stale socket is still there"
note "a stale socket older than the JVM: waited past, the JVM's own used"
