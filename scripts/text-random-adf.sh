#!/usr/bin/env bash
# ADF → Markdown on random valid ADF, the issue's own kind of document: the blocks of the property tests'
# random schema documents (tests/it/gen.rs, seeds 0-1999, then again) gathered into one 4 MB document, then
# our CLI (best wall of RUNS, scripts/text-cpu.py) beside npm adf-to-md's in-process loop (best of RUNS,
# mcp-text/bench/adf_to_md.js, as the bench runs it). Needs scripts/install-text-corpora.sh and a release
# build. Usage: scripts/text-random-adf.sh [RUNS] [BUILD=PATH ...]
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
python3 "$root/scripts/text-cpu.py" "$runs" "${builds[@]}" -- "adf:$dir/random.json" | tr '|' '\n'
echo "npm adf-to-md: $(node "$root/mcp-text/bench/adf_to_md.js" "$dir/random.json" "$dir/adf-to-md.md" "$runs")"
