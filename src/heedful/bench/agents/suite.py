"""A run that mixes programmatic policies and agents under test into one results file.

Programmatic policies run through :func:`heedful.bench.run.benchmark.run_benchmark`; agents through
:func:`heedful.bench.agents.runner.run_agents`, on the same scenarios, trials and worlds (the same
root seed and world keys), so every comparison is paired. The records are aggregated together
(an agent's production-mode trials are named ``<agent>@production`` in the results, so attention
and production never mix in one row; their ``mode`` field says so too), and the agent
aggregates — failure split per mode, rescue rate, lift, usage — are added under
``aggregates.agents``. The manifest records
each agent's model, endpoint host, sampling settings and prompt/tool hashes (never the key).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from heedful.bench.agents.aggregate import agent_aggregates
from heedful.bench.agents.contract import (
    DEFAULT_AGENT_CONFIG,
    Agent,
    AgentConfig,
    AgentSettings,
    get_agent,
)
from heedful.bench.agents.runner import (
    AgentProgress,
    AgentTrials,
    modes_of,
    run_agents,
    run_agents_on,
)
from heedful.bench.manifest import build_manifest
from heedful.bench.results import PolicySpec, Results, ScenarioSummary, TrialRecord
from heedful.bench.results.agents import PRODUCTION_SUFFIX
from heedful.bench.run.benchmark import Policies, play_benchmark, policies_of_kind
from heedful.bench.run.options import BenchRun
from heedful.bench.run.runner import play_inspection
from heedful.bench.score.aggregate import aggregate
from heedful.bench.score.initiation import with_initiation
from heedful.bench.score.scoring import ScenarioOracle
from heedful.errors import HeedfulError, InvalidArgumentError
from heedful.model import Scenario
from heedful.model.kinds_io import AnyScenario
from heedful.model.scenario import ScenarioKind

__all__ = ["PRODUCTION_SUFFIX", "AgentRun", "run_suite", "table_name"]


@dataclass(frozen=True)
class AgentRun:
    """How the agents named in ``--policies`` reach their model, and how they are run.

    Attributes:
        settings: Model, endpoint, sampling, cache.
        mode: ``attention``, ``production`` or ``both``.
        concurrency: Trials in flight at once.
        config: Protocol numbers (turn limit, validator).
        on_progress: Called after every agent trial with the running totals.
        before_trials: Called once, after every check of the run passed and before the first
            trial is played (the CLI's endpoint check: a warning about the run it is about to
            make, never printed for a run that is refused).
        on_notice: Called once per agent whose endpoint is taken for down (a terminal line).
    """

    settings: AgentSettings
    mode: str = "attention"
    concurrency: int = 8
    config: AgentConfig = DEFAULT_AGENT_CONFIG
    on_progress: Callable[[AgentProgress], None] | None = field(default=None, compare=False)
    before_trials: Callable[[], None] | None = field(default=None, compare=False)
    on_notice: Callable[[str], None] | None = field(default=None, compare=False)


def table_name(record: TrialRecord) -> str:
    """The row name of a record in the policy tables (production-mode trials get a suffix)."""
    return record.policy + (PRODUCTION_SUFFIX if record.mode == "production" else "")


def run_suite(
    scenarios: Sequence[AnyScenario],
    policies: Policies,
    agents: Sequence[str],
    agent_run: AgentRun | None,
    run: BenchRun,
) -> Results:
    """Run policies and agents on the same scenarios and write one :class:`Results`.

    ``run`` is how the policies are played and what every trial shares
    (:class:`~heedful.bench.run.options.BenchRun`); the agents play the same trials, seed and
    worlds. With no agent this is exactly
    :func:`~heedful.bench.run.benchmark.run_benchmark`: ``scenarios`` may mix every kind, and
    ``policies`` is one list or each kind's own (``run.plays`` keeps the controller policies'
    plays, as there). Agents play inspection scenarios only. With a ``run.backend`` (e.g. Ray),
    the scenarios of the programmatic policies and each agent trial are its jobs, at most
    ``agent_run.concurrency`` agent trials in flight at once; the results are the same.
    ``run.checkpoint`` keeps the programmatic policies' finished scenarios (``--resume``); agent
    trials are played again (their response cache answers the calls already made).

    Raises:
        InvalidArgumentError: agents named without ``agent_run`` (no model or endpoint), agents
            with switching/schedule scenarios, bad mode or concurrency, and everything
            :func:`~heedful.bench.run.benchmark.run_benchmark` raises.
    """
    if not agents:
        return play_benchmark(scenarios, policies, run)
    if agent_run is None:
        raise InvalidArgumentError(
            f"agent {agents[0]!r} needs a model endpoint: give --model and --base-url"
        )
    if not all(isinstance(s, Scenario) for s in scenarios):
        raise InvalidArgumentError("agents under test run on inspection scenarios only, not D/J")
    inspection = [s for s in scenarios if isinstance(s, Scenario)]
    specs = [
        p if isinstance(p, PolicySpec) else PolicySpec(name=p)
        for p in policies_of_kind(policies, ScenarioKind.INSPECTION)
    ]
    agent_trials = AgentTrials(
        **run.trial_fields(),
        mode=agent_run.mode,
        concurrency=agent_run.concurrency,
        agent_config=agent_run.config,
        on_progress=agent_run.on_progress,
        on_notice=agent_run.on_notice,
    )
    if not inspection:
        raise InvalidArgumentError("no scenarios to run")
    built = [get_agent(name, agent_run.settings, agent_run.config) for name in agents]
    if agent_run.before_trials is not None:
        agent_run.before_trials()
    try:
        # The policies' records are kept whole here (the sealed result is made below), so the
        # base run is not sealed; a sealed run shows no progress bar naming a scenario.
        policy_run = dataclasses.replace(
            run, sealed=False, progress=False if run.sealed else run.progress
        )
        base = play_inspection(inspection, specs, policy_run) if specs else None
        oracles = (
            [ScenarioOracle.prepare(s, adaptive=run.adaptive) for s in inspection]
            if run.backend is None or base is None
            else []
        )
        if run.backend is None:
            records = asyncio.run(_run_agents(inspection, built, oracles, agent_trials))
        else:
            records = run_agents_on(
                run.backend, inspection, agents, agent_run.settings, agent_trials
            )
            asyncio.run(_close(built))  # built here only to describe them in the manifest
    except HeedfulError as exc:
        if not run.sealed:
            raise
        raise type(exc)(
            f"the hold-out run failed ({type(exc).__name__}); details withheld"
        ) from None
    summaries: list[ScenarioSummary] = (
        base.scenarios if base is not None else [o.summary(run.config) for o in oracles]
    )
    all_records = (base.trials if base is not None else []) + records
    return _results(
        inspection,
        all_records,
        summaries,
        base.manifest.policies if base is not None else [],
        built,
        agent_run,
        run,
    )


async def _run_agents(
    scenarios: Sequence[Scenario],
    agents: Sequence[Agent],
    oracles: Sequence[ScenarioOracle],
    run: AgentTrials,
) -> list[TrialRecord]:
    try:
        return await run_agents(scenarios, agents, run, oracles=oracles)
    finally:
        for agent in agents:
            await agent.aclose()


async def _close(agents: Sequence[Agent]) -> None:
    for agent in agents:
        await agent.aclose()


def _results(
    scenarios: Sequence[Scenario],
    records: list[TrialRecord],
    summaries: list[ScenarioSummary],
    policy_specs: list[PolicySpec],
    agents: Sequence[Agent],
    agent_run: AgentRun,
    run: BenchRun,
) -> Results:
    seed, config = run.seed, run.config
    agent_names = [a.name for a in agents]
    policies = [spec.name for spec in policy_specs]
    modes = modes_of(agent_run.mode)
    table_names = policies + [
        n + (PRODUCTION_SUFFIX if m == "production" else "") for n in agent_names for m in modes
    ]
    in_tables = [r.model_copy(update={"policy": table_name(r)}) for r in records]
    aggregates = with_initiation(
        aggregate(in_tables, table_names, config, seed), in_tables, table_names, config, seed
    )
    aggregates = aggregates.model_copy(
        update={"agents": agent_aggregates(records, agent_names, config, seed)}
    )
    families = sorted({s.view.family for s in scenarios})
    manifest = build_manifest(
        seed=seed,
        condition="adaptive" if run.adaptive else "static",
        trials=run.trials,
        policies=[*policy_specs, *(PolicySpec(name=n) for n in agent_names)],
        scenarios=scenarios,
        scenario_source=run.scenario_source,
        generator_versions=run.generator_versions or {f: "file" for f in families},
        config=config,
    )
    manifest = manifest.model_copy(
        update={
            "agent": {
                "mode": agent_run.mode,
                "concurrency": agent_run.concurrency,
                "protocol": agent_run.config.model_dump(mode="json"),
                "agents": {a.name: a.describe() for a in agents},
            }
        }
    )
    if run.sealed:
        return Results(
            sealed=True, manifest=manifest, scenarios=[], trials=[], aggregates=aggregates
        )
    return Results(manifest=manifest, scenarios=summaries, trials=in_tables, aggregates=aggregates)
