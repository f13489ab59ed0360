"""A scripted MCP server for the CLI tests: `scripted.py MODE`.

pages    - three pages of tools/list joined by nextCursor
loop     - a nextCursor that repeats forever
garbage  - tools/list answered with a result that is not a tool list
exit     - exits right after initialize
"""
import json
import sys

mode = sys.argv[1]


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def tool(name):
    return {"name": name, "description": f"Tool {name}", "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}}}


for line in sys.stdin:
    msg = json.loads(line)
    method, rid = msg.get("method"), msg.get("id")
    if rid is None:
        continue
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "protocolVersion": msg["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "scripted-" + mode, "version": "1.0.0"}}})
        if mode == "exit":
            sys.exit(7)
    elif method == "tools/list":
        cursor = (msg.get("params") or {}).get("cursor")
        if mode == "garbage":
            send({"jsonrpc": "2.0", "id": rid, "result": {"tools": "not a list"}})
        elif mode == "loop":
            send({"jsonrpc": "2.0", "id": rid, "result": {"tools": [tool("again")], "nextCursor": "same"}})
        else:
            page = {None: 0, "p1": 1, "p2": 2}[cursor]
            result = {"tools": [tool(f"t{page}a"), tool(f"t{page}b")]}
            if page < 2:
                result["nextCursor"] = f"p{page + 1}"
            send({"jsonrpc": "2.0", "id": rid, "result": result})
    else:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}})
