"""Triage: urgency, surprise, attention score, ranking and dispatch modes (document 002 §3.1.2)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from heedful.engine.config import DispatchMode, TriageConfig
from heedful.engine.coverage import Coverage
from heedful.engine.records import OutcomeRecord
from heedful.engine.topology import analyze
from heedful.engine.triage import (
    AttentionItem,
    deadline_proximity,
    dispatch_mode,
    surprise,
    triage,
    urgency,
)
from heedful.model import OutcomeStatus
from heedful.model.goal import Goal, GoalPriority, GoalStatus

NOW = datetime(2026, 1, 1, tzinfo=UTC)
CFG = TriageConfig()


def _cov(decision: str, score: float, confidence: float = 0.7, risk: float = 0.3) -> Coverage:
    return Coverage(decision, confidence, score, 0.3, risk, ())


def _goal(gid: str, days: float | None, priority: GoalPriority = GoalPriority.HIGH) -> Goal:
    due = None if days is None else NOW + timedelta(days=days)
    return Goal(id=gid, title=gid, status=GoalStatus.ACTIVE, priority=priority, due_at=due)


def _item(
    goal: Goal | None, cov: Coverage, cyclic: bool = False, surprise_: float = 0.0
) -> AttentionItem:
    topo = analyze(["a", "b"], [("a", "b"), ("b", "a")] if cyclic else [("a", "b")])
    return AttentionItem(
        goal_id=goal.id if goal else None,
        goal_title=goal.title if goal else "gap",
        region_node_ids=("a", "b"),
        coverage=cov,
        topology=topo,
        surprise=surprise_,
        goal=goal,
    )


def test_deadline_proximity_is_one_at_deadline_and_zero_a_week_out() -> None:
    assert deadline_proximity(_goal("g", 0), NOW, CFG) == 1.0
    assert deadline_proximity(_goal("g", -1), NOW, CFG) == 1.0
    assert deadline_proximity(_goal("g", 7), NOW, CFG) == 0.0
    assert deadline_proximity(_goal("g", 3.5), NOW, CFG) == pytest.approx(0.5)


def test_urgency_is_proximity_times_priority_weight() -> None:
    assert urgency(_goal("g", 0, GoalPriority.LOW), NOW, CFG) == pytest.approx(0.3)
    assert urgency(_goal("g", 0, GoalPriority.NORMAL), NOW, CFG) == pytest.approx(0.6)
    assert urgency(None, NOW, CFG) == 0.1


def test_triage_ranks_items_by_urgency_times_gap_plus_surprise() -> None:
    near = _item(_goal("near", 1), _cov("learn", 0.5))
    far = _item(_goal("far", 6), _cov("learn", 0.5))
    surprised = _item(_goal("surprised", 6), _cov("learn", 0.5), surprise_=1.0)
    ranked = triage([far, near, surprised], NOW, CFG)
    for item in ranked:
        assert item.attention_score == pytest.approx(item.urgency * item.gap + 0.3 * item.surprise)
    assert [i.goal_id for i in ranked] == ["near", "surprised", "far"]


def test_triage_assigns_dispatch_mode_from_coverage_and_topology() -> None:
    g = _goal("g", 1)
    cases = [
        (_item(g, _cov("escalate", 0.2, risk=0.9)), DispatchMode.ESCALATE),
        # Low coverage at acceptable risk explores (document 002 §5, Goal B at 0.31).
        (_item(g, _cov("escalate", 0.31)), DispatchMode.EXPLORE),
        (
            _item(g.model_copy(update={"metadata": {"explore_stalls": 3}}), _cov("escalate", 0.2)),
            DispatchMode.ESCALATE,
        ),
        (_item(g, _cov("learn", 0.50)), DispatchMode.FOCUS),
        (_item(g, _cov("learn", 0.65)), DispatchMode.FOCUS),
        (_item(g, _cov("act", 0.9), cyclic=True), DispatchMode.FOCUS),
        (_item(g, _cov("act", 0.9)), DispatchMode.ACT),
        (_item(None, _cov("learn", 0.5)), DispatchMode.PROPOSE),
        (_item(None, _cov("act", 0.9)), DispatchMode.IDLE),
    ]
    for item, expected in cases:
        assert triage([item], NOW, CFG)[0].dispatch_mode == expected


def test_dispatch_mode_of_a_surveyed_item_matches_the_rule() -> None:
    item = replace(_item(_goal("g", 1), _cov("learn", 0.4)), gap=0.6)
    assert dispatch_mode(item, CFG) == DispatchMode.EXPLORE  # learn below 0.45 (§3.1.2)


def test_attention_scores_are_deterministic_for_same_inputs() -> None:
    items = [_item(_goal(f"g{i}", i), _cov("learn", 0.5 + i / 100)) for i in range(5)]
    assert triage(items, NOW, CFG) == triage(list(reversed(items)), NOW, CFG)


def test_voc_triage_ranks_by_value_of_computation() -> None:
    voc_cfg = TriageConfig(method="voc")
    confident = _item(_goal("confident", 1), _cov("learn", 0.2, confidence=0.95))
    unsure = _item(_goal("unsure", 1), _cov("learn", 0.5, confidence=0.2))
    by_formula = [i.goal_id for i in triage([confident, unsure], NOW, CFG)]
    by_voc = triage([confident, unsure], NOW, voc_cfg)
    assert by_formula == ["confident", "unsure"]
    assert [i.goal_id for i in by_voc] == ["unsure", "confident"]
    assert by_voc[0].voc > by_voc[1].voc


def test_surprise_counts_recent_failures_only() -> None:
    recent_fail = OutcomeRecord(OutcomeStatus.FAILURE, 1.0, created_at=NOW - timedelta(hours=1))
    old_fail = OutcomeRecord(OutcomeStatus.FAILURE, 1.0, created_at=NOW - timedelta(days=3))
    recent_ok = OutcomeRecord(OutcomeStatus.SUCCESS, 1.0, created_at=NOW - timedelta(hours=1))
    assert surprise([recent_fail], [], NOW, CFG) > 0.9
    assert surprise([old_fail, recent_ok], [], NOW, CFG) == 0.0
    assert 0.0 < surprise([], [NOW - timedelta(hours=1)], NOW, CFG) < 0.5
