"""The controller does document 000 §7–§12 and §24 by itself, without the caller's help."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import numpy as np
import pytest
from tests_attention_time import NOW

from heedful.attention.config import (
    AttentionConfig,
    FloorConfig,
    SelectorConfig,
)
from heedful.attention.context import DecisionModel
from heedful.attention.controller import Controller, Stop
from heedful.attention.estimators import HeuristicEstimator
from heedful.attention.selector import Selector
from heedful.model.candidate import Candidate, CandidateKind, EventType, Floor, Trigger
from heedful.model.goal import ClaimDependency, Goal, GoalStatus


def _first(ctl: Controller) -> Candidate:
    step = ctl.next()
    assert isinstance(step, Candidate)
    return step


# -- §7 failed actions ---------------------------------------------------------------------------


def test_a_failed_inspection_becomes_a_diagnostic_candidate(deploy_controller: Controller) -> None:
    deploy_controller.begin_turn(budget=5)
    step = _first(deploy_controller)
    deploy_controller.resolve(step.id, succeeded=False)
    deploy_controller.refresh()
    diagnoses = [
        c for c in deploy_controller.candidates if c.kind is CandidateKind.DIAGNOSE_FAILURE
    ]
    assert [d.target for d in diagnoses] == [step.target]
    assert diagnoses[0].trigger is Trigger.FAILED_ACTION
    assert diagnoses[0].loss_if_wrong > 0
    assert diagnoses[0].cost == step.cost  # diagnosing costs about what the failed call cost


def test_failure_diagnosis_can_be_switched_off() -> None:
    from heedful.attention.config import GeneratorConfig

    ctl = Controller(
        config=AttentionConfig(generator=GeneratorConfig(diagnose_failures=False)),
        clock=lambda: NOW,
    )
    ctl.register_source("registry", reports=["v"], authority=0.9, cost={"tool_calls": 1})
    ctl.record_belief("v", "a", domain=["a", "b"], age_s=36000, confidence=0.6, volatility="high")
    ctl.about_to_claim("v")
    step = _first(ctl)
    ctl.resolve(step.id, succeeded=False)
    ctl.refresh()
    assert not [c for c in ctl.candidates if c.kind is CandidateKind.DIAGNOSE_FAILURE]


# -- §7, §11.5, §20.4 exploration ----------------------------------------------------------------


def test_small_and_unlimited_budgets_get_an_exploration_quota() -> None:
    sel = Selector(SelectorConfig(), np.random.default_rng(0))
    assert sel.exploration_quota(None) == 1
    assert sel.exploration_quota(3) == 1
    assert sel.exploration_quota(30) == 3
    assert sel.exploration_quota(0) == 0


def test_exploration_is_selected_under_a_small_budget() -> None:
    ctl = Controller(
        config=AttentionConfig(selector=SelectorConfig(exploration_rate=1.0, explore_paced=False)),
        clock=lambda: NOW,
    )
    ctl.register_source("odd", reports=["x"], authority=0.5, cost={"tool_calls": 1})
    ctl.begin_turn(budget=2)
    step = _first(ctl)
    assert step.trigger is Trigger.EXPLORATION
    assert ctl.trace.of(EventType.CANDIDATE_SELECTED)[-1].reason_code == "exploration"


def _paced_reasons(turns: int, budget: int, *, columns: bool) -> list[str]:
    """Selection reasons of a controller that always draws when it may (rate 1), over many
    short turns; sources enough that an unread one is always left to explore."""
    ctl = Controller(
        config=AttentionConfig(selector=SelectorConfig(exploration_rate=1.0)), clock=lambda: NOW
    )
    n = turns * budget + 1
    for i in range(n):
        ctl.register_source(f"s{i}", reports=[f"c{i}"], authority=0.9, cost={"tool_calls": 1})
        ctl.record_belief(f"c{i}", "a", domain=["a", "b"], confidence=0.5, age_s=3600.0)
    deps = [ClaimDependency(claim_id=f"c{i}") for i in range(n)]
    ctl.add_goal(Goal(id="g", title="t", status=GoalStatus.ACTIVE, depends_on=deps))
    if not columns:
        ctl.about_to_claim("c0")  # a pending claim: the object path
    for _ in range(turns):
        ctl.begin_turn(budget=budget)
        while isinstance(step := ctl.next(), Candidate):
            ctl.resolve(step.id, observations={step.claim_ids[0]: "a"})
    return [e.reason_code or "" for e in ctl.trace.of(EventType.CANDIDATE_SELECTED)]


@pytest.mark.parametrize("columns", [True, False])
def test_paced_exploration_waits_for_the_selections_that_pay_for_it(columns: bool) -> None:
    """Paced (the default), a one-turn controller with a budget of 3 never explores — a
    third of its reads would be a read it can learn nothing from for later — and over many
    turns exploration is at most 10 % of the selections, the first at the 10th."""
    first = _paced_reasons(1, 3, columns=columns)
    assert len(first) == 3 and "exploration" not in first
    reasons = _paced_reasons(12, 3, columns=columns)
    assert len(reasons) == 36
    explored = [i for i, r in enumerate(reasons) if r == "exploration"]
    assert explored == [9, 19, 29]  # the 10th, 20th and 30th selections (rate 1: as soon as paid)
    for n in range(1, len(reasons) + 1):
        assert sum(r == "exploration" for r in reasons[:n]) <= 0.1 * n + 1e-9


def test_an_unpaced_selector_explores_on_its_first_selection() -> None:
    paced = Selector(SelectorConfig(exploration_rate=1.0), np.random.default_rng(0))
    unpaced = Selector(
        SelectorConfig(exploration_rate=1.0, explore_paced=False), np.random.default_rng(0)
    )
    assert not paced._may_explore(3) and unpaced._may_explore(3)
    for _ in range(9):
        paced.made(
            Candidate(id="c", target="s", origin="t", trigger=Trigger.GOAL_DEPENDENCY),
            explored=False,
        )
    assert paced._may_explore(3)
    paced.made(
        Candidate(id="c", target="s", origin="t", trigger=Trigger.VALIDATOR, forced=True),
        explored=False,
    )
    assert paced.selections == 9  # a forced read is enforcement: it pays for nothing


# -- §8 candidate fields -------------------------------------------------------------------------


def test_loss_if_wrong_is_filled_from_the_estimate(deploy_controller: Controller) -> None:
    deploy_controller.begin_turn(budget=3)
    scored = deploy_controller.refresh()
    for cand, est in scored:
        if cand.kind is CandidateKind.INSPECT_SOURCE and est.p_change > 0:
            assert cand.loss_if_wrong == est.expected_loss > 0


def test_switch_cost_is_estimated_for_an_interruption_while_focused() -> None:
    ctl = Controller(clock=lambda: NOW)
    ctl.register_source("pager", trusted=True)
    ctl.set_focus("task-1", voc=0.5)
    ctl.interrupt("ev-1", "pager", declared_loss=2.0, category="urgent_now", goal_ids=["g1"])
    scored = ctl.refresh()
    (cand, est) = next((c, e) for c, e in scored if c.kind is CandidateKind.HANDLE_INTERRUPTION)
    cfg = ctl.config.estimator
    expected = cfg.switch_cost_base + cfg.switch_cost_focus_share * 0.5
    assert cand.switch_cost == est.switch_cost == expected
    assert cand.goal_ids == ("g1",)


def test_a_finished_interruption_hands_the_focus_back() -> None:
    ctl = Controller(clock=lambda: NOW)
    ctl.register_source("pager", trusted=True)
    ctl.set_focus("task-1", voc=0.1)
    ctl.interrupt("ev-1", "pager", declared_loss=5.0, category="page")
    ctl.begin_turn(budget=None)
    step = _first(ctl)
    assert step.kind is CandidateKind.HANDLE_INTERRUPTION
    assert ctl.focus is not None and ctl.focus.candidate_id == step.id
    assert ctl.trace.of(EventType.CANDIDATE_SELECTED)[-1].detail["category"] == "page"
    ctl.resolve(step.id, succeeded=True)
    assert ctl.focus is not None and ctl.focus.candidate_id == "task-1"
    resolved = ctl.trace.of(EventType.RESOLVED)[-1]
    assert resolved.detail["resumed_focus"] == "task-1"


# -- §11.2 floors from trusted metadata ----------------------------------------------------------


def _floored(
    config: AttentionConfig,
    decision: DecisionModel | None = None,
    estimator: HeuristicEstimator | None = None,
) -> Controller:
    ctl = Controller(config=config, estimator=estimator, clock=lambda: NOW)
    ctl.register_source("expensive", reports=["valve"], authority=0.99, cost={"tool_calls": 50})
    ctl.record_belief(
        "valve",
        "closed",
        claim_type="valve_state",
        domain=["closed", "open"],
        age_s=36000,
        confidence=0.99,
        volatility="medium",
    )
    if decision is not None:
        ctl.register_source("registry", reports=["dep_version"], authority=0.99)
        ctl.record_belief("dep_version", "4.1", domain=["4.1", "4.2"], age_s=36000, confidence=0.99)
        ctl.state_decision(replace(decision, irreversible=frozenset({"deploy_a"})))
    return ctl


def test_a_safety_critical_claim_type_gets_its_floor_from_configuration() -> None:
    plain = _floored(AttentionConfig())
    plain.about_to_claim("valve")
    plain.begin_turn(budget=3)
    assert isinstance(plain.next(), Stop)  # too expensive to be worth it by value alone
    floors = FloorConfig(claim_types={"valve_state": Floor.SAFETY_CRITICAL})
    ctl = _floored(AttentionConfig(floors=floors))
    ctl.about_to_claim("valve")
    ctl.begin_turn(budget=3)
    step = _first(ctl)
    assert step.floor is Floor.SAFETY_CRITICAL and step.target == "expensive"
    ctl.resolve(step.id, succeeded=True, observations={"valve": "closed"})
    assert isinstance(ctl.next(), Stop)  # a fresh read satisfies the floor


def test_an_irreversible_pending_action_on_stale_evidence_gets_a_floor(
    deploy_decision: DecisionModel,
) -> None:
    ctl = _floored(AttentionConfig(), deploy_decision)
    ctl.begin_turn(budget=3)
    step = _first(ctl)
    assert step.floor is Floor.IRREVERSIBLE_STALE and step.target == "registry"


def test_reversibility_raises_the_value_of_checking(deploy_decision: DecisionModel) -> None:
    # Reversibility (§3.3) is a term of the heuristic estimator.
    reversible = _floored(AttentionConfig(), estimator=HeuristicEstimator())
    reversible.state_decision(deploy_decision)
    reversible.register_source("registry", reports=["dep_version"], authority=0.99)
    reversible.record_belief("dep_version", "4.1", domain=["4.1", "4.2"], age_s=3600)
    irreversible = _floored(AttentionConfig(), estimator=HeuristicEstimator())
    irreversible.register_source("registry", reports=["dep_version"], authority=0.99)
    irreversible.record_belief("dep_version", "4.1", domain=["4.1", "4.2"], age_s=3600)
    irreversible.state_decision(replace(deploy_decision, irreversible=frozenset({"deploy_a"})))

    def gross(ctl: Controller) -> float:
        return max(e.gross for c, e in ctl.refresh() if c.target == "registry")

    assert gross(irreversible) > gross(reversible) > 0


# -- §3.3 historical usefulness, §25 contradiction priority and counter-evidence ----------------


def _two_sources() -> Controller:
    ctl = Controller(clock=lambda: NOW)
    ctl.register_source("a", reports=["x"], authority=0.8, kind="log", cost={"tool_calls": 1})
    ctl.register_source("b", reports=["x"], authority=0.8, kind="log", cost={"tool_calls": 1})
    ctl.record_belief(
        "x", "1", domain=["1", "2"], age_s=7200, confidence=0.8, volatility="high", source_id="a"
    )
    ctl.about_to_claim("x")
    return ctl


def test_reading_another_source_than_the_beliefs_own_gets_a_counter_evidence_bonus() -> None:
    ctl = _two_sources()
    gross = {c.target: e.gross for c, e in ctl.refresh()}
    assert gross["b"] > gross["a"]


def test_a_contradiction_candidate_is_boosted() -> None:
    ctl = _two_sources()
    before = {c.target: e.gross for c, e in ctl.refresh()}
    ctl.record_evidence("x", "a", "2")  # conflicts with the belief "1"
    ctl.record_belief("x", "1", domain=["1", "2"], age_s=7200, confidence=0.8, volatility="high")
    scored = ctl.refresh()
    check = next(c for c, _ in scored if c.target == "b")
    assert check.trigger is Trigger.CONTRADICTION
    assert max(e.gross for c, e in scored if c.target == "b") > before["b"]


def test_history_of_useless_reads_lowers_a_class_of_inspections() -> None:
    ctl = _two_sources()
    fresh = max(e.gross for c, e in ctl.refresh() if c.target == "b")
    for _ in range(ctl.config.estimator.usefulness_min_samples):
        ctl.instruments.inspected("log", "x", useful=False)
        ctl.instruments.inspected("live", "y", useful=True)
    assert max(e.gross for c, e in ctl.refresh() if c.target == "b") < fresh


# -- §12 trace -----------------------------------------------------------------------------------


def test_every_resolution_writes_a_resolved_record_with_the_utility_delta(
    deploy_controller: Controller,
) -> None:
    # A recent belief in 4.1: the agent would deploy A until the registry says 4.2.
    deploy_controller.record_belief(
        "dep_version", "4.1", domain=["4.1", "4.2"], age_s=600, confidence=0.9, volatility="high"
    )
    deploy_controller.begin_turn(budget=3)
    assert deploy_controller.best_action() == "deploy_a"
    step = _first(deploy_controller)
    assert step.target == "registry"
    deploy_controller.resolve(step.id, succeeded=True, observations={"dep_version": "4.2"})
    (rec,) = deploy_controller.trace.of(EventType.RESOLVED)
    assert rec.candidate_id == step.id and rec.predicted_voc is not None
    assert rec.resolution is not None and rec.resolution.decision_changed is True
    assert rec.resolution.utility_delta is not None and rec.resolution.utility_delta > 0
    assert rec.detail["evidence_used"] is True


def test_a_utility_delta_passed_by_the_agent_reaches_the_trace() -> None:
    ctl = Controller(clock=lambda: NOW)
    ctl.register_source("pager", trusted=True)
    ctl.interrupt("ev", "pager", declared_loss=3.0)
    step = _first(ctl)
    ctl.resolve(step.id, succeeded=True, utility_delta=0.63)
    (rec,) = ctl.trace.of(EventType.RESOLVED)
    assert rec.resolution is not None and rec.resolution.utility_delta == 0.63


def test_a_moved_prediction_is_logged_as_candidate_updated() -> None:
    now = [NOW]
    ctl = _two_sources()
    ctl.clock = lambda: now[0]
    ctl.refresh()
    ctl.refresh()  # nothing moved: nothing logged
    assert not ctl.trace.of(EventType.CANDIDATE_UPDATED)
    for minutes in (50, 100):  # the belief ages: its reads get more valuable
        now[0] = NOW + timedelta(minutes=minutes)
        ctl.refresh()
    updated = ctl.trace.of(EventType.CANDIDATE_UPDATED)
    assert {e.candidate_id for e in updated} == {c.id for c in ctl.candidates}
    assert all(e.predicted_voc is not None for e in updated)
    ctl.begin_turn(budget=1)
    ctl.next()  # the selected one is forgotten; only live candidates are remembered
    assert set(ctl.instruments._last_voc) <= {c.id for c in ctl.candidates}


def test_a_stop_with_nothing_to_consider_is_not_called_negative_voc() -> None:
    ctl = Controller(clock=lambda: NOW)
    ctl.begin_turn(budget=3)
    assert ctl.next() == Stop("no_candidates", None)
    assert ctl.trace.of(EventType.ATTENTION_TERMINATED_NO_CANDIDATES)
    assert not ctl.trace.of(EventType.ATTENTION_TERMINATED_NEGATIVE_VOC)


def test_an_opportunity_no_generator_can_serve_is_logged_as_not_fired() -> None:
    ctl = Controller(clock=lambda: NOW)
    ctl.record_belief("orphan", "v", domain=["v", "w"], age_s=86400, volatility="high")
    ctl.begin_turn(budget=3)
    ctl.next()
    skipped = [e for e in ctl.trace.of(EventType.CANDIDATE_SKIPPED) if e.reason_code == "not_fired"]
    assert {(e.detail["trigger"], e.detail["subject"]) for e in skipped} == {
        ("stale_belief", "orphan")
    }


# -- §24 anomalies -------------------------------------------------------------------------------


def _many(ctl: Controller, n: int, confidence: float, age_s: float) -> None:
    deps = [ClaimDependency(claim_id=f"c{i}", weight=1.0) for i in range(n)]
    ctl.add_goal(
        Goal(
            id="g",
            title="everything",
            status=GoalStatus.ACTIVE,
            depends_on=deps,
            consequence=1.0,
        )
    )
    for i in range(n):
        # Trusted: an untrusted source's claimed 0.99 is capped and could not saturate anything.
        ctl.register_source(
            f"s{i}", reports=[f"c{i}"], authority=0.99, cost={"tool_calls": 1}, trusted=True
        )
        ctl.record_belief(
            f"c{i}", "a", domain=["a", "b"], confidence=confidence, age_s=age_s, volatility="high"
        )
        ctl.about_to_claim(f"c{i}")


def test_saturation_near_maximum_raises_an_anomaly() -> None:
    ctl = Controller(clock=lambda: NOW)
    _many(ctl, 25, confidence=0.0, age_s=864000)
    ctl.begin_turn(budget=1)
    ctl.next()
    (alert,) = ctl.trace.of(EventType.ANOMALY_RAISED)
    assert alert.reason_code == "saturation"


def test_a_sudden_shift_of_the_priority_distribution_raises_an_anomaly() -> None:
    now = [NOW]
    ctl = Controller(clock=lambda: now[0])
    _many(ctl, 10, confidence=0.99, age_s=120)
    for _ in range(ctl.config.anomaly.warmup + 1):
        ctl.refresh()
    assert not ctl.trace.of(EventType.ANOMALY_RAISED)
    now[0] = NOW + timedelta(days=3)  # everything went stale at once
    ctl.refresh()
    kinds = [e.reason_code for e in ctl.trace.of(EventType.ANOMALY_RAISED)]
    assert "distribution_shift" in kinds


# -- §9 learned volatility per claim class -------------------------------------------------------


def test_a_claim_class_learns_its_change_rate_from_revisits() -> None:
    now = [NOW]
    ctl = Controller(clock=lambda: now[0])
    ctl.register_source("probe", reports=["q1", "q2"], authority=0.99, cost={"tool_calls": 1})
    for claim in ("q1", "q2"):
        ctl.record_belief(
            claim, "a", claim_type="queue", domain=["a", "b"], confidence=0.9, volatility="low"
        )
    default_p_stale = ctl.context().claims["q2"]
    values = ["b", "a", "b", "a", "b", "a"]
    for v in values:  # q1 flips every hour: far more volatile than "low"
        now[0] += timedelta(hours=1)
        ctl.record_evidence("q1", "probe", v)
    learned = ctl.instruments.volatility.hazard_per_hour("queue")
    assert learned is not None and learned > ctl.world.hazards[default_p_stale.volatility]
    assert ctl.context().claims["q2"].hazard_per_hour == learned
