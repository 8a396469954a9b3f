"""Switching scenarios (``kind: switching``, family D of document 000 §16).

The agent is mid-task on a computation with known remaining work and value; interruptions arrive
over a short horizon and, at each arrival, the agent answers **stay** (decline it), **queue**
(handle it once the task is done) or **preempt** (switch to it now, then resume). The visible
half (:class:`SwitchingView`, :class:`InterruptionView`) is all a policy ever sees — and each
interruption only when it arrives; the PRIVATE half (:class:`SwitchingTruth`: true value,
deadline and resumption cost of each interruption) lives apart. File format:
``docs/scenario-format.md``.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from heedful.model.scenario import ScenarioKind

__all__ = [
    "InterruptionTruth",
    "InterruptionView",
    "MainTaskView",
    "SwitchChoice",
    "SwitchingScenario",
    "SwitchingStatus",
    "SwitchingTaskView",
    "SwitchingTruth",
    "SwitchingView",
]


class SwitchChoice(StrEnum):
    """The answer to one interruption (document 000 §16 D)."""

    STAY = "stay"
    QUEUE = "queue"
    PREEMPT = "preempt"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class MainTaskView(_Frozen):
    """The computation the agent is in the middle of.

    Attributes:
        description: What it is.
        value: Utility earned if it is finished within the horizon.
        work_left: Steps of work it still needs.
        progress: Share already done (0..1), for display.
        context_depth: How much working state it holds (0..1); deeper tasks cost more to resume.
    """

    description: str = ""
    value: float = Field(ge=0.0)
    work_left: int = Field(ge=1)
    progress: float = Field(default=0.0, ge=0.0, le=1.0)
    context_depth: float = Field(default=0.5, ge=0.0, le=1.0)


class InterruptionView(_Frozen):
    """An interruption as the agent sees it when it arrives.

    Attributes:
        id: Unique id.
        arrives_at: Step at which it arrives (and must be answered).
        source: Who sent it (free label).
        source_kind: Channel label (``pager``, ``chat``, ``email`` …).
        authority: Visible reliability of the sender's claims (0..1).
        claimed_urgency: How urgent the sender says it is (0..1).
        stakes: Value at stake as the sender states it (utility units).
        requested_within: Steps within which the sender asks for it to be handled.
        handling_steps: Steps of work it takes.
        teaser: Visible text (untrusted; may be loud).
    """

    id: str = Field(min_length=1)
    arrives_at: int = Field(ge=0)
    source: str = ""
    source_kind: str = "chat"
    authority: float = Field(default=0.5, ge=0.0, le=1.0)
    claimed_urgency: float = Field(default=0.5, ge=0.0, le=1.0)
    stakes: float = Field(default=0.0, ge=0.0)
    requested_within: int = Field(default=1, ge=1)
    handling_steps: int = Field(default=1, ge=1)
    teaser: str = ""


class SwitchingTaskView(_Frozen):
    """What a switching policy is reset on (see :meth:`SwitchingView.task_view`)."""

    task: str = ""
    horizon: int = Field(ge=1)
    switch_cost: float = Field(default=0.0, ge=0.0)
    main: MainTaskView


class SwitchingView(_Frozen):
    """The visible half of a switching scenario.

    Attributes:
        horizon: Steps in the trial; work after it earns nothing.
        switch_cost: Utility lost at every switch away from the unfinished task.
        main: The task in progress.
        interruptions: Every interruption (a policy receives each one only at its arrival).
    """

    format: Literal["heedful.scenario/v1"] = "heedful.scenario/v1"
    id: str
    kind: Literal[ScenarioKind.SWITCHING] = ScenarioKind.SWITCHING
    family: str = "custom"
    task: str = ""
    horizon: int = Field(ge=1)
    switch_cost: float = Field(default=0.0, ge=0.0)
    main: MainTaskView
    interruptions: tuple[InterruptionView, ...] = ()

    def task_view(self) -> SwitchingTaskView:
        """What a policy gets at the start: the task, horizon and switch cost — no scenario id,
        no family and none of the interruptions to come."""
        return SwitchingTaskView(
            task=self.task, horizon=self.horizon, switch_cost=self.switch_cost, main=self.main
        )


class InterruptionTruth(_Frozen):
    """PRIVATE: what an interruption is really worth.

    Attributes:
        value: Utility earned if it is handled by its deadline.
        deadline: Step by which handling must be finished (exclusive end of the last step).
        resume_cost: Extra steps of task work caused by switching to it mid-task.
    """

    value: float = Field(ge=0.0)
    deadline: int = Field(ge=0)
    resume_cost: int = Field(default=0, ge=0)


class SwitchingTruth(_Frozen):
    """PRIVATE half of a switching scenario: evaluator-only."""

    interruptions: dict[str, InterruptionTruth]


class SwitchingStatus(_Frozen):
    """Where the trial stands when an interruption arrives (what a policy may know of it).

    Attributes:
        time: The current step.
        main_work_left: Steps the task still needs (including resumption costs already paid).
        main_done: The task is finished.
        preempted_work: Steps of preempted interruptions still ahead of the task.
        queued_work: Steps of queued interruptions waiting for the task to finish.
    """

    time: int
    main_work_left: int
    main_done: bool
    preempted_work: int
    queued_work: int


class SwitchingScenario(_Frozen):
    """A loaded switching scenario: the visible ``view`` and the private ``truth``, kept apart."""

    view: SwitchingView
    truth: SwitchingTruth
    origin: str = "<memory>"

    @property
    def id(self) -> str:
        """The scenario id."""
        return self.view.id
