"""Non-finite numbers (NaN, ±inf) in tool arguments are tool errors, never reach the backend."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("mcp")

from heedful.integrations.mcp.tools import ToolFailure, call_tool


@pytest.mark.parametrize(
    ("tool", "args", "field"),
    [
        ("attention_rank", {"cost_weight": float("nan")}, "cost_weight"),
        ("attention_rank", {"cost_weight": float("inf")}, "cost_weight"),
        (
            "attention_resolve",
            {"candidate_id": "c", "utility_delta": float("nan")},
            "utility_delta",
        ),
        (
            "attention_resolve",
            {"candidate_id": "c", "utility_delta": float("-inf")},
            "utility_delta",
        ),
    ],
)
def test_non_finite_number_is_a_tool_error_naming_the_argument(
    fake_backend: Any, tool: str, args: dict[str, Any], field: str
) -> None:
    with pytest.raises(ToolFailure, match=field):
        call_tool(fake_backend, tool, args)
    assert fake_backend.calls == []
