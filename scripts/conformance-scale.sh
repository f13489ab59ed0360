#!/usr/bin/env bash
# The official conformance server suite against a deployment: nginx (round-robin, no stickiness, no
# buffering) in front of 3 instances that share what they must, first of everything-server, then of
# mcp-gateway.
#   0.1.16, every server scenario: handshake-era sessions, SSE event logs and tasks in Redis
#           (`--redis`), so each request may land on any instance;
#   0.2.0-alpha.12, the 2026-07-28 requirement set: the shared MRTR keys (`--state-keys`), and Redis
#           for the tasks (without it the tasks extension's scenarios fail: a task polled on another
#           instance is "not found").
# The gateways (`mcp-gateway --http --redis --state-keys`) front ONE everything-server over Streamable
# HTTP, with its own in-memory state: the tier under test is the gateway's, and what lives behind it
# (an upstream's tasks, resource subscriptions, its session with each gateway) has to be one place that
# every gateway instance reaches. Three upstreams would each need Redis of their own (their sessions,
# tasks and subscriptions), which is the everything-server run above.
# redis-server and nginx come from Debian's packages (installed here when missing). Everything listens
# on 127.0.0.1 and lives in a temporary directory. Exit status 0 = every check passed.
#
# `conformance-scale.sh --serve [--redis] [--gateway]` is the server command itself (run-server.sh
# starts it with PORT set, in its own process group, and stops the group): Redis, the upstream (with
# --gateway), the instances, then nginx on $PORT.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
# MCP_BIN_DIR: where everything-server and mcp-gateway are (default: the release build this script makes).
bin="${MCP_BIN_DIR:-$(cd "${CARGO_TARGET_DIR:-target}" && pwd)/release}"
keys="k1:$(printf '5a%.0s' $(seq 1 32))"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 1 200); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.05; done; echo "nothing listens on $1" >&2; return 1; }

if [ "${1:-}" = "--serve" ]; then
  shift
  use_redis=0 gateway=0
  for a in "$@"; do case "$a" in --redis) use_redis=1;; --gateway) gateway=1;; esac; done
  dir="$(mktemp -d "${TMPDIR:-/tmp}/mcp-scale-XXXXXX")"
  redis_args=()
  if [ $use_redis = 1 ]; then
    rport=$(free_port)
    redis-server --port "$rport" --bind 127.0.0.1 --save "" --appendonly no --dir "$dir" --logfile "$dir/redis.log" &
    wait_port "$rport"
    redis_args=(--redis "redis://127.0.0.1:$rport")
  fi
  if [ $gateway = 1 ]; then
    up=$(free_port)
    PORT=$up "$bin/everything-server" --http 2>"$dir/upstream.log" &
    wait_port "$up"
    printf '{"mcpServers": {"everything": {"url": "http://127.0.0.1:%s/mcp"}}}\n' "$up" >"$dir/gateway.json"
  fi
  servers=""
  for i in 1 2 3; do
    p=$(free_port)
    if [ $gateway = 1 ]; then
      "$bin/mcp-gateway" --config "$dir/gateway.json" --http "127.0.0.1:$p" --state-keys "$keys" "${redis_args[@]}" 2>"$dir/instance-$i.log" &
    else
      PORT=$p "$bin/everything-server" --http --state-keys "$keys" "${redis_args[@]}" 2>"$dir/instance-$i.log" &
    fi
    servers="$servers        server 127.0.0.1:$p max_fails=1 fail_timeout=10s;
"
    wait_port "$p"
  done
  user=""; [ "$(id -u)" = 0 ] && user="user root;"
  cat >"$dir/nginx.conf" <<CONF
$user
daemon off;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/nginx-error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $dir/client_body;
    proxy_temp_path $dir/proxy;
    fastcgi_temp_path $dir/fastcgi;
    uwsgi_temp_path $dir/uwsgi;
    scgi_temp_path $dir/scgi;
    upstream mcp {
$servers        keepalive 32;
    }
    server {
        listen 127.0.0.1:$PORT;
        location / {
            proxy_pass http://mcp;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host \$host;
            proxy_buffering off;
            proxy_cache off;
            proxy_read_timeout 300s;
            proxy_next_upstream error timeout;
        }
    }
}
CONF
  exec "$(command -v nginx || echo /usr/sbin/nginx)" -p "$dir" -e "$dir/nginx-error.log" -c "$dir/nginx.conf"
fi

conf="${MCP_CONFORMANCE_DIR:-$root/../shared/conformance}"
if ! command -v redis-server >/dev/null 2>&1 || { ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; }; then
  echo "installing redis-server and nginx (Debian packages)" >&2
  apt-get install -y -qq redis-server nginx >/dev/null 2>&1 || { apt-get update -qq >/dev/null && apt-get install -y -qq redis-server nginx >/dev/null; }
fi
[ -n "${MCP_BIN_DIR:-}" ] || cargo build --release -p examples --bin everything-server -p mcp-gateway --bin mcp-gateway
export MCP_BIN_DIR="$bin"
out="${TMPDIR:-/tmp}/mcp-conformance-scale-$$"
port="${CONFORMANCE_SCALE_PORT:-3120}"
failed=0
serve=(bash "$root/scripts/conformance-scale.sh" --serve --redis)
# Stateless requests need only the shared MRTR keys, but tasks are state: the tasks extension's
# scenarios poll and cancel on whichever instance nginx picks, so the task store is Redis there too.
for tier in everything-server mcp-gateway; do
  extra=(); [ $tier = mcp-gateway ] && extra=(--gateway)
  echo "=== 0.1.16: server scenarios (all) through nginx, 3 $tier instances, Redis" >&2
  bash "$conf/run-server.sh" -p "$port" -s all -o "$out/$tier" -- "${serve[@]}" "${extra[@]}" || failed=1
  python3 scripts/conformance_checks.py "$out/$tier" || failed=1
  echo "=== 0.2.0-alpha.12: server requirements of 2026-07-28 through nginx, 3 $tier instances, shared MRTR keys, tasks in Redis" >&2
  MCP_CONFORMANCE_VERSION=0.2.0-alpha.12 bash "$conf/run-server.sh" -p "$port" -r 2026-07-28 -o "$out/$tier-2026" -- "${serve[@]}" "${extra[@]}" || failed=1
  python3 scripts/conformance_checks.py "$out/$tier-2026" || failed=1
done
[ $failed = 0 ] && echo "conformance through nginx: every check passed; results under $out" >&2
exit $failed
