#!/usr/bin/env python3
"""timeit.py OUT -- CMD ARGS...: runs CMD (stdin/stdout/stderr inherited),
then writes "wall user sys prof" in seconds to OUT: the wall time, the CPU time
the command and its children used, and the CPU time of the command's threads
whose names match $PROFILER_THREADS (a regular expression; default: JDK Flight
Recorder's and jvmprof's own threads), read from /proc/PID/task/*/stat every
0.1 s while it runs (the last tenth of a second of each such thread is missed).
Exits with the command's status."""
import os
import re
import resource
import subprocess
import sys
import time

out, cmd = sys.argv[1], sys.argv[3:]
pattern = re.compile(os.environ.get("PROFILER_THREADS", r"^(JFR |jvmprof)"))
tick = os.sysconf("SC_CLK_TCK")
t0 = time.monotonic()
proc = subprocess.Popen(cmd)
seen = {}  # tid -> CPU ticks of a matching thread, at the last look


def look(pid):
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return
    for tid in tids:
        try:
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                stat = f.read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        if pattern.search(name):
            fields = stat[stat.rindex(")") + 2:].split()
            seen[tid] = int(fields[11]) + int(fields[12])  # utime, stime


while proc.poll() is None:
    look(proc.pid)
    time.sleep(0.1)
rc = proc.returncode
wall = time.monotonic() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(out, "w") as f:
    f.write("%.3f %.3f %.3f %.3f\n" % (wall, ru.ru_utime, ru.ru_stime, sum(seen.values()) / tick))
sys.exit(rc if rc >= 0 else 128 - rc)
