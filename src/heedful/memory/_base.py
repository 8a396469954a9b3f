"""Connection handling shared by the store's parts: transactions, JSON, error translation."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from typing import Any

from heedful.errors import InvalidArgumentError, StoreError

#: A clock returning epoch seconds; the store never reads time any other way.
Clock = Callable[[], float]

#: How long a writer waits for another process's write lock (milliseconds).
BUSY_TIMEOUT_MS = 10_000
#: Extra attempts at ``BEGIN IMMEDIATE`` after the busy timeout itself ran out.
BEGIN_RETRIES = 5
#: Page cache of a file store, KiB (SQLite's default is 2 MiB). The engine's survey reads the
#: full-text index and the nodes of a 100k-node store about a thousand times per cycle; with the
#: default cache every cycle re-reads those pages from the OS, ~1.5x slower than in memory.
#: Pages are cached only as they are read, so a small store uses little of it.
PAGE_CACHE_KIB = 65_536


def dumps(value: Any, what: str) -> str:
    """Serialise ``value`` as canonical JSON; raise InvalidArgumentError if it cannot be."""
    try:
        return json.dumps(value, sort_keys=True, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(f"{what} is not JSON-serialisable: {exc}") from exc


def not_unicode(exc: UnicodeEncodeError) -> InvalidArgumentError:
    """The error for text SQLite cannot store: a lone surrogate is not valid Unicode."""
    bad = exc.object[exc.start : exc.end]
    shown = bad.encode("unicode_escape").decode("ascii") if isinstance(bad, str) else repr(bad)
    return InvalidArgumentError(
        f"text is not valid Unicode: lone surrogate {shown} at position {exc.start}"
    )


def check_text(value: str, what: str) -> str:
    """Return ``value`` if it is valid Unicode text; raise InvalidArgumentError naming ``what``."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidArgumentError(f"{what}: {not_unicode(exc)}") from None
    return value


def loads(text: str) -> Any:
    """Parse JSON written by :func:`dumps`."""
    return json.loads(text)


class StoreBase:
    """The connection, the clock and the transaction helper every store part uses."""

    _conn: sqlite3.Connection
    _clock: Clock
    _depth: int
    _lock: threading.RLock

    def _init_base(self, conn: sqlite3.Connection, clock: Clock) -> None:
        self._conn = conn
        self._clock = clock
        self._depth = 0
        # One connection, many threads (e.g. an MCP server): a transaction holds the lock.
        self._lock = threading.RLock()

    def now(self) -> float:
        """Return the store clock's current time (epoch seconds)."""
        return float(self._clock())

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """Run the block in one write transaction (nested blocks join the outer one).

        SQLite errors become :class:`StoreError`; heedful errors pass through after rollback.
        """
        with self._lock, self._tx_locked() as conn:
            yield conn

    @contextmanager
    def _tx_locked(self) -> Iterator[sqlite3.Connection]:
        if self._depth > 0:
            self._depth += 1
            try:
                yield self._conn
            finally:
                self._depth -= 1
            return
        self._begin()
        self._depth = 1
        try:
            yield self._conn
        except BaseException as exc:
            self._depth = 0
            self._rollback()
            if isinstance(exc, sqlite3.Error):
                raise StoreError(f"store write failed: {exc}") from exc
            if isinstance(exc, UnicodeEncodeError):
                raise not_unicode(exc) from None
            raise
        self._depth = 0
        try:
            self._conn.execute("COMMIT")
        except sqlite3.Error as exc:
            self._rollback()
            raise StoreError(f"store commit failed: {exc}") from exc

    def _begin(self) -> None:
        for attempt in range(BEGIN_RETRIES + 1):
            try:
                self._conn.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as exc:
                busy = "locked" in str(exc) or "busy" in str(exc)
                if not busy or attempt == BEGIN_RETRIES:
                    raise StoreError(f"cannot start a store write: {exc}") from exc
                time.sleep(0.05 * (attempt + 1))
            except sqlite3.Error as exc:
                raise StoreError(f"cannot start a store write: {exc}") from exc

    def _rollback(self) -> None:
        if self._conn.in_transaction:
            # The original error is the one worth reporting; a failed rollback adds nothing.
            with suppress(sqlite3.Error):
                self._conn.execute("ROLLBACK")

    def _read(self, sql: str, params: Sequence[Any] | Mapping[str, Any] = ()) -> list[sqlite3.Row]:
        """Run a read query; SQLite errors become :class:`StoreError`."""
        try:
            with self._lock:
                return self._conn.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise StoreError(f"store read failed: {exc}") from exc
        except UnicodeEncodeError as exc:
            raise not_unicode(exc) from None
        except OverflowError as exc:  # an integer argument beyond SQLite's 64-bit range
            raise InvalidArgumentError(f"query argument out of range: {exc}") from exc
