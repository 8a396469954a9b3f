"""A read's value counts the chance it returns nothing (issue 35 item 2): a failure rate stated
when a source is registered, learned from the reads resolved, kept in the memory store — and a
backup read of a second instrument valued when the first is flaky."""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from tests_attention_time import NOW

from heedful.attention import Controller, Stop
from heedful.attention.context import DecisionModel, UtilityRule
from heedful.errors import InvalidArgumentError
from heedful.memory import Store
from heedful.model.candidate import Candidate, CandidateKind
from heedful.model.goal import ClaimDependency, Goal, GoalStatus

_GOAL = Goal(
    id="g", title="t", status=GoalStatus.ACTIVE, depends_on=[ClaimDependency(claim_id="x")]
)


def _one(failure_rate: float = 0.0) -> Controller:
    ctl = Controller(clock=lambda: NOW)
    ctl.register_source(
        "meter", reports=["x"], authority=0.9, trusted=True, failure_rate=failure_rate
    )
    ctl.record_belief("x", "a", domain=["a", "b"], confidence=0.6, age_s=3600, volatility="high")
    ctl.add_goal(_GOAL)
    ctl.begin_turn(budget=None)
    return ctl


def _read(ctl: Controller, ok: bool) -> None:
    """Read the meter (diagnosing a failed read first, when the controller asks to); the read
    returns ``a`` or, when not ``ok``, nothing."""
    while True:
        step = ctl.next()
        assert isinstance(step, Candidate)
        if step.kind is CandidateKind.INSPECT_SOURCE:
            break
        ctl.resolve(step.id, succeeded=True)
    ctl.resolve(step.id, succeeded=ok, observations={"x": "a"} if ok else None)
    ctl.record_belief("x", "a", domain=["a", "b"], confidence=0.6, age_s=3600)


def _gross(ctl: Controller) -> float:
    step = ctl.next()
    assert isinstance(step, Candidate)
    return ctl.last_estimates[step.id].gross


def test_a_stated_failure_rate_discounts_the_value_of_a_read() -> None:
    assert math.isclose(_gross(_one(0.4)), 0.6 * _gross(_one(0.0)))


@pytest.mark.parametrize("rate", [-0.1, 1.0, math.nan, "often"])
def test_a_failure_rate_outside_zero_to_one_is_refused(rate: object) -> None:
    ctl = Controller(clock=lambda: NOW)
    with pytest.raises(InvalidArgumentError, match="failure_rate"):
        ctl.register_source("meter", reports=["x"], failure_rate=rate)  # type: ignore[arg-type]


def test_failed_reads_teach_a_failure_rate_and_answered_reads_unteach_it() -> None:
    ctl = _one(0.0)
    for _ in range(4):
        _read(ctl, ok=False)
    learned = ctl.world.sources["meter"].failure_rate
    assert math.isclose(learned, 4 / (4 + 4))  # (0·4 + 4 failed) / (4 prior + 4 reads)
    assert ctl.world.claimed["meter"].failure_rate == 0.0  # the registration as made
    for _ in range(8):
        _read(ctl, ok=True)
    assert ctl.world.sources["meter"].failure_rate < learned


def test_the_failure_rate_and_the_reads_survive_a_reopen(
    tmp_path: Path, fixed_clock: datetime
) -> None:
    path = tmp_path / "m.db"
    first = Controller(path, clock=lambda: NOW)
    first.register_source("meter", reports=["x"], authority=0.9, trusted=True, failure_rate=0.2)
    first.record_belief("x", "a", domain=["a", "b"], confidence=0.6, age_s=3600)
    first.add_goal(_GOAL)
    first.begin_turn(budget=None)
    for ok in (False, False, True):
        _read(first, ok)
    credited = first.world.sources["meter"].failure_rate
    assert math.isclose(credited, (0.2 * 4 + 2) / (4 + 3))
    assert first.store is not None
    first.store.close()
    with Store.open(path) as store:
        kept = store.get_source("meter")
    assert (kept.failure_rate, kept.reads, kept.failed_reads) == (0.2, 3, 2)
    again = Controller(path, clock=lambda: NOW)
    assert math.isclose(again.world.sources["meter"].failure_rate, credited)
    # Registering it again states a rate; the reads it had stay counted.
    again.register_source("meter", reports=["x"], authority=0.9, trusted=True, failure_rate=0.2)
    assert math.isclose(again.world.sources["meter"].failure_rate, credited)


def _backup_world(primary_failure_rate: float) -> Controller:
    """Approve or hold, on one yes/no fact: an authoritative live instrument (read first: it is
    cheapest) and a second instrument that fits the budget. Reads are withheld (a static plan:
    every read is chosen before any result is seen)."""
    ctl = Controller(clock=lambda: NOW)
    ctl.register_source(
        "live",
        reports=["ok"],
        authority=0.99,
        cost={"tool_calls": 1},
        trusted=True,
        failure_rate=primary_failure_rate,
    )
    ctl.register_source(
        "second", reports=["ok"], authority=0.95, cost={"tool_calls": 2}, trusted=True
    )
    ctl.record_belief("ok", None, domain=["yes", "no"], volatility="immutable")
    ctl.state_decision(
        DecisionModel(
            variables={"ok": ("yes", "no")},
            actions={
                "approve": (
                    UtilityRule(when={"ok": "yes"}, value=1.0),
                    UtilityRule(value=-1.0),
                ),
                "hold": (UtilityRule(value=0.0),),
            },
            cost_weight=0.01,
        )
    )
    ctl.begin_turn(budget=2)
    return ctl


def _plan(ctl: Controller) -> list[str]:
    reads = []
    while isinstance(step := ctl.next(), Candidate):
        reads.append(step.target)
        ctl.resolve(step.id, withheld=True)
    assert isinstance(step, Stop)
    return reads


def test_a_backup_read_is_valued_when_the_first_instrument_is_flaky() -> None:
    assert _plan(_backup_world(0.0)) == ["live"]  # a reliable instrument: one read decides
    # Flaky: the second instrument is worth reading beside it (first, even: it answers).
    assert sorted(_plan(_backup_world(0.4))) == ["live", "second"]


def _approve_world(clock: dict[str, datetime]) -> Controller:
    """Approve (a wrong approval costs ten times a right one) or hold, on one fact an
    authoritative trusted instrument reads (adaptive: each result is seen)."""
    ctl = Controller(clock=lambda: clock["now"])
    ctl.register_source(
        "live", reports=["ok"], authority=0.99, cost={"tool_calls": 1}, trusted=True
    )
    ctl.record_belief("ok", None, domain=["yes", "no"], volatility="high")
    ctl.state_decision(
        DecisionModel(
            variables={"ok": ("yes", "no")},
            actions={
                "approve": (
                    UtilityRule(when={"ok": "yes"}, value=1.0),
                    UtilityRule(value=-10.0),
                ),
                "hold": (UtilityRule(value=0.0),),
            },
            cost_weight=0.01,
        )
    )
    ctl.begin_turn(budget=None)
    return ctl


def test_a_source_whose_last_read_cannot_have_changed_is_not_proposed_again() -> None:
    """Document 000 §25 overinspection: read again about a world that has not changed, the
    instrument would say what it said — the read is worth nothing (it was proposed again, at a
    predicted VOC above its cost, by the estimate that took each read as a fresh draw)."""
    clock = {"now": NOW}
    ctl = _approve_world(clock)
    step = ctl.next()
    assert isinstance(step, Candidate) and step.target == "live"
    ctl.resolve(step.id, observations={"ok": "yes"})
    again = ctl.next()
    assert isinstance(again, Stop), again
    # Hours later the fact may have changed (a high-volatility claim): reading it is worth it.
    clock["now"] = NOW + timedelta(hours=3)
    later = ctl.next()
    assert isinstance(later, Candidate) and later.target == "live"
