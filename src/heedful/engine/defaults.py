"""Working default ports that need no outside service (document 002 §3.2; issue 15).

* :class:`GraphResearch` — explore strategy 3 without an agent: retrieval over the graph's own
  full-text index (FTS5 in the memory store) for each ``unknown:`` gap.
* :class:`GapDecomposer` — explore strategy 4: a too-broad goal gets proposed sub-goals.
* :class:`PlanExecutor` — the act port (OpenSentience's place): runs the next step of the goal's
  declared ``metadata.plan`` (add knowledge, link it, activate a goal), or activates the goal's
  proposed sub-goals. The changes come back as data; reflect applies them through the journal,
  so every action can be undone by id.

Both read the graph from the event-loop thread (``async`` methods), never from a worker thread.
Each is replaceable: pass ``research=`` / ``actions=`` to :class:`~heedful.engine.Engine`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from heedful.engine.coherence import check_sub_goals
from heedful.engine.ports import ActionRequest, ActionResult, Finding, GraphPort
from heedful.engine.records import EdgeRecord, NodeRecord
from heedful.engine.survey import MERGED_INTO, is_engine_trace, is_inactive
from heedful.model import EdgeType, NodeType, OutcomeStatus
from heedful.model.goal import Goal, GoalSource, GoalStatus, GoalTimescale

__all__ = [
    "MERGED_INTO",
    "PARENT_GOAL",
    "PLAN",
    "PLAN_DONE",
    "DuplicateConsolidator",
    "GapDecomposer",
    "GraphResearch",
    "PlanExecutor",
]

#: Goal metadata: the steps of the goal's plan (list of mappings).
PLAN = "plan"
#: Goal metadata: how many plan steps have run.
PLAN_DONE = "plan_done"
#: Goal metadata of a sub-goal: the goal it was decomposed from.
PARENT_GOAL = "parent_goal"


class GraphResearch:
    """Research by retrieval: the graph's best full-text matches for an ``unknown:`` gap.

    Args:
        graph: The graph to search.
        per_gap: Nodes retrieved per gap.
    """

    def __init__(self, graph: GraphPort, per_gap: int = 5) -> None:
        self.graph = graph
        self.per_gap = per_gap

    async def research(self, goal_title: str, gap: str) -> list[Finding]:
        """Existing nodes matching the gap's word (other gap kinds need an outside source)."""
        kind, _, what = gap.partition(":")
        if kind.strip() != "unknown" or not what.strip():
            return []
        ids = self.graph.search(what.strip(), self.per_gap)
        return [
            Finding(n.content, n.confidence, source="graph-search", node_id=n.id)
            for n in self.graph.get_nodes(ids)
            if not is_inactive(n)
        ]


class PlanError(ValueError):
    """A plan step is malformed; the message names it (``plan[2].content: ...``)."""


def _text(step: Mapping[str, Any], key: str, where: str) -> str:
    value = step.get(key)
    if not isinstance(value, str) or not value.strip():
        raise PlanError(f"{where}.{key}: must be a non-empty string")
    return value


def _step_changes(
    step: Any, where: str, request: ActionRequest
) -> tuple[list[NodeRecord], list[EdgeRecord], list[str], str]:
    if not isinstance(step, Mapping):
        raise PlanError(f"{where}: a plan step must be an object with 'do'")
    do = step.get("do")
    why = step.get("why") if isinstance(step.get("why"), str) else ""
    if do == "add_node":
        node_id = _text(step, "id", where)
        confidence = step.get("confidence", 0.8)
        if not isinstance(confidence, int | float) or not 0.0 <= confidence <= 1.0:
            raise PlanError(f"{where}.confidence: must be a number in [0, 1]")
        try:
            kind = NodeType(step.get("type", "semantic"))
        except ValueError:
            raise PlanError(f"{where}.type: unknown node type {step.get('type')!r}") from None
        node = NodeRecord(
            node_id,
            kind,
            _text(step, "content", where),
            float(confidence),
            metadata={"produced_by": "plan", "goal_id": request.goal.id},
        )
        supports = step.get("supports", [])
        if not isinstance(supports, list) or not all(isinstance(x, str) for x in supports):
            raise PlanError(f"{where}.supports: must be a list of node ids")
        edges = [EdgeRecord(node_id, target, EdgeType.SUPPORTS) for target in supports]
        return [node], edges, [], why or f"add node {node_id}"
    if do == "add_edge":
        try:
            kind_e = EdgeType(step.get("type", "causal"))
        except ValueError:
            raise PlanError(f"{where}.type: unknown edge type {step.get('type')!r}") from None
        edge = EdgeRecord(_text(step, "source", where), _text(step, "target", where), kind_e)
        return [], [edge], [], why or f"link {edge.source} -{kind_e.value}-> {edge.target}"
    if do == "activate_goal":
        goal_id = _text(step, "goal", where)
        return [], [], [goal_id], why or f"activate goal {goal_id}"
    raise PlanError(f"{where}.do: unknown step {do!r} (use add_node, add_edge, activate_goal)")


class PlanExecutor:
    """Default act port: run the goal's next plan step, or activate its proposed sub-goals.

    A plan is ``goal.metadata.plan``, a list of steps, each ``{"do": ..., "why": ...}``:
    ``add_node`` (``id``, ``content``, optional ``type``, ``confidence``, ``supports``),
    ``add_edge`` (``source``, ``target``, optional ``type``) or ``activate_goal`` (``goal``).
    One dispatch runs one step; progress is steps done ÷ steps, so the last step completes the
    goal. A malformed step is a ``failure`` outcome naming it (a surprise, not a crash). A goal
    without a plan activates its proposed sub-goals (goal decomposition); with neither, nothing
    runs and the dispatch is deferred.

    Args:
        graph: Read access, to find proposed sub-goals and check referenced nodes.
    """

    def __init__(self, graph: GraphPort) -> None:
        self.graph = graph

    async def execute(self, request: ActionRequest) -> ActionResult | None:
        """Compute the next step's changes (reflect applies and journals them)."""
        goal = request.goal
        plan = goal.metadata.get(PLAN)
        if plan is None:
            return self._activate_sub_goals(request)
        if not isinstance(plan, list):
            return ActionResult(OutcomeStatus.FAILURE, detail="plan: must be a list of steps")
        done = goal.metadata.get(PLAN_DONE, 0)
        done = done if isinstance(done, int) and 0 <= done <= len(plan) else 0
        if done >= len(plan):
            return ActionResult(OutcomeStatus.SUCCESS, detail="plan already complete", progress=1.0)
        where = f"goal {goal.id} plan[{done}]"
        try:
            nodes, edges, activate, why = _step_changes(plan[done], where, request)
            self._check_refs(edges, nodes, activate, where)
        except PlanError as exc:
            return ActionResult(OutcomeStatus.FAILURE, detail=str(exc))
        return ActionResult(
            OutcomeStatus.SUCCESS,
            detail=f"step {done + 1}/{len(plan)}: {why}",
            progress=(done + 1) / len(plan),
            nodes=tuple(nodes),
            edges=tuple(edges),
            activate_goals=tuple(activate),
            goal_metadata={PLAN_DONE: done + 1},
        )

    def _check_refs(
        self,
        edges: list[EdgeRecord],
        nodes: list[NodeRecord],
        activate: list[str],
        where: str,
    ) -> None:
        new = {n.id for n in nodes}
        wanted = sorted({x for e in edges for x in (e.source, e.target)} - new)
        found = {n.id for n in self.graph.get_nodes(wanted)}
        missing = [x for x in wanted if x not in found]
        if missing:
            raise PlanError(f"{where}: unknown node(s) {', '.join(missing)}")
        existing = [n.id for n in self.graph.get_nodes(sorted(new))]
        if existing:
            raise PlanError(f"{where}: node(s) already exist: {', '.join(existing)}")
        for goal_id in activate:
            goal = next((g for g in self.graph.list_goals() if g.id == goal_id), None)
            if goal is None:
                raise PlanError(f"{where}.goal: unknown goal {goal_id!r}")

    def _activate_sub_goals(self, request: ActionRequest) -> ActionResult | None:
        goals = self.graph.list_goals()
        proposed = [
            g
            for g in goals
            if g.status == GoalStatus.PROPOSED and g.metadata.get(PARENT_GOAL) == request.goal.id
        ]
        # Whoever wrote them, sub-goals pass the coherence check before they are activated.
        kept, _ = check_sub_goals(proposed, request.goal, [g for g in goals if g not in proposed])
        subs = [g.id for g in kept]
        if not subs:
            return None
        return ActionResult(
            OutcomeStatus.SUCCESS,
            detail=f"activated {len(subs)} proposed sub-goal(s): {', '.join(subs)}",
            activate_goals=tuple(subs),
        )


class GapDecomposer:
    """Default goal decomposition: one proposed sub-goal per claim that research pointed to.

    A goal is decomposed only when it is *too broad* — at least ``min_gaps`` ``unknown:`` gaps
    research could not fill — and only once (not when it already has sub-goals); a sub-goal is
    never decomposed again, so decomposition cannot run away. Each sub-goal is about a claim
    the attention controller knows and a source reports (a ``claim: <id>`` gap, from research's
    inspection leads): "Establish pricing_table". A bare ``unknown: word`` gap never becomes a
    sub-goal of its own — "Learn about percent" of "Cut cloud cost by 10 percent" names nothing
    the engine could find and only restates a word of its parent. Every sub-goal then passes
    the coherence check (:mod:`heedful.engine.coherence`) before it is written.

    Args:
        graph: Read access, to see existing sub-goals.
        min_gaps: Unresolved ``unknown:`` gaps that make a goal too broad.
        max_sub_goals: Most sub-goals per decomposition.
    """

    def __init__(self, graph: GraphPort, min_gaps: int = 3, max_sub_goals: int = 3) -> None:
        self.graph = graph
        self.min_gaps = min_gaps
        self.max_sub_goals = max_sub_goals

    async def decompose(
        self, goal: Goal, unresolved_gaps: Sequence[str], now: datetime
    ) -> list[Goal]:
        """Sub-goals ``Establish <claim>`` (proposed, inferred), one per ``claim:`` gap."""
        words = [g.partition(":")[2].strip() for g in unresolved_gaps if g.startswith("unknown:")]
        words = [w for w in dict.fromkeys(words) if w]
        claims = [g.partition(":")[2].strip() for g in unresolved_gaps if g.startswith("claim:")]
        claims = [c for c in dict.fromkeys(claims) if c]
        if PARENT_GOAL in goal.metadata or len(words) < self.min_gaps or not claims:
            return []
        if any(g.metadata.get(PARENT_GOAL) == goal.id for g in self.graph.list_goals()):
            return []
        return [
            Goal(
                id=f"{goal.id}.{claim}",
                title=f"Establish {claim}",
                description=f"Sub-goal of '{goal.title}': inspect a source that reports {claim}.",
                status=GoalStatus.PROPOSED,
                source=GoalSource.INFERRED,
                priority=goal.priority,
                timescale=GoalTimescale.SHORT_TERM,
                due_at=goal.due_at,
                metadata={
                    PARENT_GOAL: goal.id,
                    "generated_by": "attention_engine",
                    "gap": f"claim: {claim}",
                    "claim_id": claim,
                    "subject": claim,
                    "proposed_at": now.isoformat(),
                },
            )
            for claim in claims[: self.max_sub_goals]
        ]


def normalised(text: str) -> str:
    """Lower-case words of ``text`` without punctuation (what makes two nodes duplicates)."""
    return " ".join("".join(c if c.isalnum() else " " for c in text.lower()).split())


class DuplicateConsolidator:
    """Default consolidator (document 002 §3.2.1 strategy 2 and IDLE): merge duplicate nodes.

    Nodes whose content is the same after lower-casing and dropping punctuation are duplicates;
    the most confident (then smallest id) is kept. The engine marks the others
    ``metadata.merged_into`` (surveys skip them) and re-points their edges to the kept node —
    all journaled, so a merge can be undone. Nothing is deleted.
    """

    def consolidate(self, nodes: Sequence[NodeRecord]) -> list[tuple[str, str]]:
        """``(kept, merged)`` pairs among ``nodes``."""
        groups: dict[str, list[NodeRecord]] = {}
        for node in nodes:
            text = normalised(node.content)
            if MERGED_INTO in node.metadata or is_engine_trace(node) or not text:
                continue
            groups.setdefault(text, []).append(node)
        pairs: list[tuple[str, str]] = []
        for group in groups.values():
            if len(group) < 2:
                continue
            keep = min(group, key=lambda n: (-n.confidence, n.id))
            pairs.extend(
                (keep.id, n.id) for n in sorted(group, key=lambda n: n.id) if n is not keep
            )
        return pairs
