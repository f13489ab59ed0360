#!/usr/bin/env python3
"""Reads the checks.json files a conformance run wrote under DIR, prints the counts and every check that
did not pass (FAILURE, or WARNING with --strict, or SKIPPED with --no-skipped), and exits 1 if any did.

The suite's own exit status ignores scenarios it does not score for a requirement set (extensions,
pending ones); this script counts every check, so that nothing fails silently.
usage: conformance_checks.py DIR [--strict] [--no-skipped]
"""
import glob
import json
import os
import sys

root = sys.argv[1]
strict = "--strict" in sys.argv
# A scenario that skips its checks when a feature is undeclared would pass silently without --no-skipped.
no_skipped = "--no-skipped" in sys.argv
bad_status = {"FAILURE"} | ({"WARNING"} if strict else set()) | ({"SKIPPED"} if no_skipped else set())
counts = {}
bad = []
for f in sorted(glob.glob(os.path.join(root, "**", "checks.json"), recursive=True)):
    data = json.load(open(f))
    checks = data if isinstance(data, list) else data.get("checks", [])
    scenario = os.path.basename(os.path.dirname(f))
    for c in checks:
        st = c.get("status", "?")
        counts[st] = counts.get(st, 0) + 1
        if st in bad_status:
            bad.append(f"{scenario}: {c.get('id')} {st}: {(c.get('errorMessage') or '')[:300]}")
print(f"{root}: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())), file=sys.stderr)
for line in bad:
    print("  " + line, file=sys.stderr)
if not counts:
    print(f"{root}: no checks found", file=sys.stderr)
    sys.exit(1)
sys.exit(1 if bad else 0)
