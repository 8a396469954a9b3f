"""Red team: an in-process Python policy reaches the truth (docs/benchmark.md, "What a policy
can and cannot see"). Not a bug to fix: a Python policy is trusted code.

    .venv/bin/python examples/redteam/attack_frames.py

``cheat-frames`` walks the caller's frames to the runner's ``oracle``; ``cheat-gc`` finds the
scenario's ``ScenarioOracle`` among the live objects. Both play an optimal set, with one worker
process and with two (a worker plays and scores its scenarios beside its policies).
"""

from __future__ import annotations

import gc
import inspect
from collections.abc import Sequence

import numpy as np

from heedful.bench import Observation, Policy, generate_suite, register_policy, run_benchmark
from heedful.bench.score.scoring import ScenarioOracle
from heedful.model import TaskView


def _from_frames() -> ScenarioOracle | None:
    frame = inspect.currentframe()
    while frame is not None:
        found = frame.f_locals.get("oracle")
        if isinstance(found, ScenarioOracle):
            return found
        frame = frame.f_back
    return None


def _from_gc(view: TaskView) -> ScenarioOracle | None:
    ids = set(view.source_ids)
    live = [o for o in gc.get_objects() if isinstance(o, ScenarioOracle)]
    return next((o for o in reversed(live) if set(o.problem.source_ids) == ids), None)


class _Cheat(Policy):
    in_default_suite = False

    def find(self, view: TaskView) -> ScenarioOracle | None:
        raise NotImplementedError

    def reset(self, view: TaskView, rng: np.random.Generator) -> None:
        oracle = self.find(view)
        best = set(oracle.static.optimal_sets[0]) if oracle is not None else set()
        self._plan = [s for s in view.source_ids if s in best]

    def next(self, history: Sequence[Observation]) -> str | None:
        return self._plan[len(history)] if len(history) < len(self._plan) else None


@register_policy("cheat-frames")
class CheatFrames(_Cheat):
    def find(self, view: TaskView) -> ScenarioOracle | None:
        return _from_frames()


@register_policy("cheat-gc")
class CheatGc(_Cheat):
    def find(self, view: TaskView) -> ScenarioOracle | None:
        return _from_gc(view)


if __name__ == "__main__":
    scenarios = generate_suite(["G", "B"], count=20, seed=0)
    names = ["random", "cheat-frames", "cheat-gc", "oracle"]
    for workers in (1, 2):
        res = run_benchmark(scenarios, names, trials=2, seed=0, workers=workers, progress=False)
        for name in names:
            row = [res.aggregates.row(name, fam).score.mean for fam in ("G", "B")]
            print(f"workers {workers}  {name:13s} G {row[0]:6.1f}  B {row[1]:6.1f}")
