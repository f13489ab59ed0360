#!/usr/bin/env bash
# Installs the real peers the tests talk to, from the npm registry and PyPI, under .peers/ (git-ignored):
#   .peers/node/node_modules/.bin/{mcp-server-everything,mcp-inspector-cli}
#   .peers/node/node_modules/@modelcontextprotocol/client (the TypeScript SDK v2 client, 2026-07-28)
#   .peers/py/bin/python with the Python SDK (`mcp`)
# With the argument `bench`, also the proxies the gateway benchmark compares against (not needed by tests):
#   .peers/fastmcp/bin/python with FastMCP (PyPI `fastmcp`, its own venv: it pins its own `mcp`)
#   .peers/bench/node_modules/mcp-proxy (npm)
#   .peers/bench/cargo/bin/mcp-proxy (crates.io `mcp-proxy` 0.6.0, the tower-mcp gateway, built by cargo)
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
if [ "${1:-}" = bench ]; then
  if [ ! -x "$P/fastmcp/bin/python" ] || ! "$P/fastmcp/bin/python" -c 'import fastmcp' 2>/dev/null; then
    python3 -m venv "$P/fastmcp"
    "$P/fastmcp/bin/pip" install --quiet --disable-pip-version-check 'fastmcp==4.1.2' >&2
  fi
  if [ ! -f "$P/bench/node_modules/mcp-proxy/package.json" ]; then
    mkdir -p "$P/bench"
    (cd "$P/bench" && { [ -f package.json ] || echo '{"private":true}' > package.json; } &&
      npm install --no-fund --no-audit --loglevel=error mcp-proxy@6.7.19 >&2)
  fi
  if [ ! -x "$P/bench/cargo/bin/mcp-proxy" ]; then
    cargo install --quiet mcp-proxy --version 0.6.0 --no-default-features --locked --root "$P/bench/cargo" >&2
  fi
fi
