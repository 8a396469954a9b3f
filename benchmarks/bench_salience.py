"""Speed of the salience pipeline, as a ratio against a plain whitespace split of the same text.

Run: ``.venv/bin/python benchmarks/bench_salience.py`` (``--quick``: 200 turns, best of 2).
Prints turns per second and the ratio ``pipeline time / str.split time`` measured in the same
run (lower is better).
"""

from __future__ import annotations

import argparse

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
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="200 turns, best of 2")
    args = ap.parse_args()
    turns, repeats = (TURNS[:200], 2) if args.quick else (TURNS, 5)

    def pipeline() -> None:
        attn = AttentionSystem()
        for text in turns:
            attn.process(text)

    def baseline() -> None:
        for text in turns:
            text.split()

    t_pipe, t_base = best_time(pipeline, repeats=repeats), best_time(baseline, repeats=repeats)
    print(f"turns: {len(turns)}")
    print(f"pipeline: {len(turns) / t_pipe:,.0f} turns/s")
    print(f"ratio pipeline/split: {t_pipe / t_base:.1f}x")


if __name__ == "__main__":
    main()
