"""The inspection runner: policies × scenarios × trials, scored against the exact oracle.

The inspection kind's trial is :class:`heedful.bench.kinds.inspection.Inspection` (its case, the
oracle's binding, one policy's trial; :func:`~heedful.bench.kinds.inspection.collect_choices`
enforces the protocol). This module runs it over a run's scenarios — each played by the one trial
loop of every kind, :func:`heedful.bench.run.loop.play_scenario` — with the summaries, world keys,
backends, checkpoint and progress of an inspection run, and aggregates the records
(:func:`heedful.bench.score.aggregate.aggregate`). :func:`heedful.bench.run.benchmark.
run_benchmark` plays every kind in one call.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, cast

from heedful.bench.kinds import get_kind
from heedful.bench.kinds.inspection import Inspection, InspectionCase, collect_choices, handout
from heedful.bench.manifest import build_manifest
from heedful.bench.parallel import few_collections, resolve_workers
from heedful.bench.policy import Policy, get_policy
from heedful.bench.results import (
    PolicySpec,
    Results,
    ScenarioSummary,
    TrialRecord,
)
from heedful.bench.results.plays import Plays
from heedful.bench.run.checkpoint import SCENARIOS
from heedful.bench.run.driver import drive
from heedful.bench.run.loop import TrialJob, play_scenario
from heedful.bench.run.options import BenchRun, ProgressFn
from heedful.bench.run.spans import RUN_SPAN, SCENARIO_SPAN, describe_run, describe_scenario
from heedful.bench.score.aggregate import aggregate
from heedful.bench.score.initiation import with_initiation
from heedful.bench.score.scoring import decision_variables, is_distractor
from heedful.errors import InvalidArgumentError
from heedful.model import Scenario
from heedful.tracing import traced

__all__ = [
    "INSPECTION",
    "InspectionCase",
    "ProgressFn",
    "ScenarioTask",
    "build_policies",
    "collect_choices",
    "decision_variables",
    "handout",
    "is_distractor",
    "play_inspection",
    "progress_ticks",
]


def build_policies(specs: Sequence[PolicySpec | str]) -> list[tuple[PolicySpec, Policy]]:
    """Instantiate policies from names or specs; the spec records the full parameters."""
    out: list[tuple[PolicySpec, Policy]] = []
    for spec in specs:
        s = spec if isinstance(spec, PolicySpec) else PolicySpec(name=spec)
        policy = get_policy(s.name, **s.params)
        out.append((PolicySpec(name=s.name, params=_jsonable(policy.get_params())), policy))
    names = [s.name for s, _ in out]
    if len(set(names)) != len(names):
        raise InvalidArgumentError(f"a policy is listed twice: {names}")
    return out


def _specs(policies: Sequence[PolicySpec | str]) -> list[PolicySpec]:
    return [p if isinstance(p, PolicySpec) else PolicySpec(name=p) for p in policies]


def _jsonable(params: dict[str, Any]) -> dict[str, Any]:
    return {
        k: v if isinstance(v, str | int | float | bool | None) else repr(v)
        for k, v in params.items()
    }


#: The inspection kind of the one trial loop (:func:`heedful.bench.run.loop.play_scenario`).
INSPECTION = cast(Inspection, get_kind("inspection"))


@traced(SCENARIO_SPAN, describe_scenario)
def _run_scenario(
    scenario: Scenario,
    key: int,
    built: Sequence[tuple[PolicySpec, Policy]],
    job: TrialJob,
    step: Callable[[str], None],
) -> tuple[ScenarioSummary, list[TrialRecord], Plays]:
    """Every policy plays every trial of one scenario (the one trial loop, inspection kind);
    ``step(label)`` after each trial. Returns the scenario's summary, its records and the plays
    it kept (``job.keep_plays``; see :mod:`heedful.bench.results.plays`).

    The whole outcome is a function of the scenario, its world key and the job: the same in the
    serial loop and in a worker process.
    """
    named = [(spec.name, policy) for spec, policy in built]
    case, records = play_scenario(INSPECTION, scenario, key, named, job, step)
    return case.oracle.summary(job.config), records, case.plays


#: Policies built in this process, per policy list (a worker builds them once, not per job).
_BUILT: dict[str, list[tuple[PolicySpec, Policy]]] = {}


@dataclass(frozen=True)
class ScenarioTask:
    """One scenario with every policy and trial: the picklable job a :class:`Backend` runs.

    Called with ``(scenario, world key)``; returns the scenario's summary, its records and its
    kept plays (empty unless the job keeps them). Policies are built from ``policies`` once per
    process that runs the task.
    """

    policies: tuple[PolicySpec, ...]
    job: TrialJob

    def __call__(
        self, item: tuple[Scenario, int]
    ) -> tuple[ScenarioSummary, list[TrialRecord], Plays]:
        key = repr(self.policies)
        if key not in _BUILT:
            _BUILT[key] = build_policies(self.policies)
        scenario, world_key = item
        return _run_scenario(scenario, world_key, _BUILT[key], self.job, lambda label: None)


@contextlib.contextmanager
def progress_ticks(progress: bool | ProgressFn | None) -> Iterator[ProgressFn]:
    """The progress callback to call after each trial: the caller's, a Rich bar, or nothing."""
    if callable(progress):
        yield progress
        return
    show = sys.stderr.isatty() if progress is None else progress
    if not show:
        yield lambda done, total, label: None
        return
    from heedful.bench.run.progress import rich_bar

    with rich_bar("bench") as bar:
        yield bar


def check_ids(scenarios: Sequence[Any]) -> list[str]:
    """The scenarios' ids, in order, for a run: at least one scenario, every id unique.

    Raises:
        InvalidArgumentError: no scenario, or an id given twice.
    """
    if not scenarios:
        raise InvalidArgumentError("no scenarios to run")
    ids = [s.id for s in scenarios]
    if len(set(ids)) != len(ids):
        raise InvalidArgumentError("scenario ids must be unique within a run")
    return ids


@traced(RUN_SPAN, describe_run)
@few_collections()
def play_inspection(
    scenarios: Sequence[Scenario], policies: Sequence[PolicySpec | str], run: BenchRun
) -> Results:
    """Play every policy on every inspection scenario ``run.trials`` times and score it.

    The inspection part of :func:`heedful.bench.run.benchmark.play_benchmark` (which plays
    scenarios of every kind); ``run.world_keys`` has one key per scenario here.

    Raises:
        InvalidArgumentError: empty inputs, duplicate ids or a world key list of the wrong length.
        UnknownNameError: unknown policy.
    """
    ids = check_ids(scenarios)
    keys = run.keys_for(len(scenarios))
    trials, seed, config, sealed = run.trials, run.seed, run.config, run.sealed
    plays, checkpoint, backend = run.plays, run.checkpoint, run.backend
    built = build_policies(policies)
    if not built:
        raise InvalidArgumentError("no policies to run")
    job = TrialJob(trials, seed, config, run.adaptive, sealed, run.initiation, plays is not None)
    per_trial = trials * len(built)
    total = len(scenarios) * per_trial
    n_workers = max(1, min(resolve_workers(run.workers), len(scenarios)))
    if sealed:
        checkpoint = None  # a hold-out's trial records never reach the disk
    items = list(zip(scenarios, keys, strict=True))
    with progress_ticks(run.progress) as tick:
        outcomes = drive(
            ids,
            items,
            ScenarioTask(tuple(_specs(policies)), job),
            trials_each=[per_trial] * len(items),
            tick=tick,
            backend=backend,
            workers=n_workers,
            local=lambda item, step: _run_scenario(item[0], item[1], built, job, step),
            checkpoint=checkpoint,
            kept=SCENARIOS,
            sealed=sealed,
        )
        records: list[TrialRecord] = []
        summaries: list[ScenarioSummary] = []
        for summary, recs, kept in outcomes:
            summaries.append(summary)
            records += recs
            if plays is not None:
                plays.update(kept)
        tick(total, total, "aggregating (bootstrap intervals)")
        names = [s.name for s, _ in built]
        # Locally the aggregation stays in this process: its bootstrap draws are remembered
        # across rows and comparisons, and a pool would fork every record to redraw them
        # (slower here; benchmarks/suite_speed.py measures both). Beside a remote backend the
        # local cores are otherwise idle, and the pool is used.
        agg_workers = n_workers if backend is not None else 1
        aggregates = with_initiation(
            aggregate(records, names, config, seed, workers=agg_workers),
            records,
            names,
            config,
            seed,
        )

    families = sorted({s.view.family for s in scenarios})
    manifest = build_manifest(
        seed=seed,
        condition="adaptive" if run.adaptive else "static",
        trials=trials,
        policies=[s for s, _ in built],
        scenarios=scenarios,
        scenario_source=run.scenario_source,
        generator_versions=run.generator_versions or {f: "file" for f in families},
        config=config,
    )
    if sealed:
        return Results(
            sealed=True, manifest=manifest, scenarios=[], trials=[], aggregates=aggregates
        )
    return Results(manifest=manifest, scenarios=summaries, trials=records, aggregates=aggregates)
