"""What the controller policies did in a run's trials, kept for the reports read after it.

The calibration table (:mod:`heedful.bench.calibration`) and the attention-health table
(:mod:`heedful.bench.report_timeline`) read a controller policy's reads and its trace on each
scenario. Replaying the policy for them costs as much as its own trials did; a run asked to keep
its plays (``run_benchmark(..., plays=...)``) records them as it goes instead — the same plays,
since a replay uses the same view, policy stream and (adaptive) world — and the reports read
them here, replaying only what was not kept.
"""

from __future__ import annotations

from dataclasses import dataclass

from heedful.attention.health import TraceRow
from heedful.model.candidate import EventType, TraceEvent

__all__ = ["PlayKey", "PlayTrace", "Plays", "trace_row"]

#: (policy name, scenario id, trial index).
PlayKey = tuple[str, str, int]

_SELECTED = EventType.CANDIDATE_SELECTED.value


@dataclass(frozen=True)
class PlayTrace:
    """One play of a controller policy: its reads in order and its trace as health reads it."""

    inspected: tuple[str, ...]
    rows: tuple[TraceRow, ...]

    def predicted(self) -> dict[str, float]:
        """The net VOC the controller predicted for each read when it first selected it."""
        out: dict[str, float] = {}
        for r in self.rows:
            target = r.detail.get("target")
            if r.event == _SELECTED and isinstance(target, str) and r.predicted_voc is not None:
                out.setdefault(target, r.predicted_voc)
        return out


#: The kept plays of a run, by :data:`PlayKey`.
Plays = dict[PlayKey, PlayTrace]


def trace_row(event: TraceEvent) -> TraceRow:
    """``TraceRow.of(event)`` without dumping the whole event to JSON first.

    Every field health reads is the event's own value (its detail holds JSON scalars already);
    only a resolution is a model, and it is dumped as ``TraceRow.of`` would.
    """
    res = event.resolution
    return TraceRow(
        event=event.event.value,
        turn_id=event.turn_id,
        candidate_id=event.candidate_id,
        predicted_voc=event.predicted_voc,
        reason_code=event.reason_code,
        resolution=res.model_dump(mode="json") if res is not None else None,
        detail=event.detail,
    )
