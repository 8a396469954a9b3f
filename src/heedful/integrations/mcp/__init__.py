"""heedful's MCP server: the attention engine and controller as tools for any MCP client.

Needs the ``mcp`` extra (``.venv/bin/pip install -e '.[mcp]'`` in a checkout).
Only this package imports ``mcp``. The names below load on first use (PEP 562), so the parts
that need no SDK — the bearer tokens of ``heedful mcp token`` (:mod:`.auth`) — work without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from heedful.lazy import lazy_names

if TYPE_CHECKING:
    from heedful.integrations.mcp.backend import Backend, StoreBackend, open_backend
    from heedful.integrations.mcp.server import (
        SERVER_NAME,
        build_server,
        serve_http,
        serve_stdio,
    )
    from heedful.integrations.mcp.tools import (
        TOOLS,
        ToolFailure,
        ToolSpec,
        call_tool,
        tool_names,
    )

#: Each public name and the submodule that defines it.
_HOME: dict[str, str] = {
    "Backend": "backend",
    "SERVER_NAME": "server",
    "StoreBackend": "backend",
    "TOOLS": "tools",
    "ToolFailure": "tools",
    "ToolSpec": "tools",
    "build_server": "server",
    "call_tool": "tools",
    "open_backend": "backend",
    "serve_http": "server",
    "serve_stdio": "server",
    "tool_names": "tools",
}

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

__getattr__, __dir__ = lazy_names(__name__, _HOME, globals())
