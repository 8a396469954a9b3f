"""Server sessions: what a long-lived client of the attention controller has in flight.

An MCP server's controller selects a computation in one call and hears its outcome in a later
one — possibly from another server process on the same file (stdio spawns one per client, an
HTTP server restarts). The server keeps, per client session, one JSON document here (its turn,
budget and the selections in flight; ``heedful.integrations.mcp.resume`` defines it) with a
version that grows on every write, so a process can tell that another one moved the session on.
"""

from __future__ import annotations

from typing import Any

from heedful.memory._base import StoreBase, check_text, dumps, loads

__all__ = ["SessionsMixin"]


class SessionsMixin(StoreBase):
    """One versioned JSON document per server session."""

    def session_state(self, session: str) -> tuple[int, dict[str, Any]] | None:
        """The stored ``(version, body)`` of ``session``, or ``None`` if none was written."""
        rows = self._read(
            "SELECT version, body FROM server_sessions WHERE session = ?",
            (check_text(session, "session"),),
        )
        if not rows:
            return None
        body = loads(rows[0]["body"])
        return int(rows[0]["version"]), body if isinstance(body, dict) else {}

    def put_session_state(self, session: str, body: dict[str, Any]) -> int:
        """Replace the document of ``session``; return its new version (one more than before)."""
        text = dumps(body, f"session {session!r}")
        with self._tx() as conn:
            row = conn.execute(
                "SELECT version FROM server_sessions WHERE session = ?",
                (check_text(session, "session"),),
            ).fetchone()
            version = (int(row[0]) if row is not None else 0) + 1
            conn.execute(
                "INSERT INTO server_sessions (session, version, body, updated_at)"
                " VALUES (?, ?, ?, ?) ON CONFLICT(session) DO UPDATE SET"
                " version = excluded.version, body = excluded.body,"
                " updated_at = excluded.updated_at",
                (session, version, text, self.now()),
            )
        return version

    def drop_session_state(self, session: str) -> bool:
        """Forget ``session``'s document; whether there was one."""
        with self._tx() as conn:
            cur = conn.execute(
                "DELETE FROM server_sessions WHERE session = ?", (check_text(session, "session"),)
            )
        return cur.rowcount > 0
