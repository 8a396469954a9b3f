"""The agent part of ``results.json``: failure split, modes, rescue, lift and usage per agent.

Defined apart from :mod:`heedful.bench.results` (which holds them under
``aggregates.agents``) so the agent aggregates stay one module; see docs/llm.md and
docs/metrics.md for every definition.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from heedful.bench.stats import MeanCI, PairedDiff, Proportion

__all__ = ["AgentAggregates", "LiftRow", "ModeRow", "RescueRow", "UsageRow"]

#: The buckets of the failure split: the stages in order (document 000 §13), ``endpoint`` (the
#: model never answered: the endpoint failed past every retry, so no stage can be judged), pass.
STAGES = ("initiation", "selection", "retrieval", "evidence", "reasoning", "endpoint", "pass")


#: Suffix of an agent's production-mode trials in the results (``llm@production``).
PRODUCTION_SUFFIX = "@production"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ModeRow(_Model):
    """One policy on one family label in one validator mode.

    ``split`` counts trials by their first failing stage (``pass``: none failed); ``decided``
    counts the trials that ended in an accepted ``decide`` (the rest have no action).
    """

    family: str
    policy: str
    mode: str
    n_trials: int
    score: MeanCI | None
    action_correct: Proportion
    net_utility: MeanCI
    protocol_errors: int
    decided: int = 0
    forced_reads: int
    split: dict[str, int]


class RescueRow(_Model):
    """Attention-only vs production on the same (scenario, trial, world) (document 000 §17.3).

    ``rescue`` is ``P(production correct ∧ attention-only wrong)`` over the pairs.
    """

    family: str
    policy: str
    n_pairs: int
    rescue: Proportion
    attention_correct: Proportion
    production_correct: Proportion
    net_utility: PairedDiff | None = Field(description="production − attention")


class LiftRow(_Model):
    """The lift the controller gives a model: ``advised − base`` on matched trials."""

    family: str
    mode: str
    base: str
    advised: str
    n_pairs: int
    score: PairedDiff | None
    action_correct: PairedDiff | None
    authoritative_rate: PairedDiff | None


class UsageRow(_Model):
    """What one agent spent over the run."""

    policy: str
    trials: int
    calls: int
    cached_calls: int
    prompt_tokens: int
    completion_tokens: int
    errors: int
    mean_latency_s: float | None
    flagged: int


class AgentAggregates(_Model):
    """Every agent aggregate of a run."""

    modes: list[ModeRow] = Field(default_factory=list)
    rescue: list[RescueRow] = Field(default_factory=list)
    lift: list[LiftRow] = Field(default_factory=list)
    usage: list[UsageRow] = Field(default_factory=list)
