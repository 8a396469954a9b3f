"""Goals: CRUD with enforced status transitions."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from memory_fakes import FakeClock

from heedful.errors import InvalidArgumentError, UnknownNameError
from heedful.memory import Store
from heedful.model.goal import Goal, GoalPriority, GoalStatus


def _goal(gid: str = "g1", **kw: object) -> Goal:
    return Goal.model_validate({"id": gid, "title": f"goal {gid}", **kw})


def test_goal_round_trips_with_timestamps_from_clock(store: Store, clock: FakeClock) -> None:
    stored = store.add_goal(_goal(metadata={"k": [1, 2]}))
    assert stored.created_at == datetime.fromtimestamp(clock.now, UTC)
    assert store.get_goal("g1") == stored


def test_duplicate_goal_is_rejected(store: Store) -> None:
    store.add_goal(_goal())
    with pytest.raises(InvalidArgumentError, match="already exists"):
        store.add_goal(_goal())


def test_unknown_goal_raises_unknown_name(store: Store) -> None:
    with pytest.raises(UnknownNameError, match="g9"):
        store.get_goal("g9")
    with pytest.raises(UnknownNameError):
        store.set_goal_status("g9", GoalStatus.ACTIVE)


def test_legal_transition_is_applied(store: Store, clock: FakeClock) -> None:
    store.add_goal(_goal())
    clock.now += 10
    goal = store.set_goal_status("g1", GoalStatus.ACTIVE)
    assert goal.status is GoalStatus.ACTIVE
    assert goal.updated_at == datetime.fromtimestamp(clock.now, UTC)
    assert store.get_goal("g1").status is GoalStatus.ACTIVE


def test_illegal_transition_raises_and_changes_nothing(store: Store) -> None:
    store.add_goal(_goal())
    with pytest.raises(InvalidArgumentError, match="proposed to completed"):
        store.set_goal_status("g1", GoalStatus.COMPLETED)
    assert store.get_goal("g1").status is GoalStatus.PROPOSED


def test_completed_goal_is_final(store: Store) -> None:
    store.add_goal(_goal(status=GoalStatus.ACTIVE))
    store.set_goal_status("g1", GoalStatus.COMPLETED)
    with pytest.raises(InvalidArgumentError, match="final"):
        store.set_goal_status("g1", GoalStatus.ACTIVE)


def test_full_progress_completes_an_active_goal(store: Store) -> None:
    store.add_goal(_goal(status=GoalStatus.ACTIVE))
    assert store.set_goal_progress("g1", 1.0).status is GoalStatus.COMPLETED


def test_partial_progress_keeps_goal_active(store: Store) -> None:
    store.add_goal(_goal(status=GoalStatus.ACTIVE))
    goal = store.set_goal_progress("g1", 0.5)
    assert (goal.status, goal.progress) == (GoalStatus.ACTIVE, 0.5)


def test_full_progress_on_proposed_goal_is_illegal(store: Store) -> None:
    store.add_goal(_goal())
    with pytest.raises(InvalidArgumentError, match="proposed to completed"):
        store.set_goal_progress("g1", 1.0)


def test_negative_progress_is_rejected(store: Store) -> None:
    store.add_goal(_goal(status=GoalStatus.ACTIVE))
    with pytest.raises(InvalidArgumentError, match="progress"):
        store.set_goal_progress("g1", -0.1)


def test_update_goal_keeps_created_at(store: Store, clock: FakeClock) -> None:
    first = store.add_goal(_goal())
    clock.now += 100
    updated = store.update_goal(first.model_copy(update={"title": "renamed"}))
    assert updated.created_at == first.created_at
    assert store.get_goal("g1").title == "renamed"


def test_list_goals_orders_by_priority_then_due(store: Store) -> None:
    store.add_goal(_goal("low", priority=GoalPriority.LOW))
    store.add_goal(_goal("crit", priority=GoalPriority.CRITICAL))
    store.add_goal(
        _goal("high_late", priority=GoalPriority.HIGH, due_at=datetime(2027, 1, 1, tzinfo=UTC))
    )
    store.add_goal(
        _goal("high_soon", priority=GoalPriority.HIGH, due_at=datetime(2026, 1, 1, tzinfo=UTC))
    )
    store.add_goal(_goal("high_none", priority=GoalPriority.HIGH))
    assert [g.id for g in store.list_goals()] == [
        "crit",
        "high_soon",
        "high_late",
        "high_none",
        "low",
    ]


def test_list_goals_filters_by_status_and_priority(store: Store) -> None:
    store.add_goal(_goal("a", status=GoalStatus.ACTIVE))
    store.add_goal(_goal("b", status=GoalStatus.BLOCKED, priority=GoalPriority.HIGH))
    store.add_goal(_goal("c"))
    assert [g.id for g in store.list_goals(status=GoalStatus.ACTIVE)] == ["a"]
    statuses = [GoalStatus.ACTIVE, GoalStatus.BLOCKED]
    assert {g.id for g in store.list_goals(status=statuses)} == {"a", "b"}
    assert [g.id for g in store.list_goals(priority=GoalPriority.HIGH)] == ["b"]


def test_delete_goal(store: Store) -> None:
    store.add_goal(_goal())
    store.delete_goal("g1")
    assert store.list_goals() == []
