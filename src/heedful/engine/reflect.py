"""Reflect: apply a cycle's results and re-measure (document 002 §2.1 step 5).

Writes what the dispatches produced (nodes, edges, outcomes, proposed goals), links new knowledge
to goals, applies progress and status changes (transitions enforced), auto-activates proposed
goals at ``act`` level when governance allows (§3.2.4), completes goals whose
``completion_criteria.coverage_threshold`` is reached, and re-surveys every touched goal **and
every other active goal whose region a dispatch's writes reached** (the written nodes and their
graph neighbours), reporting coverage and κ before/after and the gaps that opened. Every write of
a dispatch goes through a :class:`~heedful.engine.journal.RecordingGraph` and becomes one
journal entry, so it can be undone by id.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from heedful.engine.config import AutonomyLevel, DispatchMode, EngineConfig
from heedful.engine.dispatch import LAST_ESCALATED
from heedful.engine.journal import Journal, JournalEntry, RecordingGraph, new_entry_id
from heedful.engine.ports import GraphPort
from heedful.engine.results import DispatchRecord
from heedful.engine.survey import goal_region, survey_goal
from heedful.engine.telemetry import Telemetry
from heedful.engine.triage import EXPLORE_STALLS, AttentionItem, explore_stalls
from heedful.model import SURPRISING
from heedful.model.goal import GoalStatus, can_transition

__all__ = ["Reflection", "reflect"]


@dataclass
class Reflection:
    """What reflect did beyond the per-dispatch fields.

    Attributes:
        proposed_goal_ids: Goals proposed this cycle.
        journal_entry_ids: One journal entry per dispatch that wrote something.
        resurveyed: Goals re-surveyed because a dispatch's writes reached their region
            (``goal_id``, ``coverage_before``, ``coverage_after``, ``new_gaps``).
        max_new_surprise: Highest confidence of a surprising outcome recorded this cycle.
    """

    proposed_goal_ids: list[str] = field(default_factory=list)
    journal_entry_ids: list[str] = field(default_factory=list)
    resurveyed: list[dict[str, Any]] = field(default_factory=list)
    max_new_surprise: float = 0.0


def reflect(
    graph: GraphPort,
    records: Sequence[DispatchRecord],
    *,
    now: datetime,
    config: EngineConfig,
    telemetry: Telemetry,
    level: AutonomyLevel = AutonomyLevel.ACT,
    journal: Journal | None = None,
    cycle_id: str = "",
    surveyed: Sequence[AttentionItem] = (),
) -> Reflection:
    """Apply the records' writes, journal them, and re-measure what they could have changed."""
    out = Reflection()
    written: set[str] = set()
    for record in records:
        if record.writes.empty():
            continue
        rec = RecordingGraph(graph)
        _apply(rec, record, now, config, telemetry, level, out)
        goal_id = record.item.goal_id
        if goal_id is not None:
            _remeasure(rec, goal_id, record, now, config)
        written.update(_written_nodes(rec.ops))
        if rec.ops and journal is not None:
            entry = JournalEntry(
                id=new_entry_id(),
                cycle_id=cycle_id,
                at=now.isoformat(),
                goal_id=goal_id,
                mode=record.mode.value,
                summary=f"{record.mode.value} '{record.item.goal_title}': "
                f"{record.reason or record.result}",
                ops=rec.ops,
            )
            journal.append(entry)
            record.details["journal_entry"] = entry.id
            out.journal_entry_ids.append(entry.id)
    if config.reflect_neighbours and written:
        touched = {r.item.goal_id for r in records if r.item.goal_id is not None}
        _resurvey_neighbours(graph, written, touched, surveyed, now, config, out)
    return out


def _apply(
    rec: RecordingGraph,
    record: DispatchRecord,
    now: datetime,
    config: EngineConfig,
    telemetry: Telemetry,
    level: AutonomyLevel,
    out: Reflection,
) -> None:
    w = record.writes
    for node in w.nodes:
        rec.add_node(node)
    for edge in w.edges:
        rec.add_edge(edge)
    for edge, weight in w.edge_weights:
        rec.set_edge_weight(edge, weight)
    for outcome in w.outcomes:
        rec.record_outcome(outcome)
        if outcome.status in SURPRISING:
            out.max_new_surprise = max(out.max_new_surprise, outcome.confidence)
    for goal_id in w.activate_goals:
        goal = rec.get_goal(goal_id)
        if goal.status == GoalStatus.PROPOSED:
            rec.update_goal(goal.model_copy(update={"status": GoalStatus.ACTIVE}))
    new_goals = [w.proposed_goal] if w.proposed_goal is not None else []
    for goal in [*new_goals, *w.sub_goals]:
        stored = rec.add_goal(goal)
        out.proposed_goal_ids.append(stored.id)
        telemetry.emit(
            "goal_proposed",
            {},
            {
                "goal_id": stored.id,
                "coverage_at_proposal": record.item.coverage.coverage_score,
                "kappa_at_proposal": record.item.topology.max_kappa,
            },
        )
        gov = config.governance
        if (
            level == AutonomyLevel.ACT
            and gov.auto_activate_proposed
            and DispatchMode.PROPOSE not in gov.require_approval_for
        ):
            rec.update_goal(stored.model_copy(update={"status": GoalStatus.ACTIVE}))
            record.details["auto_activated"] = stored.id
    if record.item.goal_id is not None:
        _update_goal(rec, record.item.goal_id, record)


def _remeasure(
    rec: RecordingGraph, goal_id: str, record: DispatchRecord, now: datetime, config: EngineConfig
) -> None:
    goal = rec.get_goal(goal_id)
    after = survey_goal(rec, goal, now, config)
    record.coverage_after = after.coverage.coverage_score
    record.kappa_after = after.topology.max_kappa
    opened = sorted(set(after.coverage.gaps) - set(record.item.coverage.gaps))
    if opened:
        record.details["new_gaps"] = opened
    if record.mode == DispatchMode.EXPLORE:
        # Explores that do not raise coverage count towards escalation (triage.dispatch_mode).
        stalls = (
            0
            if after.coverage.coverage_score > record.item.coverage.coverage_score + 1e-9
            else explore_stalls(goal) + 1
        )
        if stalls != explore_stalls(goal):
            goal = rec.update_goal(
                goal.model_copy(update={"metadata": {**goal.metadata, EXPLORE_STALLS: stalls}})
            )
    criteria = goal.metadata.get("completion_criteria")
    if (
        goal.status == GoalStatus.ACTIVE
        and isinstance(criteria, dict)
        and isinstance(criteria.get("coverage_threshold"), int | float)
        and after.coverage.coverage_score >= float(criteria["coverage_threshold"])
    ):
        rec.update_goal(goal.model_copy(update={"status": GoalStatus.COMPLETED}))
        record.details["goal_status"] = GoalStatus.COMPLETED.value


def _written_nodes(ops: Sequence[dict[str, Any]]) -> set[str]:
    ids: set[str] = set()
    for op in ops:
        if op["op"] in ("add_node", "replace_node"):
            ids.add((op.get("node") or op["after"])["id"])
        elif op["op"] in ("add_edge", "reweight_edge"):
            ids.update((op["edge"]["source"], op["edge"]["target"]))
    return ids


def _resurvey_neighbours(
    graph: GraphPort,
    written: set[str],
    touched: set[str],
    surveyed: Sequence[AttentionItem],
    now: datetime,
    config: EngineConfig,
    out: Reflection,
) -> None:
    """Re-survey active goals whose region holds a written node or one of its neighbours."""
    reach = set(written)
    for edge in graph.edges_touching(sorted(written)):
        reach.update((edge.source, edge.target))
    before = {i.goal_id: i for i in surveyed if i.goal_id is not None}
    for goal in graph.list_goals(GoalStatus.ACTIVE):
        if goal.id in touched:
            continue
        if not reach & set(goal_region(graph, goal, config.region_search_limit)):
            continue
        after = survey_goal(graph, goal, now, config)
        prior = before.get(goal.id)
        out.resurveyed.append(
            {
                "goal_id": goal.id,
                "coverage_before": prior.coverage.coverage_score if prior else None,
                "coverage_after": after.coverage.coverage_score,
                "kappa_after": after.topology.max_kappa,
                "new_gaps": sorted(set(after.coverage.gaps) - set(prior.coverage.gaps))
                if prior
                else list(after.coverage.gaps),
            }
        )


def _update_goal(graph: RecordingGraph, goal_id: str, record: DispatchRecord) -> None:
    goal = graph.get_goal(goal_id)
    w = record.writes
    changes: dict[str, Any] = {}
    metadata = dict(goal.metadata)
    if w.escalated_at is not None:
        metadata[LAST_ESCALATED] = w.escalated_at.isoformat()
    metadata.update(w.goal_metadata)
    if metadata != goal.metadata:
        changes["metadata"] = metadata
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
