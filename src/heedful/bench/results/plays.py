"""What the controller policies did in a run's trials, kept for the reports read after it.

The calibration table (:mod:`heedful.bench.run.calibration`) and the attention-health table
(:mod:`heedful.bench.report.timeline`) read a controller policy's reads and its trace on each
scenario. Replaying the policy for them costs as much as its own trials did; a run asked to keep
its plays (``run_benchmark(..., plays=...)``) records them as it goes instead — the same plays,
since a replay uses the same view, policy stream and (adaptive) world — and the reports read
them here, replaying only what was not kept.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from heedful.attention.health import TraceRow
from heedful.model.candidate import EventType, TraceEvent

__all__ = ["PlayKey", "PlayTrace", "Plays", "RowFields"]

#: (policy name, scenario id, trial index).
PlayKey = tuple[str, str, int]

_SELECTED = EventType.CANDIDATE_SELECTED.value


#: A trace row's fields in :class:`TraceRow` order: plain tuples cross process boundaries
#: several times faster than the frozen dataclass.
RowFields = tuple[
    str, str, str | None, float | None, str | None, Mapping[str, Any] | None, Mapping[str, Any]
]


@dataclass(frozen=True)
class PlayTrace:
    """One play of a controller policy: its reads in order and its trace as health reads it."""

    inspected: tuple[str, ...]
    fields: tuple[RowFields, ...]

    @classmethod
    def of(cls, inspected: Iterable[str], events: Iterable[TraceEvent]) -> PlayTrace:
        """From the reads and the controller's trace events."""
        return cls(tuple(inspected), tuple(_fields(e) for e in events))

    @property
    def rows(self) -> list[TraceRow]:
        """The trace as health reads it (``TraceRow.of`` of each event)."""
        return [TraceRow(*f) for f in self.fields]

    def predicted(self) -> dict[str, float]:
        """The net VOC the controller predicted for each read when it first selected it."""
        out: dict[str, float] = {}
        for event, _, _, voc, _, _, detail in self.fields:
            target = detail.get("target")
            if event == _SELECTED and isinstance(target, str) and voc is not None:
                out.setdefault(target, voc)
        return out


#: The kept plays of a run, by :data:`PlayKey`.
Plays = dict[PlayKey, PlayTrace]


def _fields(event: TraceEvent) -> RowFields:
    """``TraceRow.of(event)``'s fields without dumping the whole event to JSON first.

    Every field health reads is the event's own value (its detail holds JSON scalars already);
    only a resolution is a model, and it is dumped as ``TraceRow.of`` would.
    """
    res = event.resolution
    return (
        event.event.value,
        event.turn_id,
        event.candidate_id,
        event.predicted_voc,
        event.reason_code,
        res.model_dump(mode="json") if res is not None else None,
        event.detail,
    )
