"""A Python SDK (`mcp` 2.3) server over stdio that says whose child it is: its tool `whoami` answers with
the CALLER and CALLER_TOKEN variables of its environment and its process id, as JSON text. Beside it, a
tool, a prompt and a resource whose names say they are secret, for rules to hide. The per-user upstream
of mcp-gateway/tests/it/gateway_authz.rs.

    CALLER=alice python python_server_whoami.py
"""

import json
import os

from mcp.server.mcpserver import MCPServer

mcp = MCPServer(name="python-whoami", version="2.3-test")


@mcp.tool()
def whoami() -> str:
    """Who this child was started for."""
    return json.dumps({"caller": os.environ.get("CALLER"), "token": os.environ.get("CALLER_TOKEN"),
                       "pid": os.getpid()})


@mcp.tool()
def secret_plan() -> str:
    """Only some may call this."""
    return "the plan"


@mcp.prompt()
def secret_prompt() -> str:
    """A prompt only some may get."""
    return "psst"


@mcp.resource("memo://secret")
def secret_memo() -> str:
    """A memo only some may read."""
    return "the memo"


@mcp.resource("memo://public")
def public_memo() -> str:
    """A memo everyone may read."""
    return "hello"


if __name__ == "__main__":
    mcp.run("stdio")
