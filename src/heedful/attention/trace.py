"""The attention trace (document 000 §12, Appendix A).

Selection events are written *before* the outcome is known; the resolution follows as separate
events. Events go to an in-memory list and, optionally, to a sink (e.g. a memory store's trace).

Many events of one kind at once (the candidate columns create thousands of candidates in one
recomputation, :mod:`heedful.attention.columns`) are written with :meth:`Trace.write_many`: each
is the event :meth:`Trace.write` would write, with its own sequence number, in its place; the
sink gets every one as it is written, and the in-memory list keeps the batch as one record
whose events are built when the trace is read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from heedful.model.candidate import EventType, Resolution, TraceEvent

__all__ = ["Trace", "TraceSink"]

#: Something that durably records one event (a memory store's trace append, a file writer …).
TraceSink = Callable[[TraceEvent], None]


@dataclass(frozen=True)
class _Batch:
    """Events ``seq``, ``seq + 1`` … of one type, turn and time, not built yet."""

    event: EventType
    turn_id: str
    now: datetime
    seq: int
    candidate_ids: Sequence[str]
    reason_codes: Sequence[str]
    detail: Mapping[str, Sequence[str]]

    def __len__(self) -> int:
        return len(self.candidate_ids)

    def events(self, start: int = 0) -> list[TraceEvent]:
        """The events, from the ``start``-th on."""
        template = _template(self.event, self.turn_id, self.now)
        keys = list(self.detail)
        columns = [self.detail[k] for k in keys]
        out = []
        for i in range(start, len(self.candidate_ids)):
            fields = dict(template)
            fields["seq"] = self.seq + i
            fields["candidate_id"] = self.candidate_ids[i]
            fields["reason_code"] = self.reason_codes[i]
            fields["detail"] = {k: col[i] for k, col in zip(keys, columns, strict=True)}
            out.append(_new_event(fields))
        return out


class Trace:
    """Append-only list of :class:`TraceEvent` with a monotonic sequence number.

    Args:
        sink: Optional callable receiving every event as it is written.
        max_events: Events kept in memory (oldest dropped first); the sink sees all of them.
    """

    def __init__(self, sink: TraceSink | None = None, max_events: int = 100_000) -> None:
        self.sink = sink
        self.max_events = max_events
        self._events: list[TraceEvent | _Batch] = []
        self._count = 0  # events in memory, batches counted by their events
        self._batches = 0  # batches among _events
        self._seq = 0

    def __iter__(self) -> Iterator[TraceEvent]:
        return iter(list(self._built()))

    def __len__(self) -> int:
        return self._count

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
        self._count += 1
        self._trim()
        if self.sink is not None:
            self.sink(ev)
        return ev

    def write_many(
        self,
        event: EventType,
        *,
        turn_id: str,
        now: datetime,
        candidate_ids: Sequence[str],
        reason_codes: Sequence[str],
        detail: Mapping[str, Sequence[str]],
    ) -> None:
        """Append one ``event`` per candidate, in order: the ``i``-th is what :meth:`write`
        writes for ``candidate_id=candidate_ids[i]``, ``reason_code=reason_codes[i]`` and
        ``detail={key: values[i] for key, values in detail.items()}`` (``forced`` false; no
        value, rank, budget or resolution). The values are strings, taken as valid (not
        re-validated); the sequences are copied.
        """
        n = len(candidate_ids)
        if not n:
            return
        if len(reason_codes) != n or any(len(v) != n for v in detail.values()):
            raise ValueError("write_many: every column needs one value per candidate")
        batch = _Batch(
            event,
            turn_id,
            now,
            self._seq,
            list(candidate_ids),
            list(reason_codes),
            {k: list(v) for k, v in detail.items()},
        )
        self._seq += n
        if self.sink is not None:
            events = batch.events()
            self._events.extend(events)
            self._count += n
            self._trim()
            for ev in events:
                self.sink(ev)
            return
        self._events.append(batch)
        self._batches += 1
        self._count += n
        self._trim()

    def of(self, event: EventType) -> list[TraceEvent]:
        """Events of one type, in order."""
        return [e for e in self._built() if e.event is event]

    def _built(self) -> list[TraceEvent]:
        """The in-memory events, every batch built in its place."""
        if self._batches:
            out: list[TraceEvent | _Batch] = []
            for e in self._events:
                if isinstance(e, _Batch):
                    out.extend(e.events())
                else:
                    out.append(e)
            self._events = out
            self._batches = 0
        return self._events  # type: ignore[return-value]

    def _trim(self) -> None:
        """Drop the oldest events beyond ``max_events``."""
        excess = self._count - self.max_events
        if excess <= 0:
            return
        if not self._batches:
            del self._events[:excess]
            self._count -= excess
            return
        drop = 0
        while excess > 0:
            first = self._events[drop]
            size = 1
            if isinstance(first, _Batch):
                size = len(first)
                self._batches -= 1
            if size > excess:
                assert isinstance(first, _Batch)
                # Part of a batch goes: the rest stays, built.
                self._events[drop : drop + 1] = first.events(excess)
                self._count -= excess
                break
            drop += 1
            excess -= size
            self._count -= size
        del self._events[:drop]


_set = object.__setattr__
_FIELDS = frozenset(TraceEvent.model_fields)


def _template(event: EventType, turn_id: str, now: datetime) -> dict[str, Any]:
    """The field values :meth:`Trace.write` gives an event of this type, turn and time."""
    return {
        "event": event,
        "turn_id": turn_id,
        "seq": 0,
        "timestamp": now,
        "candidate_id": None,
        "predicted_voc": None,
        "rank": None,
        "budget_before": None,
        "reason_code": None,
        "forced": False,
        "resolution": None,
        "detail": {},
    }


def _new_event(fields: dict[str, Any]) -> TraceEvent:
    """A :class:`TraceEvent` of already-valid values (every field set, as :meth:`Trace.write`
    sets them)."""
    ev = object.__new__(TraceEvent)
    _set(ev, "__dict__", fields)
    _set(ev, "__pydantic_fields_set__", set(_FIELDS))
    _set(ev, "__pydantic_extra__", None)
    _set(ev, "__pydantic_private__", None)
    return ev
