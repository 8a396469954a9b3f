"""The chat client against the scripted endpoint over real HTTP: usage, retries, cache, errors."""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from heedful.bench.agents.contract import AgentSettings
from heedful.bench.views import policy_view
from heedful.errors import InvalidArgumentError
from heedful.integrations.llm import (
    ChatClient,
    EndpointError,
    ResponseCache,
    ScriptedServer,
    endpoint_host,
    parse_message,
    render_messages,
)

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "decide",
            "parameters": {
                "type": "object",
                "properties": {
                    "action": {"type": "string", "enum": ["ship", "hold"]},
                    "beliefs": {"type": "object", "properties": {}},
                },
            },
        },
    }
]


def _messages(scenario: Any) -> list[dict[str, Any]]:
    return render_messages(policy_view(scenario), advised=False)


def _chat(settings: AgentSettings, messages: list[dict[str, Any]], **kw: Any) -> Any:
    async def go() -> Any:
        client = ChatClient(settings, **kw)
        try:
            return await client.chat(messages, TOOLS)
        finally:
            await client.aclose()

    return asyncio.run(go())


def test_a_call_returns_tool_calls_usage_and_latency(
    scripted: Callable[..., ScriptedServer], settings_for: Any, llm_unprompted: Any
) -> None:
    server = scripted("summary-trusting")
    result = _chat(settings_for(server), _messages(llm_unprompted))
    _, calls = parse_message(result.response)
    assert [name for _, name, _ in calls] == ["decide"]
    assert result.stats.calls == 1 and result.stats.prompt_tokens > 0
    assert result.stats.completion_tokens > 0 and result.stats.latency_s > 0
    assert server.requests == 1


def test_429_and_500_are_retried_with_backoff(
    scripted: Callable[..., ScriptedServer], settings_for: Any, llm_unprompted: Any
) -> None:
    server = scripted("flaky")
    result = _chat(settings_for(server, timeout_s=5.0), _messages(llm_unprompted))
    assert result.stats.errors == 2 and server.requests == 3  # turn 0: a 429, then a 500


def test_failures_past_every_retry_raise_endpoint_error_with_stats(
    scripted: Callable[..., ScriptedServer], settings_for: Any, llm_unprompted: Any
) -> None:
    server = scripted("broken")
    with pytest.raises(EndpointError, match="malformed body") as info:
        _chat(settings_for(server), _messages(llm_unprompted))
    assert info.value.stats.errors == 1


def test_a_404_is_not_retried(
    scripted: Callable[..., ScriptedServer], settings_for: Any, llm_unprompted: Any
) -> None:
    server = scripted("careful")
    settings = settings_for(server, base_url=server.base_url.replace("/v1", "/nowhere"))
    with pytest.raises(EndpointError, match="refused"):
        _chat(settings, _messages(llm_unprompted))
    assert server.requests == 0  # the route does not exist: nothing was played


def test_the_cache_replays_without_calling_the_endpoint(
    scripted: Callable[..., ScriptedServer], settings_for: Any, llm_unprompted: Any, tmp_path: Path
) -> None:
    server = scripted("summary-trusting")
    settings = settings_for(server, cache=str(tmp_path / "cache.sqlite"))
    first = _chat(settings, _messages(llm_unprompted))
    again = _chat(settings, _messages(llm_unprompted))
    assert server.requests == 1
    assert again.response == first.response
    assert again.stats.cached_calls == 1 and again.stats.latency_s == 0.0
    assert len(ResponseCache(tmp_path / "cache.sqlite")) == 1


def test_the_cache_file_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    # It holds every prompt sent and every answer: private like a store, whatever the umask.
    old = os.umask(0o022)
    try:
        cache = ResponseCache(tmp_path / "c" / "cache.sqlite")
        cache.put({"q": 1}, {"a": 1})
        cache.close()
    finally:
        os.umask(old)
    for name in ("cache.sqlite", "cache.sqlite-wal", "cache.sqlite-shm"):
        path = tmp_path / "c" / name
        if path.exists():
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, name


def test_the_key_is_read_from_the_named_variable_and_never_stored(
    scripted: Callable[..., ScriptedServer],
    settings_for: Any,
    llm_unprompted: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HEEDFUL_TEST_KEY", "sk-very-secret-123")
    server = scripted("summary-trusting")
    cache = tmp_path / "c.sqlite"
    settings = settings_for(server, api_key_env="HEEDFUL_TEST_KEY", cache=str(cache))
    _chat(settings, _messages(llm_unprompted))
    assert b"sk-very-secret" not in cache.read_bytes()
    assert "sk-very-secret" not in settings.model_dump_json()


def test_a_named_but_unset_key_variable_is_one_clear_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("HEEDFUL_NO_SUCH_KEY", raising=False)
    settings = AgentSettings(
        model="m", base_url="http://127.0.0.1:9/v1", api_key_env="HEEDFUL_NO_SUCH_KEY"
    )
    with pytest.raises(InvalidArgumentError, match="HEEDFUL_NO_SUCH_KEY is not set"):
        ChatClient(settings)


def test_a_base_url_that_is_not_http_is_refused() -> None:
    with pytest.raises(ValueError, match="not an http"):
        AgentSettings(model="m", base_url="127.0.0.1:8000")


def test_endpoint_host_keeps_host_and_port_only() -> None:
    assert endpoint_host("https://user:pw@api.example.com:8443/v1") == "api.example.com:8443"


def test_scripted_server_refuses_non_loopback() -> None:
    with pytest.raises(InvalidArgumentError, match="loopback"):
        ScriptedServer("careful", host="0.0.0.0")


def test_a_local_models_cache_key_does_not_depend_on_its_loopback_port() -> None:
    # Each run serves a local model on a port it picks: a resumed run must find its answers.
    def key(url: str, model: str) -> dict[str, Any]:
        client = ChatClient(AgentSettings(model=model, base_url=url))
        try:
            return client.request([{"role": "user", "content": "x"}], [], "s#0")
        finally:
            asyncio.run(client.aclose())

    a = key("http://127.0.0.1:40001/v1", "local:smollm2-135m")
    assert a == key("http://127.0.0.1:40002/v1", "local:smollm2-135m")
    assert key("http://127.0.0.1:40001/v1", "m") != key("http://127.0.0.1:40002/v1", "m")
