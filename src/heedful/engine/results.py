"""Results of a cycle: budget ledger, per-dispatch records and the cycle result.

``to_dict`` methods give the JSON-able response shapes of document 002 §3.1/§3.4.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from heedful.engine.config import AutonomyLevel, DispatchMode
from heedful.engine.records import EdgeRecord, NodeRecord, OutcomeRecord
from heedful.engine.triage import AttentionItem
from heedful.model.goal import Goal, GoalStatus


@dataclass
class Ledger:
    """Per-cycle budget usage (document 002 §2.4)."""

    items: int = 0
    explore_calls: int = 0
    deliberation_sccs: int = 0
    action_dispatches: int = 0

    def to_dict(self) -> dict[str, int]:
        """Return a JSON-able dict."""
        return {
            "items": self.items,
            "explore_calls": self.explore_calls,
            "deliberation_sccs": self.deliberation_sccs,
            "action_dispatches": self.action_dispatches,
        }


@dataclass
class Writes:
    """Mutations a dispatch asks reflect to apply."""

    nodes: list[NodeRecord] = field(default_factory=list)
    edges: list[EdgeRecord] = field(default_factory=list)
    outcomes: list[OutcomeRecord] = field(default_factory=list)
    link_nodes: list[str] = field(default_factory=list)
    progress: float | None = None
    goal_status: GoalStatus | None = None
    proposed_goal: Goal | None = None
    escalated_at: datetime | None = None
    sub_goals: list[Goal] = field(default_factory=list)
    activate_goals: list[str] = field(default_factory=list)
    goal_metadata: dict[str, Any] = field(default_factory=dict)
    edge_weights: list[tuple[EdgeRecord, float]] = field(default_factory=list)

    def empty(self) -> bool:
        """Whether nothing is to be written."""
        return not (
            self.nodes
            or self.edges
            or self.outcomes
            or self.link_nodes
            or self.proposed_goal
            or self.progress is not None
            or self.goal_status is not None
            or self.escalated_at is not None
            or self.sub_goals
            or self.activate_goals
            or self.goal_metadata
            or self.edge_weights
        )


@dataclass
class DispatchRecord:
    """What happened to one dispatched item."""

    item: AttentionItem
    mode: DispatchMode
    result: str = "deferred"
    reason: str = ""
    duration_ms: float = 0.0
    details: dict[str, Any] = field(default_factory=dict)
    writes: Writes = field(default_factory=Writes)
    coverage_after: float | None = None
    kappa_after: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """The dispatch entry of the cycle response (document 002 §3.1 ``dispatches``)."""
        return {
            "goal_id": self.item.goal_id,
            "goal_title": self.item.goal_title,
            "mode": self.mode.value,
            "result": self.result,
            "reason": self.reason,
            "duration_ms": round(self.duration_ms, 3),
            "attention_score": round(self.item.attention_score, 6),
            "coverage_before": self.item.coverage.coverage_score,
            "coverage_after": self.coverage_after,
            "kappa_before": self.item.topology.max_kappa,
            "kappa_after": self.kappa_after,
            "details": self.details,
        }


@dataclass
class CycleResult:
    """One attention cycle (document 002 §3.1 ``attention_cycle_result``)."""

    cycle_id: str
    timestamp: datetime
    trigger: str
    autonomy_level: AutonomyLevel
    items_surveyed: int
    dispatches: list[DispatchRecord] = field(default_factory=list)
    ledger: Ledger = field(default_factory=Ledger)
    timed_out: bool = False
    duration_ms: float = 0.0
    next_heartbeat_ms: float | None = None
    proposed_goal_ids: list[str] = field(default_factory=list)
    journal_entry_ids: list[str] = field(default_factory=list)
    resurveyed: list[dict[str, Any]] = field(default_factory=list)
    surprise_triggered: bool = False

    @property
    def items_dispatched(self) -> int:
        """Number of items that went through dispatch (deferred ones included)."""
        return len(self.dispatches)

    def to_dict(self) -> dict[str, Any]:
        """The ``attention_run_cycle`` response (document 002 §3.4)."""
        modes = {m.value: 0 for m in DispatchMode if m != DispatchMode.IDLE}
        for d in self.dispatches:
            if d.mode != DispatchMode.IDLE:
                modes[d.mode.value] += 1
        return {
            "status": "ok",
            "cycle_id": self.cycle_id,
            "timestamp": self.timestamp.isoformat(),
            "trigger": self.trigger,
            "autonomy_level": self.autonomy_level.value,
            "items_surveyed": self.items_surveyed,
            "items_dispatched": self.items_dispatched,
            "dispatches": [d.to_dict() for d in self.dispatches],
            "modes": modes,
            "budget_used": self.ledger.to_dict(),
            "timed_out": self.timed_out,
            "duration_ms": round(self.duration_ms, 3),
            "proposed_goal_ids": list(self.proposed_goal_ids),
            "journal_entry_ids": list(self.journal_entry_ids),
            "resurveyed": list(self.resurveyed),
            "surprise_triggered": self.surprise_triggered,
            "next_heartbeat_ms": self.next_heartbeat_ms,
        }
