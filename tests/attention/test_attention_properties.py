from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st
from tests_attention_time import NOW

from heedful.attention.config import AttentionConfig, GuardConfig
from heedful.attention.controller import Controller, Stop
from heedful.model.candidate import Candidate, CandidateKind, Trigger
from heedful.model.goal import ClaimDependency, Goal, GoalStatus

OPS = st.lists(
    st.tuples(
        st.sampled_from(["goal_on", "goal_off", "flood", "step", "dirty"]), st.integers(0, 5)
    ),
    max_size=25,
)


@settings(max_examples=30, deadline=None)
@given(ops=OPS, table_size=st.integers(3, 12), budget=st.integers(0, 6))
def test_controller_invariants_hold_under_any_sequence(
    ops: list[tuple[str, int]], table_size: int, budget: int
) -> None:
    cfg = AttentionConfig(guard=GuardConfig(table_size=table_size, untrusted_quota=2))
    ctl = Controller(clock=lambda: NOW, config=cfg)
    ctl.register_source("chat", trusted=False)
    for i in range(6):
        ctl.register_source(f"s{i}", reports=[f"c{i}"], authority=0.9, cost={"tool_calls": 0.1})
        ctl.record_belief(
            f"c{i}", "a", domain=["a", "b"], confidence=0.6, volatility="high", age_s=3600
        )
    ctl.begin_turn(budget=budget)
    spent = 0
    for op, i in ops:
        goal = Goal(
            id=f"g{i}",
            title="t",
            status=GoalStatus.ACTIVE,
            consequence=2.0,
            depends_on=[ClaimDependency(claim_id=f"c{i}")],
        )
        if op == "goal_on":
            ctl.add_goal(goal)
        elif op == "goal_off":
            ctl.add_goal(goal.model_copy(update={"status": GoalStatus.ABANDONED}))
        elif op == "dirty":
            ctl.mark_dirty(f"c{i}")
        elif op == "flood":
            for k in range(5):
                ctl.submit(
                    Candidate(
                        id="x",
                        target=f"e{i}-{k}",
                        trigger=Trigger.INTERRUPTION,
                        kind=CandidateKind.HANDLE_INTERRUPTION,
                        origin="chat",
                        submitted_by="chat",
                    )
                )
        else:
            step = ctl.next()
            if isinstance(step, Candidate):
                spent += 1
                obs = (
                    {step.claim_ids[0]: "b"} if step.kind is CandidateKind.INSPECT_SOURCE else None
                )
                ctl.resolve(step.id, succeeded=True, observations=obs)
            else:
                assert isinstance(step, Stop)
        table = ctl.guard.table
        assert len(table) <= table_size
        owners = Counter(c.submitted_by or f"generator:{c.origin}" for c in table)
        assert all(table.count_for(o) == n for o, n in owners.items())
        assert owners.get("chat", 0) <= 2
        assert spent <= budget
