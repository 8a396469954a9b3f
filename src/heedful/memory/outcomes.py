"""Outcomes of actions (document 002 §2.1 reflect, §3.2.3) and the gap signals they feed.

An outcome may bear on several knowledge nodes and serve one goal. Deleting a node unlinks it
from its outcomes; deleting a goal clears ``goal_id``; the outcome itself stays on record.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Sequence

from heedful.errors import InvalidArgumentError, StoreError, UnknownNameError
from heedful.memory._base import StoreBase
from heedful.memory.graph import id_array
from heedful.model.claim import SURPRISING, Outcome, OutcomeStatus
from heedful.model.graph import EdgeType

#: Default: nodes below this confidence count as coverage-gap candidates (document 002 §3.2.1).
LOW_CONFIDENCE = 0.5


class OutcomesMixin(StoreBase):
    """Recording and querying outcomes."""

    def add_outcome(self, outcome: Outcome) -> Outcome:
        """Record an outcome and return it with its id.

        Raises:
            UnknownNameError: A linked node or the goal is not stored.
        """
        with self._tx() as conn:
            for node_id in outcome.node_ids:
                if not self._read("SELECT 1 FROM nodes WHERE id = ?", (node_id,)):
                    raise UnknownNameError(f"unknown node {node_id!r}")
            if outcome.goal_id is not None and not self._read(
                "SELECT 1 FROM goals WHERE id = ?", (outcome.goal_id,)
            ):
                raise UnknownNameError(f"unknown goal {outcome.goal_id!r}")
            cursor = conn.execute(
                "INSERT INTO outcomes (status, confidence, goal_id, at, description)"
                " VALUES (?, ?, ?, ?, ?)",
                (
                    outcome.status.value,
                    outcome.confidence,
                    outcome.goal_id,
                    outcome.at,
                    outcome.description,
                ),
            )
            conn.executemany(
                "INSERT OR IGNORE INTO outcome_nodes (outcome_id, node_id) VALUES (?, ?)",
                [(cursor.lastrowid, n) for n in outcome.node_ids],
            )
        return outcome.model_copy(
            update={"id": cursor.lastrowid, "node_ids": tuple(dict.fromkeys(outcome.node_ids))}
        )

    def delete_outcome(self, outcome_id: int) -> None:
        """Delete outcome ``outcome_id`` and its node links (no error if absent)."""
        with self._tx() as conn:
            conn.execute("DELETE FROM outcomes WHERE id = ?", (outcome_id,))

    def outcomes(
        self,
        *,
        since: float | None = None,
        goal_id: str | None = None,
        node_id: str | None = None,
        status: OutcomeStatus | None = None,
    ) -> list[Outcome]:
        """Return outcomes, oldest first, optionally at or after ``since``, of one goal, bearing
        on one node, or with one status."""
        sql = "SELECT * FROM outcomes WHERE 1"
        params: list[object] = []
        for clause, value in (
            (" AND at >= ?", since),
            (" AND goal_id = ?", goal_id),
            (" AND id IN (SELECT outcome_id FROM outcome_nodes WHERE node_id = ?)", node_id),
            (" AND status = ?", None if status is None else status.value),
        ):
            if value is not None:
                sql += clause
                params.append(value)
        return self._with_nodes(self._read(sql + " ORDER BY at, id", params))

    def outcomes_for(self, goal_id: str | None, node_ids: Collection[str]) -> list[Outcome]:
        """Return outcomes of goal ``goal_id`` or bearing on any of ``node_ids``, oldest first."""
        rows = self._read(
            "SELECT * FROM outcomes WHERE (goal_id IS NOT NULL AND goal_id = ?) OR id IN"
            " (SELECT outcome_id FROM outcome_nodes WHERE node_id IN"
            " (SELECT value FROM json_each(?))) ORDER BY at, id",
            (goal_id, id_array(node_ids)),
        )
        return self._with_nodes(rows)

    def gap_candidates(self, limit: int, *, low_confidence: float = LOW_CONFIDENCE) -> list[str]:
        """Nodes likely to be coverage gaps, most telling first (document 002 §3.2.1, §3.2.4).

        Contradicted nodes (newest contradiction first), then nodes of surprising outcomes
        (failure, timeout, unexpected; newest first), then nodes with confidence below
        ``low_confidence`` (lowest first); each node once.
        """
        if limit < 0:
            raise InvalidArgumentError(f"limit must be ≥ 0, got {limit}")
        found: dict[str, None] = {}
        surprising = sorted(s.value for s in SURPRISING)
        reads: list[tuple[str, Sequence[object]]] = [
            (
                "SELECT src, dst FROM edges WHERE edge_type = ? ORDER BY rowid DESC",
                (EdgeType.CONTRADICTS.value,),
            ),
            (
                "SELECT l.node_id FROM outcomes AS o"
                " JOIN outcome_nodes AS l ON l.outcome_id = o.id"
                f" WHERE o.status IN ({', '.join('?' * len(surprising))})"
                " ORDER BY o.at DESC, o.id DESC, l.node_id",
                surprising,
            ),
            (
                "SELECT id FROM nodes WHERE confidence < ? ORDER BY confidence, id",
                (low_confidence,),
            ),
        ]
        # Rows stream in order (indexes of schema v4) and reading stops at ``limit`` nodes.
        try:
            with self._lock:
                for sql, params in reads:
                    cursor = self._conn.execute(sql, params)
                    try:
                        for row in cursor:
                            if len(found) >= limit:
                                break
                            for node_id in row:
                                found.setdefault(node_id)
                    finally:
                        cursor.close()
        except sqlite3.Error as exc:
            raise StoreError(f"store read failed: {exc}") from exc
        return list(found)[:limit]

    def _with_nodes(self, rows: list[sqlite3.Row]) -> list[Outcome]:
        ids = [r["id"] for r in rows]
        links: dict[int, list[str]] = {i: [] for i in ids}
        if ids:
            for link in self._read(
                "SELECT outcome_id, node_id FROM outcome_nodes WHERE outcome_id IN"
                " (SELECT value FROM json_each(?)) ORDER BY node_id",
                (json.dumps(ids),),
            ):
                links[link[0]].append(link[1])
        return [
            Outcome(
                id=r["id"],
                status=OutcomeStatus(r["status"]),
                confidence=r["confidence"],
                node_ids=tuple(links[r["id"]]),
                goal_id=r["goal_id"],
                at=r["at"],
                description=r["description"],
            )
            for r in rows
        ]
