"""A call the controller refuses changes nothing: no lost selection, no half-applied state."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from tests_attention_time import NOW

from heedful.attention.controller import Controller
from heedful.errors import InvalidArgumentError
from heedful.model.candidate import Candidate, EventType
from heedful.model.goal import Goal, GoalStatus


def _selected(ctl: Controller) -> Candidate:
    ctl.begin_turn(budget=3)
    step = ctl.next()
    assert isinstance(step, Candidate) and step.target == "registry"
    return step


def test_a_refused_resolve_keeps_the_selection_for_a_retry(deploy_controller: Controller) -> None:
    step = _selected(deploy_controller)
    with pytest.raises(InvalidArgumentError, match="outside"):
        deploy_controller.resolve(step.id, observations={"dep_version": "5.0"})
    res = deploy_controller.resolve(step.id, observations={"dep_version": "4.2"})
    assert res.belief_changed is True


def test_a_refused_resolve_changes_no_belief_count_or_trace(
    deploy_controller: Controller,
) -> None:
    step = _selected(deploy_controller)
    beliefs = dict(deploy_controller.world.beliefs)
    events = len(deploy_controller.trace)
    with pytest.raises(InvalidArgumentError, match="compat_b_42"):
        deploy_controller.resolve(
            step.id, observations={"dep_version": "4.2", "compat_b_42": "maybe"}
        )
    assert deploy_controller.world.beliefs == beliefs
    assert deploy_controller.world.evidence == []
    assert deploy_controller.inspected == {}
    assert deploy_controller.spontaneous_reads == 0
    assert len(deploy_controller.trace) == events


def test_a_resolve_with_an_invalid_actual_cost_keeps_the_selection(
    deploy_controller: Controller,
) -> None:
    step = _selected(deploy_controller)
    with pytest.raises(InvalidArgumentError, match="cost"):
        deploy_controller.resolve(step.id, actual_cost={"tokens": -1})
    deploy_controller.resolve(step.id, actual_cost={"tokens": 1})
    assert deploy_controller.trace.of(EventType.INSPECTION_SUCCEEDED)


def test_a_withheld_resolve_with_observations_keeps_the_selection(
    deploy_controller: Controller,
) -> None:
    step = _selected(deploy_controller)
    with pytest.raises(InvalidArgumentError, match="withheld"):
        deploy_controller.resolve(step.id, withheld=True, observations={"dep_version": "4.2"})
    assert deploy_controller.committed == []
    deploy_controller.resolve(step.id, withheld=True)
    assert deploy_controller.committed == ["registry"]


def test_a_goal_change_the_store_refuses_leaves_the_controller_unchanged(
    tmp_path: Path,
) -> None:
    ctl = Controller(tmp_path / "m.db", clock=lambda: NOW)
    done = Goal(id="g", title="ship", status=GoalStatus.COMPLETED)
    ctl.add_goal(done)
    with pytest.raises(InvalidArgumentError, match="cannot go from completed"):
        ctl.add_goal(done.model_copy(update={"status": GoalStatus.ACTIVE}))
    assert ctl.world.goals["g"].status is GoalStatus.COMPLETED
    assert ctl.store is not None and ctl.store.get_goal("g").status is GoalStatus.COMPLETED


def test_a_source_the_store_refuses_leaves_the_previous_registration(tmp_path: Path) -> None:
    ctl = Controller(tmp_path / "m.db", clock=lambda: NOW)
    ctl.register_source("s", reports=["c"], cost={"tool_calls": 1})
    before = ctl.world.sources["s"]
    with pytest.raises(InvalidArgumentError, match="finite"):
        ctl.register_source("s", reports=["c"], cost={"tokens": math.inf})
    assert ctl.world.sources["s"] == before
    with pytest.raises(InvalidArgumentError, match="finite"):
        ctl.register_source("new", cost={"tokens": math.inf})
    assert "new" not in ctl.world.sources


def test_a_belief_the_store_refuses_leaves_the_previous_belief(tmp_path: Path) -> None:
    ctl = Controller(tmp_path / "m.db", clock=lambda: NOW)
    ctl.record_belief("x", "a", domain=["a", "b"])
    before = ctl.world.beliefs["x"]
    with pytest.raises(InvalidArgumentError, match="outside"):
        ctl.record_belief("x", "c", domain=["c", "d"])  # the store keeps the claim's domain
    assert ctl.world.beliefs["x"] == before
    assert ctl.store is not None and ctl.store.get_claim("x").value == "a"


def test_an_observation_for_a_claim_the_source_does_not_report_is_refused() -> None:
    ctl = Controller(clock=lambda: NOW)
    ctl.register_source("registry", reports=["dep_version"], authority=0.99)
    ctl.record_belief("dep_version", "4.1", domain=["4.1", "4.2"], age_s=21600, volatility="high")
    with pytest.raises(InvalidArgumentError, match="does not report 'dep_versoin'"):
        ctl.record_evidence("dep_versoin", "registry", "4.2")
    assert "dep_versoin" not in ctl.world.beliefs


# Code under test here reads the default clock (no clock= reaches it: the CLI, a server, a
# store opened by path): pinned, so no result depends on how long the machine takes.
pytestmark = pytest.mark.usefixtures("fixed_clock")
