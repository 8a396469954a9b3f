"""The memory store as the engine's :class:`~heedful.engine.ports.GraphPort`.

:class:`StoreGraph` translates between :class:`heedful.memory.Store` (the model's ``Node``,
``Edge`` and ``Outcome``, epoch-second times) and the engine's records (``datetime`` times; see
:mod:`heedful.engine.records` for why they differ). Both sides share :mod:`heedful.model`'s
enums, so only field names and times are converted. It adds no storage of its own.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from heedful.engine.config import EngineConfig, load_engine_config
from heedful.engine.engine import Engine
from heedful.engine.journal import Journal
from heedful.engine.ports import PORT_METHODS, check_ports
from heedful.engine.records import EdgeRecord, NodeRecord, OutcomeRecord
from heedful.engine.regions import RegionSnapshot
from heedful.errors import InvalidArgumentError
from heedful.memory import Store
from heedful.memory.bulk import EdgeRow, NodeRow, OutcomeRow
from heedful.model import Edge, EdgeType, Goal, GoalStatus, Node, NodeType, Outcome, OutcomeStatus

# Enum lookups by value, hoisted: the batched reads convert tens of thousands of rows.
_NODE_TYPES = {t.value: t for t in NodeType}
_EDGE_TYPES = {t.value: t for t in EdgeType}
_STATUSES = {s.value: s for s in OutcomeStatus}
#: What a region snapshot was read for: the store's graph counter, the node ids, the goal ids.
_SnapshotKey = tuple[int, tuple[str, ...], tuple[str, ...]]


def _dt(epoch: float | None) -> datetime | None:
    return None if epoch is None else datetime.fromtimestamp(epoch, UTC)


def _node(node: Node) -> NodeRecord:
    return NodeRecord(
        id=node.id,
        type=node.node_type,
        content=node.content,
        confidence=node.confidence,
        updated_at=_dt(node.updated_at),
        metadata=dict(node.metadata),
    )


def _edge(edge: Edge) -> EdgeRecord:
    return EdgeRecord(edge.src, edge.dst, edge.edge_type, edge.weight)


def _outcome(outcome: Outcome) -> OutcomeRecord:
    return OutcomeRecord(
        status=outcome.status,
        confidence=outcome.confidence,
        goal_id=outcome.goal_id,
        node_ids=tuple(outcome.node_ids),
        detail=outcome.description,
        created_at=_dt(outcome.at),
        id=str(outcome.id or ""),
    )


def _node_from_row(row: NodeRow) -> NodeRecord:
    # The same record _node builds from the validated model (metadata "{}" is the common case).
    return NodeRecord(
        id=row.id,
        type=_NODE_TYPES[row.node_type],
        content=row.content,
        confidence=row.confidence,
        updated_at=datetime.fromtimestamp(row.updated_at, UTC),
        metadata={} if row.metadata == "{}" else json.loads(row.metadata),
    )


def _edge_from_row(row: EdgeRow) -> EdgeRecord:
    return EdgeRecord(row.src, row.dst, _EDGE_TYPES[row.edge_type], row.weight)


def _outcome_from_row(row: OutcomeRow) -> OutcomeRecord:
    return OutcomeRecord(
        status=_STATUSES[row.status],
        confidence=row.confidence,
        goal_id=row.goal_id,
        node_ids=row.node_ids,
        detail=row.description,
        created_at=datetime.fromtimestamp(row.at, UTC),
        id=str(row.id),
    )


class StoreGraph:
    """A :class:`heedful.memory.Store` seen through the engine's graph port.

    Args:
        store: An open store. ``close()`` closes it.
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        # The last snapshot read_regions returned, under the store's graph counter it was read
        # at and the ids it was read for: a repeated survey of an unchanged graph reuses it.
        # One attribute, assigned at once, so that threads surveying together never pair one
        # survey's key with another's snapshot.
        self._last_snapshot: tuple[_SnapshotKey, RegionSnapshot] | None = None

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> StoreGraph:
        """Open (creating if needed) the store at ``path``."""
        return cls(Store.open(path))

    def close(self) -> None:
        """Close the underlying store."""
        self.store.close()

    # goals -------------------------------------------------------------------------------------

    def list_goals(self, status: GoalStatus | None = None) -> list[Goal]:
        """Goals, most important first."""
        return self.store.list_goals(status=status)

    def get_goal(self, goal_id: str) -> Goal:
        """One goal."""
        return self.store.get_goal(goal_id)

    def add_goal(self, goal: Goal) -> Goal:
        """Store a new goal."""
        return self.store.add_goal(goal)

    def update_goal(self, goal: Goal) -> Goal:
        """Replace a goal (transitions enforced by the store)."""
        return self.store.update_goal(goal)

    # graph -------------------------------------------------------------------------------------

    def search(self, query: str, limit: int) -> list[str]:
        """BM25 full-text search."""
        return [hit.node_id for hit in self.store.search(query, limit=limit)]

    def search_many(self, queries: Sequence[str], limit: int) -> list[list[str]]:
        """``search`` of every query, in one statement."""
        return self.store.search_many(queries, limit)

    def read_regions(self, node_ids: Sequence[str], goal_ids: Sequence[str]) -> RegionSnapshot:
        """The nodes among ``node_ids``, the edges among them and the outcomes of the goals or
        the nodes, read from one committed state (:meth:`Store.region_rows`).

        The snapshot is remembered until the store's ``graph`` counter moves (any node, edge or
        outcome written, by any connection); callers must not modify it.
        """
        versions = self.store.cache_versions()
        last = self._last_snapshot
        if (
            versions is not None
            and last is not None
            and last[0] == (versions.graph, tuple(node_ids), tuple(goal_ids))
        ):
            return last[1]
        rows = self.store.region_rows(node_ids, goal_ids)
        nodes = {row.id: _node_from_row(row) for row in rows.nodes}
        edges = [_edge_from_row(row) for row in rows.edges]
        outcomes = [_outcome_from_row(row) for row in rows.outcomes]
        snapshot = RegionSnapshot(nodes, edges, outcomes)
        if rows.version is None:
            self._last_snapshot = None
        else:
            self._last_snapshot = ((rows.version, tuple(node_ids), tuple(goal_ids)), snapshot)
        return snapshot

    def get_nodes(self, node_ids: Sequence[str]) -> list[NodeRecord]:
        """Existing nodes among ``node_ids``, in the given order."""
        found = {n.id: n for n in self.store.nodes(list(node_ids))}
        return [_node(found[i]) for i in dict.fromkeys(node_ids) if i in found]

    def edges_touching(self, node_ids: Sequence[str]) -> list[EdgeRecord]:
        """Edges with an endpoint in ``node_ids``."""
        return [_edge(e) for e in self.store.edges_touching(list(node_ids))]

    def edges_among(self, node_ids: Sequence[str]) -> list[EdgeRecord]:
        """Edges with both endpoints in ``node_ids``."""
        return [_edge(e) for e in self.store.edges(list(node_ids))]

    def outcomes_for(self, goal_id: str | None, node_ids: Sequence[str]) -> list[OutcomeRecord]:
        """Outcomes of the goal or bearing on any of the nodes (one query)."""
        return [_outcome(o) for o in self.store.outcomes_for(goal_id, list(node_ids))]

    def gap_candidates(self, limit: int) -> list[str]:
        """Contradicted nodes, nodes of surprising outcomes, then low-confidence nodes."""
        return self.store.gap_candidates(limit)

    def add_node(self, node: NodeRecord) -> str:
        """Store a node, or replace the content, confidence and metadata of an existing one."""
        if node.id and self.get_nodes([node.id]):
            self.restore_node(node)
            return node.id
        stored = self.store.add_node(
            Node(
                id=node.id,
                node_type=node.type,
                content=node.content,
                confidence=min(1.0, max(0.0, node.confidence)),
                metadata=dict(node.metadata),
            )
        )
        return stored.id

    def add_edge(self, edge: EdgeRecord) -> None:
        """Store an edge."""
        self.store.add_edge(
            Edge(
                src=edge.source,
                dst=edge.target,
                edge_type=edge.type,
                weight=edge.weight,
            )
        )

    def record_outcome(self, outcome: OutcomeRecord) -> str:
        """Store an outcome."""
        at = outcome.created_at.timestamp() if outcome.created_at else self.store.now()
        stored = self.store.add_outcome(
            Outcome(
                status=outcome.status,
                confidence=outcome.confidence,
                node_ids=tuple(outcome.node_ids),
                goal_id=outcome.goal_id,
                at=at,
                description=outcome.detail,
            )
        )
        return str(stored.id)

    # undo (heedful.engine.journal.UndoableGraph) -----------------------------------------

    def remove_node(self, node_id: str) -> None:
        """Delete a node and its edges."""
        self.store.delete_node(node_id)

    def restore_node(self, node: NodeRecord) -> None:
        """Put a node's content, confidence and metadata back."""
        self.store.update_node(
            node.id, content=node.content, confidence=node.confidence, metadata=dict(node.metadata)
        )

    def remove_edge(self, edge: EdgeRecord) -> None:
        """Delete one edge."""
        self.store.delete_edge(edge.source, edge.target, edge.type)

    def remove_outcome(self, outcome_id: str) -> None:
        """Delete an outcome."""
        self.store.delete_outcome(int(outcome_id))

    def remove_goal(self, goal_id: str) -> None:
        """Delete a goal."""
        self.store.delete_goal(goal_id)

    def restore_goal(self, goal: Goal) -> None:
        """Write a goal back exactly as given (no transition check)."""
        self.store.restore_goal(goal)

    def digest(self) -> str:
        """The store's graph digest."""
        return self.store.graph_digest()


_PORT_NAMES = frozenset(PORT_METHODS) | {"journal", "clock"}


def open_engine(
    path: str | os.PathLike[str],
    config: EngineConfig | str | os.PathLike[str] | None = None,
    *,
    must_exist: bool = False,
    **ports: Any,
) -> Engine:
    """An :class:`Engine` over the memory store at ``path`` (``engine.close()`` closes it).

    Args:
        path: SQLite file (created if missing unless ``must_exist``) or ``":memory:"``.
        config: Engine configuration, or the path of a JSON/YAML config file.
        must_exist: Refuse to create a new store file.
        **ports: ``research``, ``deliberator``, ``actions``, ``notifier``, ``decomposer``,
            ``consolidator``, ``edge_decay``, ``journal`` or ``clock`` overrides. Research
            defaults to :class:`~heedful.engine.research.ControllerResearch` with an attention
            controller over the same store. The journal defaults to ``<path>.journal.jsonl``
            (in memory for ``":memory:"``).

    Raises:
        InvalidArgumentError: ``must_exist`` and there is no file at ``path``; bad config file;
            an unknown port name, or a port without its method (a bare function as
            ``notifier``, say).
        StoreError: The store cannot be opened.
    """
    # Checked before the store is opened, so a bad port neither leaks a connection nor
    # surfaces only at its first dispatch.
    unknown = sorted(set(ports) - _PORT_NAMES)
    if unknown:
        raise InvalidArgumentError(
            f"open_engine got unknown port(s) {', '.join(map(repr, unknown))}; "
            f"known: {', '.join(sorted(_PORT_NAMES))}"
        )
    check_ports(ports)
    text = os.fspath(path)
    if must_exist and text != ":memory:" and not Path(text).is_file():
        raise InvalidArgumentError(
            f"no memory store at {text} (create one with `heedful engine load`)"
        )
    if config is not None and not isinstance(config, EngineConfig):
        config = load_engine_config(os.fspath(config))
    if "journal" not in ports and text != ":memory:":
        ports["journal"] = Journal(journal_path(text))
    graph = StoreGraph.open(text)
    if "research" not in ports:
        # Research = the graph's FTS5 index plus the attention controller's beliefs and
        # inspection candidates over the same store (issue 15 item 1).
        from heedful.attention import Controller
        from heedful.engine.research import ControllerResearch

        clock = ports.get("clock")
        ports["research"] = ControllerResearch(graph, lambda: Controller(graph.store, clock=clock))
    return Engine(graph, config, **ports)


def journal_path(db: str | os.PathLike[str]) -> Path:
    """Where ``open_engine`` keeps the journal of the store at ``db``: ``<db>.journal.jsonl``."""
    return Path(f"{os.fspath(db)}.journal.jsonl")
