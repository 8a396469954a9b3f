"""Plain records the engine reads from and writes to its graph port.

These are the engine's view of the knowledge graph (document 002 §5: nodes episodic, semantic,
procedural, outcome, goal; edges causal, temporal, derived_from, supports, contradicts; outcomes
with status and confidence). The vocabulary — :class:`~heedful.model.NodeType`,
:class:`~heedful.model.EdgeType`, :class:`~heedful.model.OutcomeStatus` and
:data:`~heedful.model.SURPRISING` — is :mod:`heedful.model`'s; only the record shapes are the
engine's own.

Why these are not :class:`~heedful.model.Node`, :class:`~heedful.model.Edge` and
:class:`~heedful.model.Outcome` themselves — the differences are real, not copies:

- Time: the model stores epoch seconds; the engine reasons in timezone-aware ``datetime`` (its
  clock, goal deadlines, ages against half-lives), like :class:`~heedful.model.Goal` does.
- Validation: the model validates on construction (confidence in 0..1, ``Outcome.at`` required);
  engine records are built freely; ports stamp missing times and StoreGraph clamps confidence.
- Cost: a frozen dataclass is built in about half the time of the validated model, and the
  store-backed survey converts every node and edge of 1,000 goal regions per cycle.

:class:`~heedful.engine.store_adapter.StoreGraph` converts field names and times at the storage
boundary; the enums pass through unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from heedful.model.claim import OutcomeStatus
from heedful.model.graph import EdgeType, NodeType


@dataclass(frozen=True)
class NodeRecord:
    """One knowledge node (the engine's view of :class:`~heedful.model.Node`).

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
    """One directed typed edge ``source → target`` (the engine's view of a model ``Edge``)."""

    source: str
    target: str
    type: EdgeType = EdgeType.CAUSAL
    weight: float = 1.0


@dataclass(frozen=True)
class OutcomeRecord:
    """One recorded outcome (the engine's view of :class:`~heedful.model.Outcome`).

    Attributes:
        id: Outcome id ("" when not yet stored).
        status: How it turned out.
        confidence: Confidence in the classification 0..1.
        goal_id: The goal it served, if any.
        node_ids: Knowledge nodes it bears on.
        detail: Human-readable description.
        created_at: When it happened (``None`` = let the port stamp it).
    """

    status: OutcomeStatus
    confidence: float = 1.0
    goal_id: str | None = None
    node_ids: tuple[str, ...] = ()
    detail: str = ""
    created_at: datetime | None = None
    id: str = ""
