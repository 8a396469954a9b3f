"""Numeric claim values are read as their JSON text; values and mappings have size caps."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("mcp")

from heedful.integrations.mcp.arguments import MAX_ENTRIES, MAX_VALUE_CHARS
from heedful.integrations.mcp.tools import ToolFailure, call_tool


def test_numeric_belief_value_and_domain_are_read_as_text(fake_backend: Any) -> None:
    call_tool(
        fake_backend,
        "attention_record_belief",
        {"claim_id": "dep_version", "value": 4.1, "domain": [4.1, 4.2, 5]},
    )
    (name, args) = fake_backend.calls[-1]
    assert name == "record_belief"
    assert args["value"] == "4.1" and args["domain"] == ["4.1", "4.2", "5"]


def test_numeric_observation_is_read_as_text(fake_backend: Any) -> None:
    call_tool(fake_backend, "attention_resolve", {"candidate_id": "c", "observations": {"v": 7}})
    assert fake_backend.calls[-1][1]["observations"] == {"v": "7"}


@pytest.mark.parametrize(
    ("tool", "args", "field"),
    [
        ("attention_record_belief", {"claim_id": "v", "value": True}, "value"),
        ("attention_record_belief", {"claim_id": "v", "value": float("nan")}, "value"),
        (
            "attention_record_belief",
            {"claim_id": "v", "value": "x" * (MAX_VALUE_CHARS + 1)},
            "value",
        ),
        (
            "attention_register_source",
            {
                "source_id": "s",
                "authority_by_claim_type": {f"t{i}": 0.5 for i in range(MAX_ENTRIES + 1)},
            },
            "authority_by_claim_type",
        ),
        (
            "attention_resolve",
            {"candidate_id": "c", "observations": {f"c{i}": "a" for i in range(MAX_ENTRIES + 1)}},
            "observations",
        ),
    ],
)
def test_oversized_or_non_text_values_are_tool_errors(
    fake_backend: Any, tool: str, args: dict[str, Any], field: str
) -> None:
    with pytest.raises(ToolFailure, match=field):
        call_tool(fake_backend, tool, args)
    assert fake_backend.calls == []
