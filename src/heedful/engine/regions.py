"""Batched region reads: what the survey needs for all goals, read in a few statements.

A survey reads, per goal, the region's nodes, the edges among them and the outcomes bearing on
them. A port that can read many regions at once implements :class:`BatchGraphPort`: it returns a
:class:`RegionSnapshot` of the union of the regions, and the survey then slices each region out
of it in memory with the same three reads (:meth:`RegionSnapshot.get_nodes`,
:meth:`~RegionSnapshot.edges_among`, :meth:`~RegionSnapshot.outcomes_for`) and the same results,
in the same order, as the port's own. Ports without batching are read region by region.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from heedful.engine.records import EdgeRecord, NodeRecord, OutcomeRecord


class RegionSource(Protocol):
    """The three reads the survey makes of one region (a graph port, or a snapshot)."""

    def get_nodes(self, node_ids: Sequence[str]) -> list[NodeRecord]:
        """The nodes that exist among ``node_ids``, in the given order."""
        ...

    def edges_among(self, node_ids: Sequence[str]) -> list[EdgeRecord]:
        """Edges with both endpoints in ``node_ids``."""
        ...

    def outcomes_for(self, goal_id: str | None, node_ids: Sequence[str]) -> list[OutcomeRecord]:
        """Outcomes of the goal or bearing on any of the nodes."""
        ...


class RegionSnapshot:
    """Nodes, edges and outcomes of a union of regions, read once, sliced per region.

    Args:
        nodes: Every stored node of the union, by id.
        edges: Every edge with both ends among ``nodes``, in the port's ``edges_among`` order.
        outcomes: Every outcome of the surveyed goals or bearing on any of ``nodes``, in the
            port's ``outcomes_for`` order.

    The slices are exact only for what the snapshot was read for: node ids among ``nodes`` and
    the goals whose outcomes were read.
    """

    def __init__(
        self,
        nodes: dict[str, NodeRecord],
        edges: Sequence[EdgeRecord],
        outcomes: Sequence[OutcomeRecord],
    ) -> None:
        self.nodes = nodes
        self.edges = list(edges)
        self.outcomes = list(outcomes)
        self._out: dict[str, list[int]] = defaultdict(list)
        for index, edge in enumerate(self.edges):
            self._out[edge.source].append(index)
        self._by_goal: dict[str, list[int]] = defaultdict(list)
        self._by_node: dict[str, list[int]] = defaultdict(list)
        for index, outcome in enumerate(self.outcomes):
            if outcome.goal_id:
                self._by_goal[outcome.goal_id].append(index)
            for node_id in outcome.node_ids:
                self._by_node[node_id].append(index)

    def get_nodes(self, node_ids: Sequence[str]) -> list[NodeRecord]:
        """The nodes of the snapshot among ``node_ids``, in the given order, each once."""
        nodes = self.nodes
        return [nodes[i] for i in dict.fromkeys(node_ids) if i in nodes]

    def edges_among(self, node_ids: Sequence[str]) -> list[EdgeRecord]:
        """Edges with both endpoints in ``node_ids``, in the port's order."""
        inside = set(node_ids)
        edges, out = self.edges, self._out
        found = [p for s in inside if s in out for p in out[s] if edges[p].target in inside]
        found.sort()
        return [edges[p] for p in found]

    def outcomes_for(self, goal_id: str | None, node_ids: Sequence[str]) -> list[OutcomeRecord]:
        """Outcomes of the goal or bearing on any of the nodes, in the port's order."""
        found: set[int] = set(self._by_goal.get(goal_id, ())) if goal_id else set()
        by_node = self._by_node
        for node_id in node_ids:
            if node_id in by_node:
                found.update(by_node[node_id])
        return [self.outcomes[p] for p in sorted(found)]


@runtime_checkable
class BatchGraphPort(Protocol):
    """A graph port that reads many regions at once (optional; see the module docstring)."""

    def search_many(self, queries: Sequence[str], limit: int) -> list[list[str]]:
        """``[search(q, limit) for q in queries]``, in as few statements as the port can."""
        ...

    def read_regions(self, node_ids: Sequence[str], goal_ids: Sequence[str]) -> RegionSnapshot:
        """The snapshot of ``node_ids`` (the union of the regions) and the goals' outcomes."""
        ...
