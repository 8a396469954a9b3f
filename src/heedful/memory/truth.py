"""Truth maintenance: justifications between claims and dirty propagation (document 000 §4.6).

A change to a claim makes every claim that depends on it — transitively — *dirty*: possibly
wrong, worth re-checking. "B derived_from A" and "A supports B" both mean B depends on A.
Propagation is one recursive SQL query over an indexed ``(upstream, downstream)`` edge list, so
cycles terminate and 100,000 beliefs propagate well under a second (``benchmarks/memory_speed.py``).
"""

from __future__ import annotations

from heedful.errors import InvalidArgumentError, UnknownNameError
from heedful.memory._base import StoreBase
from heedful.memory._rows import CLAIM_COLUMNS, claim_from_row
from heedful.model.claim import Claim, Justification, JustificationKind

_PROPAGATE = """
WITH RECURSIVE dep(id) AS (
    SELECT downstream FROM justifications WHERE upstream = :root
    UNION
    SELECT j.downstream FROM justifications AS j JOIN dep ON j.upstream = dep.id
)
UPDATE claims SET dirty = 1, dirty_reason = :reason, dirty_cause = :root
WHERE id IN (SELECT id FROM dep) AND id != :root
RETURNING id
"""

_DEPENDENTS = """
WITH RECURSIVE dep(id) AS (
    SELECT downstream FROM justifications WHERE upstream = ?
    UNION
    SELECT j.downstream FROM justifications AS j JOIN dep ON j.upstream = dep.id
)
SELECT id FROM dep WHERE id != ?
"""


class TruthMixin(StoreBase):
    """Justifications, dirty flags and their propagation."""

    def _require_claim(self, claim_id: str) -> None:
        if not self._read("SELECT 1 FROM claims WHERE id = ?", (claim_id,)):
            raise UnknownNameError(f"unknown claim {claim_id!r}")

    def add_justification(self, justification: Justification) -> None:
        """Record ``subject kind object`` between two stored claims (idempotent; updates weight).

        Raises:
            UnknownNameError: Either claim is not stored.
            InvalidArgumentError: A claim justified by itself.
        """
        j = justification
        if j.subject == j.object:
            raise InvalidArgumentError(f"claim {j.subject!r} cannot {j.kind.value} itself")
        with self._tx() as conn:
            self._require_claim(j.subject)
            self._require_claim(j.object)
            direction = j.upstream_downstream()
            up, down = direction if direction is not None else (None, None)
            conn.execute(
                "INSERT INTO justifications (subject, kind, object, weight, upstream, downstream)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (subject, kind, object)"
                " DO UPDATE SET weight = excluded.weight",
                (j.subject, j.kind.value, j.object, j.weight, up, down),
            )

    def add_justifications(self, justifications: list[Justification]) -> None:
        """Record many justifications in one transaction (see :meth:`add_justification`)."""
        with self._tx():
            for j in justifications:
                self.add_justification(j)

    def justifications(self, claim_id: str) -> list[Justification]:
        """Return every justification that mentions ``claim_id`` (as subject or object)."""
        self._require_claim(claim_id)
        rows = self._read(
            "SELECT subject, kind, object, weight FROM justifications"
            " WHERE subject = ? OR object = ? ORDER BY subject, kind, object",
            (claim_id, claim_id),
        )
        return [
            Justification(
                subject=r["subject"],
                kind=JustificationKind(r["kind"]),
                object=r["object"],
                weight=r["weight"],
            )
            for r in rows
        ]

    def contradictions(self, claim_id: str) -> list[str]:
        """Return the claims recorded as contradicting ``claim_id`` (either direction)."""
        self._require_claim(claim_id)
        rows = self._read(
            "SELECT object AS other FROM justifications WHERE kind = ? AND subject = ?"
            " UNION SELECT subject FROM justifications WHERE kind = ? AND object = ?"
            " ORDER BY 1",
            (JustificationKind.CONTRADICTS.value, claim_id) * 2,
        )
        return [r[0] for r in rows]

    def dependents(self, claim_id: str) -> set[str]:
        """Return every claim that depends on ``claim_id``, transitively (read-only)."""
        self._require_claim(claim_id)
        return {r[0] for r in self._read(_DEPENDENTS, (claim_id, claim_id))}

    def mark_changed(self, claim_id: str, reason: str) -> set[str]:
        """Record that ``claim_id`` changed: mark all its dependents dirty, transitively.

        The changed claim itself is not marked (its new value is the news). A dependent already
        dirty gets the newer reason. Cycles are safe.

        Returns:
            The ids of the dependents marked dirty.
        """
        with self._tx() as conn:
            self._require_claim(claim_id)
            rows = conn.execute(_PROPAGATE, {"root": claim_id, "reason": reason}).fetchall()
        return {r[0] for r in rows}

    def mark_dirty(self, claim_id: str, reason: str) -> set[str]:
        """Mark ``claim_id`` itself dirty (e.g. contradicted, expired) and its dependents.

        Returns:
            ``claim_id`` and every dependent marked dirty.
        """
        with self._tx() as conn:
            self._require_claim(claim_id)
            conn.execute(
                "UPDATE claims SET dirty = 1, dirty_reason = ?, dirty_cause = ? WHERE id = ?",
                (reason, claim_id, claim_id),
            )
            return {claim_id} | self.mark_changed(claim_id, reason)

    def dirty_claims(self) -> list[Claim]:
        """Return every dirty claim, ordered by id."""
        rows = self._read(f"SELECT {CLAIM_COLUMNS} FROM claims WHERE dirty = 1 ORDER BY id")
        return [claim_from_row(r) for r in rows]

    def clear_dirty(self, claim_id: str) -> None:
        """Mark ``claim_id`` clean again (it was re-checked)."""
        with self._tx() as conn:
            self._require_claim(claim_id)
            conn.execute(
                "UPDATE claims SET dirty = 0, dirty_reason = NULL, dirty_cause = NULL WHERE id = ?",
                (claim_id,),
            )
