"""The one trial loop: every policy plays every trial of one scenario, of any kind.

A scenario kind (inspection, switching, schedule, …) is a
:class:`~heedful.bench.kinds.ScenarioKindSpec` of :mod:`heedful.bench.kinds`: how a scenario is
prepared into its *case* (the compiled problem and the exact oracle, PRIVATE), and how one policy
plays one trial of a case and is scored against that oracle. :func:`play_scenario` is the loop
every kind runs through — the same in this process, in ``--workers`` processes and on Ray.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from heedful.bench.kinds import ScenarioKindSpec, TrialJob

__all__ = ["TrialJob", "play_scenario"]

C = TypeVar("C")
R = TypeVar("R")


def play_scenario(
    kind: ScenarioKindSpec[C, R],
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
