"""Strict argument models of the MCP tools; their JSON Schemas are the tools' input schemas.

Strict means: JSON types are not coerced (``1`` is not a boolean, ``"3"`` is not an integer) and
unknown argument names are refused. Ids, timestamps and sizes follow the one input policy of
:mod:`heedful.model.inputs` (the same rules as seed files, scenario files and the library's
records). Simple ranges are in the schemas; checks that need state
(an unknown id, a value outside its domain) are the library's, whose error reaches the agent.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    WithJsonSchema,
)

from heedful.attention.config import GuardConfig
from heedful.model.inputs import (
    MAX_ENTRIES,
    MAX_TEXT_CHARS,
    MAX_TITLE_CHARS,
    MAX_VALUE_CHARS,
    AwareTime,
    Id,
)

__all__ = [
    "CheckClaimArgs",
    "CostArgs",
    "EngineStatusArgs",
    "HealthArgs",
    "RankArgs",
    "RecordBeliefArgs",
    "RegisterSourceArgs",
    "ResolveArgs",
    "ReviewProposalArgs",
    "RunCycleArgs",
    "SetGoalArgs",
    "SourcesArgs",
    "SurveyArgs",
    "ToolArgs",
]

#: The trust discount the server's controller applies (its default configuration).
_GUARD = GuardConfig()

#: Most ranked candidates one ``attention_rank`` call lists.
MAX_RANK_LIMIT = 100


def _number_as_text(value: Any) -> Any:
    """Models and clients send numeric values (a version ``4.1``): read them as their JSON text.

    Booleans and non-finite numbers are left as they are, so they are refused: ``true`` is not
    the value ``"True"``.
    """
    if isinstance(value, bool) or (isinstance(value, float) and not math.isfinite(value)):
        return value  # refused by the strict string check
    if isinstance(value, int | float):
        return repr(value) if isinstance(value, float) else str(value)
    return value


Value = Annotated[
    str,
    StringConstraints(max_length=MAX_VALUE_CHARS),
    BeforeValidator(_number_as_text),
    WithJsonSchema({"type": ["string", "number"], "maxLength": MAX_VALUE_CHARS}),
]
NonNegative = Annotated[float, Field(ge=0.0)]
Unit = Annotated[float, Field(ge=0.0, le=1.0)]


class ToolArgs(BaseModel):
    """Base of every tool's arguments: strict JSON types, finite numbers, no unknown names."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)


class HealthArgs(ToolArgs):
    """Arguments of ``attention_health`` (document 000 §5.3, §25)."""

    window_turns: int | None = Field(
        default=None,
        ge=1,
        le=1_000_000,
        description="Most recent turns of the trace to read (null: the configured 100).",
    )


class EngineStatusArgs(ToolArgs):
    """Arguments of ``attention_engine_status``."""

    recent: int = Field(
        default=10,
        ge=1,
        le=200,
        description="How many of the latest notices and journal entries to return.",
    )


class SurveyArgs(ToolArgs):
    """Arguments of ``attention_survey`` (document 002 §3.3)."""

    include_idle: bool = Field(
        default=False,
        description="Include items that don't need attention (dispatch_mode: idle).",
    )


class RunCycleArgs(ToolArgs):
    """Arguments of ``attention_run_cycle`` (document 002 §3.4)."""

    autonomy_override: Literal["observe", "advise", "act"] | None = Field(
        default=None,
        description=(
            "Override the configured autonomy level for this cycle only. Must not exceed the "
            "operator's ceiling (observe unless the operator raised it); null keeps the "
            "configured level."
        ),
    )


class ReviewProposalArgs(ToolArgs):
    """Arguments of ``attention_review_proposal``."""

    proposal_id: Id = Field(description="The proposal ('p-...', from attention_engine_status).")
    decision: Literal["approve", "reject"] = Field(
        description="approve: run it now at act level (needs the act ceiling); reject: drop it."
    )
    reason: str = Field(default="", max_length=2000, description="Why, kept in the journal.")


class CostArgs(ToolArgs):
    """A computation's cost (SPEC §2: scalar = tool_calls + tokens/1000 + latency_ms/1000)."""

    tokens: NonNegative = 0.0
    tool_calls: NonNegative = 0.0
    latency_ms: NonNegative = 0.0


class RankArgs(ToolArgs):
    """Arguments of ``attention_rank`` (document 000 §6, §11)."""

    budget: int | None = Field(
        default=None,
        ge=0,
        le=1_000_000,
        description="Hard cap on computations this turn; null: stop only when nothing is worth it.",
    )
    about_to_claim: list[Id] = Field(
        default_factory=list,
        max_length=100,
        description="Claims the agent is about to assert or act on (checks them if stale).",
    )
    cost_weight: NonNegative | None = Field(
        default=None,
        description="Utility units per unit of scalar cost for this turn; null: the default.",
    )
    limit: int = Field(
        default=10, ge=1, le=MAX_RANK_LIMIT, description="How many ranked candidates to list."
    )


class ResolveArgs(ToolArgs):
    """Arguments of ``attention_resolve`` (document 000 §12)."""

    candidate_id: Id = Field(description="The id of the selected candidate ('next.candidate.id').")
    succeeded: bool = Field(default=True, description="Whether the computation returned anything.")
    observations: dict[Id, Value | None] = Field(
        default_factory=dict,
        max_length=MAX_ENTRIES,
        description="Claim id → observed value (inspections only; null: nothing observed).",
    )
    actual_cost: CostArgs | None = Field(default=None, description="What it really cost.")
    decision_changed: bool | None = Field(
        default=None, description="Whether the decision changed; null: computed when known."
    )
    utility_delta: float | None = Field(
        default=None, description="Realised utility change, when known."
    )


class CheckClaimArgs(ToolArgs):
    """Arguments of ``attention_check_claim`` (document 000 §19)."""

    claim_id: Id = Field(description="The claim about to be made.")
    claim_type: Id | None = Field(
        default=None,
        description="Its type (e.g. live_system_state); null: the type recorded with the belief.",
    )


class RegisterSourceArgs(ToolArgs):
    """Arguments of ``attention_register_source`` (document 000 §10, §24)."""

    source_id: Id
    reports: list[Id] = Field(
        default_factory=list, max_length=1000, description="Claims this source informs."
    )
    authority: Unit = Field(
        default=0.5, description="Authority in [0, 1] for claim types not listed below."
    )
    authority_by_claim_type: dict[Id, Unit] = Field(
        default_factory=dict,
        max_length=MAX_ENTRIES,
        description="Claim type → authority in [0, 1] (document 000 §10).",
    )
    cost: CostArgs = Field(default_factory=CostArgs, description="Cost of one inspection.")
    age_s: NonNegative = Field(default=0.0, description="Age of the data it holds, in seconds.")
    kind: Id = Field(default="document", description="Free label, e.g. live_instrument.")
    failure_rate: float = Field(
        default=0.0,
        ge=0.0,
        lt=1.0,
        description=(
            "Stated probability in [0, 1) that a read of it returns nothing (a flaky "
            "instrument); a backup read is valued by it. attention_resolve with succeeded=false "
            "or true moves it, and it is kept in the store."
        ),
    )
    links: int = Field(
        default=0,
        ge=0,
        le=1_000_000,
        description=(
            "How many further sources one read of it names that are not registered yet (an "
            "index, a catalogue, a cache that names what it was built from): with a stated "
            "decision such a read is ranked by what a source it reveals may be worth, even when "
            "it reports nothing itself. Register each source a read names."
        ),
    )
    trusted: bool = Field(
        default=False,
        description=(
            "Whether its authority and cost are facts (true: an instrument the user runs and "
            "vouches for) or only claims (false, the default, as in the library: the caller is "
            "an agent, which may have read injected content — a web page or another agent can "
            "name a source and claim anything for it). An untrusted "
            "source's authority is capped at "
            f"{_GUARD.untrusted_authority_cap:g} and its scalar cost floored at "
            f"{_GUARD.untrusted_min_cost:g} in what is read and when; it earns authority above "
            "the cap only by agreeing with trusted sources' reports on the same claims, and "
            "falls below it when they contradict it. A cost attention_resolve reports for "
            "reading it replaces its claimed cost."
        ),
    )


class SourcesArgs(ToolArgs):
    """Arguments of ``attention_sources`` (document 000 §10, §24)."""

    source_ids: list[Id] = Field(
        default_factory=list,
        max_length=1000,
        description="The sources to show (each must be registered); empty: every source.",
    )
    limit: int = Field(default=100, ge=1, le=1000, description="How many sources to list (by id).")


class RecordBeliefArgs(ToolArgs):
    """Arguments of ``attention_record_belief`` (document 000 §8, §9)."""

    claim_id: Id
    value: Value | None = Field(
        description="The believed value (a number is read as its JSON text); null: only the domain."
    )
    domain: list[Value] | None = Field(
        default=None, min_length=1, max_length=1000, description="Possible values."
    )
    claim_type: Id | None = Field(default=None, description="Type for authority and policies.")
    confidence: Unit = Field(default=1.0, description="Confidence in the value when observed.")
    age_s: NonNegative = Field(default=0.0, description="Age of the evidence, in seconds.")
    volatility: Literal["immutable", "low", "medium", "high", "very_high"] = Field(
        default="medium", description="How fast the underlying state changes."
    )
    source_id: Id | None = Field(default=None, description="The registered source it came from.")


class DependencyArgs(ToolArgs):
    """A claim a goal's decision depends on, and how much (0..1)."""

    claim_id: Id
    weight: Unit = 1.0


class SetGoalArgs(ToolArgs):
    """Arguments of ``attention_set_goal`` (SPEC §6: GoalGraph fields; document 000 §7)."""

    goal_id: Id
    title: Annotated[str, Field(min_length=1, max_length=MAX_TITLE_CHARS)] = Field(
        description="Short statement; the engine finds the goal's knowledge region by it."
    )
    description: str = Field(default="", max_length=MAX_TEXT_CHARS)
    status: Literal["proposed", "active", "blocked", "completed", "abandoned"] = "active"
    priority: Literal["low", "normal", "high", "critical"] = "normal"
    timescale: Literal["immediate", "short_term", "medium_term", "long_term"] = "medium_term"
    # JSON has no datetime type: an ISO 8601 string with a timezone is parsed here.
    due_at: AwareTime | None = Field(
        default=None, description="Deadline, ISO 8601 with a timezone (e.g. 2026-12-01T12:00:00Z)."
    )
    progress: Unit = Field(default=0.0, description="0..1; reaching 1 completes the goal.")
    depends_on: list[DependencyArgs] = Field(
        default_factory=list, max_length=1000, description="Claims the goal's decision rests on."
    )
    consequence: NonNegative = Field(
        default=1.0, description="Utility lost when acting on a wrong belief for this goal."
    )
