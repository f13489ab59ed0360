#!/usr/bin/env bash
# Installs the real peers the tests talk to, from the npm registry and PyPI, under .peers/ (git-ignored):
#   .peers/node/node_modules/.bin/{mcp-server-everything,mcp-inspector-cli}
#   .peers/node/node_modules/@modelcontextprotocol/client (the TypeScript SDK v2 client, 2026-07-28)
#   .peers/py/bin/python with the Python SDK (`mcp`)
# Idempotent; prints nothing but errors unless something is installed.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
P="$root/.peers"
mkdir -p "$P/node"
if [ ! -x "$P/node/node_modules/.bin/mcp-server-everything" ] || [ ! -x "$P/node/node_modules/.bin/mcp-inspector-cli" ] ||
   [ ! -f "$P/node/node_modules/@modelcontextprotocol/client/package.json" ]; then
  (cd "$P/node" && { [ -f package.json ] || echo '{"private":true}' > package.json; } &&
    npm install --no-fund --no-audit --loglevel=error \
      @modelcontextprotocol/server-everything@2026.8.31 @modelcontextprotocol/inspector-cli@1.0.3 \
      @modelcontextprotocol/client@2.4.0 >&2)
fi
if [ ! -x "$P/py/bin/python" ] || ! "$P/py/bin/python" -c 'import mcp' 2>/dev/null; then
  python3 -m venv "$P/py"
  "$P/py/bin/pip" install --quiet --disable-pip-version-check 'mcp==2.3.0' >&2
fi
