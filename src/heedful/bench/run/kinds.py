"""Run the scenarios of the kinds other than inspection (switching D, schedule J, …).

Every such kind is a :class:`~heedful.bench.kinds.ScenarioKindSpec` of
:mod:`heedful.bench.kinds`; this module knows kinds only through that contract: it plays each
scenario by the one trial loop (:func:`heedful.bench.run.loop.play_scenario`) on the driver of
every kind, and aggregates each kind's trials with the one aggregation
(:func:`heedful.bench.score.aggregate.aggregate_kind`).

Randomness: every (scenario, trial, policy) gets its own stream of the root seed, so a run is a
function of the seed and adding a policy changes no other policy's numbers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from heedful.bench.config import DEFAULT_CONFIG, BenchConfig
from heedful.bench.kinds import get_kind, kind_of, registered_kinds
from heedful.bench.policy import kind_policy, parse_kind_policies
from heedful.bench.results.kinds import KindPairedRow, KindResults, KindRow, kind_records
from heedful.bench.run.backend import Backend, SerialBackend
from heedful.bench.run.checkpoint import Checkpoint, Part
from heedful.bench.run.driver import drive
from heedful.bench.run.loop import TrialJob, play_scenario
from heedful.bench.run.options import ProgressFn, Trials
from heedful.bench.score.aggregate import aggregate_kind
from heedful.errors import InvalidArgumentError

__all__ = ["KIND_KEPT", "KindRun", "KindTask", "play_kinds", "run_kinds"]


@dataclass(frozen=True)
class KindRun:
    """What :func:`run_kinds` measured: the trials, and the rows that join ``aggregates``."""

    trials: KindResults
    rows: list[KindRow]
    paired: list[KindPairedRow]


@dataclass(frozen=True)
class KindTask:
    """One scenario of a kind other than inspection with every policy and trial: a picklable job.

    The same unit of work as the inspection runner's ``ScenarioTask``, run by the same
    :class:`~heedful.bench.run.backend.Backend` (this process, ``--workers`` processes or Ray);
    its trials are a function of the scenario, the policy names and the seed only.
    """

    names: tuple[str, ...]
    trials: int
    seed: int
    config: BenchConfig

    def __call__(self, scenario: Any) -> list[Any]:
        kind = kind_of(scenario)
        # Fresh policies for every scenario (a job may run in another process).
        policies = [(name, kind_policy(kind, name)) for name in self.names]
        job = TrialJob(self.trials, self.seed, self.config)
        _, records = play_scenario(get_kind(kind), scenario, 0, policies, job)
        return list(records)


def _play_kind(item: tuple[KindTask, Any]) -> list[Any]:
    task, scenario = item
    return task(scenario)


def _dump_kind(trials: list[Any]) -> dict[str, Any]:
    return {"trials": [t.model_dump(mode="json") for t in trials]}


def _load_kind(body: dict[str, Any]) -> list[Any]:
    return [kind_records(t["kind"]).trial.model_validate(t) for t in body["trials"]]


#: How a scenario's trials of a kind other than inspection are kept in a run's checkpoint
#: (``--resume``; each trial is read back by its ``kind``).
KIND_KEPT: Part[list[Any]] = Part("kind", _dump_kind, _load_kind)


def run_kinds(
    scenarios: Sequence[Any],
    policies: str,
    *,
    trials: int,
    seed: int,
    config: BenchConfig = DEFAULT_CONFIG,
    backend: Backend | None = None,
    progress: ProgressFn | None = None,
    checkpoint: Checkpoint | None = None,
) -> KindRun:
    """Run the named policies (those that exist for each kind) on scenarios of kinds other
    than inspection.

    ``policies`` is ``--policies`` text (``"all"``: each kind's default suite); the rest is
    :func:`play_kinds`. :func:`heedful.bench.run.benchmark.run_benchmark` plays these scenarios
    too, beside inspection ones, into one :class:`~heedful.bench.results.Results`.

    Raises:
        InvalidArgumentError: bad trial count or seed, or no policy given.
    """
    Trials(trials=trials, seed=seed)  # a bad trial count or seed fails here
    names: dict[str, list[str]] = {}
    for scenario in scenarios:
        kind = kind_of(scenario)
        names.setdefault(kind, parse_kind_policies(policies, kind))
    return play_kinds(
        scenarios,
        names,
        trials=trials,
        seed=seed,
        config=config,
        backend=backend,
        progress=progress,
        checkpoint=checkpoint,
    )


def play_kinds(
    scenarios: Sequence[Any],
    names: Mapping[str, Sequence[str]],
    *,
    trials: int,
    seed: int,
    config: BenchConfig = DEFAULT_CONFIG,
    backend: Backend | None = None,
    progress: ProgressFn | None = None,
    checkpoint: Checkpoint | None = None,
) -> KindRun:
    """Run each kind's policies ``names[kind]`` on scenarios of kinds other than inspection.

    The scenarios are played by the driver of every kind (:func:`heedful.bench.run.driver.drive`),
    one job per scenario, grouped by kind in the order the kinds first appear (a job runs one
    kind's policies).

    Args:
        names: The policies of each kind among the scenarios, in row order (each must exist
            for its kind: :func:`~heedful.bench.policy.kind_policy`).
        backend: Where scenarios are played (default: this process); the trials are the same on
            every backend.
        progress: Called after each scenario with (trials done, trials in all, scenario id).
        checkpoint: Each finished scenario is saved there, and a scenario already saved there
            is read instead of played (``--resume``; :mod:`heedful.bench.run.checkpoint`).

    Returns the trials (one list per registered kind, in registration order) and their aggregate
    and paired rows (which join ``aggregates``; kinds in registration order).

    Raises:
        InvalidArgumentError: a kind of the scenarios with no entry in ``names``, or an
            inspection scenario.
    """
    order: dict[str, list[str]] = {}
    for scenario in scenarios:
        kind = kind_of(scenario)
        if kind == "inspection":
            raise InvalidArgumentError("inspection scenarios are played by play_inspection")
        if kind not in order:
            if kind not in names:
                raise InvalidArgumentError(f"no policies given for the {kind} scenarios")
            order[kind] = list(names[kind])
    tasks = {k: KindTask(tuple(ks), trials, seed, config) for k, ks in order.items()}
    ordered = [s for kind in order for s in scenarios if kind_of(s) == kind]
    played = drive(
        [s.id for s in ordered],
        [(tasks[kind_of(s)], s) for s in ordered],
        _play_kind,
        trials_each=[trials * len(order[kind_of(s)]) for s in ordered],
        tick=progress or (lambda done, total, label: None),
        backend=backend or SerialBackend(),
        checkpoint=checkpoint,
        kept=KIND_KEPT,
    )
    by_kind: dict[str, list[Any]] = {
        spec.kind: [] for spec in registered_kinds() if spec.kind != "inspection"
    }
    for scenario, records in zip(ordered, played, strict=True):
        by_kind[kind_of(scenario)].extend(records)
    rows: list[KindRow] = []
    paired: list[KindPairedRow] = []
    for kind, kind_trials in by_kind.items():
        spec = get_kind(kind)
        kind_rows, kind_paired = aggregate_kind(
            kind,
            kind_trials,
            order.get(kind, []),
            config,
            seed,
            row=spec.row or KindRow,
            columns=spec.columns,
        )
        rows += kind_rows
        paired += kind_paired
    return KindRun(KindResults(**by_kind), rows, paired)
