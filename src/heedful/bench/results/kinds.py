"""Result records of the switching and schedule kinds (docs/metrics.md, "Families D and J").

Their trials sit beside the inspection trials (one list per kind, so a run that mixes kinds keeps
each kind's metrics typed); their aggregate rows and paired rows are in ``aggregates.rows`` and
``aggregates.paired`` with every other family's, told apart by ``kind``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from heedful.bench.results._trial import ScoredTrial, TrialKey
from heedful.bench.stats import MeanCI, PairedDiff, Proportion

__all__ = ["KindPairedRow", "KindResults", "KindRow", "ScheduleTrial", "SwitchingTrial"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Trial(ScoredTrial, TrialKey):
    # Bases in this order keep the file's field order: the key, then the score (see ._trial).
    violations: int = 0
    failure: str | None = None


class SwitchingTrial(_Trial):
    """One policy on one switching scenario in one trial.

    Attributes:
        decisions: Interruption id → stay / queue / preempt.
        switch_accuracy: Share of answers agreeing with the closest optimal answer vector.
        switches: Switches away from the unfinished task.
        thrashes: Switches whose value did not cover their cost (stay or queue would have
            earned at least as much, every other answer unchanged).
        completed: The task was finished within the horizon.
    """

    kind: Literal["switching"] = "switching"
    decisions: dict[str, str]
    switch_accuracy: float | None
    switches: int
    thrashes: int
    completed: bool


class ScheduleTrial(_Trial):
    """One policy on one schedule scenario in one trial.

    Attributes:
        assignment: Obligation id (or ``None``) per slot, as executed.
        worth_serving: Obligations whose omission makes the best schedule strictly worse.
        starved: Of those, how many got no slot at all.
        starvation_rate: ``starved / worth_serving`` (``None`` when none is worth serving).
        missed: Timescale → obligations worth serving not finished by their deadline.
        horizon_bias: Mean horizon index of the slots worked (minutes 0, hours 1, week 2) minus
            the oracle's; negative = myopic, positive = far-sighted.
    """

    kind: Literal["schedule"] = "schedule"
    assignment: list[str | None]
    worth_serving: int
    starved: int
    starvation_rate: float | None
    missed: dict[str, int]
    horizon_bias: float | None


class KindRow(_Model):
    """Aggregates of one policy on one family of a switching or schedule kind."""

    kind: Literal["switching", "schedule"]
    family: str
    policy: str
    n_trials: int
    n_informative: int
    score: MeanCI | None
    regret: MeanCI
    optimal: Proportion
    violations: int
    failures: dict[str, int]
    switch_accuracy: MeanCI | None = None
    thrashes: MeanCI | None = None
    completion: Proportion | None = None
    starvation_rate: MeanCI | None = None
    horizon_bias: MeanCI | None = None
    missed: dict[str, float] = Field(default_factory=dict)


class KindPairedRow(_Model):
    """Policy ``a`` against policy ``b`` on matched (scenario, trial) pairs of one family."""

    kind: Literal["switching", "schedule"]
    family: str
    policy_a: str
    policy_b: str
    score: PairedDiff | None
    regret: PairedDiff | None


class KindResults(_Model):
    """Every trial of the switching and schedule kinds of one run (their rows are aggregates')."""

    switching: list[SwitchingTrial] = Field(default_factory=list)
    schedule: list[ScheduleTrial] = Field(default_factory=list)
