"""An in-memory :class:`~heedful.engine.ports.GraphPort` for tests, examples and benchmarks.

Not a second store: no persistence, no truth maintenance; just dictionaries with the indexes the
engine's reads need (an inverted index for ``search``, adjacency for ``edges_touching``).
"""

from __future__ import annotations

import hashlib
import heapq
import json
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime

from heedful.engine.coverage import terms
from heedful.engine.records import EdgeRecord, NodeRecord, OutcomeRecord
from heedful.errors import InvalidArgumentError, UnknownNameError
from heedful.model import SURPRISING, EdgeType
from heedful.model.base import wall_clock
from heedful.model.goal import Goal, GoalStatus, can_transition


class InMemoryGraph:
    """Goals, nodes, edges and outcomes held in memory.

    Args:
        clock: Time source for timestamps (defaults to UTC now).
    """

    def __init__(self, clock: Callable[[], datetime] | None = None) -> None:
        self._clock = clock or wall_clock
        self.goals: dict[str, Goal] = {}
        self.nodes: dict[str, NodeRecord] = {}
        self.edges: list[EdgeRecord] = []
        self.outcomes: list[OutcomeRecord] = []
        self._index: dict[str, set[str]] = defaultdict(set)
        self._touching: dict[str, list[int]] = defaultdict(list)
        self._outcomes_by_node: dict[str, list[int]] = defaultdict(list)
        self._outcomes_by_goal: dict[str, list[int]] = defaultdict(list)
        self._edge_at: dict[tuple[str, str, EdgeType], int] = {}
        self._counter = 0

    def _next_id(self, prefix: str) -> str:
        self._counter += 1
        return f"{prefix}-{self._counter}"

    # goals -------------------------------------------------------------------------------------

    def list_goals(self, status: GoalStatus | None = None) -> list[Goal]:
        """Goals in insertion order, optionally filtered by status."""
        return [g for g in self.goals.values() if status is None or g.status == status]

    def get_goal(self, goal_id: str) -> Goal:
        """One goal."""
        try:
            return self.goals[goal_id]
        except KeyError:
            raise UnknownNameError(f"unknown goal {goal_id!r}") from None

    def add_goal(self, goal: Goal) -> Goal:
        """Store a new goal."""
        if goal.id in self.goals:
            raise InvalidArgumentError(f"goal {goal.id!r} already exists")
        now = self._clock()
        goal = goal.model_copy(update={"created_at": goal.created_at or now, "updated_at": now})
        self.goals[goal.id] = goal
        return goal

    def update_goal(self, goal: Goal) -> Goal:
        """Replace a goal, enforcing status transitions."""
        old = self.get_goal(goal.id)
        if old.status != goal.status and not can_transition(old.status, goal.status):
            raise InvalidArgumentError(
                f"goal {goal.id!r} cannot move from {old.status.value} to {goal.status.value}"
            )
        goal = goal.model_copy(update={"updated_at": self._clock()})
        self.goals[goal.id] = goal
        return goal

    # nodes and edges ---------------------------------------------------------------------------

    def add_node(self, node: NodeRecord) -> str:
        """Store a node (a fresh id is assigned when ``node.id`` is empty)."""
        if not node.id:
            node = replace(node, id=self._next_id("node"))
        if node.updated_at is None:
            node = replace(node, updated_at=self._clock())
        self.nodes[node.id] = node
        for word in terms(node.content):
            self._index[word].add(node.id)
        return node.id

    def add_edge(self, edge: EdgeRecord) -> None:
        """Store an edge; a repeat of (source, target, type) updates the weight (as the store)."""
        key = (edge.source, edge.target, edge.type)
        if key in self._edge_at:
            self.edges[self._edge_at[key]] = edge
            return
        index = len(self.edges)
        self._edge_at[key] = index
        self.edges.append(edge)
        self._touching[edge.source].append(index)
        if edge.target != edge.source:
            self._touching[edge.target].append(index)

    def search(self, query: str, limit: int) -> list[str]:
        """Nodes sharing the most content words with ``query``; ties by id."""
        hits: dict[str, int] = defaultdict(int)
        for word in terms(query):
            for node_id in self._index.get(word, ()):
                hits[node_id] += 1
        ranked = heapq.nsmallest(limit, hits.items(), key=lambda kv: (-kv[1], kv[0]))
        return [node_id for node_id, _ in ranked]

    def get_nodes(self, node_ids: Sequence[str]) -> list[NodeRecord]:
        """Existing nodes among ``node_ids``, in the given order."""
        return [self.nodes[i] for i in dict.fromkeys(node_ids) if i in self.nodes]

    def edges_touching(self, node_ids: Sequence[str]) -> list[EdgeRecord]:
        """Edges with an endpoint in ``node_ids`` (each once)."""
        seen: set[int] = set()
        for node_id in node_ids:
            seen.update(self._touching.get(node_id, ()))
        return [self.edges[i] for i in sorted(seen)]

    def edges_among(self, node_ids: Sequence[str]) -> list[EdgeRecord]:
        """Edges with both endpoints in ``node_ids``."""
        inside = set(node_ids)
        return [
            e for e in self.edges_touching(node_ids) if e.source in inside and e.target in inside
        ]

    # outcomes ----------------------------------------------------------------------------------

    def record_outcome(self, outcome: OutcomeRecord) -> str:
        """Store an outcome."""
        outcome = replace(
            outcome,
            id=outcome.id or self._next_id("outcome"),
            created_at=outcome.created_at or self._clock(),
        )
        index = len(self.outcomes)
        self.outcomes.append(outcome)
        for node_id in outcome.node_ids:
            self._outcomes_by_node[node_id].append(index)
        if outcome.goal_id:
            self._outcomes_by_goal[outcome.goal_id].append(index)
        return outcome.id

    def outcomes_for(self, goal_id: str | None, node_ids: Sequence[str]) -> list[OutcomeRecord]:
        """Outcomes of the goal or touching the nodes."""
        seen: set[int] = set(self._outcomes_by_goal.get(goal_id, ())) if goal_id else set()
        for node_id in node_ids:
            seen.update(self._outcomes_by_node.get(node_id, ()))
        return [self.outcomes[i] for i in sorted(seen)]

    def gap_candidates(self, limit: int) -> list[str]:
        """Contradicted nodes, then nodes of failed outcomes, then low-confidence nodes."""
        found: dict[str, None] = {}
        for edge in reversed(self.edges):
            if edge.type == EdgeType.CONTRADICTS:
                found.setdefault(edge.source)
                found.setdefault(edge.target)
        for outcome in reversed(self.outcomes):
            if outcome.status in SURPRISING:
                for node_id in outcome.node_ids:
                    found.setdefault(node_id)
        for node in self.nodes.values():
            if node.confidence < 0.5:
                found.setdefault(node.id)
        return [n for n in found if n in self.nodes][:limit]

    # undo (heedful.engine.journal.UndoableGraph) -----------------------------------------

    def _reindex(self) -> None:
        self._index.clear()
        self._touching.clear()
        self._outcomes_by_node.clear()
        self._outcomes_by_goal.clear()
        self._edge_at.clear()
        for node in self.nodes.values():
            for word in terms(node.content):
                self._index[word].add(node.id)
        edges, self.edges = self.edges, []
        for edge in edges:
            self.add_edge(edge)
        outcomes, self.outcomes = self.outcomes, []
        for outcome in outcomes:
            self.record_outcome(outcome)

    def remove_node(self, node_id: str) -> None:
        """Delete a node and its edges."""
        self.nodes.pop(node_id, None)
        self.edges = [e for e in self.edges if node_id not in (e.source, e.target)]
        self._reindex()

    def restore_node(self, node: NodeRecord) -> None:
        """Put a node back as given."""
        self.nodes[node.id] = node
        self._reindex()

    def remove_edge(self, edge: EdgeRecord) -> None:
        """Delete the edges with this source, target and type."""
        key = (edge.source, edge.target, edge.type)
        self.edges = [e for e in self.edges if (e.source, e.target, e.type) != key]
        self._reindex()

    def remove_outcome(self, outcome_id: str) -> None:
        """Delete an outcome."""
        self.outcomes = [o for o in self.outcomes if o.id != outcome_id]
        self._reindex()

    def remove_goal(self, goal_id: str) -> None:
        """Delete a goal."""
        self.goals.pop(goal_id, None)

    def restore_goal(self, goal: Goal) -> None:
        """Write a goal back exactly as given (no transition check)."""
        self.get_goal(goal.id)
        self.goals[goal.id] = goal

    def digest(self) -> str:
        """SHA-256 over a canonical dump of goals, nodes, edges and outcomes."""
        state = {
            "goals": [g.model_dump(mode="json") for g in self.goals.values()],
            "nodes": [
                [n.id, n.type, n.content, n.confidence, str(n.updated_at), repr(n.metadata)]
                for n in self.nodes.values()
            ],
            "edges": [[e.source, e.target, e.type, e.weight] for e in self.edges],
            "outcomes": [[o.id, o.status, o.confidence, o.goal_id] for o in self.outcomes],
        }
        blob = json.dumps(state, sort_keys=True, default=str).encode()
        return hashlib.sha256(blob).hexdigest()
