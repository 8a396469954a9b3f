"""Builders shared by the engine tests: a fixed clock and canonical goal regions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from heedful.engine.ports import GraphPort
from heedful.engine.records import EdgeRecord, NodeRecord, OutcomeRecord
from heedful.model import EdgeType, OutcomeStatus
from heedful.model.goal import Goal, GoalPriority, GoalSource, GoalStatus

NOW = datetime(2026, 3, 21, 12, 0, tzinfo=UTC)


def clock() -> datetime:
    """The fixed test clock."""
    return NOW


def node(node_id: str, content: str, confidence: float = 0.95, age_h: float = 1.0) -> NodeRecord:
    """A semantic node written ``age_h`` hours before NOW."""
    return NodeRecord(
        id=node_id, content=content, confidence=confidence, updated_at=NOW - timedelta(hours=age_h)
    )


def add_goal(
    graph: GraphPort,
    goal_id: str,
    title: str,
    *,
    days: float = 2.0,
    priority: GoalPriority = GoalPriority.HIGH,
    linked: list[str] | None = None,
    status: GoalStatus = GoalStatus.ACTIVE,
    source: GoalSource = GoalSource.USER,
    metadata: dict[str, object] | None = None,
) -> Goal:
    """Add a goal due ``days`` after NOW."""
    return graph.add_goal(
        Goal(
            id=goal_id,
            title=title,
            status=status,
            priority=priority,
            source=source,
            due_at=NOW + timedelta(days=days),
            linked_node_ids=linked or [],
            metadata=metadata or {},
        )
    )


def add_act_region(graph: GraphPort, prefix: str, topic: str) -> list[str]:
    """A strong, fresh, consistent DAG region on ``topic`` (coverage decides ``act``)."""
    ids = [f"{prefix}{i}" for i in range(3)]
    for node_id, words in zip(
        ids, ("pipeline ready", "checklist approved", "window open"), strict=True
    ):
        graph.add_node(node(node_id, f"{topic} {words}"))
    graph.add_edge(EdgeRecord(ids[0], ids[1], EdgeType.SUPPORTS))
    graph.add_edge(EdgeRecord(ids[1], ids[2], EdgeType.SUPPORTS))
    graph.record_outcome(
        OutcomeRecord(
            OutcomeStatus.SUCCESS, 1.0, node_ids=(ids[0],), created_at=NOW - timedelta(days=3)
        )
    )
    return ids


def add_cyclic_region(graph: GraphPort, prefix: str, topic: str) -> list[str]:
    """Like :func:`add_act_region` but the supports edges close a cycle (κ = 1)."""
    ids = add_act_region(graph, prefix, topic)
    graph.add_edge(EdgeRecord(ids[2], ids[0], EdgeType.CAUSAL))
    return ids


def add_learn_region(graph: GraphPort, prefix: str, topic: str) -> list[str]:
    """Two loose nodes on ``topic`` (for a goal "<topic> <two unknown words>" coverage decides
    ``learn`` below the explore line)."""
    ids = [f"{prefix}0", f"{prefix}1"]
    graph.add_node(node(ids[0], f"{topic} rose in march", 0.8))
    graph.add_node(node(ids[1], f"{topic} survey results", 0.7))
    return ids
