"""The scripted OpenAI-compatible endpoint: a loopback HTTP server playing a scripted agent.

It answers ``POST …/chat/completions`` with real tool calls and ``usage``, exactly as a model
server would, so the real client, agent and runner are exercised over real HTTP with no model
(``heedful agent serve-scripted --behaviour careful --port 8099``). What it answers comes from
:func:`~heedful.integrations.llm.scripted_play.play`. It binds to loopback only, speaks plain
HTTP/1.1 with keep-alive, and can inject a fixed latency per call (for the throughput bench).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

from heedful.errors import InvalidArgumentError
from heedful.integrations.llm.cache import request_key
from heedful.integrations.llm.scripted_play import BEHAVIOURS, Directive, play

__all__ = ["ScriptedServer", "serve_in_thread"]

_LOOPBACK = ("127.0.0.1", "localhost", "::1")
_REASONS = {
    200: "OK",
    400: "Bad Request",
    404: "Not Found",
    429: "Too Many Requests",
    500: "Internal Server Error",
}


class ScriptedServer:
    """A scripted model endpoint on loopback.

    Args:
        behaviour: One of :data:`~heedful.integrations.llm.scripted_play.BEHAVIOURS`.
        host: Loopback address to bind (anything else is refused).
        port: Port (0: any free port; read :attr:`port` after :meth:`start`).
        latency_s: Delay added to every answer.
        hang_s: How long a ``hang`` directive holds the request before answering nothing.

    Attributes:
        requests: Requests answered (every attempt counts).
        busy_s: Time spent playing and encoding answers (injected latency and hangs excluded):
            what the endpoint itself costs, for harness-overhead measurements.
    """

    def __init__(
        self,
        behaviour: str,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        latency_s: float = 0.0,
        hang_s: float = 5.0,
    ) -> None:
        if behaviour not in BEHAVIOURS:
            raise InvalidArgumentError(
                f"--behaviour: unknown behaviour {behaviour!r}; known: {', '.join(BEHAVIOURS)}"
            )
        if host not in _LOOPBACK:
            raise InvalidArgumentError(
                f"--host: the scripted endpoint binds loopback only, not {host!r}"
            )
        self.behaviour = behaviour
        self.host = host
        self.port = port
        self.latency_s = latency_s
        self.hang_s = hang_s
        self.requests = 0
        self.busy_s = 0.0
        self._seen: Counter[str] = Counter()
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def base_url(self) -> str:
        """The ``/v1`` URL a client should use."""
        return f"http://{self.host}:{self.port}/v1"

    async def start(self) -> None:
        """Bind and start serving."""
        self._server = await asyncio.start_server(self._connection, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        """Stop serving: close the listening socket and end every open connection."""
        if self._server is None:
            return
        self._server.close()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._server.wait_closed(), 1.0)

    async def serve_forever(self) -> None:
        """Serve until cancelled."""
        await self.start()
        assert self._server is not None
        async with self._server:
            await self._server.serve_forever()

    # -- HTTP ---------------------------------------------------------------------------------

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            while True:
                line = await reader.readline()
                if not line:
                    return
                method, path, _ = line.decode("latin-1").split(" ", 2)
                headers: dict[str, str] = {}
                while (h := await reader.readline()) not in (b"\r\n", b"\n", b""):
                    k, _, v = h.decode("latin-1").partition(":")
                    headers[k.strip().lower()] = v.strip()
                body = await reader.readexactly(int(headers.get("content-length", "0") or 0))
                status, payload = await self._route(method, path, body)
                if status == 0:
                    return  # hang: drop the connection without answering
                start = time.perf_counter()
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self.busy_s += time.perf_counter() - start
                writer.write(
                    f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}\r\n"
                    "Content-Type: application/json\r\n"
                    f"Content-Length: {len(data)}\r\nConnection: keep-alive\r\n\r\n".encode()
                    + data
                )
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, ValueError):
            return
        except asyncio.CancelledError:
            return  # the server is closing: drop the connection quietly
        finally:
            if task is not None:
                self._tasks.discard(task)
            writer.close()

    async def _route(self, method: str, path: str, body: bytes) -> tuple[int, Any]:
        path = path.split("?", 1)[0].rstrip("/")
        if method == "GET" and path in ("/v1/models", "/models"):
            return 200, {"object": "list", "data": [{"id": "scripted", "object": "model"}]}
        if method != "POST" or path not in ("/v1/chat/completions", "/chat/completions"):
            return 404, {"error": {"message": f"no route {method} {path}"}}
        start = time.perf_counter()
        try:
            request = json.loads(body)
        except json.JSONDecodeError:
            return 400, {"error": {"message": "body is not JSON"}}
        self.requests += 1
        key = request_key(request)
        attempt = self._seen[key]
        self._seen[key] += 1
        try:
            directive = play(self.behaviour, request, attempt)
        except (KeyError, TypeError, ValueError, json.JSONDecodeError) as exc:
            return 400, {"error": {"message": f"scripted agent cannot read the request: {exc}"}}
        answer = completion(request, directive) if directive.status == 200 else None
        self.busy_s += time.perf_counter() - start
        if self.latency_s:
            await asyncio.sleep(self.latency_s)
        if directive.hang:
            await asyncio.sleep(self.hang_s)
            return 0, None
        if directive.status != 200:
            return directive.status, {"error": {"message": "scripted failure"}}
        if directive.garbage:
            return 200, b"<html>this is not a chat completion</html>"
        return 200, answer


def completion(request: dict[str, Any], directive: Directive) -> dict[str, Any]:
    """A ``chat.completion`` body for a directive, with ``usage`` (≈ 4 characters a token)."""
    calls = [
        {
            "id": f"call_{i}",
            "type": "function",
            "function": {
                "name": name,
                "arguments": args if isinstance(args, str) else json.dumps(args),
            },
        }
        for i, (name, args) in enumerate(directive.calls)
    ]
    message: dict[str, Any] = {"role": "assistant", "content": directive.text}
    if calls:
        message["tool_calls"] = calls
    prompt = len(json.dumps(request.get("messages", []))) // 4
    done = len(json.dumps(message)) // 4
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 0,
        "model": str(request.get("model", "scripted")),
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": done,
            "total_tokens": prompt + done,
        },
    }


@contextlib.contextmanager
def serve_in_thread(behaviour: str, **kwargs: Any) -> Iterator[ScriptedServer]:
    """Run a :class:`ScriptedServer` on its own event loop in a daemon thread (tests, CLI)."""
    server = ScriptedServer(behaviour, **kwargs)
    loop = asyncio.new_event_loop()
    ready = threading.Event()

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(server.start())
        ready.set()
        loop.run_forever()

    thread = threading.Thread(target=run, name="heedful-scripted", daemon=True)
    thread.start()
    ready.wait(10)
    try:
        yield server
    finally:
        asyncio.run_coroutine_threadsafe(server.close(), loop).result(5)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        loop.close()
