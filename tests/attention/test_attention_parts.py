"""The controller's parts built alone, without a Controller (issue 27 item 4).

Each part takes only the collaborators it uses — the world, the guard, the records it shares
(:mod:`heedful.attention.records`), a turn log, a clock — so each can be built and tested here
with those and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest

from heedful.attention.columns import ColumnTable
from heedful.attention.config import AttentionConfig, SelectorConfig
from heedful.attention.context import AttentionContext, Focus
from heedful.attention.enforcement import ClaimEnforcement
from heedful.attention.estimators import Estimate, HeuristicEstimator
from heedful.attention.generators import PENDING_ID, default_generators
from heedful.attention.guard import Guard
from heedful.attention.instruments import Instruments
from heedful.attention.lifecycle import CandidateLifecycle
from heedful.attention.outcome import OutcomeRecorder
from heedful.attention.records import Agenda, TableNotes, TurnLog, TurnRecord
from heedful.attention.selector import Selector
from heedful.attention.trace import Trace
from heedful.attention.validator import ClaimValidator, ValidatorMode
from heedful.attention.world import World
from heedful.errors import InvalidArgumentError, UnknownNameError
from heedful.model.candidate import (
    Candidate,
    CandidateKind,
    EventType,
    Floor,
    Resolution,
    Trigger,
)
from heedful.model.goal import ClaimDependency, Goal, GoalStatus

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
# No exploration draw: the selection is the ranking alone.
CONFIG = AttentionConfig(selector=SelectorConfig(exploration_rate=0.0))


@dataclass
class _Clock:
    now: datetime = T0

    def __call__(self) -> datetime:
        return self.now


@dataclass
class _Parts:
    """The collaborators the parts are built from, for one test."""

    world: World = field(default_factory=World)
    trace: Trace = field(default_factory=Trace)
    turn: TurnRecord = field(default_factory=lambda: TurnRecord(1, "turn-1", None, None, None))
    agenda: Agenda = field(default_factory=Agenda)
    notes: TableNotes = field(default_factory=TableNotes)
    clock: _Clock = field(default_factory=_Clock)

    def __post_init__(self) -> None:
        self.log = TurnLog(self.trace, self.turn)
        self.guard = Guard(CONFIG.guard, self.world.sources)
        self.instruments = Instruments(CONFIG, self.log)
        self.selector = Selector(CONFIG.selector, np.random.default_rng(0))

    def columns(self, estimator: Any = None) -> ColumnTable:
        return ColumnTable(
            world=self.world,
            guard=self.guard,
            estimator=estimator or HeuristicEstimator(CONFIG.estimator),
            generators=default_generators(CONFIG.generator),
            selector=self.selector,
            instruments=self.instruments,
            config=CONFIG,
            turn=self.turn,
            agenda=self.agenda,
            notes=self.notes,
            log=self.log,
        )

    def lifecycle(self) -> CandidateLifecycle:
        return CandidateLifecycle(
            world=self.world,
            guard=self.guard,
            generators=default_generators(CONFIG.generator),
            estimator=HeuristicEstimator(CONFIG.estimator),
            instruments=self.instruments,
            floors=CONFIG.floors,
            turn=self.turn,
            agenda=self.agenda,
            notes=self.notes,
            log=self.log,
            clock=self.clock,
            leave_columns=lambda: None,
        )

    def events(self) -> list[dict[str, Any]]:
        return [e.model_dump() for e in self.trace]


def _steady_world(parts: _Parts) -> None:
    """Four sources, one claim each, a goal on every claim: the columns' steady state."""
    w = parts.world
    for i, (authority, age_h) in enumerate([(0.9, 5), (0.6, 1), (0.95, 20), (0.5, 2)]):
        w.register_source(f"s{i}", reports=[f"c{i}"], authority=authority, cost={"tool_calls": 1})
        w.record_belief(
            f"c{i}",
            "a",
            now=T0,
            domain=["a", "b"],
            confidence=0.8,
            age_s=3600.0 * age_h,
            volatility="high",
        )
    deps = [ClaimDependency(claim_id=f"c{i}") for i in range(4)]
    w.add_goal(Goal(id="g", title="t", status=GoalStatus.ACTIVE, depends_on=deps))


# -- the candidate columns -------------------------------------------------------------------


def test_the_columns_alone_select_what_the_lifecycle_and_selector_select() -> None:
    """Two sets of collaborators over the same world: the column table on one, the lifecycle
    and the selector on the other — the same candidate, estimate and trace."""
    on_columns, on_objects = _Parts(), _Parts()
    for parts in (on_columns, on_objects):
        _steady_world(parts)
    columns = on_columns.columns()
    now = T0 + timedelta(minutes=5)
    assert columns.eligible(now)
    sel, best, _ = columns.select(now)

    scored = on_objects.lifecycle().refresh(now)
    ref = on_objects.selector.select(
        scored, turn=1, budget_left=None, turn_budget=None, waited={}, focus=None
    )
    assert sel.candidate is not None and ref.candidate is not None
    assert sel.candidate.model_dump() == ref.candidate.model_dump()
    assert sel.estimate == ref.estimate
    assert best == max(e.net for _, e in scored)
    assert sel.candidate.target == "s2"  # the most authoritative read of the oldest belief
    assert on_columns.events() == on_objects.events()
    assert [e["event"] for e in on_columns.events()].count(EventType.CANDIDATE_CREATED) == 4


def test_the_columns_write_back_into_the_notes_they_were_given() -> None:
    parts = _Parts()
    _steady_world(parts)
    columns = parts.columns()
    now = T0 + timedelta(minutes=5)
    assert columns.eligible(now)
    sel, _, _ = columns.select(now)
    assert sel.candidate is not None
    columns.passed_over(sel.candidate.id)
    columns.sync()
    assert parts.notes.last_estimates.keys() == {c.id for c in parts.guard.table}
    # The three passed over with a positive value waited one step; the chosen one did not.
    assert sorted(parts.notes.waited.values()) == [1, 1, 1]
    assert sel.candidate.id not in parts.notes.waited
    assert parts.notes.saturation.count == 4


class _Stub:
    """An estimator the columns do not cover (any estimator but the heuristic)."""

    name = "stub"

    def estimate(self, candidate: Candidate, context: AttentionContext) -> Estimate:
        raise AssertionError("the columns never estimate with another estimator")


def test_the_columns_stand_aside_for_another_estimator_or_a_declared_agenda() -> None:
    parts = _Parts()
    _steady_world(parts)
    assert not parts.columns(_Stub()).eligible(T0)
    assert len(parts.trace) == 0
    parts.agenda.pending_claims.append("c0")  # the state-sensitive generator's input
    assert not parts.columns().eligible(T0)
    parts.agenda.pending_claims.clear()
    assert parts.columns().eligible(T0)


# -- the lifecycle ---------------------------------------------------------------------------


def test_the_lifecycle_alone_reads_the_records_it_shares() -> None:
    parts = _Parts()
    _steady_world(parts)
    life = parts.lifecycle()
    parts.turn.budget, parts.turn.cost_weight = 2, 0.5
    parts.agenda.inspected["s1"] = 1
    ctx = life.context()
    assert (ctx.now, ctx.turn, ctx.budget_left, ctx.cost_weight) == (T0, 1, 2, 0.5)
    assert ctx.inspected == {"s1": 1}
    scored = life.refresh(None)
    assert {c.target for c, _ in scored} == {"s0", "s1", "s2", "s3"}
    assert parts.notes.last_estimates == {c.id: e for c, e in scored}
    assert all(e["turn_id"] == "turn-1" for e in parts.events())


def test_the_lifecycle_logs_one_skip_per_owner_and_turn_into_the_notes() -> None:
    parts = _Parts()
    parts.world.register_source("tool")  # untrusted
    life = parts.lifecycle()
    refused = []
    for i in range(CONFIG.guard.untrusted_rate_per_turn + 3):
        cand = Candidate(
            id=PENDING_ID,
            kind=CandidateKind.HANDLE_INTERRUPTION,
            target=f"e{i}",
            trigger=Trigger.INTERRUPTION,
            origin="external:tool",
            submitted_by="tool",
            created_at=T0,
            content="read me first",
        )
        if life.admit(cand, T0) is None:
            refused.append(i)
    assert refused == [20, 21, 22]  # the untrusted rate per turn
    skipped = [e for e in parts.events() if e["event"] == EventType.CANDIDATE_SKIPPED]
    assert len(skipped) == 1
    assert parts.notes.skip_logged == {("tool", skipped[0]["reason_code"])}


# -- claim enforcement -----------------------------------------------------------------------


def _enforcement(parts: _Parts, admitted: list[Candidate]) -> ClaimEnforcement:
    def admit(cand: Candidate, now: datetime) -> Candidate | None:
        admitted.append(cand)
        return cand

    return ClaimEnforcement(
        world=parts.world,
        validator=ClaimValidator(mode=ValidatorMode.PRODUCTION),
        admit=admit,
        log=parts.log,
        clock=parts.clock,
    )


def test_enforcement_alone_blocks_a_claim_forces_its_read_and_logs_the_rescue() -> None:
    parts = _Parts()
    w = parts.world
    w.register_source("health", reports=["up"], authority={"live_system_state": 0.99})
    w.register_source("notes", reports=["up"], authority=0.3)
    w.record_belief("up", "yes", now=T0, domain=["yes", "no"], claim_type="live_system_state")
    admitted: list[Candidate] = []
    enforcement = _enforcement(parts, admitted)

    verdict = enforcement.check_claim("up")
    assert verdict.blocked and not verdict.ok
    assert enforcement.blocked == {"up": "live_system_state"}
    [forced] = admitted
    assert (forced.target, forced.forced, forced.floor) == ("health", True, Floor.MANDATORY_PROOF)
    assert forced.trigger is Trigger.VALIDATOR and forced.claim_ids == ("up",)
    [violation] = parts.events()
    assert violation["event"] == EventType.VALIDATOR_VIOLATION
    assert violation["turn_id"] == "turn-1" and violation["detail"]["blocked"] is True

    parts.clock.now = T0 + timedelta(seconds=10)
    enforcement.rescue_if_satisfied(parts.clock.now)  # no evidence yet: still blocked
    assert enforcement.blocked == {"up": "live_system_state"}
    w.record_evidence("up", "health", "yes", now=parts.clock.now, forced=True)
    enforcement.rescue_if_satisfied(parts.clock.now)
    assert enforcement.blocked == {}
    assert parts.events()[-1]["event"] == EventType.VALIDATOR_RESCUE


def test_enforcement_alone_refuses_an_unknown_claim_and_admits_nothing() -> None:
    parts = _Parts()
    admitted: list[Candidate] = []
    with pytest.raises(UnknownNameError):
        _enforcement(parts, admitted).check_claim("typo")
    assert admitted == [] and parts.events() == []


# -- outcome recording -----------------------------------------------------------------------


def _recorder(parts: _Parts) -> OutcomeRecorder:
    return OutcomeRecorder(
        world=parts.world,
        instruments=parts.instruments,
        config=CONFIG,
        agenda=parts.agenda,
        log=parts.log,
    )


def _read(cid: str, target: str, claim: str) -> Candidate:
    return Candidate(
        id=cid,
        kind=CandidateKind.INSPECT_SOURCE,
        target=target,
        trigger=Trigger.STALE_BELIEF,
        origin="stale_belief",
        claim_ids=(claim,),
        created_at=T0,
    )


def _estimate(cid: str, net: float) -> Estimate:
    return Estimate(cid, 0.1, 0.2, 0.3, 0.7, net + 0.1, 0.1, 0.0, net, "test")


def test_outcome_alone_checks_consumes_and_turns_a_failed_read_into_a_diagnosis() -> None:
    parts = _Parts()
    parts.world.register_source("s", reports=["c"])
    rec = _recorder(parts)
    read = _read("attn-1", "s", "c")
    rec.dispatch(read, _estimate("attn-1", 0.4))
    with pytest.raises(UnknownNameError):
        rec.check("attn-2", True, None, False)
    with pytest.raises(InvalidArgumentError):
        rec.check("attn-1", True, {"c": "x"}, True)  # withheld with observations
    assert rec.check("attn-1", False, None, False) is read
    assert "attn-1" in rec.inflight  # checking changes nothing
    est = rec.take("attn-1")
    assert est is not None and est.net == 0.4 and rec.inflight == {} and rec.selected == {}

    rec.record(read, est, Resolution(inspection_succeeded=False), False, T0)
    [resolved] = parts.events()
    assert resolved["event"] == EventType.RESOLVED and resolved["predicted_voc"] == 0.4
    [failure] = parts.agenda.failures
    assert (failure.id, failure.target, failure.loss) == ("failed:attn-1", "s", 0.7)


def test_outcome_alone_hands_the_focus_back_after_an_interruption() -> None:
    parts = _Parts()
    rec = _recorder(parts)
    parts.agenda.focus = Focus("attn-7", 0.3)
    handle = Candidate(
        id="attn-8",
        kind=CandidateKind.HANDLE_INTERRUPTION,
        target="ev-1",
        trigger=Trigger.INTERRUPTION,
        origin="interruption",
        created_at=T0,
    )
    rec.dispatch(handle, _estimate("attn-8", 0.5))
    assert rec.resume == {"attn-8": Focus("attn-7", 0.3)}
    parts.agenda.focus = Focus("attn-8", 0.5)  # the facade moves the focus to the handler
    with pytest.raises(InvalidArgumentError):
        rec.check("attn-8", True, {"c": "x"}, False)  # an interruption takes no observations
    rec.record(handle, rec.take("attn-8"), Resolution(inspection_succeeded=True), False, T0)
    assert parts.agenda.focus == Focus("attn-7", 0.3)
    assert parts.events()[-1]["detail"]["resumed_focus"] == "attn-7"


# -- the facade composes the parts -----------------------------------------------------------


def test_the_facade_hands_one_set_of_records_and_collaborators_to_its_parts() -> None:
    from heedful.attention import Controller

    clock = _Clock()
    ctl = Controller(clock=clock)
    lifecycle, columns = ctl._lifecycle, ctl._columns
    assert lifecycle.turn is columns.turn is ctl._turn
    assert lifecycle.agenda is columns.agenda is ctl._outcome.agenda is ctl._agenda
    assert lifecycle.notes is columns.notes is ctl._notes
    assert lifecycle.generators is columns.generators is ctl.generators  # one list, not copies
    ctl.begin_turn(budget=3, cost_weight=0.2)
    assert (ctl._turn.turn_id, ctl._turn.budget, ctl._turn.cost_weight) == ("turn-1", 3, 0.2)
    ctl.set_focus("x", 0.1)
    assert ctl._agenda.focus == Focus("x", 0.1)
    ctl.focus = None  # the public attributes assign the records
    assert ctl._agenda.focus is None
    other = HeuristicEstimator(CONFIG.estimator)
    ctl.estimator = other
    assert ctl.estimator is lifecycle.estimator is columns.estimator is other
    later = _Clock(T0 + timedelta(days=1))
    ctl.clock = later
    assert lifecycle.clock is ctl._enforcement.clock is later
    assert ctl.context().now == later.now
    ctl.repeat_inspections = False
    assert not lifecycle.repeat_inspections and not columns.repeat_inspections


@pytest.mark.parametrize(
    "name",
    [
        "config",
        "world",
        "guard",
        "selector",
        "instruments",
        "validator",
        "trace",
        "store",
        "mirror",
    ],
)
def test_a_collaborator_the_parts_hold_cannot_be_swapped_under_them(name: str) -> None:
    from heedful.attention import Controller

    ctl = Controller(clock=lambda: T0)
    before = getattr(ctl, name)
    with pytest.raises(AttributeError, match=rf"Controller\.{name} is fixed when the controller"):
        setattr(ctl, name, object())
    assert getattr(ctl, name) is before


def test_the_collaborators_the_facade_hands_on_can_still_be_assigned() -> None:
    from heedful.attention import Controller

    ctl = Controller(clock=lambda: T0)
    est = HeuristicEstimator()
    ctl.estimator = est
    ctl.repeat_inspections = False
    later = T0 + timedelta(hours=1)
    ctl.clock = lambda: later
    assert ctl._lifecycle.estimator is est and ctl._columns.estimator is est
    assert not ctl._lifecycle.repeat_inspections and ctl._enforcement.clock() == later
    ctl.turn = 3  # a shared record's field, not a collaborator
    assert ctl._turn.turn == 3
