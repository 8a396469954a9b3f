"""Vocabulary of the knowledge graph (document 002 §2, §5): node and edge types, nodes, edges.

The memory store persists these models and the engine reads the same enums; outcome statuses
live with :class:`~heedful.model.claim.Outcome`. Times are epoch seconds (``float``).
"""

from __future__ import annotations

import math
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator

from heedful.model.base import FrozenModel
from heedful.model.claim import Timestamp
from heedful.model.inputs import Id


class NodeType(StrEnum):
    """Kinds of knowledge-graph node (document 002 §5: "episodic, semantic, procedural,
    outcome, goal")."""

    EPISODIC = "episodic"
    SEMANTIC = "semantic"
    PROCEDURAL = "procedural"
    OUTCOME = "outcome"
    GOAL = "goal"


class EdgeType(StrEnum):
    """Kinds of directed knowledge-graph edge."""

    CAUSAL = "causal"
    TEMPORAL = "temporal"
    DERIVED_FROM = "derived_from"
    SUPPORTS = "supports"
    CONTRADICTS = "contradicts"


class Node(FrozenModel):
    """A knowledge-graph node.

    Attributes:
        id: Unique id.
        node_type: Kind of knowledge.
        content: Text; searchable with ``heedful.memory.Store.search``.
        confidence: 0..1.
        created_at: Set by the store when ``None``.
        updated_at: Set by the store on every write.
        metadata: Free-form JSON object.
    """

    id: Id
    node_type: NodeType = NodeType.SEMANTIC
    content: str = ""
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    created_at: Timestamp | None = None
    updated_at: Timestamp | None = None
    metadata: dict[str, object] = Field(default_factory=dict)

    @field_validator("created_at", "updated_at")
    @classmethod
    def _finite(cls, value: float | None) -> float | None:
        if value is not None and not math.isfinite(value):
            raise ValueError("must be a finite number")
        return value


class Edge(FrozenModel):
    """A directed, typed, weighted edge ``src → dst``."""

    src: Id
    dst: Id
    edge_type: EdgeType = EdgeType.CAUSAL
    weight: float = Field(default=1.0, ge=0.0)


class SearchHit(BaseModel):
    """One lexical search result: a node id and its BM25 relevance (higher is better)."""

    model_config = ConfigDict(frozen=True)

    node_id: str
    score: float
