"""The real backend (store, engine, controller on one SQLite file) through the MCP client."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp import Client

from heedful.engine import EngineConfig, GovernanceConfig
from heedful.errors import UnknownNameError
from heedful.integrations.mcp import StoreBackend, build_server, open_backend
from heedful.memory import Store


@pytest.fixture
def backend(seeded_db: Path) -> Iterator[StoreBackend]:
    opened = open_backend(seeded_db, EngineConfig(governance=GovernanceConfig(max_level="advise")))
    yield opened
    opened.close()


def _text(result: Any) -> str:
    return "".join(block.text for block in result.content)


def _session(
    backend: StoreBackend, bounded: Any, calls: list[tuple[str, dict[str, Any]]]
) -> list[Any]:
    """Run ``calls`` in one in-memory MCP session; return every result."""

    async def go() -> list[Any]:
        async with Client(build_server(backend)) as client:
            return [await client.call_tool(name, args) for name, args in calls]

    return list(bounded(go))


def test_rank_selects_the_authoritative_source_before_a_stale_claim(
    backend: StoreBackend, bounded: Any, deploy_setup: Any
) -> None:
    *_, rank = _session(
        backend,
        bounded,
        [*deploy_setup, ("attention_rank", {"budget": 3, "about_to_claim": ["dep_version"]})],
    )
    assert not rank.is_error, _text(rank)
    out = rank.structured_content
    assert out["next"]["action"] == "execute"
    assert out["next"]["candidate"]["target"] == "registry"
    vocs = [entry["estimate"]["net"] for entry in out["ranking"]]
    assert vocs == sorted(vocs, reverse=True)
    # One recomputation (issue 24): the selected candidate is ranked with the others, first
    # here, with the estimate it was selected by, and the count includes it.
    ids = [entry["candidate"]["id"] for entry in out["ranking"]]
    assert ids[0] == out["next"]["candidate"]["id"]
    assert out["ranking"][0]["estimate"]["net"] == out["next"]["candidate"]["predicted_voc"]
    assert out["candidates"] == len(backend.controller.candidates) + 1


def test_resolve_updates_the_belief_and_returns_the_next_step(
    backend: StoreBackend, bounded: Any, deploy_setup: Any
) -> None:
    async def go() -> tuple[Any, Any]:
        async with Client(build_server(backend)) as client:
            for name, args in deploy_setup:
                await client.call_tool(name, args)
            rank = await client.call_tool(
                "attention_rank", {"budget": 3, "about_to_claim": ["dep_version"]}
            )
            chosen = rank.structured_content["next"]["candidate"]["id"]
            resolved = await client.call_tool(
                "attention_resolve",
                {"candidate_id": chosen, "observations": {"dep_version": "4.2"}},
            )
            return chosen, resolved

    chosen, resolved = bounded(go)
    assert not resolved.is_error, _text(resolved)
    out = resolved.structured_content
    assert out["candidate_id"] == chosen
    assert out["resolution"]["belief_changed"] is True
    assert out["next"]["action"] in ("execute", "stop")
    assert backend.controller.world.beliefs["dep_version"].value == "4.2"


def test_check_claim_flags_stale_live_state_without_blocking_in_attention_only_mode(
    backend: StoreBackend, bounded: Any, deploy_setup: Any
) -> None:
    *_, verdict = _session(
        backend, bounded, [*deploy_setup, ("attention_check_claim", {"claim_id": "dep_version"})]
    )
    out = verdict.structured_content
    assert (out["ok"], out["blocked"], out["mode"]) == (False, False, "attention_only")
    assert out["violations"] == ["fresh_authoritative_evidence"]
    assert out["required_sources"] == ["registry"]


def test_unknown_claim_is_a_tool_error_naming_it(backend: StoreBackend, bounded: Any) -> None:
    (verdict,) = _session(backend, bounded, [("attention_check_claim", {"claim_id": "nope"})])
    assert verdict.is_error
    assert _text(verdict).startswith("UnknownNameError: unknown claim 'nope'")


def test_unknown_candidate_is_a_tool_error_and_the_session_goes_on(
    backend: StoreBackend, bounded: Any
) -> None:
    bad, good = _session(
        backend,
        bounded,
        [("attention_resolve", {"candidate_id": "attn-404"}), ("attention_survey", {})],
    )
    assert bad.is_error
    assert "attn-404" in _text(bad)
    assert not good.is_error


def test_registered_sources_and_beliefs_are_written_to_the_store(
    backend: StoreBackend, bounded: Any, deploy_setup: Any, seeded_db: Path
) -> None:
    _session(backend, bounded, deploy_setup)
    with Store.open(seeded_db) as store:
        assert {s.id for s in store.sources()} == {"registry", "cached_summary"}
        assert store.get_claim("dep_version").value == "4.1"


def test_survey_lists_the_active_goal_in_the_document_002_shape(
    backend: StoreBackend, bounded: Any
) -> None:
    (survey,) = _session(backend, bounded, [("attention_survey", {"include_idle": True})])
    out = survey.structured_content
    assert out["status"] == "ok"
    assert [item["goal_id"] for item in out["attention_items"]] == ["goal-deploy"]
    assert {"attention_score", "dispatch_mode", "coverage_score", "max_kappa"} <= set(
        out["attention_items"][0]
    )
    assert json.loads(_text(survey)) == out


def test_run_cycle_above_the_governance_maximum_is_refused(
    backend: StoreBackend, bounded: Any
) -> None:
    refused, allowed = _session(
        backend,
        bounded,
        [
            ("attention_run_cycle", {"autonomy_override": "act"}),
            ("attention_run_cycle", {"autonomy_override": "observe"}),
        ],
    )
    assert refused.is_error
    assert _text(refused).startswith("GovernanceError: ")
    assert not allowed.is_error
    assert allowed.structured_content["autonomy_level"] == "observe"
    assert backend.engine.cycles_run == 1


def test_beliefs_recorded_in_one_session_are_known_to_the_next(
    seeded_db: Path, bounded: Any, deploy_setup: Any
) -> None:
    first = open_backend(seeded_db)
    try:
        _session(first, bounded, deploy_setup)
    finally:
        first.close()
    second = open_backend(seeded_db)
    try:
        (verdict,) = _session(
            second, bounded, [("attention_check_claim", {"claim_id": "dep_version"})]
        )
    finally:
        second.close()
    assert not verdict.is_error, _text(verdict)
    assert verdict.structured_content["claim_type"] == "live_system_state"


def test_a_goal_set_over_mcp_appears_in_the_survey(tmp_path: Path, bounded: Any) -> None:
    fresh = open_backend(tmp_path / "fresh.db")
    try:
        goal, survey = _session(
            fresh,
            bounded,
            [
                ("attention_set_goal", {"goal_id": "g1", "title": "ship it", "priority": "high"}),
                ("attention_survey", {"include_idle": True}),
            ],
        )
    finally:
        fresh.close()
    assert goal.structured_content["goal"]["status"] == "active"
    assert [i["goal_id"] for i in survey.structured_content["attention_items"]] == ["g1"]


def test_an_illegal_goal_transition_is_a_tool_error(backend: StoreBackend, bounded: Any) -> None:
    (result,) = _session(
        backend,
        bounded,
        [("attention_set_goal", {"goal_id": "goal-deploy", "title": "t", "status": "proposed"})],
    )
    assert result.is_error
    assert _text(result).startswith("InvalidArgumentError: goal 'goal-deploy' cannot go from")


def test_a_source_registered_over_mcp_is_trusted_only_when_vouched_for(
    backend: StoreBackend, seeded_db: Path
) -> None:
    backend.register_source("registry", reports=["dep_version"], trusted=True)
    backend.register_source("page", reports=["dep_version"])
    assert backend.controller.world.source("registry").trusted
    assert not backend.controller.world.source("page").trusted
    with Store.open(seeded_db) as store:
        assert store.get_source("registry").trusted
        assert not store.get_source("page").trusted


def test_a_stated_failure_rate_reaches_the_controller_and_the_store(
    backend: StoreBackend, bounded: Any, seeded_db: Path
) -> None:
    flaky = {"source_id": "probe", "reports": ["dep_version"], "failure_rate": 0.4}
    bad = {"source_id": "probe2", "failure_rate": 1.0}
    ok, refused = _session(
        backend,
        bounded,
        [("attention_register_source", flaky), ("attention_register_source", bad)],
    )
    assert not ok.is_error
    assert json.loads(_text(ok))["source"]["failure_rate"] == 0.4
    assert backend.controller.world.failure_rate("probe") == pytest.approx(0.4)
    assert refused.is_error and "failure_rate" in _text(refused)
    with Store.open(seeded_db) as store:
        assert store.get_source("probe").failure_rate == pytest.approx(0.4)
        with pytest.raises(UnknownNameError):
            store.get_source("probe2")


def test_links_reach_the_controller_and_the_store(
    backend: StoreBackend, bounded: Any, seeded_db: Path
) -> None:
    catalogue = {"source_id": "catalogue", "links": 2}
    ok, refused = _session(
        backend,
        bounded,
        [
            ("attention_register_source", catalogue),
            ("attention_register_source", {"source_id": "c2", "links": -1}),
        ],
    )
    assert not ok.is_error and json.loads(_text(ok))["source"]["links"] == 2
    assert backend.controller.world.source("catalogue").links == 2
    assert refused.is_error and "links" in _text(refused)
    with Store.open(seeded_db) as store:
        assert store.get_source("catalogue").links == 2


# Code under test here reads the default clock (no clock= reaches it: the CLI, a server, a
# store opened by path): pinned, so no result depends on how long the machine takes.
pytestmark = pytest.mark.usefixtures("fixed_clock")
