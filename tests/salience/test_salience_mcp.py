"""The ``salience`` MCP tool: same pipeline, same history shapes, tool errors for bad items."""

from __future__ import annotations

import pytest

pytest.importorskip("mcp")

from heedful.integrations.mcp.tools import ToolFailure, call_tool, tool_names


def test_salience_is_listed() -> None:
    assert "salience" in tool_names()


def test_chat_history_sets_focus_and_fragments_are_filtered() -> None:
    out = call_tool(
        object(),  # type: ignore[arg-type]  # the tool never touches the backend
        "salience",
        {
            "text": "More about Docker",
            "history": [
                {"role": "user", "content": "Tell me about Docker"},
                {"role": "assistant", "content": "Docker runs containers."},
            ],
            "fragments": ["Docker ports", "Python venv"],
        },
    )
    assert out["topics"] == ["Docker"]
    assert out["focus_duration"] == 2
    assert out["fragments"] == ["Docker ports"]
    assert set(out) == {
        "urgency",
        "topics",
        "focus_duration",
        "priority_tools",
        "context_filter",
        "context_depth",
        "fragments",
    }
    assert out["context_depth"] == 10  # focus 2: one more step of history (document 003 step 4)


def test_without_history_it_is_a_first_turn() -> None:
    out = call_tool(object(), "salience", {"text": "The server is down! Fix it immediately!"})  # type: ignore[arg-type]
    assert out["urgency"] == 2 / 7
    assert out["focus_duration"] == 1
    assert "fragments" not in out


def test_bad_history_item_is_a_tool_error_naming_it() -> None:
    with pytest.raises(ToolFailure, match=r"history\[1\]\.role: unknown role 'robot'"):
        call_tool(
            object(),  # type: ignore[arg-type]
            "salience",
            {"text": "hi", "history": ["ok", {"role": "robot", "content": "x"}]},
        )


def test_non_list_history_is_refused_by_the_schema() -> None:
    with pytest.raises(ToolFailure, match="history"):
        call_tool(object(), "salience", {"text": "hi", "history": "hello"})  # type: ignore[arg-type]


def test_missing_text_is_refused() -> None:
    with pytest.raises(ToolFailure, match="text"):
        call_tool(object(), "salience", {})  # type: ignore[arg-type]
