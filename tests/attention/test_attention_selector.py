from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from heedful.attention.config import SelectorConfig
from heedful.attention.context import Focus
from heedful.attention.estimators import Estimate
from heedful.attention.selector import Selector, choose
from heedful.model.candidate import Candidate, Floor, Trigger


def _pair(
    i: int,
    net: float,
    *,
    gross: float | None = None,
    switch: float = 0.0,
    trigger: Trigger = Trigger.GOAL_DEPENDENCY,
    floor: Floor | None = None,
    goals: tuple[str, ...] = (),
) -> tuple[Candidate, Estimate]:
    c = Candidate(
        id=f"c{i}", target=f"s{i}", trigger=trigger, origin="t", floor=floor, goal_ids=goals
    )
    g = net + switch if gross is None else gross
    return c, Estimate(c.id, 0, 0, 0, 0, g, 0.0, switch, net, "test")


def _selector(**kw: float) -> Selector:
    return Selector(SelectorConfig(**kw), np.random.default_rng(0))  # type: ignore[arg-type]


def test_stops_when_the_best_net_value_is_not_positive() -> None:
    sel = _selector().select([_pair(1, 0.0), _pair(2, -0.3)], turn=1, budget_left=5, turn_budget=5)
    assert sel.stopped and sel.reason == "stop:negative_voc"


def test_picks_the_highest_net_value() -> None:
    sel = _selector().select(
        [_pair(1, 0.1), _pair(2, 0.4), _pair(3, 0.2)], turn=1, budget_left=5, turn_budget=5
    )
    assert sel.candidate is not None and sel.candidate.id == "c2" and sel.rank == 1


def test_stops_when_the_budget_is_spent() -> None:
    sel = _selector().select([_pair(1, 5.0)], turn=1, budget_left=0, turn_budget=3)
    assert sel.reason == "stop:budget_exhausted"


def test_a_floor_bypasses_ranking_and_the_stopping_rule() -> None:
    pairs = [_pair(1, 0.9), _pair(2, -0.5, floor=Floor.MANDATORY_PROOF)]
    sel = _selector().select(pairs, turn=1, budget_left=5, turn_budget=5)
    assert sel.candidate is not None and sel.candidate.id == "c2"
    assert sel.reason == "floor:mandatory_proof"


def test_stronger_floors_come_first() -> None:
    pairs = [_pair(1, 0.9, floor=Floor.COMPLIANCE), _pair(2, 0.1, floor=Floor.SAFETY_CRITICAL)]
    sel = _selector().select(pairs, turn=1, budget_left=5, turn_budget=5)
    assert sel.candidate is not None and sel.candidate.id == "c2"


def test_switching_is_rejected_inside_the_hysteresis_band() -> None:
    focus = Focus("c0", voc=0.30)
    # VOC(B) before switch cost = 0.40; needs > 0.30 + 0.05 + δ(0.1) = 0.45.
    pairs = [_pair(1, 0.35, switch=0.05)]
    sel = _selector(hysteresis=0.1).select(pairs, turn=1, budget_left=5, turn_budget=5, focus=focus)
    assert sel.candidate is None and sel.reason == "stay" and sel.switch == "rejected"


def test_switching_is_accepted_beyond_the_hysteresis_band() -> None:
    focus = Focus("c0", voc=0.30)
    pairs = [_pair(1, 0.45, switch=0.05)]  # 0.50 > 0.45
    sel = _selector(hysteresis=0.1).select(pairs, turn=1, budget_left=5, turn_budget=5, focus=focus)
    assert sel.candidate is not None and sel.switch == "accepted"


def test_aging_bonus_is_bounded_and_never_makes_a_worthless_candidate_eligible() -> None:
    pairs = [_pair(1, -0.01, gross=0.5), _pair(2, 0.20), _pair(3, 0.15)]
    waited = {"c1": 10_000, "c3": 10_000}
    sel = _selector(aging_rate=0.01, aging_cap=0.04).select(
        pairs, turn=1, budget_left=5, turn_budget=5, waited=waited
    )
    assert sel.candidate is not None and sel.candidate.id == "c2"  # 0.15 + 0.04 < 0.20
    sel = _selector(aging_rate=0.01, aging_cap=0.06).select(
        pairs, turn=1, budget_left=5, turn_budget=5, waited=waited
    )
    assert sel.candidate is not None and sel.candidate.id == "c3"


def test_a_goal_unserved_past_its_window_is_served_first() -> None:
    s = _selector(min_service_turns=3)
    pairs = [_pair(1, 0.9, goals=("big",)), _pair(2, 0.1, goals=("small",))]
    for turn in range(1, 4):
        sel = s.select(pairs, turn=turn, budget_left=5, turn_budget=5)
        assert sel.candidate is not None and sel.candidate.id == "c1"
    sel = s.select(pairs, turn=4, budget_left=5, turn_budget=5)
    assert sel.candidate is not None and sel.candidate.id == "c2" and sel.reason == "min_service"


def test_exploration_stays_within_its_quota_and_is_reproducible() -> None:
    def run(seed: int) -> list[str]:
        s = Selector(
            SelectorConfig(exploration_rate=1.0, exploration_fraction=0.2),
            np.random.default_rng(seed),
        )
        pairs = [
            _pair(1, 0.5),
            _pair(2, -1.0, trigger=Trigger.EXPLORATION),
            _pair(3, -1.0, trigger=Trigger.EXPLORATION),
        ]
        out = []
        for _ in range(10):
            sel = s.select(pairs, turn=1, budget_left=10, turn_budget=10)
            out.append(sel.reason)
        return out

    reasons = run(7)
    assert reasons.count("exploration") == 2
    assert run(7) == reasons


def test_exploration_candidates_never_win_the_main_queue() -> None:
    c = choose(np.array([5.0, 0.1]), exploration_only=np.array([True, False]))
    assert c.index == 1


@settings(max_examples=50, deadline=None)
@given(
    budget=st.integers(min_value=0, max_value=8),
    values=st.lists(st.floats(min_value=-1, max_value=1), min_size=1, max_size=12),
)
def test_a_controller_never_exceeds_its_turn_budget(budget: int, values: list[float]) -> None:
    from heedful.attention.controller import Controller, Stop
    from heedful.model.scenario import Cost

    ctl = Controller()
    for i, v in enumerate(values):
        ctl.register_source(f"s{i}", reports=[f"c{i}"], authority=1.0, cost=Cost())
        ctl.record_belief(
            f"c{i}", "x", domain=["x", "y"], confidence=(1 - abs(v)), volatility="low"
        )
    ctl.begin_turn(budget=budget)
    n = 0
    while not isinstance(step := ctl.next(), Stop):
        n += 1
        ctl.resolve(step.id, succeeded=True, observations={step.claim_ids[0]: "y"})
        assert n <= budget
    assert n <= budget


def test_choose_handles_an_empty_pool() -> None:
    assert choose(np.array([])).reason == "stop:no_candidates"


@pytest.mark.parametrize("n", [1, 1000])
def test_choose_returns_the_argmax_of_positive_values(n: int) -> None:
    rng = np.random.default_rng(n)
    net = rng.normal(size=n) + 0.5
    c = choose(net)
    assert c.index == int(np.argmax(net)) or not (net > 0).any()


# Code under test here reads the default clock (no clock= reaches it: the CLI, a server, a
# store opened by path): pinned, so no result depends on how long the machine takes.
pytestmark = pytest.mark.usefixtures("fixed_clock")
