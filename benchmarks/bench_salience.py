"""Speed of the salience pipeline, as a ratio against a plain whitespace split of the same text.

Run: ``.venv/bin/python benchmarks/bench_salience.py``. Prints turns per second and the ratio
``pipeline time / str.split time`` measured in the same run (lower is better).
"""

from __future__ import annotations

from _timing import best_time
from heedful.salience import AttentionSystem

TURNS = [
    "The server is down! Fix it immediately!",
    "Check the server error logs",
    "Tell me about the Docker configuration for Nginx",
    "Now edit the config file for Redis with Sentinel, then restart the cluster.",
] * 250


def main() -> None:
    """Measure and print."""

    def pipeline() -> None:
        attn = AttentionSystem()
        for text in TURNS:
            attn.process(text)

    def baseline() -> None:
        for text in TURNS:
            text.split()

    t_pipe, t_base = best_time(pipeline, repeats=5), best_time(baseline, repeats=5)
    print(f"turns: {len(TURNS)}")
    print(f"pipeline: {len(TURNS) / t_pipe:,.0f} turns/s")
    print(f"ratio pipeline/split: {t_pipe / t_base:.1f}x")


if __name__ == "__main__":
    main()
