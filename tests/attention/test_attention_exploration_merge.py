"""Exploration that is real (issue 24 item 4): the trigger survives the candidate merge."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from tests_attention_time import NOW

from heedful.attention import AttentionConfig, Controller, SelectorConfig, Stop
from heedful.model.candidate import Candidate
from heedful.model.goal import ClaimDependency, Goal, GoalStatus


def _controller(explore_merged: bool, seed: int, *, columns: bool) -> Controller:
    """Every source reports a claim a goal depends on: the exploration generator's unread
    source is also the goal generator's, so the merge names it ``goal_dependency``."""
    # Unpaced: the draw may come on the first selection (what is tested here is the merge).
    config = AttentionConfig(
        selector=SelectorConfig(
            exploration_rate=1.0, explore_merged=explore_merged, explore_paced=False
        )
    )
    ctl = Controller(config=config, clock=lambda: NOW, rng=np.random.default_rng(seed))
    for i in range(6):
        ctl.register_source(
            f"s{i}", reports=[f"c{i}"], authority=0.5 + 0.08 * i, cost={"tool_calls": 1}
        )
        ctl.record_belief(f"c{i}", "a", domain=["a", "b"], confidence=0.9, age_s=3600.0)
    deps = [ClaimDependency(claim_id=f"c{i}") for i in range(6)]
    ctl.add_goal(Goal(id="g", title="t", status=GoalStatus.ACTIVE, depends_on=deps))
    if not columns:
        ctl.about_to_claim("c5")  # a pending claim: the object path, not the columns
    return ctl


def _reasons(ctl: Controller, budget: int) -> Counter[str]:
    ctl.begin_turn(budget=budget)
    while isinstance(step := ctl.next(), Candidate):
        ctl.resolve(step.id, observations={step.claim_ids[0]: "a"})
    assert isinstance(step, Stop)
    return Counter(e.reason_code for e in ctl.trace if e.event.value == "candidate_selected")


@pytest.mark.parametrize("columns", [True, False])
def test_a_merged_exploration_proposal_is_still_drawn(columns: bool) -> None:
    ctl = _controller(True, 0, columns=columns)
    reasons = _reasons(ctl, budget=10)
    assert reasons["exploration"] == 1  # the quota: max(1, 10 % of 10) per turn
    assert ctl._columns.active is columns


@pytest.mark.parametrize("columns", [True, False])
def test_without_the_fix_the_merge_loses_it(columns: bool) -> None:
    reasons = _reasons(_controller(False, 0, columns=columns), budget=10)
    assert reasons["exploration"] == 0


def test_the_draw_picks_the_exploration_proposal_not_the_best_read() -> None:
    ctl = _controller(True, 0, columns=True)
    ctl.begin_turn(budget=10)
    step = ctl.next()
    assert isinstance(step, Candidate)
    assert ctl._columns.active  # decided on the columns path
    # s0 is the first never-inspected source (the exploration generator's); s5 ranks best.
    assert step.target == "s0"
    selected = [e for e in ctl.trace if e.event.value == "candidate_selected"]
    assert selected[-1].reason_code == "exploration"
