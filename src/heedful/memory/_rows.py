"""Row ↔ model conversion for claims, evidence and sources."""

from __future__ import annotations

import sqlite3
from typing import Any

from heedful.memory._base import dumps, loads
from heedful.model.claim import Claim, ClaimValue, Evidence, SourceRecord
from heedful.model.scenario import Volatility

CLAIM_COLUMNS = (
    "id, subject, value, domain, claim_type, volatility, origin, source_id, confidence, "
    "observed_at, dirty, dirty_reason, dirty_cause"
)


def encode_value(value: ClaimValue) -> str:
    """Canonical JSON of a claim value (equal values give equal text)."""
    return dumps(value, "claim value")


def claim_params(claim: Claim) -> tuple[Any, ...]:
    """Parameters for an INSERT in :data:`CLAIM_COLUMNS` order."""
    return (
        claim.id,
        claim.subject,
        encode_value(claim.value),
        None if claim.domain is None else dumps(list(claim.domain), "claim domain"),
        claim.claim_type,
        claim.volatility.value,
        claim.origin,
        claim.source_id,
        claim.confidence,
        claim.observed_at,
        int(claim.dirty),
        claim.dirty_reason,
        claim.dirty_cause,
    )


def claim_from_row(row: sqlite3.Row) -> Claim:
    """Build a :class:`Claim` from a row selected with :data:`CLAIM_COLUMNS`."""
    domain = None if row["domain"] is None else tuple(loads(row["domain"]))
    return Claim(
        id=row["id"],
        subject=row["subject"],
        value=loads(row["value"]),
        domain=domain,
        claim_type=row["claim_type"],
        volatility=Volatility(row["volatility"]),
        origin=row["origin"],
        source_id=row["source_id"],
        confidence=row["confidence"],
        observed_at=row["observed_at"],
        dirty=bool(row["dirty"]),
        dirty_reason=row["dirty_reason"],
        dirty_cause=row["dirty_cause"],
    )


def evidence_from_row(row: sqlite3.Row) -> Evidence:
    """Build an :class:`Evidence` from an ``evidence`` row."""
    return Evidence(
        id=row["id"],
        claim_id=row["claim_id"],
        source_id=row["source_id"],
        value=loads(row["value"]),
        observed_at=row["observed_at"],
    )


def source_from_row(row: sqlite3.Row) -> SourceRecord:
    """Build a :class:`SourceRecord` from a ``sources`` row."""
    return SourceRecord(
        id=row["id"],
        kind=row["kind"],
        authority=loads(row["authority"]),
        default_authority=row["default_authority"],
        trusted=bool(row["trusted"]),
        cost=row["cost"],
        cost_detail=None if row["cost_detail"] is None else loads(row["cost_detail"]),
        reports=tuple(loads(row["reports"])),
        age_s=row["age_s"],
        measured_cost=None if row["measured_cost"] is None else loads(row["measured_cost"]),
        failure_rate=row["failure_rate"],
        links=row["links"],
        reads=row["reads"],
        failed_reads=row["failed_reads"],
    )
