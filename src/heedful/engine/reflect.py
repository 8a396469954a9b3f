"""Reflect: apply a cycle's results and re-measure (document 002 §2.1 step 5).

Writes what the dispatches produced (nodes, edges, outcomes, proposed goals), links new knowledge
to goals, applies progress and status changes (transitions enforced), completes goals whose
``completion_criteria.coverage_threshold`` is reached, and re-surveys every touched goal so the
cycle response shows coverage and κ before and after.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from heedful.engine.config import EngineConfig
from heedful.engine.dispatch import LAST_ESCALATED
from heedful.engine.ports import GraphPort
from heedful.engine.results import DispatchRecord
from heedful.engine.survey import survey_goal
from heedful.engine.telemetry import Telemetry
from heedful.model.goal import GoalStatus, can_transition


def reflect(
    graph: GraphPort,
    records: Sequence[DispatchRecord],
    *,
    now: datetime,
    config: EngineConfig,
    telemetry: Telemetry,
) -> list[str]:
    """Apply the records' writes and re-measure; return the ids of proposed goals."""
    proposed: list[str] = []
    touched: dict[str, DispatchRecord] = {}
    for record in records:
        w = record.writes
        if w.empty():
            continue
        for node in w.nodes:
            graph.add_node(node)
        for edge in w.edges:
            graph.add_edge(edge)
        for outcome in w.outcomes:
            graph.record_outcome(outcome)
        if w.proposed_goal is not None:
            goal = graph.add_goal(w.proposed_goal)
            proposed.append(goal.id)
            telemetry.emit(
                "goal_proposed",
                {},
                {
                    "goal_id": goal.id,
                    "coverage_at_proposal": record.item.coverage.coverage_score,
                    "kappa_at_proposal": record.item.topology.max_kappa,
                },
            )
        if record.item.goal_id is not None:
            _update_goal(graph, record.item.goal_id, record)
            touched[record.item.goal_id] = record
    for goal_id, record in touched.items():
        goal = graph.get_goal(goal_id)
        after = survey_goal(graph, goal, now, config)
        record.coverage_after = after.coverage.coverage_score
        record.kappa_after = after.topology.max_kappa
        criteria = goal.metadata.get("completion_criteria")
        if (
            goal.status == GoalStatus.ACTIVE
            and isinstance(criteria, dict)
            and isinstance(criteria.get("coverage_threshold"), int | float)
            and after.coverage.coverage_score >= float(criteria["coverage_threshold"])
        ):
            graph.update_goal(goal.model_copy(update={"status": GoalStatus.COMPLETED}))
            record.details["goal_status"] = GoalStatus.COMPLETED.value
    return proposed


def _update_goal(graph: GraphPort, goal_id: str, record: DispatchRecord) -> None:
    goal = graph.get_goal(goal_id)
    w = record.writes
    changes: dict[str, Any] = {}
    if w.escalated_at is not None:
        changes["metadata"] = {**goal.metadata, LAST_ESCALATED: w.escalated_at.isoformat()}
    if w.link_nodes:
        changes["linked_node_ids"] = list(dict.fromkeys([*goal.linked_node_ids, *w.link_nodes]))
    status = w.goal_status
    if w.progress is not None:
        changes["progress"] = max(0.0, min(1.0, w.progress))
        if w.progress >= 1.0 and status is None:
            status = GoalStatus.COMPLETED
    if status is not None and status != goal.status:
        if can_transition(goal.status, status):
            changes["status"] = status
            record.details["goal_status"] = status.value
        else:
            record.details["goal_status_refused"] = (
                f"{goal.status.value} → {status.value} is not an allowed transition"
            )
            # Full progress would make the store complete the goal anyway; keep it unchanged.
            if changes.get("progress", 0.0) >= 1.0:
                del changes["progress"]
    if changes:
        graph.update_goal(goal.model_copy(update=changes))
