"""The benchmark runner: policies × scenarios × trials, scored against the exact oracle.

Per trial the runner draws the world from the truth (or uses the fixed world), lets the policy
choose inspections from the *view* only, reveals observations sampled from the truth, then acts
Bayes-optimally on the posterior — reasoning is isolated from attention (document 000 §13), so
every difference between policies is a difference in what they chose to look at.

Randomness (all from the root seed, see :mod:`heedful.bench.seeds`): the world of a
(scenario, trial) and the outcome of each source in it are shared by every policy (common random
numbers, so comparisons are paired); each policy gets its own stream.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from heedful.bench.aggregate import aggregate
from heedful.bench.config import DEFAULT_CONFIG, BenchConfig
from heedful.bench.initiation import family_label, initiation_metrics, with_initiation
from heedful.bench.manifest import build_manifest
from heedful.bench.policies.oracle import OraclePolicy
from heedful.bench.policy import Observation, Policy, get_policy
from heedful.bench.results import (
    FailureCode,
    PolicySpec,
    Results,
    ScenarioSummary,
    TrialRecord,
    Violation,
)
from heedful.bench.scoring import ScenarioOracle, TrialWorld
from heedful.bench.seeds import Stream, generator, name_key
from heedful.errors import HeedfulError, InvalidArgumentError
from heedful.model import Condition, Scenario, ScenarioView

Reveal = Callable[[str], Observation]


def collect_choices(
    policy: Policy, view: ScenarioView, reveal: Reveal | None
) -> tuple[list[Observation], Violation | None]:
    """Ask a policy for inspections until it stops, enforcing the protocol.

    Args:
        policy: A policy already ``reset`` on ``view``.
        view: The visible scenario (its budget and source ids are enforced).
        reveal: Adaptive condition: returns the real observation of a source. ``None`` for the
            static condition, where every history entry is withheld.

    Returns:
        The history (one observation per accepted inspection) and the violation that stopped the
        policy, if any. A violating request is not executed.
    """
    history: list[Observation] = []
    valid = set(view.source_ids)
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
        history.append(reveal(choice) if reveal else Observation(choice, withheld=True))


def decision_variables(view: ScenarioView) -> set[str]:
    """Variables some action's utility depends on (named in a utility rule's ``when``)."""
    return {v for a in view.actions.values() for rule in a.utility for v in rule.when}


def is_distractor(view: ScenarioView, source_id: str) -> bool:
    """A source that reports no variable any action's utility depends on (visible structure)."""
    return not set(view.source(source_id).reports) & decision_variables(view)


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


def _jsonable(params: dict[str, Any]) -> dict[str, Any]:
    return {
        k: v if isinstance(v, str | int | float | bool | None) else repr(v)
        for k, v in params.items()
    }


def _trial_record(
    scenario: Scenario,
    oracle: ScenarioOracle,
    world: TrialWorld,
    spec: PolicySpec,
    trial: int,
    adaptive: bool,
    history: list[Observation],
    violation: Violation | None,
    config: BenchConfig,
    initiation: bool = False,
) -> TrialRecord:
    inspected = [o.source_id for o in history]
    observed = [(sid, world.outcome(sid)) for sid in inspected]
    action = oracle.act(observed)
    utility = oracle.utility(action, world.index)
    cost = oracle.weighted_cost(inspected)
    value = oracle.set_value(inspected)
    st = oracle.static
    gap = st.v_star - st.u_random
    uninformative = gap < config.uninformative_gap
    optimal = value >= st.v_star - config.optimal_tolerance
    critical = set(st.critical)
    failed = [sid for sid in inspected if world.observation(sid).failed]
    failure: FailureCode | None = None
    if not optimal:
        failure = FailureCode.SELECTION_WRONG
    elif any(sid in critical for sid in failed):
        failure = FailureCode.RETRIEVAL_FAILED
    return TrialRecord(
        scenario_id=scenario.id,
        family=family_label(scenario.view),
        policy=spec.name,
        trial=trial,
        condition="adaptive" if adaptive else "static",
        world=world.values,
        inspected=inspected,
        failed_inspections=failed,
        violation=violation,
        value=value,
        v_star=st.v_star,
        u_random=st.u_random,
        regret=st.v_star - value,
        score=None if uninformative else 100.0 * (value - st.u_random) / gap,
        uninformative=uninformative,
        optimal=optimal,
        action=oracle.problem.action_ids[action],
        utility=utility,
        inspection_cost=cost,
        inspection_compute=sum(scenario.view.source(sid).cost.scalar() for sid in inspected),
        net_utility=utility - cost,
        action_correct=utility >= oracle.best_utility(world.index) - config.optimal_tolerance,
        critical_recall=len(critical & set(inspected)) / len(critical) if critical else None,
        missing_critical=[s for s in st.critical if s not in inspected],
        precision=len(critical & set(inspected)) / len(inspected) if inspected else None,
        first_critical_at=next(
            (i for i, sid in enumerate(inspected, start=1) if sid in critical), None
        ),
        distractor_inspections=sum(1 for sid in inspected if is_distractor(scenario.view, sid)),
        failure=failure,
        initiation=initiation_metrics(scenario, oracle, world, inspected) if initiation else None,
    )


def run_benchmark(
    scenarios: Sequence[Scenario],
    policies: Sequence[PolicySpec | str],
    *,
    trials: int,
    seed: int,
    adaptive: bool = False,
    config: BenchConfig = DEFAULT_CONFIG,
    scenario_source: str = "<memory>",
    generator_versions: dict[str, str] | None = None,
    progress: bool | None = None,
    sealed: bool = False,
    world_keys: Sequence[int] | None = None,
    initiation: bool = False,
) -> Results:
    """Run every policy on every scenario ``trials`` times and score it.

    Args:
        scenarios: Inspection scenarios (ids unique).
        policies: Registered policy names, or specs with parameters.
        trials: Trials per scenario and policy (≥ 1).
        seed: Root seed (≥ 0); the whole run is a function of it.
        adaptive: Reveal each observation before the next choice (default: static condition).
        config: Thresholds and statistics settings.
        scenario_source: Where the scenarios came from, for the manifest.
        generator_versions: Generator versions, for the manifest.
        progress: Show a progress bar (default: only when stderr is a terminal).
        sealed: Hold-out run: the result keeps aggregates only (no scenario summaries, no
            per-trial records) and the progress bar never names a scenario.
        world_keys: The world stream of each scenario (default: its position). Scenarios given
            the same key (an announced scenario and its unprompted twin) get the same worlds, the
            same source outcomes and the same policy randomness in every trial.
        initiation: Record the unprompted-condition metrics (document 000 §15.2) on every trial;
            they are always recorded on ``condition: unprompted`` scenarios.

    Raises:
        InvalidArgumentError: bad trial count, seed, empty inputs or duplicate ids.
        UnknownNameError: unknown policy.
    """
    if trials < 1:
        raise InvalidArgumentError(f"trials must be at least 1, got {trials}")
    if seed < 0:
        raise InvalidArgumentError(f"seed must be a non-negative integer, got {seed}")
    if not scenarios:
        raise InvalidArgumentError("no scenarios to run")
    ids = [s.id for s in scenarios]
    if len(set(ids)) != len(ids):
        raise InvalidArgumentError("scenario ids must be unique within a run")
    if world_keys is not None and len(world_keys) != len(scenarios):
        raise InvalidArgumentError("world_keys needs one key per scenario")
    built = build_policies(policies)
    if not built:
        raise InvalidArgumentError("no policies to run")
    show = sys.stderr.isatty() if progress is None else progress

    records: list[TrialRecord] = []
    summaries: list[ScenarioSummary] = []
    total = len(scenarios) * trials * len(built)
    with Progress(
        TextColumn("[bold]bench[/bold] {task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        disable=not show,
        transient=True,
    ) as bar:
        task = bar.add_task("", total=total)
        for si, scenario in enumerate(scenarios):
            bar.update(task, description="sealed" if sealed else scenario.id)
            try:
                oracle = ScenarioOracle.prepare(scenario, adaptive=adaptive)
            except HeedfulError as exc:
                if not sealed:
                    raise
                # Its message names the scenario and its sizes: the hold-out shows none of it.
                raise type(exc)(
                    f"a hold-out scenario cannot be valued exactly ({type(exc).__name__}); "
                    "details are withheld — run it unsealed from the evaluator side"
                ) from None
            summaries.append(oracle.summary(config))
            # Static condition: a deterministic policy's choices cannot depend on the trial
            # (it sees only the view and its own withheld choices), so ask it once per scenario.
            static_choices: dict[str, tuple[list[Observation], Violation | None]] = {}
            key = si if world_keys is None else world_keys[si]
            measure = initiation or scenario.view.condition is Condition.UNPROMPTED
            for trial in range(trials):
                world = TrialWorld.draw(oracle, generator(seed, Stream.TRIALS, key, trial))
                for spec, policy in built:
                    reuse = not adaptive and policy.deterministic
                    if reuse and spec.name in static_choices:
                        history, violation = static_choices[spec.name]
                    else:
                        if isinstance(policy, OraclePolicy):
                            # The one privileged path: only the oracle is handed the truth.
                            policy.bind(oracle)
                        rng = generator(seed, Stream.POLICY, key, trial, name_key(spec.name))
                        policy.reset(scenario.view, rng)
                        reveal = world.observation if adaptive else None
                        history, violation = collect_choices(policy, scenario.view, reveal)
                        if reuse:
                            static_choices[spec.name] = (history, violation)
                    rec = _trial_record(
                        scenario,
                        oracle,
                        world,
                        spec,
                        trial,
                        adaptive,
                        history,
                        violation,
                        config,
                        measure,
                    )
                    if adaptive and policy.deterministic:
                        rec = oracle.with_adaptive_value(rec, policy, scenario.view)
                    records.append(rec)
                    bar.advance(task)

    names = [s.name for s, _ in built]
    families = sorted({s.view.family for s in scenarios})
    manifest = build_manifest(
        seed=seed,
        condition="adaptive" if adaptive else "static",
        trials=trials,
        policies=[s for s, _ in built],
        scenarios=scenarios,
        scenario_source=scenario_source,
        generator_versions=generator_versions or {f: "file" for f in families},
        config=config,
    )
    aggregates = with_initiation(
        aggregate(records, names, config, seed), records, names, config, seed
    )
    if sealed:
        return Results(
            sealed=True, manifest=manifest, scenarios=[], trials=[], aggregates=aggregates
        )
    return Results(manifest=manifest, scenarios=summaries, trials=records, aggregates=aggregates)
