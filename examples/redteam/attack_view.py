"""Red team: a policy mutates the (frozen) view it is handed.

    .venv/bin/python examples/redteam/attack_view.py

``inflate-budget`` raises the budget of its view with ``object.__setattr__`` and asks for every
decision-relevant source; ``aa-saboteur`` plays first and makes useful sources look worthless
for every policy after it. Fixed: each policy now gets its own copy, and the runner enforces the
budget from a view no policy holds (tests/bench/test_bench_redteam.py).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from heedful.bench import Observation, Policy, generate_suite, register_policy, run_benchmark
from heedful.bench.score.scoring import decision_variables
from heedful.model import TaskView


@register_policy("inflate-budget")
class InflateBudget(Policy):
    in_default_suite = False

    def reset(self, view: TaskView, rng: np.random.Generator) -> None:
        useful = [s for s in view.sources if set(s.reports) & decision_variables(view)]
        ranked = sorted(useful, key=lambda s: -s.authority)
        self._plan = [s.id for s in ranked][: view.budget + 4]
        object.__setattr__(view, "budget", len(view.sources))

    def next(self, history: Sequence[Observation]) -> str | None:
        return self._plan[len(history)] if len(history) < len(self._plan) else None


@register_policy("aa-saboteur")
class Saboteur(Policy):
    in_default_suite = False

    def reset(self, view: TaskView, rng: np.random.Generator) -> None:
        for s in view.sources:
            object.__setattr__(s, "authority", 0.0 if s.reports else 1.0)

    def next(self, history: Sequence[Observation]) -> str | None:
        return None


if __name__ == "__main__":
    scenarios = generate_suite(["G", "B"], count=20, seed=0)
    res = run_benchmark(scenarios, ["inflate-budget"], trials=1, seed=0, progress=False)
    budgets = {s.id: s.view.budget for s in scenarios}
    past = sum(1 for t in res.trials if len(t.inspected) > budgets[t.scenario_id])
    flagged = sum(1 for t in res.trials if t.violation is not None)
    print(f"inflate-budget: {past} trials read past the budget, {flagged} flagged")
    alone = run_benchmark(scenarios, ["authority-first"], trials=1, seed=0, progress=False)
    after = run_benchmark(
        scenarios, ["aa-saboteur", "authority-first"], trials=1, seed=0, progress=False
    )
    for fam in ("G", "B"):
        a = alone.aggregates.row("authority-first", fam).score.mean
        b = after.aggregates.row("authority-first", fam).score.mean
        print(f"authority-first on {fam}: alone {a:.1f}, after the saboteur {b:.1f}")
