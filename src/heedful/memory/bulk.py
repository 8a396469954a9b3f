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

On a file store the searches that must run are split in two parts (about half each) run at
the same time: one on the store's own connection (whose page cache survives its own writes),
one on a second, read-only connection on a helper thread. SQLite runs them in parallel when
:func:`~heedful.memory._tuning.allow_parallel_reads` could turn off its allocation counting.
Each part runs in its own read transaction that also reads the ``text`` counter, and the parts
are used only if both counters equal the one the memo is kept under, so a write committed
meanwhile never yields a mixed result: the searches are then read again on the store's own
connection (as on an in-memory store), and if the counter has moved the memo starts over and
everything is tried again. Every search result is read at the counter it is remembered under.
The region reads (:meth:`BulkReadsMixin.region_rows`) stay on the store's connection, in one
read transaction.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Collection, Sequence
from typing import Any, NamedTuple, TypeVar

from heedful.errors import InvalidArgumentError, StoreError
from heedful.memory._base import BUSY_TIMEOUT_MS, PAGE_CACHE_KIB, StoreBase, not_unicode
from heedful.memory.graph import EDGES_AMONG, fts_query, id_array

_A = TypeVar("_A")
_B = TypeVar("_B")


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
#: Fewer missing searches than this run on the store's own connection (a thread and a second
#: transaction cost more than they save).
PARALLEL_MIN_SEARCHES = 64
#: Tries at reading the searches at the memo's counter before one plain statement does them all.
SNAPSHOT_ATTEMPTS = 3
#: The read-only connection maps up to this much of the file (its page cache starts over after
#: every write to the file; mapped pages are not copied again).
READER_MMAP_BYTES = 1 << 30
#: The share of the searches run on the store's own connection (measured: with half each, its
#: half took 10–14 % longer than the read-only connection's, cold or warm).
OWN_SHARE = 0.48


class BulkReadsMixin(StoreBase):
    """Batched reads returning plain rows (see the module docstring)."""

    _search_memo: dict[tuple[str, int], list[str]]
    _search_memo_version: int | None = None
    #: The file's path, or ":memory:" (set by the store).
    path: str
    #: The read-only connection for parallel searches: None until first needed, [] if unused.
    _readers: list[sqlite3.Connection] | None = None
    #: Force parallel searches on (True) or off (False); None: when the process allows them.
    parallel_reads: bool | None = None

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
                return self._cursor().execute(sql, params).fetchall()
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
            for _ in range(SNAPSHOT_ATTEMPTS):
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
                rows = self._search_snapshot(matches, limit, memo is not None)
                if rows is not None:
                    for key, ids in rows:
                        hits = json.loads(ids)
                        for i in missing[matches[key]]:
                            found[i] = list(hits)
                        if memo is not None:
                            memo[(matches[key], limit)] = hits
                    return found
            # Writes kept landing between the counter and the searches: all in one statement.
            matches = list(dict.fromkeys(wanted.values()))
            rows = self._rows(_SEARCH_MANY, (limit, json.dumps(matches)))
            hits_of = {matches[key]: json.loads(ids) for key, ids in rows}
            return [list(hits_of[wanted[i]]) if i in wanted else [] for i in range(len(queries))]

    def _search_snapshot(
        self, matches: list[str], limit: int, remembered: bool
    ) -> list[Any] | None:
        """The rows of ``_SEARCH_MANY`` for ``matches``, read at the ``text`` counter the memo
        is kept under; None if a write committed since moved it (the memo must start over).

        Called with the lock held. Inside this store's write transaction (``remembered`` is
        False) the store's own connection reads its uncommitted writes.
        """
        params = (limit, json.dumps(matches))
        if not remembered:
            return self._rows(_SEARCH_MANY, params)
        parallel = self._parallel_search(matches, limit)
        if parallel is not None:
            return parallel
        try:
            version, rows = _snapshot_rows(self._conn, _SEARCH_MANY, params)
        except sqlite3.Error as exc:
            raise StoreError(f"store read failed: {exc}") from exc
        return rows if version == self._search_memo_version else None

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

    def _parallel_search(self, matches: list[str], limit: int) -> list[Any] | None:
        """The rows of ``_SEARCH_MANY`` for ``matches``, split between the store's connection and
        the read-only one; None when that is not used or did not read the version the memo is
        kept under.

        Called with the lock held and no write transaction open.
        """
        readers = self._reader_connections() if len(matches) >= PARALLEL_MIN_SEARCHES else []
        if not readers:
            return None
        half = round(len(matches) * OWN_SHARE)
        try:
            first, second = _in_parallel(
                lambda: _snapshot_rows(
                    self._conn, _SEARCH_MANY, (limit, json.dumps(matches[:half]))
                ),
                lambda: _snapshot_rows(
                    readers[0], _SEARCH_MANY, (limit, json.dumps(matches[half:]))
                ),
            )
        except sqlite3.Error:
            return None  # e.g. the read-only connection was busy: one connection reads them
        if not first[0] == second[0] == self._search_memo_version:
            return None  # a write was committed in between: not one snapshot
        return first[1] + [(key + half, ids) for key, ids in second[1]]

    def region_rows(self, node_ids: Collection[str], goal_ids: Collection[str]) -> RegionRows:
        """:meth:`node_rows` of ``node_ids``, :meth:`edge_rows_among` them and
        :meth:`outcome_rows_for` ``goal_ids`` and them, all read in one read transaction, with
        the ``graph`` counter they were read at (one committed state, even if another
        connection writes meanwhile). Edges and outcome links among ``node_ids`` are those
        among the stored ones: the schema deletes them with their nodes.

        These reads stay on the store's own connection: its page cache survives its own
        writes, while another connection's starts over after every write (measured: 0.07 s on
        one connection, 0.10 s split between the two readers).
        """
        ids, goals = id_array(node_ids), id_array(goal_ids)
        try:
            with self._lock:
                if self._conn.in_transaction:
                    nodes, edges, outcomes = _region_parts(self._cursor(), ids, goals)
                    return RegionRows(nodes, edges, outcomes, None)
                version, (nodes, edges, outcomes) = _snapshot(
                    self._conn, "graph", lambda _: _region_parts(self._cursor(), ids, goals)
                )
        except sqlite3.Error as exc:
            raise StoreError(f"store read failed: {exc}") from exc
        return RegionRows(nodes, edges, outcomes, version)

    def _cursor(self) -> sqlite3.Cursor:
        """A cursor of the store's connection returning plain tuples."""
        cursor = self._conn.cursor()
        cursor.row_factory = None
        return cursor

    def _reader_connections(self) -> list[sqlite3.Connection]:
        """The read-only connection of a file store (in a list), opened at first use; [] if
        parallel searches are not used."""
        if self._readers is None:
            from heedful.memory._tuning import allow_parallel_reads

            wanted = self.parallel_reads
            if wanted is None:
                wanted = allow_parallel_reads()
            self._readers = []
            if wanted and self.path != ":memory:":
                try:
                    self._readers.append(_open_reader(self.path))
                except sqlite3.Error:
                    self._close_readers()
                    self._readers = []
        return self._readers

    def _close_readers(self) -> None:
        for conn in self._readers or []:
            conn.close()
        self._readers = None

    def node_rows(self, node_ids: Collection[str]) -> list[NodeRow]:
        """The stored nodes among ``node_ids``, by id."""
        return [NodeRow._make(r) for r in self._rows(_NODES, (id_array(node_ids),))]

    def edge_rows_among(self, node_ids: Collection[str]) -> list[EdgeRow]:
        """Edges with both ends in ``node_ids``, ordered by source, target and type."""
        ids = id_array(node_ids)
        return [EdgeRow._make(r) for r in self._rows(_EDGES, (ids, ids))]

    def outcome_rows_for(
        self, goal_ids: Collection[str], node_ids: Collection[str]
    ) -> list[OutcomeRow]:
        """Outcomes of any of ``goal_ids`` or bearing on any of ``node_ids``, oldest first."""
        try:
            with self._lock:
                return _outcome_part(self._cursor(), id_array(goal_ids), id_array(node_ids))
        except sqlite3.Error as exc:
            raise StoreError(f"store read failed: {exc}") from exc


_NODES = (
    "SELECT id, node_type, content, confidence, updated_at, metadata FROM nodes"
    " WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id"
)
_EDGES = f"SELECT src, dst, edge_type, weight {EDGES_AMONG}"
_OUTCOMES = (
    "SELECT id, status, confidence, goal_id, at, description FROM outcomes"
    " WHERE goal_id IN (SELECT value FROM json_each(?)) OR id IN"
    " (SELECT outcome_id FROM outcome_nodes WHERE node_id IN"
    " (SELECT value FROM json_each(?))) ORDER BY at, id"
)
_OUTCOME_LINKS = (
    "SELECT outcome_id, node_id FROM outcome_nodes WHERE outcome_id IN"
    " (SELECT value FROM json_each(?)) ORDER BY outcome_id, node_id"
)


class RegionRows(NamedTuple):
    """What :meth:`BulkReadsMixin.region_rows` read, and the ``graph`` counter it read it at
    (None inside a write transaction of the store)."""

    nodes: list[NodeRow]
    edges: list[EdgeRow]
    outcomes: list[OutcomeRow]
    version: int | None


def _region_parts(
    conn: sqlite3.Cursor, ids: str, goals: str
) -> tuple[list[NodeRow], list[EdgeRow], list[OutcomeRow]]:
    nodes = [NodeRow._make(r) for r in conn.execute(_NODES, (ids,))]
    edges = [EdgeRow._make(r) for r in conn.execute(_EDGES, (ids, ids))]
    return nodes, edges, _outcome_part(conn, goals, ids)


def _outcome_part(conn: sqlite3.Cursor, goals: str, ids: str) -> list[OutcomeRow]:
    rows = conn.execute(_OUTCOMES, (goals, ids)).fetchall()
    links: dict[int, list[str]] = {r[0]: [] for r in rows}
    if links:
        for outcome_id, node_id in conn.execute(_OUTCOME_LINKS, (json.dumps(list(links)),)):
            links[outcome_id].append(node_id)
    return [OutcomeRow._make((*r, tuple(links[r[0]]))) for r in rows]


def _in_parallel(first: Callable[[], _A], second: Callable[[], _B]) -> tuple[_A, _B]:
    """``first()`` on this thread while ``second()`` runs on another; errors re-raised here.

    Only worth it around SQLite statements: sqlite3 lets other threads run meanwhile.
    """
    box: list[Any] = []

    def run() -> None:
        try:
            box.append((True, second()))
        except BaseException as exc:  # re-raised on the caller's thread
            box.append((False, exc))

    helper = threading.Thread(target=run, name="heedful-read", daemon=True)
    helper.start()
    try:
        mine = first()
    finally:
        helper.join()
    ok, theirs = box[0]
    if not ok:
        raise theirs
    return mine, theirs


def _open_reader(path: str) -> sqlite3.Connection:
    """A read-only connection to the store file (already created and migrated)."""
    conn = sqlite3.connect(
        path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False
    )
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute(f"PRAGMA cache_size = -{PAGE_CACHE_KIB}")
        conn.execute("PRAGMA query_only = ON")
        conn.execute(f"PRAGMA mmap_size = {READER_MMAP_BYTES}")
    except BaseException:
        conn.close()
        raise
    return conn


def _snapshot_rows(
    conn: sqlite3.Connection, sql: str, params: Sequence[Any]
) -> tuple[int, list[Any]]:
    """The ``text`` counter and the rows of ``sql``, read in one transaction (one snapshot)."""
    return _snapshot(conn, "text", lambda c: c.execute(sql, params).fetchall())


def _snapshot(
    conn: sqlite3.Connection, counter: str, read: Callable[[sqlite3.Connection], _A]
) -> tuple[int, _A]:
    """The ``counter`` and what ``read`` returns, read in one transaction (one snapshot)."""
    conn.execute("BEGIN")
    try:
        (version,) = conn.execute(
            "SELECT version FROM graph_versions WHERE name = ?", (counter,)
        ).fetchone()
        return version, read(conn)
    finally:
        conn.execute("COMMIT")
