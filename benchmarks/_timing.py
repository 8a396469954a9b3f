"""Timing helper shared by the benchmark scripts.

The scripts run as ``.venv/bin/python benchmarks/<script>.py``, which puts this folder first on
``sys.path``, so they import it as ``from _timing import best_time``.
"""

from __future__ import annotations

import time
from collections.abc import Callable


def best_time(fn: Callable[[], object], repeats: int = 3) -> float:
    """Return the best wall time of ``repeats`` calls of ``fn``, in seconds.

    The minimum, not the mean: it is the run least disturbed by other work on a shared machine.
    """
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best
