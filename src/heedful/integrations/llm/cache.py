"""On-disk response cache: SQLite, keyed by the hash of the full request.

A rerun with the same request replays the stored response without calling the endpoint, an
interrupted run resumes where it stopped (every answered call was stored as it arrived), and a
published run can be audited (the file holds each request beside its response). Only
successful responses are stored; errors are always retried live. The key never covers the API
key: it is not part of the request body.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

from heedful.errors import InvalidArgumentError
from heedful.files import create_private

__all__ = ["ResponseCache", "request_key"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    request TEXT NOT NULL,
    response TEXT NOT NULL,
    created_utc TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
)
"""


def request_key(request: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of a request (sorted keys, no whitespace)."""
    text = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ResponseCache:
    """Responses by request, in one SQLite file (safe to share between runs, one at a time).

    Args:
        path: The cache file (created with its folder if missing, readable by its owner only:
            it holds every prompt sent and every answer, so mode 0600 like a store).

    Raises:
        InvalidArgumentError: the file cannot be opened as a cache.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            create_private(self.path)  # SQLite gives -wal and -shm the file's mode
            self._db = sqlite3.connect(self.path, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(_SCHEMA)
            self._db.commit()
        except (OSError, sqlite3.Error) as exc:
            raise InvalidArgumentError(
                f"{self.path}: cannot open the response cache: {exc}"
            ) from None
        self.hits = 0
        self.misses = 0

    def get(self, request: dict[str, Any]) -> dict[str, Any] | None:
        """The stored response to ``request``, or ``None``."""
        row = self._db.execute(
            "SELECT response FROM responses WHERE key = ?", (request_key(request),)
        ).fetchone()
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        out: dict[str, Any] = json.loads(row[0])
        return out

    def put(self, request: dict[str, Any], response: dict[str, Any]) -> None:
        """Store the response to ``request`` (committed at once, so a killed run keeps it)."""
        self._db.execute(
            "INSERT OR REPLACE INTO responses (key, request, response) VALUES (?, ?, ?)",
            (
                request_key(request),
                json.dumps(request, sort_keys=True, ensure_ascii=False),
                json.dumps(response, sort_keys=True, ensure_ascii=False),
            ),
        )
        self._db.commit()

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        """Close the file."""
        self._db.close()
