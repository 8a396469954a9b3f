"""The one trial loop: every policy plays every trial of one scenario, of any kind.

A scenario kind (inspection, switching, schedule) is a :class:`TrialKind`: how a scenario is
prepared into its *case* (the compiled problem and the exact oracle, PRIVATE), and how one policy
plays one trial of a case and is scored against that oracle. :func:`play_scenario` is the loop
every kind runs through — the same in this process, in ``--workers`` processes and on Ray — and
:data:`heedful.bench.run.kinds.TRIAL_KINDS` holds the kinds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from heedful.bench.config import BenchConfig
from heedful.model.scenario import ScenarioKind

__all__ = ["TrialJob", "TrialKind", "play_scenario"]

C = TypeVar("C")
R = TypeVar("R")


@dataclass(frozen=True)
class TrialJob:
    """The settings every scenario of a run shares (picklable, sent to worker processes).

    Attributes:
        trials: Trials per scenario and policy.
        seed: Root seed.
        config: Benchmark settings.
        adaptive: Inspection: reveal each observation before the next choice.
        sealed: A hold-out run (no scenario is named).
        initiation: Inspection: record the unprompted-condition metrics on every trial.
        keep_plays: Inspection: keep the trace of every play of a controller policy.
    """

    trials: int
    seed: int
    config: BenchConfig
    adaptive: bool = False
    sealed: bool = False
    initiation: bool = False
    keep_plays: bool = False


@dataclass(frozen=True)
class TrialKind(Generic[C, R]):
    """What a scenario kind supplies to the one trial loop, :func:`play_scenario`.

    Attributes:
        kind: The scenario kind.
        prepare: ``(scenario, world key, job)`` → its case: the compiled problem and the exact
            oracle (PRIVATE, evaluator side), and whatever the kind's trials share.
        bind: Hands the case to a policy that is given the truth (the oracle policies), once per
            scenario before its trials; every other policy is left alone.
        play: ``(case, policy name, policy, trial, job)`` → the trial's record: one policy plays
            one trial and is scored against the case's oracle.
        policy_major: The order of a scenario's records: policy by policy (each policy's trials
            together) or, when false, trial by trial (every policy of a trial together; the
            inspection kind, whose policies of one trial share its world).
    """

    kind: ScenarioKind
    prepare: Callable[[Any, int, TrialJob], C]
    bind: Callable[[C, Any], None]
    play: Callable[[C, str, Any, int, TrialJob], R]
    policy_major: bool


def play_scenario(
    kind: TrialKind[C, R],
    scenario: Any,
    key: int,
    policies: Sequence[tuple[str, Any]],
    job: TrialJob,
    step: Callable[[str], None] | None = None,
) -> tuple[C, list[R]]:
    """Every policy plays every trial of one scenario; return its case and records.

    ``policies`` are ``(name, policy)`` pairs, each reset by its kind at every trial; ``key`` is
    the scenario's world stream (inspection: shared with its unprompted twin). ``step(label)`` is
    called after each trial (the label never names a scenario of a sealed run). The outcome is a
    function of the scenario, its key, the policies and the job.
    """
    case = kind.prepare(scenario, key, job)
    for _, policy in policies:
        kind.bind(case, policy)
    label = "sealed" if job.sealed else scenario.id
    trials = range(job.trials)
    order = (
        [(t, p) for p in policies for t in trials]
        if kind.policy_major
        else [(t, p) for t in trials for p in policies]
    )
    records: list[R] = []
    for trial, (name, policy) in order:
        records.append(kind.play(case, name, policy, trial, job))
        if step is not None:
            step(label)
    return case, records
