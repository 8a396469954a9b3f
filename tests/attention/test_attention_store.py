from __future__ import annotations

from pathlib import Path

import pytest
from tests_attention_time import NOW

from heedful.attention.controller import Controller, Stop
from heedful.errors import InvalidArgumentError
from heedful.memory import Store
from heedful.model.candidate import Candidate, EventType, Trigger
from heedful.model.claim import Justification, JustificationKind
from heedful.model.goal import ClaimDependency, Goal, GoalStatus


def _setup(ctl: Controller) -> None:
    ctl.register_source("db", reports=["rows"], authority=0.95, cost={"tool_calls": 1})
    ctl.record_belief("rows", "many", domain=["many", "few"], confidence=0.9, volatility="low")
    ctl.add_goal(
        Goal(
            id="g",
            title="report rows",
            status=GoalStatus.ACTIVE,
            consequence=3.0,
            depends_on=[ClaimDependency(claim_id="rows")],
        )
    )


def test_the_trace_is_appended_to_the_store(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "m.db")
    ctl = Controller(store, clock=lambda: NOW)
    _setup(ctl)
    ctl.begin_turn(budget=0)
    ctl.next()
    events = [e.event for e in store.trace()]
    assert EventType.ATTENTION_BUDGET_EXHAUSTED.value in events
    store.close()


def test_a_reopened_store_restores_beliefs_sources_and_goals(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    first = Controller(str(path), clock=lambda: NOW)
    _setup(first)
    assert first.store is not None
    first.store.close()
    again = Controller(path, clock=lambda: NOW)
    assert again.world.beliefs["rows"].value == "many"
    assert again.world.claimed["db"].authority_for("rows") == 0.95  # as registered (untrusted)
    assert "g" in again.world.goals


def test_evidence_is_written_through_and_updates_the_stored_claim(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "m.db")
    ctl = Controller(store, clock=lambda: NOW)
    _setup(ctl)
    ctl.record_evidence("rows", "db", "few")
    assert [e.value for e in store.evidence("rows")] == ["few"]
    assert store.get_claim("rows").value == ctl.world.beliefs["rows"].value
    store.close()


def test_truth_maintenance_in_the_store_raises_a_dirty_belief_candidate(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "m.db")
    ctl = Controller(store, clock=lambda: NOW)
    ctl.register_source("db", reports=["rows"], authority=0.95, cost={"tool_calls": 1})
    ctl.register_source("cfg", reports=["schema"], authority=0.95, cost={"tool_calls": 1})
    ctl.record_belief("schema", "v1", domain=["v1", "v2"], volatility="immutable")
    ctl.record_belief("rows", "many", domain=["many", "few"], volatility="immutable")
    store.add_justification(
        Justification(subject="rows", kind=JustificationKind.DERIVED_FROM, object="schema")
    )
    ctl.record_evidence("schema", "cfg", "v2")  # upstream changed: "rows" becomes dirty
    ctl.begin_turn(budget=3)
    ctl.refresh()
    dirty = [c for c in ctl.candidates if c.trigger is Trigger.DIRTY_BELIEF]
    assert ctl.world.beliefs["rows"].dirty
    assert [c.target for c in dirty] == ["db"]
    store.close()


def test_the_controller_runs_unchanged_with_a_store(tmp_path: Path) -> None:
    ctl = Controller(tmp_path / "m.db", clock=lambda: NOW)
    _setup(ctl)
    ctl.begin_turn(budget=2)
    seen = 0
    while not isinstance(step := ctl.next(), Stop):
        assert isinstance(step, Candidate)
        ctl.resolve(step.id, succeeded=True, observations={"rows": "few"})
        seen += 1
    assert 1 <= seen <= 2


def test_a_reopened_controller_proposes_inspections_without_registering_again(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.db"
    first = Controller(path, clock=lambda: NOW)
    first.register_source(
        "registry",
        reports=["dep_version"],
        authority=0.99,
        cost={"tool_calls": 1, "tokens": 180, "latency_ms": 900},
    )
    first.register_source("summary", reports=["dep_version"], authority=0.5, age_s=21600)
    first.record_belief(
        "dep_version", "4.1", domain=["4.1", "4.2"], age_s=21600, confidence=0.9, volatility="high"
    )
    first.add_goal(
        Goal(
            id="deploy",
            title="deploy",
            status=GoalStatus.ACTIVE,
            consequence=3.0,
            depends_on=[ClaimDependency(claim_id="dep_version")],
        )
    )
    assert first.store is not None
    first.store.close()
    again = Controller(path, clock=lambda: NOW)
    assert again.world.sources == first.world.sources  # reports, full cost and data age
    again.begin_turn(budget=3)
    step = again.next()
    assert isinstance(step, Candidate) and step.target == "registry"
    assert step.claim_ids == ("dep_version",)


def test_evidence_on_a_claim_with_no_recorded_belief_is_written_through(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "m.db")
    ctl = Controller(store, clock=lambda: NOW)
    ctl.register_source("db", reports=["rows"], authority=0.95)
    assert ctl.record_evidence("rows", "db", "few") is True
    assert store.get_claim("rows").value == ctl.world.beliefs["rows"].value == "few"
    assert [e.value for e in store.evidence("rows")] == ["few"]
    store.close()


def test_a_reopened_controller_keeps_the_evidence_its_claim_checks_rest_on(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.db"
    first = Controller(path, clock=lambda: NOW)
    first.register_source("probe", reports=["svc_up"], authority=0.99, kind="live_instrument")
    first.record_belief("svc_up", "yes", domain=["yes", "no"], claim_type="live_system_state")
    first.record_evidence("svc_up", "probe", "yes")
    assert first.check_claim("svc_up").ok
    assert first.store is not None
    first.store.close()
    again = Controller(path, clock=lambda: NOW)
    assert [(e.source_id, e.value) for e in again.world.evidence] == [("probe", "yes")]
    assert again.check_claim("svc_up").ok


# Code under test here reads the default clock (no clock= reaches it: the CLI, a server, a
# store opened by path): pinned, so no result depends on how long the machine takes.
pytestmark = pytest.mark.usefixtures("fixed_clock")


def test_a_calls_trace_reaches_the_store_whole_and_in_order(tmp_path: Path) -> None:
    """Batched (one transaction a call, issue 24): the store holds every event the controller
    wrote, in the same order, with the same types and candidates, after each public call."""
    store = Store.open(tmp_path / "m.db")
    ctl = Controller(store, clock=lambda: NOW)
    _setup(ctl)
    ctl.begin_turn(budget=2)
    step = ctl.next()
    assert isinstance(step, Candidate)
    assert len(store.trace()) == len(ctl.trace)  # flushed when next() returned
    ctl.resolve(step.id, observations={"rows": "few"})
    ctl.refresh()
    ctl.next()
    stored = [(r.event, r.candidate_id) for r in store.trace()]
    mine = [(e.event.value, e.candidate_id) for e in ctl.trace]
    assert stored == mine
    store.close()


def test_the_events_of_a_refused_call_before_it_failed_still_reach_the_store(
    tmp_path: Path,
) -> None:
    store = Store.open(tmp_path / "m.db")
    ctl = Controller(store, clock=lambda: NOW)
    _setup(ctl)
    ctl.begin_turn(budget=2)
    step = ctl.next()
    assert isinstance(step, Candidate)
    before = len(store.trace())
    with pytest.raises(InvalidArgumentError, match="outside"):
        ctl.resolve(step.id, observations={"rows": "not-a-value"})
    assert len(store.trace()) == before == len(ctl.trace)  # nothing written, nothing lost
    ctl.resolve(step.id, observations={"rows": "few"})  # the candidate stayed in flight
    assert len(store.trace()) == len(ctl.trace)
    store.close()
