"""Every MCP tool names an unknown argument — and only that — when given one."""

from __future__ import annotations

from typing import Any

import pytest

from heedful.integrations.mcp.tools import ToolFailure, call_tool, tool_names

#: The smallest valid arguments of each tool (a new tool must be added here).
REQUIRED: dict[str, dict[str, Any]] = {
    "attention_survey": {},
    "attention_run_cycle": {},
    "attention_engine_status": {},
    "attention_rank": {},
    "attention_resolve": {"candidate_id": "c"},
    "attention_check_claim": {"claim_id": "x"},
    "attention_register_source": {"source_id": "s"},
    "attention_sources": {},
    "attention_record_belief": {"claim_id": "x", "value": "a"},
    "attention_set_goal": {"goal_id": "g", "title": "ship"},
    "attention_health": {},
    "attention_review_proposal": {"proposal_id": "p-1", "decision": "reject"},
    "salience": {"text": "hello"},
}


def test_every_tool_is_covered() -> None:
    assert set(REQUIRED) == set(tool_names())


@pytest.mark.parametrize("tool", sorted(REQUIRED))
def test_an_unknown_argument_is_the_one_problem_named(fake_backend: Any, tool: str) -> None:
    with pytest.raises(ToolFailure) as info:
        call_tool(fake_backend, tool, {**REQUIRED[tool], "zz_extra": "notify"})
    message = str(info.value)
    assert "unknown argument 'zz_extra'" in message
    assert ";" not in message  # no second, misleading problem
    assert fake_backend.calls == []
