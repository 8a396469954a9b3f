"""The small records the controller's parts share (issue 27 item 4).

:class:`heedful.attention.Controller` is a facade over parts that are separate objects — the
candidate columns (:class:`~heedful.attention.columns.ColumnTable`), the candidate lifecycle
(:class:`~heedful.attention.lifecycle.CandidateLifecycle`), claim enforcement
(:class:`~heedful.attention.enforcement.ClaimEnforcement`) and outcome recording
(:class:`~heedful.attention.outcome.OutcomeRecorder`). None of them holds the controller; each is
given the collaborators it uses, and the mutable numbers more than one of them reads live here,
in three plain records the facade creates once and hands to the parts that need them:

* :class:`TurnRecord` — the turn counter, its id, the budget left, the turn's budget and cost
  weight;
* :class:`Agenda` — what the agent declared (pending claims, failures, interruptions, focus) and
  what it has read (inspected, committed, read counts): the context's inputs beside the world;
* :class:`TableNotes` — what is kept about the live candidates beside the guard's table (waited
  counts, the last estimates, the exploration keys, the skip-log keys of the turn, saturation).

:class:`TurnLog` writes one trace event of the current turn (``log(event, now, **fields)``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from heedful.attention.context import Failure, Focus, Interruption
from heedful.attention.estimators import Estimate
from heedful.attention.guard import Saturation
from heedful.attention.trace import Trace
from heedful.model.candidate import EventType

__all__ = ["Agenda", "TableNotes", "TurnLog", "TurnRecord"]


@dataclass(slots=True)
class TurnRecord:
    """The current turn (``begin_turn`` starts the next one).

    Attributes:
        turn: Turns begun so far.
        turn_id: ``turn-<turn>``, the id every trace event of the turn carries.
        budget: Reads left this turn (None: unlimited).
        turn_budget: The budget the turn began with.
        cost_weight: The turn's cost weight (None: the decision's, or the estimator's).
        started: Whether a turn was begun (``next()`` begins one when not).
    """

    turn: int = 0
    turn_id: str = "turn-0"
    budget: int | None = None
    turn_budget: int | None = None
    cost_weight: float | None = None
    started: bool = False


@dataclass(slots=True)
class Agenda:
    """What the agent declared and what it has read (the context's inputs beside the world)."""

    pending_claims: list[str] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    interruptions: list[Interruption] = field(default_factory=list)
    focus: Focus | None = None
    inspected: dict[str, int] = field(default_factory=dict)
    committed: list[str] = field(default_factory=list)
    spontaneous_reads: int = 0
    forced_reads: int = 0

    def count_read(self, target: str, forced: bool) -> None:
        """One more read of ``target``, forced (budget-exempt) or spontaneous."""
        self.inspected[target] = self.inspected.get(target, 0) + 1
        if forced:
            self.forced_reads += 1
        else:
            self.spontaneous_reads += 1


@dataclass(slots=True)
class TableNotes:
    """What is kept about the live candidates beside the guard's table.

    Attributes:
        waited: Candidate id → recomputations it was eligible and passed over (aging).
        last_estimates: Candidate id → estimate, of the last recomputation (object path).
        explorable_keys: ``(kind, target)`` of the reads the exploration generator proposed.
        skip_logged: ``(owner, reason)`` pairs whose ``candidate_skipped`` this turn is written.
        saturation: The last recomputation's saturation signal.
    """

    waited: dict[str, int] = field(default_factory=dict)
    last_estimates: dict[str, Estimate] = field(default_factory=dict)
    explorable_keys: set[tuple[str, str]] = field(default_factory=set)
    skip_logged: set[tuple[str, str]] = field(default_factory=set)
    saturation: Saturation = field(default_factory=lambda: Saturation(0.0, 0, False))


class TurnLog:
    """Writes trace events of the current turn: ``log(event, now, **fields)``.

    Args:
        trace: The trace written to.
        turn: The turn record whose ``turn_id`` each event carries.
    """

    __slots__ = ("trace", "turn")

    def __init__(self, trace: Trace, turn: TurnRecord) -> None:
        self.trace = trace
        self.turn = turn

    def __call__(self, event: EventType, now: datetime, **fields: Any) -> None:
        self.trace.write(event, turn_id=self.turn.turn_id, now=now, **fields)

    def many(self, event: EventType, now: datetime, **fields: Any) -> None:
        """:meth:`Trace.write_many` of the current turn."""
        self.trace.write_many(event, turn_id=self.turn.turn_id, now=now, **fields)
