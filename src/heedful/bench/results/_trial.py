"""What every kind's trial record shares: the trial it is (:class:`TrialKey`) and its score
against the exact oracle (:class:`ScoredTrial`), written once for the inspection record
(``TrialRecord``) and the switching and schedule records (:mod:`heedful.bench.results.kinds`).

Pydantic lays a model's fields out base first (the most basic base first), and a results file
writes them in that order: each record lists these bases so that the file's field order is the
trial's key, the kind's own head fields, then the score (see each record's bases).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["ScoredTrial", "TrialKey"]


class TrialKey(BaseModel):
    """Which trial a record is: one policy on one scenario (of a family) in one trial."""

    model_config = ConfigDict(extra="forbid")

    scenario_id: str
    family: str
    policy: str
    trial: int


class ScoredTrial(BaseModel):
    """A trial's value against the exact oracle (docs/metrics.md), the same for every kind."""

    model_config = ConfigDict(extra="forbid")

    value: float
    v_star: float
    u_random: float
    regret: float
    #: ``100·(V − U_random)/(V* − U_random)``, never clipped; ``None`` when uninformative.
    score: float | None
    uninformative: bool
    optimal: bool
