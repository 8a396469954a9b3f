"""Consolidation, second half: stale edges lose weight (issue 15; document 002 §3.2.1 strategy 2).

Document 002 names a Consolidator for explore and IDLE without its rules; merging duplicates is
:class:`~heedful.engine.defaults.DuplicateConsolidator`, decaying stale edges is
:class:`StaleEdgeDecay`. Like every port it only computes: the engine writes the new weights
during reflect, through the journal, so a decay can be undone by id.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime

from heedful.engine.config import CoverageConfig, EdgeDecayConfig
from heedful.engine.records import EdgeRecord, NodeRecord

__all__ = ["StaleEdgeDecay", "edge_ceiling"]


def edge_ceiling(
    source: NodeRecord, target: NodeRecord, now: datetime, coverage: CoverageConfig
) -> tuple[float, float] | None:
    """``(age in half-lives, 0.5 ** that)`` of an edge, or ``None`` when its age is unknown.

    The age is the newer endpoint's (rewriting either end refreshes what the edge relates); the
    half-life is the longer of the two node types' freshness half-lives.
    """
    stamps = [n.updated_at for n in (source, target) if n.updated_at is not None]
    if len(stamps) < 2:
        return None
    age_h = max(0.0, (now - max(stamps)).total_seconds() / 3600.0)
    half_life = max(
        coverage.half_life_hours.get(str(n.type), coverage.default_half_life_hours)
        for n in (source, target)
    )
    if half_life <= 0:
        return None
    lives = age_h / half_life
    return lives, math.pow(0.5, lives)


class StaleEdgeDecay:
    """Default edge decay: cap a stale edge's weight at its freshness (rules in the config).

    Stateless and idempotent: the cap depends only on the endpoints' ages, so running it twice at
    the same time changes nothing, and a later run lowers the weight further only as the edge
    ages. Edges already at or below the cap are left alone.

    Args:
        config: Which edges decay, when, and by how much at least.
        coverage: The node-type half-lives the edge's half-life comes from.
    """

    def __init__(
        self, config: EdgeDecayConfig | None = None, coverage: CoverageConfig | None = None
    ) -> None:
        self.config = config or EdgeDecayConfig()
        self.coverage = coverage or CoverageConfig()

    def decay(
        self, nodes: Sequence[NodeRecord], edges: Sequence[EdgeRecord], now: datetime
    ) -> list[tuple[EdgeRecord, float]]:
        """``(edge, new_weight)`` for each stale edge among ``nodes`` whose cap is lower."""
        cfg = self.config
        if not cfg.enabled:
            return []
        by_id = {n.id: n for n in nodes}
        out: list[tuple[EdgeRecord, float]] = []
        for edge in edges:
            if len(out) >= cfg.max_per_dispatch:
                break
            source, target = by_id.get(edge.source), by_id.get(edge.target)
            if source is None or target is None or str(edge.type) not in cfg.edge_types:
                continue
            aged = edge_ceiling(source, target, now, self.coverage)
            if aged is None or aged[0] < cfg.stale_after_half_lives:
                continue
            new = round(max(cfg.floor, aged[1]), 4)
            if edge.weight - new >= cfg.min_step:
                out.append((edge, new))
        return out
