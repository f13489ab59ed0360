#!/usr/bin/env python3
"""CPU and wall time of `mcp-text convert --from F --to markdown` for several builds, interleaved, best of N.

    python3 scripts/text-cpu.py 15 main=/path/to/main/mcp-text new=target/release/mcp-text -- \
        adf:target/text-bench/jira.json storage:target/text-bench/confluence.xml html:target/text-bench/page.html

Each run is a whole process with stdout to /dev/null; its user + system time, peak RSS and minor faults come
from wait4's rusage, its wall time from the clock around fork and wait (the best of each taken apart: the
CLI runs two threads for ADF, so its wall time is less than its CPU time). Interleaving the builds run by run keeps a busy machine's drift out of the ratio.
"""
import os
import sys
import time

args = sys.argv[1:]
runs = int(args.pop(0))
sep = args.index("--")
builds = [a.split("=", 1) for a in args[:sep]]
docs = [a.split(":", 1) for a in args[sep + 1 :]]
for fmt, path in docs:
    best = {}
    wall = {}
    for _ in range(runs):
        for name, binary in builds:
            devnull = os.open("/dev/null", os.O_WRONLY)
            start = time.perf_counter()
            pid = os.fork()
            if pid == 0:
                os.dup2(devnull, 1)
                os.execv(binary, [binary, "convert", "--from", fmt, "--to", "markdown", path])
            _, _, ru = os.wait4(pid, 0)
            elapsed = (time.perf_counter() - start) * 1000
            wall[name] = min(wall.get(name, elapsed), elapsed)
            os.close(devnull)
            cpu = (ru.ru_utime + ru.ru_stime) * 1000
            if name not in best or cpu < best[name][0]:
                best[name] = (cpu, ru.ru_maxrss / 1024, ru.ru_minflt)
    print(
        f"{fmt:8}"
        + "".join(
            f" | {name}: {best[name][0]:6.1f} ms CPU, {wall[name]:6.1f} ms wall, peak {best[name][1]:.1f} MB,"
            f" {best[name][2]} faults"
            for name, _ in builds
        )
    )
