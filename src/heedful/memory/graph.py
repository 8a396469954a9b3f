"""The knowledge graph the engine surveys (document 002 §2–§3): nodes, edges, search, digest.

Lexical retrieval uses SQLite FTS5 with BM25 ranking. User text is reduced to its word tokens,
each quoted, joined with OR — so no input can produce an FTS syntax error. Node-id sets are
passed to SQL as one JSON array (``json_each``), so any number of ids works.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from collections.abc import Collection, Iterable

from heedful.errors import InvalidArgumentError, UnknownNameError
from heedful.memory._base import StoreBase, dumps, loads
from heedful.model.graph import Edge, EdgeType, Node, NodeType, SearchHit

#: At most this many query tokens reach FTS5 (longer queries are truncated).
MAX_QUERY_TOKENS = 64
_TOKEN = re.compile(r"\w+", re.UNICODE)
_NODE_COLUMNS = "id, node_type, content, confidence, created_at, updated_at, metadata"
#: Edges with both ends in a JSON array of ids (bound twice), in canonical order. The unary
#: ``+`` keeps ``dst`` off the primary key: with both ends indexed the planner probes every
#: (src, dst) pair of the two lists — quadratic in the ids — instead of scanning each source's
#: edges once and testing the target against the list.
EDGES_AMONG = (
    "FROM edges WHERE src IN (SELECT value FROM json_each(?))"
    " AND +dst IN (SELECT value FROM json_each(?)) ORDER BY src, dst, edge_type"
)


def fts_query(text: str) -> str | None:
    """Turn arbitrary text into a safe FTS5 query (``"tok1" OR "tok2" ...``), or None if empty."""
    tokens = list(dict.fromkeys(t.lower() for t in _TOKEN.findall(text)))[:MAX_QUERY_TOKENS]
    if not tokens:
        return None
    return " OR ".join(f'"{t}"' for t in tokens)


def _node_from_row(row: sqlite3.Row) -> Node:
    return Node(
        id=row["id"],
        node_type=NodeType(row["node_type"]),
        content=row["content"],
        confidence=row["confidence"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        metadata=loads(row["metadata"]),
    )


def _edge_from_row(row: sqlite3.Row) -> Edge:
    return Edge(
        src=row["src"], dst=row["dst"], edge_type=EdgeType(row["edge_type"]), weight=row["weight"]
    )


def id_array(node_ids: Iterable[str]) -> str:
    return json.dumps(sorted(set(node_ids)))


class GraphMixin(StoreBase):
    """Nodes, edges, lexical search and the graph digest."""

    # --- nodes ---------------------------------------------------------------------------

    def add_node(self, node: Node) -> Node:
        """Store a new node (timestamps from the store clock when unset) and return it.

        Raises:
            InvalidArgumentError: The id exists already, or metadata is not JSON.
        """
        now = self.now()
        node = node.model_copy(
            update={
                "created_at": node.created_at if node.created_at is not None else now,
                "updated_at": now,
            }
        )
        with self._tx() as conn:
            if self._read("SELECT 1 FROM nodes WHERE id = ?", (node.id,)):
                raise InvalidArgumentError(f"node {node.id!r} already exists")
            conn.execute(
                f"INSERT INTO nodes ({_NODE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    node.id,
                    node.node_type.value,
                    node.content,
                    node.confidence,
                    node.created_at,
                    node.updated_at,
                    dumps(node.metadata, f"metadata of node {node.id!r}"),
                ),
            )
        return node

    def get_node(self, node_id: str) -> Node:
        """Return node ``node_id``; raise UnknownNameError if not stored."""
        rows = self._read(f"SELECT {_NODE_COLUMNS} FROM nodes WHERE id = ?", (node_id,))
        if not rows:
            raise UnknownNameError(f"unknown node {node_id!r}")
        return _node_from_row(rows[0])

    def nodes(
        self, node_ids: Collection[str] | None = None, *, node_type: NodeType | None = None
    ) -> list[Node]:
        """Return nodes (all, or those in ``node_ids``), optionally of one type, by id."""
        sql = f"SELECT {_NODE_COLUMNS} FROM nodes WHERE 1"
        params: list[object] = []
        if node_ids is not None:
            sql += " AND id IN (SELECT value FROM json_each(?))"
            params.append(id_array(node_ids))
        if node_type is not None:
            sql += " AND node_type = ?"
            params.append(node_type.value)
        return [_node_from_row(r) for r in self._read(sql + " ORDER BY id", params)]

    def update_node(
        self,
        node_id: str,
        *,
        content: str | None = None,
        confidence: float | None = None,
        metadata: dict[str, object] | None = None,
    ) -> Node:
        """Change a node's content, confidence or metadata; return the new node."""
        with self._tx() as conn:
            old = self.get_node(node_id)
            data = old.model_dump()
            for key, value in (
                ("content", content),
                ("confidence", confidence),
                ("metadata", metadata),
            ):
                if value is not None:
                    data[key] = value
            data["updated_at"] = self.now()
            try:
                node = Node.model_validate(data)
            except ValueError as exc:
                raise InvalidArgumentError(f"invalid update of node {node_id!r}: {exc}") from exc
            conn.execute(
                "UPDATE nodes SET content = ?, confidence = ?, metadata = ?, updated_at = ?"
                " WHERE id = ?",
                (
                    node.content,
                    node.confidence,
                    dumps(node.metadata, "node metadata"),
                    node.updated_at,
                    node_id,
                ),
            )
        return node

    def delete_node(self, node_id: str) -> None:
        """Delete a node and its edges (outcomes keep their record, without this node)."""
        with self._tx() as conn:
            self.get_node(node_id)
            conn.execute("DELETE FROM nodes WHERE id = ?", (node_id,))

    # --- edges ---------------------------------------------------------------------------

    def add_edge(self, edge: Edge) -> None:
        """Store ``src → dst`` (idempotent per type; a repeat updates the weight).

        Raises:
            UnknownNameError: Either end is not a stored node.
        """
        with self._tx() as conn:
            self.get_node(edge.src)
            self.get_node(edge.dst)
            conn.execute(
                "INSERT INTO edges (src, dst, edge_type, weight) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (src, dst, edge_type) DO UPDATE SET weight = excluded.weight",
                (edge.src, edge.dst, edge.edge_type.value, edge.weight),
            )

    def delete_edge(self, src: str, dst: str, edge_type: EdgeType) -> None:
        """Delete the edge ``src → dst`` of ``edge_type`` (no error if absent)."""
        with self._tx() as conn:
            conn.execute(
                "DELETE FROM edges WHERE src = ? AND dst = ? AND edge_type = ?",
                (src, dst, edge_type.value),
            )

    def edges(self, node_ids: Collection[str] | None = None) -> list[Edge]:
        """Return edges with **both** ends in ``node_ids`` (all edges when None)."""
        if node_ids is None:
            rows = self._read("SELECT * FROM edges ORDER BY src, dst, edge_type")
        else:
            ids = id_array(node_ids)
            rows = self._read(f"SELECT * {EDGES_AMONG}", (ids, ids))
        return [_edge_from_row(r) for r in rows]

    def edges_touching(self, node_ids: Collection[str]) -> list[Edge]:
        """Return edges with **at least one** end in ``node_ids``."""
        ids = id_array(node_ids)
        rows = self._read(
            "SELECT * FROM edges WHERE src IN (SELECT value FROM json_each(?))"
            " OR dst IN (SELECT value FROM json_each(?)) ORDER BY src, dst, edge_type",
            (ids, ids),
        )
        return [_edge_from_row(r) for r in rows]

    def neighbourhood(
        self,
        node_ids: Collection[str],
        *,
        depth: int = 1,
        edge_types: Collection[EdgeType] | None = None,
    ) -> set[str]:
        """Return ``node_ids`` plus every node within ``depth`` hops, edges in either direction.

        Unknown ids in ``node_ids`` are ignored (they have no edges) but kept in the result only
        if they are stored nodes.
        """
        if depth < 0:
            raise InvalidArgumentError(f"depth must be ≥ 0, got {depth}")
        frontier = {n.id for n in self.nodes(node_ids)}
        seen = set(frontier)
        wanted = None if edge_types is None else {t.value for t in edge_types}
        for _ in range(depth):
            if not frontier:
                break
            nxt: set[str] = set()
            for edge in self.edges_touching(frontier):
                if wanted is not None and edge.edge_type.value not in wanted:
                    continue
                for end in (edge.src, edge.dst):
                    if end not in seen:
                        nxt.add(end)
            seen |= nxt
            frontier = nxt
        return seen

    # --- search --------------------------------------------------------------------------

    def search(self, query: str, limit: int = 10) -> list[SearchHit]:
        """Rank nodes by BM25 relevance of their content to ``query`` (best first).

        Any text is accepted: it is reduced to word tokens (OR-ed), so punctuation, quotes or
        FTS operators in ``query`` are matched as plain words, never parsed.
        """
        if limit < 0:
            raise InvalidArgumentError(f"limit must be ≥ 0, got {limit}")
        match = fts_query(query)
        if match is None or limit == 0:
            return []
        rows = self._read(
            "SELECT n.id AS id, bm25(nodes_fts) AS rank FROM nodes_fts"
            " JOIN nodes AS n ON n.rowid = nodes_fts.rowid WHERE nodes_fts MATCH ?"
            " ORDER BY rank, n.id LIMIT ?",
            (match, limit),
        )
        return [SearchHit(node_id=r["id"], score=-float(r["rank"])) for r in rows]

    def optimize_search(self) -> None:
        """Merge the full-text index into one segment (FTS5 ``optimize``); results are unchanged.

        A bulk load leaves the index in many segments that every search reads; merged, the
        engine's survey of 1,000 goals over 100,000 nodes searches about 1.2x faster. Worth
        running after loading many nodes; it rewrites the whole index (0.1 s per 100,000 nodes).
        """
        with self._tx() as conn:
            conn.execute("INSERT INTO nodes_fts(nodes_fts) VALUES ('optimize')")

    # --- digest --------------------------------------------------------------------------

    def graph_digest(self) -> str:
        """Return a SHA-256 over nodes, edges, outcomes and goals in canonical order.

        Equal digests before and after an operation prove it did not change the graph (e.g. the
        engine's ``observe`` autonomy level, document 002 §8 gate B).
        """
        digest = hashlib.sha256()
        queries = (
            ("nodes", f"SELECT {_NODE_COLUMNS} FROM nodes ORDER BY id"),
            ("edges", "SELECT src, dst, edge_type, weight FROM edges ORDER BY src, dst, edge_type"),
            ("outcomes", "SELECT * FROM outcomes ORDER BY id"),
            ("outcome_nodes", "SELECT * FROM outcome_nodes ORDER BY outcome_id, node_id"),
            ("goals", "SELECT id, body FROM goals ORDER BY id"),
        )
        for name, sql in queries:
            digest.update(name.encode())
            for row in self._read(sql):
                digest.update(json.dumps(list(row), allow_nan=False).encode())
                digest.update(b"\n")
        return digest.hexdigest()
