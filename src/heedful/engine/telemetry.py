"""In-process telemetry for the engine (document 002 §3.5).

Events: ``cycle_start``, ``dispatch``, ``cycle_complete``, ``goal_proposed``, each with
measurements and metadata like ``:telemetry.execute``. Subscribers are plain callables. Each
cycle runs inside a ``heedful.engine.cycle`` span of :mod:`heedful.tracing` (a no-op until a
tracer is installed, e.g. by :func:`heedful.integrations.otel.instrument`); every event becomes an
event of that span, and ``cycle_start``/``cycle_complete`` also set its attributes. Span data keeps
numbers and the engine's own codes only: a goal id (which an agent may write) never reaches it.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from heedful import tracing

_log = logging.getLogger("heedful.engine")

#: Names of the events the engine emits.
EVENTS = ("cycle_start", "dispatch", "cycle_complete", "goal_proposed")


@dataclass(frozen=True)
class TelemetryEvent:
    """One emitted event."""

    name: str
    measurements: dict[str, float] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)


Subscriber = Callable[[TelemetryEvent], None]


#: String metadata that may reach a span: the engine's own codes, never agent-written names.
SPAN_CODES = frozenset({"trigger", "autonomy", "mode", "result", "cycle_id"})
#: Events whose fields also become attributes of the cycle span.
_CYCLE_ATTRIBUTE_EVENTS = frozenset({"cycle_start", "cycle_complete"})
#: Name of the span around one cycle.
CYCLE_SPAN = "heedful.engine.cycle"


def span_attributes(event: TelemetryEvent) -> dict[str, tracing.AttributeValue]:
    """The span-safe fields of an event, keyed ``heedful.engine.<field>``.

    Numbers and flags pass; strings only for :data:`SPAN_CODES`; a mapping of counts (``modes``)
    becomes one attribute per key. Anything else (a goal id) is left out.
    """
    attrs: dict[str, tracing.AttributeValue] = {}
    for key, value in {**event.measurements, **event.metadata}.items():
        name = f"heedful.engine.{key}"
        if isinstance(value, bool | int | float):
            attrs[name] = value
        elif isinstance(value, str):
            if key in SPAN_CODES:
                attrs[name] = value
        elif isinstance(value, dict):
            attrs.update(
                (f"{name}.{sub}", n)
                for sub, n in value.items()
                if isinstance(sub, str) and isinstance(n, int | float)
            )
    return attrs


class Telemetry:
    """Fan-out of engine events to subscribers (and to the current span when tracing)."""

    def __init__(self) -> None:
        self._subscribers: list[Subscriber] = []

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        """Register a subscriber; returns a function that unsubscribes it."""
        self._subscribers.append(subscriber)

        def unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                self._subscribers.remove(subscriber)

        return unsubscribe

    def emit(
        self,
        name: str,
        measurements: dict[str, float] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        """Deliver one event to every subscriber.

        A subscriber that raises is logged and skipped so one faulty observer cannot stop the
        engine; the exception is not hidden (it is logged with its traceback).
        """
        event = TelemetryEvent(name, dict(measurements or {}), dict(metadata or {}))
        for subscriber in list(self._subscribers):
            try:
                subscriber(event)
            except Exception:
                _log.exception("telemetry subscriber failed on %s", name)
        span = tracing.current()
        if span.recording:
            attrs = span_attributes(event)
            span.event(f"heedful.engine.{name}", attrs)
            if name in _CYCLE_ATTRIBUTE_EVENTS:
                span.set(attrs)

    def cycle_span(self, trigger: str) -> AbstractContextManager[tracing.Span]:
        """The span around one cycle (:data:`heedful.tracing.NO_SPAN` when not tracing)."""
        if not tracing.enabled():
            return tracing.NO_SPAN
        return tracing.span(CYCLE_SPAN, {"heedful.engine.trigger": trigger})
