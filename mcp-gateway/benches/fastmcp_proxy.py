"""FastMCP's proxy (PyPI `fastmcp`) in front of one stdio server, served over stdio: the peer row of
`cargo bench -p mcp-gateway --bench gateway`. Usage: fastmcp_proxy.py SERVER_CMD"""
import sys

from fastmcp.server import create_proxy

proxy = create_proxy({"mcpServers": {"bench": {"command": sys.argv[1]}}}, name="fastmcp-proxy")
proxy.run(show_banner=False)
