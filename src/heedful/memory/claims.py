"""Claims (beliefs), sources with claim-specific authority, and evidence.

Evidence that disagrees with a claim is a change signal (document 000 §4.6): by default the claim
and its dependents become dirty; with ``adopt=True`` the claim takes the reported value and only
its dependents become dirty. Evidence from a trusted source, or adopted evidence, is also recorded
as an *observation* of the claim's subject, the revisit history hazards are learned from
(:mod:`heedful.memory.history`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from heedful.errors import InvalidArgumentError, UnknownNameError
from heedful.memory._base import dumps
from heedful.memory._rows import (
    CLAIM_COLUMNS,
    claim_from_row,
    claim_params,
    encode_value,
    evidence_from_row,
    source_from_row,
)
from heedful.memory.history import HistoryMixin
from heedful.memory.truth import TruthMixin
from heedful.model.claim import Claim, ClaimValue, Evidence, SourceRecord
from heedful.model.scenario import Cost


@dataclass(frozen=True)
class EvidenceResult:
    """What recording one piece of evidence did.

    Attributes:
        evidence: The stored evidence, with its id.
        changed: Whether the reported value differs from the claim's value before it.
        dirtied: Claims marked dirty as a consequence.
    """

    evidence: Evidence
    changed: bool
    dirtied: frozenset[str]


def _check_domain(claim_id: str, value: ClaimValue, domain: tuple[ClaimValue, ...] | None) -> None:
    if domain is not None and encode_value(value) not in {encode_value(v) for v in domain}:
        raise InvalidArgumentError(
            f"value {value!r} is outside the domain of claim {claim_id!r}: {list(domain)!r}"
        )


class ClaimsMixin(TruthMixin, HistoryMixin):
    """Sources, claims and evidence."""

    # --- sources -------------------------------------------------------------------------

    def add_source(self, source: SourceRecord) -> None:
        """Register ``source``, replacing a previous record with the same id.

        A measured cost already stored is kept when ``source.measured_cost`` is ``None``: a
        registration states what the source claims, a measurement what reading it cost.

        Raises:
            InvalidArgumentError: Negative or non-finite cost.
        """
        if not math.isfinite(source.cost) or source.cost < 0:
            raise InvalidArgumentError(
                f"source {source.id!r} cost must be a finite number ≥ 0, got {source.cost}"
            )
        with self._tx() as conn:
            detail, measured = source.cost_detail, source.measured_cost
            conn.execute(
                "INSERT INTO sources (id, kind, authority, default_authority, trusted, cost,"
                " reports, cost_detail, age_s, measured_cost, failure_rate, links)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (id) DO UPDATE SET kind = excluded.kind,"
                " authority = excluded.authority, default_authority = excluded.default_authority,"
                " trusted = excluded.trusted, cost = excluded.cost, reports = excluded.reports,"
                " cost_detail = excluded.cost_detail, age_s = excluded.age_s,"
                " measured_cost = COALESCE(excluded.measured_cost, sources.measured_cost),"
                " failure_rate = excluded.failure_rate, links = excluded.links",
                (
                    source.id,
                    source.kind,
                    dumps(source.authority, "source authority"),
                    source.default_authority,
                    int(source.trusted),
                    source.cost,
                    dumps(list(source.reports), "source reports"),
                    None if detail is None else dumps(detail.model_dump(), "source cost"),
                    source.age_s,
                    None if measured is None else dumps(measured.model_dump(), "measured cost"),
                    source.failure_rate,
                    source.links,
                ),
            )

    def add_read(self, source_id: str, succeeded: bool) -> None:
        """Count one resolved read of ``source_id`` (and whether it returned nothing).

        Registering the source again keeps the counts: they are what its reads did, not what
        it claims.

        Raises:
            UnknownNameError: ``source_id`` is not registered.
        """
        with self._tx() as conn:
            done = conn.execute(
                "UPDATE sources SET reads = reads + 1, failed_reads = failed_reads + ?"
                " WHERE id = ?",
                (int(not succeeded), source_id),
            )
            if done.rowcount == 0:
                raise UnknownNameError(f"unknown source {source_id!r}")

    def set_measured_cost(self, source_id: str, cost: Cost) -> None:
        """Keep what a resolve reported reading ``source_id`` cost.

        Raises:
            UnknownNameError: ``source_id`` is not registered.
        """
        with self._tx() as conn:
            done = conn.execute(
                "UPDATE sources SET measured_cost = ? WHERE id = ?",
                (dumps(cost.model_dump(), "measured cost"), source_id),
            )
            if done.rowcount == 0:
                raise UnknownNameError(f"unknown source {source_id!r}")

    def get_source(self, source_id: str) -> SourceRecord:
        """Return the source ``source_id``; raise UnknownNameError if not registered."""
        rows = self._read("SELECT * FROM sources WHERE id = ?", (source_id,))
        if not rows:
            raise UnknownNameError(f"unknown source {source_id!r}")
        return source_from_row(rows[0])

    def sources(self) -> list[SourceRecord]:
        """Return every registered source, ordered by id."""
        return [source_from_row(r) for r in self._read("SELECT * FROM sources ORDER BY id")]

    def authority(self, source_id: str, claim_type: str) -> float:
        """Return the authority of ``source_id`` for claims of ``claim_type`` (document 000 §10)."""
        return self.get_source(source_id).authority_for(claim_type)

    # --- claims --------------------------------------------------------------------------

    def add_claim(self, claim: Claim) -> Claim:
        """Store a new claim and return it.

        Raises:
            InvalidArgumentError: The id exists already, or the value is outside the domain.
            UnknownNameError: ``source_id`` names an unregistered source.
        """
        _check_domain(claim.id, claim.value, claim.domain)
        with self._tx() as conn:
            if claim.source_id is not None:
                self.get_source(claim.source_id)
            if self._read("SELECT 1 FROM claims WHERE id = ?", (claim.id,)):
                raise InvalidArgumentError(f"claim {claim.id!r} already exists")
            conn.execute(
                f"INSERT INTO claims ({CLAIM_COLUMNS}) VALUES ({', '.join('?' * 13)})",
                claim_params(claim),
            )
        return claim

    def add_claims(self, claims: list[Claim]) -> None:
        """Store many new claims in one transaction (all or none); see :meth:`add_claim`."""
        with self._tx():
            for claim in claims:
                self.add_claim(claim)

    def get_claim(self, claim_id: str) -> Claim:
        """Return the claim ``claim_id``; raise UnknownNameError if not stored."""
        rows = self._read(f"SELECT {CLAIM_COLUMNS} FROM claims WHERE id = ?", (claim_id,))
        if not rows:
            raise UnknownNameError(f"unknown claim {claim_id!r}")
        return claim_from_row(rows[0])

    def claims(
        self,
        *,
        subject: str | None = None,
        claim_type: str | None = None,
        dirty: bool | None = None,
    ) -> list[Claim]:
        """Return stored claims, optionally filtered, ordered by id."""
        where: list[str] = []
        params: list[object] = []
        for column, value in (("subject", subject), ("claim_type", claim_type)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        if dirty is not None:
            where.append("dirty = ?")
            params.append(int(dirty))
        clause = f" WHERE {' AND '.join(where)}" if where else ""
        rows = self._read(f"SELECT {CLAIM_COLUMNS} FROM claims{clause} ORDER BY id", params)
        return [claim_from_row(r) for r in rows]

    def update_claim(
        self,
        claim_id: str,
        *,
        value: ClaimValue,
        observed_at: float,
        confidence: float | None = None,
        origin: str | None = None,
        source_id: str | None = None,
        reason: str = "value updated",
    ) -> set[str]:
        """Give ``claim_id`` a new value (it becomes clean); dirty its dependents if it changed.

        Returns:
            The dependents marked dirty (empty when the value is unchanged).

        Raises:
            UnknownNameError: Unknown claim or source.
            InvalidArgumentError: Value outside the domain, confidence outside [0, 1].
        """
        if confidence is not None and not 0.0 <= confidence <= 1.0:
            raise InvalidArgumentError(f"confidence must be in [0, 1], got {confidence}")
        if not math.isfinite(observed_at):
            raise InvalidArgumentError(f"observed_at must be finite, got {observed_at}")
        with self._tx() as conn:
            old = self.get_claim(claim_id)
            _check_domain(claim_id, value, old.domain)
            if source_id is not None:
                self.get_source(source_id)
            conn.execute(
                "UPDATE claims SET value = ?, observed_at = ?, confidence = ?, origin = ?,"
                " source_id = ?, dirty = 0, dirty_reason = NULL, dirty_cause = NULL WHERE id = ?",
                (
                    encode_value(value),
                    observed_at,
                    old.confidence if confidence is None else confidence,
                    old.origin if origin is None else origin,
                    old.source_id if source_id is None else source_id,
                    claim_id,
                ),
            )
            if encode_value(value) == encode_value(old.value):
                return set()
            return self.mark_changed(claim_id, reason)

    def delete_claim(self, claim_id: str) -> None:
        """Delete ``claim_id`` with its evidence and justifications."""
        with self._tx() as conn:
            self._require_claim(claim_id)
            conn.execute("DELETE FROM claims WHERE id = ?", (claim_id,))

    # --- evidence ------------------------------------------------------------------------

    def add_evidence(self, evidence: Evidence, *, adopt: bool = False) -> EvidenceResult:
        """Record a source's report about a claim and propagate what it changes.

        Args:
            evidence: The report.
            adopt: Take the reported value into the claim (confidence = the source's authority
                for the claim type, origin ``evidence:<source>``). Otherwise a disagreeing
                report marks the claim itself dirty as well.

        Raises:
            UnknownNameError: Unknown claim or source.
            InvalidArgumentError: Reported value outside the claim's domain.
        """
        with self._tx() as conn:
            claim = self.get_claim(evidence.claim_id)
            source = self.get_source(evidence.source_id)
            _check_domain(claim.id, evidence.value, claim.domain)
            cursor = conn.execute(
                "INSERT INTO evidence (claim_id, source_id, value, observed_at)"
                " VALUES (?, ?, ?, ?)",
                (claim.id, source.id, encode_value(evidence.value), evidence.observed_at),
            )
            stored = evidence.model_copy(update={"id": cursor.lastrowid})
            changed = encode_value(evidence.value) != encode_value(claim.value)
            if source.trusted or adopt:
                self.record_observation(claim.subject, evidence.value, evidence.observed_at)
            reason = f"evidence from {source.id} reports {evidence.value!r}"
            dirtied: set[str] = set()
            if adopt:
                dirtied = self.update_claim(
                    claim.id,
                    value=evidence.value,
                    observed_at=evidence.observed_at,
                    confidence=source.authority_for(claim.claim_type),
                    origin=f"evidence:{source.id}",
                    source_id=source.id,
                    reason=reason,
                )
            elif changed:
                dirtied = self.mark_dirty(claim.id, reason)
        return EvidenceResult(evidence=stored, changed=changed, dirtied=frozenset(dirtied))

    def evidence(self, claim_id: str) -> list[Evidence]:
        """Return the evidence recorded for ``claim_id``, oldest first."""
        self._require_claim(claim_id)
        rows = self._read(
            "SELECT * FROM evidence WHERE claim_id = ? ORDER BY observed_at, id", (claim_id,)
        )
        return [evidence_from_row(r) for r in rows]
