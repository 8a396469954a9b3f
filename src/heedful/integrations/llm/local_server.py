"""A local model as an OpenAI-compatible endpoint on loopback (``heedful agent serve-local``).

``bench run --model local:NAME`` starts one for the run and stops it after, so the trial goes
through the same client, bounds and cache as any endpoint. ``POST /v1/chat/completions`` takes:

* ``tools`` — the model has no tool-call format of its own, so the request is played in the
  JSON turn protocol (:mod:`~heedful.integrations.llm.turns`): the tools are described in the
  system message, the answer is constrained by a grammar built from their schemas (only real
  tool names, ids and actions), and a parsed turn is answered as a real ``tool_calls`` entry;
* ``legal_tools`` (heedful's own field, with ``tools``) — the tools the answer may call now,
  with their enums narrowed to the legal moves (``TrialEnv.offered_tools``): the grammar is built
  from them, while the prompt lists ``tools`` — a tool list that does not change from turn to
  turn, so the KV cache of the conversation is reused;
* ``response_format`` (``json_schema``) or ``grammar`` (GBNF, as llama.cpp's server takes) —
  the text answer is constrained by it;
* ``max_tokens``, ``temperature``, ``seed``.

Tool results and tool calls are sent to the model as plain user/assistant turns
(:func:`~heedful.integrations.llm.turns.flatten_messages`), since small models' chat templates
have no tool role. ``usage`` counts the model's own tokens (``prompt_tokens_details.
cached_tokens``: the prefix reused from the last call). A prompt that does not fit the context
is a 400 naming the context (the client records ``context_overflow``).
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from heedful.bench.agents.bounded import loads_bounded
from heedful.errors import InvalidArgumentError
from heedful.integrations.llm.local import ContextOverflow, LocalModel, local_model_path
from heedful.integrations.llm.turns import (
    flatten_messages,
    parse_turn,
    schema_grammar,
    tools_prompt,
    turn_schema,
)

__all__ = ["LocalServer", "serve_local"]

_LOOPBACK = ("127.0.0.1", "localhost", "::1")
_MAX_BODY = 20_000_000


class LocalServer:
    """A :class:`~heedful.integrations.llm.local.LocalModel` behind loopback HTTP.

    Args:
        model: ``local:NAME`` or ``local:PATH.gguf``.
        host: Loopback address (anything else is refused).
        port: Port (0: any free port; read :attr:`port` after :meth:`start`).
        n_ctx: Context window of the model (tokens).

    Attributes:
        calls: Completions answered.
    """

    def __init__(
        self, model: str, *, host: str = "127.0.0.1", port: int = 0, n_ctx: int = 8192
    ) -> None:
        if host not in _LOOPBACK:
            raise InvalidArgumentError(f"--host must be a loopback address, not {host!r}")
        self.name = model
        self.model = LocalModel(local_model_path(model), n_ctx=n_ctx)
        self.calls = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def _send(self, status: int, data: dict[str, Any]) -> None:
                body = json.dumps(data).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    # The client gave up (its --timeout passed while the model computed): the
                    # answer has no one to go to. The run records that call's timeout itself.
                    self.close_connection = True

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, {"object": "list", "data": [{"id": server.name}]})
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self) -> None:
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                size = int(self.headers.get("content-length", "0") or 0)
                if size > _MAX_BODY:
                    self._send(413, {"error": {"message": "request too large"}})
                    return
                try:
                    request = loads_bounded(self.rfile.read(size), 256)
                    if not isinstance(request, dict):
                        raise ValueError("the body is not an object")
                except ValueError as exc:
                    self._send(400, {"error": {"message": f"bad request: {exc}"}})
                    return
                status, data = server.answer(request)
                self._send(status, data)

        self._httpd = ThreadingHTTPServer((host, port), Handler)
        self._httpd.daemon_threads = True
        self.host = host
        self.port = int(self._httpd.server_address[1])
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """The ``/v1`` URL of the endpoint."""
        return f"http://{self.host}:{self.port}/v1"

    def start(self) -> None:
        """Serve in a daemon thread."""
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    def serve_forever(self) -> None:
        """Serve in this thread (``heedful agent serve-local``)."""
        self._httpd.serve_forever()

    def close(self) -> None:
        """Stop serving and free the model."""
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join()
        self._httpd.server_close()
        self.model.close()

    def answer(self, request: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """``(status, body)`` of one chat completion request."""
        messages = request.get("messages")
        if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
            return 400, {"error": {"message": "messages must be a list of objects"}}
        tools = request.get("tools") or []
        grammar = request.get("grammar") if isinstance(request.get("grammar"), str) else None
        turns = flatten_messages(messages)
        if tools:
            if not isinstance(tools, list):
                return 400, {"error": {"message": "tools must be a list"}}
            legal = request.get("legal_tools")
            if legal is not None and (not isinstance(legal, list) or not legal):
                return 400, {"error": {"message": "legal_tools must be a non-empty list"}}
            grammar = schema_grammar(turn_schema(legal or tools))
            addendum = tools_prompt(tools)
            if turns and turns[0]["role"] == "system":
                turns[0] = {"role": "system", "content": turns[0]["content"] + "\n\n" + addendum}
            else:
                turns.insert(0, {"role": "system", "content": addendum})
        elif grammar is None:
            fmt = request.get("response_format")
            if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
                schema = (fmt.get("json_schema") or {}).get("schema")
                if isinstance(schema, dict):
                    grammar = schema_grammar(schema)
        max_tokens = request.get("max_tokens") or 256
        temperature = request.get("temperature") or 0.0
        seed = request.get("seed") or 0
        if not isinstance(max_tokens, int) or not 1 <= max_tokens <= 32768:
            return 400, {"error": {"message": "max_tokens must be an integer in 1..32768"}}
        try:
            reply = self.model.complete(
                turns,
                max_tokens=max_tokens,
                temperature=float(temperature),
                seed=int(seed),
                grammar=grammar,
            )
        except ContextOverflow as exc:
            return 400, {"error": {"message": f"{exc} (exceeds the available context size)"}}
        except (ValueError, TypeError, RuntimeError) as exc:
            return 400, {"error": {"message": str(exc)}}
        self.calls += 1
        message: dict[str, Any] = {"role": "assistant", "content": reply.text}
        if tools and (turn := parse_turn(reply.text)) is not None:
            name, args = turn
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"call_{self.calls}",
                        "type": "function",
                        "function": {"name": name, "arguments": json.dumps(args)},
                    }
                ],
            }
        return 200, {
            "id": f"local-{self.calls}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.name,
            "choices": [{"index": 0, "message": message, "finish_reason": reply.finish_reason}],
            "usage": {
                "prompt_tokens": reply.prompt_tokens,
                "completion_tokens": reply.completion_tokens,
                "total_tokens": reply.prompt_tokens + reply.completion_tokens,
                "prompt_tokens_details": {"cached_tokens": reply.reused_tokens},
            },
            "timings": {"prefill_s": reply.prefill_s, "generate_s": reply.generate_s},
        }


@contextlib.contextmanager
def serve_local(model: str, **kwargs: Any) -> Iterator[LocalServer]:
    """A :class:`LocalServer` serving in a thread for the ``with`` block."""
    server = LocalServer(model, **kwargs)
    server.start()
    try:
        yield server
    finally:
        server.close()
