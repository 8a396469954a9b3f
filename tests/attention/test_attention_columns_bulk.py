"""The candidate columns' bulk paths equal what they replace (issue 24 item 5, the first next).

The first recomputation over thousands of candidates admits them through the guard in one call
(:meth:`Guard.admit_own`, deferred table entries whose objects are built when read), logs their
creation as one batch (:meth:`Trace.write_many`) and fills the belief columns in bulk
(``ColumnTable._touch_all``). Each is checked against the one-at-a-time path on random inputs,
and the whole columns path against the object path, trace event by trace event, field by field.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import numpy as np
import pytest
from tests_attention_time import NOW

from heedful.attention import Controller, HeuristicEstimator
from heedful.attention.config import AttentionConfig, EstimatorConfig, GuardConfig
from heedful.attention.context import SourceInfo
from heedful.attention.guard import CandidateTable, Guard
from heedful.attention.trace import Trace
from heedful.model.candidate import Candidate, CandidateKind, EventType, TraceEvent, Trigger
from heedful.model.goal import ClaimDependency, Goal, GoalStatus

ORIGINS = ("stale_belief", "goal_dependency", "exploration")
TRIGGER_OF = {
    "stale_belief": Trigger.STALE_BELIEF,
    "goal_dependency": Trigger.GOAL_DEPENDENCY,
    "exploration": Trigger.EXPLORATION,
}


class _Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> datetime:
        return self.now


# -- the guard: admit_own against admit, one proposal at a time ---------------------------------


def _own(origin: str, target: str, cid: str = "pending") -> Candidate:
    return Candidate(
        id=cid, target=target, trigger=TRIGGER_OF[origin], origin=origin, created_at=NOW
    )


def _guard_world(
    rng: np.random.Generator, submitted: bool = True
) -> tuple[Guard, list[tuple[str, str]]]:
    """A guard with a random bound and quotas, a table holding generated and (``submitted``)
    submitted candidates (untrusted ones with values, to be evicted), and new proposals."""
    sources = {
        "feed": SourceInfo(id="feed", trusted=False, default_authority=0.2),
        "ops": SourceInfo(id="ops", trusted=True, default_authority=0.9),
    }
    size = int(rng.integers(1, 40))
    config = GuardConfig(
        table_size=size,
        trusted_quota=int(rng.integers(1, 30)),
        generator_quota=int(rng.integers(1, 30)) if rng.random() < 0.8 else None,
        untrusted_quota=int(rng.integers(1, 20)),
        untrusted_rate_per_turn=1_000,
        controller_reserve=float(rng.choice([0.0, 0.2, 0.5])),
        max_aggregates=int(rng.integers(1, 4)),
    )
    guard = Guard(config, sources)
    for i in range(int(rng.integers(0, size + 5))):
        if rng.random() < 0.5 and submitted:
            submitter = str(rng.choice(["feed", "ops"]))
            cand = Candidate(
                id="pending",
                kind=CandidateKind.HANDLE_INTERRUPTION,
                target=f"event-{i}",
                trigger=Trigger.INTERRUPTION,
                origin="interruption",
                submitted_by=submitter,
            )
            _, live = guard.admit(cand, NOW)
            if live is not None and rng.random() < 0.7:
                # Values the controller estimated, which eviction orders by.
                value = float(rng.choice([0.1, 0.5, 0.5, 0.9]))
                guard.table.put(live.model_copy(update={"predicted_voc": value}))
        else:
            guard.admit(_own(str(rng.choice(ORIGINS)), f"old-{i}"), NOW)
    n = int(rng.integers(0, 3 * size + 3))
    proposals = [(str(rng.choice(ORIGINS)), f"s{i}") for i in range(n)]
    return guard, proposals


def _guard_state(guard: Guard) -> tuple[Any, ...]:
    table = guard.table
    cands = list(table)
    owners = {c.submitted_by or f"generator:{c.origin}" for c in cands}
    return (
        [c.model_dump() for c in cands],
        {o: table.count_for(o) for o in owners},
        table.submitted,
        len(table),
        {k: (a.count, sorted(a.targets)) for k, a in guard.aggregates.items()},
        guard.refused,
        guard.evicted,
        dict(guard._created_this_turn),
        table.new_id(),
    )


@pytest.mark.parametrize("submitted", [True, False], ids=["submitted", "own-only"])
@pytest.mark.parametrize("seed", range(60))
def test_bulk_admission_equals_admission_one_at_a_time(seed: int, submitted: bool) -> None:
    """Also without submitted candidates, where refusals are computed on arrays."""
    one, proposals = _guard_world(np.random.default_rng(seed), submitted)
    bulk, same = _guard_world(np.random.default_rng(seed), submitted)
    assert proposals == same
    expected = [one.admit(_own(o, t), NOW) for o, t in proposals]
    statuses, ids = bulk.admit_own(
        CandidateKind.INSPECT_SOURCE, [o for o, _ in proposals], [t for _, t in proposals]
    )
    assert statuses == [s for s, _ in expected]
    assert ids == [live.id if live is not None else None for _, live in expected]
    made = {live.id: live for _, live in expected if live is not None}

    def build() -> None:  # what the columns write back: the objects one-at-a-time made
        for cid in [c for c in list(bulk.table._deferred)]:
            bulk.table.put(made[cid])

    bulk.table.materialize = build
    assert bulk.table.deferred == len(made)
    assert _guard_state(bulk) == _guard_state(one)
    assert bulk.table.deferred == 0


def test_bulk_admission_refuses_a_proposal_already_live() -> None:
    guard = Guard(GuardConfig(), {})
    guard.admit_own(CandidateKind.INSPECT_SOURCE, ["exploration"], ["s1"])
    with pytest.raises(ValueError, match="live already"):
        guard.admit_own(CandidateKind.INSPECT_SOURCE, ["goal_dependency"], ["s1"])
    with pytest.raises(ValueError, match="repeated"):
        guard.admit_own(CandidateKind.INSPECT_SOURCE, ["exploration"] * 2, ["s2", "s2"])


# -- the table: deferred entries read as the objects ---------------------------------------------


@pytest.mark.parametrize("seed", range(30))
def test_a_table_with_deferred_entries_reads_as_one_holding_the_objects(seed: int) -> None:
    rng = np.random.default_rng(seed)
    plain, lazy = CandidateTable(50), CandidateTable(50)
    objects: dict[str, Candidate] = {}  # what each deferred entry is built as

    def build() -> None:
        for cid in list(lazy._deferred):
            lazy.put(objects[cid])

    lazy.materialize = build
    for step in range(120):
        r = rng.random()
        live = list(plain._by_id)
        if r < 0.4 and len(plain) < 50:
            origin = str(rng.choice(ORIGINS))
            cid = plain.new_id()
            assert lazy.new_id() == cid
            cand = _own(origin, f"s{step}", cid)
            plain.put(cand)
            if rng.random() < 0.7:
                objects[cid] = cand
                lazy.defer(cid, ("inspect_source", f"s{step}"), f"generator:{origin}")
            else:
                lazy.put(cand)
        elif r < 0.55 and live:  # renewed under another generator (the owner moves)
            cid = str(rng.choice(live))
            cand = plain.get(cid).model_copy(update={"origin": str(rng.choice(ORIGINS))})
            plain.put(cand)
            lazy.put(cand)
        elif r < 0.7 and live:
            cid = str(rng.choice(live))
            assert lazy.discard(cid) is True
            plain.remove(cid)
        elif r < 0.75 and live:
            cid = str(rng.choice(live))
            assert lazy.remove(cid) == plain.remove(cid)
        elif r < 0.8:
            key = ("inspect_source", f"s{int(rng.integers(0, step + 1))}")
            assert lazy.find(*key) == plain.find(*key)
        elif r < 0.85 and live:
            cid = str(rng.choice(live))
            assert lazy.get(cid) == plain.get(cid)
        elif r < 0.9:
            assert list(lazy) == list(plain)
        assert len(lazy) == len(plain)
        assert lazy.submitted == plain.submitted
        for origin in ORIGINS:
            owner = f"generator:{origin}"
            assert lazy.count_for(owner) == plain.count_for(owner)
        assert lazy.discard("attn-none") is False
    assert list(lazy) == list(plain)
    assert lazy.deferred == 0


def test_a_deferred_entry_nobody_builds_is_an_error_not_a_missing_candidate() -> None:
    table = CandidateTable(5)
    table.defer("attn-1", ("inspect_source", "s1"), "generator:exploration")
    with pytest.raises(RuntimeError, match="never built"):
        list(table)


# -- the trace: write_many against write -----------------------------------------------------------


def _rows(rng: np.random.Generator, n: int) -> tuple[list[str], list[str], dict[str, list[str]]]:
    ids = [f"attn-{int(rng.integers(1, 10_000))}" for _ in range(n)]
    reasons = [str(rng.choice(["goal_dependency", "stale_belief"])) for _ in range(n)]
    detail = {
        "origin": [str(rng.choice(ORIGINS)) for _ in range(n)],
        "target": [f"s{int(rng.integers(0, 99))}" for _ in range(n)],
    }
    return ids, reasons, detail


@pytest.mark.parametrize("sink", [False, True])
@pytest.mark.parametrize("seed", range(20))
def test_write_many_writes_what_write_writes(seed: int, sink: bool) -> None:
    rng = np.random.default_rng(seed)
    max_events = int(rng.integers(1, 60))
    got: list[TraceEvent] = []
    want: list[TraceEvent] = []
    batched = Trace(got.append if sink else None, max_events=max_events)
    single = Trace(want.append if sink else None, max_events=max_events)
    for step in range(int(rng.integers(1, 12))):
        now = NOW + timedelta(seconds=step)
        if rng.random() < 0.5:
            ids, reasons, detail = _rows(rng, int(rng.integers(0, 25)))
            batched.write_many(
                EventType.CANDIDATE_CREATED,
                turn_id=f"turn-{step}",
                now=now,
                candidate_ids=ids,
                reason_codes=reasons,
                detail=detail,
            )
            for i, cid in enumerate(ids):
                single.write(
                    EventType.CANDIDATE_CREATED,
                    turn_id=f"turn-{step}",
                    now=now,
                    candidate_id=cid,
                    reason_code=reasons[i],
                    detail={k: v[i] for k, v in detail.items()},
                )
        else:
            for trace in (batched, single):
                trace.write(
                    EventType.CANDIDATE_SELECTED,
                    turn_id=f"turn-{step}",
                    now=now,
                    candidate_id="attn-1",
                    predicted_voc=0.25,
                    rank=1,
                    reason_code="highest_net_voc",
                    detail={"target": "s1", "saturation": 0.0},
                )
        assert len(batched) == len(single)
        if rng.random() < 0.3:
            assert list(batched) == list(single)
    events, expected = list(batched), list(single)
    assert events == expected
    assert [e.model_dump_json() for e in events] == [e.model_dump_json() for e in expected]
    assert [e.model_fields_set for e in events] == [e.model_fields_set for e in expected]
    for e in events:  # a valid event: validation gives back the same event
        assert TraceEvent.model_validate(e.model_dump()) == e
    assert batched.of(EventType.CANDIDATE_CREATED) == single.of(EventType.CANDIDATE_CREATED)
    assert got == want


def test_write_many_refuses_columns_of_different_lengths() -> None:
    with pytest.raises(ValueError, match="one value per candidate"):
        Trace().write_many(
            EventType.CANDIDATE_CREATED,
            turn_id="t",
            now=NOW,
            candidate_ids=["a", "b"],
            reason_codes=["r"],
            detail={},
        )


# -- the columns: bulk belief columns, and the whole path against the object path ---------------


def _steady(ctl: Controller, rng: np.random.Generator, n: int) -> None:
    """A random steady-state world (one claim per source, no decision, no deadline)."""
    claims = [f"c{i}" for i in range(max(1, n // 2 + int(rng.integers(0, n))))]
    for i in range(n):
        authority: Any = float(rng.uniform(0.1, 1.0))
        if rng.random() < 0.3:
            authority = {f"type{int(rng.integers(2))}": float(rng.uniform(0.1, 1.0))}
        ctl.register_source(
            f"s{i}",
            reports=[str(rng.choice(claims))],
            authority=authority,
            cost={"tool_calls": int(rng.integers(0, 3))},
            age_s=float(rng.choice([0.0, 600.0, 86_400.0])),
            trusted=bool(rng.random() < 0.5),
            failure_rate=float(rng.choice([0.0, 0.0, 0.3])),
        )
    for c in claims:
        if rng.random() < 0.8:
            ctl.record_belief(
                c,
                str(rng.choice(["a", "b"])) if rng.random() < 0.9 else None,
                claim_type=f"type{int(rng.integers(2))}",
                domain=["a", "b", "c"][: int(rng.integers(2, 4))],
                confidence=float(rng.uniform(0.3, 1.0)),
                age_s=float(rng.choice([0.0, 60.0, 3600.0, 86_400.0])),
                volatility=str(rng.choice(["immutable", "low", "medium", "high"])),
                source_id=f"s{int(rng.integers(0, n))}" if rng.random() < 0.3 else None,
            )
            if rng.random() < 0.2:
                ctl.mark_dirty(c)
    for g in range(int(rng.integers(0, 4))):
        chosen = rng.choice([*claims, "nobody-reports-this"], size=int(rng.integers(1, 6)))
        deps = [
            ClaimDependency(claim_id=str(c), weight=float(rng.choice([0.0, 0.5, 1.0])))
            for c in chosen
        ]
        ctl.add_goal(
            Goal(
                id=f"g{g}",
                title="t",
                status=GoalStatus.ACTIVE if rng.random() < 0.8 else GoalStatus.COMPLETED,
                depends_on=deps,
                consequence=float(rng.uniform(0.1, 3.0)),
            )
        )


_BELIEF_COLUMNS = (
    "has_value",
    "conf",
    "obs_us",
    "has_belief",
    "dirty_claim",
    "rate_s",
    "uniform_wrong",
    "evidence_src",
    "authority",
)


@pytest.mark.parametrize("flags", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("seed", range(15))
def test_bulk_belief_columns_equal_touching_claim_by_claim(
    seed: int, flags: tuple[bool, bool]
) -> None:
    rng = np.random.default_rng(seed)
    clock = _Clock()
    use_authority, use_staleness = flags
    estimator = HeuristicEstimator(
        EstimatorConfig(), use_authority=use_authority, use_staleness=use_staleness
    )
    ctl = Controller(clock=clock, estimator=estimator)
    _steady(ctl, rng, int(rng.integers(1, 30)))
    ctl.begin_turn()
    ctl.next()
    columns = ctl._columns
    assert columns.active
    bulk = {k: getattr(columns, k).copy() for k in _BELIEF_COLUMNS}
    kinds = (list(columns.claim_type), list(columns.volatility))
    for k in _BELIEF_COLUMNS:  # clobber them, then touch every claim one at a time
        getattr(columns, k)[:] = 7
    for cid in columns.claims:
        columns._touch(cid)
    for k in _BELIEF_COLUMNS:
        assert getattr(columns, k).tolist() == bulk[k].tolist(), k
    assert (list(columns.claim_type), list(columns.volatility)) == kinds


def _trace_dump(ctl: Controller) -> list[dict[str, Any]]:
    return [e.model_dump() for e in ctl.trace]


@pytest.mark.parametrize("seed", range(20))
def test_the_columns_write_the_trace_the_object_path_writes(seed: int) -> None:
    """Same workload on the columns and on the object path (columns switched off): the same
    steps, the same candidates and the same trace, every field of every event — including
    refusals against a small table and small quotas."""
    rng = np.random.default_rng(seed)
    size = int(rng.integers(3, 40))
    config = AttentionConfig(
        guard=GuardConfig(table_size=size, generator_quota=int(rng.integers(1, size + 2)))
    )
    n = int(rng.integers(1, 40))
    clocks = (_Clock(), _Clock())
    ctls = [Controller(config=config, clock=clk, seed=seed) for clk in clocks]
    budget = int(rng.integers(3, 12))
    for ctl in ctls:
        _steady(ctl, np.random.default_rng(seed + 1000), n)
        ctl.begin_turn(budget=budget)
    ctls[1]._columns.eligible = lambda now: False  # type: ignore[method-assign]
    on_columns = 0
    for step in range(25):
        advance = timedelta(seconds=float(rng.choice([0.0, 1.0, 600.0, 40_000.0])))
        for clk in clocks:
            clk.now += advance
        steps = [ctl.next() for ctl in ctls]
        on_columns += ctls[0]._columns.active
        a, b = steps
        assert type(a) is type(b), step
        if isinstance(a, Candidate) and isinstance(b, Candidate):
            assert a.model_dump() == b.model_dump(), step
            # Mostly the belief confirmed (no contradiction: the columns' steady state).
            belief = ctls[0].world.beliefs.get(a.claim_ids[0])
            value = str(rng.choice(["a", "b"]))
            if belief is not None and belief.value is not None and rng.random() < 0.9:
                value = belief.value
            for ctl, s in zip(ctls, steps, strict=True):
                assert isinstance(s, Candidate)
                ctl.resolve(s.id, observations={s.claim_ids[0]: value})
        elif rng.random() < 0.5:
            budget = int(rng.integers(1, 6))
            for ctl in ctls:
                ctl.begin_turn(budget=budget)
        if rng.random() < 0.3:
            assert [c.model_dump() for c in ctls[0].candidates] == [
                c.model_dump() for c in ctls[1].candidates
            ], step
    assert on_columns > 0
    assert _trace_dump(ctls[0]) == _trace_dump(ctls[1])
    assert [c.model_dump() for c in ctls[0].candidates] == [
        c.model_dump() for c in ctls[1].candidates
    ]


def test_a_first_recomputation_over_many_sources_defers_every_candidate() -> None:
    """What makes the first ``next()`` fast: the candidates are in the table, counted and
    traced, but no object is built until something reads them."""
    clock = _Clock()
    ctl = Controller(clock=clock, config=AttentionConfig(guard=GuardConfig(table_size=5_000)))
    for i in range(2_000):
        ctl.register_source(f"s{i}", reports=[f"c{i}"], authority=0.5, cost={"tool_calls": 1})
        ctl.record_belief(f"c{i}", "a", domain=["a", "b"], confidence=0.9, age_s=3600.0)
    deps = [ClaimDependency(claim_id=f"c{i}") for i in range(2_000)]
    ctl.add_goal(Goal(id="g", title="t", status=GoalStatus.ACTIVE, depends_on=deps))
    step = ctl.next()
    assert isinstance(step, Candidate)
    table = ctl.guard.table
    assert len(table) == 1_999 and table.deferred == 1_999
    created = ctl.trace.of(EventType.CANDIDATE_CREATED)
    assert len(created) == 2_000 and table.deferred == 1_999  # reading the trace builds none
    assert len(ctl.candidates) == 1_999 and table.deferred == 0
    assert {c.id for c in ctl.candidates} | {step.id} == {e.candidate_id for e in created}
