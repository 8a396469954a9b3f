"""The state the controller's parts share (attributes only; :class:`Controller` sets them).

The controller is one object assembled from small parts — candidate lifecycle
(:mod:`heedful.attention.lifecycle`), claim enforcement (:mod:`heedful.attention.enforcement`),
outcome recording (:mod:`heedful.attention.outcome`) — behind the facade in
:mod:`heedful.attention.controller`. This base only declares, for the type checker, what they
read and write.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from datetime import datetime
from typing import Any, Protocol

from heedful.attention.config import AttentionConfig
from heedful.attention.context import AttentionContext, Failure, Focus, Interruption
from heedful.attention.estimators import Estimate, Estimator
from heedful.attention.generators import Generator
from heedful.attention.guard import Guard, Saturation
from heedful.attention.instruments import Instruments
from heedful.attention.persist import StoreMirror
from heedful.attention.selector import Selector
from heedful.attention.trace import Trace
from heedful.attention.validator import ClaimValidator
from heedful.attention.world import World
from heedful.memory import Store
from heedful.model.candidate import Candidate, EventType

__all__ = ["ColumnsView", "ControllerState"]


class ColumnsView(Protocol):
    """What the parts use of the candidate columns (:class:`heedful.attention.columns.ColumnTable`,
    which the facade builds): declared here so the columns, which read this state, and the state
    do not import each other (issue 27 item 4)."""

    def leave(self) -> None:
        """Write the table back and stop using the columns."""


class ControllerState:
    """Attributes shared by the controller's parts (see :class:`heedful.attention.Controller`)."""

    config: AttentionConfig
    repeat_inspections: bool
    world: World
    estimator: Estimator
    generators: list[Generator]
    validator: ClaimValidator
    guard: Guard
    selector: Selector
    store: Store | None
    mirror: StoreMirror | None
    trace: Trace
    clock: Callable[[], datetime]
    turn: int
    turn_id: str
    budget: int | None
    turn_budget: int | None
    cost_weight: float | None
    pending_claims: list[str]
    failures: list[Failure]
    interruptions: list[Interruption]
    focus: Focus | None
    inspected: dict[str, int]
    committed: list[str]
    spontaneous_reads: int
    forced_reads: int
    saturation: Saturation
    _last_estimates: dict[str, Estimate]
    _explorable_keys: set[tuple[str, str]]
    instruments: Instruments
    _inflight: dict[str, Candidate]
    _waited: dict[str, int]
    _blocked: dict[str, str]
    _skip_logged: set[tuple[str, str]]
    _selected: dict[str, Estimate]
    _resume: dict[str, Focus | None]
    _columns: ColumnsView

    def context(self, now: datetime | None = None) -> AttentionContext:
        """A snapshot of everything generators and estimators read (the lifecycle's)."""
        raise NotImplementedError

    def _admit(self, candidate: Candidate, now: datetime) -> Candidate | None:
        """Pass a candidate through the guard (the lifecycle's)."""
        raise NotImplementedError

    def _trace_batch(self) -> AbstractContextManager[None]:
        """One store transaction for the trace events of a public call (the mirror's batch)."""
        return self.mirror.batched() if self.mirror is not None else nullcontext()

    def _log(self, event: EventType, now: datetime, **fields: Any) -> None:
        """Write one trace event of the current turn."""
        self.trace.write(event, turn_id=self.turn_id, now=now, **fields)
