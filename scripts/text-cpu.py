#!/usr/bin/env python3
"""CPU and wall time of `mcp-text convert --from F --to markdown` for several builds, interleaved, best of N.

    python3 scripts/text-cpu.py 15 main=/path/to/main/mcp-text new=target/release/mcp-text -- \
        adf:target/text-bench/jira.json storage:target/text-bench/confluence.xml html:target/text-bench/page.html

Each run is a whole process with stdout to /dev/null, spawned as the bench spawns it (`posix_spawn`, which
is vfork and exec, as Rust's `Command` and Python's `subprocess` do; a plain fork of this interpreter would
copy its page tables first and add about 1.4 ms to every run here). Its user + system time and minor faults
come from wait4's rusage, its wall time from the clock around the spawn and the wait: the best of each,
taken apart (the CLI runs two threads for ADF, so its wall time is less than its CPU time), and the median
wall time, what a user typically waits. Its peak RSS comes from one more run under GNU time (`/usr/bin/time
-f %M`), a small process: a child spawned from this interpreter would report the interpreter's resident size
as its own peak. Interleaving the builds run by run keeps a busy machine's drift out of the ratio.
"""
import os
import statistics
import subprocess
import sys
import time

args = sys.argv[1:]
runs = int(args.pop(0))
sep = args.index("--")
builds = [a.split("=", 1) for a in args[:sep]]
docs = [a.split(":", 1) for a in args[sep + 1 :]]
to_null = [(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)]


def peak_mb(argv):
    """The peak RSS of one run under GNU time, in MB, or None where there is no GNU time."""
    try:
        done = subprocess.run(
            ["/usr/bin/time", "-f", "%M", *argv],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        return int(done.stderr.strip().splitlines()[-1]) / 1024
    except (OSError, ValueError, IndexError):
        return None


for fmt, path in docs:
    best = {}
    walls = {}
    for _ in range(runs):
        for name, binary in builds:
            argv = [binary, "convert", "--from", fmt, "--to", "markdown", path]
            start = time.perf_counter()
            pid = os.posix_spawn(binary, argv, os.environ, file_actions=to_null)
            _, _, ru = os.wait4(pid, 0)
            elapsed = (time.perf_counter() - start) * 1000
            walls.setdefault(name, []).append(elapsed)
            cpu = (ru.ru_utime + ru.ru_stime) * 1000
            if name not in best or cpu < best[name][0]:
                best[name] = (cpu, ru.ru_minflt)
    peaks = {
        name: peak_mb([binary, "convert", "--from", fmt, "--to", "markdown", path])
        for name, binary in builds
    }
    print(
        f"{fmt:8}"
        + "".join(
            f" | {name}: {best[name][0]:6.1f} ms CPU, {min(walls[name]):6.1f} ms wall"
            + f" (median {statistics.median(walls[name]):.1f}), "
            + (f"peak {peaks[name]:.1f} MB," if peaks[name] is not None else "peak ? MB,")
            + f" {best[name][1]} faults"
            for name, _ in builds
        )
    )
