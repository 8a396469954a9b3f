"""The controller beside the model (``llm-advised``): the advice behind ``attention_next``.

The advisor is the controller a user gets from ``Controller()`` — its default, calibrated
model-based estimator with exploration as shipped (the ``voc-default`` policy) — built from the
same view the model sees and fed the same observations (``estimator="heuristic"`` gives the
heuristic ``voc`` controller instead). Asked for advice, it
names the next computation worth doing and its predicted net value, or says to decide now.
It never sees anything the model cannot: the view and the model's own inspections.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from heedful.attention import Stop
from heedful.bench.policies.voc import ControllerPolicy
from heedful.bench.policy import Observation
from heedful.model import TaskView
from heedful.model.candidate import CandidateKind

__all__ = ["Advisor"]


class Advisor:
    """Runs the controller on a view and words its recommendation.

    Args:
        view: The view the model sees.
        rng: The controller's randomness (its exploration draws).
        estimator: ``default`` (what ``Controller()`` gives a user, exploration included) or
            ``heuristic`` (the ``voc`` policy's, no exploration).
    """

    def __init__(
        self, view: TaskView, rng: np.random.Generator, estimator: str = "default"
    ) -> None:
        self.view = view
        self._rng = rng
        self._policy = ControllerPolicy(estimator=estimator, exploration=estimator == "default")
        self._policy.reset(view, rng)
        self._fed = 0
        self.calls = 0

    def _step(self, history: Sequence[Observation]) -> tuple[str | None, float | None]:
        """Feed the new observations, return (next source or None, its net value or best)."""
        ctl = self._policy.controller
        # Reads the controller did not advise are ignored by feed (the model chose them).
        self._policy.feed(history[self._fed :])
        self._fed = len(history)
        while True:
            step = ctl.next()
            if isinstance(step, Stop):
                return None, step.best_voc
            if step.kind is CandidateKind.INSPECT_SOURCE:
                done = next((o for o in history if o.source_id == step.target), None)
                if done is not None:
                    # A read the model made without this advice: a static plan's read stays
                    # withheld, as in the static protocol; an adaptive one counts as made.
                    if done.withheld:
                        ctl.resolve(step.id, withheld=True)
                    else:
                        ctl.resolve(step.id, succeeded=True)
                    continue
                self._policy._pending[step.target] = step.id  # fed back by feed()
                return step.target, step.predicted_voc
            ctl.resolve(step.id, succeeded=True)

    def advise(self, history: Sequence[Observation], *, adaptive: bool) -> str:
        """The recommendation as a short note for the model.

        Adaptive condition: the next source worth inspecting and its predicted net value, or
        "decide now". Static condition: the whole plan (the controller's choices with every
        result withheld), since the model commits to its inspections at once; after the plan,
        the sources its reads revealed that are worth reading within the budget left (the one
        further ``plan_inspections`` call the protocol allows), or "decide now".
        """
        self.calls += 1
        if not adaptive:
            if history:
                return self._follow_up(history)
            plan: list[Observation] = []
            values: list[str] = []
            while len(plan) < self.view.budget:
                sid, voc = self._step(plan)
                if sid is None:
                    break
                plan.append(Observation(sid, withheld=True))
                values.append(f"{sid} (net value {voc:.3g})" if voc is not None else sid)
            # The plan consumed the controller's turn; rebuild it for a consistent next call.
            self._policy.reset(self.view, self._rng)
            self._fed = 0
            if not values:
                return "No inspection is worth its cost here: decide now."
            return "Inspect: " + ", ".join(values) + ". Then decide."
        if len(history) >= self.view.budget:
            return "The inspection budget is used up: decide now."
        sid, voc = self._step(history)
        if sid is None:
            best = f" (best remaining net value {voc:.3g})" if voc is not None else ""
            return f"No further inspection is worth its cost{best}: decide now."
        value = f" (predicted net value {voc:.3g})" if voc is not None else ""
        return f"Inspect {sid} next{value}."

    def _follow_up(self, history: Sequence[Observation]) -> str:
        """Static condition after the plan: which of the sources the plan's reads revealed to
        read too. The controller replans from the plan's reads — their results withheld, as a
        static policy's are, their revealed sources joined — and may pick only those sources."""
        read = {o.source_id for o in history}
        open_ids = {s.id for o in history for s in o.revealed if s.id not in read}
        left = self.view.budget - len(history)
        if not open_ids or left <= 0:
            return "The inspections are done: decide now."
        self._policy.reset(self.view, self._rng)
        self._fed = 0
        plan = [Observation(o.source_id, withheld=True, revealed=o.revealed) for o in history]
        values: list[str] = []
        # Each pass adds one source to the plan: a pick, or one the protocol no longer allows.
        for _ in range(len(self.view.sources) + len(open_ids) + 1):
            if len(values) >= left:
                break
            sid, voc = self._step(plan)
            if sid is None:
                break
            if sid in open_ids:
                plan.append(Observation(sid, withheld=True))
                values.append(f"{sid} (net value {voc:.3g})" if voc is not None else sid)
            else:
                plan.append(Observation(sid, failed=True))  # not askable now: let it go
        self._policy.reset(self.view, self._rng)
        self._fed = 0
        if not values:
            return "No source the plan revealed is worth its cost: decide now."
        return "Also inspect (revealed by the plan): " + ", ".join(values) + ". Then decide."
