"""Async chat client for any OpenAI-compatible endpoint, bounded against any endpoint.

OpenAI, vLLM, Ollama, llama.cpp's server, LM Studio and a litellm proxy all speak the same
``/v1/chat/completions``. The client adds what a benchmark needs around one call: the key read
from a *named* environment variable at construction (never stored in settings, results or the
cache), retries with exponential backoff on 429, 5xx and dropped connections (``retries``) and
on a timeout (``timeout_retries``, fewer: a server that accepts and never answers is not waited
for again and again), the token usage and wall latency of every call, and the response cache.

It talks HTTP through ``httpx2`` (the HTTP client the official ``openai`` SDK is built on)
rather than through the SDK, because a benchmark must bound what an endpoint can do to it and
the SDK cannot: its timeout bounds each *read*, so a server dripping one byte a second never
times out, and it reads a body of any size. Here every attempt has one wall-clock deadline
(``timeout_s``: connect, send, a slow drip and the whole body), the body is read in chunks and
refused past ``max_reply_bytes``, a body nested deeper than :data:`MAX_DEPTH` is refused before
anything walks it, and ``usage`` figures must be finite, non-negative integers within bounds.
Each refusal is an :class:`EndpointError` with a ``code`` the trial records.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

import httpx2

from heedful.bench.agents.bounded import loads_bounded
from heedful.bench.agents.contract import AgentSettings, CallStats
from heedful.errors import HeedfulError, InvalidArgumentError
from heedful.integrations.llm.cache import ResponseCache

__all__ = [
    "MAX_PROMPT_TOKENS",
    "ChatClient",
    "ChatResult",
    "EndpointError",
    "endpoint_host",
    "usage_of",
]

#: Most prompt tokens one call may claim (more than any context window today).
MAX_PROMPT_TOKENS = 10_000_000
_RETRY_STATUS = frozenset({408, 409, 425, 429}) | frozenset(range(500, 600))


class EndpointError(HeedfulError):
    """The endpoint refused a call, kept failing after every retry, or sent what the harness
    refuses (too slow, too large, too deep, bad usage).

    Attributes:
        stats: What the failed attempts cost (errors, latency).
        code: The protocol code the trial records (``endpoint_error``, ``endpoint_timeout``,
            ``reply_too_large``, ``bad_response``, ``bad_usage``, ``context_overflow``).
    """

    def __init__(
        self, message: str, stats: CallStats | None = None, code: str = "endpoint_error"
    ) -> None:
        super().__init__(message)
        self.stats = stats or CallStats()
        self.code = code


class _Refused(Exception):
    """One attempt's body was refused (not retried: the same endpoint would send it again)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class _Retryable(Exception):
    """One attempt failed in a way worth retrying (429, 5xx, timeout, dropped connection)."""

    def __init__(self, message: str, code: str = "endpoint_error") -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class ChatResult:
    """One answered call: the response as plain JSON data, and what it cost."""

    response: dict[str, Any]
    stats: CallStats


def endpoint_host(base_url: str) -> str:
    """The host (and port) of an endpoint URL: what the manifest records, never a path or key."""
    parsed = urlparse(base_url)
    return parsed.netloc.rsplit("@", 1)[-1] or base_url


def _api_key(settings: AgentSettings) -> str | None:
    if settings.api_key_env is None:
        return None
    key = os.environ.get(settings.api_key_env)
    if not key:
        raise InvalidArgumentError(
            f"--api-key-env: environment variable {settings.api_key_env} is not set"
        )
    return key


def usage_of(data: dict[str, Any], max_completion: int) -> dict[str, int]:
    """Validated token counts of a response: each a finite integer, 0 ≤ n ≤ its bound.

    A response without ``usage`` counts 0 (some servers send none). Raises ValueError for a
    figure that is present but not a count: ``Infinity``, ``1e30``, ``-5``, ``"12"``, or more
    completion tokens than ``max_completion`` (the endpoint ignored ``max_tokens``).
    """
    usage = data.get("usage")
    if usage is None:
        return {"prompt_tokens": 0, "completion_tokens": 0}
    if not isinstance(usage, dict):
        raise ValueError("usage is not an object")
    bounds = {"prompt_tokens": MAX_PROMPT_TOKENS, "completion_tokens": max_completion}
    out: dict[str, int] = {}
    for key, bound in bounds.items():
        value = usage.get(key, 0)
        if value is None:
            value = 0
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"usage.{key} is not a number: {str(value)[:40]!r}")
        if not math.isfinite(value) or value != int(value) or not 0 <= value <= bound:
            raise ValueError(f"usage.{key} = {value!r} is not a count between 0 and {bound}")
        out[key] = int(value)
    return out


class ChatClient:
    """Calls ``chat/completions`` with retries, bounds, usage accounting and the cache.

    Args:
        settings: Model, endpoint and sampling settings.
        cache: Response cache (default: the file named by ``settings.cache``, if any).
    """

    def __init__(self, settings: AgentSettings, cache: ResponseCache | None = None) -> None:
        self.settings = settings
        self.cache = (
            cache
            if cache is not None
            else (ResponseCache(settings.cache) if settings.cache else None)
        )
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if (key := _api_key(settings)) is not None:
            headers["Authorization"] = f"Bearer {key}"
        self._url = settings.base_url.rstrip("/") + "/chat/completions"
        # The per-phase timeouts are a backstop; the deadline of each attempt is asyncio's.
        self._http = httpx2.AsyncClient(
            headers=headers,
            timeout=httpx2.Timeout(settings.timeout_s),
            limits=httpx2.Limits(max_connections=None, max_keepalive_connections=64),
        )

    def request(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], draw: str = ""
    ) -> dict[str, Any]:
        """The full request of one call (what the cache is keyed by; holds no key).

        ``draw`` names the sample (the trial): two trials that send the same messages are still
        two draws from the model, so they are cached apart. It and the endpoint are part of the
        cache key only, never sent. A local model's endpoint is a loopback port picked anew by
        every run, so its key names the model instead (``local``): a resumed or repeated run
        replays its answers.
        """
        s = self.settings
        req: dict[str, Any] = {
            "endpoint": "local" if s.local else s.base_url,
            "draw": draw,
            "model": s.model,
            "messages": messages,
            "tools": tools,
            "tool_choice": "auto",
            "temperature": s.temperature,
            "max_tokens": s.max_tokens,
        }
        if not tools:
            del req["tools"], req["tool_choice"]
        if s.seed is not None:
            req["seed"] = s.seed
        return req

    async def chat(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        draw: str = "",
        extra: dict[str, Any] | None = None,
    ) -> ChatResult:
        """One chat completion (from the cache when it holds this exact request).

        ``extra`` adds fields to the request body (e.g. a ``response_format``); they are part
        of the cache key.

        Raises:
            EndpointError: a non-retryable refusal (400, 401, 404 …), a refused body, or
                failures past every retry; the stats of the failed attempts are on
                ``exc.stats`` and the protocol code on ``exc.code``.
        """
        req = self.request(messages, tools, draw)
        if extra:
            req.update(extra)
        s = self.settings
        if self.cache is not None and (hit := self.cache.get(req)) is not None:
            try:
                tokens = usage_of(hit, s.max_tokens)
            except ValueError:
                tokens = {"prompt_tokens": 0, "completion_tokens": 0}
            return ChatResult(hit, CallStats(calls=1, cached_calls=1, **tokens))
        stats = CallStats()
        body = {k: v for k, v in req.items() if k not in ("endpoint", "draw")}
        payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
        timeouts = 0
        for attempt in range(s.retries + 1):
            start = time.perf_counter()
            try:
                async with asyncio.timeout(s.timeout_s):
                    data = await self._attempt(payload)
            except _Refused as exc:
                stats.errors += 1
                stats.latency_s += time.perf_counter() - start
                raise EndpointError(str(exc), stats, exc.code) from None
            except (_Retryable, TimeoutError, httpx2.TransportError) as exc:
                stats.errors += 1
                stats.latency_s += time.perf_counter() - start
                code = "endpoint_error"
                if isinstance(exc, TimeoutError | httpx2.TimeoutException):
                    message = f"no complete reply within --timeout {s.timeout_s:g} s"
                    code = "endpoint_timeout"
                    timeouts += 1
                elif isinstance(exc, _Retryable):
                    message = str(exc)
                else:
                    message = f"{type(exc).__name__}: {exc}"
                if attempt == s.retries or timeouts > s.timeout_retries:
                    raise EndpointError(
                        f"{message} (after {attempt + 1} attempts)", stats, code
                    ) from None
                await asyncio.sleep(min(s.backoff_s * 2**attempt, s.backoff_max_s))
                continue
            stats.latency_s += time.perf_counter() - start
            try:
                tokens = usage_of(data, s.max_tokens)
            except ValueError as exc:
                stats.errors += 1
                raise EndpointError(f"usage refused: {exc}", stats, "bad_usage") from None
            stats.calls += 1
            stats.prompt_tokens += tokens["prompt_tokens"]
            stats.completion_tokens += tokens["completion_tokens"]
            if self.cache is not None:
                self.cache.put(req, data)
            return ChatResult(data, stats)
        raise AssertionError("unreachable")  # pragma: no cover

    async def _attempt(self, payload: bytes) -> dict[str, Any]:
        """POST once; read at most ``max_reply_bytes`` of the body; parse it, bounded."""
        limit = self.settings.max_reply_bytes
        async with self._http.stream("POST", self._url, content=payload) as response:
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > limit:
                raise _Refused(
                    "reply_too_large",
                    f"the reply declares {int(declared):,} bytes, over --max-reply-bytes {limit:,}",
                )
            chunks: list[bytes] = []
            size = 0
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > limit:
                    raise _Refused(
                        "reply_too_large",
                        f"the reply passed --max-reply-bytes {limit:,} bytes; it was cut there",
                    )
                chunks.append(chunk)
            status = response.status_code
        raw = b"".join(chunks)
        if status in _RETRY_STATUS:
            raise _Retryable(f"HTTP {status}: {raw[:200].decode('utf-8', 'replace')}")
        if status >= 400:
            text = raw[:300].decode("utf-8", "replace")
            code = "context_overflow" if _mentions_context(text) else "endpoint_error"
            raise _Refused(code, f"the endpoint refused the call: HTTP {status}: {text}")
        try:
            data = loads_bounded(raw, constants=True)
        except (ValueError, UnicodeDecodeError) as exc:
            raise _Refused("endpoint_error", f"the endpoint sent a malformed body: {exc}") from None
        if not isinstance(data, dict):
            raise _Refused("endpoint_error", "the endpoint sent a body that is not a JSON object")
        return data

    async def aclose(self) -> None:
        """Close the HTTP connections and the cache."""
        await self._http.aclose()
        if self.cache is not None:
            self.cache.close()


def _mentions_context(text: str) -> bool:
    low = text.lower()
    return "context" in low and any(w in low for w in ("exceed", "too long", "length", "n_ctx"))
