#!/usr/bin/env bash
# The official MCP conformance suite against our everything-server (server scenarios, over Streamable
# HTTP) and our conformance-client (client scenarios), in both suite versions:
#   0.1.16          every server scenario with SSE answers (the default) and with JSON answers (`--json`;
#                   the SSE-polling scenario reports INFO there, as it needs SSE), and through mcp-gateway
#                   (everything-server behind it over stdio); the core client suite.
#   0.2.0-alpha.12  the server requirement sets of 2026-07-28 and 2025-11-25 (2026-07-28 through mcp-gateway
#                   too); the skills extension's
#                   server scenarios (sep-2640-*); the client requirement set of 2026-07-28 and the
#                   skills extension's client scenarios (sep-2640-client-*).
# After each run scripts/conformance_checks.py reads every checks.json: a run passes only if no check
# failed, including the scenarios the suite itself does not score (extensions, pending ones).
# Needs ../shared/conformance (or $MCP_CONFORMANCE_DIR), which installs the suites and Node 22 from npm.
# Exit status 0 = every check passed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
conf="${MCP_CONFORMANCE_DIR:-$PWD/../shared/conformance}"
[ -f "$conf/run-server.sh" ] || { echo "conformance: $conf/run-server.sh not found (the shared conformance scripts)" >&2; exit 2; }
cargo build --release -p examples --bin everything-server --bin conformance-client -p mcp-gateway --bin mcp-gateway
bin="$(cd "${CARGO_TARGET_DIR:-target}" && pwd)/release"
out="${TMPDIR:-/tmp}/mcp-conformance-$$"
port="${CONFORMANCE_PORT:-3100}"
failed=0
check() { python3 scripts/conformance_checks.py "$1" || failed=1; }

echo "=== 0.1.16: server scenarios (all)" >&2
bash "$conf/run-server.sh" -p "$port" -s all -o "$out/server" -- "$bin/everything-server" --http || failed=1
check "$out/server"
echo "=== 0.1.16: server scenarios (all), JSON answers" >&2
bash "$conf/run-server.sh" -p "$port" -s all -o "$out/server-json" -- "$bin/everything-server" --http --json || failed=1
check "$out/server-json"
echo "=== 0.1.16: server scenarios (all) through mcp-gateway, everything-server behind it over stdio" >&2
mkdir -p "$out"
printf '{"mcpServers": {"everything": {"command": "%s", "args": []}}}\n' "$bin/everything-server" >"$out/gateway.json"
bash "$conf/run-server.sh" -p "$port" -s all -o "$out/server-gateway" -- "$bin/mcp-gateway" --config "$out/gateway.json" --http "127.0.0.1:$port" || failed=1
check "$out/server-gateway"
echo "=== 0.1.16: client core suite" >&2
bash "$conf/conformance.sh" client --command "$bin/conformance-client" --suite core -o "$out/client" || failed=1
check "$out/client"

export MCP_CONFORMANCE_VERSION=0.2.0-alpha.12
for rev in 2026-07-28 2025-11-25; do
  echo "=== 0.2.0-alpha.12: server requirements of $rev" >&2
  bash "$conf/run-server.sh" -p "$port" -r "$rev" -o "$out/server-$rev" -- "$bin/everything-server" --http || failed=1
  check "$out/server-$rev"
done
echo "=== 0.2.0-alpha.12: server requirements of 2026-07-28 through mcp-gateway, everything-server behind it over stdio" >&2
bash "$conf/run-server.sh" -p "$port" -r 2026-07-28 -o "$out/server-2026-gateway" -- "$bin/mcp-gateway" --config "$out/gateway.json" --http "127.0.0.1:$port" || failed=1
check "$out/server-2026-gateway"
# The skills extension (SEP-2640): scenarios no requirement set lists. They skip every check when the
# extension is undeclared, so a skipped check fails here, and so does a warning (a SHOULD missed).
for scen in sep-2640-skills-directory sep-2640-skills-enumeration sep-2640-skills-manifest; do
  echo "=== 0.2.0-alpha.12: $scen" >&2
  bash "$conf/run-server.sh" -p "$port" -S "$scen" -o "$out/$scen" -- "$bin/everything-server" --http || failed=1
  python3 scripts/conformance_checks.py "$out/$scen" --strict --no-skipped || failed=1
done
unset MCP_CONFORMANCE_VERSION

# --- Client, 0.2.0-alpha.12 (conformance-client; the 0.1.16 core client suite runs above) --------------
# The client requirement set of 2026-07-28 (the suite runs the authorization extensions with it: client
# credentials, enterprise-managed, DPoP, workload identity), then the extension scenarios it does not
# list: the skills extension's client rules.
export MCP_CONFORMANCE_VERSION=0.2.0-alpha.12
echo "=== 0.2.0-alpha.12: client requirements of 2026-07-28" >&2
bash "$conf/conformance.sh" client --command "$bin/conformance-client" --requirements 2026-07-28 -o "$out/client-2026" || failed=1
check "$out/client-2026"
for s in sep-2640-client-no-prefetch sep-2640-client-verify-digest sep-2640-client-verify-size sep-2640-client-verify-frontmatter; do
  echo "=== 0.2.0-alpha.12: client scenario $s" >&2
  bash "$conf/conformance.sh" client --command "$bin/conformance-client" --scenario "$s" -o "$out/client-ext" || failed=1
done
# A skipped check means the client never exercised the rule: it fails here too.
python3 scripts/conformance_checks.py "$out/client-ext" --strict --no-skipped || failed=1
unset MCP_CONFORMANCE_VERSION
# --- end of the client block ----------------------------------------------------------------------------

if [ "$failed" = 0 ]; then
  echo "conformance: every check passed; results under $out" >&2
else
  echo "conformance: FAILED (see above); results under $out" >&2
fi
exit "$failed"
