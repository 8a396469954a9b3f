"""The agent runner: agents × scenarios × trials (× modes), concurrently, scored like policies.

Each trial gets the world the policy runner draws for the same (scenario, trial) — the same
root seed and streams — so an agent's records pair with every programmatic policy's, and the
attention-mode and production-mode trials of one agent pair with each other (same world, same
source outcomes). Trials run as asyncio tasks, at most ``concurrency`` at once; a progress
callback hears after every trial how many calls, tokens and errors the run has spent.

Scoring is the bench's :func:`~heedful.bench.score.scoring.score_trial` on the agent's own action,
beliefs, spontaneous and forced reads: every stage of document 000 §13 can fail.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict, Unpack

from heedful.bench.agents.advice import Advisor
from heedful.bench.agents.contract import Agent, AgentConfig, AgentSettings, CallStats, get_agent
from heedful.bench.agents.env import Mode, TrialEnv
from heedful.bench.agents.outcome import score_agent_trial
from heedful.bench.config import BenchConfig
from heedful.bench.results import FailureCode, TrialRecord
from heedful.bench.run.backend import Backend
from heedful.bench.run.options import Trials
from heedful.bench.score.scoring import ScenarioOracle, TrialWorld
from heedful.bench.seeds import Stream, generator, name_key
from heedful.bench.views import policy_view
from heedful.errors import InvalidArgumentError
from heedful.model import Condition, Scenario

__all__ = [
    "MODES",
    "AgentProgress",
    "AgentTrialOptions",
    "AgentTrialTask",
    "AgentTrials",
    "modes_of",
    "run_agents",
    "run_agents_on",
    "run_agents_sync",
]

#: ``--mode`` values.
MODES = ("attention", "production", "both")
#: Names the stream of the per-trial order of the prompt's sources and the tools' enums.
ORDER_KEY = "agent-prompt-order"


def modes_of(mode: str) -> tuple[Mode, ...]:
    """The validator modes a ``--mode`` value runs."""
    if mode == "both":
        return ("attention", "production")
    if mode in ("attention", "production"):
        return (mode,)  # type: ignore[return-value]
    raise InvalidArgumentError(f"--mode must be one of {', '.join(MODES)}, not {mode!r}")


@dataclass
class AgentProgress:
    """Running totals of an agent run (what the progress bar shows)."""

    total: int
    done: int = 0
    flagged: int = 0
    usage: CallStats | None = None

    def __post_init__(self) -> None:
        if self.usage is None:
            self.usage = CallStats()

    def count(
        self,
        record: TrialRecord,
        stats: CallStats,
        on_progress: Callable[[AgentProgress], None] | None,
    ) -> None:
        """Add one finished trial to the totals and tell ``on_progress`` (if any)."""
        self.done += 1
        self.flagged += record.protocol_error is not None
        assert self.usage is not None
        self.usage.add(stats)
        if on_progress is not None:
            on_progress(self)


@dataclass(frozen=True)
class AgentTrials(Trials):
    """How agent trials are played: the run's :class:`~heedful.bench.run.options.Trials` (the
    same trials, seed and worlds as the policies') and the agents' own options.

    Attributes:
        mode: ``attention``, ``production`` or ``both`` (:data:`MODES`).
        concurrency: Trials in flight at once (≥ 1): the limit of the endpoint the agents share.
        agent_config: Protocol numbers (turn limit, validator); ``None``: the defaults.
        on_progress: Called after every trial with the running totals.
        on_notice: Called once with a line for the terminal when an agent's endpoint is taken
            for down (``endpoint_down``).

    Raises:
        InvalidArgumentError: a bad trial count, seed, concurrency or mode.
    """

    mode: str = "attention"
    concurrency: int = 8
    agent_config: AgentConfig | None = None
    on_progress: Callable[[AgentProgress], None] | None = field(default=None, compare=False)
    on_notice: Callable[[str], None] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.concurrency < 1:
            raise InvalidArgumentError(f"--concurrency must be at least 1, got {self.concurrency}")
        modes_of(self.mode)


@dataclass(frozen=True)
class _Job:
    index: int
    scenario: Scenario
    oracle: ScenarioOracle
    key: int
    trial: int
    agent: Agent
    mode: Mode


async def run_agents(
    scenarios: Sequence[Scenario],
    agents: Sequence[Agent],
    run: AgentTrials,
    *,
    oracles: Sequence[ScenarioOracle] | None = None,
) -> list[TrialRecord]:
    """Run every agent on every scenario ``run.trials`` times in each mode; return the records.

    Records come back in a fixed order (scenario, trial, agent, mode) whatever order the trials
    finished in, so a rerun from the cache writes the same file. ``oracles`` (one per scenario)
    saves preparing them again when the caller already has them.

    Raises:
        InvalidArgumentError: a world key or oracle list without one entry per scenario.
    """
    keys = run.keys_for(len(scenarios))
    if oracles is not None and len(oracles) != len(scenarios):
        raise InvalidArgumentError("oracles needs one oracle per scenario")
    modes = modes_of(run.mode)
    jobs: list[_Job] = []
    for si, scenario in enumerate(scenarios):
        oracle = (
            oracles[si]
            if oracles is not None
            else ScenarioOracle.prepare(scenario, adaptive=run.adaptive)
        )
        for trial in range(run.trials):
            for agent in agents:
                for m in modes:
                    jobs.append(_Job(len(jobs), scenario, oracle, keys[si], trial, agent, m))
    progress = AgentProgress(total=len(jobs))
    gate = asyncio.Semaphore(run.concurrency)
    records: list[TrialRecord | None] = [None] * len(jobs)
    down = _DownWatch(run)

    totals = {
        name: sum(j.agent.name == name for j in jobs) for name in {j.agent.name for j in jobs}
    }

    async def play(job: _Job) -> None:
        name = job.agent.name
        async with gate:
            skip = await down.before(name)
            rec, stats = await _play(job, run, skip=skip)
            if skip is None:
                await down.after(name, rec, stats, totals[name])
        records[job.index] = rec
        progress.count(rec, stats, run.on_progress)

    await asyncio.gather(*(play(j) for j in jobs))
    return pair_rescues([r for r in records if r is not None])


#: The protocol codes of a trial whose every model call failed at the endpoint.
_UNANSWERED = ("endpoint_error", "endpoint_timeout", "trial_timeout")


class _DownWatch:
    """Takes an agent's endpoint for down after ``endpoint_down_after`` trials in a row that got
    no answer (no answered call, ended by an endpoint failure): its remaining trials are then
    recorded ``endpoint_down`` without calling it.

    While the agent's last finished trial got no answer, a new trial of it waits until its
    trials in flight have finished (they settle the question: one answer and all go on, enough
    failures and the rest are skipped), so concurrency cannot start a second batch of trials
    against an endpoint that answers nothing."""

    def __init__(self, run: AgentTrials) -> None:
        config = run.agent_config or AgentConfig()
        self.threshold = config.endpoint_down_after
        self.notice = run.on_notice
        self.run_of: dict[str, int] = {}
        self.down: dict[str, str] = {}
        self.flight: dict[str, int] = {}
        self._changed: asyncio.Condition | None = None

    @property
    def changed(self) -> asyncio.Condition:
        if self._changed is None:  # made on the running loop
            self._changed = asyncio.Condition()
        return self._changed

    def skip(self, agent: str) -> str | None:
        """The ``endpoint_down`` reason of a trial not to play (``None``: play it)."""
        return self.down.get(agent)

    async def before(self, agent: str) -> str | None:
        """Wait while the endpoint is in doubt; the ``endpoint_down`` reason of a trial not
        to play, or ``None`` (then the trial counts as in flight)."""
        if not self.threshold:
            return None
        async with self.changed:
            await self.changed.wait_for(
                lambda: (
                    agent in self.down
                    or not self.run_of.get(agent, 0)
                    or not self.flight.get(agent, 0)
                )
            )
            if agent in self.down:
                return self.down[agent]
            self.flight[agent] = self.flight.get(agent, 0) + 1
            return None

    async def after(self, agent: str, rec: TrialRecord, stats: CallStats, total: int) -> None:
        """Count a finished trial and wake the trials waiting on this agent's endpoint."""
        if not self.threshold:
            return
        async with self.changed:
            self.flight[agent] -= 1
            self.count(agent, rec, stats, total)
            self.changed.notify_all()

    def count(self, agent: str, rec: TrialRecord, stats: CallStats, total: int) -> None:
        unanswered = stats.calls == 0 and (rec.protocol_error or "").startswith(_UNANSWERED)
        self.run_of[agent] = self.run_of.get(agent, 0) + 1 if unanswered else 0
        if self.threshold and self.run_of[agent] >= self.threshold and agent not in self.down:
            why = (rec.protocol_error or "").split(":", 1)[0]
            self.down[agent] = (
                f"endpoint_down: not played — the endpoint answered no call in {self.threshold} "
                f"trials in a row (the last: {why})"
            )
            if self.notice is not None:
                self.notice(
                    f"warning: {agent}: the endpoint answered no call in {self.threshold} "
                    f"trials in a row ({why}); its trials not yet started are recorded "
                    f"endpoint_down without calling it (of {total} in all)"
                )


def pair_rescues(records: list[TrialRecord]) -> list[TrialRecord]:
    """Keep ``rescued`` (and ``VALIDATOR_RESCUED``) only where the forced read made the
    difference: the attention-mode twin of the same (scenario, trial, agent) decided wrong, and
    the production trial decided right on beliefs that agree with what it read (no
    ``EVIDENCE_IGNORED``). A production trial without a twin (``--mode production``) keeps
    the per-trial judgement."""
    twins = {(r.scenario_id, r.trial, r.policy): r for r in records if r.mode == "attention"}
    out = []
    for r in records:
        twin = twins.get((r.scenario_id, r.trial, r.policy))
        keep = twin is None or not (twin.action_correct or FailureCode.EVIDENCE_IGNORED in r.codes)
        if r.mode == "production" and r.rescued and not keep:
            codes = [c for c in r.codes if c is not FailureCode.VALIDATOR_RESCUED]
            r = r.model_copy(update={"rescued": False, "codes": codes})
        out.append(r)
    return out


async def _play(
    job: _Job, run: AgentTrials, skip: str | None = None
) -> tuple[TrialRecord, CallStats]:
    """Play one trial and score it; with ``skip`` (an ``endpoint_down`` reason) it is recorded
    with that reason and no call."""
    scenario, agent, seed, agent_config = job.scenario, job.agent, run.seed, run.agent_config
    world = TrialWorld.draw(job.oracle, generator(seed, Stream.TRIALS, job.key, job.trial))
    view = policy_view(scenario)
    advisor = None
    if agent.advised:
        rng = generator(seed, Stream.POLICY, job.key, job.trial, name_key(agent.name))
        advisor = Advisor(view, rng)
    env = TrialEnv(
        view,
        world.observation,
        {sid: t.render for sid, t in scenario.truth.sources.items()},
        adaptive=run.adaptive,
        mode=job.mode,
        advisor=advisor,
        # Both modes of a trial share the draw: they ask the same questions until the validator
        # steps in, and then get the same answers (paired samples).
        draw=f"{scenario.id}#{job.trial}",
        reveals=scenario.reveals(),
        legal_moves=agent.legal_moves,
        # One order per trial, the same for every agent: their prompts differ only where the
        # agents do (paired samples).
        order=generator(seed, Stream.POLICY, job.key, job.trial, name_key(ORDER_KEY)),
        **({"config": agent_config} if agent_config is not None else {}),
    )
    try:
        if skip is not None:
            env.flag(skip)
            env.done = True
            stats = CallStats()
        else:
            stats = await agent.play(env)
    except Exception as exc:  # the last line of defence: one trial's crash never ends the run
        env.flag(f"agent_crash: {type(exc).__name__}: {str(exc)[:200]}")
        env.done = True
        stats = CallStats(errors=1)
    measure = run.initiation or scenario.view.condition is Condition.UNPROMPTED
    record = score_agent_trial(
        scenario,
        job.oracle,
        world,
        agent=agent.name,
        trial=job.trial,
        adaptive=run.adaptive,
        transcript=env.transcript,
        stats=stats,
        config=run.config,
        initiation=measure,
        mode=job.mode,
    )
    return record, stats


class _RequiredTrialOptions(TypedDict):
    trials: int
    seed: int


class AgentTrialOptions(_RequiredTrialOptions, total=False):
    """The keywords of :func:`run_agents_sync`: the fields of :class:`AgentTrials`, typed
    (``trials`` and ``seed`` required; a test keeps the keys equal to the fields)."""

    adaptive: bool
    config: BenchConfig
    world_keys: Sequence[int] | None
    initiation: bool
    mode: str
    concurrency: int
    agent_config: AgentConfig | None
    on_progress: Callable[[AgentProgress], None] | None
    on_notice: Callable[[str], None] | None


def run_agents_sync(
    scenarios: Sequence[Scenario], agents: Sequence[Agent], **options: Unpack[AgentTrialOptions]
) -> list[TrialRecord]:
    """:func:`run_agents` from synchronous code, on its own event loop, with the fields of
    :class:`AgentTrials` as keywords (``trials=2, seed=0, ...``; :class:`AgentTrialOptions`); the
    agents are closed at the end (their connections belong to that loop).

    Raises:
        InvalidArgumentError: as :class:`AgentTrials` and :func:`run_agents`.
    """
    run = AgentTrials(**options)

    async def play() -> list[TrialRecord]:
        try:
            return await run_agents(scenarios, agents, run)
        finally:
            for agent in agents:
                await agent.aclose()

    return asyncio.run(play())


#: One agent trial as a job: (scenario, world key, trial, agent name, mode).
AgentTrial = tuple[Scenario, int, int, str, Mode]


@dataclass(frozen=True)
class AgentTrialTask:
    """One agent trial: the picklable job a :class:`~heedful.bench.run.backend.Backend` runs.

    The agent is built where the task runs (its client, cache file and key variable are read
    there) and closed after the trial; the scenario's oracle is prepared there too. The record is
    the one :func:`run_agents` writes for the same trial.
    """

    settings: AgentSettings
    #: The run's options, without its progress callback (that stays with the caller).
    run: AgentTrials

    def __call__(self, item: AgentTrial) -> tuple[TrialRecord, CallStats]:
        scenario, key, trial, name, mode = item
        oracle = ScenarioOracle.prepare(scenario, adaptive=self.run.adaptive)
        agent = get_agent(name, self.settings, self.run.agent_config)
        job = _Job(0, scenario, oracle, key, trial, agent, mode)

        async def play() -> tuple[TrialRecord, CallStats]:
            try:
                return await _play(job, self.run)
            finally:
                await agent.aclose()

        return asyncio.run(play())


def run_agents_on(
    backend: Backend,
    scenarios: Sequence[Scenario],
    agent_names: Sequence[str],
    settings: AgentSettings,
    run: AgentTrials,
) -> list[TrialRecord]:
    """:func:`run_agents` with each trial a job of ``backend`` (e.g. a Ray task).

    At most ``run.concurrency`` trials are in flight at once across the whole backend: the limit
    of the one endpoint the agents share. Records come back in :func:`run_agents`' order.

    Raises:
        InvalidArgumentError: a world key list without one key per scenario.
    """
    keys = run.keys_for(len(scenarios))
    modes = modes_of(run.mode)
    items: list[AgentTrial] = [
        (scenario, keys[si], trial, name, m)
        for si, scenario in enumerate(scenarios)
        for trial in range(run.trials)
        for name in agent_names
        for m in modes
    ]
    if settings.cache is not None:
        # Jobs may run in another working directory: they get the cache file's absolute path.
        settings = settings.model_copy(update={"cache": str(Path(settings.cache).resolve())})
    task = AgentTrialTask(settings, dataclasses.replace(run, on_progress=None, on_notice=None))
    progress = AgentProgress(total=len(items))
    records: list[TrialRecord] = []
    for rec, stats in backend.map(task, items, in_flight=run.concurrency):
        records.append(rec)
        progress.count(rec, stats, run.on_progress)
    return pair_rescues(records)
