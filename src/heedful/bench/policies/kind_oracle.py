"""The oracle on the switching (D) and schedule (J) kinds: it follows an exact optimum.

The one privileged path: the kinds' runner binds the oracle to the scenario's PRIVATE case
before the trial; no other policy is ever handed it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from heedful.bench.kind_policy import SchedulePolicy, SwitchingPolicy
from heedful.bench.policy import register_policy
from heedful.bench.run.kind_trials import ScheduleCase, SwitchingCase
from heedful.errors import InvalidArgumentError
from heedful.model.schedule import ObligationView, ScheduleFrame
from heedful.model.switching import (
    InterruptionView,
    SwitchChoice,
    SwitchingStatus,
    SwitchingTaskView,
)


@register_policy("oracle")
class OracleSwitching(SwitchingPolicy):
    """Answer as the first optimal decision vector does."""

    def bind(self, case: SwitchingCase) -> None:
        """Hand the oracle the scenario's exact results (evaluator side only)."""
        self._answers = dict(zip(case.problem.ids, case.oracle.optimal[0], strict=True))

    def reset(self, view: SwitchingTaskView, rng: np.random.Generator) -> None:
        """Check it was bound."""
        if not hasattr(self, "_answers"):
            raise InvalidArgumentError("the oracle policy must be bound to a scenario first")

    def answer(self, interruption: InterruptionView, status: SwitchingStatus) -> SwitchChoice:
        """The optimal answer."""
        return self._answers[interruption.id]


@register_policy("oracle")
class OracleSchedule(SchedulePolicy):
    """Follow the oracle's optimal assignment."""

    def bind(self, case: ScheduleCase) -> None:
        """Hand the oracle the scenario's exact results (evaluator side only)."""
        ids = case.problem.ids
        self._plan = [ids[j] if j is not None else None for j in case.oracle.assignment]

    def reset(self, view: ScheduleFrame, rng: np.random.Generator) -> None:
        """Check it was bound."""
        if not hasattr(self, "_plan"):
            raise InvalidArgumentError("the oracle policy must be bound to a scenario first")

    def pick(
        self, slot: int, open_obligations: Sequence[ObligationView], left: Mapping[str, int]
    ) -> str | None:
        """The planned obligation of this slot."""
        return self._plan[slot]
