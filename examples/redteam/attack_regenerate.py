"""Red team: a policy re-derives a generated scenario from its visible content alone.

    .venv/bin/python examples/redteam/attack_regenerate.py

Development scenarios come from public generators and small public seeds, so the view itself
(its source ids and variables) names the scenario as well as an id would. ``regenerate`` builds
the default suite for a few seeds through the public API, finds the scenario whose view matches
the one it is handed, and plays the exact oracle's set: no frames, no gc, no files. Only a
sealed hold-out (keyed seeds) is out of its reach — and only for code outside the process.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from heedful import decision
from heedful.bench import Observation, Policy, generate_suite, register_policy, run_benchmark
from heedful.model import Scenario, TaskView

_SEEDS = range(3)
_COUNT = 150  # what `heedful run` generates per family


def _key(view: TaskView) -> tuple[object, ...]:
    return (view.source_ids, tuple(sorted(view.variables)), view.budget)


_BOOK: dict[tuple[object, ...], Scenario] = {}


def _book() -> dict[tuple[object, ...], Scenario]:
    if not _BOOK:
        for seed in _SEEDS:
            for sc in generate_suite(["G", "B"], count=_COUNT, seed=seed):
                _BOOK[_key(sc.view)] = sc
    return _BOOK


@register_policy("regenerate")
class Regenerate(Policy):
    in_default_suite = False

    def reset(self, view: TaskView, rng: np.random.Generator) -> None:
        sc = _book().get(_key(view))
        self._plan: list[str] = []
        if sc is not None:
            problem = decision.compile_problem(sc.view, sc.truth)
            best = set(decision.static_oracle(problem, view.budget).optimal_sets[0])
            self._plan = [s for s in view.source_ids if s in best]

    def next(self, history: Sequence[Observation]) -> str | None:
        return self._plan[len(history)] if len(history) < len(self._plan) else None


if __name__ == "__main__":
    for seed in (0, 2):
        scenarios = generate_suite(["G", "B"], count=30, seed=seed)
        res = run_benchmark(
            scenarios, ["random", "regenerate", "oracle"], trials=2, seed=seed, progress=False
        )
        for name in ("random", "regenerate", "oracle"):
            row = [res.aggregates.row(name, fam).score.mean for fam in ("G", "B")]
            print(f"seed {seed}  {name:11s} G {row[0]:6.1f}  B {row[1]:6.1f}")
