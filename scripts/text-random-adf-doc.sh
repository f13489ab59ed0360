#!/usr/bin/env bash
# Writes OUT: the issue's kind of document, random valid ADF of about 4 MB: the blocks of the property tests'
# random schema documents (mcp-text/tests/it/gen.rs, seeds 0-1999, then again) gathered into one document.
# The same document every time. Used by scripts/text-random-adf.sh and scripts/text-json-floor.sh.
# Usage: scripts/text-random-adf-doc.sh OUT
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out=${1:?usage: text-random-adf-doc.sh OUT}
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
(cd "$root" && MCP_TEXT_CLI_INPUTS="$dir/in" cargo test -q -p mcp-text --test it cli_inputs -- --ignored >/dev/null)
python3 - "$dir" "$out" <<'PY'
import glob, json, sys
d, out = sys.argv[1], sys.argv[2]
files = sorted(glob.glob(f"{d}/in/random-*.json"), key=lambda f: int(f.rsplit("-", 1)[1].split(".")[0]))
blocks, size, i = [], 0, 0
while size < 4 << 20:
    for block in json.load(open(files[i % len(files)])).get("content", []):
        size += len(json.dumps(block, separators=(",", ":"))) + 1
        blocks.append(block)
    i += 1
json.dump({"type": "doc", "version": 1, "content": blocks}, open(out, "w"), separators=(",", ":"))
print(f"{out}: {size} bytes of blocks from {i} documents")
PY
