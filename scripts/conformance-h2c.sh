#!/usr/bin/env bash
# The official conformance server suite over HTTP/2 without TLS (h2c), with compression on.
#
# The suite's Node client speaks HTTP/1.1 only, so HAProxy (Debian's package) stands between: it takes
# the suite's HTTP/1.1 on the front port and speaks HTTP/2 by prior knowledge to our everything-server
# (`proto h2`, which never falls back to HTTP/1.1: a server that did not speak h2c would fail every
# scenario). HAProxy multiplexes its backend requests, so the suite's concurrent SSE streams share
# HTTP/2 connections. Compression passes through: the suite accepts gzip, our server compresses.
# Exit status 0 = every check passed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
conf="${MCP_CONFORMANCE_DIR:-$PWD/../shared/conformance}"
if ! command -v haproxy >/dev/null 2>&1 && [ ! -x /usr/sbin/haproxy ]; then
  echo "installing haproxy (Debian package)" >&2
  apt-get install -y -qq haproxy >/dev/null 2>&1 || { apt-get update -qq >/dev/null && apt-get install -y -qq haproxy >/dev/null; }
fi
haproxy="$(command -v haproxy || echo /usr/sbin/haproxy)"
# The packages conformance.sh and conformance-scale.sh build: cargo unifies the same features, so CI reuses
# their build rather than compiling 48 crates again for `-p examples` alone (4.5 minutes, LTO included).
cargo build --release -p examples --bin everything-server -p mcp-gateway --bin mcp-gateway
bin="$(cd "${CARGO_TARGET_DIR:-target}" && pwd)/release"
front="${CONFORMANCE_H2C_PORT:-3110}"
back=$((front + 1))
out="${TMPDIR:-/tmp}/mcp-conformance-h2c-$$"
mkdir -p "$out"
cat >"$out/haproxy.cfg" <<CFG
global
    log stderr format short local0 warning
defaults
    mode http
    timeout connect 5s
    timeout client 120s
    timeout server 120s
    timeout http-keep-alive 30s
frontend suite
    bind 127.0.0.1:$front
    default_backend mcp
backend mcp
    server everything 127.0.0.1:$back proto h2
CFG
"$haproxy" -c -q -f "$out/haproxy.cfg"
# run-server.sh starts this command in its own process group (PORT = the front port) and stops the
# group at the end: our server on the back port, HAProxy in front.
front_cmd="PORT=$back '$bin/everything-server' --http --compress & exec '$haproxy' -db -f '$out/haproxy.cfg'"
echo "=== server scenarios (all) over h2c through HAProxy, compressed" >&2
bash "$conf/run-server.sh" -p "$front" -s all -o "$out/server" -- bash -c "$front_cmd"
echo "conformance over h2c: every check passed; results under $out" >&2
