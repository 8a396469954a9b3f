"""The inspection runner: policies × scenarios × trials, scored against the exact oracle.

Per trial the runner draws the world from the truth (or uses the fixed world), lets the policy
choose inspections from the *task view* only (:func:`heedful.bench.views.policy_view`: no id,
family or condition), reveals observations sampled from the truth, then acts Bayes-optimally on
the posterior — for programmatic policies reasoning is isolated from attention (document 000
§13), so every difference between them is a difference in what they chose to look at; their
evidence and reasoning stages pass by construction. LLM agents choose their own action (see
:mod:`heedful.bench.score.scoring`). Scoring: :func:`heedful.bench.score.scoring.score_trial`.

Each scenario is played by the one trial loop of every kind,
:func:`heedful.bench.run.loop.play_scenario`, as the inspection kind (:data:`INSPECTION`: its case
is :class:`InspectionCase`); switching and schedule scenarios run through the same loop
(:mod:`heedful.bench.run.kinds`), and :func:`heedful.bench.run.benchmark.run_benchmark` plays
every kind in one call.

Randomness (all from the root seed, see :mod:`heedful.bench.seeds`): the world of a
(scenario, trial) and the outcome of each source in it are shared by every policy (common random
numbers, so comparisons are paired); each policy gets its own stream.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from heedful.bench.manifest import build_manifest
from heedful.bench.parallel import few_collections, resolve_workers
from heedful.bench.policies.oracle import OraclePolicy
from heedful.bench.policy import Observation, Policy, get_policy
from heedful.bench.results import (
    PolicySpec,
    Results,
    ScenarioSummary,
    TrialRecord,
    Violation,
)
from heedful.bench.run.checkpoint import SCENARIOS
from heedful.bench.run.driver import drive
from heedful.bench.run.loop import TrialJob, TrialKind, play_scenario
from heedful.bench.run.options import BenchRun, ProgressFn
from heedful.bench.run.plays import Plays, PlayTrace
from heedful.bench.run.spans import RUN_SPAN, SCENARIO_SPAN, describe_run, describe_scenario
from heedful.bench.score.aggregate import aggregate
from heedful.bench.score.initiation import with_initiation
from heedful.bench.score.scoring import (
    ScenarioOracle,
    TrialOutcome,
    TrialWorld,
    decision_variables,
    is_distractor,
    score_trial,
)
from heedful.bench.seeds import Stream, generator, name_key
from heedful.bench.views import policy_view
from heedful.errors import HeedfulError, InvalidArgumentError
from heedful.model import Condition, Scenario, SourceView, TaskView
from heedful.model.scenario import ScenarioKind
from heedful.tracing import traced

__all__ = [
    "INSPECTION",
    "InspectionCase",
    "ProgressFn",
    "ScenarioTask",
    "build_policies",
    "collect_choices",
    "decision_variables",
    "is_distractor",
    "play_inspection",
    "progress_ticks",
]

Reveal = Callable[[str], Observation]


def collect_choices(
    policy: Policy,
    view: TaskView,
    reveal: Reveal | None,
    reveals: Mapping[str, Sequence[SourceView]] | None = None,
) -> tuple[list[Observation], Violation | None]:
    """Ask a policy for inspections until it stops, enforcing the protocol.

    Args:
        policy: A policy already ``reset`` on ``view``.
        view: The visible scenario (its budget and source ids are enforced).
        reveal: Adaptive condition: returns the real observation of a source. ``None`` for the
            static condition, where every history entry is withheld.
        reveals: PRIVATE, evaluator side: per source id, the hidden sources its read reveals
            (:meth:`~heedful.model.Scenario.reveals`, issue 23). A revealed source is handed to
            the policy in the revealing read's observation (as its own copy) and may be
            inspected from then on; before that, asking for it is an unknown source.

    Returns:
        The history (one observation per accepted inspection) and the violation that stopped the
        policy, if any. A violating request is not executed.
    """
    history: list[Observation] = []
    valid = set(view.source_ids)
    links = reveals or {}
    while True:
        choice = policy.next(tuple(history))
        if choice is None:
            return history, None
        if len(history) >= view.budget:
            return history, Violation.OVER_BUDGET
        if not isinstance(choice, str) or choice not in valid:
            return history, Violation.UNKNOWN_SOURCE
        if any(o.source_id == choice for o in history):
            return history, Violation.REPEATED_SOURCE
        obs = reveal(choice) if reveal else Observation(choice, withheld=True)
        opened = tuple(
            SourceView.model_validate_json(s.model_dump_json()) for s in links.get(choice, ())
        )
        if opened:
            obs = dataclasses.replace(obs, revealed=opened)
            valid.update(s.id for s in opened)
        history.append(obs)


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


def handout(view: TaskView, copies: int = 1) -> list[TaskView]:
    """Private deep copies of ``view``, one per policy.

    Pydantic's ``frozen`` stops ``view.budget = 9`` but not ``object.__setattr__``: a policy
    holding the runner's own view could raise the budget the runner enforces, or rewrite the
    sources every other policy of the scenario is shown. So each policy gets its own copy, and
    the runner enforces the rules from a view no policy ever holds. (Validating the JSON once
    per copy is the fastest deep copy of a pydantic model here.)
    """
    text = view.model_dump_json()
    return [TaskView.model_validate_json(text) for _ in range(copies)]


def _play(
    policy: Policy,
    name: str,
    view: TaskView,
    oracle: ScenarioOracle,
    world: TrialWorld,
    adaptive: bool,
    seed: int,
    key: int,
    trial: int,
    given: TaskView | None = None,
) -> TrialOutcome:
    """One policy plays one trial; its choices and (controller policies) candidates.

    ``given`` is the policy's own copy of ``view`` (:func:`handout`); the budget and the source
    ids are enforced from ``view``, which the policy never receives.
    """
    rng = generator(seed, Stream.POLICY, key, trial, name_key(name))
    policy.reset(given if given is not None else handout(view)[0], rng)
    reveal = world.observation if adaptive else None
    history, violation = collect_choices(policy, view, reveal, oracle.reveals)
    cands = policy.candidate_sources()
    forced: tuple[Observation, ...] = ()
    if policy.validates:
        forced = _forced_reads(policy, view, oracle, world, history)
    return TrialOutcome(
        history=tuple(history),
        violation=violation,
        candidates=frozenset(cands) if cands is not None else None,
        stopped=violation is None,
        observation_blind=not policy.uses_observations,
        forced=forced,
        validator_blocked=bool(forced),
    )


def _forced_reads(
    policy: Policy,
    view: TaskView,
    oracle: ScenarioOracle,
    world: TrialWorld,
    history: Sequence[Observation],
) -> tuple[Observation, ...]:
    """Production mode: the reads the policy's validator forces once its own results are in.

    A forced read must name a source the policy could inspect (listed, or revealed by one of
    its reads) that it has not read; anything else is ignored, never executed.
    """
    read = [o.source_id for o in history]
    real = [
        dataclasses.replace(world.observation(sid), revealed=o.revealed)
        for sid, o in zip(read, history, strict=True)
    ]
    allowed = set(view.source_ids) | {s.id for o in history for s in o.revealed}
    out: list[Observation] = []
    for sid in policy.validate(real):
        fresh = isinstance(sid, str) and sid in allowed and sid not in read
        if fresh and all(o.source_id != sid for o in out):
            out.append(world.observation(sid))
    return tuple(out)


def _prepare(scenario: Scenario, job: TrialJob) -> ScenarioOracle:
    try:
        return ScenarioOracle.prepare(scenario, adaptive=job.adaptive)
    except HeedfulError as exc:
        if not job.sealed:
            raise
        # Its message names the scenario and its sizes: the hold-out shows none of it.
        raise type(exc)(
            f"a hold-out scenario cannot be valued exactly ({type(exc).__name__}); "
            "details are withheld — value it with `heedful bench oracle FILE` on the evaluator side"
        ) from None


@dataclass
class InspectionCase:
    """An inspection scenario prepared for its trials (PRIVATE; evaluator side).

    Besides the oracle it holds what a scenario's trials share: the view the rules are enforced
    from (never handed to a policy), each policy's own copy of it (:func:`handout`), the world of
    the trial being played (every policy of a trial plays the same world), the static choices
    asked once, and the kept plays.
    """

    scenario: Scenario
    key: int
    oracle: ScenarioOracle
    view: TaskView
    given: dict[str, TaskView] = field(default_factory=dict)
    static_choices: dict[str, TrialOutcome] = field(default_factory=dict)
    plays: Plays = field(default_factory=dict)
    _world: tuple[int, TrialWorld] | None = field(default=None, init=False, repr=False)

    @classmethod
    def prepare(cls, scenario: Scenario, key: int, job: TrialJob) -> InspectionCase:
        """Value the scenario exactly (a hold-out's error names nothing of it)."""
        return cls(scenario, key, _prepare(scenario, job), policy_view(scenario))

    def copy_for(self, name: str) -> TaskView:
        """Policy ``name``'s own copy of the view (the same copy at every trial)."""
        if name not in self.given:
            self.given[name] = handout(self.view)[0]
        return self.given[name]

    def world(self, trial: int, seed: int) -> TrialWorld:
        """The world of ``trial``, drawn once for every policy of the trial."""
        if self._world is None or self._world[0] != trial:
            rng = generator(seed, Stream.TRIALS, self.key, trial)
            self._world = (trial, TrialWorld.draw(self.oracle, rng))
        return self._world[1]


def _bind_inspection(case: InspectionCase, policy: Policy) -> None:
    if isinstance(policy, OraclePolicy):
        # The one privileged path: only the oracle is handed the truth.
        policy.bind(case.oracle)


def _play_inspection(
    case: InspectionCase, name: str, policy: Policy, trial: int, job: TrialJob
) -> TrialRecord:
    """One policy plays one trial of an inspection scenario; its record, scored."""
    scenario, oracle, view = case.scenario, case.oracle, case.view
    world = case.world(trial, job.seed)
    given = case.copy_for(name)
    # Static condition: a deterministic policy's choices cannot depend on the trial (it sees
    # only the view and its own withheld choices), so it is asked once per scenario. A
    # validating policy's forced reads depend on its results: played every trial.
    reuse = not job.adaptive and policy.deterministic and not policy.validates
    if reuse and name in case.static_choices:
        outcome = case.static_choices[name]
    else:
        outcome = _play(
            policy, name, view, oracle, world, job.adaptive, job.seed, case.key, trial, given
        )
        events = policy.trace() if job.keep_plays else None
        if events is not None:
            case.plays[(name, scenario.id, trial)] = PlayTrace.of(
                (o.source_id for o in outcome.history), events
            )
        if reuse:
            case.static_choices[name] = outcome
    exact = (
        oracle.policy_value(name, policy, view, given)
        if job.adaptive and policy.deterministic
        else None
    )
    return score_trial(
        scenario,
        oracle,
        world,
        policy=name,
        trial=trial,
        adaptive=job.adaptive,
        outcome=outcome,
        config=job.config,
        initiation=job.initiation or scenario.view.condition is Condition.UNPROMPTED,
        exact_value=exact,
        mode="production" if policy.validates else "attention",
    )


#: The inspection kind of the one trial loop (:func:`heedful.bench.run.loop.play_scenario`).
INSPECTION: TrialKind[InspectionCase, TrialRecord] = TrialKind(
    ScenarioKind.INSPECTION,
    InspectionCase.prepare,
    _bind_inspection,
    _play_inspection,
    policy_major=False,
)


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
    it kept (``job.keep_plays``; see :mod:`heedful.bench.run.plays`).

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
