"""The Python SDK's client (`mcp` 2.3) over Streamable HTTP with a bearer token: lists the tools and calls
each tool named on the command line, printing one JSON line of what it saw (a call's text, or its JSON-RPC
error's code and message). The downstream of mcp-gateway/tests/it/gateway_authz.rs.

Usage: python_client_bearer.py URL TOKEN [TOOL ...]
"""
import asyncio
import json
import sys

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError


async def main() -> None:
    url, token, names = sys.argv[1], sys.argv[2], sys.argv[3:]
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
    out = {"calls": {}}
    async with Client(streamable_http_client(url, http_client=http)) as client:
        tools = await client.list_tools()
        out["tools"] = sorted(t.name for t in tools.tools)
        for name in names:
            try:
                r = await client.call_tool(name, {})
                text = "\n".join(c.text for c in r.content if getattr(c, "type", None) == "text")
                out["calls"][name] = {"text": text, "isError": bool(r.is_error)}
            except MCPError as e:
                out["calls"][name] = {"error": {"code": e.code, "message": e.error.message}}
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main())
