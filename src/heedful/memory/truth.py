"""Truth maintenance: justifications between claims and dirty propagation (document 000 §4.6).

A change to a claim makes every claim that depends on it — transitively — *dirty*: possibly
wrong, worth re-checking. "B derived_from A" and "A supports B" both mean B depends on A.
Propagation is one recursive SQL query over integer claim keys with a covering
``(up, down)`` index, so cycles terminate and 100,000 beliefs propagate in well under a second
(``benchmarks/memory_speed.py``).
"""

from __future__ import annotations

from heedful.errors import InvalidArgumentError, UnknownNameError
from heedful.memory._base import StoreBase
from heedful.memory._rows import CLAIM_COLUMNS, claim_from_row
from heedful.model.claim import Claim, Justification, JustificationKind

_REACH = """
WITH RECURSIVE dep(rid) AS (
    SELECT down FROM justifications WHERE up = :root
    UNION
    SELECT j.down FROM dep JOIN justifications AS j ON j.up = dep.rid
)
"""

_PROPAGATE = (
    _REACH
    + """
UPDATE claims SET dirty = 1, dirty_reason = :reason, dirty_cause = :root_id
WHERE rid IN (SELECT rid FROM dep) AND rid != :root
RETURNING id
"""
)

_DEPENDENTS = (
    _REACH + "SELECT c.id FROM dep JOIN claims AS c ON c.rid = dep.rid WHERE c.rid != :root"
)

_JUSTIFICATIONS = """
SELECT s.id AS subject, j.kind AS kind, o.id AS object, j.weight AS weight
FROM justifications AS j JOIN claims AS s ON s.rid = j.subject JOIN claims AS o ON o.rid = j.object
WHERE j.subject = :rid OR j.object = :rid
ORDER BY s.id, j.kind, o.id
"""


class TruthMixin(StoreBase):
    """Justifications, dirty flags and their propagation."""

    def _rid(self, claim_id: str) -> int:
        """Return the integer key of ``claim_id``; raise UnknownNameError if not stored."""
        rows = self._read("SELECT rid FROM claims WHERE id = ?", (claim_id,))
        if not rows:
            raise UnknownNameError(f"unknown claim {claim_id!r}")
        return int(rows[0][0])

    def _require_claim(self, claim_id: str) -> None:
        self._rid(claim_id)

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
            rids = {j.subject: self._rid(j.subject), j.object: self._rid(j.object)}
            direction = j.upstream_downstream()
            up, down = (rids[direction[0]], rids[direction[1]]) if direction else (None, None)
            conn.execute(
                "INSERT INTO justifications (subject, kind, object, weight, up, down)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (subject, kind, object)"
                " DO UPDATE SET weight = excluded.weight",
                (rids[j.subject], j.kind.value, rids[j.object], j.weight, up, down),
            )

    def add_justifications(self, justifications: list[Justification]) -> None:
        """Record many justifications in one transaction (see :meth:`add_justification`)."""
        with self._tx():
            for j in justifications:
                self.add_justification(j)

    def justifications(self, claim_id: str) -> list[Justification]:
        """Return every justification that mentions ``claim_id`` (as subject or object)."""
        rows = self._read(_JUSTIFICATIONS, {"rid": self._rid(claim_id)})
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
        return sorted(
            j.object if j.subject == claim_id else j.subject
            for j in self.justifications(claim_id)
            if j.kind is JustificationKind.CONTRADICTS
        )

    def dependents(self, claim_id: str) -> set[str]:
        """Return every claim that depends on ``claim_id``, transitively (read-only)."""
        return {r[0] for r in self._read(_DEPENDENTS, {"root": self._rid(claim_id)})}

    def mark_changed(self, claim_id: str, reason: str) -> set[str]:
        """Record that ``claim_id`` changed: mark all its dependents dirty, transitively.

        The changed claim itself is not marked (its new value is the news). A dependent already
        dirty gets the newer reason. Cycles are safe.

        Returns:
            The ids of the dependents marked dirty.
        """
        with self._tx() as conn:
            params = {"root": self._rid(claim_id), "root_id": claim_id, "reason": reason}
            rows = conn.execute(_PROPAGATE, params).fetchall()
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
