"""Goals: storage of the shared :class:`heedful.model.Goal` with enforced status transitions.

Transitions follow :data:`heedful.model.GOAL_TRANSITIONS` (document 002 §3.2.4, GoalGraph).
Progress reaching 1.0 completes a goal — which is only legal from ``active``.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from pydantic import ValidationError
from pydantic_core import PydanticSerializationError

from heedful.errors import InvalidArgumentError, UnknownNameError
from heedful.memory._base import StoreBase, dumps
from heedful.model.base import as_utc
from heedful.model.goal import Goal, GoalPriority, GoalStatus, can_transition

#: Sort rank of priorities: ``list_goals`` returns the most important first.
PRIORITY_RANK: dict[GoalPriority, int] = {
    GoalPriority.LOW: 0,
    GoalPriority.NORMAL: 1,
    GoalPriority.HIGH: 2,
    GoalPriority.CRITICAL: 3,
}


def _check_transition(goal_id: str, old: GoalStatus, new: GoalStatus) -> None:
    if old != new and not can_transition(old, new):
        allowed = sorted(s.value for s in GoalStatus if can_transition(old, s))
        raise InvalidArgumentError(
            f"goal {goal_id!r} cannot go from {old.value} to {new.value}"
            f" (allowed from {old.value}: {', '.join(allowed) or 'none, it is final'})"
        )


class GoalsMixin(StoreBase):
    """CRUD for goals."""

    def _stamp(self) -> datetime:
        return datetime.fromtimestamp(self.now(), UTC)

    def _complete_if_done(self, goal: Goal, old_status: GoalStatus) -> Goal:
        if goal.progress >= 1.0 and goal.status is not GoalStatus.COMPLETED:
            _check_transition(goal.id, old_status, GoalStatus.COMPLETED)
            return _rebuild(goal, status=GoalStatus.COMPLETED)
        return goal

    def _write_goal(self, goal: Goal) -> None:
        try:
            body = goal.model_dump_json()
            # JSON has no inf/NaN: pydantic would write them as null, which never reads back.
            dumps(goal.model_dump(mode="json"), f"goal {goal.id!r}")
        except PydanticSerializationError as exc:
            raise InvalidArgumentError(f"goal {goal.id!r} is not serialisable: {exc}") from exc
        due = None if goal.due_at is None else _epoch(goal.due_at)
        created = _epoch(goal.created_at) if goal.created_at else self.now()
        self._conn.execute(
            "INSERT INTO goals (id, status, priority_rank, due_at, created_at, body)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET"
            " status = excluded.status, priority_rank = excluded.priority_rank,"
            " due_at = excluded.due_at, body = excluded.body",
            (goal.id, goal.status.value, PRIORITY_RANK[goal.priority], due, created, body),
        )

    def add_goal(self, goal: Goal) -> Goal:
        """Store a new goal (timestamps filled from the store clock) and return it.

        Raises:
            InvalidArgumentError: The id exists already, or progress ≥ 1 on a goal that cannot
                complete from its status.
        """
        stamp = self._stamp()
        goal = _rebuild(goal, created_at=goal.created_at or stamp, updated_at=stamp)
        goal = self._complete_if_done(goal, goal.status)
        with self._tx():
            if self._read("SELECT 1 FROM goals WHERE id = ?", (goal.id,)):
                raise InvalidArgumentError(f"goal {goal.id!r} already exists")
            self._write_goal(goal)
        return goal

    def get_goal(self, goal_id: str) -> Goal:
        """Return goal ``goal_id``; raise UnknownNameError if not stored."""
        rows = self._read("SELECT body FROM goals WHERE id = ?", (goal_id,))
        if not rows:
            raise UnknownNameError(f"unknown goal {goal_id!r}")
        return Goal.model_validate_json(rows[0]["body"])

    def list_goals(
        self,
        status: GoalStatus | Iterable[GoalStatus] | None = None,
        *,
        priority: GoalPriority | None = None,
    ) -> list[Goal]:
        """Return goals, most important first (priority, then earliest due, then oldest).

        Args:
            status: Keep only goals in this status (or any of these statuses).
            priority: Keep only goals of this priority.
        """
        where: list[str] = []
        params: list[object] = []
        if status is not None:
            wanted = [status] if isinstance(status, GoalStatus) else list(status)
            where.append(f"status IN ({', '.join('?' * len(wanted))})")
            params.extend(s.value for s in wanted)
        if priority is not None:
            where.append("priority_rank = ?")
            params.append(PRIORITY_RANK[priority])
        clause = f" WHERE {' AND '.join(where)}" if where else ""
        rows = self._read(
            f"SELECT body FROM goals{clause} ORDER BY priority_rank DESC,"
            " due_at IS NULL, due_at, created_at, id",
            params,
        )
        return [Goal.model_validate_json(r["body"]) for r in rows]

    def update_goal(self, goal: Goal) -> Goal:
        """Replace a stored goal's fields, enforcing the status transition; return it.

        Raises:
            UnknownNameError: No goal with this id.
            InvalidArgumentError: Illegal status transition.
        """
        with self._tx():
            old = self.get_goal(goal.id)
            _check_transition(goal.id, old.status, goal.status)
            goal = _rebuild(goal, created_at=old.created_at, updated_at=self._stamp())
            goal = self._complete_if_done(goal, goal.status)
            self._write_goal(goal)
        return goal

    def set_goal_status(self, goal_id: str, status: GoalStatus) -> Goal:
        """Move goal ``goal_id`` to ``status`` (transition enforced); return it."""
        with self._tx():
            return self.update_goal(_rebuild(self.get_goal(goal_id), status=status))

    def set_goal_progress(self, goal_id: str, progress: float) -> Goal:
        """Set progress (≥ 0); reaching 1.0 completes the goal. Return it."""
        if not progress >= 0.0:
            raise InvalidArgumentError(f"goal progress must be ≥ 0, got {progress}")
        with self._tx():
            return self.update_goal(_rebuild(self.get_goal(goal_id), progress=progress))

    def restore_goal(self, goal: Goal) -> Goal:
        """Write ``goal`` back exactly as given (no transition check): for undoing a change.

        Raises:
            UnknownNameError: No goal with this id.
        """
        with self._tx():
            self.get_goal(goal.id)
            self._write_goal(goal)
        return goal

    def delete_goal(self, goal_id: str) -> None:
        """Delete goal ``goal_id``."""
        with self._tx() as conn:
            self.get_goal(goal_id)
            conn.execute("DELETE FROM goals WHERE id = ?", (goal_id,))


def _epoch(value: datetime) -> float:
    return as_utc(value).timestamp()


def _rebuild(goal: Goal, **changes: object) -> Goal:
    """Return a validated copy of ``goal`` with ``changes`` applied."""
    data = goal.model_dump()
    data.update(changes)
    try:
        return Goal.model_validate(data)
    except ValidationError as exc:
        raise InvalidArgumentError(f"invalid goal {goal.id!r}: {exc}") from exc
