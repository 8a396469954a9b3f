"""The MCP server: the tools of :mod:`.tools` over the SDK's low-level ``Server``.

The low-level server is used (rather than the decorator-based ``MCPServer``) so that arguments are
validated strictly — unknown names and wrong JSON types are refused, never silently dropped or
coerced — and every failure reaches the agent as a tool error (``isError: true``) with a message.
"""

from __future__ import annotations

import json
import logging
import socket
from collections.abc import Callable, Mapping
from typing import Any

import anyio
import anyio.to_thread
import mcp.types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server

from heedful import __version__
from heedful.errors import InvalidArgumentError
from heedful.integrations.mcp.auth import SCOPE_SESSION, BearerAuth, TokenFile
from heedful.integrations.mcp.backend import Backend, SessionBackends
from heedful.integrations.mcp.stdio_guard import GuardedLines
from heedful.integrations.mcp.tools import TOOLS, ToolFailure, call_tool

__all__ = ["SERVER_NAME", "build_server", "serve_http", "serve_stdio"]

logger = logging.getLogger(__name__)

#: The name the server announces to clients.
SERVER_NAME = "heedful"

_INSTRUCTIONS = (
    "heedful decides what deserves the agent's attention. Per turn: attention_rank gives the "
    "computations worth doing, best first, and 'next' to execute; report each outcome with "
    "attention_resolve, which returns the next one, until 'next' is a stop. Before asserting a "
    "state-sensitive claim, call attention_check_claim. Describe sources and beliefs with "
    "attention_register_source and attention_record_belief. attention_survey shows the goal-level "
    "attention map without acting; attention_run_cycle runs one engine cycle."
)


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)], is_error=True
    )


def _tool_list() -> list[types.Tool]:
    return [
        types.Tool(
            name=spec.name,
            description=spec.description,
            input_schema=spec.input_schema(),
            annotations=types.ToolAnnotations(
                read_only_hint=spec.read_only,
                destructive_hint=False,
                open_world_hint=False,
            ),
        )
        for spec in TOOLS
    ]


def build_server(
    backend: Backend, backend_for: Callable[[Any], Backend] | None = None
) -> Server[Any]:
    """Return an MCP server whose tools call ``backend``.

    ``backend_for``, when given, picks the backend of each call from its request context
    (the HTTP transport: the session of the caller's bearer token).

    Every call returns either the response as JSON text plus ``structuredContent``, or a tool
    error: invalid or unknown arguments, unknown tool names and heedful errors carry their own
    message; an unexpected exception is logged with its traceback (stderr) and reported as an
    internal error, and the server keeps serving.
    """
    tools = _tool_list()
    # One call at a time, off the event loop: the backend (SQLite store, engine, controller) is
    # not built for concurrent use, and a long cycle must not stall the transport.
    lock = anyio.Lock()

    async def list_tools(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def handle_call(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            target = backend if backend_for is None else backend_for(ctx)
            async with lock:
                result = await anyio.to_thread.run_sync(
                    call_tool, target, params.name, params.arguments
                )
        except ToolFailure as exc:
            logger.info("tool %s refused: %s", params.name, exc)
            return _error(str(exc))
        except Exception as exc:
            logger.exception("tool %s failed unexpectedly", params.name)
            return _error(
                f"internal error in {params.name}: {type(exc).__name__}: {exc} "
                "(a heedful bug; the server log has the traceback)"
            )
        text = json.dumps(result, ensure_ascii=False, allow_nan=False)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], structured_content=result
        )

    return Server(
        SERVER_NAME,
        version=__version__,
        instructions=_INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=handle_call,
    )


def serve_stdio(backend: Backend) -> None:
    """Serve ``backend`` over stdin/stdout until the client closes stdin.

    Every request gets an answer: one the SDK cannot parse (nesting ≥ 250, a lone surrogate
    escape, bytes that are not UTF-8) gets a JSON-RPC error from
    :class:`~.stdio_guard.GuardedLines` instead of silence.
    """
    import sys

    from mcp.shared.message import SessionMessage

    server = build_server(backend)

    async def run() -> None:
        # Bytes, decoded strictly line by line in GuardedLines: a line that is not UTF-8 is
        # refused with its byte offset, never stored as replacement characters.
        lines = GuardedLines(anyio.wrap_file(sys.stdin.buffer))
        async with stdio_server(stdin=lines) as (read_stream, write_stream):  # type: ignore[arg-type]

            async def reply(error: types.JSONRPCError) -> None:
                await write_stream.send(SessionMessage(error))

            lines.attach(reply)
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(run)


async def _no_app(scope: Any, receive: Any, send: Any) -> None:
    raise RuntimeError("BearerAuth used before its app was set")  # pragma: no cover


def _listen(host: str, port: int) -> socket.socket:
    """Bind a TCP socket on ``host:port``; one clear error if that is impossible."""
    where = f"{host}:{port}"
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except OSError as exc:
        raise InvalidArgumentError(f"cannot listen on {where}: {exc.strerror or exc}") from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise InvalidArgumentError(f"cannot listen on {where}: {exc.strerror or exc}") from None
    return sock


def serve_http(
    sessions: SessionBackends,
    host: str,
    port: int,
    path: str = "/mcp",
    ready: Callable[[str], None] | None = None,
    *,
    tokens: Mapping[str, str] | TokenFile,
) -> None:
    """Serve over streamable HTTP at ``http://host:port{path}`` until interrupted.

    Every request needs ``Authorization: Bearer <token>`` (401 otherwise, before the MCP app
    sees it); each token's name is a session of ``sessions``, and a call is served by the
    backend of the token it carries — never by another session's. An MCP session belongs to
    the token that opened it: another token cannot use or end it (:class:`~.auth.BearerAuth`).
    Given a :class:`~.auth.TokenFile`, tokens added to or removed from the file take effect
    without a restart. On a loopback host the
    SDK's DNS-rebinding protection is on too (only loopback Host and Origin headers).
    ``ready`` is called with the endpoint URL once the port is bound.

    Args:
        sessions: The backend of each session.
        host: Address to bind.
        port: Port to bind.
        path: Endpoint path.
        ready: Called with the URL once listening.
        tokens: Session name → token (at least one), or the token file to follow.

    Raises:
        InvalidArgumentError: No token, or the address cannot be bound (unknown host, port in
            use...).
    """
    import uvicorn

    auth = BearerAuth(_no_app, tokens)  # checks the tokens before anything is bound

    def backend_for(ctx: Any) -> Backend:
        request = getattr(ctx, "request", None)
        # The session BearerAuth found for this request (the token file may change meanwhile).
        name = getattr(request, "scope", {}).get(SCOPE_SESSION)
        if name is None:
            headers = getattr(request, "headers", None)
            name = auth.session_of(headers.get("authorization") if headers is not None else None)
        if name is None:  # unreachable behind the middleware; refuse rather than guess
            raise ToolFailure("unauthenticated call")
        return sessions.get(name)

    sock = _listen(host, port)
    server = build_server(sessions.main, backend_for)
    auth.app = server.streamable_http_app(streamable_http_path=path, host=host)
    config = uvicorn.Config(auth, host=host, port=port, log_level="warning")
    if ready is not None:
        ready(f"http://{host}:{port}{path}")
    try:
        anyio.run(lambda: uvicorn.Server(config).serve(sockets=[sock]))
    finally:
        sock.close()
