#!/usr/bin/env python3
"""What one large message costs a stdio server: page faults and CPU time per 1 MiB `echo`.

Usage: python3 scripts/large-echo.py [N] -- SERVER [ARGS...]
  e.g. cargo build --release -p examples --bin bench-server
       python3 scripts/large-echo.py 200 -- target/release/bench-server

Sends N sequential `tools/call echo` requests of 1 MiB of text (after the handshake), checks each answer
carries the text back, closes stdin, waits for the server to exit and prints the server's minor page
faults and user+system CPU time (getrusage of the child), in total and per call. Every fault is a page
the allocator took fresh from the kernel (zeroed); a server that keeps its large buffers warm shows few.
"""
import json
import os
import resource
import subprocess
import sys


def main() -> None:
    args = sys.argv[1:]
    if "--" not in args:
        sys.exit(__doc__)
    at = args.index("--")
    n = int(args[0]) if at > 0 else 100
    cmd = args[at + 1 :]
    if not cmd:
        sys.exit("large-echo.py: no server command after --")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def send(msg: dict) -> None:
        p.stdin.write((json.dumps(msg) + "\n").encode())
        p.stdin.flush()

    send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "large-echo", "version": "1"}}})
    if b'"result"' not in p.stdout.readline():
        sys.exit("large-echo.py: the server did not answer initialize")
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    text = "x" * (1024 * 1024)
    for i in range(n):
        send({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
              "params": {"name": "echo", "arguments": {"text": text}}})
        line = p.stdout.readline()
        if len(line) <= len(text) or text[:64].encode() not in line:
            sys.exit(f"large-echo.py: call {i + 1} was not answered with its text: {line[:200]!r}")
    p.stdin.close()
    if p.wait() != 0:
        sys.exit(f"large-echo.py: the server exited with {p.returncode}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    faults = after.ru_minflt - before.ru_minflt
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"{n} calls of 1 MiB: {faults} minor page faults ({faults / n:.0f} per call), "
          f"server CPU {cpu * 1000:.0f} ms ({cpu * 1000 / n:.2f} ms per call)")


if __name__ == "__main__":
    main()
