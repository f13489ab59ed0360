"""A Python SDK (`mcp` 2.3) server over stdio that says whose child it is: its tool `whoami` answers with
the CALLER and CALLER_TOKEN variables of its environment, the SHA-256 of the token and its process id, as
JSON text (a gateway must redact the token; the digest shows the child had it); `whoami(leak="result")`
fails with the token in its tool error, `whoami(leak="error")` in a JSON-RPC error; `whoami(wait=S)`
answers after S seconds (a busy child). Beside it, a
tool, a prompt and a resource whose names say they are secret, for rules to hide. The per-user upstream
of mcp-gateway/tests/it/gateway_authz.rs.

    CALLER=alice python python_server_whoami.py
"""

import hashlib
import json
import os

import anyio
from mcp import MCPError
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

mcp = MCPServer(name="python-whoami", version="2.3-test")


@mcp.tool()
async def whoami(leak: str = "", wait: float = 0) -> str:
    """Who this child was started for."""
    await anyio.sleep(wait)
    token = os.environ.get("CALLER_TOKEN")
    if leak == "result":
        raise ToolError(f"rejected token {token}")
    if leak == "error":
        raise MCPError(-32000, f"rejected token {token}", {"token": token})
    digest = hashlib.sha256(token.encode()).hexdigest() if token else None
    return json.dumps({"caller": os.environ.get("CALLER"), "token": token, "token_sha256": digest,
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
