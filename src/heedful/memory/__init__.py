"""heedful.memory: durable memory in one SQLite file.

Claims with justifications and truth maintenance (dirty propagation), sources with
claim-specific authority, evidence, freshness (hazards, learned change rates), goals, the
knowledge graph of document 002, and the attention trace. See ``docs/memory.md``.
"""

from __future__ import annotations

from heedful.memory.claims import EvidenceResult
from heedful.memory.freshness import (
    DEFAULT_FRESHNESS,
    FreshnessConfig,
    cho_garcia_molina_rate,
    p_stale,
    p_stale_rate,
)
from heedful.memory.goals import PRIORITY_RANK
from heedful.memory.graph import MAX_QUERY_TOKENS, fts_query
from heedful.memory.outcomes import LOW_CONFIDENCE
from heedful.memory.schema import MIGRATIONS, SCHEMA_VERSION
from heedful.memory.store import MEMORY, Store
from heedful.memory.trace import TraceEvent, TraceRecord

# The graph vocabulary lives in heedful.model; re-exported because Store's graph API speaks it.
from heedful.model.graph import Edge, EdgeType, Node, NodeType, SearchHit

__all__ = [
    "DEFAULT_FRESHNESS",
    "LOW_CONFIDENCE",
    "MAX_QUERY_TOKENS",
    "MEMORY",
    "MIGRATIONS",
    "PRIORITY_RANK",
    "SCHEMA_VERSION",
    "Edge",
    "EdgeType",
    "EvidenceResult",
    "FreshnessConfig",
    "Node",
    "NodeType",
    "SearchHit",
    "Store",
    "TraceEvent",
    "TraceRecord",
    "cho_garcia_molina_rate",
    "fts_query",
    "p_stale",
    "p_stale_rate",
]
