"""The MCP server in memory, through the SDK's own client, in both protocol eras."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp import Client

from heedful.integrations.mcp import build_server, tool_names

# "auto" negotiates the 2026-07-28 per-request protocol in process; "legacy" runs the
# initialize handshake over in-memory streams, as stdio and HTTP clients of 2025 do.
MODES = ["auto", "legacy"]


def _text(result: Any) -> str:
    return "".join(block.text for block in result.content)


@pytest.mark.parametrize("mode", MODES)
def test_lists_every_tool_with_a_strict_schema(fake_backend: Any, bounded: Any, mode: str) -> None:
    async def go() -> Any:
        async with Client(build_server(fake_backend), mode=mode) as client:
            return await client.list_tools()

    listed = bounded(go)
    assert [tool.name for tool in listed.tools] == tool_names()
    assert all(tool.input_schema["additionalProperties"] is False for tool in listed.tools)


@pytest.mark.parametrize("mode", MODES)
def test_survey_returns_structured_content_and_the_same_json_text(
    fake_backend: Any, bounded: Any, mode: str
) -> None:
    async def go() -> Any:
        async with Client(build_server(fake_backend), mode=mode) as client:
            return await client.call_tool("attention_survey", {"include_idle": True})

    result = bounded(go)
    assert not result.is_error
    assert result.structured_content["attention_items"][1]["dispatch_mode"] == "idle"
    assert json.loads(_text(result)) == result.structured_content


def test_survey_is_marked_read_only_and_run_cycle_is_not(fake_backend: Any, bounded: Any) -> None:
    async def go() -> Any:
        async with Client(build_server(fake_backend)) as client:
            return await client.list_tools()

    hints = {tool.name: tool.annotations.read_only_hint for tool in bounded(go).tools}
    assert hints["attention_survey"] is True
    assert hints["attention_run_cycle"] is False


@pytest.mark.parametrize("mode", MODES)
def test_bad_call_then_good_call_on_the_same_session(
    fake_backend: Any, bounded: Any, mode: str
) -> None:
    async def go() -> tuple[Any, Any]:
        async with Client(build_server(fake_backend), mode=mode) as client:
            bad = await client.call_tool("attention_survey", {"include_idle": "yes"})
            good = await client.call_tool("attention_survey", {})
            return bad, good

    bad, good = bounded(go)
    assert bad.is_error
    assert "include_idle" in _text(bad)
    assert not good.is_error
    assert good.structured_content["status"] == "ok"


def test_autonomy_above_the_governance_maximum_is_a_tool_error(
    fake_backend: Any, bounded: Any
) -> None:
    async def go() -> Any:
        async with Client(build_server(fake_backend)) as client:
            return await client.call_tool("attention_run_cycle", {"autonomy_override": "act"})

    result = bounded(go)
    assert result.is_error
    assert _text(result).startswith("GovernanceError: ")


def test_unknown_tool_is_a_tool_error(fake_backend: Any, bounded: Any) -> None:
    async def go() -> Any:
        async with Client(build_server(fake_backend)) as client:
            return await client.call_tool("attention_nap", {})

    result = bounded(go)
    assert result.is_error
    assert "unknown tool 'attention_nap'" in _text(result)


@pytest.mark.parametrize("mode", MODES)
def test_unexpected_exception_is_reported_and_the_server_keeps_serving(
    fake_backend: Any, bounded: Any, mode: str
) -> None:
    async def go() -> tuple[Any, Any]:
        async with Client(build_server(fake_backend), mode=mode) as client:
            fake_backend.explode = True
            broken = await client.call_tool("attention_survey", {})
            fake_backend.explode = False
            return broken, await client.call_tool("attention_survey", {})

    broken, after = bounded(go)
    assert broken.is_error
    assert "internal error in attention_survey: RuntimeError: simulated bug" in _text(broken)
    assert not after.is_error
