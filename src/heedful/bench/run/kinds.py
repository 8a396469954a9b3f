"""Run the switching (D) and schedule (J) kinds: families, trials and aggregates.

:data:`TRIAL_KINDS` holds every scenario kind of the one trial loop
(:func:`heedful.bench.run.loop.play_scenario`): inspection (``INSPECTION`` of
:mod:`heedful.bench.run.runner`), switching and schedule; :data:`KIND_ROWS` the columns the D
and J rows add.

Randomness: every (scenario, trial, policy) gets its own stream of the root seed, so a run is a
function of the seed and adding a policy changes no other policy's numbers.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Annotated, Any

import numpy as np
from pydantic import Field, TypeAdapter

from heedful.bench.config import DEFAULT_CONFIG, BenchConfig
from heedful.bench.kind_policy import (
    kind_policy,
    parse_kind_policies,
)
from heedful.bench.results.kinds import (
    KindPairedRow,
    KindResults,
    KindRow,
    ScheduleTrial,
    SwitchingTrial,
)
from heedful.bench.run.backend import Backend, SerialBackend
from heedful.bench.run.checkpoint import Checkpoint, Part
from heedful.bench.run.driver import drive
from heedful.bench.run.kind_trials import (
    ScheduleCase,
    SwitchingCase,
    run_schedule_trial,
    run_switching_trial,
)
from heedful.bench.run.loop import TrialJob, TrialKind, play_scenario
from heedful.bench.run.options import ProgressFn, Trials
from heedful.bench.run.runner import INSPECTION
from heedful.bench.score.aggregate import cluster_diff, cluster_mean
from heedful.bench.seeds import Stream, generator, name_key
from heedful.bench.stats import MeanCI, clustered_proportion
from heedful.bench.worlds.families import scenario_rngs
from heedful.bench.worlds.schedule import VERSION as J_VERSION
from heedful.bench.worlds.schedule import generate_schedule
from heedful.bench.worlds.switching import VERSION as D_VERSION
from heedful.bench.worlds.switching import generate_switching
from heedful.errors import InvalidArgumentError
from heedful.model.scenario import ScenarioKind
from heedful.model.schedule import ScheduleScenario
from heedful.model.switching import SwitchingScenario

__all__ = [
    "KIND_FAMILIES",
    "KIND_KEPT",
    "KIND_ROWS",
    "TRIAL_KINDS",
    "KindFamily",
    "KindRows",
    "KindRun",
    "KindScenario",
    "KindTask",
    "generate_kind_family",
    "kind_of",
    "play_kinds",
    "run_kinds",
]

KindScenario = SwitchingScenario | ScheduleScenario


@dataclass(frozen=True)
class KindFamily:
    """A family of the switching or schedule kind (document 000 §16 D, J)."""

    code: str
    name: str
    kind: ScenarioKind
    version: str
    description: str
    make: Callable[[np.random.Generator, np.random.Generator, str], KindScenario]


KIND_FAMILIES: dict[str, KindFamily] = {
    "D": KindFamily(
        "D",
        "switching",
        ScenarioKind.SWITCHING,
        D_VERSION,
        "attention switching: stay / queue / preempt while mid-task",
        generate_switching,
    ),
    "J": KindFamily(
        "J",
        "schedule",
        ScenarioKind.SCHEDULE,
        J_VERSION,
        "multi-timescale obligations: urgent-now vs important-hour vs important-week",
        generate_schedule,
    ),
}


def generate_kind_family(
    code: str, count: int, seed: int, *, stream: Stream = Stream.DEV
) -> list[KindScenario]:
    """Generate ``count`` scenarios of family D or J (same seeding scheme as every family)."""
    fam = KIND_FAMILIES[code]
    if count < 1:
        raise InvalidArgumentError(f"count must be at least 1, got {count}")
    tag = "d" if stream is Stream.DEV else "h"
    out = []
    for i in range(count):
        rng, wording = scenario_rngs(code, seed, i, stream)
        out.append(fam.make(rng, wording, f"{code}-{tag}{seed}-{i:04d}"))
    return out


@dataclass(frozen=True)
class KindRun:
    """What :func:`run_kinds` measured: the trials, and the rows that join ``aggregates``."""

    trials: KindResults
    rows: list[KindRow]
    paired: list[KindPairedRow]


KindTrial = SwitchingTrial | ScheduleTrial
#: ``cluster_mean`` of one trial field over a row's trials.
MeanOf = Callable[[Callable[[Any], float | None]], MeanCI | None]


@dataclass(frozen=True)
class KindRows:
    """What the switching or schedule kind adds to its aggregate rows.

    Attributes:
        trials: Where a run keeps this kind's trials.
        columns: The row's own columns, from its trials (``mean`` is the clustered mean with CI,
            ``clusters`` the scenario id of each trial).
    """

    trials: Callable[[KindResults], list[Any]]
    columns: Callable[[Sequence[Any], MeanOf, list[str], BenchConfig], dict[str, Any]]


def _bind(case: SwitchingCase | ScheduleCase, policy: Any) -> None:
    bind = getattr(policy, "bind", None)
    if bind is not None:
        bind(case)  # the oracle, and only the oracle


def _player(
    run_trial: Callable[..., KindTrial],
) -> Callable[[Any, str, Any, int, TrialJob], KindTrial]:
    """One trial of a D/J policy: its own stream of the seed per (scenario, trial, policy)."""

    def play(case: Any, name: str, policy: Any, trial: int, job: TrialJob) -> KindTrial:
        rng = generator(job.seed, Stream.POLICY, name_key(case.scenario.id), trial, name_key(name))
        return run_trial(case, policy, rng, trial=trial, config=job.config)

    return play


def _switching_columns(
    trials: Sequence[SwitchingTrial], mean: MeanOf, clusters: list[str], config: BenchConfig
) -> dict[str, Any]:
    return {
        "switch_accuracy": mean(lambda t: t.switch_accuracy),
        "thrashes": mean(lambda t: float(t.thrashes)),
        "completion": clustered_proportion(
            [t.completed for t in trials], clusters, config.ci_level
        ),
    }


def _schedule_columns(
    trials: Sequence[ScheduleTrial], mean: MeanOf, clusters: list[str], config: BenchConfig
) -> dict[str, Any]:
    return {
        "starvation_rate": mean(lambda t: t.starvation_rate),
        "horizon_bias": mean(lambda t: t.horizon_bias),
        "missed": {k: sum(t.missed[k] for t in trials) / len(trials) for k in trials[0].missed},
    }


def _prepare_switching(scenario: SwitchingScenario, key: int, job: TrialJob) -> SwitchingCase:
    return SwitchingCase.prepare(scenario)


def _prepare_schedule(scenario: ScheduleScenario, key: int, job: TrialJob) -> ScheduleCase:
    return ScheduleCase.prepare(scenario)


#: Every scenario kind of the one trial loop (:func:`heedful.bench.run.loop.play_scenario`).
TRIAL_KINDS: dict[ScenarioKind, TrialKind[Any, Any]] = {
    ScenarioKind.INSPECTION: INSPECTION,
    ScenarioKind.SWITCHING: TrialKind(
        ScenarioKind.SWITCHING,
        _prepare_switching,
        _bind,
        _player(run_switching_trial),
        policy_major=True,
    ),
    ScenarioKind.SCHEDULE: TrialKind(
        ScenarioKind.SCHEDULE,
        _prepare_schedule,
        _bind,
        _player(run_schedule_trial),
        policy_major=True,
    ),
}

#: The switching and schedule kinds' rows, in the order they are written.
KIND_ROWS: dict[ScenarioKind, KindRows] = {
    ScenarioKind.SWITCHING: KindRows(attrgetter("switching"), _switching_columns),
    ScenarioKind.SCHEDULE: KindRows(attrgetter("schedule"), _schedule_columns),
}


def kind_of(s: KindScenario) -> ScenarioKind:
    """The kind of a switching or schedule scenario."""
    return ScenarioKind.SWITCHING if isinstance(s, SwitchingScenario) else ScenarioKind.SCHEDULE


@dataclass(frozen=True)
class KindTask:
    """One switching or schedule scenario with every policy and trial: a picklable job.

    The same unit of work as the inspection runner's ``ScenarioTask``, run by the same
    :class:`~heedful.bench.run.backend.Backend` (this process, ``--workers`` processes or Ray);
    its trials are a function of the scenario, the policy names and the seed only.
    """

    names: tuple[str, ...]
    trials: int
    seed: int
    config: BenchConfig

    def __call__(self, scenario: KindScenario) -> list[KindTrial]:
        kind = kind_of(scenario)
        # Fresh policies for every scenario (a job may run in another process).
        policies = [(name, kind_policy(kind, name)) for name in self.names]
        job = TrialJob(self.trials, self.seed, self.config)
        _, records = play_scenario(TRIAL_KINDS[kind], scenario, 0, policies, job)
        return list(records)


def _play_kind(item: tuple[KindTask, KindScenario]) -> list[KindTrial]:
    task, scenario = item
    return task(scenario)


def _dump_kind(trials: list[KindTrial]) -> dict[str, Any]:
    return {"trials": [t.model_dump(mode="json") for t in trials]}


_KIND_TRIALS = TypeAdapter(list[Annotated[KindTrial, Field(discriminator="kind")]])


def _load_kind(body: dict[str, Any]) -> list[KindTrial]:
    return _KIND_TRIALS.validate_python(body["trials"])


#: How a switching or schedule scenario's trials are kept in a run's checkpoint (``--resume``).
KIND_KEPT: Part[list[KindTrial]] = Part("kind", _dump_kind, _load_kind)


def run_kinds(
    scenarios: Sequence[KindScenario],
    policies: str,
    *,
    trials: int,
    seed: int,
    config: BenchConfig = DEFAULT_CONFIG,
    backend: Backend | None = None,
    progress: ProgressFn | None = None,
    checkpoint: Checkpoint | None = None,
) -> KindRun:
    """Run the named policies (those that exist for each kind) on switching/schedule scenarios.

    ``policies`` is ``--policies`` text (``"all"``: each kind's default suite); the rest is
    :func:`play_kinds`. :func:`heedful.bench.run.benchmark.run_benchmark` plays these scenarios
    too, beside inspection ones, into one :class:`~heedful.bench.results.Results`.

    Raises:
        InvalidArgumentError: bad trial count or seed, or no policy given.
    """
    Trials(trials=trials, seed=seed)  # a bad trial count or seed fails here
    names: dict[ScenarioKind, list[str]] = {}
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
    scenarios: Sequence[KindScenario],
    names: Mapping[ScenarioKind, Sequence[str]],
    *,
    trials: int,
    seed: int,
    config: BenchConfig = DEFAULT_CONFIG,
    backend: Backend | None = None,
    progress: ProgressFn | None = None,
    checkpoint: Checkpoint | None = None,
) -> KindRun:
    """Run each kind's policies ``names[kind]`` on switching/schedule scenarios.

    The scenarios are played by the driver of every kind (:func:`heedful.bench.run.driver.drive`),
    one job per scenario, grouped by kind in the order the kinds first appear (a job runs one
    kind's policies).

    Args:
        names: The policies of each kind among the scenarios, in row order (each must exist
            for its kind: :func:`~heedful.bench.kind_policy.kind_policy`).
        backend: Where scenarios are played (default: this process); the trials are the same on
            every backend.
        progress: Called after each scenario with (trials done, trials in all, scenario id).
        checkpoint: Each finished scenario is saved there, and a scenario already saved there
            is read instead of played (``--resume``; :mod:`heedful.bench.run.checkpoint`).

    Returns the trials and their aggregate and paired rows (which join ``aggregates``).

    Raises:
        InvalidArgumentError: a kind of the scenarios with no entry in ``names``.
    """
    order: dict[ScenarioKind, list[str]] = {}
    for scenario in scenarios:
        kind = kind_of(scenario)
        if kind not in order:
            if kind not in names:
                raise InvalidArgumentError(f"no policies given for the {kind.value} scenarios")
            order[kind] = list(names[kind])
    tasks = {k: KindTask(tuple(ks), trials, seed, config) for k, ks in order.items()}
    ordered = [s for kind in order for s in scenarios if kind_of(s) is kind]
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
    out = KindResults()
    for scenario, records in zip(ordered, played, strict=True):
        KIND_ROWS[kind_of(scenario)].trials(out).extend(records)
    rows, paired = _aggregate(out, order, config, seed)
    return KindRun(out, rows, paired)


def _aggregate(
    res: KindResults,
    order: dict[ScenarioKind, list[str]],
    config: BenchConfig,
    seed: int,
) -> tuple[list[KindRow], list[KindPairedRow]]:
    rows: list[KindRow] = []
    paired: list[KindPairedRow] = []
    groups = [(kind, kind_rows.trials(res)) for kind, kind_rows in KIND_ROWS.items()]
    for kind, trials in groups:
        for family in sorted({t.family for t in trials}):
            fam = [t for t in trials if t.family == family]
            for name in order.get(kind, []):
                mine = [t for t in fam if t.policy == name]
                if mine:
                    rows.append(_row(kind, family, name, mine, config, seed))
            by_key = {(t.policy, t.scenario_id, t.trial): t for t in fam}
            keys = sorted({(t.scenario_id, t.trial) for t in fam})
            for a, b in itertools.combinations(order.get(kind, []), 2):
                pairs = [
                    (by_key[(a, *k)], by_key[(b, *k)])
                    for k in keys
                    if (a, *k) in by_key and (b, *k) in by_key
                ]
                if pairs:
                    rng = generator(seed, Stream.STATS)
                    paired.append(
                        KindPairedRow(
                            kind=kind.value,  # type: ignore[arg-type]
                            family=family,
                            policy_a=a,
                            policy_b=b,
                            score=cluster_diff(pairs, attrgetter("score"), rng, config),
                            regret=cluster_diff(
                                pairs,
                                attrgetter("regret"),
                                rng,
                                config,
                                higher_is_better=False,
                            ),
                        )
                    )
    return rows, paired


def _row(
    kind: ScenarioKind,
    family: str,
    policy: str,
    trials: Sequence[SwitchingTrial | ScheduleTrial],
    config: BenchConfig,
    seed: int,
) -> KindRow:
    rng = generator(seed, Stream.STATS)

    def mean(get: Callable[[Any], float | None]) -> MeanCI | None:
        return cluster_mean(trials, get, rng, config)  # type: ignore[arg-type]

    regret = mean(attrgetter("regret"))
    assert regret is not None
    clusters = [t.scenario_id for t in trials]
    row = KindRow(
        kind=kind.value,  # type: ignore[arg-type]
        family=family,
        policy=policy,
        n_trials=len(trials),
        n_informative=sum(1 for t in trials if t.score is not None),
        score=mean(lambda t: t.score),
        regret=regret,
        optimal=clustered_proportion([t.optimal for t in trials], clusters, config.ci_level),
        violations=sum(t.violations for t in trials),
        failures=dict(sorted(Counter(t.failure for t in trials if t.failure).items())),
    )
    return row.model_copy(update=KIND_ROWS[kind].columns(trials, mean, clusters, config))
