"""The one goal model shared by the memory store, the controller and the engine.

Fields, statuses, priorities, timescales and source types follow Graphonomous' GoalGraph
(document 002 §2, SPEC §6); ``depends_on`` and ``consequence`` add what the controller needs
(document 000 §8: which claims a goal's decision rests on, and what acting wrongly costs).
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from heedful.model.base import FrozenModel
from heedful.model.inputs import MAX_TEXT_CHARS, MAX_TITLE_CHARS, AwareTime, Id


class GoalStatus(StrEnum):
    """Lifecycle state of a goal."""

    PROPOSED = "proposed"
    ACTIVE = "active"
    BLOCKED = "blocked"
    COMPLETED = "completed"
    ABANDONED = "abandoned"


class GoalPriority(StrEnum):
    """How much a goal matters."""

    LOW = "low"
    NORMAL = "normal"
    HIGH = "high"
    CRITICAL = "critical"


class GoalTimescale(StrEnum):
    """The horizon a goal lives on."""

    IMMEDIATE = "immediate"
    SHORT_TERM = "short_term"
    MEDIUM_TERM = "medium_term"
    LONG_TERM = "long_term"


class GoalSource(StrEnum):
    """Who created a goal."""

    USER = "user"
    SYSTEM = "system"
    INFERRED = "inferred"
    POLICY = "policy"


#: Allowed status transitions (document 002 / GoalGraph). ``completed`` is terminal.
GOAL_TRANSITIONS: dict[GoalStatus, frozenset[GoalStatus]] = {
    GoalStatus.PROPOSED: frozenset({GoalStatus.ACTIVE, GoalStatus.BLOCKED, GoalStatus.ABANDONED}),
    GoalStatus.ACTIVE: frozenset({GoalStatus.BLOCKED, GoalStatus.COMPLETED, GoalStatus.ABANDONED}),
    GoalStatus.BLOCKED: frozenset({GoalStatus.ACTIVE, GoalStatus.ABANDONED, GoalStatus.PROPOSED}),
    GoalStatus.ABANDONED: frozenset({GoalStatus.PROPOSED, GoalStatus.ACTIVE}),
    GoalStatus.COMPLETED: frozenset(),
}


def can_transition(old: GoalStatus, new: GoalStatus) -> bool:
    """Return whether a goal may move from ``old`` to ``new`` status."""
    return new in GOAL_TRANSITIONS[old]


class ClaimDependency(FrozenModel):
    """A claim a goal's decision depends on, with how much it matters (0..1)."""

    claim_id: Id
    weight: float = Field(default=1.0, ge=0.0, le=1.0)


class Goal(BaseModel):
    """A goal of the agent.

    Attributes:
        id: Unique id.
        title: Short statement; the engine retrieves the goal's knowledge region by it.
        description: Longer text.
        status: Lifecycle state.
        priority: Importance.
        timescale: Horizon.
        source: Who created it.
        due_at: Optional deadline (timezone-aware UTC recommended).
        progress: 0..1; reaching 1.0 completes the goal.
        linked_node_ids: Knowledge-graph nodes explicitly linked to the goal.
        depends_on: Claims the goal's decision rests on (controller input).
        consequence: Utility lost when acting on a wrong belief for this goal (controller input).
        created_at: Creation time.
        updated_at: Last change.
        metadata: Free-form extra data.
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    id: Id
    title: str = Field(min_length=1, max_length=MAX_TITLE_CHARS)
    description: str = Field(default="", max_length=MAX_TEXT_CHARS)
    status: GoalStatus = GoalStatus.PROPOSED
    priority: GoalPriority = GoalPriority.NORMAL
    timescale: GoalTimescale = GoalTimescale.MEDIUM_TERM
    source: GoalSource = GoalSource.USER
    due_at: AwareTime | None = None
    progress: float = Field(default=0.0, ge=0.0)
    linked_node_ids: list[Id] = Field(default_factory=list)
    depends_on: list[ClaimDependency] = Field(default_factory=list)
    consequence: float = Field(default=1.0, ge=0.0)
    created_at: datetime | None = None
    updated_at: datetime | None = None
    metadata: dict[str, object] = Field(default_factory=dict)
