"""Answers to writes a client marked with a request key, so a retried write applies once.

A client (an MCP client, say) that sends a write with a key and loses the answer — the
connection closed, a timeout — can send it again with the same key: the first answer is
returned and the write is not applied twice. Keys are kept per session (``session`` names the
client; sessions sharing one store never see each other's keys) and the oldest are dropped
beyond :data:`MAX_REPLIES` per session.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from heedful.memory._base import StoreBase, dumps, loads

__all__ = ["MAX_REPLIES", "RememberedReply", "RepliesMixin"]

#: Keys remembered per session; the oldest beyond this many are forgotten.
MAX_REPLIES = 10_000


@dataclass(frozen=True)
class RememberedReply:
    """The first answer to a keyed write.

    Attributes:
        tool: What was called (a tool name).
        digest: A digest of the call's arguments (a retry must send the same).
        reply: The answer given.
        at: When it was given (store clock, epoch seconds).
    """

    tool: str
    digest: str
    reply: dict[str, Any]
    at: float


class RepliesMixin(StoreBase):
    """The remembered answers of keyed writes."""

    def remembered_reply(self, session: str, key: str) -> RememberedReply | None:
        """The answer remembered for ``key`` of ``session``, or ``None``."""
        rows = self._read(
            "SELECT tool, digest, reply, at FROM request_replies WHERE session = ? AND key = ?",
            (session, key),
        )
        if not rows:
            return None
        row = rows[0]
        return RememberedReply(row["tool"], row["digest"], loads(row["reply"]), row["at"])

    def remember_reply(
        self, session: str, key: str, tool: str, digest: str, reply: dict[str, Any]
    ) -> None:
        """Remember the answer to ``key`` (a key already remembered keeps its first answer)."""
        text = dumps(reply, "reply")
        with self._tx() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO request_replies (session, key, tool, digest, reply, at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (session, key, tool, digest, text, self.now()),
            )
            conn.execute(
                "DELETE FROM request_replies WHERE session = ? AND rowid NOT IN ("
                " SELECT rowid FROM request_replies WHERE session = ?"
                " ORDER BY rowid DESC LIMIT ?)",
                (session, session, MAX_REPLIES),
            )
