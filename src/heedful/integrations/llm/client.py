"""Async chat client for any OpenAI-compatible endpoint, on the official ``openai`` SDK.

OpenAI, vLLM, Ollama, llama.cpp's server, LM Studio and a litellm proxy all speak the same
``/v1/chat/completions``. The client adds what a benchmark needs around one call: the key read
from a *named* environment variable at construction (never stored in settings, results or the
cache), retries with exponential backoff on 429, 5xx, timeouts and dropped connections, the
token usage and wall latency of every call, and the response cache.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

import openai

from heedful.bench.agents.contract import AgentSettings, CallStats
from heedful.errors import HeedfulError, InvalidArgumentError
from heedful.integrations.llm.cache import ResponseCache

__all__ = ["ChatClient", "ChatResult", "EndpointError", "endpoint_host"]

#: Key sent when no key variable is named (local servers ignore it; the SDK needs one).
_NO_KEY = "EMPTY"
_RETRYABLE = (
    openai.RateLimitError,
    openai.InternalServerError,
    openai.APITimeoutError,
    openai.APIConnectionError,
)


class EndpointError(HeedfulError):
    """The endpoint refused a call, or kept failing after every retry.

    Attributes:
        stats: What the failed attempts cost (errors, latency).
    """

    def __init__(self, message: str, stats: CallStats | None = None) -> None:
        super().__init__(message)
        self.stats = stats or CallStats()


@dataclass(frozen=True)
class ChatResult:
    """One answered call: the response as plain JSON data, and what it cost."""

    response: dict[str, Any]
    stats: CallStats


def endpoint_host(base_url: str) -> str:
    """The host (and port) of an endpoint URL: what the manifest records, never a path or key."""
    parsed = urlparse(base_url)
    return parsed.netloc.rsplit("@", 1)[-1] or base_url


def _api_key(settings: AgentSettings) -> str:
    if settings.api_key_env is None:
        return _NO_KEY
    key = os.environ.get(settings.api_key_env)
    if not key:
        raise InvalidArgumentError(
            f"--api-key-env: environment variable {settings.api_key_env} is not set"
        )
    return key


class ChatClient:
    """Calls ``chat.completions`` with retries, usage accounting and the response cache.

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
        self._sdk = openai.AsyncOpenAI(
            api_key=_api_key(settings),
            base_url=settings.base_url,
            timeout=settings.timeout_s,
            max_retries=0,  # retries are ours: counted, and with our own backoff
        )

    def request(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], draw: str = ""
    ) -> dict[str, Any]:
        """The full request of one call (what the cache is keyed by; holds no key).

        ``draw`` names the sample (the trial): two trials that send the same messages are still
        two draws from the model, so they are cached apart. It and the endpoint are part of the
        cache key only, never sent.
        """
        s = self.settings
        req: dict[str, Any] = {
            "endpoint": s.base_url,
            "draw": draw,
            "model": s.model,
            "messages": messages,
            "tools": tools,
            "tool_choice": "auto",
            "temperature": s.temperature,
            "max_tokens": s.max_tokens,
        }
        if s.seed is not None:
            req["seed"] = s.seed
        return req

    async def chat(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], draw: str = ""
    ) -> ChatResult:
        """One chat completion (from the cache when it holds this exact request).

        Raises:
            EndpointError: a non-retryable refusal (400, 401, 404 …), or failures past every
                retry; the stats of the failed attempts are on ``exc.stats``.
        """
        req = self.request(messages, tools, draw)
        if self.cache is not None and (hit := self.cache.get(req)) is not None:
            return ChatResult(hit, CallStats(calls=1, cached_calls=1, **_tokens(hit)))
        stats = CallStats()
        s = self.settings
        body = {k: v for k, v in req.items() if k not in ("endpoint", "draw")}
        payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
        for attempt in range(s.retries + 1):
            start = time.perf_counter()
            try:
                # The SDK's own POST (its auth, headers, error types) without its per-call
                # re-typing of the messages and of the response: the body is already plain JSON
                # (encoded once, here), and the harness keeps the response as JSON (the cache
                # stores it as is).
                data = await self._sdk.post(
                    "/chat/completions",
                    content=payload,
                    cast_to=dict[str, Any],
                    options={"headers": {"Content-Type": "application/json"}},
                )
            except _RETRYABLE as exc:
                stats.errors += 1
                stats.latency_s += time.perf_counter() - start
                if attempt == s.retries:
                    raise EndpointError(
                        f"{type(exc).__name__} after {attempt + 1} attempts: {exc}", stats
                    ) from None
                await asyncio.sleep(min(s.backoff_s * 2**attempt, s.backoff_max_s))
                continue
            except openai.OpenAIError as exc:
                stats.errors += 1
                raise EndpointError(f"the endpoint refused the call: {exc}", stats) from None
            except ValueError as exc:  # a 200 whose body is not JSON (the SDK parses it raw)
                stats.errors += 1
                raise EndpointError(f"the endpoint sent a malformed body: {exc}", stats) from None
            stats.latency_s += time.perf_counter() - start
            if not isinstance(data, dict):
                stats.errors += 1
                raise EndpointError("the endpoint sent a body that is not a JSON object", stats)
            tokens = _tokens(data)
            stats.calls += 1
            stats.prompt_tokens += tokens["prompt_tokens"]
            stats.completion_tokens += tokens["completion_tokens"]
            if self.cache is not None:
                self.cache.put(req, data)
            return ChatResult(data, stats)
        raise AssertionError("unreachable")  # pragma: no cover

    async def aclose(self) -> None:
        """Close the HTTP connections and the cache."""
        await self._sdk.close()
        if self.cache is not None:
            self.cache.close()


def _tokens(data: dict[str, Any]) -> dict[str, int]:
    usage = data.get("usage") or {}
    out = {}
    for k in ("prompt_tokens", "completion_tokens"):
        v = usage.get(k) if isinstance(usage, dict) else None
        out[k] = int(v) if isinstance(v, int | float) else 0
    return out
