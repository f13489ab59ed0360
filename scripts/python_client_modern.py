"""The Python SDK's client in protocol 2026-07-28 against our everything-server, over stdio or HTTP.

Usage:
  python_client_modern.py stdio SERVER_CMD [ARGS...]
  python_client_modern.py http URL
  python_client_modern.py http-recorded URL   (HTTP, asked only what stdio asks: a replayed stdio session)

Drives what 2026-07-28 changed: server/discover (mode "auto" picks the modern era), multi round-trip
requests answered through the client's callbacks (several rounds, several inputs at once, a prompt),
the -32021 of a missing capability, per-request log levels, caching hints, subscriptions/listen, and
(over HTTP) x-mcp-header arguments mirrored into Mcp-Param headers, one of them not ASCII.
Prints one JSON line of observations; exits non-zero on any failure.
"""
import asyncio
import json
import sys

from mcp import Client, StdioServerParameters, types
from mcp.shared.exceptions import MCPError


def text_of(result) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", None) == "text")


async def elicit(_ctx, params):
    message = params.message
    if "name" in message:
        return types.ElicitResult(action="accept", content={"name": "Ada"})
    if "color" in message:
        return types.ElicitResult(action="accept", content={"color": "teal"})
    if "context" in message:
        return types.ElicitResult(action="accept", content={"context": "tests"})
    return types.ElicitResult(action="accept", content={"ok": True})


async def sample(_ctx, params):
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text="Paris"),
        model="python-test-model",
        stopReason="endTurn",
    )


async def roots(_ctx):
    return types.ListRootsResult(roots=[types.Root(uri="file:///tmp/one", name="one")])


async def main() -> None:
    kind = sys.argv[1]
    target = StdioServerParameters(command=sys.argv[2], args=sys.argv[3:]) if kind == "stdio" else sys.argv[2]
    logs = []

    async def on_log(params):
        logs.append(params.level)

    out = {}
    async with Client(
        target,
        mode="auto",
        elicitation_callback=elicit,
        sampling_callback=sample,
        list_roots_callback=roots,
        logging_callback=on_log,
        log_level="info",
        cache=None,
    ) as client:
        out["protocol_version"] = client.protocol_version
        out["server_name"] = client.server_info.name if client.server_info else None
        tools = await client.list_tools()
        out["tool_count"] = len(tools.tools)
        out["simple"] = text_of(await client.call_tool("test_simple_text", {}))
        out["multi_round"] = text_of(await client.call_tool("test_input_required_result_multi_round", {}))
        out["multiple_inputs"] = text_of(await client.call_tool("test_input_required_result_multiple_inputs", {}))
        out["request_state"] = text_of(await client.call_tool("test_input_required_result_request_state", {}))
        prompt = await client.get_prompt("test_input_required_result_prompt", {})
        out["prompt"] = prompt.messages[0].content.text
        out["logging"] = text_of(await client.call_tool("test_logging_tool", {}))
        out["logs"] = list(logs)
        try:
            await client.read_resource("test://no-such-resource")
            out["missing_resource"] = "no error"
        except MCPError as e:
            out["missing_resource"] = e.code
        # `http-recorded`: an HTTP endpoint serving a recorded stdio session (`mcp-codegen replay --http`),
        # asked the same as over stdio.
        if kind == "http":
            headers = await client.call_tool(
                "test_custom_headers",
                {"region": "Zürich", "priority": 7, "verbose": True, "query": "SELECT 1"},
            )
            out["custom_headers"] = text_of(headers)
        async with client.listen(tools_list_changed=True) as sub:
            out["listen_honored"] = bool(sub.honored.tools_list_changed)
            await client.call_tool("test_trigger_tool_change", {})
            event = await asyncio.wait_for(sub.__anext__(), 10)
            out["listen_event"] = type(event).__name__

    # A client without the sampling capability: the same tool answers -32021.
    async with Client(target, mode="2026-07-28", elicitation_callback=elicit, cache=None) as bare:
        try:
            await bare.call_tool("test_missing_capability", {})
            out["missing_capability"] = "no error"
        except MCPError as e:
            out["missing_capability"] = e.code
            out["required_capabilities"] = (e.error.data or {}).get("requiredCapabilities")
    print(json.dumps(out))


asyncio.run(main())
