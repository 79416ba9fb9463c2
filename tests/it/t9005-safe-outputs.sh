# Output files never harm what is already there (jvmprof runs as root and
# writes into shared directories):
#  1. a symbolic link planted where the old code put its temporary file
#     (<file>.<pid>.tmp), before start-up and during the run, in a world-writable
#     sticky directory by another user when we are root: its target is
#     untouched and the report is a regular file;
#  2. a device node as file= (a private copy of /dev/null) stays a device, for
#     the report and for a heap dump; `jvmprof heap --text -o` onto a copy of
#     /dev/full fails with a clear line and leaves the node;
#  3. a directory as file=, flame= or a heap dump's file=, with force=n, stops
#     the JVM with a line saying it is a directory;
#  4. modes under umask 022: heap dumps (dumper=jvmti, format=a, heap=all) and
#     `jvmprof heap --text` are 0600; a report replacing a 0600 file stays 0600.
. "$(dirname "$0")/lib.sh"
umask 022

# 1. symbolic links at the old temporary names
echo "secret, do not touch" >"$T/victim"
chmod 600 "$T/victim"
before=$(sha256sum <"$T/victim")
# planted before start-up: the shell's pid is the JVM's after exec
bash -c 'ln -s "$1/victim" "$1/out.txt.$$.tmp"; exec "$2" "-agentpath:$3=file=$1/out.txt" -cp "$4" Hello' _ \
    "$T" "$JAVA" "$AGENT" "$CLASSES" >"$T/out" 2>"$T/err" || fail "the JVM failed: $(cat "$T/err")"
[ "$(sha256sum <"$T/victim")" = "$before" ] || fail "a link planted at start-up: its target was written"
[ -f "$T/out.txt" ] && [ ! -L "$T/out.txt" ] || fail "the report is not a regular file"
expect_grep "^CPU SAMPLES BEGIN" "$T/out.txt"
ls "$T"/out.txt.*.tmp >/dev/null 2>&1 || fail "the planted link was removed or replaced"
rm -f "$T"/out.txt*
# planted during the run, then a dump by SIGQUIT
"$JAVA" "-agentpath:$AGENT=doe=n,file=$T/mid.txt" -cp "$CLASSES" SleepThenDump 0.5 4 >"$T/out" 2>"$T/err" &
pid=$!
sleep 1
ln -s "$T/victim" "$T/mid.txt.$pid.tmp"
kill -QUIT $pid
wait $pid || fail "the JVM failed: $(cat "$T/err")"
[ "$(sha256sum <"$T/victim")" = "$before" ] || fail "a link planted during the run: its target was written"
[ -f "$T/mid.txt" ] && [ ! -L "$T/mid.txt" ] || fail "the report written after SIGQUIT is not a regular file"
expect_grep "^CPU SAMPLES BEGIN" "$T/mid.txt"
# as another user, in a sticky world-writable directory (as in /tmp), against a root-only file
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    chmod 755 "$T"
    mkdir -m 1777 "$T/shared"
    "$JAVA" "-agentpath:$AGENT=doe=n,file=$T/shared/r.txt" -cp "$CLASSES" SleepThenDump 0.5 4 >"$T/out" 2>"$T/err" &
    pid=$!
    sleep 1
    for name in "r.txt.$pid.tmp" "r.txt.$((pid + 1)).tmp"; do
        setpriv --reuid=nobody --regid=nogroup --clear-groups ln -s "$T/victim" "$T/shared/$name" ||
            fail "could not plant a link as nobody"
    done
    kill -QUIT $pid
    wait $pid || fail "the JVM failed: $(cat "$T/err")"
    [ "$(sha256sum <"$T/victim")" = "$before" ] || fail "another user's link: the root-only file was written"
    [ -f "$T/shared/r.txt" ] && [ ! -L "$T/shared/r.txt" ] || fail "the report in the shared directory is not a file"
    [ "$(stat -c %U "$T/shared/r.txt")" = root ] || fail "the report is not root's own file"
    note "links planted by nobody in a sticky directory: target untouched"
else
    note "SKIPPED the other-user case: not root, or no setpriv"
fi

# 2. device nodes
if [ "$(id -u)" = 0 ]; then
    mknod "$T/null" c 1 3 && mknod "$T/full" c 1 7 || fail "mknod"
    run_java "file=$T/null" Hello
    expect_rc 0
    [ -c "$T/null" ] || fail "file= a device node: the node was replaced ($(ls -l "$T/null"))"
    run_java "heap=dump,file=$T/null" Hello
    expect_rc 0
    [ -c "$T/null" ] || fail "heap=dump onto a device node: the node was replaced"
    expect_no_grep "heap dump failed" "$T/err"
    run_java "heap=dump,file=$T/g.hprof" Hello
    RC=0
    "$JVMPROF" heap "$T/g.hprof" --text -o "$T/full" 2>"$T/cli.err" || RC=$?
    [ "$RC" = 1 ] || fail "heap --text -o /dev/full: exit $RC"
    expect_grep "^jvmprof: cannot write $T/full: No space left on device" "$T/cli.err"
    [ -c "$T/full" ] || fail "heap --text -o a device node: the node was replaced"
    ls "$T" | grep -q 'jvmprof-' && fail "temporary files left: $(ls "$T" | grep jvmprof-)"
    rm -f "$T/null" "$T/full" "$T/g.hprof"
else
    note "SKIPPED the device-node cases: not root (mknod)"
fi

# 3. a directory as an output, force=n
mkdir "$T/sub"
for opts in "file=$T/sub" "flame=$T/.." "heap=dump,file=$T/sub" "file=$T/sub/"; do
    run_java "$opts,force=n" Hello
    [ "$RC" != 0 ] || fail "$opts,force=n: the JVM ran"
    expect_no_grep hello "$T/out"
    grep -qE "^jvmprof: (file|flame)=.*: (is a directory|ends in '/', which names a directory); give the name of a file to write \(force=n stops the program\)$" "$T/err" ||
        fail "$opts: $(cat "$T/err")"
done
note "a directory as output: $(head -1 "$T/err")"

# 4. modes
run_java "heap=dump,dumper=jvmti,file=$T/m1.hprof" Hello
run_java "heap=dump,format=a,file=$T/m2.txt" Hello
run_java "heap=all,file=$T/m3.txt" Hello
run_java "heap=dump,file=$T/m4.hprof" Hello
"$JVMPROF" heap "$T/m1.hprof" --text -o "$T/m5.txt" || fail "heap --text"
for f in m1.hprof m2.txt m3.txt m4.hprof m5.txt; do
    [ "$(stat -c %a "$T/$f")" = 600 ] || fail "$f: mode $(stat -c %a "$T/$f"), expected 600"
done
echo old >"$T/kept.txt"
chmod 600 "$T/kept.txt"
run_java "file=$T/kept.txt" Hello
expect_grep "^CPU SAMPLES BEGIN" "$T/kept.txt"
[ "$(stat -c %a "$T/kept.txt")" = 600 ] || fail "a 0600 report replaced: mode $(stat -c %a "$T/kept.txt")"
run_java "file=$T/new.txt" Hello
[ "$(stat -c %a "$T/new.txt")" = 644 ] || fail "a new report: mode $(stat -c %a "$T/new.txt")"
echo "t9005 ok"
