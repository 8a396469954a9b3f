"""Spans of jobs run in other processes, recorded there and replayed where the run's span lives.

Tracing is per process (:mod:`heedful.tracing`): a pool worker or a Ray task has no tracer of its
own, and could not flush one before it exits. So a job that should be traced is wrapped in
:class:`RelayedJob`: in the worker it installs a :class:`RecordingTracer` (no tracing library,
plain data), runs the job, and returns the finished spans — names, times, attributes, events,
error type, and which span was the parent of which — with the job's result. The caller passes
them to :func:`heedful.tracing.replay`, which re-emits them through the installed tracer as
children of the current span, with their original start and end times.

What a worker records is what the same job records in this process: the hook's attributes are
counts, codes and kinds, never untrusted content, and a relayed record is no exception.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Generic, TypeVar

from heedful import tracing
from heedful.tracing import Attributes, AttributeValue, SpanRecord

__all__ = ["RecordingTracer", "RelayedJob"]

T = TypeVar("T")
R = TypeVar("R")


@dataclass
class _Open:
    """A span being recorded: what becomes a :class:`SpanRecord` when it ends."""

    name: str
    start_ns: int
    parent: int
    attributes: dict[str, AttributeValue] = field(default_factory=dict)
    events: list[tuple[str, int, dict[str, AttributeValue]]] = field(default_factory=list)

    recording = True

    def set(self, attributes: Attributes) -> None:
        """Set attributes on the span."""
        self.attributes.update(attributes)

    def event(self, name: str, attributes: Attributes | None = None) -> None:
        """Add a timestamped event to the span."""
        self.events.append((name, time.time_ns(), dict(attributes or {})))

    def __enter__(self) -> _Open:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


class RecordingTracer:
    """A :class:`heedful.tracing.Tracer` that keeps every finished span as a :class:`SpanRecord`.

    A record's ``parent`` is the index of its parent's record in :attr:`records`, or ``-1`` for a
    span started with no recorded span open (the job's top-level spans).
    """

    def __init__(self) -> None:
        self._slots: list[SpanRecord | None] = []
        self._stack: list[tuple[int, _Open]] = []

    @contextmanager
    def span(self, name: str, attributes: Attributes | None) -> Iterator[tracing.Span]:
        """Record a span, current until it exits; an exception's type marks it as an error."""
        parent = self._stack[-1][0] if self._stack else -1
        index = len(self._slots)
        self._slots.append(None)
        opened = _Open(name, time.time_ns(), parent, dict(attributes or {}))
        self._stack.append((index, opened))
        error: str | None = None
        try:
            yield opened
        except BaseException as exc:
            error = type(exc).__name__
            raise
        finally:
            self._stack.pop()
            self._slots[index] = SpanRecord(
                name=opened.name,
                start_ns=opened.start_ns,
                end_ns=time.time_ns(),
                parent=opened.parent,
                attributes=opened.attributes,
                events=tuple(opened.events),
                error=error,
            )

    def current(self) -> tracing.Span:
        """The innermost open span, or the no-op span."""
        return self._stack[-1][1] if self._stack else tracing.NO_SPAN

    def replay(self, records: Sequence[SpanRecord]) -> None:
        """Keep another recorder's spans as children of the current span (a nested relay)."""
        base = len(self._slots)
        outer = self._stack[-1][0] if self._stack else -1
        for record in records:
            parent = outer if record.parent < 0 else base + record.parent
            self._slots.append(replace(record, parent=parent))

    @property
    def records(self) -> list[SpanRecord]:
        """Every finished span, in start order (a span still open is left out)."""
        kept: list[SpanRecord] = []
        where: dict[int, int] = {}
        for index, record in enumerate(self._slots):
            if record is None:
                continue
            where[index] = len(kept)
            parent = where.get(record.parent, -1) if record.parent >= 0 else -1
            kept.append(record if parent == record.parent else replace(record, parent=parent))
        return kept


class RelayedJob(Generic[T, R]):
    """A job function that also returns the spans recorded while it ran.

    Picklable when ``fn`` is (a module-level function or an instance of a module-level class),
    so it goes to pool workers and Ray tasks like ``fn`` itself.
    """

    def __init__(self, fn: Callable[[T], R]) -> None:
        self.fn = fn

    def __call__(self, item: T) -> tuple[R, list[SpanRecord]]:
        """Run ``fn(item)`` with a recording tracer installed; the result and the spans."""
        previous = tracing.installed()
        recorder = RecordingTracer()
        tracing.install(recorder)
        try:
            result = self.fn(item)
        finally:
            if previous is None:
                tracing.uninstall()
            else:
                tracing.install(previous)
        return result, recorder.records
