"""The options of a run, as objects: :class:`Trials` (what every trial of a run shares, policies'
and agents' alike) and :class:`BenchRun` (how the programmatic policies of a run are played).

:func:`heedful.bench.run.benchmark.run_benchmark` takes these options as keywords (the
documented call) and builds a :class:`BenchRun`; ``run_suite`` of
:mod:`heedful.bench.agents.suite` and ``run_to_folder`` build one and hand it on, and the agent
runner's options (``AgentTrials`` of :mod:`heedful.bench.agents.runner`) extend :class:`Trials`,
so each option is written and checked once.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from heedful.bench.config import DEFAULT_CONFIG, BenchConfig
from heedful.bench.results.plays import Plays
from heedful.bench.run.backend import Backend
from heedful.bench.run.checkpoint import Checkpoint
from heedful.errors import InvalidArgumentError

__all__ = ["BenchRun", "ProgressFn", "Trials"]

#: Progress callback: ``(done, total, label)`` after each trial (``label`` never names a scenario
#: of a sealed run).
ProgressFn = Callable[[int, int, str], None]


@dataclass(frozen=True)
class Trials:
    """What every trial of a run shares: policies and agents play the same trials and worlds.

    Attributes:
        trials: Trials per scenario and policy (≥ 1).
        seed: Root seed (≥ 0); the whole run is a function of it.
        adaptive: Reveal each observation before the next choice (default: static condition).
        config: Thresholds and statistics settings.
        world_keys: The world stream of each scenario (default: its position). Scenarios given
            the same key (an announced scenario and its unprompted twin) get the same worlds, the
            same source outcomes and the same policy randomness in every trial.
        initiation: Record the unprompted-condition metrics (document 000 §15.2) on every trial;
            they are always recorded on ``condition: unprompted`` scenarios.

    Raises:
        InvalidArgumentError: a trial count below 1 or a negative seed.
    """

    trials: int
    seed: int
    adaptive: bool = False
    config: BenchConfig = DEFAULT_CONFIG
    world_keys: Sequence[int] | None = None
    initiation: bool = False

    def __post_init__(self) -> None:
        if self.trials < 1:
            raise InvalidArgumentError(f"trials must be at least 1, got {self.trials}")
        if self.seed < 0:
            raise InvalidArgumentError(f"seed must be a non-negative integer, got {self.seed}")
        if self.world_keys is not None:
            object.__setattr__(self, "world_keys", tuple(self.world_keys))

    def keys_for(self, n_scenarios: int) -> list[int]:
        """The world key of each of ``n_scenarios`` scenarios.

        Raises:
            InvalidArgumentError: ``world_keys`` given without one key per scenario.
        """
        if self.world_keys is None:
            return list(range(n_scenarios))
        if len(self.world_keys) != n_scenarios:
            raise InvalidArgumentError("world_keys needs one key per scenario")
        return list(self.world_keys)

    def trial_fields(self) -> dict[str, Any]:
        """This object's :class:`Trials` fields, to build a richer option object from."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(Trials)}


@dataclass(frozen=True)
class BenchRun(Trials):
    """How the programmatic policies of a run are played (the keywords of ``run_benchmark``).

    Attributes:
        scenario_source: Where the scenarios came from, for the manifest.
        generator_versions: Generator versions, for the manifest.
        progress: A :data:`ProgressFn` called after each trial, or ``True``/``False`` for a Rich
            bar on stderr (default: a bar only when stderr is a terminal).
        sealed: Hold-out run: the result keeps aggregates only (no scenario summaries, no
            per-trial records) and the progress bar never names a scenario.
        workers: Processes that play scenarios in parallel (``None``: one per CPU core; ``1``:
            in this process). Each worker builds its own policies; the result is identical for
            every worker count. The progress callback is then called once per finished scenario
            (with the trials it played) instead of after each trial. The aggregation runs in
            this process; with a ``backend``, only the aggregation uses these local processes.
        backend: Where scenarios are played (e.g. a Ray cluster, see
            :mod:`heedful.bench.run.backend`); default: this process or ``workers`` local
            processes. The results are identical on every backend.
        plays: Filled with the reads and trace of every play of a controller policy, for the
            reports read after the run (:mod:`heedful.bench.results.plays`); ``None`` keeps nothing.
        checkpoint: Each finished scenario is saved there, and a scenario already saved there
            is read instead of played (``--resume``; :mod:`heedful.bench.run.checkpoint`). Its
            plays are not kept: the reports replay them, with the same outcome.
    """

    scenario_source: str = "<memory>"
    generator_versions: dict[str, str] | None = None
    progress: bool | ProgressFn | None = field(default=None, compare=False)
    sealed: bool = False
    workers: int | None = 1
    backend: Backend | None = field(default=None, compare=False)
    plays: Plays | None = field(default=None, compare=False)
    checkpoint: Checkpoint | None = field(default=None, compare=False)
