"""Numbers of the benchmark, in one typed object (document 000 §14, §17, §22, §23; SPEC §3, §5)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class BenchConfig(BaseModel):
    """Thresholds, statistics settings and defaults of the runner and the reports.

    Attributes:
        uninformative_gap: A trial with ``V* − U_random`` below this is "uninformative": counted
            but excluded from mean scores (SPEC §3).
        optimal_tolerance: ``V(S)`` within this of ``V*`` counts as an optimal selection (SPEC §3:
            optimal sets are those within 1e-9).
        bootstrap_resamples: Resamples of the percentile bootstrap (document 000 §23).
        ci_level: Confidence level of every interval (bootstrap and Wilson).
        default_trials: Trials per scenario and policy of ``heedful bench run``.
        default_count: Scenarios generated per family when no file is given.
        suite_families: Families of the default suite of ``heedful run``.
        suite_count: Scenarios per family of the default suite.
        suite_trials: Trials per scenario and policy of the default suite.
    """

    model_config = ConfigDict(frozen=True)

    uninformative_gap: float = Field(default=1e-9, gt=0.0)
    optimal_tolerance: float = Field(default=1e-9, ge=0.0)
    bootstrap_resamples: int = Field(default=2000, ge=100)
    ci_level: float = Field(default=0.95, gt=0.0, lt=1.0)
    default_trials: int = Field(default=5, ge=1)
    default_count: int = Field(default=20, ge=1)
    suite_families: tuple[str, ...] = ("G", "B")
    suite_count: int = Field(default=150, ge=1)
    suite_trials: int = Field(default=4, ge=1)


DEFAULT_CONFIG = BenchConfig()
