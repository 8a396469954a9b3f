"""Plain records the engine reads from and writes to its graph port.

These are the engine's view of the knowledge graph (document 002 §5: nodes episodic, semantic,
procedural, outcome, goal; edges causal, temporal, derived_from, supports, contradicts; outcomes
with status and confidence). The storage adapter converts the memory store's rows to them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum


class NodeType(StrEnum):
    """Knowledge-graph node types (document 002 §5)."""

    EPISODIC = "episodic"
    SEMANTIC = "semantic"
    PROCEDURAL = "procedural"
    OUTCOME = "outcome"
    GOAL = "goal"


class EdgeType(StrEnum):
    """Knowledge-graph edge types (document 002 §5)."""

    CAUSAL = "causal"
    TEMPORAL = "temporal"
    DERIVED_FROM = "derived_from"
    SUPPORTS = "supports"
    CONTRADICTS = "contradicts"


class OutcomeStatus(StrEnum):
    """How an action or dispatch turned out."""

    SUCCESS = "success"
    PARTIAL = "partial"
    FAILURE = "failure"
    TIMEOUT = "timeout"
    UNEXPECTED = "unexpected"


#: Outcome statuses that count as surprise (document 002 §2.1: "recent contradiction or
#: unexpected outcome").
SURPRISING = frozenset({OutcomeStatus.FAILURE, OutcomeStatus.TIMEOUT, OutcomeStatus.UNEXPECTED})


@dataclass(frozen=True)
class NodeRecord:
    """One knowledge node.

    Attributes:
        id: Node id.
        type: Node type.
        content: Text of the node.
        confidence: Belief strength 0..1.
        updated_at: Last time the node was written (drives freshness); ``None`` = unknown.
        metadata: Free-form data; the engine uses ``crystallizes`` (list of node ids).
    """

    id: str
    type: NodeType = NodeType.SEMANTIC
    content: str = ""
    confidence: float = 1.0
    updated_at: datetime | None = None
    metadata: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class EdgeRecord:
    """One directed typed edge ``source → target``."""

    source: str
    target: str
    type: EdgeType = EdgeType.CAUSAL
    weight: float = 1.0


@dataclass(frozen=True)
class OutcomeRecord:
    """One recorded outcome.

    Attributes:
        id: Outcome id ("" when not yet stored).
        status: How it turned out.
        confidence: Confidence in the classification 0..1.
        goal_id: The goal it served, if any.
        node_ids: Knowledge nodes it bears on.
        detail: Human-readable description.
        created_at: When it happened.
    """

    status: OutcomeStatus
    confidence: float = 1.0
    goal_id: str | None = None
    node_ids: tuple[str, ...] = ()
    detail: str = ""
    created_at: datetime | None = None
    id: str = ""
