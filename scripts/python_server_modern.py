"""A Python SDK (`mcp` 2.3) server that our client drives in protocol 2026-07-28 (examples/tests/it/modern_client_peers.rs).

    python python_server_modern.py stdio
    python python_server_modern.py http PORT

Tools ask for input the 2026 way: on the first round they return an `InputRequiredResult`
(elicitation, sampling or roots, with a `requestState`), and complete when the client retries with the
answers. `two_rounds` asks twice. `touch` announces a tools/list change on `subscriptions/listen`
streams; `chatty` logs at info and debug.
"""

import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import (
    CallToolResult,
    CreateMessageRequest,
    CreateMessageRequestParams,
    ElicitRequest,
    ElicitRequestFormParams,
    InputRequiredResult,
    ListRootsRequest,
    SamplingMessage,
    TextContent,
)

mcp = MCPServer(name="python-modern-peer", version="2.3-test", instructions="A peer for the Rust client.")


def text(s: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(text=s)])


def answer(ctx: Context, key: str):
    responses = ctx.input_responses or {}
    r = responses.get(key)
    if r is None:
        return None
    return r if isinstance(r, dict) else r.model_dump(mode="json", by_alias=True, exclude_none=True)


def elicit(key: str, message: str) -> ElicitRequest:
    return ElicitRequest(
        params=ElicitRequestFormParams(
            message=message,
            requested_schema={"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]},
        )
    )


@mcp.tool()
def echo(message: str) -> str:
    """Echo the message back."""
    return f"echo: {message}"


@mcp.tool()
def confirm_delete(filename: str, ctx: Context) -> CallToolResult | InputRequiredResult:
    """Delete a file after the user confirms (elicitation through MRTR)."""
    a = answer(ctx, "confirm")
    if a is None:
        return InputRequiredResult(
            input_requests={"confirm": elicit("confirm", f"Delete {filename}?")},
            request_state=f"delete:{filename}",
        )
    if ctx.request_state != f"delete:{filename}":
        return text(f"bad state {ctx.request_state!r}")
    ok = a.get("action") == "accept" and (a.get("content") or {}).get("confirm") is True
    return text(f"deleted {filename}" if ok else f"kept {filename}")


@mcp.tool()
def ask_model(question: str, ctx: Context) -> CallToolResult | InputRequiredResult:
    """Ask the client's model (sampling through MRTR)."""
    a = answer(ctx, "llm")
    if a is None:
        return InputRequiredResult(
            input_requests={
                "llm": CreateMessageRequest(
                    params=CreateMessageRequestParams(
                        messages=[SamplingMessage(role="user", content=TextContent(text=question))],
                        max_tokens=50,
                    )
                )
            }
        )
    return text(f"model said: {a['content']['text']}")


@mcp.tool()
def my_roots(ctx: Context) -> CallToolResult | InputRequiredResult:
    """List the client's roots (roots/list through MRTR)."""
    a = answer(ctx, "roots")
    if a is None:
        return InputRequiredResult(input_requests={"roots": ListRootsRequest()}, request_state="roots")
    return text(",".join(r["uri"] for r in a["roots"]))


@mcp.tool()
def two_rounds(ctx: Context) -> CallToolResult | InputRequiredResult:
    """Asks once, then again, then answers: the state carries the round."""
    state = ctx.request_state or "0"
    if state == "0":
        return InputRequiredResult(input_requests={"first": elicit("first", "First?")}, request_state="1")
    if state == "1":
        if answer(ctx, "first") is None:
            return text("round 2 came without the first answer")
        return InputRequiredResult(input_requests={"second": elicit("second", "Second?")}, request_state="2")
    if answer(ctx, "second") is None or answer(ctx, "first") is not None:
        return text("round 3 carried the wrong answers")
    return text("two rounds done")


@mcp.tool()
async def touch(ctx: Context) -> str:
    """Announce that the tool list changed."""
    await ctx.notify_tools_changed()
    return "touched"


@mcp.tool()
async def chatty(ctx: Context) -> str:
    """Log at info and debug, then answer."""
    await ctx.log("info", "an info line")
    await ctx.log("debug", "a debug line")
    return "said things"


@mcp.resource("test://static", mime_type="text/plain")
def static() -> str:
    """A static resource."""
    return "static content"


@mcp.prompt()
def greet(name: str) -> str:
    """Greet someone."""
    return f"Hello, {name}!"


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        mcp.run("stdio")
    else:
        import anyio

        anyio.run(lambda: mcp.run_streamable_http_async(host="127.0.0.1", port=int(sys.argv[2])))
