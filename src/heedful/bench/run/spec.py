"""A benchmark run described by data: :class:`RunSpec`, what ``run_to_folder`` runs.

The CLI builds one from its flags, tests construct one, and the run writes it into the manifest
(``manifest.run_spec``), so a results file says exactly what produced it. What is not data — a
progress bar, the agents' endpoint, a backend object — is passed beside it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from heedful.bench.config import DEFAULT_CONFIG, BenchConfig
from heedful.bench.worlds.families import DEFAULT_SHIFT
from heedful.errors import InvalidArgumentError

__all__ = ["RunSpec", "run_spec"]


class RunSpec(BaseModel):
    """Everything a run is: scenarios, policies, trials, seed, condition, where it is written.

    Attributes:
        scenario_paths: Scenario files or folders; generated scenarios when empty.
        families: Comma-separated families to generate (or to keep from files).
        count: Scenarios per family when generating.
        policies: Comma-separated policy names, or ``all``.
        trials: Trials per scenario and policy.
        seed: Root seed.
        adaptive: Adaptive condition instead of static.
        holdout: A sealed hold-out directory outside the project (aggregates only).
        out: Output folder; default a new ``runs_root/<timestamp>-<seed>/``.
        runs_root: Where new run folders go.
        condition: ``announced``, ``unprompted`` or ``both`` (SPEC §4.2).
        policy_params: Constructor parameters of named policies, e.g.
            ``{"voc-learned": {"model_file": "model.json"}}``.
        shift: Distance of the generated worlds' hidden models from the controller's defaults.
        workers: Processes playing scenarios in parallel (``None``: one per core).
        config: Benchmark settings.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=False)

    scenario_paths: tuple[Path, ...] = ()
    families: str | None = None
    count: int = DEFAULT_CONFIG.default_count
    policies: str = "all"
    trials: int = DEFAULT_CONFIG.default_trials
    seed: int = 0
    adaptive: bool = False
    holdout: Path | None = None
    out: Path | None = None
    runs_root: Path = Path("runs")
    condition: str = "announced"
    policy_params: dict[str, dict[str, Any]] = Field(default_factory=dict)
    shift: float = DEFAULT_SHIFT
    workers: int | None = 1
    config: BenchConfig = DEFAULT_CONFIG

    @field_validator("scenario_paths", mode="before")
    @classmethod
    def _no_paths(cls, value: Any) -> Any:
        return () if value is None else value

    @field_validator("policy_params", mode="before")
    @classmethod
    def _no_params(cls, value: Any) -> Any:
        return {} if value is None else value

    def manifest_record(self) -> dict[str, Any]:
        """The spec as JSON data for the manifest: what the results depend on.

        Left out: the config (recorded in the manifest already), where the run is written and how
        many workers played it (the results are the same bytes for any), and the hold-out's path
        (a sealed run publishes nothing of where its set lives; ``holdout`` is then ``true``).
        """
        record = self.model_dump(
            mode="json", exclude={"config", "out", "runs_root", "workers", "holdout"}
        )
        return {**record, "holdout": self.holdout is not None}


def run_spec(**fields: Any) -> RunSpec:
    """Build a :class:`RunSpec`, turning a wrong field or type into one clear error.

    Raises:
        InvalidArgumentError: naming the field and what is wrong with it.
    """
    try:
        return RunSpec(**fields)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"]) or "run"
        raise InvalidArgumentError(f"run spec: {where}: {err['msg']}") from None
