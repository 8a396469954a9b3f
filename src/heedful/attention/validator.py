"""Claim validator: typed evidence preconditions per claim type (document 000 §19, §6.1).

Enforcement, not attention. In *attention-only* mode a violation is logged and the claim goes
through; in *production* mode the claim is blocked and the read it needs is demanded. Reads the
validator forces are marked ``forced`` and never counted as spontaneous attention.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from heedful.attention.context import SourceInfo
from heedful.model.base import as_utc

__all__ = [
    "DEFAULT_CLAIM_POLICIES",
    "ClaimPolicy",
    "ClaimValidator",
    "EvidenceRecord",
    "Requirement",
    "ValidatorMode",
    "Verdict",
]


class Requirement(StrEnum):
    """Evidence preconditions (document 000 §19, ``CLAIM_POLICY``)."""

    FRESH_AUTHORITATIVE = "fresh_authoritative_evidence"
    SOURCE_CHECKED_OR_UNAVAILABLE = "source_checked_or_unavailable"


class ValidatorMode(StrEnum):
    """Attention-only logs; production blocks and forces the read (document 000 §6.1)."""

    ATTENTION_ONLY = "attention_only"
    PRODUCTION = "production"


@dataclass(frozen=True)
class ClaimPolicy:
    """Preconditions for one claim type.

    Attributes:
        requires: What evidence must exist.
        max_age_s: Oldest acceptable evidence for ``fresh_authoritative_evidence``.
        min_authority: Authority a source needs to count as authoritative for this claim type.
    """

    requires: tuple[Requirement, ...]
    max_age_s: float | None = None
    min_authority: float = 0.9


#: The two policies of document 000 §19.
DEFAULT_CLAIM_POLICIES: dict[str, ClaimPolicy] = {
    "live_system_state": ClaimPolicy(requires=(Requirement.FRESH_AUTHORITATIVE,), max_age_s=300.0),
    "absence_claim": ClaimPolicy(requires=(Requirement.SOURCE_CHECKED_OR_UNAVAILABLE,)),
}


@dataclass(frozen=True)
class EvidenceRecord:
    """A compact evidence pointer (document 000 §19): which inspection supports which claim.

    ``succeeded=False`` records a check that found the source unavailable.
    """

    id: str
    claim_id: str
    source_id: str
    observed_at: datetime
    value: str | None = None
    succeeded: bool = True
    forced: bool = False


@dataclass(frozen=True)
class Verdict:
    """Outcome of validating one claim.

    Attributes:
        claim_id: The claim.
        claim_type: Its type.
        ok: True when every precondition holds (or the type has no policy).
        blocked: True when the claim must not be made (production mode only).
        violations: The unmet requirements.
        required_sources: Sources whose read would satisfy the policy, best first.
        evidence_id: The evidence that satisfied the policy, when ok.
    """

    claim_id: str
    claim_type: str
    ok: bool
    blocked: bool
    violations: tuple[Requirement, ...] = ()
    required_sources: tuple[str, ...] = field(default_factory=tuple)
    evidence_id: str | None = None


class ClaimValidator:
    """Checks claims against their type's evidence preconditions.

    Args:
        policies: Claim type → policy (defaults: document 000 §19).
        mode: Attention-only or production.
    """

    def __init__(
        self,
        policies: Mapping[str, ClaimPolicy] | None = None,
        mode: ValidatorMode = ValidatorMode.ATTENTION_ONLY,
    ) -> None:
        self.policies = dict(DEFAULT_CLAIM_POLICIES if policies is None else policies)
        self.mode = ValidatorMode(mode)

    def check(
        self,
        claim_id: str,
        claim_type: str,
        evidence: Sequence[EvidenceRecord],
        sources: Mapping[str, SourceInfo],
        now: datetime,
    ) -> Verdict:
        """Validate a claim about to be made, given the evidence recorded for it."""
        policy = self.policies.get(claim_type)
        if policy is None:
            return Verdict(claim_id, claim_type, ok=True, blocked=False)
        authoritative = [
            s
            for s in sources.values()
            if claim_id in s.reports and s.authority_for(claim_type) >= policy.min_authority
        ]
        authoritative.sort(key=lambda s: -s.authority_for(claim_type))
        auth_ids = {s.id for s in authoritative}
        mine = [e for e in evidence if e.claim_id == claim_id]
        violations: list[Requirement] = []
        satisfied_by: str | None = None
        for req in policy.requires:
            if req is Requirement.FRESH_AUTHORITATIVE:
                good = [
                    e
                    for e in mine
                    if e.succeeded
                    and e.source_id in auth_ids
                    and (
                        policy.max_age_s is None
                        or (as_utc(now) - as_utc(e.observed_at)).total_seconds() <= policy.max_age_s
                    )
                ]
            else:
                # Checked (successfully or found unavailable) at an authoritative source.
                good = [e for e in mine if e.source_id in auth_ids]
            if good:
                satisfied_by = max(good, key=lambda e: as_utc(e.observed_at)).id
            else:
                violations.append(req)
        ok = not violations
        return Verdict(
            claim_id,
            claim_type,
            ok=ok,
            blocked=not ok and self.mode is ValidatorMode.PRODUCTION,
            violations=tuple(violations),
            required_sources=tuple(s.id for s in authoritative) if not ok else (),
            evidence_id=satisfied_by if ok else None,
        )
