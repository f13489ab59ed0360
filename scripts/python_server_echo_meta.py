"""A Python SDK (`mcp` 2.3) server over stdio whose tool `echo_meta` answers with the `_meta` of the request it
received, as JSON text: an upstream that shows what the gateway sent it (mcp-gateway/tests/it/gateway_trace.rs).

    python python_server_echo_meta.py
"""

import json

from mcp.server.mcpserver import Context, MCPServer

mcp = MCPServer(name="python-echo-meta", version="2.3-test")


def plain(meta):
    if meta is None:
        return {}
    if isinstance(meta, dict):
        return meta
    return meta.model_dump(mode="json", by_alias=True, exclude_none=True)


@mcp.tool()
def echo_meta(ctx: Context) -> str:
    """Return the request's _meta as JSON."""
    return json.dumps(plain(ctx.request_context.meta), sort_keys=True)


if __name__ == "__main__":
    mcp.run("stdio")
