"""Claims, evidence, sources, justifications and outcomes: what the memory store remembers.

A *claim* (a belief) says that a subject — usually a scenario variable — has a value, with a
confidence, an origin and the time it was observed. *Evidence* is one source's report about a
claim. A *source* carries claim-type-specific authority (document 000 §10: authority is not a
global trust score). *Justifications* record why a claim is believed, so that a change upstream
marks dependent claims dirty (document 000 §4.6, Doyle's truth maintenance). *Outcomes* are the
results the engine learns from (document 002 §2.1, reflect phase).

Times are epoch seconds (``float``); a ``datetime`` is accepted and converted (naive datetimes are
taken as UTC).
"""

from __future__ import annotations

import math
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any

from pydantic import (
    BeforeValidator,
    Field,
    field_validator,
    model_validator,
)

from heedful.model.base import FrozenModel, as_utc
from heedful.model.inputs import Id
from heedful.model.scenario import Cost, Volatility

#: A claim value: any JSON scalar (scenario domains are strings, but numbers and flags are common).
ClaimValue = str | int | float | bool | None


def to_epoch(value: Any) -> Any:
    """Convert a ``datetime`` to epoch seconds (naive = UTC); leave anything else to pydantic."""
    if isinstance(value, datetime):
        return as_utc(value).timestamp()
    return value


def _finite(value: float) -> float:
    if not math.isfinite(value):
        raise ValueError("must be a finite number")
    return value


#: Epoch seconds; accepts a ``datetime``.
Timestamp = Annotated[float, BeforeValidator(to_epoch)]


class ClaimType:
    """Common claim types (free strings; these are the ones document 000 names).

    ``live_system_state`` claims need fresh authoritative evidence (document 000 §19);
    ``historical`` claims are effectively immutable; ``configuration`` claims change rarely.
    """

    LIVE_SYSTEM_STATE = "live_system_state"
    HISTORICAL = "historical"
    CONFIGURATION = "configuration"
    ABSENCE = "absence_claim"
    GENERAL = "general"


class Claim(FrozenModel):
    """A belief: ``subject`` has ``value``.

    Attributes:
        id: Unique id.
        subject: What the claim is about (a variable name).
        value: The believed value.
        domain: Allowed values, if the subject has a finite domain.
        claim_type: Kind of claim; selects source authority and validator policy.
        volatility: How fast the subject changes (freshness, document 000 §9).
        origin: Where the belief came from (``summary``, ``inspection``, ``inference`` ...).
        source_id: The registered source it came from, if any.
        confidence: Probability the value was right when observed (0..1).
        observed_at: When the value was observed (epoch seconds).
        dirty: Whether something it depends on changed since (truth maintenance).
        dirty_reason: Why it is dirty.
        dirty_cause: The claim whose change made it dirty (itself for a contradiction).
    """

    id: Id
    subject: str = Field(min_length=1)
    value: ClaimValue
    domain: tuple[ClaimValue, ...] | None = None
    claim_type: str = Field(default=ClaimType.GENERAL, min_length=1)
    volatility: Volatility = Volatility.MEDIUM
    origin: str = "unknown"
    source_id: Id | None = None
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    observed_at: Timestamp
    dirty: bool = False
    dirty_reason: str | None = None
    dirty_cause: str | None = None

    _check_time = field_validator("observed_at")(_finite)

    def age_s(self, now: float) -> float:
        """Return the age of the observation at ``now`` (never negative)."""
        return max(0.0, now - self.observed_at)


class Evidence(FrozenModel):
    """One source's report about a claim.

    Attributes:
        claim_id: The claim reported on.
        source_id: The registered source that reported.
        value: The reported value.
        observed_at: When the source observed it.
        id: Assigned by the store when recorded (``None`` before).
    """

    claim_id: Id
    source_id: Id
    value: ClaimValue
    observed_at: Timestamp
    id: int | None = None

    _check_time = field_validator("observed_at")(_finite)


class SourceRecord(FrozenModel):
    """A source and how far it is trusted, per claim type (document 000 §10).

    Attributes:
        id: Unique id.
        kind: Free label (``live_instrument``, ``cached_summary``, ``document`` ...).
        authority: Authority per claim type (0..1).
        default_authority: Authority for claim types not listed.
        trusted: Whether its metadata may set priority (document 000 §24); untrusted content
            can propose facts but never its own importance.
        cost: Scalar cost of one inspection (SPEC §2), ≥ 0; derived from ``cost_detail`` when
            only that is given.
        cost_detail: The cost split into tokens, tool calls and latency, when known.
        reports: The claims one inspection of it informs.
        age_s: How old its data is when read (seconds), ≥ 0.
        measured_cost: What a resolve reported reading it cost (``None``: not measured). An
            untrusted source is charged this instead of its claimed ``cost`` (document 000 §24).
        failure_rate: The stated probability that a read returns nothing, in [0, 1).
        links: How many further sources one read of it names (an index, a catalogue, a cache
            that says what it was built from), ≥ 0.
        reads: Resolved reads of it the controller recorded.
        failed_reads: Of those, the ones that returned nothing (with ``reads`` and
            ``failure_rate``: the failure rate the controller credits it with).
    """

    id: Id
    kind: str = "unknown"
    authority: dict[str, float] = Field(default_factory=dict)
    default_authority: float = Field(default=0.5, ge=0.0, le=1.0)
    trusted: bool = False
    cost: float = 0.0
    cost_detail: Cost | None = None
    reports: tuple[Id, ...] = ()
    age_s: float = Field(default=0.0, ge=0.0, allow_inf_nan=False)
    measured_cost: Cost | None = None
    failure_rate: float = Field(default=0.0, ge=0.0, lt=1.0)
    links: int = Field(default=0, ge=0)
    reads: int = Field(default=0, ge=0)
    failed_reads: int = Field(default=0, ge=0)

    @model_validator(mode="before")
    @classmethod
    def _cost_from_detail(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("cost_detail") is not None and "cost" not in data:
            detail = Cost.model_validate(data["cost_detail"])
            return {**data, "cost_detail": detail, "cost": detail.scalar()}
        return data

    @model_validator(mode="after")
    def _check_cost(self) -> SourceRecord:
        if self.cost_detail is not None and not math.isclose(
            self.cost, self.cost_detail.scalar(), rel_tol=1e-9, abs_tol=1e-12
        ):
            raise ValueError(
                f"cost {self.cost} does not match its split (scalar {self.cost_detail.scalar()})"
            )
        return self

    @field_validator("authority")
    @classmethod
    def _check_authority(cls, value: dict[str, float]) -> dict[str, float]:
        for claim_type, a in value.items():
            if not 0.0 <= a <= 1.0:
                raise ValueError(f"authority for {claim_type!r} must be in [0, 1], got {a}")
        return value

    def authority_for(self, claim_type: str) -> float:
        """Return this source's authority for claims of ``claim_type``."""
        return self.authority.get(claim_type, self.default_authority)


class JustificationKind(StrEnum):
    """How one claim relates to another (read ``subject kind object``)."""

    #: ``B derived_from A``: B was inferred from A; A changing dirties B.
    DERIVED_FROM = "derived_from"
    #: ``A supports B``: A is a reason to believe B; A changing dirties B.
    SUPPORTS = "supports"
    #: ``A contradicts B``: they cannot both hold; no dirty propagation, a contradiction signal.
    CONTRADICTS = "contradicts"


class Justification(FrozenModel):
    """An edge between two claims: ``subject kind object``.

    Attributes:
        subject: The claim the sentence is about.
        kind: The relation.
        object: The other claim.
        weight: Strength of the relation (0..1).
    """

    subject: str = Field(min_length=1)
    kind: JustificationKind
    object: str = Field(min_length=1)
    weight: float = Field(default=1.0, ge=0.0, le=1.0)

    def upstream_downstream(self) -> tuple[str, str] | None:
        """Return ``(upstream, downstream)`` — a change upstream dirties downstream — or None."""
        if self.kind is JustificationKind.DERIVED_FROM:
            return self.object, self.subject
        if self.kind is JustificationKind.SUPPORTS:
            return self.subject, self.object
        return None


class OutcomeStatus(StrEnum):
    """How an action or dispatch turned out (document 002 §2.1, reflect)."""

    SUCCESS = "success"
    FAILURE = "failure"
    PARTIAL = "partial"
    UNEXPECTED = "unexpected"
    #: The action did not finish in time (the engine's cycle timeout, document 002 §2.4).
    TIMEOUT = "timeout"


#: Outcome statuses that count as surprise (document 002 §2.1: "recent contradiction or
#: unexpected outcome").
SURPRISING = frozenset({OutcomeStatus.FAILURE, OutcomeStatus.TIMEOUT, OutcomeStatus.UNEXPECTED})


class Outcome(FrozenModel):
    """The recorded result of an action.

    Attributes:
        status: How it turned out.
        confidence: How sure the classification is (0..1).
        node_ids: The knowledge-graph nodes it bears on.
        goal_id: The goal it served, if any.
        at: When it happened (epoch seconds).
        description: Short text.
        id: Assigned by the store when recorded.
    """

    status: OutcomeStatus
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    node_ids: tuple[str, ...] = ()
    goal_id: str | None = None
    at: Timestamp
    description: str = ""
    id: int | None = None

    _check_time = field_validator("at")(_finite)
