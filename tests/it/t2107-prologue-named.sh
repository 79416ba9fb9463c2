# cpu=samples names the method a sample landed in even where AsyncGetCallTrace
# cannot walk from the pc: in PrologueHot, leaf() is never inlined and is
# called back to back, so most samples land in its prologue or epilogue
# ("unknown Java": the build before named loop(), the caller, for them:
# leaf() about 4%, loop() 84%); under -Xint many land where the interpreter's
# frame is not yet trusted ("not walkable Java": 4-12% were lost). The method
# comes from HotSpot's code cache (vm_code.c) and the walk goes on from the
# caller. async-profiler in the same JVM gives leaf() about 70% compiled and
# about 85-90% interpreted; these runs must give leaf() at least 55% in both,
# and leave under 3% not walkable. Interpreted, the rest is loop() at line 14,
# the interpreter's invokestatic before leaf()'s frame exists, a share that
# moves from run to run more than sampling explains: 24 runs at load 0-4 gave
# leaf() 64-90% (the bound of 75% failed at 70-74%); the interpreted check
# that tells the fix apart is the not-walkable share (4-12% before, 0% now).
. "$(dirname "$0")/lib.sh"
share() { # FILE METHOD: its CPU SAMPLES share, all its rows, in %
    cpu_rows "$1" | awk -v m="$2" '$6 == m {sub("%", "", $2); s += $2} END {printf "%.1f", s + 0}'
}
unknown() { # FILE: the share under <unknown frame>, in %
    cpu_rows "$1" | awk '$6 ~ /^<unknown frame>/ {sub("%", "", $2); s += $2} END {printf "%.1f", s + 0}'
}
run_java "cpu=samples,file=$T/c.txt,verbose=y" -XX:CompileCommand=quiet \
    -XX:CompileCommand=dontinline,PrologueHot::leaf PrologueHot
expect_rc 0
expect_grep "PrologueHot done" "$T/out"
expect_grep "named the method at the pc from the code cache" "$T/err"
leaf=$(share "$T/c.txt" PrologueHot.leaf) loop=$(share "$T/c.txt" PrologueHot.loop) unk=$(unknown "$T/c.txt")
note "compiled: leaf $leaf%, loop $loop%, unknown $unk%"
awk -v l="$leaf" -v u="$unk" 'BEGIN { exit !(l >= 55 && u < 3) }' ||
    fail "compiled: leaf() $leaf% (expected >= 55%), not walkable $unk% (expected < 3%)"

run_java "cpu=samples,file=$T/i.txt,verbose=y" -Xint PrologueHot
expect_rc 0
leaf=$(share "$T/i.txt" PrologueHot.leaf) loop=$(share "$T/i.txt" PrologueHot.loop) unk=$(unknown "$T/i.txt")
note "interpreted: leaf $leaf%, loop $loop%, unknown $unk%"
awk -v l="$leaf" -v u="$unk" 'BEGIN { exit !(l >= 55 && u < 3) }' ||
    fail "interpreted: leaf() $leaf% (expected >= 55%), not walkable $unk% (expected < 3%)"
exit 0
