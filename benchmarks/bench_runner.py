"""Speed of the benchmark runner, as a ratio against the oracle work it cannot avoid.

Run: ``.venv/bin/python benchmarks/bench_runner.py``. Generates 60 scenarios (families G and B),
then measures (1) compiling them and running the static oracle once each — the floor — and
(2) a whole static run of the five built-in policies × 4 trials, aggregates included. Prints
trials per second and the ratio ``run time / oracle-only time`` (lower is better).
"""

from __future__ import annotations

from _timing import best_time
from heedful import decision
from heedful.bench import generate_suite, run_benchmark

POLICIES = ["random", "recency", "loudness", "authority-first", "oracle"]
TRIALS = 4


def main() -> None:
    """Measure and print."""
    scenarios = generate_suite(["G", "B"], 30, seed=0)

    def oracle_only() -> None:
        for s in scenarios:
            decision.static_oracle(decision.compile_problem(s.view, s.truth), s.view.budget)

    def full_run() -> None:
        run_benchmark(scenarios, POLICIES, trials=TRIALS, seed=0, progress=False)

    t_oracle, t_run = best_time(oracle_only), best_time(full_run)
    n_trials = len(scenarios) * len(POLICIES) * TRIALS
    print(f"scenarios: {len(scenarios)}, trials: {n_trials}")
    print(
        f"oracle only: {t_oracle:.3f} s; full run: {t_run:.3f} s ({n_trials / t_run:,.0f} trials/s)"
    )
    print(f"ratio run/oracle-only: {t_run / t_oracle:.1f}x")


if __name__ == "__main__":
    main()
