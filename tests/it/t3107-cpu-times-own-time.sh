# cpu=times by default counts without timing only the straight-line leaves (no call, loop,
# switch, array allocation or lock, at most 80 bytes), whose time per call is bounded by their
# length. Small methods that call (a recursion, mutual recursion, a chain of one-line
# delegators) and a leaf that allocates an array keep their own time in CPU TIME (ms): each
# phase's loop, their caller, keeps little, and main almost none (RecursiveTimes). A getter is
# still counted only, exactly. tiny=80 is the old trade, kept on request: fib is then counted
# and its whole recursion is its caller's time.
. "$(dirname "$0")/lib.sh"
# self (percent of the total) and calls of a method, summed over its call paths
self() { sed -n '/^CPU TIME (ms) BEGIN/,/^CPU TIME (ms) END/p' "$1" | awk -v m="$2" '$6 == m { s += $2 } END { printf "%.2f", s }'; }
calls() { sed -n '/^CPU TIME (ms) BEGIN/,/^CPU TIME (ms) END/p' "$1" | awk -v m="$2" '$6 == m { c += $4 } END { print c + 0 }'; }
counted() { sed -n '/^CALLS COUNTED BEGIN/,/^CALLS COUNTED END/p' "$1" | awk -v m="$2" '$5 == m { c += $4 } END { print c + 0 }'; }
# share WORKERS LOOP: the workers' self time as a percentage of theirs and their loop's
share() {
    local f=$1 loop=$2 w=0 s; shift 2
    for m in "$@"; do s=$(self "$f" "$m"); w=$(awk -v a="$w" -v b="$s" 'BEGIN { print a + b }'); done
    awk -v w="$w" -v l="$(self "$f" "$loop")" 'BEGIN { printf "%.1f", (w + l > 0 ? 100 * w / (w + l) : 0) }'
}

run_java "" RecursiveTimes
expect_rc 0
cp "$T/out" "$T/expected"
run_java "cpu=times,cutoff=0,file=$T/d.txt" RecursiveTimes
expect_rc 0
cmp -s "$T/out" "$T/expected" || fail "program output changed under cpu=times"

# every call of the small calling methods timed, exactly
for mc in 'fib 2292520' 'fibLoop 1' 'isEven 150300' 'isOdd 150150' 'outer 200' 'middle 200' 'copy 200' 'alloc 100'; do
    read -r m c <<<"$mc"
    [ "$(calls "$T/d.txt" "RecursiveTimes.$m")" = "$c" ] ||
        fail "$m timed $(calls "$T/d.txt" "RecursiveTimes.$m") times, expected $c (counted: $(counted "$T/d.txt" "RecursiveTimes.$m(I)I"))"
done
# each keeps its own time: most of its phase's, the loop little
fib=$(share "$T/d.txt" RecursiveTimes.fibLoop RecursiveTimes.fib)
parity=$(share "$T/d.txt" RecursiveTimes.parityLoop RecursiveTimes.isEven RecursiveTimes.isOdd)
chain=$(share "$T/d.txt" RecursiveTimes.chainLoop RecursiveTimes.outer RecursiveTimes.middle RecursiveTimes.copy)
copy=$(share "$T/d.txt" RecursiveTimes.chainLoop RecursiveTimes.copy)
alloc=$(share "$T/d.txt" RecursiveTimes.allocLoop RecursiveTimes.alloc)
main=$(self "$T/d.txt" RecursiveTimes.main)
note "own time against their loop's: fib $fib%, isEven+isOdd $parity%, outer+middle+copy $chain% (copy $copy%), alloc $alloc%; main $main% of all"
note "fib $(self "$T/d.txt" RecursiveTimes.fib)% of all, fibLoop $(self "$T/d.txt" RecursiveTimes.fibLoop)%"
for v in "fib $fib" "isEven+isOdd $parity" "copy $copy" "alloc $alloc"; do
    set -- $v
    awk -v s="$2" 'BEGIN { exit !(s >= 80) }' || fail "$1 has $2% of its phase's self time (its loop the rest), expected >= 80%"
done
awk -v m="$main" 'BEGIN { exit !(m < 5) }' || fail "main has $main% self time, expected < 5% (it only calls the loops)"

# a getter is still counted only, exactly
[ "$(counted "$T/d.txt" 'RecursiveTimes.get()I')" = 1000000 ] ||
    fail "get() counted $(counted "$T/d.txt" 'RecursiveTimes.get()I') times, expected 1000000"
[ "$(calls "$T/d.txt" RecursiveTimes.get)" = 0 ] || fail "get() was timed"
[ "$(counted "$T/d.txt" 'RecursiveTimes.fib(I)I')" = 0 ] || fail "fib was counted by default"

# tiny=80, the user's trade: fib and the delegators counted, their time their loop's
run_java "cpu=times,cutoff=0,tiny=80,file=$T/t.txt" RecursiveTimes
expect_rc 0
[ "$(counted "$T/t.txt" 'RecursiveTimes.fib(I)I')" = 2292520 ] ||
    fail "tiny=80: fib counted $(counted "$T/t.txt" 'RecursiveTimes.fib(I)I') times, expected 2292520"
[ "$(calls "$T/t.txt" RecursiveTimes.fib)" = 0 ] || fail "tiny=80: fib was timed"
[ "$(counted "$T/t.txt" 'RecursiveTimes.middle([I[I)I')" = 200 ] || fail "tiny=80: middle not counted 200 times"
[ "$(calls "$T/t.txt" RecursiveTimes.fibLoop)" = 1 ] || fail "tiny=80: fibLoop (a loop) not timed"
[ "$(counted "$T/t.txt" 'RecursiveTimes.get()I')" = 1000000 ] || fail "tiny=80: get() not counted 1000000 times"
note "tiny=80: fibLoop $(self "$T/t.txt" RecursiveTimes.fibLoop)% of all (fib's time in it)"
