# A deliberately bad MCP server over stdio, for the gateway's fault tests (python3 fake_server.py MODE):
#   stderr-then-die   answers until a `tools/call`, then writes to stderr and exits with status 3
#   garbage-init      answers `initialize` with a line that is not JSON
#   garbage-call      answers `tools/call` with a truncated line, then with a result of the wrong shape
#   flood             sends 20000 log messages and 20000 progress notifications before each result
#   leak              sends a log message and a progress message carrying $API_TOKEN before each result
import json
import os
import sys

mode = sys.argv[1]
calls = 0


def send(o):
    sys.stdout.write(json.dumps(o) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if "id" not in m or "method" not in m:
        continue
    mid, method = m["id"], m["method"]
    if method == "initialize":
        if mode == "garbage-init":
            sys.stdout.write("this is not JSON at all\n")
            sys.stdout.flush()
            continue
        send({"jsonrpc": "2.0", "id": mid, "result": {
            "protocolVersion": m["params"]["protocolVersion"],
            "capabilities": {"tools": {}, "logging": {}},
            "serverInfo": {"name": "fake-" + mode, "version": "0"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": mid, "result": {"tools": [
            {"name": "work", "inputSchema": {"type": "object"}}]}})
    elif method == "tools/call":
        calls += 1
        if mode == "stderr-then-die":
            sys.stderr.write("fatal: the disk is on fire\n")
            sys.stderr.flush()
            sys.exit(3)
        elif mode == "garbage-call" and calls == 1:
            sys.stdout.write('{"jsonrpc":"2.0","id":%s,"result":\n' % json.dumps(mid))
            sys.stdout.flush()
        elif mode == "garbage-call":
            send({"jsonrpc": "2.0", "id": mid, "result": "not a tool result"})
        else:
            token = (m["params"].get("_meta") or {}).get("progressToken")
            if mode == "flood":
                for i in range(20000):
                    send({"jsonrpc": "2.0", "method": "notifications/message",
                          "params": {"level": "info", "data": "flood %d" % i}})
                    if token is not None:
                        send({"jsonrpc": "2.0", "method": "notifications/progress",
                              "params": {"progressToken": token, "progress": i}})
            if mode == "leak":
                secret = os.environ.get("API_TOKEN", "")
                send({"jsonrpc": "2.0", "method": "notifications/message",
                      "params": {"level": "warning", "logger": "auth " + secret,
                                 "data": {"note": "using token " + secret, "token": secret}}})
                if token is not None:
                    send({"jsonrpc": "2.0", "method": "notifications/progress",
                          "params": {"progressToken": token, "progress": 1, "message": "sent " + secret}})
            send({"jsonrpc": "2.0", "id": mid, "result": {
                "content": [{"type": "text", "text": "done after %d calls" % calls}]}})
    elif method == "ping" or method == "logging/setLevel":
        send({"jsonrpc": "2.0", "id": mid, "result": {}})
    else:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "Method not found: " + method}})
