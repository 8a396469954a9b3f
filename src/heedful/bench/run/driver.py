"""The driver of a run, the same for every scenario kind: each scenario played once, in order.

A scenario a killed run already finished is read from the run's checkpoint (``--resume``) instead
of played; the others are played in this process (ticking the progress after every trial) or as
jobs of a :class:`~heedful.bench.run.backend.Backend` (ticking after every scenario), and each
outcome is kept in the checkpoint as it arrives. The outcomes come back in scenario order, so a
run is the same whichever way its scenarios were played, and whether it was resumed.
:func:`heedful.bench.run.runner.play_inspection` drives the inspection scenarios with it and
:func:`heedful.bench.run.kinds.play_kinds` the switching and schedule ones (both parts of
:func:`heedful.bench.run.benchmark.run_benchmark`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from heedful.bench.run.backend import Backend, local_backend, map_traced
from heedful.bench.run.checkpoint import Checkpoint, Part
from heedful.bench.run.options import ProgressFn

__all__ = ["drive"]

I = TypeVar("I")  # noqa: E741 - one scenario's job item
R = TypeVar("R")  # one scenario's outcome


def drive(
    ids: Sequence[str],
    items: Sequence[I],
    task: Callable[[I], R],
    *,
    trials_each: Sequence[int],
    tick: ProgressFn,
    backend: Backend | None = None,
    workers: int = 1,
    local: Callable[[I, Callable[[str], None]], R] | None = None,
    checkpoint: Checkpoint | None = None,
    kept: Part[R] | None = None,
    sealed: bool = False,
) -> list[R]:
    """Play every scenario (``ids[i]``, job item ``items[i]``) once; return the outcomes in order.

    Args:
        task: Plays one scenario's item: the picklable job of a backend.
        trials_each: How many trials each scenario plays (the progress counts trials).
        tick: Called with (trials done, trials in all, label); the label is the scenario id, or
            ``"sealed"`` in a sealed run.
        backend: Where the scenarios are played; ``None``: this process when ``workers`` is 1,
            else ``workers`` local processes.
        local: Plays one item in this process, calling its argument with a label after every
            trial (used when there is no backend and one worker; default ``task``, ticking after
            each scenario).
        checkpoint, kept: Where finished scenarios are kept, and how (a
            :class:`~heedful.bench.run.checkpoint.Part`; both or neither).
    """
    saved: dict[int, R] = {}
    if checkpoint is not None and kept is not None:
        for i, sid in enumerate(ids):
            if (found := checkpoint.kept(kept, i, sid)) is not None:
                saved[i] = found
    total = sum(trials_each)
    outcomes: list[R] = []

    def keep(i: int, outcome: R) -> None:
        if checkpoint is not None and kept is not None:
            checkpoint.keep(kept, i, ids[i], outcome)

    if backend is None and workers <= 1 and local is not None:
        done = 0

        def step(label: str) -> None:
            nonlocal done
            done += 1
            tick(done, total, label)

        for i, item in enumerate(items):
            if i in saved:
                outcome = saved[i]
                done += trials_each[i]
                tick(done, total, "sealed" if sealed else ids[i])
            else:
                outcome = local(item, step)
                keep(i, outcome)
            outcomes.append(outcome)
        return outcomes
    todo = [items[i] for i in range(len(items)) if i not in saved]
    played = iter(map_traced(backend or local_backend(workers), task, todo))
    done = 0
    for i in range(len(items)):
        if i in saved:
            outcome = saved[i]
        else:
            outcome = next(played)
            keep(i, outcome)
        outcomes.append(outcome)
        done += trials_each[i]
        tick(done, total, "sealed" if sealed else ids[i])
    return outcomes
