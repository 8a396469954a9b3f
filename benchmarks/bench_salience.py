"""Speed of the salience pipeline, as a ratio against a plain whitespace split of the same text.

Run: ``.venv/bin/python benchmarks/bench_salience.py``. Prints turns per second and the ratio
``pipeline time / str.split time`` measured in the same run (lower is better).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from heedful.salience import AttentionSystem

TURNS = [
    "The server is down! Fix it immediately!",
    "Check the server error logs",
    "Tell me about the Docker configuration for Nginx",
    "Now edit the config file for Redis with Sentinel, then restart the cluster.",
] * 250


def _time(fn: Callable[[], None], repeats: int = 5) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    """Measure and print."""

    def pipeline() -> None:
        attn = AttentionSystem()
        for text in TURNS:
            attn.process(text)

    def baseline() -> None:
        for text in TURNS:
            text.split()

    t_pipe, t_base = _time(pipeline), _time(baseline)
    print(f"turns: {len(TURNS)}")
    print(f"pipeline: {len(TURNS) / t_pipe:,.0f} turns/s")
    print(f"ratio pipeline/split: {t_pipe / t_base:.1f}x")


if __name__ == "__main__":
    main()
