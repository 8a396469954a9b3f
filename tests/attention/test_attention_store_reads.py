"""A store-backed controller's resolve reads each stored claim once per question it asks.

Every MCP server runs on a store, so a resolve's store round trips are its cost per step
(benchmarks/controller_speed.py, "Controller(store=...) against Controller()"). Before, one
read resolved read the claim back ten times (an existence check before each get, the same
report checked twice, the learned and the default hazard each from their own read).
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from heedful.attention import Controller
from heedful.model import Candidate, ClaimDependency, Goal, GoalStatus


class _Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def _controller(path: Path) -> tuple[Controller, _Clock]:
    clock = _Clock()
    ctl = Controller(clock=clock, store=str(path))
    for i in range(20):
        ctl.register_source(f"s{i}", reports=[f"c{i}"], authority=0.6, trusted=i % 2 == 0)
        ctl.record_belief(f"c{i}", "a", domain=["a", "b"], confidence=0.9, age_s=3600.0 * (i % 5))
    deps = [ClaimDependency(claim_id=f"c{i}") for i in range(20)]
    ctl.add_goal(Goal(id="g", title="t", status=GoalStatus.ACTIVE, depends_on=deps))
    ctl.begin_turn(budget=None)
    return ctl, clock


@pytest.mark.usefixtures("fixed_clock")  # the store's own clock stamps the goal
def test_a_resolve_reads_the_stored_claim_at_most_five_times(tmp_path: Path) -> None:
    ctl, clock = _controller(tmp_path / "s.db")
    store = ctl.store
    assert store is not None
    [conn] = [v for v in vars(store).values() if isinstance(v, sqlite3.Connection)]
    reads: list[str] = []
    conn.set_trace_callback(
        lambda sql: reads.append(sql) if sql.startswith("SELECT id, subject") else None
    )
    step = ctl.next()
    for _ in range(5):
        assert isinstance(step, Candidate)
        claim = step.claim_ids[0]
        reads.clear()
        ctl.resolve(step.id, observations={claim: "b"})
        # the report checked (1), the claim's existence before its evidence (1), the evidence
        # and the belief written (1 each, inside the store), the hazard learned (1)
        assert len([sql for sql in reads if f"'{claim}'" in sql]) <= 5, reads
        # what the controller believes is what the store keeps
        assert store.get_claim(claim).value == ctl.world.beliefs[claim].value
        assert store.get_claim(claim).confidence == ctl.world.beliefs[claim].confidence
        clock.now += timedelta(seconds=1)
        step = ctl.next()
    store.close()
