"""Run independent jobs across worker processes, results in input order.

The runner plays scenarios in parallel with it (``heedful bench run --workers N``). Each job's
result must depend on its input alone, so the output is the same for any number of workers.
"""

from __future__ import annotations

import contextlib
import gc
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

from heedful.errors import InvalidArgumentError

__all__ = ["available_cores", "few_collections", "map_in_processes", "resolve_workers"]

T = TypeVar("T")
R = TypeVar("R")


def available_cores() -> int:
    """CPU cores this process may run on (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def resolve_workers(workers: int | None) -> int:
    """The worker count to use: ``None`` means one per available core.

    Raises:
        InvalidArgumentError: ``workers`` below 1.
    """
    if workers is None:
        return available_cores()
    if workers < 1:
        raise InvalidArgumentError(f"workers must be at least 1, got {workers}")
    return workers


def map_in_processes(
    fn: Callable[[T], R],
    items: Sequence[T],
    workers: int,
    initializer: Callable[..., None] | None = None,
    initargs: tuple[Any, ...] = (),
) -> Iterator[R]:
    """Yield ``fn(item)`` for each item, in order, computed by ``workers`` processes.

    ``fn`` and ``initializer`` must be module-level functions and the items picklable. Each
    worker runs ``initializer(*initargs)`` once before its first job. An exception in a job is
    raised here, and the remaining jobs are cancelled.
    """
    with ProcessPoolExecutor(
        max_workers=workers, initializer=initializer, initargs=initargs
    ) as pool:
        futures = [pool.submit(fn, item) for item in items]
        try:
            for future in futures:
                yield future.result()
        finally:
            for future in futures:
                future.cancel()


@contextlib.contextmanager
def few_collections(gen0: int = 50_000) -> Iterator[None]:
    """Run the cyclic garbage collector less often inside the block (usable as a decorator).

    A run allocates millions of short-lived objects (candidates, trace events, records) that
    reference counting frees at once; at the default threshold (700 allocations) the collector
    would walk the growing heap of kept records some two thousand times. Nothing a run computes
    depends on when garbage is collected; the previous thresholds are restored afterwards.
    """
    old = gc.get_threshold()
    gc.set_threshold(max(old[0], gen0), max(old[1], 20), max(old[2], 100))
    try:
        yield
    finally:
        gc.set_threshold(*old)
