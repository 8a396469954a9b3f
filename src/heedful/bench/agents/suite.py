"""A run that mixes programmatic policies and agents under test into one results file.

Programmatic policies run through :func:`heedful.bench.run.runner.run_benchmark`; agents through
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
from heedful.bench.agents.runner import AgentProgress, modes_of, run_agents, run_agents_on
from heedful.bench.config import DEFAULT_CONFIG, BenchConfig
from heedful.bench.manifest import build_manifest
from heedful.bench.results import PolicySpec, Results, ScenarioSummary, TrialRecord
from heedful.bench.results.agents import PRODUCTION_SUFFIX
from heedful.bench.run.backend import Backend
from heedful.bench.run.checkpoint import Checkpoint
from heedful.bench.run.plays import Plays
from heedful.bench.run.runner import run_benchmark
from heedful.bench.score.aggregate import aggregate
from heedful.bench.score.initiation import with_initiation
from heedful.bench.score.scoring import ScenarioOracle
from heedful.errors import HeedfulError, InvalidArgumentError
from heedful.model import Scenario

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
    """

    settings: AgentSettings
    mode: str = "attention"
    concurrency: int = 8
    config: AgentConfig = DEFAULT_AGENT_CONFIG
    on_progress: Callable[[AgentProgress], None] | None = field(default=None, compare=False)


def table_name(record: TrialRecord) -> str:
    """The row name of a record in the policy tables (production-mode trials get a suffix)."""
    return record.policy + (PRODUCTION_SUFFIX if record.mode == "production" else "")


def run_suite(
    scenarios: Sequence[Scenario],
    policies: Sequence[PolicySpec | str],
    agents: Sequence[str],
    agent_run: AgentRun | None,
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
    workers: int | None = 1,
    backend: Backend | None = None,
    plays: Plays | None = None,
    checkpoint: Checkpoint | None = None,
) -> Results:
    """Run policies and agents on the same scenarios and write one :class:`Results`.

    With no agent this is exactly :func:`run_benchmark` (``plays`` keeps the controller
    policies' plays, as there). With a ``backend`` (e.g. Ray), the
    scenarios of the programmatic policies and each agent trial are its jobs, at most
    ``agent_run.concurrency`` agent trials in flight at once; the results are the same.
    ``checkpoint`` keeps the programmatic policies' finished scenarios (``--resume``); agent
    trials are played again (their response cache answers the calls already made).

    Raises:
        InvalidArgumentError: agents named without ``agent_run`` (no model or endpoint), bad
            mode or concurrency, and everything :func:`run_benchmark` raises.
    """
    specs = [p if isinstance(p, PolicySpec) else PolicySpec(name=p) for p in policies]
    common = {
        "trials": trials,
        "seed": seed,
        "adaptive": adaptive,
        "config": config,
        "world_keys": world_keys,
        "initiation": initiation,
    }
    if not agents:
        return run_benchmark(
            scenarios,
            specs,
            scenario_source=scenario_source,
            generator_versions=generator_versions,
            progress=progress,
            sealed=sealed,
            workers=workers,
            backend=backend,
            plays=plays,
            checkpoint=checkpoint,
            **common,  # type: ignore[arg-type]
        )
    if agent_run is None:
        raise InvalidArgumentError(
            f"agent {agents[0]!r} needs a model endpoint: give --model and --base-url"
        )
    modes_of(agent_run.mode)
    if not scenarios:
        raise InvalidArgumentError("no scenarios to run")
    built = [get_agent(name, agent_run.settings, agent_run.config) for name in agents]
    try:
        base = (
            run_benchmark(
                scenarios,
                specs,
                progress=progress if not sealed else False,
                workers=workers,
                backend=backend,
                plays=plays,
                checkpoint=checkpoint,
                **common,  # type: ignore[arg-type]
            )
            if policies
            else None
        )
        oracles = (
            [ScenarioOracle.prepare(s, adaptive=adaptive) for s in scenarios]
            if backend is None or base is None
            else []
        )
        if backend is None:
            records = asyncio.run(_run_agents(scenarios, built, oracles, agent_run, common))
        else:
            records = run_agents_on(
                backend,
                scenarios,
                agents,
                agent_run.settings,
                mode=agent_run.mode,
                concurrency=agent_run.concurrency,
                agent_config=agent_run.config,
                on_progress=agent_run.on_progress,
                **common,  # type: ignore[arg-type]
            )
            asyncio.run(_close(built))  # built here only to describe them in the manifest
    except HeedfulError as exc:
        if not sealed:
            raise
        raise type(exc)(
            f"the hold-out run failed ({type(exc).__name__}); details withheld"
        ) from None
    summaries: list[ScenarioSummary] = (
        base.scenarios if base is not None else [o.summary(config) for o in oracles]
    )
    all_records = (base.trials if base is not None else []) + records
    return _results(
        scenarios,
        all_records,
        summaries,
        base.manifest.policies if base is not None else [],
        built,
        agent_run,
        sealed=sealed,
        seed=seed,
        trials=trials,
        adaptive=adaptive,
        config=config,
        scenario_source=scenario_source,
        generator_versions=generator_versions,
    )


async def _run_agents(
    scenarios: Sequence[Scenario],
    agents: Sequence[Agent],
    oracles: Sequence[ScenarioOracle],
    run: AgentRun,
    common: dict[str, object],
) -> list[TrialRecord]:
    try:
        return await run_agents(
            scenarios,
            agents,
            mode=run.mode,
            concurrency=run.concurrency,
            agent_config=run.config,
            on_progress=run.on_progress,
            oracles=oracles,
            **common,  # type: ignore[arg-type]
        )
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
    run: AgentRun,
    *,
    sealed: bool,
    seed: int,
    trials: int,
    adaptive: bool,
    config: BenchConfig,
    scenario_source: str,
    generator_versions: dict[str, str] | None,
) -> Results:
    agent_names = [a.name for a in agents]
    policies = [spec.name for spec in policy_specs]
    modes = modes_of(run.mode)
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
        condition="adaptive" if adaptive else "static",
        trials=trials,
        policies=[*policy_specs, *(PolicySpec(name=n) for n in agent_names)],
        scenarios=scenarios,
        scenario_source=scenario_source,
        generator_versions=generator_versions or {f: "file" for f in families},
        config=config,
    )
    manifest = manifest.model_copy(
        update={
            "agent": {
                "mode": run.mode,
                "concurrency": run.concurrency,
                "protocol": run.config.model_dump(mode="json"),
                "agents": {a.name: a.describe() for a in agents},
            }
        }
    )
    if sealed:
        return Results(
            sealed=True, manifest=manifest, scenarios=[], trials=[], aggregates=aggregates
        )
    return Results(manifest=manifest, scenarios=summaries, trials=in_tables, aggregates=aggregates)
