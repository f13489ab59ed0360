"""The Python SDK's client (`mcp` 2.3, handshake era) through one session of everything a recording must
carry, against npm server-everything or anything that stands in for it (`mcp-codegen record`/`replay`).

Usage: python_client_recorded.py SERVER_CMD [ARGS...]
       python_client_recorded.py http://HOST:PORT/mcp     (Streamable HTTP, e.g. `mcp-codegen replay --http`)

Lists the tools, calls echo and get-sum, a long-running operation with progress, a tool that asks for
sampling and one that asks for elicitation (both answered here), starts a long operation and cancels it,
then calls echo again. Prints one JSON line of observations; exits non-zero on any failure.
"""
import asyncio
import json
import sys

from mcp import Client, StdioServerParameters, types


def text_of(result) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", None) == "text")


async def sample(_ctx, params):
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text="Paris"),
        model="python-test-model",
        stopReason="endTurn",
    )


async def elicit(_ctx, params):
    return types.ElicitResult(action="accept", content={"name": "Ada", "color": "teal"})


async def main() -> None:
    target = sys.argv[1]
    params = target if target.startswith("http") else StdioServerParameters(command=target, args=sys.argv[2:])
    progress = []

    async def on_progress(done, total, message):
        progress.append([done, total])

    out = {}
    async with Client(params, mode="legacy", sampling_callback=sample, elicitation_callback=elicit) as client:
        out["server"] = client.server_info.name if client.server_info else None
        tools = await client.list_tools()
        out["tools"] = sorted(t.name for t in tools.tools)
        out["echo"] = text_of(await client.call_tool("echo", {"message": "héllo"}))
        out["sum"] = text_of(await client.call_tool("get-sum", {"a": 2, "b": 3}))
        long = await client.call_tool(
            "trigger-long-running-operation", {"duration": 0.3, "steps": 3}, progress_callback=on_progress
        )
        out["long"] = text_of(long)
        out["progress"] = progress
        out["sampling"] = text_of(await client.call_tool("trigger-sampling-request", {"prompt": "Capital of France?"}))
        elicited = await client.call_tool("trigger-elicitation-request", {})
        out["elicitation"] = text_of(elicited)
        slow = asyncio.create_task(client.call_tool("trigger-long-running-operation", {"duration": 5, "steps": 5}))
        await asyncio.sleep(0.5)
        slow.cancel()
        try:
            await slow
            out["cancelled"] = False
        except asyncio.CancelledError:
            out["cancelled"] = True
        out["after_cancel"] = text_of(await client.call_tool("echo", {"message": "still here"}))
    print(json.dumps(out, ensure_ascii=False))


asyncio.run(main())
