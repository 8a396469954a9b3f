"""Append-only trace of attention events (document 000 §12, Appendix A).

The controller names the events; the store keeps them faithfully, in commit order, each append
in its own committed transaction so a crash never leaves half an event.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticSerializationError

from heedful.errors import InvalidArgumentError
from heedful.memory._base import StoreBase, dumps, loads
from heedful.model.claim import to_epoch


@dataclass(frozen=True)
class TraceEvent:
    """One stored trace event.

    Attributes:
        seq: Position in the trace (strictly increasing, assigned at commit).
        event: Event type, e.g. ``candidate_selected``.
        payload: JSON object with the event's fields.
        candidate_id: The candidate it concerns, if any.
        ts: When it happened (epoch seconds).
    """

    seq: int
    event: str
    payload: dict[str, Any] = field(default_factory=dict)
    candidate_id: str | None = None
    ts: float = 0.0


@dataclass(frozen=True)
class TraceRecord:
    """An event to append (see :meth:`TraceMixin.append_traces`)."""

    event: str
    payload: Mapping[str, Any] = field(default_factory=dict)
    candidate_id: str | None = None
    ts: float | None = None


def _record_from_model(model: BaseModel, candidate_id: str | None, ts: float | None) -> TraceRecord:
    try:
        data = model.model_dump(mode="json")
    except PydanticSerializationError as exc:
        raise InvalidArgumentError(f"trace event model is not serialisable: {exc}") from exc
    event = data.get("event")
    if not isinstance(event, str):
        raise InvalidArgumentError(
            f"trace event model {type(model).__name__} has no string `event` field"
        )
    if candidate_id is None and isinstance(data.get("candidate_id"), str):
        candidate_id = data["candidate_id"]
    if ts is None:
        raw = getattr(model, "timestamp", getattr(model, "ts", None))
        ts = to_epoch(raw) if isinstance(raw, datetime | int | float) else None
    return TraceRecord(event, data, candidate_id, ts)


class TraceMixin(StoreBase):
    """The trace table."""

    def _insert_trace(self, record: TraceRecord) -> TraceEvent:
        if not isinstance(record.event, str) or not record.event:
            raise InvalidArgumentError(
                f"trace event type must be a non-empty string, got {record.event!r:.60}"
            )
        if not isinstance(record.payload, Mapping):
            raise InvalidArgumentError("trace payload must be a JSON object (a mapping)")
        ts = self.now() if record.ts is None else float(record.ts)
        if not math.isfinite(ts):
            raise InvalidArgumentError(f"trace timestamp must be finite, got {record.ts}")
        text = dumps(dict(record.payload), f"payload of trace event {record.event!r}")
        cursor = self._conn.execute(
            "INSERT INTO trace_events (event, payload, candidate_id, ts) VALUES (?, ?, ?, ?)",
            (record.event, text, record.candidate_id, ts),
        )
        assert cursor.lastrowid is not None
        return TraceEvent(
            seq=cursor.lastrowid,
            event=record.event,
            payload=loads(text),
            candidate_id=record.candidate_id,
            ts=ts,
        )

    def append_trace(
        self,
        event: str | BaseModel,
        payload: Mapping[str, Any] | None = None,
        *,
        candidate_id: str | None = None,
        ts: float | None = None,
    ) -> TraceEvent:
        """Append one event in its own transaction; it is durable when this returns.

        Args:
            event: Event type (Appendix A names, or the controller's own) — or a pydantic event
                model with an ``event`` field (e.g. the controller's ``TraceEvent``), stored as
                its JSON dump with ``candidate_id`` and ``timestamp``/``ts`` taken from it.
            payload: JSON-serialisable mapping (not with a model).
            candidate_id: The candidate it concerns.
            ts: Event time; defaults to the store clock.

        Raises:
            InvalidArgumentError: Empty event type, non-JSON payload, non-finite time.
        """
        if isinstance(event, BaseModel):
            if payload is not None:
                raise InvalidArgumentError("give either an event model or a payload, not both")
            record = _record_from_model(event, candidate_id, ts)
        else:
            record = TraceRecord(event, payload or {}, candidate_id, ts)
        with self._tx():
            return self._insert_trace(record)

    def append_traces(self, records: Sequence[TraceRecord]) -> list[TraceEvent]:
        """Append several events atomically (all or none) and return them."""
        with self._tx():
            return [self._insert_trace(r) for r in records]

    def write_traces(self, records: Sequence[TraceRecord]) -> None:
        """:meth:`append_traces` without reading the events back: the same checks, one
        transaction, one ``executemany`` (the controller's batched trace, issue 24)."""
        rows = []
        for record in records:
            if not isinstance(record.event, str) or not record.event:
                raise InvalidArgumentError(
                    f"trace event type must be a non-empty string, got {record.event!r:.60}"
                )
            if not isinstance(record.payload, Mapping):
                raise InvalidArgumentError("trace payload must be a JSON object (a mapping)")
            ts = self.now() if record.ts is None else float(record.ts)
            if not math.isfinite(ts):
                raise InvalidArgumentError(f"trace timestamp must be finite, got {record.ts}")
            text = dumps(dict(record.payload), f"payload of trace event {record.event!r}")
            rows.append((record.event, text, record.candidate_id, ts))
        with self._tx():
            self._conn.executemany(
                "INSERT INTO trace_events (event, payload, candidate_id, ts) VALUES (?, ?, ?, ?)",
                rows,
            )

    def trace(
        self,
        since: int = 0,
        *,
        event: str | None = None,
        candidate_id: str | None = None,
        limit: int | None = None,
    ) -> list[TraceEvent]:
        """Return events with ``seq > since`` in order, optionally filtered.

        Args:
            since: Last sequence number already seen (0 = from the start).
            event: Keep only this event type.
            candidate_id: Keep only events about this candidate.
            limit: At most this many events.
        """
        if limit is not None and limit < 0:
            raise InvalidArgumentError(f"limit must be ≥ 0, got {limit}")
        sql = "SELECT seq, event, payload, candidate_id, ts FROM trace_events WHERE seq > ?"
        params: list[object] = [since]
        if event is not None:
            sql += " AND event = ?"
            params.append(event)
        if candidate_id is not None:
            sql += " AND candidate_id = ?"
            params.append(candidate_id)
        sql += " ORDER BY seq"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return [
            TraceEvent(
                seq=r["seq"],
                event=r["event"],
                payload=loads(r["payload"]),
                candidate_id=r["candidate_id"],
                ts=r["ts"],
            )
            for r in self._read(sql, params)
        ]
