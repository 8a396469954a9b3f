"""The attention trace (document 000 §12, Appendix A).

Selection events are written *before* the outcome is known; the resolution follows as separate
events. Events go to an in-memory list and, optionally, to a sink (e.g. a memory store's trace).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime

from heedful.model.candidate import EventType, Resolution, TraceEvent

__all__ = ["Trace", "TraceSink"]

#: Something that durably records one event (a memory store's trace append, a file writer …).
TraceSink = Callable[[TraceEvent], None]


class Trace:
    """Append-only list of :class:`TraceEvent` with a monotonic sequence number.

    Args:
        sink: Optional callable receiving every event as it is written.
        max_events: Events kept in memory (oldest dropped first); the sink sees all of them.
    """

    def __init__(self, sink: TraceSink | None = None, max_events: int = 100_000) -> None:
        self.sink = sink
        self.max_events = max_events
        self._events: list[TraceEvent] = []
        self._seq = 0

    def __iter__(self) -> Iterator[TraceEvent]:
        return iter(list(self._events))

    def __len__(self) -> int:
        return len(self._events)

    def write(
        self,
        event: EventType,
        *,
        turn_id: str,
        now: datetime,
        candidate_id: str | None = None,
        predicted_voc: float | None = None,
        rank: int | None = None,
        budget_before: float | None = None,
        reason_code: str | None = None,
        forced: bool = False,
        resolution: Resolution | None = None,
        detail: dict[str, str | float | int | bool | None] | None = None,
    ) -> TraceEvent:
        """Append one event and pass it to the sink; return it."""
        ev = TraceEvent(
            event=event,
            turn_id=turn_id,
            seq=self._seq,
            timestamp=now,
            candidate_id=candidate_id,
            predicted_voc=predicted_voc,
            rank=rank,
            budget_before=budget_before,
            reason_code=reason_code,
            forced=forced,
            resolution=resolution,
            detail=detail or {},
        )
        self._seq += 1
        self._events.append(ev)
        if len(self._events) > self.max_events:
            del self._events[: len(self._events) - self.max_events]
        if self.sink is not None:
            self.sink(ev)
        return ev

    def of(self, event: EventType) -> list[TraceEvent]:
        """Events of one type, in order."""
        return [e for e in self._events if e.event is event]
