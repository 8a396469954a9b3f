"""The memory store: one SQLite file holding claims, sources, evidence, justifications, goals,
the knowledge graph and the attention trace.

``Store`` composes one mixin per concept (claims, truth maintenance, history, goals, graph,
trace, batched reads, server sessions) over a single connection. Writes run in
``BEGIN IMMEDIATE`` transactions with a busy timeout, so several processes can share one file
(WAL mode).
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType

from heedful.errors import InvalidArgumentError, StoreError
from heedful.files import create_private, not_regular
from heedful.memory._base import BUSY_TIMEOUT_MS, PAGE_CACHE_KIB, Clock
from heedful.memory._tuning import allow_parallel_reads
from heedful.memory.bulk import BulkReadsMixin
from heedful.memory.claims import ClaimsMixin
from heedful.memory.freshness import (
    DEFAULT_FRESHNESS,
    SECONDS_PER_HOUR,
    FreshnessConfig,
    cho_garcia_molina_rate,
    p_stale_rate,
)
from heedful.memory.goals import GoalsMixin
from heedful.memory.graph import GraphMixin
from heedful.memory.outcomes import OutcomesMixin
from heedful.memory.replies import RepliesMixin
from heedful.memory.schema import migrate, schema_version
from heedful.memory.sessions import SessionsMixin
from heedful.memory.trace import TraceMixin
from heedful.model.base import wall_time

MEMORY = ":memory:"


class Store(
    ClaimsMixin,
    GoalsMixin,
    GraphMixin,
    OutcomesMixin,
    TraceMixin,
    BulkReadsMixin,
    RepliesMixin,
    SessionsMixin,
):
    """A heedful memory store over one SQLite database.

    ``Store(path)`` or ``Store.open(path)`` opens (creating and migrating if needed) the store;
    close it with :meth:`close` or a ``with`` block.

    Args:
        path: Database file, or ``":memory:"`` (the default) for a private in-memory store.
        clock: Returns epoch seconds; the store's only source of "now".
        freshness: Hazards per volatility class.

    Raises:
        StoreError: The file cannot be opened, is not a heedful store, or is newer.

    Attributes:
        path: The database file.
        freshness: Hazards used by :meth:`p_stale`.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] = MEMORY,
        *,
        clock: Clock = wall_time,
        freshness: FreshnessConfig = DEFAULT_FRESHNESS,
    ) -> None:
        self.path = os.fspath(path)
        self._init_base(_connect(self.path), clock)
        self.freshness = freshness
        self._closed = False

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str] = MEMORY,
        *,
        clock: Clock = wall_time,
        freshness: FreshnessConfig = DEFAULT_FRESHNESS,
    ) -> Store:
        """Open the store at ``path``; same as ``Store(path, ...)``."""
        return cls(path, clock=clock, freshness=freshness)

    @property
    def schema_version(self) -> int:
        """The database's schema version (``PRAGMA user_version``)."""
        return schema_version(self._conn)

    def close(self) -> None:
        """Close the connection (idempotent)."""
        if not self._closed:
            self._closed = True
            with self._lock:
                self._close_readers()
            self._conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Run several writes all-or-nothing: a failure inside rolls every one of them back.

        Nested writes (and nested ``transaction`` blocks) join the outer transaction.
        """
        with self._tx():
            yield

    def hazard_per_hour(self, claim_id: str, *, learned: bool = True) -> float:
        """Return the change rate (per hour) used for claim ``claim_id``'s freshness.

        The learned rate of the claim's subject when ``learned`` and the subject has at least
        ``freshness.min_revisits_to_learn`` stored revisits; else its volatility class default.
        """
        if not learned:
            return self.freshness.hazards_per_hour[self.get_claim(claim_id).volatility]
        rate, default = self.hazard_rates(claim_id)
        return default if rate is None else rate

    def hazard_rates(self, claim_id: str) -> tuple[float | None, float]:
        """The learned change rate (per hour) of claim ``claim_id``'s subject — ``None`` below
        ``freshness.min_revisits_to_learn`` stored revisits — and its volatility class default,
        from one read of the claim (see :meth:`hazard_per_hour`)."""
        claim = self.get_claim(claim_id)
        default = self.freshness.hazards_per_hour[claim.volatility]
        intervals, changed = self.change_history(claim.subject)
        if len(intervals) < self.freshness.min_revisits_to_learn:
            return None, default
        return cho_garcia_molina_rate(intervals, changed) * SECONDS_PER_HOUR, default

    def p_stale(self, claim_id: str, now: float | None = None, *, learned: bool = True) -> float:
        """Probability claim ``claim_id`` is no longer current (document 000 §9).

        Args:
            claim_id: The claim.
            now: The time to evaluate at; defaults to the store clock.
            learned: Use the subject's learned hazard when enough revisits are stored
                (see :meth:`hazard_per_hour`).

        Raises:
            InvalidArgumentError: ``now`` is before the claim was observed.
        """
        claim = self.get_claim(claim_id)
        at = self.now() if now is None else now
        if now is not None and at < claim.observed_at:
            raise InvalidArgumentError(
                f"now={at} is before claim {claim_id!r} was observed ({claim.observed_at})"
            )
        rate = self.hazard_per_hour(claim_id, learned=learned) / SECONDS_PER_HOUR
        return p_stale_rate(rate, claim.age_s(at))

    def goal_region(self, goal_id: str, limit: int = 20) -> list[str]:
        """Return a goal's knowledge region (document 002 §3.1.1, ``goal_region_nodes``).

        The goal's ``linked_node_ids`` that exist, then the ``limit`` best lexical matches of its
        title, without duplicates, in that order.
        """
        goal = self.get_goal(goal_id)
        linked = [n.id for n in self.nodes(goal.linked_node_ids)]
        order = {nid: i for i, nid in enumerate(goal.linked_node_ids)}
        linked.sort(key=order.__getitem__)
        retrieved = [h.node_id for h in self.search(goal.title, limit=limit)]
        return list(dict.fromkeys(linked + retrieved))


def _connect(path: str) -> sqlite3.Connection:
    """Open, configure and migrate the database at ``path``."""
    if path != MEMORY:
        parent = Path(path).parent
        if not parent.is_dir():
            raise StoreError(f"cannot open store {path}: directory {parent} does not exist")
        _private_store_file(path)
        # Decided before this process's first connection opens: see heedful.memory._tuning.
        allow_parallel_reads()
    try:
        conn = sqlite3.connect(
            path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False
        )
    except sqlite3.Error as exc:
        raise StoreError(f"cannot open store {path}: {exc}") from exc
    try:
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute(f"PRAGMA cache_size = -{PAGE_CACHE_KIB}")
        _retry_busy(lambda: _prepare(conn, wal=path != MEMORY))
    except sqlite3.Error as exc:
        conn.close()
        raise StoreError(f"cannot open store {path}: {exc}") from exc
    except BaseException:
        conn.close()
        raise
    return conn


def _private_store_file(path: str) -> None:
    """Refuse a path that is not a regular file (a pipe would block SQLite's first read, a
    device feed it junk); create a new store readable by its owner only (mode 0600; SQLite
    gives its ``-wal`` and ``-shm`` files the same mode)."""
    try:
        kind = not_regular(os.stat(path).st_mode)
    except FileNotFoundError:
        try:
            create_private(path)
        except OSError as exc:
            raise StoreError(f"cannot open store {path}: {exc.strerror or exc}") from None
        return
    except OSError as exc:
        raise StoreError(f"cannot open store {path}: {exc.strerror or exc}") from None
    if kind is not None:
        raise StoreError(f"cannot open store {path}: it is {kind}, not a SQLite file")


#: Attempts at preparing a file another process is creating at the same moment.
OPEN_RETRIES = 20


def _prepare(conn: sqlite3.Connection, *, wal: bool) -> None:
    if wal:
        conn.execute("PRAGMA journal_mode = WAL")
        # WAL + NORMAL survives a killed process; only power loss may drop the last commits.
        conn.execute("PRAGMA synchronous = NORMAL")
    migrate(conn)


def _retry_busy(step: Callable[[], None]) -> None:
    """Run ``step``, retrying while another connection holds a lock SQLite will not wait on
    (switching a brand-new file to WAL takes an exclusive lock without the busy handler)."""
    for attempt in range(OPEN_RETRIES):
        try:
            step()
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
            if attempt == OPEN_RETRIES - 1:
                raise
            time.sleep(0.01 * (attempt + 1))
