"""The inspection kind (families A–I, document 000 §16): which sources to read, under a budget,
before one decision.

Everything that makes it the inspection kind is here or named here: its scenario
(:class:`~heedful.model.Scenario`, read by :mod:`heedful.model.scenario_io`), its generated
families (:mod:`heedful.bench.worlds.families`, one module each, registered by ``@family``), the
exact oracle (:class:`heedful.bench.score.scoring.ScenarioOracle`), how one trial is played
(:meth:`Inspection.play`: the policy's choices under the protocol, :func:`collect_choices`,
scored by :func:`heedful.bench.score.scoring.score_trial`), the policy protocol
(:class:`heedful.bench.Policy`) and its oracle policy (:class:`OraclePolicy`). Its record and
rows (``TrialRecord``, ``AggregateRow`` of :mod:`heedful.bench.results`), its aggregation
(:func:`heedful.bench.score.aggregate.aggregate`) and its tables
(:mod:`heedful.bench.report.table`) are its own — richer than the other kinds'; its baselines are
the modules of :mod:`heedful.bench.policies`, and its runner (summaries, world keys, agents) is
:func:`heedful.bench.run.runner.play_inspection`.

A trial draws the world from the truth (or uses the fixed world), lets the policy choose
inspections from the *task view* only (:func:`heedful.bench.views.policy_view`: no id, family or
condition), reveals observations sampled from the truth, then acts Bayes-optimally on the
posterior. Randomness (all from the root seed, see :mod:`heedful.bench.seeds`): the world of a
(scenario, trial) and the outcome of each source in it are shared by every policy (common random
numbers, so comparisons are paired); each policy gets its own stream.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, final

import numpy as np

from heedful import decision
from heedful.bench.kinds.contract import ScenarioKindSpec, TrialJob, scenario_kind
from heedful.bench.policy import Observation, Policy, register_policy
from heedful.bench.results import TrialRecord, Violation
from heedful.bench.results.plays import Plays, PlayTrace
from heedful.bench.score.scoring import ScenarioOracle, TrialOutcome, TrialWorld, score_trial
from heedful.bench.seeds import Stream, generator, name_key
from heedful.bench.views import policy_view
from heedful.errors import HeedfulError, InvalidArgumentError
from heedful.model import Condition, Scenario, SourceView, TaskView

__all__ = [
    "Inspection",
    "InspectionCase",
    "OraclePolicy",
    "collect_choices",
    "handout",
]


@final
@register_policy("oracle")
class OraclePolicy(Policy):
    """Inspect an optimal static set; in the adaptive condition, follow the adaptive optimum."""

    deterministic = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        raise TypeError("OraclePolicy cannot be subclassed: only it is handed the truth")

    def __init__(self) -> None:
        self._oracle: ScenarioOracle | None = None
        self._plan: tuple[str, ...] = ()

    def bind(self, oracle: ScenarioOracle) -> None:
        """Give the policy the oracle of the scenario it is about to play (runner only)."""
        self._oracle = oracle

    def reset(self, view: TaskView, rng: np.random.Generator) -> None:
        """Pick the plan for this scenario: the first optimal static set, in source order."""
        oracle = self._oracle
        if oracle is None or oracle.budget != view.budget:
            raise InvalidArgumentError(
                "the oracle policy only runs inside the benchmark runner, which binds the truth"
            )
        best = set(oracle.static.optimal_sets[0])
        # Source order, except that a hidden source (issue 23) comes after its revealer.
        revealer = {h.id: r for r, hs in oracle.reveals.items() for h in hs}
        order = [s for s in oracle.problem.source_ids if s in best]
        plan: list[str] = []
        while order:
            ready = next(s for s in order if s not in revealer or revealer[s] in plan)
            plan.append(ready)
            order.remove(ready)
        self._plan = tuple(plan)

    def next(self, history: Sequence[Observation]) -> str | None:
        """Next source of the plan, or of the adaptive optimum when observations are real."""
        oracle = self._oracle
        assert oracle is not None  # reset checked it
        if oracle.adaptive is not None and not any(o.withheld for o in history):
            observed = [
                (o.source_id, decision.outcome_index(oracle.problem, o.source_id, o.values))
                for o in history
            ]
            return oracle.adaptive.policy(tuple(observed))
        done = {o.source_id for o in history}
        return next((s for s in self._plan if s not in done), None)


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


@scenario_kind
class Inspection(ScenarioKindSpec[InspectionCase, TrialRecord]):
    """The inspection kind: its case, the oracle's binding and one trial (its records are
    trial by trial: every policy of a trial plays the same world)."""

    kind = "inspection"
    scenario = Scenario
    reader = "heedful.model.scenario_io"
    policy_base = Policy
    trial_record = TrialRecord
    policy_major = False

    def prepare(self, scenario: Scenario, key: int, job: TrialJob) -> InspectionCase:
        """Value the scenario exactly (a hold-out's error names nothing of it)."""
        return InspectionCase.prepare(scenario, key, job)

    def bind(self, case: InspectionCase, policy: Any) -> None:
        """The one privileged path: only the oracle policy is handed the truth."""
        if isinstance(policy, OraclePolicy):
            policy.bind(case.oracle)

    def play(
        self, case: InspectionCase, name: str, policy: Policy, trial: int, job: TrialJob
    ) -> TrialRecord:
        """One policy plays one trial of an inspection scenario; its record, scored."""
        scenario, oracle, view = case.scenario, case.oracle, case.view
        world = case.world(trial, job.seed)
        given = case.copy_for(name)
        # Static condition: a deterministic policy's choices cannot depend on the trial (it sees
        # only the view and its own withheld choices), so it is asked once per scenario. A
        # validating policy's forced reads depend on its results: played every trial.
        # Deterministic *on this task* is enough (``deterministic_for``: voc-default's paced
        # exploration cannot fire within a budget under 10), for that and for the exact
        # adaptive value below (issue 36: no sampled value where the exact one is tractable).
        certain = policy.deterministic_for(view)
        reuse = not job.adaptive and certain and not policy.validates
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
        exact = oracle.policy_value(name, policy, view, given) if job.adaptive and certain else None
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
