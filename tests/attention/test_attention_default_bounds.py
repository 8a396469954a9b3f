"""One fast path for every controller (issue 35 item 1): the default guard bounds and a memory
store change neither which reads the controller chooses nor that it chooses them on the
candidate columns."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from heedful.attention import AttentionConfig, Controller, GuardConfig, Stop
from heedful.memory import Store
from heedful.model.candidate import Candidate
from heedful.model.goal import ClaimDependency, Goal, GoalStatus


class _Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def _world(ctl: Controller, n: int, trusted_every: int = 3) -> None:
    """``n`` sources, each reporting one claim one goal depends on (the speed benchmark's world;
    every ``trusted_every``-th source trusted, the others untrusted)."""
    for i in range(n):
        ctl.register_source(
            f"s{i}",
            reports=[f"c{i}"],
            authority=0.5 + (i % 50) / 100,
            cost={"tool_calls": 1 + (i % 3)},
            trusted=i % trusted_every == 0,
        )
        ctl.record_belief(
            f"c{i}",
            "a",
            domain=["a", "b"],
            confidence=0.9,
            age_s=3600.0 * (i % 7),
            volatility="medium",
        )
    deps = [ClaimDependency(claim_id=f"c{i}") for i in range(n)]
    ctl.add_goal(Goal(id="g", title="t", status=GoalStatus.ACTIVE, depends_on=deps))


def _reads(ctl: Controller, clock: _Clock, steps: int) -> tuple[list[str], int]:
    """The targets chosen in an agent loop (each read confirms the belief; the clock moves 30 s
    a step), and on how many of the steps the controller was on its columns."""
    ctl.begin_turn(budget=None)
    out: list[str] = []
    on_columns = 0
    for _ in range(steps):
        step = ctl.next()
        on_columns += ctl._columns.active
        if isinstance(step, Stop):
            break
        assert isinstance(step, Candidate)
        out.append(step.target)
        ctl.resolve(step.id, observations={step.claim_ids[0]: "a"})
        clock.now += timedelta(seconds=30)
    return out, on_columns


def _crowded(ctl: Controller) -> None:
    """2,000 authoritative sources whose claims are all but certain, registered before 500
    slightly less authoritative ones whose claims are a coin flip: the reads worth making are
    the 500. (With 2,000 live candidates per generator, the bound before issue 35, the 500 were
    refused — the most authoritative are admitted first — and never read.)"""
    for i in range(2_500):
        sure = i < 2_000
        ctl.register_source(
            f"s{i}", reports=[f"c{i}"], authority=0.95 if sure else 0.9, trusted=True
        )
        ctl.record_belief(
            f"c{i}", "a", domain=["a", "b"], confidence=0.99 if sure else 0.55, volatility="low"
        )
    deps = [ClaimDependency(claim_id=f"c{i}") for i in range(2_500)]
    ctl.add_goal(Goal(id="g", title="t", status=GoalStatus.ACTIVE, depends_on=deps))


def test_the_default_bounds_choose_the_reads_the_raised_bounds_choose() -> None:
    runs = []
    for config in (
        AttentionConfig(),
        AttentionConfig(guard=GuardConfig(table_size=10_000, generator_quota=10_000)),
    ):
        clock = _Clock()
        ctl = Controller(config=config, clock=clock)
        _crowded(ctl)
        runs.append(_reads(ctl, clock, 20))
    (default, on_default), (raised, _) = runs
    assert len(default) == 20
    assert default == raised
    # The coin flips (but for an exploration read or two of the selector's 5 %).
    assert sum(int(t.removeprefix("s")) >= 2_000 for t in default) >= 17
    assert on_default == 20


def test_the_default_bounds_keep_the_speed_benchmarks_reads() -> None:
    """The speed benchmark's world (3,000 sources, trusted and untrusted)."""
    n = 3_000
    runs = []
    for config in (
        AttentionConfig(),
        AttentionConfig(guard=GuardConfig(table_size=3 * n, generator_quota=3 * n)),
    ):
        clock = _Clock()
        ctl = Controller(config=config, clock=clock)
        _world(ctl, n)
        runs.append(_reads(ctl, clock, 25))
    (default, on_default), (raised, _) = runs
    assert len(default) == 25
    assert default == raised
    assert on_default == 25


def test_a_store_backed_controller_chooses_the_reads_of_the_in_memory_one(
    tmp_path: Path, fixed_clock: datetime
) -> None:
    n = 400
    clocks = (_Clock(), _Clock())
    memory = Controller(clock=clocks[0])
    stored = Controller(store=Store.open(tmp_path / "s.db"), clock=clocks[1])
    for ctl in (memory, stored):
        _world(ctl, n)
    (a, _), (b, on_store) = (_reads(memory, clocks[0], 20), _reads(stored, clocks[1], 20))
    assert len(a) == 20 and a == b
    assert on_store == 20  # the store-backed controller stays on the columns


def test_a_store_backed_controller_on_the_columns_sees_a_belief_the_store_marked_dirty(
    tmp_path: Path, fixed_clock: datetime
) -> None:
    """Truth maintenance upstream still raises a dirty-belief read on the columns."""
    clock = _Clock()
    store = Store.open(tmp_path / "s.db")
    ctl = Controller(store=store, clock=clock)
    ctl.register_source("doc", reports=["x"], authority=0.9, cost={"tool_calls": 1})
    ctl.record_belief("x", "a", domain=["a", "b"], confidence=0.99, age_s=0.0, volatility="low")
    ctl.begin_turn(budget=None)
    assert isinstance(ctl.next(), Stop)  # fresh and confident: nothing worth reading
    assert ctl._columns.active
    store.mark_dirty("x", "upstream changed")
    step = ctl.next()
    assert isinstance(step, Candidate) and step.target == "doc"
    assert step.trigger.value == "dirty_belief"
    assert ctl._columns.active


def test_the_ranking_from_the_columns_is_the_object_paths() -> None:
    """``Controller.ranking`` (what ``attention_rank`` lists) builds only the first ``limit``
    from the columns: the same candidates and estimates, in the same order, as sorting every
    object."""
    clocks = (_Clock(), _Clock())
    ctls = [Controller(clock=clk, seed=3) for clk in clocks]
    for ctl in ctls:
        _world(ctl, 300)
        ctl.begin_turn(budget=None)
    ctls[1]._columns.eligible = lambda now: False  # type: ignore[method-assign]
    for _ in range(3):
        steps = [ctl.next() for ctl in ctls]
        assert ctls[0]._columns.active and not ctls[1]._columns.active
        ranked = [
            ctl.ranking(25, s if isinstance(s, Candidate) else None)
            for ctl, s in zip(ctls, steps, strict=True)
        ]
        (n0, top0), (n1, top1) = ranked
        assert n0 == n1 == 300
        assert [(c.model_dump(), e) for c, e in top0] == [(c.model_dump(), e) for c, e in top1]
        assert any(c.id == steps[0].id for c, _ in top0 if isinstance(steps[0], Candidate))
        for ctl, s in zip(ctls, steps, strict=True):
            assert isinstance(s, Candidate)
            ctl.resolve(s.id, observations={s.claim_ids[0]: "a"})
