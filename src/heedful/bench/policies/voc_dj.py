"""The attention controller on the switching (D) and schedule (J) kinds (document 000 §11.4–§11.5).

D — ``voc``: one :class:`heedful.attention.Controller` per interruption, with the task as its
focus. The interruption is handed to it with :meth:`~heedful.attention.Controller.interrupt`
(declared loss = the value lost by *not* handling it now, switch cost = the scenario's visible
switch cost), the task with :meth:`~heedful.attention.Controller.set_focus` (its VOC = the task's
value when a switch now would push it past the horizon, else 0). The controller's own answer is
the decision: it selects the interruption (switching rule ``VOC(B) > VOC(A) + SwitchCost + δ``
passed) → **preempt**; it stays (rule failed) or stops (net VOC ≤ 0) → **queue** when the
interruption is still expected to pay once the task is done, else **stay**. Ablations:
``voc-no-switch-cost`` (estimator ignores switch costs), ``voc-no-hysteresis`` (δ = 0).

J — ``voc``: each slot, every open obligation is a candidate (its declared loss = the expected
value lost if it finishes one slot later — deadline risk and lapse hazard — with the controller's
deadline boost as its estimated due time nears) scored by the controller's estimator and chosen
by its :class:`~heedful.attention.Selector` — bounded aging bonus and per-goal minimum service
included (§11.5). ``voc-no-aging`` turns both off. Estimates read visible metadata only; the
numbers are the policy's own (:class:`KindVocConfig`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

import numpy as np

from heedful.attention import (
    AttentionConfig,
    AttentionContext,
    Controller,
    EstimatorConfig,
    HeuristicEstimator,
    Selector,
    SelectorConfig,
    Stop,
)
from heedful.attention.generators import InterruptionGenerator
from heedful.bench.kinds.schedule import SchedulePolicy
from heedful.bench.kinds.switching import SwitchingPolicy
from heedful.bench.policy import register_policy
from heedful.model.candidate import Candidate, CandidateKind, Trigger
from heedful.model.schedule import ObligationView, ScheduleFrame, Timescale
from heedful.model.switching import (
    InterruptionView,
    SwitchChoice,
    SwitchingStatus,
    SwitchingTaskView,
)

_EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class KindVocConfig:
    """The policy's own priors for reading D and J metadata (not the generators' hidden model).

    Attributes:
        prior_value: Value assumed for an interruption or obligation a sender cannot vouch for.
        resume_steps: Resumption steps assumed for a task of context depth 1.
        queue_floor: Least expected value worth queueing an interruption for.
        hazards: Lapse hazard per slot assumed per timescale.
        deadline_horizon_s: The estimator's deadline horizon (deadlines nearer than this boost).
    """

    prior_value: float = 0.3
    resume_steps: float = 3.0
    queue_floor: float = 0.05
    hazards: Mapping[Timescale, float] = field(
        default_factory=lambda: {
            Timescale.MINUTES: 0.2,
            Timescale.HOURS: 0.05,
            Timescale.WEEK: 0.01,
        }
    )
    deadline_horizon_s: float = 3600.0


DEFAULT = KindVocConfig()


def _expected(authority: float, stated: float, prior: float) -> float:
    """A stated quantity believed in proportion to the sender's reliability."""
    return authority * stated + (1.0 - authority) * prior


def _p_on_time(finish: float, stated_due: float, now: int, authority: float, horizon: int) -> float:
    """P(done by the real deadline when finished at ``finish``), believing the stated due time
    in proportion to the sender's reliability; an unbelieved claim leaves the deadline uniform
    over the rest of the horizon. Nothing finished after the horizon counts."""
    if finish > horizon:
        return 0.0
    stated = 1.0 if finish <= stated_due else 0.0
    span = max(horizon - now, 1)
    uniform = max(0.0, 1.0 - (finish - now) / span)
    return authority * stated + (1.0 - authority) * uniform


class VocSwitching(SwitchingPolicy):
    """The controller's switching rule answering interruptions (see the module docstring).

    Args:
        use_switch_cost: Ablation: the estimator counts switch costs.
        hysteresis: δ of the switching rule (``None``: the controller's default).
    """

    def __init__(self, use_switch_cost: bool = True, hysteresis: float | None = None) -> None:
        self.use_switch_cost = use_switch_cost
        self.hysteresis = hysteresis
        self.config = DEFAULT

    def reset(self, view: SwitchingTaskView, rng: np.random.Generator) -> None:
        """Remember the task; a fresh controller is built per interruption."""
        self._view = view
        self._rng = rng
        selector = SelectorConfig(exploration_rate=0.0)
        if self.hysteresis is not None:
            selector = SelectorConfig(exploration_rate=0.0, hysteresis=self.hysteresis)
        # An interruption is a task, not a reading: handling it surely changes the outcome.
        self._attention = AttentionConfig(
            estimator=EstimatorConfig(default_pivotality=1.0), selector=selector
        )

    def answer(self, interruption: InterruptionView, status: SwitchingStatus) -> SwitchChoice:
        """Ask the controller; map its selection to preempt / queue / stay."""
        x, view, cfg = interruption, self._view, self.config
        value = _expected(x.authority, x.stakes, cfg.prior_value)
        stated_due = status.time + x.requested_within
        now_done = status.time + status.preempted_work + x.handling_steps
        queued_done = now_done + status.main_work_left + status.queued_work
        p_now = _p_on_time(now_done, stated_due, status.time, x.authority, view.horizon)
        p_queue = _p_on_time(queued_done, stated_due, status.time, x.authority, view.horizon)
        resume = cfg.resume_steps * view.main.context_depth
        task_at_risk = not status.main_done and (
            status.time + status.preempted_work + x.handling_steps + status.main_work_left + resume
            > view.horizon
        )
        ctl = Controller(
            config=self._attention,
            estimator=HeuristicEstimator(
                self._attention.estimator, use_switch_cost=self.use_switch_cost
            ),
            generators=[InterruptionGenerator(self._attention.generator)],
            rng=self._rng,
            clock=lambda: _EPOCH,
        )
        # Registered as trusted: the declared loss below is this policy's own estimate from the
        # authority registry and its priors (the sender's stated stakes count only in proportion
        # to its authority; its text is never read) — not priority the sender set itself.
        ctl.register_source(
            x.source or x.id, authority=x.authority, kind=x.source_kind, trusted=True
        )
        if not status.main_done:
            ctl.set_focus("task", view.main.value if task_at_risk else 0.0)
        ctl.interrupt(
            x.id,
            x.source or x.id,
            x.teaser,
            declared_loss=value * max(p_now - p_queue, 0.0),
            switch_cost=0.0 if status.main_done else view.switch_cost,
        )
        ctl.begin_turn(budget=1)
        step = ctl.next()
        if not isinstance(step, Stop) and step.kind is CandidateKind.HANDLE_INTERRUPTION:
            return SwitchChoice.PREEMPT
        return SwitchChoice.QUEUE if value * p_queue > cfg.queue_floor else SwitchChoice.STAY


@register_policy("voc")
class VocSwitchingPolicy(VocSwitching):
    """The controller with its defaults."""

    def __init__(self) -> None:
        super().__init__()


@register_policy("voc-no-switch-cost")
class VocNoSwitchCostSwitching(VocSwitching):
    """Ablation: the estimator ignores switch costs (document 000 §21)."""

    def __init__(self) -> None:
        super().__init__(use_switch_cost=False)


@register_policy("voc-no-hysteresis")
class VocNoHysteresisSwitching(VocSwitching):
    """Ablation: the switching rule without hysteresis (δ = 0)."""

    def __init__(self) -> None:
        super().__init__(hysteresis=0.0)


class VocSchedule(SchedulePolicy):
    """The controller's estimator and selector giving out slots (see the module docstring).

    Args:
        aging: Bounded aging bonus and per-goal minimum service on (§11.5).
    """

    def __init__(self, aging: bool = True) -> None:
        self.aging = aging
        self.config = DEFAULT

    def reset(self, view: ScheduleFrame, rng: np.random.Generator) -> None:
        """A fresh selector for the trial."""
        self._view = view
        selector = SelectorConfig(exploration_rate=0.0)
        if not self.aging:
            selector = SelectorConfig(
                exploration_rate=0.0, aging_rate=0.0, aging_cap=0.0, min_service_turns=10**9
            )
        self._selector = Selector(selector, rng)
        self._estimator = HeuristicEstimator(
            EstimatorConfig(
                default_pivotality=1.0, deadline_horizon_s=self.config.deadline_horizon_s
            )
        )
        self._waited: dict[str, int] = {}

    def _candidate(self, o: ObligationView, slot: int, left: int) -> Candidate:
        """The obligation as a candidate: its declared loss is the expected value lost by
        letting this slot go to something else (finishing one slot later), §3.3."""
        cfg, view = self.config, self._view
        value = _expected(o.authority, o.stakes, cfg.prior_value)
        stated_due = o.arrives_at + o.due_in
        hazard = cfg.hazards[o.timescale]

        def expected_if_done(done: int) -> float:
            on_time = _p_on_time(done, stated_due, slot, o.authority, view.slots)
            return value * on_time * (1.0 - hazard) ** (done - o.arrives_at)

        done = slot + left
        loss = max(expected_if_done(done) - expected_if_done(done + 1), 0.0)
        due = o.arrives_at + _expected(o.authority, o.due_in, view.slots / 2)
        return Candidate(
            id=o.id,
            kind=CandidateKind.CONTINUE_TASK,
            target=o.id,
            trigger=Trigger.DEADLINE,
            origin="schedule",
            goal_ids=(o.id,),
            p_change=1.0,
            loss_if_wrong=loss,
            deadline_s=max(due - done, 0.0) * view.slot_minutes * 60.0,
        )

    def pick(
        self, slot: int, open_obligations: Sequence[ObligationView], left: Mapping[str, int]
    ) -> str | None:
        """The selector's choice among the open obligations (``None`` when none is worth it)."""
        ctx = AttentionContext(now=_EPOCH)
        scored = []
        for o in open_obligations:
            c = self._candidate(o, slot, left[o.id])
            scored.append((c, self._estimator.estimate(c, ctx)))
        sel = self._selector.select(
            scored, turn=slot, budget_left=None, turn_budget=None, waited=self._waited
        )
        if sel.candidate is None:
            return None
        for c, e in scored:
            if c.id != sel.candidate.id and e.net > 0:
                self._waited[c.id] = self._waited.get(c.id, 0) + 1
        self._waited.pop(sel.candidate.id, None)
        return sel.candidate.id


@register_policy("voc")
class VocSchedulePolicy(VocSchedule):
    """The controller's selection with aging and minimum service."""

    def __init__(self) -> None:
        super().__init__()


@register_policy("voc-no-aging")
class VocNoAgingSchedule(VocSchedule):
    """Ablation: no aging bonus, no minimum service (§11.5 off)."""

    def __init__(self) -> None:
        super().__init__(aging=False)
