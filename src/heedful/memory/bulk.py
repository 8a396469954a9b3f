"""Batched reads for hot paths: the engine's survey reads every goal region in a few statements.

The survey of 1,000 goals used to issue four statements per goal. Here every read takes the
whole batch at once: the full-text searches of all queries in one statement, then the nodes, the
edges and the outcomes of the union of the regions in one statement each. Each read keeps the
order of its one-at-a-time counterpart (:meth:`GraphMixin.search`, :meth:`GraphMixin.nodes`,
:meth:`GraphMixin.edges`, :meth:`OutcomesMixin.outcomes_for`), so a caller that splits a batch
back into regions gets exactly what the single reads return.

Rows come back as plain tuples rather than validated models: every row was validated when it
was written, and a survey reads tens of thousands of them per cycle.

The full-text searches are most of a survey's time, and a heartbeat surveys the same goals again
and again: :meth:`BulkReadsMixin.search_many` remembers its results under the graph's ``text``
change counter (schema version 5, kept by triggers, so writes by any connection count) and runs
again only the searches it has not seen since the last node was inserted, deleted or re-worded.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Sequence
from typing import Any, NamedTuple

from heedful.errors import InvalidArgumentError, StoreError
from heedful.memory._base import StoreBase, not_unicode
from heedful.memory.graph import EDGES_AMONG, fts_query, id_array


class NodeRow(NamedTuple):
    """One stored node as written: ``metadata`` is its JSON text, times are epoch seconds."""

    id: str
    node_type: str
    content: str
    confidence: float
    updated_at: float
    metadata: str


class EdgeRow(NamedTuple):
    """One stored edge ``src → dst``."""

    src: str
    dst: str
    edge_type: str
    weight: float


class OutcomeRow(NamedTuple):
    """One stored outcome with the ids of the nodes it bears on (sorted)."""

    id: int
    status: str
    confidence: float
    goal_id: str | None
    at: float
    description: str
    node_ids: tuple[str, ...]


# One statement for a whole batch of searches. The ORDER BY … LIMIT inside the correlated
# subquery keeps it from being flattened, so json_group_array sees the hits best first (the
# tests check the order against one search per query). ``rank`` is FTS5's bm25() by default.
_SEARCH_MANY = """
SELECT q.key, (
    SELECT json_group_array(id) FROM (
        SELECT n.id AS id FROM nodes_fts JOIN nodes AS n ON n.rowid = nodes_fts.rowid
        WHERE nodes_fts MATCH q.value ORDER BY nodes_fts.rank, n.id LIMIT ?
    )
) FROM json_each(?) AS q ORDER BY q.key
"""


class GraphVersions(NamedTuple):
    """The graph's change counters (schema version 5), read from the database.

    Attributes:
        text: Moves when full-text results can change (a node inserted, deleted or re-worded).
        graph: Moves on any change to nodes, edges, outcomes or their node links.
    """

    text: int
    graph: int


#: Searches remembered by :meth:`BulkReadsMixin.search_many` for the current ``text`` version;
#: beyond this many the memo starts over (a survey makes one search per active goal).
SEARCH_MEMO_SIZE = 100_000


class BulkReadsMixin(StoreBase):
    """Batched reads returning plain rows (see the module docstring)."""

    _search_memo: dict[tuple[str, int], list[str]]
    _search_memo_version: int | None = None

    def graph_versions(self) -> GraphVersions:
        """The graph's change counters: equal counters mean the same committed graph.

        Inside a write transaction of this store they also count its uncommitted changes
        (which a rollback takes back): cache under :meth:`cache_versions` instead.
        """
        rows = dict(self._rows("SELECT name, version FROM graph_versions", ()))
        return GraphVersions(text=rows["text"], graph=rows["graph"])

    def cache_versions(self) -> GraphVersions | None:
        """The counters to remember graph reads under, or None while a write is in progress.

        Read them *before* the reads they label: a write committed in between moves the
        counters on, so the label can only be older than the data, never newer.
        """
        with self._lock:
            return None if self._conn.in_transaction else self.graph_versions()

    def _rows(self, sql: str, params: Sequence[Any]) -> list[Any]:
        """Run a read returning plain tuples; SQLite errors become :class:`StoreError`."""
        try:
            with self._lock:
                cursor = self._conn.cursor()
                cursor.row_factory = None
                return cursor.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise StoreError(f"store read failed: {exc}") from exc
        except UnicodeEncodeError as exc:
            raise not_unicode(exc) from None

    def search_many(self, queries: Sequence[str], limit: int = 10) -> list[list[str]]:
        """The node ids :meth:`search` would return for each query, in one statement.

        Results are remembered until the graph's ``text`` counter moves (any node inserted,
        deleted or re-worded, by any connection): a repeated survey of an unchanged graph
        re-runs no full-text query. Nothing is remembered inside a write transaction.

        Returns:
            One list per query, best match first (BM25, ties by node id).
        """
        if limit < 0:
            raise InvalidArgumentError(f"limit must be ≥ 0, got {limit}")
        found: list[list[str]] = [[] for _ in queries]
        wanted = {i: m for i, q in enumerate(queries) if (m := fts_query(q)) is not None}
        if not wanted or limit == 0:
            return found
        with self._lock:
            memo = self._current_search_memo()
            missing: dict[str, list[int]] = {}
            for i, match in wanted.items():
                hit = memo.get((match, limit)) if memo is not None else None
                if hit is None:
                    missing.setdefault(match, []).append(i)
                else:
                    found[i] = list(hit)
            if not missing:
                return found
            matches = list(missing)
            for key, ids in self._rows(_SEARCH_MANY, (limit, json.dumps(matches))):
                hits = json.loads(ids)
                for i in missing[matches[key]]:
                    found[i] = list(hits)
                if memo is not None:
                    memo[(matches[key], limit)] = hits
        return found

    def _current_search_memo(self) -> dict[tuple[str, int], list[str]] | None:
        """The memo of searches for the current ``text`` counter; None inside a transaction."""
        versions = self.cache_versions()
        if versions is None:
            return None
        version = versions.text
        if version != self._search_memo_version or len(self._search_memo) > SEARCH_MEMO_SIZE:
            self._search_memo = {}
            self._search_memo_version = version
        return self._search_memo

    def node_rows(self, node_ids: Collection[str]) -> list[NodeRow]:
        """The stored nodes among ``node_ids``, by id."""
        rows = self._rows(
            "SELECT id, node_type, content, confidence, updated_at, metadata FROM nodes"
            " WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id",
            (id_array(node_ids),),
        )
        return [NodeRow(*r) for r in rows]

    def edge_rows_among(self, node_ids: Collection[str]) -> list[EdgeRow]:
        """Edges with both ends in ``node_ids``, ordered by source, target and type."""
        ids = id_array(node_ids)
        rows = self._rows(f"SELECT src, dst, edge_type, weight {EDGES_AMONG}", (ids, ids))
        return [EdgeRow(*r) for r in rows]

    def outcome_rows_for(
        self, goal_ids: Collection[str], node_ids: Collection[str]
    ) -> list[OutcomeRow]:
        """Outcomes of any of ``goal_ids`` or bearing on any of ``node_ids``, oldest first."""
        rows = self._rows(
            "SELECT id, status, confidence, goal_id, at, description FROM outcomes"
            " WHERE goal_id IN (SELECT value FROM json_each(?)) OR id IN"
            " (SELECT outcome_id FROM outcome_nodes WHERE node_id IN"
            " (SELECT value FROM json_each(?))) ORDER BY at, id",
            (id_array(goal_ids), id_array(node_ids)),
        )
        links: dict[int, list[str]] = {r[0]: [] for r in rows}
        if links:
            for outcome_id, node_id in self._rows(
                "SELECT outcome_id, node_id FROM outcome_nodes WHERE outcome_id IN"
                " (SELECT value FROM json_each(?)) ORDER BY outcome_id, node_id",
                (json.dumps(list(links)),),
            ):
                links[outcome_id].append(node_id)
        return [OutcomeRow._make((*r, tuple(links[r[0]]))) for r in rows]
