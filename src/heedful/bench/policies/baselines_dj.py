"""Baselines on the switching (D) and schedule (J) kinds: random, recency, loudness,
urgency-first, document 002's triage formula and document 003's salience pipeline.

Each reads the visible metadata only. On D a baseline answers preempt when its salience score says
the interruption beats the task, else queue (salience has no notion of "not worth it", except the
salience pipeline, which declines what it neither alerts on nor relates to the task). On J it gives
each slot to the open obligation with the highest score (ties: file order). Mappings:
``docs/benchmark.md`` ("Families D and J").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta

import numpy as np

from heedful.bench.kinds.schedule import SchedulePolicy
from heedful.bench.kinds.switching import SwitchingPolicy
from heedful.bench.policy import register_policy
from heedful.decision.switching import CHOICES
from heedful.engine.config import TriageConfig
from heedful.engine.triage import urgency as triage_urgency
from heedful.model import Goal, GoalPriority, GoalTimescale
from heedful.model.schedule import ObligationView, ScheduleFrame, Timescale
from heedful.model.switching import (
    InterruptionView,
    SwitchChoice,
    SwitchingStatus,
    SwitchingTaskView,
)
from heedful.salience import AttentionSystem, alerting_urgency, selective_filter

_NOW = datetime(2026, 1, 1, tzinfo=UTC)
#: Wall-clock length of one switching step, for the triage formula's deadlines.
STEP_MINUTES = 10.0
_TIMESCALE_GOAL = {
    Timescale.MINUTES: GoalTimescale.IMMEDIATE,
    Timescale.HOURS: GoalTimescale.SHORT_TERM,
    Timescale.WEEK: GoalTimescale.MEDIUM_TERM,
}


def _priority(stakes: float, reference: float) -> GoalPriority:
    """Priority from stated stakes relative to a reference value (high ≥ ⅔, normal ≥ ⅓)."""
    if reference <= 0 or stakes >= 2 * reference / 3:
        return GoalPriority.HIGH
    return GoalPriority.NORMAL if stakes >= reference / 3 else GoalPriority.LOW


def _triage(priority: GoalPriority, timescale: GoalTimescale, due_minutes: float) -> float:
    goal = Goal(
        id="item",
        title="item",
        priority=priority,
        timescale=timescale,
        due_at=_NOW + timedelta(minutes=due_minutes),
    )
    return triage_urgency(goal, _NOW, TriageConfig())


class _PreemptIf(SwitchingPolicy):
    """Preempt when ``loud(interruption) > threshold``, else queue."""

    threshold = 0.5

    def reset(self, view: SwitchingTaskView, rng: np.random.Generator) -> None:
        """Remember the task."""
        self._view = view

    def loud(self, x: InterruptionView, status: SwitchingStatus) -> float:
        """The baseline's score of an interruption."""
        raise NotImplementedError

    def answer(self, interruption: InterruptionView, status: SwitchingStatus) -> SwitchChoice:
        """Preempt above the threshold, else queue."""
        if self.loud(interruption, status) > self.threshold:
            return SwitchChoice.PREEMPT
        return SwitchChoice.QUEUE


@register_policy("random")
class RandomSwitching(SwitchingPolicy):
    """Answer each interruption uniformly at random (the U_random baseline, exactly)."""

    deterministic = False
    information_free = True

    def reset(self, view: SwitchingTaskView, rng: np.random.Generator) -> None:
        """Keep the trial's rng."""
        self._rng = rng

    def answer(self, interruption: InterruptionView, status: SwitchingStatus) -> SwitchChoice:
        """A uniform draw among stay, queue and preempt."""
        return CHOICES[int(self._rng.integers(len(CHOICES)))]


@register_policy("always-queue")
class AlwaysQueueSwitching(SwitchingPolicy):
    """Queue every interruption: the best answer that reads nothing of it (issue 23: it scores
    about 24 on D, where ``random`` is 0 — the score's 0 is chance, not "no information")."""

    information_free = True

    def reset(self, view: SwitchingTaskView, rng: np.random.Generator) -> None:
        """Nothing to remember."""

    def answer(self, interruption: InterruptionView, status: SwitchingStatus) -> SwitchChoice:
        """Queue."""
        return SwitchChoice.QUEUE


@register_policy("recency")
class RecencySwitching(_PreemptIf):
    """Newest first: the event that just arrived always takes attention."""

    def loud(self, x: InterruptionView, status: SwitchingStatus) -> float:
        """Every arrival is the newest item."""
        return 1.0


@register_policy("urgency-first")
class UrgencyFirstSwitching(_PreemptIf):
    """Preempt when the sender claims urgency above one half."""

    def loud(self, x: InterruptionView, status: SwitchingStatus) -> float:
        """The claimed urgency."""
        return x.claimed_urgency


@register_policy("loudness")
class LoudnessSwitching(_PreemptIf):
    """Preempt when the teaser shouts (any urgent keyword)."""

    threshold = 0.0

    def loud(self, x: InterruptionView, status: SwitchingStatus) -> float:
        """Keyword urgency of the teaser."""
        return alerting_urgency(x.teaser)


@register_policy("triage-002")
class TriageSwitching(_PreemptIf):
    """Document 002's ``urgency × gap``: preempt when the interruption outscores the task.

    The interruption is an item due in ``requested_within`` steps with priority from its stated
    stakes against the task's value, gap 1; the task is due at the horizon with gap
    ``1 − progress``.
    """

    threshold = 0.0

    def loud(self, x: InterruptionView, status: SwitchingStatus) -> float:
        """Interruption score minus task score."""
        main = self._view.main
        mine = _triage(
            _priority(x.stakes, main.value),
            GoalTimescale.IMMEDIATE,
            x.requested_within * STEP_MINUTES,
        )
        task = 0.0
        if not status.main_done:
            left = (self._view.horizon - status.time) * STEP_MINUTES
            task = _triage(GoalPriority.HIGH, GoalTimescale.SHORT_TERM, left) * (
                1.0 - main.progress
            )
        return mine - task


@register_policy("salience-003")
class SalienceSwitching(SwitchingPolicy):
    """Document 003's pipeline on the teaser: alerting urgency above the executive threshold
    preempts; otherwise an interruption the selective filter keeps under the task's topics (or
    with any alert) is queued, and the rest declined."""

    def reset(self, view: SwitchingTaskView, rng: np.random.Generator) -> None:
        """Topics of the task text."""
        self._topics = AttentionSystem().process(f"{view.task} {view.main.description}").topics

    def answer(self, interruption: InterruptionView, status: SwitchingStatus) -> SwitchChoice:
        """Preempt, queue or stay by the pipeline's signals."""
        u = alerting_urgency(interruption.teaser)
        if u > 0.5:
            return SwitchChoice.PREEMPT
        related = bool(self._topics) and bool(selective_filter([interruption.teaser], self._topics))
        return SwitchChoice.QUEUE if u > 0 or related else SwitchChoice.STAY


class _Highest(SchedulePolicy):
    """Give the slot to the open obligation with the highest score (ties: file order)."""

    def reset(self, view: ScheduleFrame, rng: np.random.Generator) -> None:
        """Remember the frame."""
        self._view = view

    def score(self, o: ObligationView, slot: int, left: int) -> float:
        """The baseline's score."""
        raise NotImplementedError

    def pick(
        self, slot: int, open_obligations: Sequence[ObligationView], left: Mapping[str, int]
    ) -> str | None:
        """The highest-scoring open obligation."""
        best: tuple[float, str] | None = None
        for o in open_obligations:
            s = self.score(o, slot, left[o.id])
            if best is None or s > best[0]:
                best = (s, o.id)
        return best[1] if best else None


@register_policy("random")
class RandomSchedule(SchedulePolicy):
    """A uniformly random open obligation per slot (the U_random baseline, exactly)."""

    deterministic = False
    information_free = True

    def reset(self, view: ScheduleFrame, rng: np.random.Generator) -> None:
        """Keep the trial's rng."""
        self._rng = rng

    def pick(
        self, slot: int, open_obligations: Sequence[ObligationView], left: Mapping[str, int]
    ) -> str | None:
        """A uniform draw among the open obligations."""
        if not open_obligations:
            return None
        return open_obligations[int(self._rng.integers(len(open_obligations)))].id


@register_policy("first-open")
class FirstOpenSchedule(SchedulePolicy):
    """Every slot to the first open obligation in file order: the best rule that reads nothing
    of the obligations (issue 23: about 22 on J, where ``random`` is 0)."""

    information_free = True

    def reset(self, view: ScheduleFrame, rng: np.random.Generator) -> None:
        """Nothing to remember."""

    def pick(
        self, slot: int, open_obligations: Sequence[ObligationView], left: Mapping[str, int]
    ) -> str | None:
        """The first open obligation."""
        return open_obligations[0].id if open_obligations else None


@register_policy("recency")
class RecencySchedule(_Highest):
    """Newest arrival first."""

    def score(self, o: ObligationView, slot: int, left: int) -> float:
        """The arrival slot."""
        return float(o.arrives_at)


@register_policy("urgency-first")
class UrgencyFirstSchedule(_Highest):
    """Highest claimed urgency first."""

    def score(self, o: ObligationView, slot: int, left: int) -> float:
        """The claimed urgency."""
        return o.claimed_urgency


@register_policy("loudness")
class LoudnessSchedule(_Highest):
    """Loudest teaser first."""

    def score(self, o: ObligationView, slot: int, left: int) -> float:
        """Keyword urgency of the teaser."""
        return alerting_urgency(o.teaser)


@register_policy("triage-002")
class TriageSchedule(_Highest):
    """Document 002's ``urgency × gap``: urgency from the stated stakes (priority) and the stated
    due time, gap = share of the work still to do."""

    def score(self, o: ObligationView, slot: int, left: int) -> float:
        """``urgency × gap`` (no surprise: nothing contradicts anything here)."""
        due = (o.arrives_at + o.due_in - slot) * self._view.slot_minutes
        u = _triage(_priority(o.stakes, 1.0), _TIMESCALE_GOAL[o.timescale], due)
        return u * (left / o.work)


@register_policy("salience-003")
class SalienceSchedule(_Highest):
    """Document 003's alerting urgency of the teaser, then whether it relates to the task."""

    def reset(self, view: ScheduleFrame, rng: np.random.Generator) -> None:
        """Topics of the task text."""
        super().reset(view, rng)
        self._topics = AttentionSystem().process(view.task).topics

    def score(self, o: ObligationView, slot: int, left: int) -> float:
        """Urgency, with a small bonus for relating to the task's topics."""
        related = bool(self._topics) and bool(selective_filter([o.teaser], self._topics))
        return alerting_urgency(o.teaser) + (0.01 if related else 0.0)
