"""The unprompted condition's pair of policies (SPEC §4.2; document 000 §15).

``summary-trusting`` models the failure document 000 §15 names: a plausible stale summary looks
sufficient, so the agent never decides to inspect anything. When its own reading of the task
*text* (:func:`asks_to_inspect`, its own lexicon — not the generator's template or the regular
expression the generator checks its wording with) finds a request to inspect, check, verify,
review or consult, or a stated number of reads, it does as it is told and reads the most
authoritative sources within the budget — it can select once inspection is made salient, it just
never initiates it. Policies never see the scenario's ``condition`` field (they get a
:class:`~heedful.model.TaskView`): like an LLM agent, this one can only read the task, so its
behaviour in each condition is a consequence of the wording it is given, not of a label, and its
spontaneous-inspection rate is measured by what the words say (issue 23: a task that says "make
sure the state is right" passes the generator's check yet reads as a request here).

``voc-guarded`` is the same agent wrapped by the real :class:`heedful.attention.Controller`.
Before acting, the agent states its decision and declares the claims its action rests on
(``about_to_claim``: its beliefs about the decision variables). Only the state-sensitive-claim
generator proposes computations; the estimator values them; the controller's stopping rule ends
the turn when no read is worth its cost. In the unprompted condition the controller's turn has
**no budget** (``begin_turn(None)``) whenever the task text does not ask for inspection: nothing
tells it to inspect or how much. The view's
``budget`` is then the environment's hard cap on tool calls — the evaluator's, not a hint — and
the wrapper simply stops when it is reached.

Neither policy is part of the default suite (``all``); they run when named, and ``heedful bench
run --condition unprompted|both`` adds them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from heedful.attention import Controller
from heedful.attention.generators import Generator, StateSensitiveClaimGenerator
from heedful.bench.policies.voc import ControllerPolicy
from heedful.bench.policy import Observation, Policy, register_policy
from heedful.model import TaskView

__all__ = [
    "SummaryTrustingPolicy",
    "VocGuardedPolicy",
    "VocModelGuardedPolicy",
    "asks_to_inspect",
    "decision_variables",
    "unprompted",
]

#: What these agents take as a request to look before acting: a verb of checking with its
#: common forms, a phrase that asks for certainty, or a number of reads offered ("up to 3 of the
#: listed sources", "a budget of 2"). Their own reading — the generator never consults it.
_REQUEST = re.compile(
    r"\b(inspect\w*|(?:double-)?check(?:s|ed|ing)?|verif\w*|confirm\w*|review\w*|consult\w*"
    r"|validat\w*|investigat\w*|look(?:s|ing)? (?:at|into|up)|read (?:up to|the|a|any)"
    r"|make sure|ensure|sources?|budget\w*|up to \d+)\b",
    re.IGNORECASE,
)


def asks_to_inspect(task: str) -> bool:
    """Whether an agent of this module reads ``task`` as a request to inspect before acting."""
    return _REQUEST.search(task) is not None


def unprompted(view: TaskView) -> bool:
    """Whether the task text leaves inspection to the agent — by this agent's own reading of
    the wording (:func:`asks_to_inspect`), as an LLM agent would read it."""
    return not asks_to_inspect(view.task)


def decision_variables(view: TaskView) -> list[str]:
    """Variables some action's utility depends on, in declaration order (visible structure)."""
    seen: dict[str, None] = {}
    for action in view.actions.values():
        for rule in action.utility:
            seen.update(dict.fromkeys(rule.when))
    return list(seen)


@register_policy("summary-trusting")
class SummaryTrustingPolicy(Policy):
    """Acts on its summary belief; inspects only when the task announces inspection.

    Args:
        read_summary: In the unprompted condition, re-read the summary its belief came from (the
            cheapest source reporting a believed variable whose data are exactly as old as the
            belief) instead of reading nothing.
    """

    in_default_suite = False
    reads_task = True

    def __init__(self, read_summary: bool = False) -> None:
        self.read_summary = read_summary
        self._plan: list[str] = []

    def reset(self, view: TaskView, rng: np.random.Generator) -> None:
        """Plan the trial's reads from the visible view."""
        relevant = set(decision_variables(view))
        if not unprompted(view):
            # Told to inspect: the most authoritative sources on the decision, within the budget.
            useful = [s for s in view.sources if set(s.reports) & relevant]
            ranked = sorted(useful, key=lambda s: (-s.authority, s.cost.scalar(), s.id))
            self._plan = [s.id for s in ranked[: view.budget]]
            return
        self._plan = []
        if self.read_summary and view.budget > 0:
            ages = {b.variable: b.age_s for b in view.beliefs if b.variable in relevant}
            summaries = [
                s
                for s in view.sources
                if any(v in ages and abs(s.age_s - ages[v]) < 0.5 for v in s.reports)
            ]
            if summaries:
                self._plan = [min(summaries, key=lambda s: (s.cost.scalar(), s.id)).id]

    def next(self, history: Sequence[Observation]) -> str | None:
        """The next planned read, or stop."""
        return self._plan[len(history)] if len(history) < len(self._plan) else None


@register_policy("voc-guarded")
class VocGuardedPolicy(ControllerPolicy):
    """The summary-trusting agent wrapped by the controller's state-sensitive-claim guard.

    Args:
        estimator: ``heuristic`` (SPEC §4.1 formula) or ``model`` (exact VOI on the estimated
            problem).
    """

    in_default_suite = False
    reads_task = True

    def __init__(self, estimator: str = "heuristic") -> None:
        super().__init__(estimator=estimator)
        self._cap = 0

    def _make_generators(self) -> list[Generator] | None:
        return [StateSensitiveClaimGenerator()]

    def _declare(self, ctl: Controller, view: TaskView) -> None:
        believed = {b.variable for b in view.beliefs}
        ctl.about_to_claim(*[v for v in decision_variables(view) if v in believed])

    def _turn_budget(self, view: TaskView) -> int | None:
        return None if unprompted(view) else view.budget

    def reset(self, view: TaskView, rng: np.random.Generator) -> None:
        """Build the controller; remember the environment's hard cap on reads."""
        super().reset(view, rng)
        self._cap = view.budget

    def next(self, history: Sequence[Observation]) -> str | None:
        """The controller's next read; stop at the environment's cap."""
        if len(history) >= self._cap:
            return None
        return super().next(history)


@register_policy("voc-model-guarded")
class VocModelGuardedPolicy(VocGuardedPolicy):
    """``voc-guarded`` with the model-based estimator (exact VOI on the estimated problem)."""

    def __init__(self) -> None:
        super().__init__(estimator="model")
