"""Speed of the exact oracles (SPEC §3, document 000 §14.3–§14.4).

Run: ``.venv/bin/python benchmarks/oracle_speed.py`` (``--quick``: one timing each, without the
adaptive oracle's 20-source case). Prints, in one run:

* the static oracle on 30 sources, budget 5, 5 binary variables, 3 actions — a realistic mix
  (4 high-value, 6 partially useful, 20 distractors, document 000 §14.1) and a worst case where
  every source is informative (goal: < 1 s each);
* the adaptive oracle on 12 sources, budget 3 (goal: < 5 s);
* the speed-up of the vectorised static oracle over the naive reference
  (``heedful.decision.reference``) on a case both can run (goal: ≥ 100×).
"""

from __future__ import annotations

import argparse
import os

# One core, as the goals are stated (set before numpy loads its BLAS).
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

from _timing import best_time  # noqa: E402
from heedful.decision import DecisionProblem, adaptive_oracle, compile_problem, static_oracle  # noqa: E402
from heedful.decision.reference import naive_adaptive_value, naive_static_oracle  # noqa: E402
from heedful.model import scenario_from_dict  # noqa: E402

VARIABLES = [f"x{i}" for i in range(5)]


def scenario(
    n_sources: int, *, all_informative: bool, n_vars: int = 5, seed: int = 0
) -> dict[str, Any]:
    """A scenario with binary variables and 3 actions; ``all_informative`` makes the worst case."""
    rng = np.random.default_rng(seed)
    names = VARIABLES[:n_vars]
    variables = {
        n: {"domain": ["0", "1"], "prior": [p, 1.0 - p]}
        for n, p in zip(names, rng.uniform(0.2, 0.8, size=n_vars).round(3), strict=True)
    }
    decisive = names[: min(3, n_vars)]
    actions = {
        "deploy_a": {
            "utility": [
                {"when": {decisive[0]: "1", decisive[-1]: "1"}, "value": 1.0},
                {"value": -1.0},
            ]
        },
        "deploy_b": {"utility": [{"when": {decisive[0]: "0"}, "value": 0.8}, {"value": -0.6}]},
        "hold": {
            "utility": [{"when": {decisive[1 % len(decisive)]: "1"}, "value": 0.2}, {"value": 0.0}]
        },
    }
    sources = []
    for i in range(n_sources):
        src: dict[str, Any] = {"id": f"s{i:02d}", "cost": {"tool_calls": 1, "tokens": 200}}
        if all_informative or i < 10:
            k = 2 if i % 6 == 5 else 1
            src["reports"] = [str(x) for x in rng.choice(names, size=min(k, n_vars), replace=False)]
            src["accuracy"] = float(rng.uniform(0.95, 0.99) if i < 4 else rng.uniform(0.6, 0.8))
            src["fails"] = float(rng.choice([0.0, 0.0, 0.1]))
        elif i % 2 == 0:
            src["reports"] = [names[-1]]
            src["echo"] = {names[-1]: "1"}
        sources.append(src)
    return {
        "format": "heedful.scenario/v1",
        "id": f"speed-{n_sources}",
        "budget": 5,
        "cost_weight": 0.002,
        "variables": variables,
        "actions": actions,
        "sources": sources,
    }


def problem(raw: dict[str, Any]) -> DecisionProblem:
    sc = scenario_from_dict(raw)
    return compile_problem(sc.view, sc.truth)


def main(quick: bool = False) -> None:
    """Measure and print (``quick``: one timing each, no 20-source adaptive case)."""
    for label, informative in (("realistic mix", False), ("all informative", True)):
        p = problem(scenario(30, all_informative=informative))
        seconds = best_time(lambda p=p: static_oracle(p, 5), 1 if quick else 3)
        verdict = "ok" if seconds < 1.0 else "SLOW"
        print(
            f"static oracle, 30 sources, budget 5, {label}: {seconds:.3f} s (goal < 1 s) {verdict}"
        )

    for n, budget in ((12, 3),) if quick else ((12, 3), (20, 4)):
        p = problem(scenario(n, all_informative=True))
        seconds = best_time(lambda p=p, b=budget: adaptive_oracle(p, b), repeats=1)
        goal = " (goal < 5 s)" if (n, budget) == (12, 3) else ""
        print(f"adaptive oracle, {n} sources, budget {budget}: {seconds:.3f} s{goal}")

    p = problem(scenario(8, all_informative=True, n_vars=3, seed=2))
    fast = best_time(lambda: adaptive_oracle(p, 3), repeats=1 if quick else 3)
    slow = best_time(lambda: naive_adaptive_value(p, 3), repeats=1)
    print(
        f"adaptive oracle vs naive recursion, 8 sources, budget 3: {fast * 1e3:.1f} ms vs "
        f"{slow * 1e3:.0f} ms = {slow / fast:.0f}x"
    )

    p = problem(scenario(10, all_informative=True, n_vars=4, seed=1))
    fast = best_time(lambda: static_oracle(p, 4), repeats=1 if quick else 5)
    slow = best_time(lambda: naive_static_oracle(p, 4), repeats=1)
    ratio = slow / fast
    verdict = "ok" if ratio >= 100 else "BELOW GOAL"
    print(
        f"static oracle vs naive reference, 10 sources, budget 4: {fast * 1e3:.2f} ms vs "
        f"{slow * 1e3:.0f} ms = {ratio:.0f}x (goal >= 100x) {verdict}"
    )


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--quick", action="store_true", help="one timing each; no 20-source adaptive case"
    )
    main(ap.parse_args().quick)
