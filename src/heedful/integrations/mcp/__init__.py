"""heedful's MCP server: the attention engine and controller as tools for any MCP client.

Needs the ``mcp`` extra (``.venv/bin/pip install -e '.[mcp]'`` in a checkout).
Only this package imports ``mcp``.
"""

from __future__ import annotations

from heedful.integrations.mcp.backend import Backend, StoreBackend, open_backend
from heedful.integrations.mcp.server import SERVER_NAME, build_server, serve_http, serve_stdio
from heedful.integrations.mcp.tools import TOOLS, ToolFailure, ToolSpec, call_tool, tool_names

__all__ = [
    "SERVER_NAME",
    "TOOLS",
    "Backend",
    "StoreBackend",
    "ToolFailure",
    "ToolSpec",
    "build_server",
    "call_tool",
    "open_backend",
    "serve_http",
    "serve_stdio",
    "tool_names",
]
