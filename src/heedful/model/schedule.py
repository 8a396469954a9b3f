"""Schedule scenarios (``kind: schedule``, family J of document 000 §16).

Obligations on three timescales — minutes (urgent now), hours (important this hour) and a week —
compete for attention slots over a horizon. Each slot goes to one obligation (or to none); an
obligation pays its value only when its last slot of work is done by its deadline, discounted by
its hazard for every slot from its arrival to its completion. The visible half
(:class:`ScheduleView`) is all a policy sees — an obligation only from its arrival slot on; the
PRIVATE half (:class:`ScheduleTruth`: values, deadlines, hazards) lives apart.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from heedful.model.scenario import ScenarioKind

__all__ = [
    "ObligationTruth",
    "ObligationView",
    "ScheduleFrame",
    "ScheduleScenario",
    "ScheduleTruth",
    "ScheduleView",
    "Timescale",
]


class Timescale(StrEnum):
    """Horizon class of an obligation (document 000 §16 J)."""

    MINUTES = "minutes"
    HOURS = "hours"
    WEEK = "week"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ObligationView(_Frozen):
    """An obligation as the agent sees it once it has arrived.

    Attributes:
        id: Unique id.
        timescale: Its horizon class.
        arrives_at: Slot from which it can be worked on.
        work: Slots of work it needs.
        source: Who asked (free label).
        source_kind: Channel label (``pager``, ``calendar``, ``email`` …).
        authority: Visible reliability of the requester's statements (0..1).
        stakes: Value at stake as the requester states it (utility units).
        due_in: Slots until it is due, as the requester states it (from arrival).
        claimed_urgency: How urgent the requester says it is (0..1).
        teaser: Visible text (untrusted; may be loud).
    """

    id: str = Field(min_length=1)
    timescale: Timescale
    arrives_at: int = Field(default=0, ge=0)
    work: int = Field(default=1, ge=1)
    source: str = ""
    source_kind: str = "email"
    authority: float = Field(default=0.5, ge=0.0, le=1.0)
    stakes: float = Field(default=0.0, ge=0.0)
    due_in: int = Field(default=1, ge=1)
    claimed_urgency: float = Field(default=0.5, ge=0.0, le=1.0)
    teaser: str = ""


class ScheduleFrame(_Frozen):
    """What a schedule policy is reset on (see :meth:`ScheduleView.frame`)."""

    task: str = ""
    slots: int = Field(ge=1)
    slot_minutes: float = Field(default=30.0, gt=0.0)


class ScheduleView(_Frozen):
    """The visible half of a schedule scenario.

    Attributes:
        slots: Attention slots in the horizon (one unit of work each).
        slot_minutes: Length of a slot, for display and for policies that think in time.
        obligations: Every obligation (a policy sees each one only from its arrival slot).
    """

    format: Literal["heedful.scenario/v1"] = "heedful.scenario/v1"
    id: str
    kind: Literal[ScenarioKind.SCHEDULE] = ScenarioKind.SCHEDULE
    family: str = "custom"
    task: str = ""
    slots: int = Field(ge=1)
    slot_minutes: float = Field(default=30.0, gt=0.0)
    obligations: tuple[ObligationView, ...]

    def frame(self) -> ScheduleFrame:
        """What a policy gets at the start: the task and the slots — no scenario id, no family
        and no obligation (each is shown from its arrival slot on)."""
        return ScheduleFrame(task=self.task, slots=self.slots, slot_minutes=self.slot_minutes)

    def arrived(self, slot: int) -> tuple[ObligationView, ...]:
        """Obligations visible at ``slot`` (arrived at or before it), in file order."""
        return tuple(o for o in self.obligations if o.arrives_at <= slot)


class ObligationTruth(_Frozen):
    """PRIVATE: what an obligation is really worth.

    Attributes:
        value: Utility if finished by the deadline with no waiting.
        deadline: Slot count by which its last slot must be done (completion time ≤ deadline).
        hazard: Probability per slot, from arrival to completion, that it lapses.
    """

    value: float = Field(ge=0.0)
    deadline: int = Field(ge=1)
    hazard: float = Field(default=0.0, ge=0.0, lt=1.0)


class ScheduleTruth(_Frozen):
    """PRIVATE half of a schedule scenario: evaluator-only."""

    obligations: dict[str, ObligationTruth]


class ScheduleScenario(_Frozen):
    """A loaded schedule scenario: the visible ``view`` and the private ``truth``, kept apart."""

    view: ScheduleView
    truth: ScheduleTruth
    origin: str = "<memory>"

    @property
    def id(self) -> str:
        """The scenario id."""
        return self.view.id
