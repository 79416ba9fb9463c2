# monitor=y covers java.util.concurrent: a ReentrantLock contended by 8
# threads is MONITOR TIME's top row, at the stack that asked for it (the park
# machinery above it dropped); a ReentrantReadWriteLock's readers show as
# blocked too; threads idling in a queue's take(), in Object.wait and in a
# Cleaner's ReferenceQueue are in MONITOR WAIT TIME, never in MONITOR TIME, so
# idle threads do not swamp contention.
. "$(dirname "$0")/lib.sh"
run_java "monitor=y,file=$T/m.txt" JucLocks 2
expect_rc 0
expect_grep "JucLocks done" "$T/out"
blocked() { sed -n '/^MONITOR TIME BEGIN/,/^MONITOR TIME END/p' "$T/m.txt" | grep -E '^ *[0-9]+ '; }
waiting() { sed -n '/^MONITOR WAIT TIME BEGIN/,/^MONITOR WAIT TIME END/p' "$T/m.txt" | grep -E '^ *[0-9]+ '; }
sed -n '/^MONITOR TIME BEGIN/,/^MONITOR WAIT TIME END/p' "$T/m.txt" >&2

# the top blocked row: the ReentrantLock's synchronizer, at critical()
top=$(blocked | head -1)
echo "$top" | grep -q 'java.util.concurrent.locks.ReentrantLock$NonfairSync (Java)$' ||
    fail "MONITOR TIME's top row is not the ReentrantLock: $top"
share=$(echo "$top" | awk '{sub("%", "", $2); print int($2)}')
count=$(echo "$top" | awk '{print $4}')
[ "$share" -ge 50 ] || fail "the ReentrantLock has only $share% of MONITOR TIME"
[ "$count" -ge 100 ] || fail "only $count parks on the ReentrantLock in 2 s of 8-way contention"
tr=$(echo "$top" | awk '{print $5}')
trace_of "$T/m.txt" "$tr" >&2
trace_of "$T/m.txt" "$tr" | head -1 | grep -q 'java.util.concurrent.locks.ReentrantLock' ||
    fail "trace $tr does not start at the lock's API"
trace_of "$T/m.txt" "$tr" | grep -q 'JucLocks.critical' || fail "trace $tr lacks JucLocks.critical (depth=4)"
trace_of "$T/m.txt" "$tr" | grep -q 'LockSupport\|Unsafe.park' && fail "trace $tr keeps the park machinery"
total=$(grep -o 'MONITOR TIME BEGIN (total = [0-9]*' "$T/m.txt" | grep -o '[0-9]*$')
[ "$total" -ge 2000 ] || fail "MONITOR TIME total $total ms: 7 threads waiting for 2 s should give far more"

# the read-write lock's readers are blocked, at read()
rw=$(blocked | grep 'ReentrantReadWriteLock$NonfairSync (Java)$' | head -1)
[ -n "$rw" ] || fail "no MONITOR TIME row for the ReentrantReadWriteLock"
trace_of "$T/m.txt" "$(echo "$rw" | awk '{print $5}')" | grep -q 'JucLocks.read\|JucLocks.write' ||
    fail "the ReentrantReadWriteLock row is not at read() or write()"

# idle threads wait; they are not blocked (an idle wait lasts the whole run: a row of 1% or more; a
# real contended enter of some Object monitor, once, is a row of a few ms)
blocked | grep 'ConditionObject\|ReferenceQueue\|JucLocks (Java)\|java.lang.Object (Java)' |
    awk '{ s = $2; sub(/%/, "", s); if (s + 0 >= 1) bad = 1 } END { exit !bad }' &&
    fail "an idle wait is in MONITOR TIME: $(blocked | grep 'ConditionObject\|ReferenceQueue\|JucLocks (Java)\|java.lang.Object (Java)')"
waiting | grep -q 'java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject (Java)$' ||
    fail "the queue's take() is not in MONITOR WAIT TIME"
cond=$(waiting | grep 'ConditionObject (Java)$' | while read -r _ _ _ _ t _; do
    trace_of "$T/m.txt" "$t" | grep -q 'JucLocks.idleTake' && echo "$t"; done | head -1)
[ -n "$cond" ] || fail "no MONITOR WAIT TIME trace reaches JucLocks.idleTake"
trace_of "$T/m.txt" "$cond" | head -1 | grep -q 'LinkedBlockingQueue.take' ||
    fail "the take() wait does not start at LinkedBlockingQueue.take: $(trace_of "$T/m.txt" "$cond" | head -1)"
waiting | grep -q 'java.lang.Object (Java)$' || fail "Object.wait is not in MONITOR WAIT TIME"
waiting | grep -q 'java.lang.ref.ReferenceQueue$Lock (Java)$' || fail "the Cleaner's idle thread is not in MONITOR WAIT TIME"
exit 0
