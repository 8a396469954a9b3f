"""Every JSON-RPC request over stdio gets an answer, even one the SDK cannot read.

The SDK's stdio reader parses each line with pydantic's JSON parser, which refuses valid JSON
nested 250 levels or more ("recursion limit exceeded") and lone UTF-16 surrogate escapes
(``"\\ud800"``); it then drops the line, and a client without a timeout of its own waits
forever. Bytes that are not UTF-8 would be turned into replacement characters by a lenient
decoder and stored as if the client had sent them; here the line is refused instead, naming the
byte offset. :class:`GuardedLines` sits between stdin and the SDK: a line the SDK can read passes
through unchanged; for one it cannot, the request's id is found on its top level and a
JSON-RPC error naming the problem is sent back (``-32600``; ``-32700`` with a null id for text
that is not JSON). Notifications get no reply, as JSON-RPC says.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable
from typing import Any

import anyio
import mcp.types as types

__all__ = ["GuardedLines", "not_utf8_reply", "unreadable_reply"]

INVALID_REQUEST = -32600
PARSE_ERROR = -32700


def _top_level(line: str) -> Any:
    """Parse only the outermost object of ``line``: every nested value becomes ``0``.

    Walks the text once without recursion, so any depth is fine.
    """
    out: list[str] = []
    depth, in_string, escaped = 0, False, False
    for ch in line:
        if in_string:
            if depth <= 1:
                out.append(ch)
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
            if depth <= 1:
                out.append(ch)
        elif ch in "[{":
            depth += 1
            if depth == 1:
                out.append(ch)
            elif depth == 2:
                out.append("0")
        elif ch in "]}":
            depth -= 1
            if depth == 0:
                out.append(ch)
        elif depth <= 1:
            out.append(ch)
    return json.loads("".join(out))


def _why(detail: str) -> str:
    if "recursion limit" in detail:
        return "it is nested too deeply for the server's JSON parser (keep it under 250 levels)"
    if "surrogate" in detail or "hex escape" in detail:
        return "it contains a lone UTF-16 surrogate escape such as \\ud800, which is not text"
    return detail


def unreadable_reply(line: str) -> types.JSONRPCError | None:
    """The error to send for a line the SDK cannot read (``None``: readable, or no reply due)."""
    try:
        types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        return None
    except ValueError as exc:
        detail = " ".join(str(exc).split())
    try:
        top = _top_level(line)
    except ValueError:
        return types.JSONRPCError(
            jsonrpc="2.0",
            id=None,
            error=types.ErrorData(code=PARSE_ERROR, message="Parse error: not a JSON text"),
        )
    if not isinstance(top, dict):
        return types.JSONRPCError(
            jsonrpc="2.0",
            id=None,
            error=types.ErrorData(code=INVALID_REQUEST, message="Invalid Request: not an object"),
        )
    request_id = top.get("id")
    valid_id = isinstance(request_id, str | int) and not isinstance(request_id, bool)
    if "method" in top and "id" not in top:
        return None  # a notification: JSON-RPC sends nothing back
    if isinstance(request_id, str):
        try:
            request_id.encode("utf-8")
        except UnicodeEncodeError:
            valid_id = False  # an id with a lone surrogate cannot be written back
    if "method" not in top and valid_id:
        return None  # a response to the server's own request: nothing to answer
    return types.JSONRPCError(
        jsonrpc="2.0",
        id=request_id if valid_id else None,
        error=types.ErrorData(
            code=INVALID_REQUEST,
            message=f"Invalid Request: the server cannot read it: {_why(detail)}",
        ),
    )


def not_utf8_reply(raw: bytes, error: UnicodeDecodeError) -> types.JSONRPCError | None:
    """The error for a line that is not UTF-8 (``None``: a notification, which gets no reply).

    The request's id is read from the line decoded leniently; an id touched by the bad bytes is
    not echoed back (``null`` instead).
    """
    message = (
        f"Invalid Request: not UTF-8 text (byte {error.start} of the line: {error.reason}, "
        f"0x{raw[error.start]:02x}); send JSON as UTF-8"
    )
    try:
        top = _top_level(raw.decode("utf-8", errors="replace"))
    except ValueError:
        top = None
    request_id = top.get("id") if isinstance(top, dict) else None
    if isinstance(top, dict) and "method" in top and "id" not in top:
        return None
    valid_id = isinstance(request_id, str | int) and not isinstance(request_id, bool)
    if isinstance(request_id, str) and "\ufffd" in request_id:
        valid_id = False
    return types.JSONRPCError(
        jsonrpc="2.0",
        id=request_id if valid_id else None,
        error=types.ErrorData(code=INVALID_REQUEST, message=message),
    )


class GuardedLines:
    """stdin lines for the SDK's stdio reader, with unreadable requests answered here.

    Args:
        source: The lines of stdin, as bytes (decoded here, strictly) or as text.
    """

    def __init__(self, source: AsyncIterable[str] | AsyncIterable[bytes]) -> None:
        self.source = source
        self._send: Callable[[types.JSONRPCError], Awaitable[None]] | None = None
        self._ready = anyio.Event()

    def attach(self, send: Callable[[types.JSONRPCError], Awaitable[None]]) -> None:
        """Where replies go (the transport's outgoing stream), once it exists."""
        self._send = send
        self._ready.set()

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        async for item in self.source:
            if isinstance(item, bytes):
                try:
                    line = item.decode("utf-8")
                except UnicodeDecodeError as exc:
                    refused = not_utf8_reply(item, exc)
                    if refused is not None:
                        await self._ready.wait()
                        if self._send is not None:
                            await self._send(refused)
                    continue
            else:
                line = item
            if not line.strip():
                continue
            reply = unreadable_reply(line)
            if reply is None:
                yield line
                continue
            await self._ready.wait()
            if self._send is not None:
                await self._send(reply)
