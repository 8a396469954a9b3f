"""Coverage: does what the graph knows suffice to act, or must the agent learn or escalate?

Pure calculator (document 002 §2.3, ``Coverage.recommend``). Inputs are the goal text, the
region's nodes, the edges among them and the outcomes bearing on them; ``now`` is passed in.
Every formula is written out in docs/engine.md; weights and thresholds are
:class:`heedful.engine.config.CoverageConfig`.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from heedful.engine.config import CoverageConfig
from heedful.engine.records import EdgeRecord, NodeRecord, OutcomeRecord
from heedful.model import EdgeType, OutcomeStatus

_WORD = re.compile(r"[a-z0-9]+")
_STOPWORD_TEXT = (
    "the and for with from into onto that this these those what which when where who whom "
    "how why are was were been being have has had does did doing our ours your yours their "
    "theirs its about above after again against all any both each few more most other some "
    "such only own same than too very can will just should now not nor off out over under "
    "then once here there get got make made use used via per new "
)
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())

#: Outcome status → reliability contribution (success counts fully, partial half).
_RELIABILITY = {
    OutcomeStatus.SUCCESS: 1.0,
    OutcomeStatus.PARTIAL: 0.5,
    OutcomeStatus.FAILURE: 0.0,
    OutcomeStatus.TIMEOUT: 0.0,
    OutcomeStatus.UNEXPECTED: 0.0,
}
#: Outcome status → failure contribution to risk.
_FAILURE = {
    OutcomeStatus.SUCCESS: 0.0,
    OutcomeStatus.PARTIAL: 0.35,
    OutcomeStatus.FAILURE: 1.0,
    OutcomeStatus.TIMEOUT: 0.8,
    OutcomeStatus.UNEXPECTED: 0.5,
}


#: Node contents up to this many characters have their token sets remembered (see _tokens).
_REMEMBERED_CONTENT_CHARS = 1_000


@functools.lru_cache(maxsize=1 << 15)
def _remembered_tokens(content: str) -> frozenset[str]:
    return frozenset(_WORD.findall(content.lower()))


def _tokens(content: str) -> frozenset[str]:
    """The lower-case alphanumeric tokens of a node's content. A survey assesses the same nodes
    in many regions, and again at every heartbeat: short contents' sets are remembered (at most
    32,768 of them, so at most ~32 MB of remembered text)."""
    if len(content) <= _REMEMBERED_CONTENT_CHARS:
        return _remembered_tokens(content)
    return frozenset(_WORD.findall(content.lower()))


#: Missing goal terms a coverage rationale names, and the longest term it shows whole.
_SHOWN_TERMS = 10
_SHOWN_CHARS = 40


def terms(text: str) -> list[str]:
    """Content words of ``text``: lower-case alphanumeric tokens of 3+ characters, no stopwords."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        if len(word) >= 3 and word not in _STOPWORDS:
            seen[word] = None
    return list(seen)


@dataclass(frozen=True)
class Coverage:
    """Result of :func:`assess` (the fields of document 002 §2.3 plus diagnostics).

    Attributes:
        decision: ``"act"``, ``"learn"`` or ``"escalate"``.
        decision_confidence: How clearly the evidence supports that decision, 0..1.
        coverage_score: Weighted sum of the five components, 0..1.
        uncertainty_score: 0..1.
        risk_score: 0..1.
        rationale: Human-readable reasons.
        components: The five component values.
        gaps: What is missing (uncovered goal terms, stale or contested nodes), for explore and
            propose.
    """

    decision: str
    decision_confidence: float
    coverage_score: float
    uncertainty_score: float
    risk_score: float
    rationale: tuple[str, ...]
    components: dict[str, float] = field(default_factory=dict)
    gaps: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        """Return a JSON-able dict."""
        return {
            "decision": self.decision,
            "decision_confidence": self.decision_confidence,
            "coverage_score": self.coverage_score,
            "uncertainty_score": self.uncertainty_score,
            "risk_score": self.risk_score,
            "rationale": list(self.rationale),
            "components": dict(self.components),
            "gaps": list(self.gaps),
        }


def _clamp(x: float) -> float:
    return 0.0 if x < 0.0 else 1.0 if x > 1.0 else x


def _strength(edge: EdgeRecord) -> float:
    """How much an edge counts: its weight, capped to [0, 1]."""
    return min(1.0, max(0.0, edge.weight))


def _age_hours(node: NodeRecord, now: datetime) -> float | None:
    if node.updated_at is None:
        return None
    return max((now - node.updated_at).total_seconds(), 0.0) / 3600.0


def assess(
    query: str | None,
    nodes: Sequence[NodeRecord],
    edges: Sequence[EdgeRecord],
    outcomes: Sequence[OutcomeRecord],
    *,
    now: datetime,
    priority: str = "normal",
    config: CoverageConfig | None = None,
) -> Coverage:
    """Assess how well a region covers a goal.

    Args:
        query: Goal title (and description); ``None`` for a goal-less region.
        nodes: The region's nodes.
        edges: Edges with both endpoints in the region (others are ignored).
        outcomes: Outcomes bearing on the goal or the region.
        now: Current time.
        priority: Goal priority name, which sets the criticality term of risk.
        config: Weights, thresholds and half-lives.

    Returns:
        The :class:`Coverage` assessment.
    """
    cfg = config or CoverageConfig()
    ids = {node.id for node in nodes}
    region_edges = [
        e for e in edges if e.source in ids and e.target in ids and e.source != e.target
    ]
    n = len(nodes)
    gaps: list[str] = []
    reasons: list[str] = []

    # Semantic: share of the goal's content words found in the region, weighted by confidence.
    wanted = terms(query) if query else []
    if wanted:
        best: dict[str, float] = dict.fromkeys(wanted, 0.0)
        for node in nodes:
            # Every wanted word is a term already, so the node's raw tokens answer "is it
            # there?" exactly as its terms would, without filtering them.
            present = _tokens(node.content)
            for word in wanted:
                if word in present and node.confidence > best[word]:
                    best[word] = _clamp(node.confidence)
        semantic = sum(best.values()) / len(wanted)
        missing = [w for w in wanted if best[w] == 0.0]
        if missing:
            gaps.extend(f"unknown: {w}" for w in missing)
            # Named up to a point: a goal's text is the agent's (or a page's) and the survey
            # returns this line for every goal, so it must not grow with the text.
            shown = [w if len(w) <= _SHOWN_CHARS else w[: _SHOWN_CHARS - 1] + "…" for w in missing]
            more = len(shown) - _SHOWN_TERMS
            listed = ", ".join(shown[:_SHOWN_TERMS]) + (f" and {more} more" if more > 0 else "")
            known = len(wanted) - len(missing)
            reasons.append(f"{known} of {len(wanted)} goal terms known (missing: {listed})")
    else:
        semantic = sum(_clamp(x.confidence) for x in nodes) / n if n else 0.0

    # Consistency: Laplace-smoothed share of supporting among supporting+contradicting edges,
    # each edge counted by its strength (weight capped at 1; decayed stale edges count less).
    n_support = sum(_strength(e) for e in region_edges if e.type == EdgeType.SUPPORTS)
    contested = [e for e in region_edges if e.type == EdgeType.CONTRADICTS]
    n_contested = sum(_strength(e) for e in contested)
    consistency = (n_support + 1.0) / (n_support + n_contested + 1.0)
    for e in contested:
        gaps.append(f"contested: {e.source} contradicts {e.target}")
    if contested:
        reasons.append(f"{len(contested)} contradiction(s) in the region")

    # Freshness: mean exponential decay by node type half-life; unknown age counts as 0.5.
    fresh: list[float] = []
    half_lives: dict[object, float] = {}
    for node in nodes:
        age = _age_hours(node, now)
        if age is None:
            fresh.append(0.5)
            continue
        half_life = half_lives.get(node.type)
        if half_life is None:
            half_life = cfg.half_life_hours.get(str(node.type), cfg.default_half_life_hours)
            half_lives[node.type] = half_life
        value = math.pow(0.5, age / half_life) if half_life > 0 else 0.0
        fresh.append(value)
        if value < 0.25:
            gaps.append(f"stale: {node.id}")
    freshness = sum(fresh) / n if n else 0.0
    if n and freshness < 0.5:
        reasons.append(f"knowledge is stale (freshness {freshness:.2f})")

    # Graph support: share of nodes connected inside the region by a non-contradicting edge,
    # each node by its strongest such edge.
    linked: dict[str, float] = {}
    for e in region_edges:
        if e.type != EdgeType.CONTRADICTS:
            strength = _strength(e)
            for end in (e.source, e.target):
                linked[end] = max(linked.get(end, 0.0), strength)
    graph_support = sum(linked.values()) / n if n else 0.0

    # Outcome reliability: Beta(1,1) posterior mean, confidence-weighted.
    total_c = sum(_clamp(o.confidence) for o in outcomes)
    good = sum(_clamp(o.confidence) * _RELIABILITY[o.status] for o in outcomes)
    reliability = (1.0 + good) / (2.0 + total_c)
    failure_rate = (
        sum(_clamp(o.confidence) * _FAILURE[o.status] for o in outcomes) / total_c
        if total_c > 0
        else 0.0
    )
    if not outcomes:
        reasons.append("no outcomes recorded yet")
    elif failure_rate > 0.3:
        reasons.append(f"recent outcomes often fail (failure rate {failure_rate:.2f})")

    w = cfg.weights
    coverage = _clamp(
        w.semantic * semantic
        + w.consistency * consistency
        + w.freshness * freshness
        + w.graph_support * graph_support
        + w.outcome_reliability * reliability
    )

    thin = (
        max(0.0, (cfg.min_context_nodes - n) / cfg.min_context_nodes)
        if cfg.min_context_nodes
        else 0.0
    )
    if n == 0:
        reasons.append("no knowledge in the region")
    elif thin > 0:
        reasons.append(f"thin evidence ({n} node(s))")
    if n > 1:
        confs = [_clamp(x.confidence) for x in nodes]
        mean_c = sum(confs) / n
        spread = min(1.0, 2.0 * math.sqrt(sum((c - mean_c) ** 2 for c in confs) / n))
    else:
        spread = 0.0
    u = cfg.uncertainty_weights
    uncertainty = _clamp(
        u[0] * (1.0 - semantic) + u[1] * thin + u[2] * spread + u[3] * (1.0 - consistency)
    )
    criticality = cfg.criticality.get(priority, 0.5)
    r = cfg.risk_weights
    risk = _clamp(
        r[0] * failure_rate
        + r[1] * (1.0 - consistency)
        + r[2] * (1.0 - freshness)
        + r[3] * criticality
    )

    t = cfg.thresholds
    if (
        coverage >= t.act_coverage
        and uncertainty <= t.act_max_uncertainty
        and risk <= t.act_max_risk
    ):
        decision = "act"
        confidence = (coverage + (1.0 - uncertainty) + (1.0 - risk)) / 3.0
    elif (
        coverage >= t.learn_coverage
        and uncertainty <= t.learn_max_uncertainty
        and risk <= t.learn_max_risk
    ):
        decision = "learn"
        confidence = 0.6 * coverage + 0.4 * (1.0 - uncertainty)
    else:
        decision = "escalate"
        confidence = max(uncertainty, risk, 1.0 - coverage)
    reasons.insert(
        0,
        f"coverage={coverage:.2f} uncertainty={uncertainty:.2f} risk={risk:.2f} → {decision}",
    )
    return Coverage(
        decision=decision,
        decision_confidence=round(_clamp(confidence), 6),
        coverage_score=round(coverage, 6),
        uncertainty_score=round(uncertainty, 6),
        risk_score=round(risk, 6),
        rationale=tuple(reasons),
        components={
            "semantic": round(semantic, 6),
            "consistency": round(consistency, 6),
            "freshness": round(freshness, 6),
            "graph_support": round(graph_support, 6),
            "outcome_reliability": round(reliability, 6),
        },
        gaps=tuple(gaps),
    )
