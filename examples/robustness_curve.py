"""Robustness curve: policy scores as the worlds' hidden models move away from the controller's.

Runs the benchmark (static condition) on the same visible scenarios at several shifts — only the
hidden truth moves (docs/benchmark.md, "Hidden models and shift") — and prints each policy's mean
score (random = 0, oracle = 100) per shift, plus the *view-only ceiling*: the exact static oracle
of the problem rebuilt from the view alone with the controller's model (default hazards,
``(1 − s)·authority + s/n`` accuracies, ``confidence·(1 − p_stale)`` priors), scored on the true
problem. At shift 0 that ceiling is what a perfect inverter of the generator would reach.

    .venv/bin/python examples/robustness_curve.py --family G --count 40 --shifts 0,0.5,1,2
"""

from __future__ import annotations

import argparse
import math
import sys

import numpy as np

from heedful import decision
from heedful.bench import generate_suite, run_benchmark
from heedful.bench.worlds.families import World
from heedful.errors import HeedfulError
from heedful.model import Scenario, ScenarioTruth, SourceTruth

POLICIES = "oracle,voc-model,voc,triage-002,salience-003,authority-first,recency,loudness,random"


def view_only_truth(scenario: Scenario) -> ScenarioTruth:
    """The truth as the controller's default model reads it from the view (no noise, no echo)."""
    model = World()  # shift 0: the controller's defaults
    view = scenario.view
    beliefs = {b.variable: b for b in view.beliefs}
    priors: dict[str, tuple[float, ...]] = {}
    for name, var in view.variables.items():
        n = len(var.domain)
        p = np.full(n, 1.0 / n)
        b = beliefs.get(name)
        if b is not None and b.value in var.domain:
            keep = model.keep(b.confidence, var.volatility, b.age_s)
            p = np.full(n, (1.0 - keep) / n)
            p[var.domain.index(b.value)] += keep
        priors[name] = tuple(float(x) for x in p / p.sum())
    sources = {}
    for src in view.sources:
        accs = [
            model.accuracy(
                src.authority,
                view.variables[v].volatility,
                src.age_s,
                len(view.variables[v].domain),
                0.0,
            )
            for v in src.reports
        ]
        sources[src.id] = SourceTruth(accuracy=float(np.mean(accs)) if accs else None)
    return ScenarioTruth(priors=priors, sources=sources)


def view_only_ceiling(scenarios: list[Scenario]) -> float:
    """Mean score of the view-only oracle's set on the true problems (informative ones)."""
    scores = []
    for s in scenarios:
        true = decision.compile_problem(s.view, s.truth)
        st = decision.static_oracle(true, s.view.budget)
        if not st.informative:
            continue
        guess = decision.static_oracle(
            decision.compile_problem(s.view, view_only_truth(s)), s.view.budget
        )
        v = decision.value(true, list(guess.optimal_sets[0]))
        scores.append(100.0 * (v - st.u_random) / (st.v_star - st.u_random))
    return float(np.mean(scores)) if scores else math.nan


def main(argv: list[str] | None = None) -> int:
    """Print the curve; exit 2 with one line on bad arguments."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--family", default="G,B")
    ap.add_argument("--count", type=int, default=30)
    ap.add_argument("--trials", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--shifts", default="0,0.5,1,2")
    ap.add_argument("--policies", default=POLICIES)
    args = ap.parse_args(argv)
    try:
        shifts = [float(x) for x in args.shifts.split(",") if x.strip()]
        families = [f.strip() for f in args.family.split(",") if f.strip()]
        policies = [p.strip() for p in args.policies.split(",") if p.strip()]
        table: dict[str, list[float]] = {p: [] for p in policies}
        ceiling = []
        for shift in shifts:
            scenarios = generate_suite(families, args.count, args.seed, shift=shift)
            ceiling.append(view_only_ceiling(scenarios))
            res = run_benchmark(scenarios, policies, trials=args.trials, seed=args.seed)
            for p in policies:
                sc = res.aggregates.row(p).score
                table[p].append(sc.mean if sc is not None else math.nan)
    except (HeedfulError, ValueError) as exc:
        print(f"robustness_curve: {exc}", file=sys.stderr)
        return 2
    head = f"{'policy':<18}" + "".join(f"{'shift ' + format(s, 'g'):>11}" for s in shifts)
    print(f"families {','.join(families)}, {args.count} each, {args.trials} trials, static")
    print(head)
    print(f"{'(view-only ceil.)':<18}" + "".join(f"{c:>11.1f}" for c in ceiling))
    for p in policies:
        print(f"{p:<18}" + "".join(f"{v:>11.1f}" for v in table[p]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
