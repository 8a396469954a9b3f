"""Triage: score and rank attention items, and pick each item's dispatch mode.

Pure (document 002 §2.1 step 2 and §3.1.2). ``formula`` triage is the document's
``attention_score = urgency × gap + 0.3 × surprise``; ``voc`` triage ranks by a
value-of-computation estimate ``P(decision changes) × stakes − cost`` instead (SPEC §1, document
000 §9), written in the same shape as the controller's heuristic estimator so both agree.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

import numpy as np

from heedful.decision import heuristic_voc
from heedful.engine.config import DispatchMode, TriageConfig
from heedful.engine.coverage import Coverage
from heedful.engine.records import OutcomeRecord
from heedful.engine.topology import EMPTY_TOPOLOGY, Topology
from heedful.model import SURPRISING
from heedful.model.goal import Goal


@dataclass(frozen=True)
class AttentionItem:
    """One entry of the attention map (document 002 §2.3).

    Attributes:
        goal_id: The goal, or ``None`` for a goal-less coverage gap.
        goal_title: Goal title, or a description of the gap region.
        region_node_ids: The knowledge region surveyed.
        coverage: Coverage assessment of the region.
        topology: κ topology of the region.
        urgency: Deadline proximity × priority weight.
        gap: ``1 − coverage_score``.
        surprise: Recent failed/unexpected outcomes and contradictions, 0..1.
        friction: ``max_kappa`` (a cost, not part of the score).
        attention_score: The triage score used for ranking.
        dispatch_mode: What the item needs.
        voc: Value-of-computation estimate (always computed; ranks under ``voc`` triage).
        goal: The goal itself (not serialised).
        mode_reason: Why the mode differs from the table, e.g. a governance ``escalate_when``.
    """

    goal_id: str | None
    goal_title: str
    region_node_ids: tuple[str, ...]
    coverage: Coverage
    topology: Topology = EMPTY_TOPOLOGY
    urgency: float = 0.0
    gap: float = 0.0
    surprise: float = 0.0
    friction: int = 0
    attention_score: float = 0.0
    dispatch_mode: DispatchMode = DispatchMode.IDLE
    voc: float = 0.0
    goal: Goal | None = field(default=None, compare=False, repr=False)
    mode_reason: str = ""

    @property
    def key(self) -> str:
        """Stable identity for cooldowns: the goal id, or the region for goal-less items."""
        return self.goal_id or "region:" + ",".join(self.region_node_ids[:8])

    def rationale(self) -> str:
        """One sentence explaining the score and the mode (document 002 §3.3)."""
        parts = [f"urgency {self.urgency:.2f}"]
        if self.goal is not None and self.goal.due_at is not None:
            parts[0] += f" (due {self.goal.due_at.isoformat()})"
        parts.append(f"coverage gap {self.gap:.2f} ({self.coverage.decision})")
        if self.surprise > 0:
            parts.append(f"surprise {self.surprise:.2f}")
        if self.friction > 0:
            parts.append(f"circular dependencies (κ={self.friction})")
        why = f" ({self.mode_reason})" if self.mode_reason else ""
        return f"{', '.join(parts)} → {self.dispatch_mode.value}{why}."

    def to_dict(self) -> dict[str, object]:
        """The item in the response shape of document 002 §3.3 (plus a few extras)."""
        return {
            "goal_id": self.goal_id,
            "goal_title": self.goal_title,
            "attention_score": round(self.attention_score, 6),
            "dispatch_mode": self.dispatch_mode.value,
            "coverage_score": self.coverage.coverage_score,
            "coverage_decision": self.coverage.decision,
            "decision_confidence": self.coverage.decision_confidence,
            "uncertainty_score": self.coverage.uncertainty_score,
            "risk_score": self.coverage.risk_score,
            "max_kappa": self.topology.max_kappa,
            "scc_count": self.topology.scc_count,
            "routing": self.topology.routing,
            "urgency": round(self.urgency, 6),
            "gap": round(self.gap, 6),
            "surprise": round(self.surprise, 6),
            "friction": self.friction,
            "voc": round(self.voc, 6),
            "region_node_ids": list(self.region_node_ids),
            "coverage_rationale": list(self.coverage.rationale),
            "attention_rationale": self.rationale(),
        }


def deadline_proximity(goal: Goal, now: datetime, config: TriageConfig) -> float:
    """1.0 at (or past) the deadline, decaying linearly to 0 at the horizon (§3.1.2)."""
    if goal.due_at is None:
        return config.undated_proximity.get(goal.timescale.value, 0.3)
    hours = (goal.due_at - now).total_seconds() / 3600.0
    if hours <= 0:
        return 1.0
    return max(0.0, 1.0 - hours / config.deadline_horizon_hours)


def urgency(goal: Goal | None, now: datetime, config: TriageConfig) -> float:
    """Deadline proximity × priority weight; a goal-less item gets ``no_goal_urgency``."""
    if goal is None:
        return config.no_goal_urgency
    weight = config.priority_weight.get(goal.priority.value, 0.6)
    return min(1.0, deadline_proximity(goal, now, config) * weight)


def surprise(
    outcomes: Iterable[OutcomeRecord],
    contradiction_times: Iterable[datetime | None],
    now: datetime,
    config: TriageConfig,
) -> float:
    """Recent surprise, 0..1 (ours; document 002 only names the signal).

    Each failed, timed-out or unexpected outcome inside the window is an event of weight
    ``confidence × (1 − age/window)``; each contradiction edge whose endpoint changed inside the
    window is an event of weight ``0.5 × (1 − age/window)``. Surprise is the noisy-or
    ``1 − Π(1 − weight)``.
    """
    window = config.surprise_window_hours * 3600.0
    keep = 1.0
    for outcome in outcomes:
        if outcome.status not in SURPRISING or outcome.created_at is None:
            continue
        age = (now - outcome.created_at).total_seconds()
        if 0 <= age <= window:
            keep *= 1.0 - min(1.0, max(0.0, outcome.confidence)) * (1.0 - age / window)
    for when in contradiction_times:
        if when is None:
            continue
        age = (now - when).total_seconds()
        if 0 <= age <= window:
            keep *= 1.0 - 0.5 * (1.0 - age / window)
    return 1.0 - keep


def attention_score(urgency: float, gap: float, surprise: float, config: TriageConfig) -> float:
    """Document 002 §3.1.2: ``urgency × gap + surprise_weight × surprise`` (weight 0.3)."""
    return urgency * gap + config.surprise_weight * surprise


#: Goal metadata key counting explores in a row that did not raise coverage.
EXPLORE_STALLS = "explore_stalls"


def explore_stalls(goal: Goal | None) -> int:
    """Explores in a row that did not raise the goal's coverage (0 when unknown)."""
    if goal is None:
        return 0
    value = goal.metadata.get(EXPLORE_STALLS, 0)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def dispatch_mode(item: AttentionItem, config: TriageConfig) -> DispatchMode:
    """The mode an item needs (document 002 §2.1 dispatch table, §3.1.2, resolved with §5).

    Goal-less items propose a goal when the gap is significant, else idle (§2.1: "no active
    goals + coverage gaps → PROPOSE"). Goal items:

    * ``escalate`` decision → **explore** when the risk is at most
      ``explore_escalations_up_to_risk`` and exploring has not stalled
      ``explore_stall_limit`` times (the coverage is simply low: §5's "Goal B, coverage 0.31 →
      EXPLORE"); otherwise escalate;
    * ``learn`` below ``explore_below_coverage`` → explore; other ``learn`` → focus;
    * ``act`` with κ > 0 → focus; ``act`` → act.
    """
    cov = item.coverage
    if item.goal_id is None:
        return DispatchMode.PROPOSE if item.gap > config.propose_min_gap else DispatchMode.IDLE
    if cov.decision == "escalate":
        if (
            cov.risk_score <= config.explore_escalations_up_to_risk
            and explore_stalls(item.goal) < config.explore_stall_limit
        ):
            return DispatchMode.EXPLORE
        return DispatchMode.ESCALATE
    if cov.decision == "learn":
        if cov.coverage_score < config.explore_below_coverage:
            return DispatchMode.EXPLORE
        return DispatchMode.FOCUS
    if item.topology.routing == "deliberate":
        return DispatchMode.FOCUS
    if cov.decision == "act":
        return DispatchMode.ACT
    return DispatchMode.IDLE


def voc_estimates(items: Sequence[AttentionItem], config: TriageConfig) -> list[float]:
    """``P(decision changes) × stakes − cost`` for each item, via the controller's estimator.

    The engine does not write its own VOC formula: it maps each item onto
    :func:`heedful.decision.heuristic_voc` (document 000 §9, SPEC §4.1) with
    ``confidence = decision_confidence``, ``p_stale = surprise`` (recent surprise is the evidence
    that the current picture is out of date), authority and pivotality 1, ``E|ΔU| = urgency ×
    goal consequence`` and ``cost = base + per-κ cost × friction``. Hence
    ``P(change) = 1 − decision_confidence × (1 − surprise)``.
    """
    if not items:
        return []
    n = len(items)
    surprise_ = np.array([min(max(i.surprise, 0.0), 1.0 - 1e-12) for i in items])
    values = heuristic_voc(
        confidence=np.array([i.coverage.decision_confidence for i in items]),
        age_s=np.ones(n),
        hazard_per_s=-np.log1p(-surprise_),
        authority=np.ones(n),
        pivotality=np.ones(n),
        loss=np.array(
            [i.urgency * (i.goal.consequence if i.goal is not None else 1.0) for i in items]
        ),
        cost=np.array(
            [config.voc_base_cost + config.voc_cost_per_kappa * i.friction for i in items]
        ),
        switch_cost=np.zeros(n),
        cost_weight=1.0,
        switch_weight=0.0,
    )
    return [float(v) for v in values]


def score(item: AttentionItem, now: datetime, config: TriageConfig) -> AttentionItem:
    """Fill urgency, gap, friction, score and mode for one surveyed item (VOC: :func:`triage`)."""
    u = urgency(item.goal, now, config)
    gap = 1.0 - item.coverage.coverage_score
    filled = replace(
        item,
        urgency=u,
        gap=gap,
        friction=item.topology.max_kappa,
        attention_score=attention_score(u, gap, item.surprise, config),
    )
    return replace(filled, dispatch_mode=dispatch_mode(filled, config))


def triage(
    items: Sequence[AttentionItem], now: datetime, config: TriageConfig
) -> list[AttentionItem]:
    """Score and rank items, best first; ties break by goal id for determinism."""
    scored = [score(item, now, config) for item in items]
    scored = [replace(i, voc=v) for i, v in zip(scored, voc_estimates(scored, config), strict=True)]
    if config.method == "voc":
        return sorted(scored, key=lambda x: (-x.voc, -x.attention_score, x.key))
    return sorted(scored, key=lambda x: (-x.attention_score, x.key))
