"""The Python SDK's high-level client, in its default mode, against a stdio server of ours.

Usage: python_client.py SERVER_CMD [ARGS...]
Prints one JSON line: the tool names, and the results of add(2, 3) and echo("héllo").
Exits non-zero on any failure.
"""
import asyncio
import json
import sys

from mcp import Client, StdioServerParameters


async def main() -> None:
    params = StdioServerParameters(command=sys.argv[1], args=sys.argv[2:])
    async with Client(params) as client:
        tools = await client.list_tools()
        added = await client.call_tool("add", {"a": 2, "b": 3})
        echoed = await client.call_tool("echo", {"text": "héllo"})
        bad = await client.call_tool("add", {"a": "two", "b": 3})
        print(json.dumps({
            "tools": [t.name for t in tools.tools],
            "add": added.content[0].text,
            "echo": echoed.content[0].text,
            "bad_is_error": bool(bad.is_error),
        }))


asyncio.run(main())
