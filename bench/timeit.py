#!/usr/bin/env python3
"""timeit.py OUT -- CMD ARGS...: runs CMD (stdin/stdout/stderr inherited),
then writes "wall user sys" in seconds to OUT: the wall time and the CPU time
the command and its children used. Exits with the command's status."""
import os
import resource
import subprocess
import sys
import time

out, cmd = sys.argv[1], sys.argv[3:]
t0 = time.monotonic()
rc = subprocess.call(cmd)
wall = time.monotonic() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(out, "w") as f:
    f.write("%.3f %.3f %.3f\n" % (wall, ru.ru_utime, ru.ru_stime))
sys.exit(rc if rc >= 0 else 128 - rc)
