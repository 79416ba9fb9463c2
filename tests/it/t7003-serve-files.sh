# jvmprof serve's files, with a hostile local user and colliding JVMs: a
# link another user planted at DIR/HOST-PID (serve as root) is never
# followed, nor is that user's own directory used; two JVMs with one host
# name and pid (two PID namespaces, java as pid 1 in each, one host name)
# each get a directory of their own and keep their files whole; file names
# that start with a dot get a '_' in front and stay apart; serve
# acknowledges a whole file's bytes only once it is kept. Needs root
# (serve as root, unshare, another user).
. "$(dirname "$0")/lib.sh"
JVMPROF="$ROOT/build/jvmprof"
# serve runs under ASan+UBSan when make test built that jvmprof (and it is not older than the plain one)
SERVE="$ROOT/build/asan/jvmprof"
[ -x "$SERVE" ] && ! [ "$JVMPROF" -nt "$SERVE" ] || SERVE=$JVMPROF
SPID=""
trap 'exec 2>/dev/null; [ -n "$SPID" ] && kill -9 "$SPID"; rm -rf "$T"' EXIT
[ "$(id -u)" = 0 ] || fail "needs root (serve as root, unshare, a second user)"
chmod 755 "$T" # the other user reaches DIR

# start_serve DIR: jvmprof serve on a free port of 127.0.0.1 writing to DIR; its pid in SPID, its port in PORT,
# its stderr in $T/serve.log
start_serve() {
    [ -z "$SPID" ] || { kill "$SPID"; wait "$SPID"; }
    serve_up "$SERVE" "$1"
}
net_lost() { sed -n "s/^net=127\.0\.0\.1:$PORT: bytes lost (front end slow, gone or never there) \([0-9]*\)$/\1/p" "$1"; }
# twin LOCALDIR OPTIONS: HotLoop for 2 s as pid 1 of a PID namespace whose host name is "twin", streaming to
# serve (OPTIONS added to the agent's)
twin() {
    mkdir -p "$1"
    timeout -k 10 120 unshare --pid --fork --mount-proc --uts sh -c 'hostname twin && exec "$@"' sh "$JAVA" \
        "-agentpath:$AGENT=cpu=samples,interval=5,net=127.0.0.1:$PORT,$2" -cp "$CLASSES" HotLoop 2 \
        >"$1/out" 2>"$1/err"
}
# serve_dirs: the directories serve said it writes twin's files to
serve_dirs() { sed -n 's/^jvmprof serve: twin pid 1 (127\.0\.0\.1): connected, writing to //p' "$T/serve.log"; }

# 1. another user plants DIR/twin-1 as a link to a directory of root's, and makes DIR/twin-1.2 its own
mkdir "$T/srv" "$T/victim"
chown nobody "$T/srv"
if runuser -u nobody -- test -w "$T/srv"; then
    runuser -u nobody -- ln -s "$T/victim" "$T/srv/twin-1" || fail "nobody could not plant the link"
    runuser -u nobody -- mkdir "$T/srv/twin-1.2" || fail "nobody could not make its directory"
else # TMPDIR out of nobody's reach: the same made by root, then given to nobody
    ln -s "$T/victim" "$T/srv/twin-1" && mkdir "$T/srv/twin-1.2" && chown -h nobody "$T/srv/twin-1"{,.2} ||
        fail "could not plant the link"
fi
start_serve "$T/srv"
twin "$T/l" "file=$T/l/authorized_keys" || fail "the JVM ended with $?: $(cat "$T/l/err")"
serve_said '^jvmprof serve: twin pid 1 .*: done \('
[ -z "$(ls -A "$T/victim")" ] || fail "serve wrote through the planted link: $(ls -l "$T/victim")"
[ -z "$(ls -A "$T/srv/twin-1.2")" ] || fail "serve wrote into nobody's directory: $(ls -l "$T/srv/twin-1.2")"
[ "$(serve_dirs)" = "$T/srv/twin-1.3" ] || fail "serve's directory: $(serve_dirs); $(cat "$T/serve.log")"
[ "$(stat -c %U "$T/srv/twin-1.3")" = root ] || fail "serve's directory is not root's"
cmp "$T/l/authorized_keys" "$T/srv/twin-1.3/authorized_keys" >&2 || fail "the report serve kept differs"
[ "$(net_lost "$T/l/authorized_keys")" = 0 ] || fail "lost: $(grep '^net=' "$T/l/authorized_keys")"
note "a planted link and another user's directory at DIR/HOST-PID: neither used, the files in twin-1.3"

# 2. two JVMs with one host name and pid at once: a directory each, every file whole
mkdir "$T/srv2"
start_serve "$T/srv2"
for n in a b; do
    twin "$T/$n" "trace=exec+thread,include=HotLoop,tracefile=$T/$n/h.trace,file=$T/$n/h.txt,flame=$T/$n/h.html" &
    eval "J$n=\$!"
done
wait "$Ja" || fail "JVM a ended with $?: $(cat "$T/a/err")"
wait "$Jb" || fail "JVM b ended with $?: $(cat "$T/b/err")"
serve_said '^jvmprof serve: twin pid 1 .*: done \(' 2
dirs=$(serve_dirs | sort)
[ "$(echo "$dirs" | sort -u | wc -l)" = 2 ] || fail "not two directories: $dirs; $(cat "$T/serve.log")"
for n in a b; do
    [ "$(net_lost "$T/$n/h.txt")" = 0 ] || fail "JVM $n lost bytes: $(grep '^net=' "$T/$n/h.txt")"
    # what was sent after the report (its last acks) is counted at the session's end, on stderr
    ! grep 'were lost' "$T/$n/err" >&2 || fail "JVM $n lost bytes at its end"
    kept=""
    for d in $dirs; do
        cmp -s "$T/$n/h.txt" "$d/h.txt" && kept=$d
    done
    [ -n "$kept" ] || fail "JVM $n's report is not in $dirs"
    for f in h.html h.trace; do
        cmp "$T/$n/$f" "$kept/$f" >&2 || fail "JVM $n: serve's $f differs from the local one"
    done
    "$JVMPROF" trace "$kept/h.trace" >/dev/null 2>"$T/e" || fail "JVM $n: serve's trace is not readable: $(cat "$T/e")"
    eval "K$n=\$kept"
done
[ "$Ka" != "$Kb" ] || fail "both JVMs' files are in $Ka"
note "two JVMs, both twin pid 1: $(basename "$Ka") and $(basename "$Kb"), report, flame graph and trace whole"

# 3. names that start with a dot: a '_' in front, each its own file
mkdir -p "$T/d"
run_java "cpu=samples,interval=5,file=$T/d/.a.txt,collapsed=$T/d/.b.txt,net=127.0.0.1:$PORT" HotLoop 1
expect_rc 0
serve_said '^jvmprof serve: [^t].*: done \('
d=$(grep -v '^jvmprof serve: twin pid 1 ' "$T/serve.log" | sed -n 's/^jvmprof serve: .*: connected, writing to //p')
[ -d "$d" ] || fail "no directory for the JVM: $(ls "$T/srv2"); $(cat "$T/serve.log")"
cmp "$T/d/.a.txt" "$d/_.a.txt" >&2 || fail ".a.txt did not become _.a.txt: $(ls -A "$d")"
cmp "$T/d/.b.txt" "$d/_.b.txt" >&2 || fail ".b.txt did not become _.b.txt: $(ls -A "$d")"
[ "$(ls -A "$d" | wc -l)" = 2 ] || fail "other files: $(ls -A "$d")"
note "dot names: $(ls -A "$d" | tr '\n' ' ')"

# 4. a whole file's bytes are acknowledged once it is kept, not as they come; names from the wire stay inside
python3 - "$PORT" "$T/srv2" <<'PY' || fail "the protocol client failed"
import os, socket, struct, sys, time
port, base = int(sys.argv[1]), sys.argv[2]
s = socket.create_connection(("127.0.0.1", port))
s.settimeout(10)
def frame(t, i, p=b""): return struct.pack("<BII", t, i, len(p)) + p
def ack():
    b = b""
    while len(b) < 8:
        r = s.recv(8 - len(b))
        assert r, "serve closed the connection"
        b += r
    return struct.unpack("<Q", b)[0]
hello = frame(1, 0, b"777\0ackhost\0x\0")
s.sendall(b"JPNET 2\n" + hello)
at = 8 + len(hello)
assert ack() == at, "the hello not acknowledged"
part = frame(2, 1, b"R../escape") + frame(3, 1, b"x" * 1000)
s.sendall(part)
time.sleep(0.5)
s.setblocking(False)
try:
    extra = s.recv(8)
except BlockingIOError:
    extra = b""
assert not extra, "a whole file acknowledged before its end: %r" % extra
s.setblocking(True)
end = frame(4, 1)
s.sendall(end)
assert ack() == at + len(part) + len(end), "the whole file not acknowledged at its end"
s.close()
d = os.path.join(base, "ackhost-777")
assert os.listdir(d) == ["_.._escape"], os.listdir(d)
assert open(os.path.join(d, "_.._escape"), "rb").read() == b"x" * 1000
PY
note "a whole file acknowledged at its end; ../escape kept as _.._escape inside its directory"

# serve itself (under ASan+UBSan when built so) stops cleanly, having reported no error
kill "$SPID"
wait "$SPID" || fail "serve ended with $?: $(tail -20 "$T/serve.log")"
SPID=""
! grep -E "Sanitizer|runtime error" "$T/serve.log" >&2 || fail "serve: a sanitizer's report"
note "serve: $SERVE"
