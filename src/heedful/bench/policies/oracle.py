"""The oracle policy: the one policy allowed to see the truth (document 000 §14.5, §21).

The runner hands it the scenario's compiled oracle through :meth:`OraclePolicy.bind` — a path
that exists for this class only: the runner calls ``bind`` only on ``OraclePolicy`` instances and
the class refuses to be subclassed, so no other policy can obtain the truth this way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, final

import numpy as np

from heedful import decision
from heedful.bench.policy import Observation, Policy, register_policy
from heedful.errors import InvalidArgumentError
from heedful.model import TaskView

if TYPE_CHECKING:
    from heedful.bench.score.scoring import ScenarioOracle


@final
@register_policy("oracle")
class OraclePolicy(Policy):
    """Inspect an optimal static set; in the adaptive condition, follow the adaptive optimum."""

    deterministic = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        raise TypeError("OraclePolicy cannot be subclassed: only it is handed the truth")

    def __init__(self) -> None:
        self._oracle: ScenarioOracle | None = None
        self._plan: tuple[str, ...] = ()

    def bind(self, oracle: ScenarioOracle) -> None:
        """Give the policy the oracle of the scenario it is about to play (runner only)."""
        self._oracle = oracle

    def reset(self, view: TaskView, rng: np.random.Generator) -> None:
        """Pick the plan for this scenario: the first optimal static set, in source order."""
        oracle = self._oracle
        if oracle is None or oracle.budget != view.budget:
            raise InvalidArgumentError(
                "the oracle policy only runs inside the benchmark runner, which binds the truth"
            )
        best = set(oracle.static.optimal_sets[0])
        # Source order, except that a hidden source (issue 23) comes after its revealer.
        revealer = {h.id: r for r, hs in oracle.reveals.items() for h in hs}
        order = [s for s in oracle.problem.source_ids if s in best]
        plan: list[str] = []
        while order:
            ready = next(s for s in order if s not in revealer or revealer[s] in plan)
            plan.append(ready)
            order.remove(ready)
        self._plan = tuple(plan)

    def next(self, history: Sequence[Observation]) -> str | None:
        """Next source of the plan, or of the adaptive optimum when observations are real."""
        oracle = self._oracle
        assert oracle is not None  # reset checked it
        if oracle.adaptive is not None and not any(o.withheld for o in history):
            observed = [
                (o.source_id, decision.outcome_index(oracle.problem, o.source_id, o.values))
                for o in history
            ]
            return oracle.adaptive.policy(tuple(observed))
        done = {o.source_id for o in history}
        return next((s for s in self._plan if s not in done), None)
