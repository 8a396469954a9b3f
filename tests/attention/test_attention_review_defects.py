"""Regression tests for defects found in review: each failed before its fix."""

from __future__ import annotations

import math
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest
from pydantic import ValidationError
from tests_attention_time import NOW

from heedful.attention.config import GeneratorConfig, GuardConfig, SelectorConfig
from heedful.attention.controller import Controller
from heedful.attention.estimators import Estimate
from heedful.attention.selector import Selector
from heedful.errors import InvalidArgumentError, StoreError
from heedful.memory import Store
from heedful.model.candidate import Candidate, CandidateKind, Floor, Trigger
from heedful.model.goal import ClaimDependency, Goal, GoalStatus


def _two_source_controller() -> Controller:
    ctl = Controller(clock=lambda: NOW)
    ctl.register_source(
        "registry", reports=["dep"], authority=0.99, cost={"tool_calls": 1, "tokens": 500}
    )
    ctl.register_source("other", reports=["other_claim"], authority=0.99)
    ctl.register_source("mallory", trusted=False)
    ctl.record_belief("dep", "a", domain=["a", "b"], confidence=0.9, age_s=7200, volatility="high")
    ctl.record_belief(
        "other_claim", "a", domain=["a", "b"], confidence=0.5, age_s=7200, volatility="high"
    )
    ctl.begin_turn()
    return ctl


def _registry_voc(ctl: Controller) -> float:
    ctl.refresh()
    (cand,) = [c for c in ctl.candidates if c.target == "registry"]
    return ctl.last_estimates[cand.id].net


def _mallory(**kw: object) -> Candidate:
    return Candidate(
        id="x",
        kind=CandidateKind.INSPECT_SOURCE,
        target="registry",
        trigger=Trigger.STALE_BELIEF,
        origin="external:mallory",
        submitted_by="mallory",
        **kw,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    "declared",
    [
        {"deadline_s": 0.0},
        {"claim_ids": ("dep", "other_claim")},
    ],
    ids=["deadline", "claims-the-source-does-not-report"],
)
def test_an_untrusted_submission_cannot_raise_a_candidates_value(
    declared: dict[str, object],
) -> None:
    honest = _two_source_controller()
    honest.submit(_mallory(claim_ids=("dep",)))
    hijacked = _two_source_controller()
    hijacked.submit(_mallory(**{"claim_ids": ("dep",), **declared}))
    assert _registry_voc(hijacked) == pytest.approx(_registry_voc(honest))


def test_an_untrusted_submission_cannot_declare_its_inspection_free() -> None:
    ctl = Controller(clock=lambda: NOW, generators=[])
    ctl.register_source("registry", reports=["dep"], authority=0.99, cost={"tokens": 5000})
    ctl.register_source("mallory", trusted=False)
    ctl.record_belief("dep", "a", domain=["a", "b"], confidence=0.9, age_s=7200, volatility="high")
    ctl.begin_turn()
    live = ctl.submit(_mallory(claim_ids=("dep",)))
    assert live is not None
    assert live.cost == ctl.world.sources["registry"].cost


def _pair(i: int, net: float, **kw: object) -> tuple[Candidate, Estimate]:
    c = Candidate(id=f"c{i}", target=f"s{i}", origin="t", **kw)  # type: ignore[arg-type]
    return c, Estimate(c.id, 0, 0, 0, 0, net, 0.0, 0.0, net, "test")


def test_an_exploration_draw_never_preempts_a_governance_floor() -> None:
    sel = Selector(SelectorConfig(exploration_rate=1.0), np.random.default_rng(0))
    pool = [
        _pair(1, -0.2, trigger=Trigger.VALIDATOR, floor=Floor.SAFETY_CRITICAL),
        _pair(2, 0.5, trigger=Trigger.EXPLORATION),
    ]
    got = sel.select(pool, turn=1, budget_left=20, turn_budget=20)
    assert got.candidate is not None and got.candidate.id == "c1"
    assert got.reason == "floor:safety_critical"


@pytest.mark.parametrize("loss", [math.nan, math.inf])
def test_a_non_finite_failure_loss_is_refused_up_front(loss: float) -> None:
    ctl = Controller(clock=lambda: NOW)
    with pytest.raises(InvalidArgumentError, match="loss"):
        ctl.report_failure("f1", "deploy_tool", loss=loss)
    assert ctl.failures == []
    ctl.next()  # nothing poisoned


@pytest.mark.parametrize("field", ["declared_loss", "switch_cost"])
def test_a_non_finite_interruption_value_is_refused_up_front(field: str) -> None:
    ctl = Controller(clock=lambda: NOW)
    ctl.register_source("pager", trusted=True)
    with pytest.raises(InvalidArgumentError):
        ctl.interrupt("e1", "pager", **{field: math.nan})  # type: ignore[arg-type]
    assert ctl.interruptions == []
    ctl.next()


def test_a_nan_cost_weight_is_refused() -> None:
    ctl = Controller(clock=lambda: NOW)
    with pytest.raises(InvalidArgumentError, match="cost_weight"):
        ctl.begin_turn(cost_weight=math.nan)


@pytest.mark.parametrize("age", [math.nan, math.inf])
def test_a_non_finite_belief_age_raises_a_heedful_error(age: float) -> None:
    ctl = Controller(clock=lambda: NOW)
    with pytest.raises(InvalidArgumentError, match="age_s"):
        ctl.record_belief("x", "a", age_s=age)
    assert "x" not in ctl.world.beliefs


@pytest.mark.parametrize("age", [math.nan, math.inf])
def test_a_non_finite_source_age_is_refused_at_registration(age: float) -> None:
    ctl = Controller(clock=lambda: NOW)
    with pytest.raises(InvalidArgumentError, match="age_s"):
        ctl.register_source("s", reports=["x"], age_s=age)
    assert "s" not in ctl.world.sources
    ctl.next()


@pytest.mark.parametrize("authority", ["high", {"live_system_state": "high"}])
def test_a_non_numeric_authority_raises_a_heedful_error(authority: object) -> None:
    ctl = Controller(clock=lambda: NOW)
    with pytest.raises(InvalidArgumentError, match="authority"):
        ctl.register_source("s", reports=["x"], authority=authority)


def test_a_candidate_expiring_by_age_forgets_its_waiting_count() -> None:
    clock = {"now": NOW}
    ctl = Controller(
        clock=lambda: clock["now"],
        generators=[],
    )
    ctl.register_source("ops", trusted=True)
    ctl.begin_turn()
    expiry = NOW + timedelta(seconds=GeneratorConfig().ttl_s)
    for i in range(2):
        ctl.submit(
            Candidate(
                id="x",
                kind=CandidateKind.CONTINUE_TASK,
                target=f"task-{i}",
                trigger=Trigger.INTERRUPTION,
                origin="external:ops",
                submitted_by="ops",
                p_change=1.0,
                loss_if_wrong=1.0 + i,
                expires_at=expiry,
            )
        )
    step = ctl.next()
    assert isinstance(step, Candidate)
    assert len(ctl._notes.waited) == 1
    clock["now"] = expiry
    ctl.refresh()
    assert ctl.candidates == []
    assert ctl._notes.waited == {}


def _stored_controller_with_a_widened_domain() -> Controller:
    ctl = Controller(Store(":memory:"), clock=lambda: NOW)
    ctl.register_source("registry", reports=["x"], authority=0.99)
    ctl.record_belief("x", "a", domain=["a", "b"], age_s=7200, volatility="high")
    # The world takes the new domain; the stored claim keeps ["a", "b"].
    ctl.record_belief("x", "a", domain=["a", "c"], age_s=7200, volatility="high")
    return ctl


def test_a_resolve_the_store_refuses_changes_nothing() -> None:
    ctl = _stored_controller_with_a_widened_domain()
    ctl.begin_turn(budget=3)
    step = ctl.next()
    assert isinstance(step, Candidate)
    belief = ctl.world.beliefs["x"]
    with pytest.raises(InvalidArgumentError, match="outside"):
        ctl.resolve(step.id, observations={"x": "c"})
    assert ctl.world.beliefs["x"] == belief
    assert ctl.world.evidence == [] and ctl.spontaneous_reads == 0
    ctl.resolve(step.id, observations={"x": "a"})  # still in flight: a corrected retry works


def test_evidence_the_store_refuses_changes_no_belief() -> None:
    ctl = _stored_controller_with_a_widened_domain()
    belief = ctl.world.beliefs["x"]
    with pytest.raises(InvalidArgumentError, match="outside"):
        ctl.record_evidence("x", "registry", "c")
    assert ctl.world.beliefs["x"] == belief and ctl.world.evidence == []


def test_pending_interruptions_from_a_flooding_source_stay_bounded() -> None:
    clock = {"now": NOW}
    ctl = Controller(clock=lambda: clock["now"])
    ctl.register_source("chat", trusted=False)
    guard = GuardConfig()
    for turn in range(5):
        ctl.begin_turn()
        for i in range(1_000):
            ctl.interrupt(f"e-{turn}-{i}", "chat", "URGENT")
        ctl.next()
        assert len(ctl.interruptions) <= guard.untrusted_quota + guard.untrusted_rate_per_turn
    clock["now"] = NOW + timedelta(seconds=GeneratorConfig().ttl_s)
    ctl.next()
    assert ctl.interruptions == []


def test_repeated_inspections_keep_the_evidence_log_bounded() -> None:
    clock = {"now": NOW}
    ctl = Controller(clock=lambda: clock["now"])
    ctl.register_source("registry", reports=["x"], authority=0.99)
    ctl.record_belief("x", "a", domain=["a", "b"], claim_type="live_system_state")
    for i in range(200):
        clock["now"] = NOW + timedelta(seconds=60 * i)
        ctl.record_evidence("x", "registry", "ab"[i % 2])
        ctl.record_evidence("x", "registry", None, succeeded=False)
    assert len(ctl.world.evidence) <= 2
    verdict = ctl.check_claim("x")
    assert verdict.ok
    (latest,) = [e for e in ctl.world.evidence if e.succeeded]
    assert verdict.evidence_id == latest.id and latest.value == "b"


def test_a_withheld_result_is_refused_for_a_computation_that_is_not_an_inspection() -> None:
    ctl = Controller(clock=lambda: NOW)
    ctl.report_failure("f1", "deploy_tool", loss=5.0)
    ctl.begin_turn()
    step = ctl.next()
    assert isinstance(step, Candidate) and step.kind is CandidateKind.DIAGNOSE_FAILURE
    with pytest.raises(InvalidArgumentError, match="withheld"):
        ctl.resolve(step.id, withheld=True)
    assert ctl.spontaneous_reads == 0 and ctl.committed == []
    ctl.resolve(step.id)


def test_a_fractional_budget_is_refused_rather_than_overspent() -> None:
    ctl = Controller(clock=lambda: NOW)
    with pytest.raises(InvalidArgumentError, match="budget"):
        ctl.begin_turn(budget=2.5)  # type: ignore[arg-type]


def test_an_integer_like_budget_is_a_hard_limit() -> None:
    ctl = _two_source_controller()
    ctl.begin_turn(budget=np.int64(1))  # type: ignore[arg-type]
    assert isinstance(ctl.next(), Candidate)
    assert ctl.budget == 0


def test_a_goal_the_store_cannot_keep_does_not_poison_the_controller() -> None:
    ctl = Controller(Store(":memory:"), clock=lambda: NOW)
    ctl.register_source("registry", reports=["x"], authority=0.99)
    ctl.record_belief("x", "a", domain=["a", "b"], age_s=7200, volatility="high")
    goal = Goal(
        id="g",
        title="ship",
        status=GoalStatus.ACTIVE,
        depends_on=[ClaimDependency(claim_id="x")],
        consequence=math.inf,
    )
    with pytest.raises(InvalidArgumentError):
        ctl.add_goal(goal)
    assert ctl.world.goals == {}
    ctl.begin_turn(budget=1)
    ctl.next()  # the trace append no longer meets an infinite predicted value


def test_a_submitted_candidate_cannot_force_itself_past_the_budget() -> None:
    ctl = _two_source_controller()
    ctl.begin_turn(budget=0)
    forced = _mallory(claim_ids=("dep",), forced=True).model_copy(update={"submitted_by": None})
    ctl.submit(forced)
    step = ctl.next()
    assert not isinstance(step, Candidate)
    assert ctl.forced_reads == 0


def test_a_naive_clock_is_taken_as_utc() -> None:
    due = NOW + timedelta(minutes=30)
    ctl = Controller(clock=lambda: NOW.replace(tzinfo=None))
    ctl.register_source("s", reports=["x"], authority=0.9)
    ctl.record_belief("x", "a", domain=["a", "b"], age_s=7200, volatility="high")
    ctl.add_goal(
        Goal(
            id="g",
            title="ship",
            status=GoalStatus.ACTIVE,
            depends_on=[ClaimDependency(claim_id="x")],
            due_at=due,
        )
    )
    step = ctl.next()
    assert isinstance(step, Candidate) and step.deadline_s == pytest.approx(1800.0)


def test_a_deadline_without_a_timezone_is_refused() -> None:
    # One input policy (heedful.model.inputs): a naive deadline could be any of 24 moments.
    with pytest.raises(ValidationError, match="timezone"):
        Goal(id="g", title="ship", due_at=(NOW + timedelta(minutes=30)).replace(tzinfo=None))


def test_a_submitted_candidate_with_a_naive_expiry_is_taken_as_utc() -> None:
    ctl = Controller(clock=lambda: NOW, generators=[])
    ctl.register_source("ops", trusted=True)
    ctl.submit(
        Candidate(
            id="x",
            kind=CandidateKind.CONTINUE_TASK,
            target="task",
            trigger=Trigger.INTERRUPTION,
            origin="external:ops",
            submitted_by="ops",
            p_change=1.0,
            loss_if_wrong=1.0,
            expires_at=(NOW - timedelta(seconds=1)).replace(tzinfo=None),
        )
    )
    ctl.refresh()
    assert ctl.candidates == []


def test_stored_evidence_is_judged_under_a_naive_clock(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    first = Controller(path, clock=lambda: NOW)
    first.register_source("registry", reports=["x"], authority=0.99)
    first.record_belief("x", "a", domain=["a", "b"], claim_type="live_system_state")
    first.record_evidence("x", "registry", "b")
    assert first.store is not None
    first.store.close()
    again = Controller(path, clock=lambda: NOW.replace(tzinfo=None) + timedelta(seconds=10))
    assert again.check_claim("x").ok


def test_a_report_is_stored_with_its_belief_or_not_at_all(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = Store(":memory:")
    ctl = Controller(store, clock=lambda: NOW)
    ctl.register_source("registry", reports=["x"], authority=0.99)
    ctl.record_belief("x", "a", domain=["a", "b"], age_s=7200, volatility="high")

    def refuse(*args: object, **kwargs: object) -> set[str]:
        raise StoreError("disk full")

    monkeypatch.setattr(store, "update_claim", refuse)
    with pytest.raises(StoreError):
        ctl.record_evidence("x", "registry", "b")
    assert store.evidence("x") == []


# Code under test here reads the default clock (no clock= reaches it: the CLI, a server, a
# store opened by path): pinned, so no result depends on how long the machine takes.
pytestmark = pytest.mark.usefixtures("fixed_clock")
