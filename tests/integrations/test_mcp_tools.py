"""The tool layer without a transport: validation, error messages, JSON conversion."""

from __future__ import annotations

import enum
import json
import math
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("mcp")

from heedful.integrations.mcp.tools import TOOLS, ToolFailure, call_tool, jsonable, tool_names


def test_every_tool_schema_refuses_unknown_arguments() -> None:
    for spec in TOOLS:
        assert spec.input_schema()["additionalProperties"] is False, spec.name


def _inspector_cli_arguments(spec: Any, pairs: dict[str, str]) -> dict[str, Any]:
    """What the MCP Inspector CLI sends for ``--tool-arg k=v``: text converted by the property's
    top-level ``type`` (number/integer → a number, boolean, object/array → JSON), else text."""
    props = spec.input_schema()["properties"]
    out: dict[str, Any] = {}
    for key, text in pairs.items():
        kind = props.get(key, {}).get("type")
        if kind in ("number", "integer"):
            out[key] = float(text) if "." in text else int(text)
        elif kind == "boolean":
            out[key] = text.lower() == "true"
        elif kind in ("object", "array"):
            out[key] = json.loads(text)
        else:
            out[key] = text
    return out


def test_every_optional_argument_has_a_top_level_type_for_cli_clients() -> None:
    for spec in TOOLS:
        for name, prop in spec.input_schema()["properties"].items():
            if "default" in prop and prop["default"] is None:
                assert "type" in prop and "anyOf" not in prop, (spec.name, name, prop)


def test_inspector_cli_text_arguments_reach_the_tool_as_numbers(fake_backend: Any) -> None:
    [rank] = [s for s in TOOLS if s.name == "attention_rank"]
    args = _inspector_cli_arguments(rank, {"budget": "3", "cost_weight": "0.5", "limit": "4"})
    call_tool(fake_backend, "attention_rank", args)
    [(called, kwargs)] = fake_backend.calls
    assert called == "rank"
    assert (kwargs["budget"], kwargs["cost_weight"], kwargs["limit"]) == (3, 0.5, 4)


def test_an_explicit_null_still_means_the_default(fake_backend: Any) -> None:
    call_tool(fake_backend, "attention_rank", {"budget": None, "cost_weight": None})
    [(called, kwargs)] = fake_backend.calls
    assert called == "rank"
    assert kwargs["budget"] is None and kwargs["cost_weight"] is None


def test_text_for_a_number_is_still_refused(fake_backend: Any) -> None:
    with pytest.raises(ToolFailure, match=r"budget: .*integer.*'3'"):
        call_tool(fake_backend, "attention_rank", {"budget": "3"})


def test_survey_defaults_include_idle_to_false(fake_backend: Any) -> None:
    call_tool(fake_backend, "attention_survey", None)
    assert fake_backend.calls == [("survey", {"include_idle": False})]


def test_run_cycle_passes_the_override_through(fake_backend: Any) -> None:
    out = call_tool(fake_backend, "attention_run_cycle", {"autonomy_override": "advise"})
    assert out["autonomy_level"] == "advise"
    assert fake_backend.calls == [("run_cycle", {"autonomy_override": "advise"})]


def test_wrong_type_names_the_argument_and_the_value(fake_backend: Any) -> None:
    with pytest.raises(ToolFailure, match=r"include_idle: .*boolean.*'yes'"):
        call_tool(fake_backend, "attention_survey", {"include_idle": "yes"})
    assert fake_backend.calls == []


def test_integer_is_not_coerced_to_boolean(fake_backend: Any) -> None:
    with pytest.raises(ToolFailure, match="include_idle"):
        call_tool(fake_backend, "attention_survey", {"include_idle": 1})


def test_unknown_argument_is_refused_with_the_accepted_names(fake_backend: Any) -> None:
    with pytest.raises(ToolFailure, match=r"unknown argument 'idle' \(accepted: include_idle\)"):
        call_tool(fake_backend, "attention_survey", {"idle": True})


def test_autonomy_outside_the_enum_is_refused(fake_backend: Any) -> None:
    with pytest.raises(ToolFailure, match="autonomy_override"):
        call_tool(fake_backend, "attention_run_cycle", {"autonomy_override": "godmode"})


def test_governance_refusal_becomes_a_tool_failure(fake_backend: Any) -> None:
    with pytest.raises(ToolFailure, match=r"^GovernanceError: .*exceeds the governance maximum"):
        call_tool(fake_backend, "attention_run_cycle", {"autonomy_override": "act"})


def test_unknown_tool_lists_the_available_ones(fake_backend: Any) -> None:
    with pytest.raises(ToolFailure, match="unknown tool 'attention_nap'; available: attention_"):
        call_tool(fake_backend, "attention_nap", {})


def test_rank_refuses_a_negative_budget(fake_backend: Any) -> None:
    with pytest.raises(ToolFailure, match=r"budget: Input should be greater than or equal to 0"):
        call_tool(fake_backend, "attention_rank", {"budget": -1})


def test_rank_passes_budget_claims_and_limit_through(fake_backend: Any) -> None:
    call_tool(fake_backend, "attention_rank", {"budget": 2, "about_to_claim": ["c"], "limit": 3})
    assert fake_backend.calls == [
        ("rank", {"budget": 2, "about_to_claim": ["c"], "cost_weight": None, "limit": 3}),
    ]


def test_resolve_requires_the_candidate_id(fake_backend: Any) -> None:
    with pytest.raises(ToolFailure, match="candidate_id: Field required"):
        call_tool(fake_backend, "attention_resolve", {"succeeded": True})


def test_unknown_nested_field_is_named_with_its_path(fake_backend: Any) -> None:
    with pytest.raises(ToolFailure, match=r"unknown field 'actual_cost\.dollars'"):
        call_tool(
            fake_backend, "attention_resolve", {"candidate_id": "a", "actual_cost": {"dollars": 1}}
        )


def test_resolve_hands_the_cost_over_as_a_plain_mapping(fake_backend: Any) -> None:
    call_tool(
        fake_backend, "attention_resolve", {"candidate_id": "a", "actual_cost": {"tokens": 5}}
    )
    ((_, outcome),) = fake_backend.calls
    assert outcome["actual_cost"] == {"tokens": 5.0, "tool_calls": 0.0, "latency_ms": 0.0}


def test_authority_above_one_is_refused(fake_backend: Any) -> None:
    with pytest.raises(ToolFailure, match="authority: Input should be less than or equal to 1"):
        call_tool(fake_backend, "attention_register_source", {"source_id": "s", "authority": 2})


def test_register_source_maps_authorities_onto_the_controller_names(fake_backend: Any) -> None:
    call_tool(
        fake_backend,
        "attention_register_source",
        {"source_id": "s", "authority": 0.7, "authority_by_claim_type": {"live": 0.9}},
    )
    ((_, metadata),) = fake_backend.calls
    assert (metadata["default_authority"], metadata["authority"]) == (0.7, {"live": 0.9})


def test_record_belief_refuses_an_unknown_volatility(fake_backend: Any) -> None:
    with pytest.raises(ToolFailure, match="volatility"):
        call_tool(
            fake_backend,
            "attention_record_belief",
            {"claim_id": "c", "value": "x", "volatility": "sometimes"},
        )


def test_goal_deadline_is_parsed_from_iso_8601_with_a_timezone(fake_backend: Any) -> None:
    call_tool(
        fake_backend,
        "attention_set_goal",
        {"goal_id": "g", "title": "ship", "due_at": "2026-12-01T12:00:00Z"},
    )
    ((_, fields),) = fake_backend.calls
    assert fields["due_at"].isoformat() == "2026-12-01T12:00:00+00:00"
    assert fields["status"] == "active"


def test_goal_deadline_without_a_timezone_is_refused(fake_backend: Any) -> None:
    with pytest.raises(ToolFailure, match="due_at: Input should have timezone info"):
        call_tool(
            fake_backend,
            "attention_set_goal",
            {"goal_id": "g", "title": "ship", "due_at": "2026-12-01T12:00:00"},
        )


def test_tool_names_are_unique() -> None:
    assert len(set(tool_names())) == len(tool_names())


class _Mode(enum.Enum):
    FOCUS = "focus"


@dataclass
class _Item:
    mode: _Mode
    score: float


def test_jsonable_converts_enums_dataclasses_tuples_and_nonfinite_floats() -> None:
    value = {"items": (_Item(_Mode.FOCUS, 0.5),), "bad": math.nan, 3: {"b", "a"}}
    assert jsonable(value) == {
        "items": [{"mode": "focus", "score": 0.5}],
        "bad": None,
        "3": ["a", "b"],
    }


def test_jsonable_refuses_unknown_objects() -> None:
    with pytest.raises(TypeError, match="object"):
        jsonable({"x": object()})


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    name=st.sampled_from([*tool_names(), "nope"]),
    arguments=st.dictionaries(
        st.sampled_from(
            [
                "include_idle",
                "autonomy_override",
                "budget",
                "limit",
                "candidate_id",
                "claim_id",
                "observations",
                "actual_cost",
                "source_id",
                "value",
                "authority",
                "x",
            ]
        ),
        _json,
        max_size=4,
    ),
)
def test_any_json_arguments_give_a_result_or_a_tool_failure(
    make_backend: Any, name: str, arguments: dict[str, Any]
) -> None:
    try:
        out = call_tool(make_backend(), name, arguments)
    except ToolFailure as exc:
        assert str(exc)
    else:
        json.dumps(out, allow_nan=False)


def test_every_object_argument_states_its_type_for_command_line_clients() -> None:
    # The MCP Inspector CLI converts `cost={"tool_calls": 2}` by the property's top-level
    # type; a bare $ref made it send a string (issue 25).
    from heedful.integrations.mcp.tools import TOOLS

    for spec in TOOLS:
        for name, prop in spec.input_schema().get("properties", {}).items():
            if "$ref" in prop:
                assert prop.get("type") == "object", (spec.name, name, prop)
    register = next(s for s in TOOLS if s.name == "attention_register_source")
    assert register.input_schema()["properties"]["cost"]["type"] == "object"
