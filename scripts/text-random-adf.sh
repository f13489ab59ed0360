#!/usr/bin/env bash
# ADF → Markdown on random valid ADF, the issue's own kind of document: the blocks of the property tests'
# random schema documents (tests/it/gen.rs, seeds 0-1999, then again) gathered into one 4 MB document, then
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
(cd "$root" && MCP_TEXT_CLI_INPUTS="$dir/in" cargo test -q -p mcp-text --test it cli_inputs -- --ignored >/dev/null)
python3 - "$dir" <<'PY'
import glob, json, sys
d = sys.argv[1]
files = sorted(glob.glob(f"{d}/in/random-*.json"), key=lambda f: int(f.rsplit("-", 1)[1].split(".")[0]))
blocks, size, i = [], 0, 0
while size < 4 << 20:
    for block in json.load(open(files[i % len(files)])).get("content", []):
        size += len(json.dumps(block, separators=(",", ":"))) + 1
        blocks.append(block)
    i += 1
json.dump({"type": "doc", "version": 1, "content": blocks}, open(f"{d}/random.json", "w"), separators=(",", ":"))
print(f"random.json: {size} bytes of blocks from {i} documents")
PY
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
