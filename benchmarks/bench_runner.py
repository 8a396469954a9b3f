"""Speed of the benchmark runner, as a ratio against the oracle work it cannot avoid.

Run: ``.venv/bin/python benchmarks/bench_runner.py`` (``--quick``: 10 scenarios, 2 trials, one
timing each). Generates 60 scenarios (families G and B),
then measures (1) compiling them and running the static oracle once each — the floor — and
(2) a whole static run of the five built-in policies × 4 trials, aggregates included. Prints
trials per second and the ratio ``run time / oracle-only time`` (lower is better).
"""

from __future__ import annotations

import argparse

from _timing import best_time
from heedful import decision
from heedful.bench import generate_suite, run_benchmark

POLICIES = ["random", "recency", "loudness", "authority-first", "oracle"]
TRIALS = 4


def main() -> None:
    """Measure and print."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="10 scenarios, 2 trials, one timing each")
    args = ap.parse_args()
    count, trials, repeats = (5, 2, 1) if args.quick else (30, TRIALS, 3)
    scenarios = generate_suite(["G", "B"], count, seed=0)

    def oracle_only() -> None:
        for s in scenarios:
            decision.static_oracle(decision.compile_problem(s.view, s.truth), s.view.budget)

    def full_run() -> None:
        run_benchmark(scenarios, POLICIES, trials=trials, seed=0, progress=False)

    t_oracle, t_run = best_time(oracle_only, repeats), best_time(full_run, repeats)
    n_trials = len(scenarios) * len(POLICIES) * trials
    print(f"scenarios: {len(scenarios)}, trials: {n_trials}")
    print(
        f"oracle only: {t_oracle:.3f} s; full run: {t_run:.3f} s ({n_trials / t_run:,.0f} trials/s)"
    )
    print(f"ratio run/oracle-only: {t_run / t_oracle:.1f}x")


if __name__ == "__main__":
    main()
