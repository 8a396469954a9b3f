"""Survey: build the attention map from the graph (document 002 §2.1 step 1, §3.1.1).

For every active goal: its knowledge region (linked nodes ∪ full-text matches of its title and
description), coverage of the region, the region's *effective* κ topology and recent surprise.
With no active goal, the coverage gaps of the graph become goal-less items (candidates for
``propose``). Reads only — the survey never writes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime

from heedful.engine.config import EngineConfig
from heedful.engine.coverage import assess, terms
from heedful.engine.ports import GraphPort
from heedful.engine.records import EdgeRecord, NodeRecord
from heedful.engine.regions import BatchGraphPort, RegionSource
from heedful.engine.topology import analyze
from heedful.engine.triage import AttentionItem, surprise
from heedful.model import EdgeType
from heedful.model.goal import Goal, GoalStatus

#: Node metadata key listing the node ids a conclusion crystallises.
CRYSTALLIZES = "crystallizes"
#: Node metadata marking the engine's own bookkeeping nodes (exploration traces).
ENGINE_TRACE_KEY = "engine"
ENGINE_TRACE = "explore_trace"


#: Node metadata of a duplicate merged by consolidation: the node it was merged into.
MERGED_INTO = "merged_into"


def is_engine_trace(node: NodeRecord) -> bool:
    """Whether a node is the engine's bookkeeping (an exploration trace)."""
    return node.metadata.get(ENGINE_TRACE_KEY) == ENGINE_TRACE


def is_inactive(node: NodeRecord) -> bool:
    """Excluded from regions and coverage: bookkeeping, or a duplicate merged into another."""
    return is_engine_trace(node) or MERGED_INTO in node.metadata


def _region_query(goal: Goal) -> str:
    return f"{goal.title} {goal.description}".strip()


def goal_region(graph: GraphPort, goal: Goal, limit: int) -> list[str]:
    """Linked nodes first, then the best full-text matches of the goal's title and description."""
    found = graph.search(_region_query(goal), limit) if limit > 0 else []
    return list(dict.fromkeys([*goal.linked_node_ids, *found]))


def goal_regions(graph: GraphPort, goals: Sequence[Goal], limit: int) -> list[list[str]]:
    """:func:`goal_region` of every goal, searching all goals at once when the port can."""
    if limit <= 0 or not isinstance(graph, BatchGraphPort):
        return [goal_region(graph, goal, limit) for goal in goals]
    found = graph.search_many([_region_query(goal) for goal in goals], limit)
    return [
        list(dict.fromkeys([*goal.linked_node_ids, *hits]))
        for goal, hits in zip(goals, found, strict=True)
    ]


def effective_pairs(
    nodes: Sequence[NodeRecord], edges: Sequence[EdgeRecord]
) -> tuple[list[str], list[tuple[str, str]]]:
    """Node ids and edge pairs after contracting crystallised nodes into their conclusions.

    A conclusion node (metadata ``crystallizes``) stands for the members it settles, as long as
    a member has not changed since the conclusion was written. Edges among contracted members
    disappear, which is how crystallisation lowers the effective κ (document 002 §5).
    """
    by_id = {n.id: n for n in nodes}
    alias: dict[str, str] = {}
    for node in nodes:
        members = node.metadata.get(CRYSTALLIZES)
        if not isinstance(members, list | tuple):
            continue
        for member_id in members:
            member = by_id.get(str(member_id))
            if member is None or member.id == node.id:
                continue
            stale = (
                member.updated_at is not None
                and node.updated_at is not None
                and member.updated_at > node.updated_at
            )
            if not stale:
                alias[member.id] = node.id
    ids = sorted({alias.get(n.id, n.id) for n in nodes})
    pairs = [(alias.get(e.source, e.source), alias.get(e.target, e.target)) for e in edges]
    return ids, [(s, t) for s, t in pairs if s != t]


def survey_region(
    graph: RegionSource,
    region: Sequence[str],
    *,
    goal: Goal | None,
    title: str,
    now: datetime,
    config: EngineConfig,
) -> AttentionItem:
    """Coverage, effective topology and surprise of one region.

    ``graph`` is the port itself or a :class:`~heedful.engine.regions.RegionSnapshot` read
    from it: the survey makes the same three reads of either.
    """
    nodes = [n for n in graph.get_nodes(region) if not is_inactive(n)]
    ids = {n.id for n in nodes}
    edges = graph.edges_among(list(ids))
    outcomes = graph.outcomes_for(goal.id if goal else None, list(ids))
    query = f"{goal.title} {goal.description}" if goal else None
    coverage = assess(
        query,
        nodes,
        edges,
        outcomes,
        now=now,
        priority=goal.priority.value if goal else "normal",
        config=config.coverage,
    )
    node_ids, pairs = effective_pairs(nodes, edges)
    topology = analyze(node_ids, pairs, budget_config=config.deliberation)
    updated = {n.id: n.updated_at for n in nodes}
    contradiction_times = [
        max((t for t in (updated.get(e.source), updated.get(e.target)) if t), default=None)
        for e in edges
        if e.type == EdgeType.CONTRADICTS
    ]
    return AttentionItem(
        goal_id=goal.id if goal else None,
        goal_title=title,
        region_node_ids=tuple(n.id for n in nodes),
        coverage=coverage,
        topology=topology,
        surprise=surprise(outcomes, contradiction_times, now, config.triage),
        goal=goal,
    )


def survey_goal(graph: GraphPort, goal: Goal, now: datetime, config: EngineConfig) -> AttentionItem:
    """The attention item of one goal."""
    region = goal_region(graph, goal, config.region_search_limit)
    return survey_region(graph, region, goal=goal, title=goal.title, now=now, config=config)


def gap_regions(graph: GraphPort, count: int) -> list[list[str]]:
    """Up to ``count`` connected groups of gap candidates, largest first."""
    if count <= 0:
        return []
    candidates = graph.gap_candidates(count * 10)
    parent = {c: c for c in candidates}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for edge in graph.edges_among(candidates):
        parent[find(edge.source)] = find(edge.target)
    groups: dict[str, list[str]] = {}
    for c in candidates:
        groups.setdefault(find(c), []).append(c)
    ordered = sorted(groups.values(), key=lambda g: (-len(g), min(g)))
    return [sorted(g) for g in ordered[:count]]


def region_title(nodes: Sequence[NodeRecord]) -> str:
    """A short title for a goal-less region from its most frequent content words."""
    counts = Counter(word for node in nodes for word in terms(node.content))
    top = [word for word, _ in counts.most_common(3)]
    return "Coverage gap: " + (", ".join(top) if top else ", ".join(n.id for n in nodes[:3]))


def survey(graph: GraphPort, now: datetime, config: EngineConfig) -> list[AttentionItem]:
    """Attention items for all active goals, or for the graph's gaps when none is active.

    A port implementing :class:`~heedful.engine.regions.BatchGraphPort` (the SQLite store) is
    read once for all goals: one full-text statement, then the nodes, edges and outcomes of the
    union of the regions; each goal's region is then sliced out of that snapshot.
    """
    goals = graph.list_goals(GoalStatus.ACTIVE)
    if goals:
        regions = goal_regions(graph, goals, config.region_search_limit)
        source: RegionSource = graph
        if isinstance(graph, BatchGraphPort):
            union = list(dict.fromkeys(i for region in regions for i in region))
            source = graph.read_regions(union, [goal.id for goal in goals])
        return [
            survey_region(source, region, goal=goal, title=goal.title, now=now, config=config)
            for goal, region in zip(goals, regions, strict=True)
        ]
    items = []
    for region in gap_regions(graph, config.max_gap_regions):
        nodes = graph.get_nodes(region)
        items.append(
            survey_region(
                graph, region, goal=None, title=region_title(nodes), now=now, config=config
            )
        )
    return items
