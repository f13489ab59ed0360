#!/usr/bin/env bash
# ADF → Markdown on random valid ADF, the issue's own kind of document (scripts/text-random-adf-doc.sh): then
# our CLI (best wall of RUNS, scripts/text-cpu.py) beside npm adf-to-md's in-process loop (best of RUNS,
# mcp-text/bench/adf_to_md.js, as the bench runs it), in ROUNDS rounds (default 1) one after the other, so
# that a busy moment slows both sides of a round rather than all the runs of one; each round's figures
# and the best of each side over the rounds. Needs scripts/install-text-corpora.sh and a release build.
# Usage: [ROUNDS=R] scripts/text-random-adf.sh [RUNS] [BUILD=PATH ...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs=${1:-21}; shift || true
builds=("$@"); [ ${#builds[@]} -gt 0 ] || builds=("ours=$root/target/release/mcp-text")
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
bash "$root/scripts/text-random-adf-doc.sh" "$dir/random.json"
for round in $(seq "${ROUNDS:-1}"); do
  echo "round $round"
  python3 "$root/scripts/text-cpu.py" "$runs" "${builds[@]}" -- "adf:$dir/random.json" | tr '|' '\n' |
    tee -a "$dir/ours"
  node "$root/mcp-text/bench/adf_to_md.js" "$dir/random.json" "$dir/adf-to-md.md" "$runs" |
    sed 's/^/ npm adf-to-md: /' | tee -a "$dir/theirs"
done
python3 - "$dir" <<'PY'
import re, sys
d = sys.argv[1]
best = {}
for line in open(f"{d}/ours"):
    m = re.match(r"\s*(\S+):\s+[\d.]+ ms CPU,\s+([\d.]+) ms wall", line)
    if m:
        best[m[1]] = min(best.get(m[1], 1e9), float(m[2]))
theirs = min(float(re.search(r'"best_s":([\d.e-]+)', l)[1]) * 1000 for l in open(f"{d}/theirs"))
print(f"best over the rounds: npm adf-to-md {theirs:.1f} ms", end="")
for name, ms in best.items():
    print(f"; {name} {ms:.1f} ms wall ({theirs / ms:.2f}x adf-to-md)", end="")
print()
PY
