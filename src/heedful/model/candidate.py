"""Attention candidates, trace events and failure codes (document 000 §8, §12, Appendix A–B).

A :class:`Candidate` is one computation the controller may spend effort on next. It carries
enough *metadata* to estimate its value without a free-text rationale (document 000 §8). Its
``content`` is untrusted text kept for the agent's benefit only: nothing in heedful parses it
for priority (document 000 §24, "content/metadata separation").
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from heedful.model.base import FrozenModel
from heedful.model.scenario import Cost, Volatility

__all__ = [
    "Candidate",
    "CandidateKind",
    "EventType",
    "FailureCode",
    "Floor",
    "Resolution",
    "TraceEvent",
    "Trigger",
]


class CandidateKind(StrEnum):
    """What kind of computation a candidate is (document 000 §1, §8)."""

    INSPECT_SOURCE = "inspect_source"
    RETRIEVE_MEMORY = "retrieve_memory"
    CHECK_BELIEF = "check_belief"
    DIAGNOSE_FAILURE = "diagnose_failure"
    HANDLE_INTERRUPTION = "handle_interruption"
    CONTINUE_TASK = "continue_task"


class Trigger(StrEnum):
    """Why a candidate exists: the generator family of document 000 §7."""

    STALE_BELIEF = "stale_belief"
    DIRTY_BELIEF = "dirty_belief"
    GOAL_DEPENDENCY = "goal_dependency"
    STATE_SENSITIVE_CLAIM = "state_sensitive_claim"
    CONTRADICTION = "contradiction"
    FAILED_ACTION = "failed_action"
    DEADLINE = "deadline"
    INTERRUPTION = "interruption"
    EXPLORATION = "exploration"
    VALIDATOR = "validator"


class Floor(StrEnum):
    """Governance preconditions that bypass ordinary ranking (document 000 §11.2).

    Declared order is precedence: earlier members outrank later ones.
    """

    SAFETY_CRITICAL = "safety_critical"
    MANDATORY_PROOF = "mandatory_proof"
    IRREVERSIBLE_STALE = "irreversible_stale"
    DESTRUCTIVE_OPERATION = "destructive_operation"
    COMPLIANCE = "compliance"

    @property
    def rank(self) -> int:
        """Precedence of the floor: 0 is the strongest."""
        return list(Floor).index(self)


class Candidate(BaseModel):
    """One computation the controller may select (document 000 §8).

    Attributes:
        id: Unique id (``attn-…``).
        kind: What computation it is.
        target: What it acts on: a source id for inspections, a goal or event id otherwise.
        trigger: Which generator family produced it.
        origin: Name of the generator (or ``external:<source>`` for submitted candidates).
        submitted_by: Source id that submitted it, when it came from outside the controller.
        goal_ids: Active goals it serves.
        claim_ids: Claims (beliefs) it may change.
        goal_relevance: Trusted goal-dependency weight in 0..1.
        p_stale: Estimated probability the current evidence is no longer current.
        p_wrong: Estimated probability the current belief is wrong.
        p_change: Estimated probability the computation changes the decision.
        loss_if_wrong: Utility lost when acting on a wrong belief.
        authority: Authority of the target source for these claims (from the registry).
        evidence_age_s: Age of the evidence behind the claims, in seconds.
        volatility: Volatility class of the underlying state.
        deadline_s: Seconds until the related deadline, if any.
        cost: Inspection cost.
        switch_cost: Estimated cost of switching focus to it (utility units).
        predicted_voc: Net value predicted at selection time (set by the controller only).
        floor: Governance floor that lets it bypass ranking (set by trusted generators only).
        forced: True when the claim validator demanded it (never counted as spontaneous).
        content: Untrusted text for the agent; never parsed for priority.
        created_at: Creation time.
        expires_at: When it stops being eligible.
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    id: str = Field(min_length=1)
    kind: CandidateKind = CandidateKind.INSPECT_SOURCE
    target: str = Field(min_length=1)
    trigger: Trigger
    origin: str = Field(min_length=1)
    submitted_by: str | None = None
    goal_ids: tuple[str, ...] = ()
    claim_ids: tuple[str, ...] = ()
    goal_relevance: float = Field(default=1.0, ge=0.0, le=1.0)
    p_stale: float | None = Field(default=None, ge=0.0, le=1.0)
    p_wrong: float | None = Field(default=None, ge=0.0, le=1.0)
    p_change: float | None = Field(default=None, ge=0.0, le=1.0)
    loss_if_wrong: float = Field(default=0.0, ge=0.0)
    authority: float = Field(default=0.5, ge=0.0, le=1.0)
    evidence_age_s: float = Field(default=0.0, ge=0.0)
    volatility: Volatility = Volatility.MEDIUM
    deadline_s: float | None = None
    cost: Cost = Field(default_factory=Cost)
    switch_cost: float = Field(default=0.0, ge=0.0)
    predicted_voc: float | None = None
    floor: Floor | None = None
    forced: bool = False
    content: str = ""
    created_at: datetime | None = None
    expires_at: datetime | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        """Deduplication key: one live candidate per (kind, target, trigger)."""
        return (self.kind.value, self.target, self.trigger.value)


class EventType(StrEnum):
    """Attention trace event types: document 000 Appendix A, then three extensions (§12, §24)."""

    CANDIDATE_CREATED = "candidate_created"
    CANDIDATE_UPDATED = "candidate_updated"
    CANDIDATE_EXPIRED = "candidate_expired"
    CANDIDATE_SELECTED = "candidate_selected"
    CANDIDATE_SKIPPED = "candidate_skipped"
    INSPECTION_STARTED = "inspection_started"
    INSPECTION_SUCCEEDED = "inspection_succeeded"
    INSPECTION_FAILED = "inspection_failed"
    BELIEF_CHANGED = "belief_changed"
    BELIEF_UNCHANGED = "belief_unchanged"
    DECISION_CHANGED = "decision_changed"
    DECISION_UNCHANGED = "decision_unchanged"
    SWITCH_REQUESTED = "switch_requested"
    SWITCH_ACCEPTED = "switch_accepted"
    SWITCH_REJECTED = "switch_rejected"
    ATTENTION_BUDGET_EXHAUSTED = "attention_budget_exhausted"
    ATTENTION_TERMINATED_NEGATIVE_VOC = "attention_terminated_negative_voc"
    VALIDATOR_VIOLATION = "validator_violation"
    VALIDATOR_RESCUE = "validator_rescue"
    # Beyond Appendix A: the §12 "after outcome" record, a stop with nothing to consider (not a
    # negative-VOC verdict), and the §24 anomaly alert.
    RESOLVED = "resolved"
    ATTENTION_TERMINATED_NO_CANDIDATES = "attention_terminated_no_candidates"
    ANOMALY_RAISED = "anomaly_raised"


class FailureCode(StrEnum):
    """Failure codes of a benchmark trial or a controller run (document 000 Appendix B)."""

    ATTN_CANDIDATE_MISSING = "ATTN_CANDIDATE_MISSING"
    ATTN_SELECTION_WRONG = "ATTN_SELECTION_WRONG"
    ATTN_SWITCH_WRONG = "ATTN_SWITCH_WRONG"
    ATTN_STARVATION = "ATTN_STARVATION"
    ATTN_OVERINSPECTION = "ATTN_OVERINSPECTION"
    ATTN_UNDERINSPECTION = "ATTN_UNDERINSPECTION"
    ATTN_SALIENCE_CAPTURE = "ATTN_SALIENCE_CAPTURE"
    ATTN_SUMMARY_SUBSTITUTION = "ATTN_SUMMARY_SUBSTITUTION"
    ATTN_STALE_STATE = "ATTN_STALE_STATE"
    ATTN_SOURCE_AUTHORITY_NEGLECT = "ATTN_SOURCE_AUTHORITY_NEGLECT"
    RETRIEVAL_FAILED = "RETRIEVAL_FAILED"
    EVIDENCE_IGNORED = "EVIDENCE_IGNORED"
    REASONING_FAILED = "REASONING_FAILED"
    VALIDATOR_RESCUED = "VALIDATOR_RESCUED"


class Resolution(FrozenModel):
    """What happened when a selected candidate was executed (document 000 §12, "after outcome")."""

    inspection_succeeded: bool
    belief_changed: bool | None = None
    decision_changed: bool | None = None
    utility_delta: float | None = None
    actual_cost: Cost | None = None


class TraceEvent(FrozenModel):
    """One line of the attention trace (document 000 §12). Written before outcomes where possible.

    Attributes:
        event: Appendix A event type.
        turn_id: The turn it belongs to.
        seq: Position in the trace (monotonic).
        timestamp: When it was written.
        candidate_id: The candidate concerned, if any.
        predicted_voc: Predicted net value at the time of the event.
        rank: Rank among eligible candidates (1 = best).
        budget_before: Remaining budget before the event.
        reason_code: Machine-readable reason (e.g. ``highest_net_voc``, ``floor:mandatory_proof``).
        forced: True for validator-forced reads.
        resolution: Outcome fields, for resolution events.
        detail: Small structured extras (never prose rationales).
    """

    event: EventType
    turn_id: str
    seq: int = Field(ge=0)
    timestamp: datetime
    candidate_id: str | None = None
    predicted_voc: float | None = None
    rank: int | None = None
    budget_before: float | None = None
    reason_code: str | None = None
    forced: bool = False
    resolution: Resolution | None = None
    detail: dict[str, str | float | int | bool | None] = Field(default_factory=dict)
